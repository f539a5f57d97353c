/*-------------------------------------------------------------------------
 *
 * fuzz_exact_sum.c
 *	  Differential fuzzing of the exact sums (src/cpu/cpu_sum.c): the input
 *	  (fuzz_values.h) gives doubles and floats of any bits and a split into
 *	  calls; cpu_sum_exact_f64 and cpu_sum_exact_f32 over the calls, rounded
 *	  by gs_acc_round, must give the bits of the reference's exact sum
 *	  rounded once (exact_reference.h).
 *
 * Each call sees its elements in a heap block of exactly their size, so
 * that ASan catches a read past the call's end.  With FV_MERGE, some calls
 * sum into a fresh accumulator that is then merged with gs_acc_merge, as
 * parallel workers' partial sums are.  FV_AVX2 picks the AVX2 build of
 * the block passes, else the portable one.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_sum.h"
#include "exact_reference.h"
#include "fuzz_util.h"
#include "fuzz_values.h"

/* elements per type: 2^15, more than the 4096 of a normalizing call */
#define MAX_N	(1 << 15)

/* sum_calls -- the exact sum over the split, in the way the flags say */
static double
sum_calls(const fuzz_values *v, int f32)
{
	size_t		n = f32 ? v->n32 : v->n64,
				width = f32 ? sizeof(float) : sizeof(double),
				off = 0;
	const char *base = f32 ? (const char *) v->x32 : (const char *) v->x64;
	gs_exact_acc acc,
				part;
	fuzz_split	split;
	fuzz_rng	pick;

	gs_acc_zero(&acc);
	fuzz_split_start(&split, v->split_seed);
	fuzz_rng_seed(&pick, ~(uint64_t) v->split_seed);
	do
	{
		size_t		len = fuzz_split_next(&split, n - off);
		void	   *chunk = fuzz_alloc(width * len);
		gs_exact_acc *into = &acc;

		if (len > 0)
			memcpy(chunk, base + width * off, width * len);
		if ((v->flags & FV_MERGE) && (fuzz_rng_next(&pick) & 1))
		{
			gs_acc_zero(&part);
			into = &part;
		}
		if (f32)
			cpu_sum_exact_f32(chunk, len, into);
		else
			cpu_sum_exact_f64(chunk, len, into);
		if (into == &part)
			gs_acc_merge(&acc, &part);
		free(chunk);
		off += len;
	} while (off < n);
	return gs_acc_round(&acc);
}

/* reference -- the reference's sum of the same elements */
static uint64_t
reference(const fuzz_values *v, int f32)
{
	ref_sum		s;
	size_t		i;

	ref_init(&s);
	if (f32)
		for (i = 0; i < v->n32; i++)
			ref_add_f32_bits(&s, fuzz_float_bits(v->x32[i]));
	else
		for (i = 0; i < v->n64; i++)
			ref_add_f64_bits(&s, fuzz_double_bits(v->x64[i]));
	return ref_round_bits(&s);
}

/* LLVMFuzzerTestOneInput -- both types, each against the reference */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_values v;
	int			f32;

	fuzz_values_decode(data, size, MAX_N, &v);
	cpu_sum_exact_allow_avx2((v.flags & FV_AVX2) != 0);
	for (f32 = 0; f32 <= 1; f32++)
	{
		uint64_t	got = fuzz_double_bits(sum_calls(&v, f32)),
					want = reference(&v, f32);

		if (got != want)
			fuzz_fail("cpu_sum_exact_%s (%s build, %zu elements, flags 0x%02x, split seed %u): "
					  "0x%016llx, the reference says 0x%016llx",
					  f32 ? "f32" : "f64", cpu_sum_exact_path(), f32 ? v.n32 : v.n64,
					  v.flags, v.split_seed, (unsigned long long) got, (unsigned long long) want);
	}
	fuzz_values_free(&v);
	return 0;
}
