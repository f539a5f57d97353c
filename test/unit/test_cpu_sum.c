/*-------------------------------------------------------------------------
 *
 * test_cpu_sum.c
 *	  Unit tests of the CPU exact sum (src/cpu/cpu_sum.c).
 *
 * The reference is the scalar path: gs_acc_add() for every element.  The
 * vectorized sum must leave the accumulator with the same exact value,
 * the same Inf/NaN counters and the same zero flags, so that
 * gs_acc_round() gives the same bits; on every build (AVX2 and portable),
 * for any split of the input into calls and for any order.  A few known
 * answers, computed independently (Python's math.fsum), check the
 * reference itself.
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "unit.h"
#include "cpu/cpu_sum.h"

/* data kinds: how the test arrays are filled */
typedef enum data_kind
{
	KIND_UNIFORM,				/* [0, 1) */
	KIND_SIGNED_NORMAL,			/* about N(0, 1), both signs */
	KIND_WIDE_EXPONENTS,		/* random exponents -1074..1023 */
	KIND_MODERATE_EXPONENTS,	/* random exponents -22..22: within two levels */
	KIND_RARE_TINY,				/* uniform with a few 1e-40-sized values */
	KIND_NEAR_POWERS,			/* +-2^e, +-(2^e - ulp): extraction edges */
	KIND_OUTLIER,				/* uniform with one element 2^20 times larger,
								 * last where n is odd */
	KIND_LOW_RANGE,				/* exponents -1000..-860: the fast path's low end */
	KIND_HIGH_RANGE,			/* exponents 960..1020: the fast path's high end */
	KIND_CANCELLATION,			/* big (2^20..2^60), 1..2, -big triples */
	KIND_OPPOSITE_PAIRS,		/* x, -x pairs: exact sum +0 */
	KIND_SUBNORMAL,				/* subnormals and the smallest normals */
	KIND_SIGNED_ZEROS,			/* +0 and -0 only */
	KIND_NEGATIVE_ZEROS,		/* -0 only: the sum is -0 */
	KIND_UNIFORM_NEGZERO,		/* uniform with some -0.0 */
	KIND_HUGE_CANCELLING,		/* near DBL_MAX, cancelling pairs: finite sum */
	KIND_HUGE_OVERFLOW,			/* near DBL_MAX, one sign: +Inf */
	KIND_WITH_POS_INF,			/* uniform with a +Inf */
	KIND_WITH_BOTH_INF,			/* uniform with +Inf and -Inf: NaN */
	KIND_WITH_NAN,				/* uniform with NaNs of both signs */
	N_DATA_KINDS
} data_kind;

static const char *const kind_names[N_DATA_KINDS] = {
	"uniform", "signed normal", "wide exponents", "moderate exponents",
	"rare tiny", "near powers", "outlier", "low range", "high range",
	"cancellation", "opposite pairs", "subnormal", "signed zeros",
	"negative zeros", "uniform with -0", "huge cancelling", "huge overflow",
	"with +inf", "with +inf and -inf", "with nan"
};

/* float data kinds */
typedef enum float_kind
{
	FKIND_UNIFORM,
	FKIND_SIGNED_NORMAL,
	FKIND_WIDE_EXPONENTS,		/* random float exponents, subnormals too */
	FKIND_MODERATE_EXPONENTS,	/* exponents -25..25: wider than one level */
	FKIND_SUBNORMAL,			/* float subnormals */
	FKIND_FLT_MAX,				/* near FLT_MAX, both signs */
	FKIND_NEGATIVE_ZEROS,
	FKIND_UNIFORM_NEGZERO,		/* uniform with some -0.0f */
	FKIND_OUTLIER,				/* uniform with one element 2^8 times larger,
								 * last where n is odd */
	FKIND_WITH_INF_NAN,
	N_FLOAT_KINDS
} float_kind;

static const char *const float_kind_names[N_FLOAT_KINDS] = {
	"uniform", "signed normal", "wide exponents", "moderate exponents",
	"subnormal", "near FLT_MAX", "negative zeros", "uniform with -0",
	"outlier", "with inf and nan"
};

static const size_t test_sizes[] = {
	0, 1, 2, 7, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 2047, 2048, 2049,
	4095, 4096, 4097, (1 << 20) + 7
};

