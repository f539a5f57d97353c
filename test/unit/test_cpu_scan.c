/*-------------------------------------------------------------------------
 *
 * test_cpu_scan.c
 *	  Unit tests of the CPU prefix sums (src/cpu/cpu_prefix_sum.c).
 *
 * The reference is the contract taken literally: an exact accumulator
 * that gets gs_acc_add() of each element and gs_acc_round() after (or
 * before) it.  The fast scan must give the same bits for every output,
 * inclusive and exclusive, on every build (AVX2 and portable), from any
 * carry, for any split of the input into calls, and must leave the same
 * exact value in the carry.  The data kinds aim at the fast path's edges:
 * near-ties, powers of two, cancellation, zeros and subnormals, the ends
 * of the double range, Inf and NaN.
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "unit.h"
#include "cpu/cpu_prefix_sum.h"
#include "cpu/cpu_sum.h"

/* data kinds: how the test arrays are filled */
typedef enum scan_kind
{
	SKIND_UNIFORM,				/* [0, 1) */
	SKIND_SIGNED,				/* about N(0, 1): prefixes wander around 0 */
	SKIND_WIDE_EXPONENTS,		/* random exponents -1074..1023 */
	SKIND_MODERATE_EXPONENTS,	/* exponents -30..30 */
	SKIND_INTEGERS,				/* integers in [-10^6, 10^6]: exact prefixes */
	SKIND_SMALL_INTEGERS,		/* 0..3: prefixes hit every power of two */
	SKIND_HALVES,				/* multiples of 2^-1 near 2^52: exact ties */
	SKIND_NEAR_TIES,			/* 2^53 then small integers: ties and near-ties */
	SKIND_NEAR_TIES_FRACTION,	/* 2^53 then +-1 +- 2^-k: just off a tie */
	SKIND_POW2_EDGES,			/* 2^k, a midpoint offset, a sliver, then back:
								 * prefixes next to ties around powers of two */
	SKIND_CANCELLATION,			/* 1e16, 1, -1e16 patterns */
	SKIND_BIG_SWINGS,			/* +-2^(20..60) cancelling, with small noise */
	SKIND_OPPOSITE_PAIRS,		/* x, -x: every other prefix is exactly 0 */
	SKIND_SUBNORMAL,			/* subnormals and the smallest normals */
	SKIND_TINY,					/* exponents -1074..-900: tau underflows */
	SKIND_NEGATIVE_ZEROS,		/* -0 only: every prefix is -0 */
	SKIND_SIGNED_ZEROS,			/* +0 and -0, then one -0 run */
	SKIND_HUGE_CANCELLING,		/* near DBL_MAX, both signs: finite prefixes */
	SKIND_HUGE_OVERFLOW,		/* near DBL_MAX, one sign: prefixes overflow */
	SKIND_OVERFLOW_BACK,		/* past DBL_MAX and back into range */
	SKIND_WITH_POS_INF,			/* uniform with a +Inf */
	SKIND_WITH_BOTH_INF,		/* uniform with +Inf, later -Inf: NaN after */
	SKIND_WITH_NAN,				/* uniform with NaNs */
	N_SCAN_KINDS
} scan_kind;

static const char *const scan_kind_names[N_SCAN_KINDS] = {
	"uniform", "signed", "wide exponents", "moderate exponents", "integers",
	"small integers", "halves near 2^52", "near ties", "near ties with fractions",
	"power of two edges", "cancellation", "big swings", "opposite pairs", "subnormal", "tiny",
	"negative zeros", "signed zeros", "huge cancelling", "huge overflow",
	"overflow and back", "with +inf", "with +inf and -inf", "with nan"
};

/* float data kinds */
typedef enum scan_fkind
{
	SFKIND_UNIFORM,
	SFKIND_SIGNED,
	SFKIND_WIDE_EXPONENTS,		/* every finite float magnitude */
	SFKIND_INTEGERS,			/* small integers: exact prefixes */
	SFKIND_FLT_MAX,				/* near FLT_MAX: beyond float, fine in double */
	SFKIND_NEGATIVE_ZEROS,
	SFKIND_WITH_INF_NAN,
	N_SCAN_FKINDS
} scan_fkind;

