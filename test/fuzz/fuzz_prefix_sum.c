/*-------------------------------------------------------------------------
 *
 * fuzz_prefix_sum.c
 *	  Differential fuzzing of the prefix sums (src/cpu/cpu_prefix_sum.c): the input
 *	  (fuzz_values.h) gives doubles and floats of any bits and a split into
 *	  calls; cpu_prefix_sum_f64 and cpu_prefix_sum_f32, inclusive and
 *	  exclusive, with the carry running across the calls, must give for
 *	  every element the bits of the reference's exact prefix sum rounded
 *	  once (exact_reference.h), and the carry must end holding the whole sum.
 *
 * Each call reads and writes heap blocks of exactly its length, so that
 * ASan catches any access past the call's elements.  FV_AVX2 picks the
 * AVX2 build of the scan, else the portable one.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_prefix_sum.h"
#include "cpu/cpu_sum.h"
#include "exact_reference.h"
#include "fuzz_util.h"
#include "fuzz_values.h"

/* elements per type: two full scan groups of 4 x 2048 */
#define MAX_N	(1 << 14)

/* expected -- the reference's inclusive and exclusive prefixes, as bits */
static void
expected(const fuzz_values *v, int f32, uint64_t *incl, uint64_t *excl, uint64_t *total)
{
	size_t		n = f32 ? v->n32 : v->n64,
				i;
	ref_sum		s;

	ref_init(&s);
	for (i = 0; i < n; i++)
	{
		excl[i] = ref_round_bits(&s);
		if (f32)
			ref_add_f32_bits(&s, fuzz_float_bits(v->x32[i]));
		else
			ref_add_f64_bits(&s, fuzz_double_bits(v->x64[i]));
		incl[i] = ref_round_bits(&s);
	}
	*total = ref_round_bits(&s);
}

/*
 * scan_calls -- the prefix sums over the split into out[0 .. n), and the
 * final carry rounded
 */
static double
scan_calls(const fuzz_values *v, int f32, int exclusive, double *out)
{
	size_t		n = f32 ? v->n32 : v->n64,
				width = f32 ? sizeof(float) : sizeof(double),
				off = 0;
	const char *base = f32 ? (const char *) v->x32 : (const char *) v->x64;
	gs_exact_acc carry;
	fuzz_split	split;

	gs_acc_zero(&carry);
	fuzz_split_start(&split, v->split_seed + (uint32_t) (2 * exclusive + f32));
	do
	{
		size_t		len = fuzz_split_next(&split, n - off);
		void	   *in = fuzz_alloc(width * len);
		double	   *o = fuzz_alloc(sizeof(double) * len);

		if (len > 0)
			memcpy(in, base + width * off, width * len);
		if (f32)
			cpu_prefix_sum_f32(in, len, o, exclusive, &carry);
		else
			cpu_prefix_sum_f64(in, len, o, exclusive, &carry);
		if (len > 0)
			memcpy(out + off, o, sizeof(double) * len);
		free(in);
		free(o);
		off += len;
	} while (off < n);
	return gs_acc_round(&carry);
}

/* check_scan -- one type and mode against the reference */
static void
check_scan(const fuzz_values *v, int f32, int exclusive, const uint64_t *want,
		   uint64_t want_total)
{
	size_t		n = f32 ? v->n32 : v->n64,
				i;
	double	   *out = fuzz_alloc(sizeof(double) * n);
	uint64_t	total = fuzz_double_bits(scan_calls(v, f32, exclusive, out));

	for (i = 0; i < n; i++)
		if (fuzz_double_bits(out[i]) != want[i])
			fuzz_fail("cpu_prefix_sum_%s %s (%s build, %zu elements, flags 0x%02x, split seed %u): "
					  "output %zu is 0x%016llx, the reference says 0x%016llx",
					  f32 ? "f32" : "f64", exclusive ? "exclusive" : "inclusive",
					  cpu_sum_exact_path(), n, v->flags, v->split_seed, i,
					  (unsigned long long) fuzz_double_bits(out[i]),
					  (unsigned long long) want[i]);
	if (total != want_total)
		fuzz_fail("cpu_prefix_sum_%s %s: the final carry rounds to 0x%016llx, the reference's sum to 0x%016llx",
				  f32 ? "f32" : "f64", exclusive ? "exclusive" : "inclusive",
				  (unsigned long long) total, (unsigned long long) want_total);
	free(out);
}

/* LLVMFuzzerTestOneInput -- both types, both modes */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_values v;
	int			f32;

	fuzz_values_decode(data, size, MAX_N, &v);
	cpu_sum_exact_allow_avx2((v.flags & FV_AVX2) != 0);
	for (f32 = 0; f32 <= 1; f32++)
	{
		size_t		n = f32 ? v.n32 : v.n64;
		uint64_t   *incl = fuzz_alloc(sizeof(uint64_t) * n),
				   *excl = fuzz_alloc(sizeof(uint64_t) * n),
					total;

		expected(&v, f32, incl, excl, &total);
		check_scan(&v, f32, 0, incl, total);
		check_scan(&v, f32, 1, excl, total);
		free(incl);
		free(excl);
	}
	fuzz_values_free(&v);
	return 0;
}