#define N_TEST_SIZES (sizeof(test_sizes) / sizeof(test_sizes[0]))

/* rand_normalish -- roughly N(0, 1): a sum of four uniforms, centred */
static double
rand_normalish(void)
{
	return (unit_rand_uniform() + unit_rand_uniform() +
			unit_rand_uniform() + unit_rand_uniform() - 2.0) * 1.7320508075688772;
}

/* fill_f64 -- n doubles of the given kind */
static void
fill_f64(double *x, size_t n, data_kind kind)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		switch (kind)
		{
			case KIND_UNIFORM:
				x[i] = unit_rand_uniform();
				break;
			case KIND_SIGNED_NORMAL:
				x[i] = rand_normalish();
				break;
			case KIND_WIDE_EXPONENTS:
				x[i] = unit_rand_with_exponent((int) unit_rand_below(2098) - 1074);
				break;
			case KIND_MODERATE_EXPONENTS:
				x[i] = unit_rand_with_exponent((int) unit_rand_below(45) - 22);
				break;
			case KIND_RARE_TINY:
				x[i] = unit_rand_below(5000) == 0 ? unit_rand_with_exponent(-133)
					: unit_rand_uniform();
				break;
			case KIND_NEAR_POWERS:
				{
					int			e = (int) unit_rand_below(8);
					uint64_t	b = unit_double_bits(ldexp(1.0, e));

					/* 2^e, its neighbours, and ulp-sized pieces */
					switch (unit_rand_below(4))
					{
						case 0:
							x[i] = unit_bits_double(b);
							break;
						case 1:
							x[i] = unit_bits_double(b - 1);
							break;
						case 2:
							x[i] = unit_bits_double(b + 1);
							break;
						default:
							x[i] = ldexp(1.0, e - 52 - (int) unit_rand_below(30));
							break;
					}
					x[i] *= unit_rand_sign();
					break;
				}
			case KIND_OUTLIER:
				x[i] = unit_rand_uniform();
				break;
			case KIND_LOW_RANGE:
				/* the range moves every 512 elements: many block exponents */
				x[i] = unit_rand_with_exponent(-1000 + (int) ((i / 512) % 100) +
										  (int) unit_rand_below(40));
				break;
			case KIND_HIGH_RANGE:
				x[i] = unit_rand_with_exponent(960 + (int) ((i / 512) % 41) +
										  (int) unit_rand_below(20));
				break;
			case KIND_CANCELLATION:
				if (i % 3 == 0)
					x[i] = unit_rand_with_exponent(20 + (int) ((i / 1024) % 40) +
											  (int) unit_rand_below(4));
				else if (i % 3 == 1)
					x[i] = 1.0 + unit_rand_uniform();
				else
					x[i] = -x[i - 2];
				break;
			case KIND_OPPOSITE_PAIRS:
				x[i] = (i % 2 == 0) ? unit_rand_with_exponent((int) unit_rand_below(41) - 20)
					: -x[i - 1];
				break;
			case KIND_SUBNORMAL:
				/* exponent field 0 or 1: subnormals and the smallest normals */
				x[i] = unit_bits_double((unit_rand64() & UINT64_C(0x801fffffffffffff)));
				break;
			case KIND_SIGNED_ZEROS:
				x[i] = (unit_rand64() & 1) ? -0.0 : 0.0;
				break;
			case KIND_NEGATIVE_ZEROS:
				x[i] = -0.0;
				break;
			case KIND_UNIFORM_NEGZERO:
				x[i] = unit_rand_below(50) == 0 ? -0.0 : unit_rand_uniform();
				break;
			case KIND_HUGE_CANCELLING:
				/* pairs big, -big * (1 - 2^-30 u): the pairs nearly cancel */
				if (i % 2 == 0)
					x[i] = unit_rand_sign() * DBL_MAX * (1.0 - unit_rand_uniform() * 0x1p-10);
				else
					x[i] = -x[i - 1] * (1.0 - unit_rand_uniform() * 0x1p-30);
				break;
			case KIND_HUGE_OVERFLOW:
				x[i] = DBL_MAX * (1.0 - unit_rand_uniform() * 0x1p-10);
				break;
			case KIND_WITH_POS_INF:
			case KIND_WITH_BOTH_INF:
			case KIND_WITH_NAN:
				x[i] = unit_rand_uniform();
				break;
			case N_DATA_KINDS:
				break;
		}
	}
	if (n == 0)
		return;
	if (kind == KIND_HUGE_CANCELLING && n >= 4)
	{
		/* a naive sum in this order overflows at x[1] */
		x[0] = DBL_MAX;
		x[1] = DBL_MAX;
		x[2] = -DBL_MAX;
		x[3] = -DBL_MAX;
	}
	if (kind == KIND_OUTLIER)
		x[n % 2 ? n - 1 : unit_rand_below(n)] = 0x1p20 * (1.0 + unit_rand_uniform());
	if (kind == KIND_WITH_POS_INF)
		x[unit_rand_below(n)] = INFINITY;
	if (kind == KIND_WITH_BOTH_INF)
	{
		x[unit_rand_below(n)] = INFINITY;
		x[unit_rand_below(n)] = -INFINITY;
	}
	if (kind == KIND_WITH_NAN)
	{
		x[unit_rand_below(n)] = NAN;
		x[unit_rand_below(n)] = -NAN;
		x[unit_rand_below(n)] = unit_bits_double(UINT64_C(0x7ff0000000000001));
	}
}

