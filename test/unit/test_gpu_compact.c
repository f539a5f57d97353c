/*-------------------------------------------------------------------------
 *
 * test_gpu_compact.c
 *	  Every version of the compaction progression and the production
 *	  functions (gsd_compact_f64, _f32, _indices) against the CPU
 *	  compaction: the count, every kept value bit for bit, the positions,
 *	  and nothing written past the count (the output is poisoned first).
 *	  Sizes around the vector, warp and tile boundaries; each flag pattern
 *	  of compact_patterns.h.  The three-step phases run one at a time give
 *	  the same result as version 1 in one call.  Bad arguments are refused.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "unit.h"
#include "gpuscan_device.h"
#include "compact_progression.h"
#include "cpu/cpu_compact.h"
#include "compact_patterns.h"

#define GCT_MAX_N	(((size_t) 3 << 20) + 5)
#define GCT_GUARD	64

/* around the tiles: 4096 elements (versions 2 .. 5), 12288 (version 6) */
static const size_t gct_sizes[] = {0, 1, 2, 3, 15, 16, 17, 31, 33, 4095, 4096, 4097,
	8193, 12287, 12288, 12289, 24577, 65537, ((size_t) 1 << 20) + 7, GCT_MAX_N};
#define GCT_NSIZES	((int) (sizeof(gct_sizes) / sizeof(gct_sizes[0])))

/* the device side of the suite */
typedef struct gct_dev
{
	void	   *vals;
	uint8_t    *keep;
	void	   *out;
	uint64_t   *count;
	void	   *scratch;
} gct_dev;

/* the host side: inputs, the CPU's result, the device's result */
typedef struct gct_host
{
	double	   *vals;
	float	   *vals_f;
	uint8_t    *keep;
	char	   *want;
	char	   *got;
} gct_host;

/* gct_poison -- every output byte and the guard after it set to 0xff */
static void
gct_poison(const gct_dev *d, gct_host *h, size_t n, size_t size)
{
	memset(h->got, 0xff, (n + GCT_GUARD) * size);
	UNIT_CHECK(gsd_upload(d->out, h->got, (n + GCT_GUARD) * size) == GSD_OK,
			   "upload: %s", gsd_last_error());
}

/*
 * gct_check -- the device's count and output (n + guard elements of
 * `size` bytes) against the CPU's result of want_count elements
 */
static void
gct_check(const char *what, const gct_dev *d, gct_host *h, size_t n, size_t size,
		  size_t want_count)
{
	uint64_t	count = UINT64_MAX;
	size_t		bytes = (n + GCT_GUARD) * size;

	if (gsd_download(&count, d->count, sizeof(count)) != GSD_OK ||
		gsd_download(h->got, d->out, bytes) != GSD_OK)
	{
		UNIT_CHECK(0, "%s: download failed: %s", what, gsd_last_error());
		return;
	}
	UNIT_CHECK(count == want_count, "%s: count %llu, want %zu", what,
			   (unsigned long long) count, want_count);
	if (count != want_count)
		return;
	for (size_t j = 0; j < want_count; j++)
		if (memcmp(h->got + j * size, h->want + j * size, size) != 0)
		{
			UNIT_CHECK(0, "%s: output %zu differs", what, j);
			break;
		}
	for (size_t j = want_count * size; j < bytes; j++)
		if ((unsigned char) h->got[j] != 0xff)
		{
			UNIT_CHECK(0, "%s: byte %zu past the count was written", what, j);
			break;
		}
}

/* gct_case -- one size and pattern: every version, both types, positions */
static void
gct_case(const gct_dev *d, gct_host *h, size_t n, int pattern)
{
	size_t		want_count;
	char		what[128];

	compact_pattern_fill(pattern, h->keep, n);
	for (size_t i = 0; i < n; i++)
	{
		h->vals[i] = unit_rand_uniform() - 0.5;
		h->vals_f[i] = (float) h->vals[i];
	}
	if (n > 0)
		UNIT_CHECK(gsd_upload(d->keep, h->keep, n) == GSD_OK, "upload: %s", gsd_last_error());

	for (int is_double = 0; is_double <= 1; is_double++)
	{
		size_t		size = is_double ? sizeof(double) : sizeof(float);

		unit_case("gpu compact %s: n=%zu, pattern %s", is_double ? "double" : "float",
				  n, compact_pattern_name(pattern));
		want_count = is_double ? cpu_compact_f64(h->vals, h->keep, n, (double *) h->want)
			: cpu_compact_f32(h->vals_f, h->keep, n, (float *) h->want);
		if (n > 0)
			UNIT_CHECK(gsd_upload(d->vals, is_double ? (void *) h->vals : (void *) h->vals_f,
								  n * size) == GSD_OK, "upload: %s", gsd_last_error());

		for (int v = 1; v <= gsd_compact_progression_count(); v++)
		{
			gct_poison(d, h, n, size);
			snprintf(what, sizeof(what), "%s", gsd_compact_progression_name(v));
			UNIT_CHECK(gsd_compact_progression(v, is_double, d->vals, d->keep, n, d->out,
											   d->count, d->scratch) == GSD_OK,
					   "%s: %s", what, gsd_last_error());
			gct_check(what, d, h, n, size, want_count);
		}

		gct_poison(d, h, n, size);
		for (int phase = 1; phase <= 3; phase++)
			UNIT_CHECK(gsd_compact_three_step_phase(phase, is_double, d->vals, d->keep, n,
													d->out, d->count, d->scratch) == GSD_OK,
					   "phase %d: %s", phase, gsd_last_error());
		gct_check("three phases one at a time", d, h, n, size, want_count);

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
	UNIT_CHECK(gsd_compact_progression(gsd_compact_progression_count() + 1, 1, d->vals,
									   d->keep, 100, d->out, d->count,
									   d->scratch) == GSD_INVALID,
			   "a version past the last accepted");
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
	gct_dev		d = {0};
	gct_host	h;
	size_t		out_bytes = (GCT_MAX_N + GCT_GUARD) * sizeof(double);

	h.vals = malloc(GCT_MAX_N * sizeof(double));
	h.vals_f = malloc(GCT_MAX_N * sizeof(float));
	h.keep = malloc(GCT_MAX_N);
	h.want = malloc(out_bytes + sizeof(double));
	h.got = malloc(out_bytes);
	unit_case("gpu compact: device buffers");
	if (gsd_alloc(GCT_MAX_N * sizeof(double), &d.vals) != GSD_OK ||
		gsd_alloc(GCT_MAX_N, (void **) &d.keep) != GSD_OK ||
		gsd_alloc(out_bytes, &d.out) != GSD_OK ||
		gsd_alloc(sizeof(uint64_t), (void **) &d.count) != GSD_OK ||
		gsd_alloc(gsd_compact_progression_scratch_bytes(GCT_MAX_N), &d.scratch) != GSD_OK)
		UNIT_CHECK(0, "gsd_alloc: %s", gsd_last_error());
	else
	{
		unit_seed(UINT64_C(0x6c0aac7));
		for (int s = 0; s < GCT_NSIZES; s++)
			for (int p = 0; p < COMPACT_NPATTERNS; p++)
				gct_case(&d, &h, gct_sizes[s], p);
		gct_bad_arguments(&d);
		gct_positions_near_limit(&d, &h);
	}
	gsd_free(d.vals);
	gsd_free(d.keep);
	gsd_free(d.out);
	gsd_free(d.count);
	gsd_free(d.scratch);
	free(h.vals);
	free(h.vals_f);
	free(h.keep);
	free(h.want);
	free(h.got);
}
