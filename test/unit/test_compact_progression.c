/*-------------------------------------------------------------------------
 *
 * test_compact_progression.c
 *	  Every version of the course's compaction progression
 *	  (kernels/course/compact_progression.cu) against the CPU compaction,
 *	  as test_gpu_compact.c checks the production functions: the count,
 *	  every kept value bit for bit, nothing written past the count, on the
 *	  same sizes and flag patterns.  The three-step phases run one at a
 *	  time give the same result as version 1 in one call, and a version
 *	  past the last is refused.  Built with the course's kernels (CUDA)
 *	  only.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "unit.h"
#include "gpuscan_device.h"
#include "gpuscan_course.h"
#include "gpu_compact_check.h"

/* cpt_case -- one size and pattern: every version and the phases, both types */
static void
cpt_case(const gct_dev *d, gct_host *h, size_t n, int pattern)
{
	size_t		want_count;

	gct_inputs(d, h, n, pattern);
	for (int is_double = 0; is_double <= 1; is_double++)
	{
		size_t		size = is_double ? sizeof(double) : sizeof(float);

		unit_case("course compact %s: n=%zu, pattern %s", is_double ? "double" : "float",
				  n, compact_pattern_name(pattern));
		want_count = gct_values(d, h, n, is_double);

		for (int v = 1; v <= gsd_compact_progression_count(); v++)
		{
			const char *what = gsd_compact_progression_name(v);

			gct_poison(d, h, n, size);
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
	}
}

void
suite_compact_progression(void)
{
	gct_dev		d;
	gct_host	h;

	unit_case("course compact: device buffers");
	if (gct_setup(&d, &h, gsd_compact_progression_scratch_bytes(GCT_MAX_N)))
	{
		unit_seed(UINT64_C(0x6c0aac7));
		for (int s = 0; s < GCT_NSIZES; s++)
			for (int p = 0; p < COMPACT_NPATTERNS; p++)
				cpt_case(&d, &h, gct_sizes[s], p);

		unit_case("course compact: a version past the last is refused");
		UNIT_CHECK(gsd_compact_progression(gsd_compact_progression_count() + 1, 1, d.vals,
										   d.keep, 100, d.out, d.count,
										   d.scratch) == GSD_INVALID,
				   "a version past the last accepted");
	}
	gct_teardown(&d, &h);
}