/* fill_f32 -- n floats of the given kind */
static void
fill_f32(float *x, size_t n, float_kind kind)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		switch (kind)
		{
			case FKIND_UNIFORM:
				x[i] = (float) unit_rand_uniform();
				break;
			case FKIND_SIGNED_NORMAL:
				x[i] = (float) rand_normalish();
				break;
			case FKIND_WIDE_EXPONENTS:
				/* exponent field 0..254: every finite float magnitude */
				x[i] = unit_bits_float((uint32_t) ((unit_rand64() & 0x807fffff) |
												 ((uint32_t) unit_rand_below(255) << 23)));
				break;
			case FKIND_MODERATE_EXPONENTS:
				x[i] = (float) unit_rand_with_exponent((int) unit_rand_below(51) - 25);
				break;
			case FKIND_SUBNORMAL:
				x[i] = unit_bits_float((uint32_t) (unit_rand64() & 0x807fffff));
				break;
			case FKIND_FLT_MAX:
				x[i] = (float) (unit_rand_sign() * FLT_MAX *
								(1.0 - unit_rand_uniform() * 0x1p-10));
				if (i % 7 == 0)
					x[i] = FLT_MAX;
				break;
			case FKIND_NEGATIVE_ZEROS:
				x[i] = -0.0f;
				break;
			case FKIND_UNIFORM_NEGZERO:
				x[i] = unit_rand_below(50) == 0 ? -0.0f : (float) unit_rand_uniform();
				break;
			case FKIND_OUTLIER:
			case FKIND_WITH_INF_NAN:
				x[i] = (float) unit_rand_uniform();
				break;
			case N_FLOAT_KINDS:
				break;
		}
	}
	if (kind == FKIND_OUTLIER && n > 0)
		x[n % 2 ? n - 1 : unit_rand_below(n)] = (float) (0x1p8 * (1.0 + unit_rand_uniform()));
	if (kind == FKIND_WITH_INF_NAN && n > 0)
	{
		x[unit_rand_below(n)] = INFINITY;
		x[unit_rand_below(n)] = NAN;
	}
}

/* acc_of_reference_f64 -- the scalar path: gs_acc_add() for each element */
static void
acc_of_reference_f64(gs_exact_acc *acc, const double *x, size_t n)
{
	size_t		i;

	gs_acc_zero(acc);
	for (i = 0; i < n; i++)
		gs_acc_add(acc, x[i]);
}

/* acc_of_reference_f32 -- the scalar path for floats */
static void
acc_of_reference_f32(gs_exact_acc *acc, const float *x, size_t n)
{
	size_t		i;

	gs_acc_zero(acc);
	for (i = 0; i < n; i++)
		gs_acc_add(acc, (double) x[i]);
}

/*
 * check_same_acc -- the exact value, counters and flags agree, and so do
 * the rounded results, bit for bit.
 */