static const char *const scan_fkind_names[N_SCAN_FKINDS] = {
	"uniform", "signed", "wide exponents", "integers", "near FLT_MAX",
	"negative zeros", "with inf and nan"
};

static const size_t scan_sizes[] = {
	0, 1, 2, 3, 7, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 4095, 4096,
	4097, 8191, 8192, 8193, 20000, (1 << 20) + 7
};

#define N_SCAN_SIZES (sizeof(scan_sizes) / sizeof(scan_sizes[0]))
#define BIG_SIZE ((1 << 20) + 7)

/* same_bits -- bit for bit, except that any NaN equals any NaN */
static int
same_bits(double a, double b)
{
	if (isnan(a) && isnan(b))
		return 1;
	return unit_double_bits(a) == unit_double_bits(b);
}

/* fill_scan_f64 -- n doubles of the given kind */
static void
fill_scan_f64(double *x, size_t n, scan_kind kind)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		switch (kind)
		{
			case SKIND_UNIFORM:
				x[i] = unit_rand_uniform();
				break;
			case SKIND_SIGNED:
				x[i] = unit_rand_uniform() + unit_rand_uniform() - 1.0;
				break;
			case SKIND_WIDE_EXPONENTS:
				x[i] = unit_rand_with_exponent((int) unit_rand_below(2098) - 1074);
				break;
			case SKIND_MODERATE_EXPONENTS:
				x[i] = unit_rand_with_exponent((int) unit_rand_below(61) - 30);
				break;
			case SKIND_INTEGERS:
				x[i] = (double) ((int64_t) unit_rand_below(2000001) - 1000000);
				break;
			case SKIND_SMALL_INTEGERS:
				x[i] = (double) unit_rand_below(4);
				break;
			case SKIND_HALVES:
				x[i] = (i == 0) ? 0x1p52 : 0.5 * (double) ((int64_t) unit_rand_below(7) - 3);
				break;
			case SKIND_NEAR_TIES:
				x[i] = (i % 1000 == 0) ? 0x1p53 : (double) ((int64_t) unit_rand_below(5) - 2);
				break;
			case SKIND_NEAR_TIES_FRACTION:
				if (i % 700 == 0)
					x[i] = 0x1p53 * (double) (1 + unit_rand_below(3));
				else
					x[i] = unit_rand_sign() + unit_rand_sign() * ldexp(1.0, -(int) unit_rand_below(60));
				break;
			case SKIND_POW2_EDGES:
				{
					/* cycles of 2^k, m, t, -2^k, -m, -t: exactly 0 after each */
					static const int m_shift[] = {54, 53, 54, 53};
					static double big,
								mid,
								sliver;

					switch (i % 6)
					{
						case 0:
							{
								int			k = (int) unit_rand_below(41) - 20;

								big = ldexp(1.0, k);
								mid = unit_rand_sign() * ldexp(unit_rand_below(2) ? 1.0 : 3.0,
														  k - m_shift[unit_rand_below(4)]);
								sliver = unit_rand_sign() * ldexp(1.0, k - 54 - 1 - (int) unit_rand_below(150));
								x[i] = big;
								break;
							}
						case 1:
							x[i] = mid;
							break;
						case 2:
							x[i] = sliver;
							break;
						case 3:
							x[i] = -big;
							break;
						case 4:
							x[i] = -mid;
							break;
						default:
							x[i] = -sliver;
							break;
					}
					break;
				}
			case SKIND_CANCELLATION:
				x[i] = (i % 3 == 0) ? 1e16 : (i % 3 == 1) ? 1.0 : -1e16;
				break;
			case SKIND_BIG_SWINGS:
				if (i % 50 == 0)
					x[i] = unit_rand_with_exponent(20 + (int) unit_rand_below(41));
				else if (i % 50 == 25)
					x[i] = -x[i - 25];
				else
					x[i] = unit_rand_uniform() - 0.5;
				break;
			case SKIND_OPPOSITE_PAIRS:
				x[i] = (i % 2 == 0) ? unit_rand_with_exponent((int) unit_rand_below(41) - 20)
					: -x[i - 1];
				break;
			case SKIND_SUBNORMAL:
				x[i] = unit_bits_double(unit_rand64() & UINT64_C(0x801fffffffffffff));
				break;
			case SKIND_TINY:
				x[i] = unit_rand_with_exponent(-1074 + (int) unit_rand_below(175));
				break;
			case SKIND_NEGATIVE_ZEROS:
				x[i] = -0.0;
				break;
			case SKIND_SIGNED_ZEROS:
				x[i] = (i < n / 2 && (unit_rand64() & 1)) ? 0.0 : -0.0;
				break;
			case SKIND_HUGE_CANCELLING:
				x[i] = ((i % 2) ? -1.0 : 1.0) * DBL_MAX * (1.0 - unit_rand_uniform() * 0x1p-10);
				break;
			case SKIND_HUGE_OVERFLOW:
				x[i] = DBL_MAX * (1.0 - unit_rand_uniform() * 0x1p-10);
				break;
			case SKIND_OVERFLOW_BACK:
				/* +big x3 (beyond DBL_MAX), -big x3 (back), then uniform */
				if (i % 600 < 3)
					x[i] = 0x1.8p1023;
				else if (i % 600 < 6)
					x[i] = -0x1.8p1023;
				else
					x[i] = unit_rand_uniform();
				break;
			case SKIND_WITH_POS_INF:
			case SKIND_WITH_BOTH_INF:
			case SKIND_WITH_NAN:
				x[i] = unit_rand_uniform();
				break;
			case N_SCAN_KINDS:
				break;
		}
	}
	if (n == 0)
		return;
	if (kind == SKIND_HUGE_CANCELLING && n > 2)
	{
		x[0] = DBL_MAX;
		x[1] = DBL_MAX;
	}
	if (kind == SKIND_WITH_POS_INF)
		x[unit_rand_below(n)] = INFINITY;
	if (kind == SKIND_WITH_BOTH_INF)
	{
		size_t		p = (size_t) unit_rand_below(n);

		x[p] = INFINITY;
		x[p + (size_t) unit_rand_below(n - p)] = -INFINITY;
	}
	if (kind == SKIND_WITH_NAN)
	{
		x[unit_rand_below(n)] = NAN;
		x[unit_rand_below(n)] = -NAN;
	}
}

