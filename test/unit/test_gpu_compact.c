/*-------------------------------------------------------------------------
 *
 * test_gpu_compact.c
 *	  The production compaction functions (gsd_compact_f64, _f32,
 *	  _indices) against the CPU compaction: the count, every kept value bit
 *	  for bit, the positions, and nothing written past the count (the
 *	  output is poisoned first).  Sizes around the vector, warp and tile
 *	  boundaries; each flag pattern of compact_patterns.h.  Bad arguments
 *	  are refused.  The course's versions are test_compact_progression.c's.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "unit.h"
#include "gpuscan_device.h"
#include "gpu_compact_check.h"

/* gct_case -- one size and pattern: both types, positions */
static void
gct_case(const gct_dev *d, gct_host *h, size_t n, int pattern)
{
	size_t		want_count;

	gct_inputs(d, h, n, pattern);
	for (int is_double = 0; is_double <= 1; is_double++)
	{
		size_t		size = is_double ? sizeof(double) : sizeof(float);

		unit_case("gpu compact %s: n=%zu, pattern %s", is_double ? "double" : "float",
				  n, compact_pattern_name(pattern));
		want_count = gct_values(d, h, n, is_double);

		gct_poison(d, h, n, size);
		if (is_double)
			UNIT_CHECK(gsd_compact_f64(d->vals, d->keep, n, d->out, d->count) == GSD_OK,
					   "gsd_compact_f64: %s", gsd_last_error());
		else
			UNIT_CHECK(gsd_compact_f32(d->vals, d->keep, n, d->out, d->count) == GSD_OK,
					   "gsd_compact_f32: %s", gsd_last_error());
		gct_check(is_double ? "gsd_compact_f64" : "gsd_compact_f32", d, h, n, size, want_count);
	}

	unit_case("gpu compact positions: n=%zu, pattern %s", n, compact_pattern_name(pattern));
	want_count = cpu_compact_indices(h->keep, n, 1, (int32_t *) h->want);
	gct_poison(d, h, n, sizeof(int32_t));
	UNIT_CHECK(gsd_compact_indices(d->keep, n, 1, d->out, d->count) == GSD_OK,
			   "gsd_compact_indices: %s", gsd_last_error());
	gct_check("gsd_compact_indices", d, h, n, sizeof(int32_t), want_count);
}

/* gct_bad_arguments -- what the production functions must refuse */
static void
gct_bad_arguments(const gct_dev *d)
{
	unit_case("gpu compact: bad arguments are refused");
	UNIT_CHECK(gsd_compact_f64(d->vals, d->keep + 1, 100, d->out, d->count) == GSD_INVALID,
			   "misaligned flags accepted");
	UNIT_CHECK(gsd_compact_f32((const float *) d->vals + 1, d->keep, 100, d->out, d->count) == GSD_INVALID,
			   "misaligned values accepted");
	UNIT_CHECK(gsd_compact_f64(d->vals, d->keep, 100, d->out, NULL) == GSD_INVALID,
			   "NULL count accepted");
	UNIT_CHECK(gsd_compact_indices(d->keep, 100, INT32_MAX - 50, d->out, d->count) == GSD_INVALID,
			   "positions past INT32_MAX accepted");
}

/* gct_positions_near_limit -- positions up to exactly INT32_MAX */
static void
gct_positions_near_limit(const gct_dev *d, gct_host *h)
{
	const size_t n = 5000;
	const int32_t first = INT32_MAX - (int32_t) n + 1;
	size_t		want_count;

	unit_case("gpu compact positions up to INT32_MAX");
	compact_pattern_fill(0, h->keep, n);
	h->keep[n - 1] = 1;
	UNIT_CHECK(gsd_upload(d->keep, h->keep, n) == GSD_OK, "upload: %s", gsd_last_error());
	want_count = cpu_compact_indices(h->keep, n, first, (int32_t *) h->want);
	gct_poison(d, h, n, sizeof(int32_t));
	UNIT_CHECK(gsd_compact_indices(d->keep, n, first, d->out, d->count) == GSD_OK,
			   "gsd_compact_indices: %s", gsd_last_error());
	gct_check("positions near INT32_MAX", d, h, n, sizeof(int32_t), want_count);
}

void
suite_gpu_compact(void)
{
	gct_dev		d;
	gct_host	h;

	unit_case("gpu compact: device buffers");
	if (gct_setup(&d, &h, 0))
	{
		unit_seed(UINT64_C(0x6c0aac7));
		for (int s = 0; s < GCT_NSIZES; s++)
			for (int p = 0; p < COMPACT_NPATTERNS; p++)
				gct_case(&d, &h, gct_sizes[s], p);
		gct_bad_arguments(&d);
		gct_positions_near_limit(&d, &h);
	}
	gct_teardown(&d, &h);
}