static void
check_same_acc(const char *how, const gs_exact_acc *got, const gs_exact_acc *want)
{
	gs_exact_acc g = *got;
	gs_exact_acc w = *want;
	double		rg = gs_acc_round(got);
	double		rw = gs_acc_round(want);

	gs_acc_normalize(&g);
	gs_acc_normalize(&w);
	UNIT_CHECK(unit_double_bits(rg) == unit_double_bits(rw),
			   "%s: sum %a (0x%016llx), reference %a (0x%016llx)",
			   how, rg, (unsigned long long) unit_double_bits(rg), rw,
			   (unsigned long long) unit_double_bits(rw));
	UNIT_CHECK(memcmp(g.limb, w.limb, sizeof(g.limb)) == 0,
			   "%s: exact values differ", how);
	UNIT_CHECK(g.n_nan == w.n_nan && g.n_pos_inf == w.n_pos_inf &&
			   g.n_neg_inf == w.n_neg_inf,
			   "%s: counters nan %llu/%llu +inf %llu/%llu -inf %llu/%llu", how,
			   (unsigned long long) g.n_nan, (unsigned long long) w.n_nan,
			   (unsigned long long) g.n_pos_inf, (unsigned long long) w.n_pos_inf,
			   (unsigned long long) g.n_neg_inf, (unsigned long long) w.n_neg_inf);
	UNIT_CHECK((g.has_negzero != 0) == (w.has_negzero != 0) &&
			   (g.has_nonnegzero != 0) == (w.has_nonnegzero != 0),
			   "%s: zero flags -0 %d/%d other %d/%d", how,
			   g.has_negzero != 0, w.has_negzero != 0,
			   g.has_nonnegzero != 0, w.has_nonnegzero != 0);
}

/* check_normalized -- limbs below the top one lie in [0, 2^32) */
static void
check_normalized(const char *how, const gs_exact_acc *acc)
{
	int			i;
	int			ok = 1;

	for (i = 0; i < GS_ACC_LIMBS - 1; i++)
		if (acc->limb[i] < 0 || acc->limb[i] >= (INT64_C(1) << 32))
			ok = 0;
	UNIT_CHECK(ok, "%s: accumulator not normalized after a large call", how);
}

/* shuffle_f64 -- Fisher-Yates */
static void
shuffle_f64(double *x, size_t n)
{
	size_t		i;

	for (i = n; i > 1; i--)
	{
		size_t		j = (size_t) unit_rand_below(i);
		double		t = x[i - 1];

		x[i - 1] = x[j];
		x[j] = t;
	}
}

/* shuffle_f32 -- Fisher-Yates */
static void
shuffle_f32(float *x, size_t n)
{
	size_t		i;

	for (i = n; i > 1; i--)
	{
		size_t		j = (size_t) unit_rand_below(i);
		float		t = x[i - 1];

		x[i - 1] = x[j];
		x[j] = t;
	}
}

/* check_f64 -- every build, split and order against the reference */
static void
check_f64(double *x, size_t n)
{
	gs_exact_acc want,
				got;
	size_t		off;
	int			avx2;

	acc_of_reference_f64(&want, x, n);
	for (avx2 = 1; avx2 >= 0; avx2--)
	{
		cpu_sum_exact_allow_avx2(avx2);

		gs_acc_zero(&got);
		cpu_sum_exact_f64(x, n, &got);
		check_same_acc(avx2 ? "one call" : "one call, portable", &got, &want);
		if (n >= 4096)
			check_normalized("one call", &got);

		/* the same input, split into calls at random points */
		gs_acc_zero(&got);
		for (off = 0; off < n;)
		{
			size_t		len = unit_random_piece(n - off, 20000);

			cpu_sum_exact_f64(x + off, len, &got);
			off += len;
		}
		check_same_acc(avx2 ? "split" : "split, portable", &got, &want);
	}
	cpu_sum_exact_allow_avx2(1);

	shuffle_f64(x, n);
	gs_acc_zero(&got);
	cpu_sum_exact_f64(x, n, &got);
	check_same_acc("shuffled", &got, &want);
}