/* fill_scan_f32 -- n floats of the given kind */
static void
fill_scan_f32(float *x, size_t n, scan_fkind kind)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		switch (kind)
		{
			case SFKIND_UNIFORM:
				x[i] = (float) unit_rand_uniform();
				break;
			case SFKIND_SIGNED:
				x[i] = (float) (unit_rand_uniform() - 0.5);
				break;
			case SFKIND_WIDE_EXPONENTS:
				x[i] = unit_bits_float((uint32_t) ((unit_rand64() & 0x807fffff) |
												 ((uint32_t) unit_rand_below(255) << 23)));
				break;
			case SFKIND_INTEGERS:
				x[i] = (float) ((int) unit_rand_below(2001) - 1000);
				break;
			case SFKIND_FLT_MAX:
				x[i] = FLT_MAX;
				break;
			case SFKIND_NEGATIVE_ZEROS:
				x[i] = -0.0f;
				break;
			case SFKIND_WITH_INF_NAN:
				x[i] = (float) unit_rand_uniform();
				break;
			case N_SCAN_FKINDS:
				break;
		}
	}
	if (kind == SFKIND_WITH_INF_NAN && n > 0)
	{
		x[unit_rand_below(n)] = INFINITY;
		x[unit_rand_below(n)] = NAN;
	}
}

/*
 * reference_f64 -- the contract literally: incl[i] and excl[i] from an
 * accumulator starting at *carry; *carry ends including x[0..n).
 */
static void
reference_f64(const double *x, size_t n, double *incl, double *excl,
			  gs_exact_acc *carry)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		excl[i] = gs_acc_round(carry);
		gs_acc_add(carry, x[i]);
		incl[i] = gs_acc_round(carry);
	}
	gs_acc_normalize(carry);
}

/* first_difference -- the first i where got[i] and want[i] differ, or n */
static size_t
first_difference(const double *got, const double *want, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		if (!same_bits(got[i], want[i]))
			return i;
	return n;
}

