/*-------------------------------------------------------------------------
 *
 * test_cpu_compact.c
 *	  The CPU compaction (cpu_compact.c) against a plain branching loop:
 *	  counts, values bit for bit, positions, and no store beyond the one
 *	  spare element the contract allows.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "unit.h"
#include "cpu/cpu_compact.h"
#include "compact_patterns.h"

#define CCT_MAX_N	(((size_t) 1 << 16) + 3)
#define CCT_GUARD	4

static const size_t cct_sizes[] = {0, 1, 2, 7, 8, 9, 63, 64, 65, 4096, 4097, CCT_MAX_N};
#define CCT_NSIZES	((int) (sizeof(cct_sizes) / sizeof(cct_sizes[0])))

/* cct_case -- one size and pattern: f64, f32 and positions */
static void
cct_case(size_t n, int pattern, uint8_t *keep, double *vals, double *out, float *vals_f,
		 float *out_f, int32_t *out_i)
{
	size_t		want = 0,
				got;
	const uint64_t poison = UINT64_C(0xfff8dead0000beef);

	unit_case("cpu compact: n=%zu, pattern %s", n, compact_pattern_name(pattern));
	compact_pattern_fill(pattern, keep, n);
	for (size_t i = 0; i < n; i++)
	{
		vals[i] = unit_rand_uniform() - 0.5;
		vals_f[i] = (float) vals[i];
		want += keep[i] != 0;
	}
	for (size_t i = 0; i < n + CCT_GUARD; i++)
		memcpy(&out[i], &poison, sizeof(poison));
	got = cpu_compact_f64(vals, keep, n, out);
	UNIT_CHECK(got == want, "f64 kept %zu, want %zu", got, want);
	for (size_t i = 0, j = 0; i < n && got == want; i++)
		if (keep[i] != 0)
		{
			UNIT_CHECK(memcmp(&out[j], &vals[i], sizeof(double)) == 0,
					   "f64 out[%zu] is not vals[%zu]", j, i);
			j++;
		}
	for (size_t i = want + 1; i < n + CCT_GUARD; i++)
		UNIT_CHECK(memcmp(&out[i], &poison, sizeof(poison)) == 0, "f64 store at %zu", i);

	got = cpu_compact_f32(vals_f, keep, n, out_f);
	UNIT_CHECK(got == want, "f32 kept %zu, want %zu", got, want);
	for (size_t i = 0, j = 0; i < n && got == want; i++)
		if (keep[i] != 0)
		{
			UNIT_CHECK(memcmp(&out_f[j], &vals_f[i], sizeof(float)) == 0,
					   "f32 out[%zu] is not vals[%zu]", j, i);
			j++;
		}

	got = cpu_compact_indices(keep, n, 7, out_i);
	UNIT_CHECK(got == want, "positions kept %zu, want %zu", got, want);
	for (size_t i = 0, j = 0; i < n && got == want; i++)
		if (keep[i] != 0)
		{
			UNIT_CHECK(out_i[j] == (int32_t) (7 + i), "position %zu is %d, want %zu",
					   j, out_i[j], 7 + i);
			j++;
		}
}

void
suite_cpu_compact(void)
{
	uint8_t    *keep = malloc(CCT_MAX_N);
	double	   *vals = malloc(CCT_MAX_N * sizeof(double));
	double	   *out = malloc((CCT_MAX_N + CCT_GUARD) * sizeof(double));
	float	   *vals_f = malloc(CCT_MAX_N * sizeof(float));
	float	   *out_f = malloc((CCT_MAX_N + 1) * sizeof(float));
	int32_t    *out_i = malloc((CCT_MAX_N + 1) * sizeof(int32_t));

	unit_seed(UINT64_C(0xc0aac7));
	for (int s = 0; s < CCT_NSIZES; s++)
		for (int p = 0; p < COMPACT_NPATTERNS; p++)
			cct_case(cct_sizes[s], p, keep, vals, out, vals_f, out_f, out_i);
	free(keep);
	free(vals);
	free(out);
	free(vals_f);
	free(out_f);
	free(out_i);
}