/* check_f32 -- every build, split and order against the reference */
static void
check_f32(float *x, size_t n)
{
	gs_exact_acc want,
				got;
	size_t		off;
	int			avx2;

	acc_of_reference_f32(&want, x, n);
	for (avx2 = 1; avx2 >= 0; avx2--)
	{
		cpu_sum_exact_allow_avx2(avx2);

		gs_acc_zero(&got);
		cpu_sum_exact_f32(x, n, &got);
		check_same_acc(avx2 ? "one call" : "one call, portable", &got, &want);

		gs_acc_zero(&got);
		for (off = 0; off < n;)
		{
			size_t		len = unit_random_piece(n - off, 20000);

			cpu_sum_exact_f32(x + off, len, &got);
			off += len;
		}
		check_same_acc(avx2 ? "split" : "split, portable", &got, &want);
	}
	cpu_sum_exact_allow_avx2(1);

	shuffle_f32(x, n);
	gs_acc_zero(&got);
	cpu_sum_exact_f32(x, n, &got);
	check_same_acc("shuffled", &got, &want);
}

/* exact_sum_f64 -- gs_acc_round() of cpu_sum_exact_f64 from zero */
static double
exact_sum_f64(const double *x, size_t n)
{
	gs_exact_acc acc;

	gs_acc_zero(&acc);
	cpu_sum_exact_f64(x, n, &acc);
	return gs_acc_round(&acc);
}

/* check_known -- a known answer, bit for bit */
static void
check_known(const char *what, const double *x, size_t n, double want)
{
	double		got;
	int			avx2;

	for (avx2 = 1; avx2 >= 0; avx2--)
	{
		cpu_sum_exact_allow_avx2(avx2);
		unit_case("cpu_sum known answer: %s%s", what, avx2 ? "" : " (portable)");
		got = exact_sum_f64(x, n);
		UNIT_CHECK(unit_double_bits(got) == unit_double_bits(want), "got %a, want %a", got, want);
	}
	cpu_sum_exact_allow_avx2(1);
}

/* known_answers -- sums computed independently (math.fsum in Python) */
static void
known_answers(double *x)
{
	size_t		i;

	x[0] = 1e16;
	x[1] = 1.0;
	x[2] = -1e16;
	check_known("{1e16, 1, -1e16}", x, 3, 1.0);

	for (i = 0; i < 3000; i++)
		x[i] = (i % 3 == 0) ? 1e16 : (i % 3 == 1) ? 1.0 : -1e16;
	check_known("{1e16, 1, -1e16} x 1000", x, 3000, 1000.0);

	for (i = 0; i < 10; i++)
		x[i] = 0.1;
	check_known("ten copies of 0.1", x, 10, 1.0);

	for (i = 0; i < 1000; i++)
		x[i] = 0.1;
	check_known("1000 copies of 0.1", x, 1000, 100.0);

	for (i = 0; i < 10000; i++)
		x[i] = (double) (i + 1) * 0.1;
	check_known("i * 0.1, i = 1..10000", x, 10000, 0x1.3134dp+22);

	for (i = 0; i < 100000; i++)
		x[i] = 1.0 / (double) (i + 1);
	check_known("harmonic 1/i, i = 1..100000", x, 100000, 0x1.82e27a22f3fb0p+3);

	for (i = 0; i < 100000; i++)
		x[i] = ((i % 2 == 0) ? 1.0 : -1.0) / (double) (i + 1);
	check_known("alternating 1/i, i = 1..100000", x, 100000, 0x1.62e3882a2e519p-1);

	for (i = 0; i < 3000; i++)
		x[i] = 0x1p-1074;
	check_known("3000 smallest subnormals", x, 3000, 0x0.0000000000bb8p-1022);

	x[0] = DBL_MAX;
	x[1] = DBL_MAX;
	x[2] = -DBL_MAX;
	check_known("{DBL_MAX, DBL_MAX, -DBL_MAX}", x, 3, DBL_MAX);

	for (i = 0; i < 5000; i++)
		x[i] = 0.0;
	x[17] = DBL_MAX;
	x[2500] = DBL_MAX;
	x[4999] = -DBL_MAX;
	check_known("{DBL_MAX, DBL_MAX, -DBL_MAX} among 5000 zeros", x, 5000, DBL_MAX);

	x[0] = DBL_MAX;
	x[1] = 0x1p970;
	check_known("DBL_MAX + half an ulp: +Inf", x, 2, INFINITY);

	for (i = 0; i < 5000; i++)
		x[i] = -0.0;
	check_known("5000 copies of -0.0", x, 5000, -0.0);
	x[4321] = 0.0;
	check_known("-0.0 with one +0.0", x, 5000, 0.0);

	for (i = 0; i < 5000; i++)
		x[i] = (i % 2 == 0) ? INFINITY : 1.0;
	check_known("+Inf and ones", x, 5000, INFINITY);
	x[3] = -INFINITY;
	check_known("+Inf and -Inf", x, 5000, NAN);
}