/* check_outputs -- every output, bit for bit */
static void
check_outputs(const char *how, const double *got, const double *want, size_t n)
{
	size_t		i = first_difference(got, want, n);

	UNIT_CHECK(i == n, "%s: output %zu of %zu is %a, reference %a", how, i, n,
			   i < n ? got[i] : 0.0, i < n ? want[i] : 0.0);
}

/* check_carry -- the same exact value, counters and zero flags */
static void
check_carry(const char *how, const gs_exact_acc *got, const gs_exact_acc *want)
{
	gs_exact_acc g = *got;
	gs_exact_acc w = *want;

	gs_acc_normalize(&g);
	gs_acc_normalize(&w);
	UNIT_CHECK(memcmp(g.limb, w.limb, sizeof(g.limb)) == 0 &&
			   g.n_nan == w.n_nan && g.n_pos_inf == w.n_pos_inf &&
			   g.n_neg_inf == w.n_neg_inf &&
			   (g.has_negzero != 0) == (w.has_negzero != 0) &&
			   (g.has_nonnegzero != 0) == (w.has_nonnegzero != 0),
			   "%s: the carry differs from the reference's", how);
}

/*
 * check_scan_f64 -- one call and a split into calls, inclusive and
 * exclusive, on both builds, from the carry *start, against the reference.
 */
static void
check_scan_f64(const double *x, size_t n, double *got, double *incl,
			   double *excl, const gs_exact_acc *start, int splits)
{
	gs_exact_acc want_carry = *start;
	int			exclusive,
				avx2;

	reference_f64(x, n, incl, excl, &want_carry);
	for (avx2 = 1; avx2 >= 0; avx2--)
	{
		cpu_sum_exact_allow_avx2(avx2);
		for (exclusive = 0; exclusive <= 1; exclusive++)
		{
			const double *want = exclusive ? excl : incl;
			gs_exact_acc carry = *start;
			char		how[64];
			size_t		off;
			int			split;

			snprintf(how, sizeof(how), "%s, one call%s",
					 exclusive ? "exclusive" : "inclusive", avx2 ? "" : ", portable");
			memset(got, 0xff, n * sizeof(double));
			cpu_prefix_sum_f64(x, n, got, exclusive, &carry);
			check_outputs(how, got, want, n);
			check_carry(how, &carry, &want_carry);

			for (split = 0; split < splits; split++)
			{
				snprintf(how, sizeof(how), "%s, split %d%s",
						 exclusive ? "exclusive" : "inclusive", split,
						 avx2 ? "" : ", portable");
				carry = *start;
				memset(got, 0xff, n * sizeof(double));
				for (off = 0; off < n;)
				{
					size_t		len = unit_random_piece(n - off, 40000);

					cpu_prefix_sum_f64(x + off, len, got + off, exclusive, &carry);
					off += len;
				}
				check_outputs(how, got, want, n);
				check_carry(how, &carry, &want_carry);
			}
		}
	}
	cpu_sum_exact_allow_avx2(1);
}

/* check_scan_f32 -- the float scan against the reference on the widened data */
static void
check_scan_f32(const float *xf, double *xd, size_t n, double *got,
			   double *incl, double *excl)
{
	gs_exact_acc want_carry,
				carry;
	size_t		i,
				off;
	int			exclusive;

	for (i = 0; i < n; i++)
		xd[i] = (double) xf[i];
	gs_acc_zero(&want_carry);
	reference_f64(xd, n, incl, excl, &want_carry);
	for (exclusive = 0; exclusive <= 1; exclusive++)
	{
		const double *want = exclusive ? excl : incl;

		gs_acc_zero(&carry);
		cpu_prefix_sum_f32(xf, n, got, exclusive, &carry);
		check_outputs(exclusive ? "exclusive, one call" : "inclusive, one call",
					  got, want, n);
		check_carry("one call", &carry, &want_carry);

		gs_acc_zero(&carry);
		for (off = 0; off < n;)
		{
			size_t		len = unit_random_piece(n - off, 40000);

			cpu_prefix_sum_f32(xf + off, len, got + off, exclusive, &carry);
			off += len;
		}
		check_outputs(exclusive ? "exclusive, split" : "inclusive, split",
					  got, want, n);
		check_carry("split", &carry, &want_carry);
	}
}

/*
 * big_kind -- whether a kind also runs at BIG_SIZE: the reference takes
 * about half a microsecond an element, so only the kinds whose long runs
 * matter (chunk and block boundaries far into the input, many groups).
 */
