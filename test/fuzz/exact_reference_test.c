/*-------------------------------------------------------------------------
 *
 * exact_reference_test.c
 *	  A short self-check of the reference (exact_reference.h), run once by
 *	  each harness that uses it: known sums, and the FPU as the oracle for
 *	  sums of two values (one IEEE addition is correctly rounded too).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include "exact_reference.h"
#include "fuzz_util.h"

#define ONE			UINT64_C(0x3ff0000000000000)
#define NEG_ZERO	UINT64_C(0x8000000000000000)
#define DBL_MAX_B	UINT64_C(0x7fefffffffffffff)
#define INF_B		UINT64_C(0x7ff0000000000000)
#define NINF_B		UINT64_C(0xfff0000000000000)

static int	failures;

/* pow2_bits -- the bits of 2^e, -1074 <= e <= 1023 */
static uint64_t
pow2_bits(int e)
{
	if (e < -1022)
		return UINT64_C(1) << (e + 1074);
	return (uint64_t) (e + 1023) << 52;
}

/* expect -- the reference's sum of n doubles (bits) must round to want */
static void
expect(const char *what, const uint64_t *x, int n, uint64_t want)
{
	ref_sum		s;
	uint64_t	got;
	int			i;

	ref_init(&s);
	for (i = 0; i < n; i++)
		ref_add_f64_bits(&s, x[i]);
	got = ref_round_bits(&s);
	if (got != want)
	{
		fprintf(stderr, "exact_reference self-test: %s gave 0x%016llx, expected 0x%016llx\n",
				what, (unsigned long long) got, (unsigned long long) want);
		failures++;
	}
}

/* expect_f32 -- the same for floats */
static void
expect_f32(const char *what, const uint32_t *x, int n, uint64_t want)
{
	ref_sum		s;
	uint64_t	got;
	int			i;

	ref_init(&s);
	for (i = 0; i < n; i++)
		ref_add_f32_bits(&s, x[i]);
	got = ref_round_bits(&s);
	if (got != want)
	{
		fprintf(stderr, "exact_reference self-test: %s gave 0x%016llx, expected 0x%016llx\n",
				what, (unsigned long long) got, (unsigned long long) want);
		failures++;
	}
}

/* known_sums -- zeros, ties, the ends of the range, the special values */
static void
known_sums(void)
{
	uint64_t	x[4];
	uint32_t	f[2];

	expect("empty sum", x, 0, 0);
	x[0] = NEG_ZERO;
	x[1] = NEG_ZERO;
	expect("-0", x, 1, NEG_ZERO);
	expect("-0 + -0", x, 2, NEG_ZERO);
	x[1] = 0;
	expect("-0 + 0", x, 2, 0);
	x[0] = ONE;
	x[1] = ONE | NEG_ZERO;
	x[2] = NEG_ZERO;
	expect("1 - 1 - 0", x, 3, 0);
	x[0] = UINT64_C(0x7fe1ccf385ebc8a0);	/* 1e308 */
	x[1] = x[0];
	expect("1e308 + 1e308", x, 2, INF_B);
	x[0] |= NEG_ZERO;
	x[1] = x[0];
	expect("-1e308 - 1e308", x, 2, NINF_B);
	x[0] = UINT64_C(0x3fb999999999999a);	/* 0.1 */
	x[1] = UINT64_C(0x3fc999999999999a);	/* 0.2 */
	expect("0.1 + 0.2", x, 2, UINT64_C(0x3fd3333333333334));
	x[0] = 1;
	x[1] = 1;
	expect("2^-1074 + 2^-1074", x, 2, 2);
	x[0] = UINT64_C(0x000fffffffffffff);
	x[1] = 1;
	expect("largest subnormal + 2^-1074", x, 2, UINT64_C(0x0010000000000000));
	x[0] = pow2_bits(-1022);
	x[1] = 1 | NEG_ZERO;
	expect("2^-1022 - 2^-1074", x, 2, UINT64_C(0x000fffffffffffff));
	x[0] = ONE;
	x[1] = pow2_bits(-53);
	expect("1 + 2^-53 (tie, down to even)", x, 2, ONE);
	x[2] = 1;
	expect("1 + 2^-53 + 2^-1074 (above the tie)", x, 3, ONE + 1);
	x[0] = ONE + 1;
	expect("1 + 2^-52 + 2^-53 (tie, up to even)", x, 2, ONE + 2);
	x[0] = DBL_MAX_B;
	x[1] = pow2_bits(970);
	expect("DBL_MAX + half an ulp (tie, overflows)", x, 2, INF_B);
	x[2] = 1 | NEG_ZERO;
	expect("DBL_MAX + half an ulp - 2^-1074", x, 3, DBL_MAX_B);
	x[1] = pow2_bits(969);
	expect("DBL_MAX + a quarter ulp", x, 2, DBL_MAX_B);
	x[0] = UINT64_C(0x4341c37937e08000);	/* 1e16 */
	x[1] = ONE;
	x[2] = x[0] | NEG_ZERO;
	expect("1e16 + 1 - 1e16", x, 3, ONE);
	x[0] = DBL_MAX_B;
	x[1] = DBL_MAX_B;
	x[2] = DBL_MAX_B | NEG_ZERO;
	expect("DBL_MAX + DBL_MAX - DBL_MAX", x, 3, DBL_MAX_B);
	x[0] = INF_B;
	x[1] = NINF_B;
	expect("Inf - Inf", x, 2, REF_QNAN_BITS);
	x[1] = DBL_MAX_B | NEG_ZERO;
	expect("Inf - DBL_MAX", x, 2, INF_B);
	x[0] = NINF_B;
	x[1] = UINT64_C(0x7ff0000000000001);	/* a signalling NaN */
	expect("-Inf + NaN", x, 2, REF_QNAN_BITS);
	f[0] = 1;
	expect_f32("float 2^-149", f, 1, pow2_bits(-149));
	f[0] = 0x7f7fffff;
	f[1] = 0x7f7fffff;
	expect_f32("FLT_MAX + FLT_MAX", f, 2, UINT64_C(0x47ffffffe0000000));
	f[0] = 0x80000000u;
	expect_f32("float -0", f, 1, NEG_ZERO);
	f[1] = 0xff800000u;
	expect_f32("float -0 - Inf", f, 2, NINF_B);
}