/*
 * max_limb_magnitude -- the largest |limb| of an accumulator.  Unless
 * normalized, it shows how many additions went in: after n scalar
 * additions of 53-bit values it grows to about n * 2^31, after the fast
 * path's few additions per block it stays below 2^35.
 */
static int64_t
max_limb_magnitude(const gs_exact_acc *acc)
{
	int64_t		m = 0;
	int			i;

	for (i = 0; i < GS_ACC_LIMBS; i++)
	{
		int64_t		v = acc->limb[i] < 0 ? -acc->limb[i] : acc->limb[i];

		if (v > m)
			m = v;
	}
	return m;
}

/*
 * fast_path_everywhere -- every exponent of the fast range takes the fast
 * path (few accumulator additions) and stays exact: one block of values
 * in [2^e, 2^(e+1)) for each e, both builds, doubles and floats.
 */
static void
fast_path_everywhere(double *x, float *xf)
{
	const size_t n = 1000;		/* one block, below CPU_SUM_NORMALIZE_N */
	gs_exact_acc want,
				got;
	int			avx2,
				e;
	size_t		i;

	for (avx2 = 1; avx2 >= 0; avx2--)
	{
		int			slow = 0,
					wrong = 0;

		cpu_sum_exact_allow_avx2(avx2);
		unit_case("cpu_sum f64 fast path at every exponent%s", avx2 ? "" : " (portable)");
		for (e = -960; e <= 1000; e++)
		{
			for (i = 0; i < n; i++)
				x[i] = unit_rand_sign() * ldexp(1.0 + unit_rand_uniform(), e);
			acc_of_reference_f64(&want, x, n);
			gs_acc_zero(&got);
			cpu_sum_exact_f64(x, n, &got);
			if (max_limb_magnitude(&got) >= (INT64_C(1) << 35))
				slow++;
			if (unit_double_bits(gs_acc_round(&got)) != unit_double_bits(gs_acc_round(&want)))
				wrong++;
		}
		UNIT_CHECK(slow == 0, "%d exponents took the scalar path", slow);
		UNIT_CHECK(wrong == 0, "%d exponents gave a different sum", wrong);

		slow = wrong = 0;
		unit_case("cpu_sum f32 fast path at every exponent%s", avx2 ? "" : " (portable)");
		for (e = -149; e <= 127; e++)
		{
			for (i = 0; i < n; i++)
				xf[i] = (float) (unit_rand_sign() * ldexp(1.0 + unit_rand_uniform(), e));
			acc_of_reference_f32(&want, xf, n);
			gs_acc_zero(&got);
			cpu_sum_exact_f32(xf, n, &got);
			if (max_limb_magnitude(&got) >= (INT64_C(1) << 35))
				slow++;
			if (unit_double_bits(gs_acc_round(&got)) != unit_double_bits(gs_acc_round(&want)))
				wrong++;
		}
		UNIT_CHECK(slow == 0, "%d exponents took the scalar path", slow);
		UNIT_CHECK(wrong == 0, "%d exponents gave a different sum", wrong);
	}
	cpu_sum_exact_allow_avx2(1);
}

/*
 * unnormalized_arrival -- an accumulator that arrives with large
 * unnormalized limbs (value zero) keeps its value through small and large
 * calls, and a large call leaves it normalized.
 */