static int
big_kind(scan_kind kind)
{
	switch (kind)
	{
		case SKIND_UNIFORM:
		case SKIND_SIGNED:
		case SKIND_INTEGERS:
		case SKIND_NEAR_TIES_FRACTION:
		case SKIND_POW2_EDGES:
		case SKIND_BIG_SWINGS:
		case SKIND_OVERFLOW_BACK:
		case SKIND_WITH_BOTH_INF:
			return 1;
		default:
			return 0;
	}
}

/* set_carry -- a starting carry: one of a few shapes */
static const char *
set_carry(gs_exact_acc *carry, int which)
{
	gs_acc_zero(carry);
	switch (which)
	{
		case 0:
			return "zero carry";
		case 1:
			/* 1e16 plus a sliver: hi and lo both nonzero */
			gs_acc_add(carry, 1e16);
			gs_acc_add(carry, 0x1p-30);
			gs_acc_add(carry, 0x1p-1074);
			return "carry 1e16 + 2^-30 + 2^-1074";
		case 2:
			/* a value that is exactly half way between two doubles */
			gs_acc_add(carry, 0x1p53);
			gs_acc_add(carry, 1.0);
			return "carry 2^53 + 1 (a tie)";
		case 3:
			gs_acc_add(carry, -0.0);
			return "carry -0";
		case 4:
			gs_acc_add(carry, -INFINITY);
			return "carry -inf";
		case 5:
			gs_acc_add(carry, DBL_MAX);
			gs_acc_add(carry, DBL_MAX);
			return "carry 2 DBL_MAX";
		default:
			gs_acc_add(carry, -12345.678);
			return "carry -12345.678";
	}
}

#define N_CARRIES 7

/* sequential_check -- the baseline is the plain running float sum */
static void
sequential_check(double *x, double *got)
{
	size_t		n = 1000,
				i;
	double		s = 0.0;
	int			ok = 1;

	unit_case("cpu_prefix_sum_sequential_f64: plain running sum");
	for (i = 0; i < n; i++)
		x[i] = unit_rand_uniform() * 1e6 - 5e5;
	cpu_prefix_sum_sequential_f64(x, n, got);
	for (i = 0; i < n; i++)
	{
		s += x[i];
		if (unit_double_bits(got[i]) != unit_double_bits(s))
			ok = 0;
	}
	UNIT_CHECK(ok, "differs from s += x[i]");

	x[0] = 1e16;
	x[1] = 1.0;
	x[2] = -1e16;
	cpu_prefix_sum_sequential_f64(x, 3, got);
	UNIT_CHECK(got[2] == 0.0, "naive 1e16 + 1 - 1e16 gave %g, expected 0", got[2]);
}