/* wide_sums -- 2^20 times DBL_MAX and back: the width suffices */
static void
wide_sums(void)
{
	ref_sum		s;
	uint64_t	got;
	int			i;

	ref_init(&s);
	for (i = 0; i < (1 << 20); i++)
		ref_add_f64_bits(&s, DBL_MAX_B);
	if (ref_round_bits(&s) != INF_B)
		failures++;
	for (i = 0; i < (1 << 20); i++)
		ref_add_f64_bits(&s, DBL_MAX_B | NEG_ZERO);
	ref_add_f64_bits(&s, 1);
	ref_add_scaled(&s, -(INT64_C(1) << 40), 2112);
	ref_add_scaled(&s, INT64_C(1) << 40, 2112);
	got = ref_round_bits(&s);
	if (got != 1)
	{
		fprintf(stderr, "exact_reference self-test: 2^20 DBL_MAX and back gave 0x%016llx\n",
				(unsigned long long) got);
		failures++;
	}
}

/* next64 -- splitmix64 over a local state */
static uint64_t
next64(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/*
 * fpu_pairs -- a + b by the reference equals the FPU's a + b for random
 * pairs of any bits, many of them with nearby exponents (NaN results are
 * left out: the FPU's NaN has its own sign and payload)
 */
static void
fpu_pairs(void)
{
	uint64_t	state = 12345;
	int			i;

	for (i = 0; i < 200000; i++)
	{
		uint64_t	x[2];
		double		a,
					b,
					c;
		uint64_t	want;

		x[0] = next64(&state);
		x[1] = next64(&state);
		if (i % 2 == 0)			/* an exponent near the first one's */
			x[1] = (x[1] & UINT64_C(0x800fffffffffffff)) |
				(((x[0] >> 52) + (next64(&state) % 120) - 60) & 0x7ff) << 52;
		if (i % 5 == 0)			/* subnormals and the smallest normals */
			x[i % 2] &= UINT64_C(0x801fffffffffffff);
		memcpy(&a, &x[0], sizeof(a));
		memcpy(&b, &x[1], sizeof(b));
		c = a + b;
		if (c != c)
			continue;
		memcpy(&want, &c, sizeof(want));
		expect("a random pair", x, 2, want);
		if (failures > 10)
			return;
	}
}

/* ref_self_test -- see exact_reference.h */
int
ref_self_test(void)
{
	failures = 0;
	known_sums();
	wide_sums();
	fpu_pairs();
	if (failures)
		fprintf(stderr, "exact_reference self-test: %d failures\n", failures);
	return failures;
}

/*
 * LLVMFuzzerInitialize -- every harness that links the reference has it
 * check itself once, before the first input
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	if (ref_self_test() != 0)
		fuzz_fail("the reference (exact_reference.c) failed its self-test");
	return 0;
}