static void
unnormalized_arrival(double *x)
{
	gs_exact_acc want,
				got;
	size_t		sizes[2] = {100, 5000};
	int			s;
	size_t		i;

	for (s = 0; s < 2; s++)
	{
		unit_case("cpu_sum into an unnormalized accumulator, n = %zu", sizes[s]);
		for (i = 0; i < sizes[s]; i++)
			x[i] = unit_rand_uniform();
		acc_of_reference_f64(&want, x, sizes[s]);
		gs_acc_zero(&got);
		/* 2^62 * 2^(32 * 33) - 2^30 * 2^(32 * 34) = 0, near the limbs used */
		got.limb[33] = INT64_C(1) << 62;
		got.limb[34] = -(INT64_C(1) << 30);
		cpu_sum_exact_f64(x, sizes[s], &got);
		check_same_acc("unnormalized", &got, &want);
		if (sizes[s] >= 4096)
			check_normalized("unnormalized", &got);
	}
}

/* suite_cpu_sum -- every data kind at every size, then known answers */
/*
 * expected_path -- the build of the exact sum's fast pass that this CPU and
 * compiler call for: "scalar" where doubles have excess precision, else
 * "avx2" on an x86-64 CPU with AVX2 (where allowed), else "portable"
 */
static const char *
expected_path(int allow_avx2)
{
#if !(defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0)
	(void) allow_avx2;
	return "scalar";
#elif defined(__x86_64__)
	__builtin_cpu_init();
	return allow_avx2 && __builtin_cpu_supports("avx2") ? "avx2" : "portable";
#else
	(void) allow_avx2;
	return "portable";
#endif
}

void
suite_cpu_sum(void)
{
	size_t		max_n = test_sizes[N_TEST_SIZES - 1];
	double	   *x = malloc(max_n * sizeof(double));
	float	   *xf = malloc(max_n * sizeof(float));
	size_t		s;
	int			kind;

	if (x == NULL || xf == NULL)
	{
		unit_case("cpu_sum: allocate test arrays");
		unit_fail(__FILE__, __LINE__, "out of memory");
		free(x);
		free(xf);
		return;
	}
	unit_seed(20240611);

	unit_case("cpu_sum: path is %s, as this CPU and compiler call for", cpu_sum_exact_path());
	UNIT_CHECK(strcmp(cpu_sum_exact_path(), expected_path(1)) == 0,
			   "path %s, this CPU and compiler call for %s", cpu_sum_exact_path(), expected_path(1));
	cpu_sum_exact_allow_avx2(0);
	UNIT_CHECK(strcmp(cpu_sum_exact_path(), expected_path(0)) == 0,
			   "AVX2 not allowed: path %s, want %s", cpu_sum_exact_path(), expected_path(0));
	cpu_sum_exact_allow_avx2(1);
	UNIT_CHECK(strcmp(cpu_sum_exact_path(), expected_path(1)) == 0,
			   "AVX2 allowed again: path %s, want %s", cpu_sum_exact_path(), expected_path(1));

	for (kind = 0; kind < N_DATA_KINDS; kind++)
		for (s = 0; s < N_TEST_SIZES; s++)
		{
			unit_case("cpu_sum f64 %s, n = %zu", kind_names[kind], test_sizes[s]);
			fill_f64(x, test_sizes[s], (data_kind) kind);
			check_f64(x, test_sizes[s]);
		}

	for (kind = 0; kind < N_FLOAT_KINDS; kind++)
		for (s = 0; s < N_TEST_SIZES; s++)
		{
			unit_case("cpu_sum f32 %s, n = %zu", float_kind_names[kind], test_sizes[s]);
			fill_f32(xf, test_sizes[s], (float_kind) kind);
			check_f32(xf, test_sizes[s]);
		}

	fast_path_everywhere(x, xf);
	unnormalized_arrival(x);
	known_answers(x);

	unit_case("cpu_sum plain: 8 accumulators agree on small integers");
	for (s = 0; s < 1000; s++)
		x[s] = (double) s;
	UNIT_CHECK(cpu_sum_plain_f64(x, 1000) == 499500.0, "plain sum %a",
			   cpu_sum_plain_f64(x, 1000));
	UNIT_CHECK(cpu_sum_plain_f64(x, 0) == 0.0, "empty plain sum");

	free(x);
	free(xf);
}