/* known_answers -- a few prefixes known independently */
static void
known_answers(double *x, double *got)
{
	gs_exact_acc carry;
	size_t		i;
	int			ok;

	unit_case("cpu_prefix_sum known answer: {1e16, 1, -1e16}");
	x[0] = 1e16;
	x[1] = 1.0;
	x[2] = -1e16;
	gs_acc_zero(&carry);
	cpu_prefix_sum_f64(x, 3, got, 0, &carry);
	UNIT_CHECK(got[0] == 1e16 && got[1] == 1e16 && got[2] == 1.0,
			   "got %a %a %a", got[0], got[1], got[2]);
	gs_acc_zero(&carry);
	cpu_prefix_sum_f64(x, 3, got, 1, &carry);
	UNIT_CHECK(unit_double_bits(got[0]) == unit_double_bits(0.0) && got[1] == 1e16 && got[2] == 1e16,
			   "exclusive: got %a %a %a", got[0], got[1], got[2]);

	unit_case("cpu_prefix_sum known answer: 0.1 x 10000");
	for (i = 0; i < 10000; i++)
		x[i] = 0.1;
	gs_acc_zero(&carry);
	cpu_prefix_sum_f64(x, 10000, got, 0, &carry);
	/* k times the double 0.1, exactly, rounded once (Python's fractions) */
	UNIT_CHECK(unit_double_bits(got[2]) == unit_double_bits(0x1.3333333333334p-2) &&
			   got[9] == 1.0 && got[9999] == 1000.0,
			   "got %a, %a and %a", got[2], got[9], got[9999]);

	unit_case("cpu_prefix_sum known answer: 2^53 + 1 + 1 (ties to even)");
	x[0] = 0x1p53;
	x[1] = 1.0;
	x[2] = 1.0;
	x[3] = 1.0;
	gs_acc_zero(&carry);
	cpu_prefix_sum_f64(x, 4, got, 0, &carry);
	UNIT_CHECK(got[1] == 0x1p53 && got[2] == 0x1p53 + 2.0 && got[3] == 0x1p53 + 4.0,
			   "got %a %a %a", got[1], got[2], got[3]);

	unit_case("cpu_prefix_sum known answer: signed zeros");
	x[0] = -0.0;
	x[1] = -0.0;
	x[2] = 0.0;
	x[3] = -0.0;
	gs_acc_zero(&carry);
	cpu_prefix_sum_f64(x, 4, got, 0, &carry);
	ok = signbit(got[0]) && signbit(got[1]) && !signbit(got[2]) && !signbit(got[3]);
	UNIT_CHECK(ok, "got %a %a %a %a", got[0], got[1], got[2], got[3]);

	unit_case("cpu_prefix_sum known answer: overflow and back");
	x[0] = DBL_MAX;
	x[1] = DBL_MAX;
	x[2] = -DBL_MAX;
	gs_acc_zero(&carry);
	cpu_prefix_sum_f64(x, 3, got, 0, &carry);
	UNIT_CHECK(got[0] == DBL_MAX && got[1] == INFINITY && got[2] == DBL_MAX,
			   "got %a %a %a", got[0], got[1], got[2]);
}

/* suite_cpu_scan -- every kind, size and carry against the reference */
void
suite_cpu_scan(void)
{
	double	   *x = malloc(BIG_SIZE * sizeof(double));
	double	   *got = malloc(BIG_SIZE * sizeof(double));
	double	   *incl = malloc(BIG_SIZE * sizeof(double));
	double	   *excl = malloc(BIG_SIZE * sizeof(double));
	float	   *xf = malloc(BIG_SIZE * sizeof(float));
	gs_exact_acc carry;
	size_t		s;
	int			kind,
				c;

	unit_seed(20261201);
	sequential_check(x, got);
	known_answers(x, got);

	for (kind = 0; kind < N_SCAN_KINDS; kind++)
	{
		for (s = 0; s < N_SCAN_SIZES; s++)
		{
			size_t		n = scan_sizes[s];

			if (n == BIG_SIZE && !big_kind(kind))
				continue;
			unit_case("cpu_prefix_sum_f64: %s, n = %zu", scan_kind_names[kind], n);
			fill_scan_f64(x, n, kind);
			gs_acc_zero(&carry);
			check_scan_f64(x, n, got, incl, excl, &carry, n == BIG_SIZE ? 1 : 2);
		}
	}

	/* other starting carries, on a few kinds and sizes */
	for (c = 1; c < N_CARRIES; c++)
	{
		static const scan_kind kinds[] = {SKIND_UNIFORM, SKIND_SIGNED, SKIND_INTEGERS,
		SKIND_NEGATIVE_ZEROS};
		static const size_t sizes[] = {1, 33, 1025, 8193, 50000};
		size_t		k;

		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			{
				const char *what = set_carry(&carry, c);

				unit_case("cpu_prefix_sum_f64: %s, %s, n = %zu", scan_kind_names[kinds[k]],
						  what, sizes[s]);
				fill_scan_f64(x, sizes[s], kinds[k]);
				check_scan_f64(x, sizes[s], got, incl, excl, &carry, 1);
			}
	}

	for (kind = 0; kind < N_SCAN_FKINDS; kind++)
	{
		for (s = 0; s < N_SCAN_SIZES; s++)
		{
			size_t		n = scan_sizes[s];

			unit_case("cpu_prefix_sum_f32: %s, n = %zu", scan_fkind_names[kind], n);
			fill_scan_f32(xf, n, kind);
			check_scan_f32(xf, x, n, got, incl, excl);
		}
	}

	free(x);
	free(got);
	free(incl);
	free(excl);
	free(xf);
}
