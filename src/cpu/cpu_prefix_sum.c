/*-------------------------------------------------------------------------
 *
 * cpu_prefix_sum.c
 *	  CPU prefix sums of double and float arrays, each output the exact
 *	  prefix sum rounded once to the nearest double, and the plain
 *	  sequential float8 running sum.
 *
 * The contract (cpu_prefix_sum.h, gsd_prefix_sum_f64 in gpuscan_device.h): output
 * i is gs_acc_round() of an exact accumulator holding *carry plus x[0..i]
 * (inclusive) or x[0..i-1] (exclusive).  Doing that literally -- one
 * gs_acc_add() and one gs_acc_round() per element -- costs about 100 ns an
 * element.  This file gets the same bits at a few ns an element by
 * computing each output fast, with a rigorous error bound, and falling back
 * to the literal computation only where the bound cannot prove the fast
 * result right (Ziv's strategy).
 *
 * The input is cut into groups of SCAN_LANES blocks of equal length (up to
 * SCAN_BLOCK elements).  For each group:
 *
 *	 1. The exact carry at every block start comes from the exact block sums
 *		(cpu_sum_exact_f64, close to memory speed).  The group's data then
 *		sit in L2 for step 2.
 *	 2. Each carry C is converted to a double-double (hi, lo) with a bound
 *		E0 on |C - hi - lo|, from the top four 32-bit digits of the
 *		accumulator (seed_lane_fast; gs_acc_round() where that does not
 *		apply), and "exact" when C = hi + lo exactly.
 *	 3. The blocks are scanned side by side, one block per vector lane, so
 *		that the four dependency chains overlap.  Each lane keeps a
 *		cascaded compensated sum (Ogita, Rump and Oishi's Sum2): h is the
 *		plain running sum, TwoSum gives the rounding error e of each step
 *		exactly, and l accumulates the errors.  With S the exact prefix sum,
 *
 *			S = h + l + D,   |D| <= E0 + 2^-53 (sum over the steps of |l|)
 *
 *		since every addition into l errs by at most 2^-53 |l| (and not at
 *		all where its result is subnormal).  A = |lo| + 2^54 E0 + sum |l|
 *		is kept as a running float sum; B = A * 2^-51 bounds |D| with room
 *		to spare for the rounding of A and B themselves.  TwoSum(h, l) =
 *		(o, r) exactly, o = fl(h + l), so S = o + r + D.  If
 *
 *			fl(|r| + B) < tau,
 *
 *		tau being half the distance from o to its neighbours (half an ulp;
 *		a quarter ulp where o is a power of two, whose lower neighbour is
 *		closer), S lies strictly inside o's rounding interval and o is the
 *		correctly rounded prefix sum.  tau is 2^(E-53) with E the exponent
 *		of fl(o * (1 - 2^-53)): that product drops to the binade below
 *		exactly when o is a power of two.  Where o is zero, subnormal or
 *		within 2^53 ulps of the subnormals, tau computes as zero or negative
 *		and the check fails; Inf or NaN anywhere (a special input, an
 *		overflow) makes r or B NaN or infinite and the check fails.
 *
 *		Exact ties (S exactly half way between two doubles) cannot pass
 *		that check, and they are common where the data have few bits, as
 *		random() values (multiples of 2^-52) summing to small totals do.
 *		So each lane also tracks whether D is exactly zero: the seed was
 *		exact and TwoSum of every addition into l found no error.  Then S =
 *		h + l exactly and o = fl(h + l) is its correct rounding, ties
 *		included, wherever o is a normal number (|r| <= tau).
 *	 4. A failed check writes a NaN marker and flags the lane; a flagged
 *		block is then scanned for markers, and each marked output is
 *		computed exactly: an accumulator is advanced from the block's carry
 *		to that element and rounded.  Those are rare near-ties, prefixes
 *		with Inf or NaN, zero or tiny prefixes, and sums beyond the double
 *		range.
 *
 * Nothing here depends on the grouping: every output is the correctly
 * rounded value, so any chunking of the input, and the GPU, give the same
 * bits.  The arithmetic is IEEE double addition, subtraction and
 * multiplication by constants, with no reassociation (never build this with
 * -ffast-math); FMA contraction of A * 2^-51 + |r| would only make the
 * bound check tighter, and is not used on x86-64 anyway.
 *
 * The vector code uses GCC vector extensions; on x86-64 an AVX2 build of
 * the scan is chosen at run time, together with that of cpu_sum.c.
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu/cpu_prefix_sum.h"
#include "cpu/cpu_sum.h"

/*
 * The fast scan needs IEEE double arithmetic without excess precision
 * (TwoSum is not error-free in x87 registers); elsewhere every output takes
 * the exact path.
 */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define CPU_SCAN_HAVE_FAST_PATH 1
#endif

/* elements per block: one vector lane scans one block */
#define SCAN_BLOCK			2048

/* blocks scanned side by side (the vector width in doubles) */
#define SCAN_LANES			4

/* below this many elements per lane a call scans one lane only */
#define SCAN_MIN_LANE		64

/* gaps of at least this many elements use cpu_sum_exact_f64 when fixing */
#define FIX_GAP_FAST		64

/* 2^-51: four times the unit roundoff, for the error bound */
#define BOUND_SCALE			0x1p-51

/* 1 - 2^-53: multiplying by it moves only powers of two down a binade */
#define BELOW_ONE			0x1.fffffffffffffp-1

#define EXP_MASK			UINT64_C(0x7ff0000000000000)
#define ABS_MASK			UINT64_C(0x7fffffffffffffff)
#define QNAN_BITS			UINT64_C(0x7ff8000000000000)
#define HALF_ULP_SHIFT		(UINT64_C(53) << 52)

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* bits_of -- the IEEE bits of a double */
static inline uint64_t
bits_of(double d)
{
	uint64_t	u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

/* double_of -- the double with the given IEEE bits */
static inline double
double_of(uint64_t u)
{
	double		d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/*
 * round_acc -- gs_acc_round(), with the special values decided from the
 * counters first (no copy of the accumulator where the answer is Inf/NaN).
 */
static double
round_acc(const gs_exact_acc *acc)
{
	if (acc->n_nan > 0 || (acc->n_pos_inf > 0 && acc->n_neg_inf > 0))
		return NAN;
	if (acc->n_pos_inf > 0)
		return INFINITY;
	if (acc->n_neg_inf > 0)
		return -INFINITY;
	return gs_acc_round(acc);
}

#ifdef CPU_SCAN_HAVE_FAST_PATH

/*
 * lane_seed -- where one lane starts: the carry rounded (the exclusive
 * output at the block start) and the double-double (hi, lo) the fast scan
 * starts from.  hi is NaN where the fast scan cannot start (Inf or NaN in
 * the carry, or a carry beyond the double range): every output of the
 * block then takes the exact path.
 */
typedef struct lane_seed
{
	double		rounded;
	double		hi;
	double		lo;
	double		lo_bound;		/* A at the start: |lo| + 2^54 E0 (file header) */
	int			exact;			/* hi + lo is the carry exactly */
} lane_seed;

/* pow2 -- 2^e as a double, for -1074 <= e <= 1023 */
static inline double
pow2(int e)
{
	if (e >= -1022)
		return double_of((uint64_t) (e + 1023) << 52);
	return double_of(UINT64_C(1) << (e + 1074));
}

/* two_sum -- s + e = a + b exactly, s = fl(a + b) (Knuth) */
static inline double
two_sum(double a, double b, double *e)
{
	double		s = a + b;
	double		bb = s - a;

	*e = (a - (s - bb)) + (b - bb);
	return s;
}

/*
 * seed_lane_fast -- seed_lane from the top four digits of a normalized
 * accumulator, without gs_acc_round(); returns 0 where it does not apply
 * (a value beyond 2^1006 or below 2^-978, or a rounding it cannot prove).
 *
 * The value is d * 2^(32t-1074) plus the digits below t, all nonnegative,
 * where t is the top digit that is not sign fill and d is that digit with
 * the sign (d < 0 for a negative value).  The top four terms are exact
 * doubles; their double-double sum (hi, lo) misses at most the digits
 * below them (less than 2^(32(t-3)-1074)) and the two inexact additions
 * into lo, whose errors TwoSum gives exactly.
 */
static int
seed_lane_fast(const gs_exact_acc *acc, lane_seed *seed)
{
	int64_t		top = acc->limb[GS_ACC_LIMBS - 1];
	int64_t		fill;
	int			t,
				i;
	double		term[4],
				h,
				l,
				e1,
				e2,
				e3,
				d2,
				d3,
				rest_bound,
				err,
				tau;
	int			rest_zero = 1;

	if (top != 0 && top != -1)
		return 0;
	fill = (top == -1) ? INT64_C(0xffffffff) : 0;
	for (t = GS_ACC_LIMBS - 2; t >= 0 && acc->limb[t] == fill; t--)
		;
	if (t < 3 || t > 64)
		return 0;				/* tiny, huge, or an exact zero: the slow way */

	for (i = 0; i < 4; i++)
	{
		int64_t		digit = acc->limb[t - i];

		if (i == 0 && top == -1)
			digit -= INT64_C(1) << 32;
		term[i] = (double) digit * pow2(32 * (t - i) - GS_ACC_BIAS);
	}
	for (i = 0; i < t - 3; i++)
		if (acc->limb[i] != 0)
		{
			rest_zero = 0;
			break;
		}
	rest_bound = rest_zero ? 0.0 : pow2(32 * (t - 3) - GS_ACC_BIAS);

	h = two_sum(term[0], term[1], &e1);
	h = two_sum(h, term[2], &e2);
	l = two_sum(e1, e2, &d2);
	h = two_sum(h, term[3], &e3);
	l = two_sum(l, e3, &d3);
	seed->hi = two_sum(h, l, &seed->lo);

	/* |carry - hi - lo| <= err; A starts at |lo| + 2^54 err (see scan) */
	err = rest_bound + fabs(d2) + fabs(d3);
	seed->exact = (err == 0.0);

	/* the carry rounded: hi, where the same proof as the scan's holds */
	tau = double_of((bits_of(seed->hi * BELOW_ONE) & EXP_MASK) - HALF_ULP_SHIFT);
	if (!(fabs(seed->lo) + 2.0 * err < tau ||
		  (seed->exact && fabs(seed->lo) <= tau)))
		return 0;
	seed->rounded = seed->hi;
	seed->lo_bound = fabs(seed->lo) + err * 0x1p54;
	return 1;
}

/* seed_lane -- the seed of a lane whose exact carry is *acc (normalized) */
static void
seed_lane(const gs_exact_acc *acc, lane_seed *seed)
{
	gs_exact_acc rest;
	int			i;

	seed->lo = 0.0;
	seed->lo_bound = 0.0;
	seed->exact = 0;
	if (acc->n_nan > 0 || acc->n_pos_inf > 0 || acc->n_neg_inf > 0)
	{
		seed->rounded = round_acc(acc);
		seed->hi = NAN;
		return;
	}
	if (seed_lane_fast(acc, seed))
		return;
	seed->lo = 0.0;
	seed->exact = 0;
	for (i = 0; i < GS_ACC_LIMBS && acc->limb[i] == 0; i++)
		;
	if (i == GS_ACC_LIMBS)
	{
		/* an exact zero: +0 or -0 as the flags say; the scan starts at 0 */
		seed->rounded = (acc->has_negzero && !acc->has_nonnegzero) ? -0.0 : 0.0;
		seed->hi = 0.0;
		seed->exact = 1;
		return;
	}
	seed->rounded = gs_acc_round(acc);
	if (!isfinite(seed->rounded))
	{
		seed->hi = NAN;
		return;
	}
	seed->hi = seed->rounded;
	rest = *acc;
	gs_acc_add(&rest, -seed->hi);
	seed->lo = gs_acc_round(&rest);
	seed->lo_bound = fabs(seed->lo);

	/* whether the carry has no bits below lo's */
	gs_acc_add(&rest, -seed->lo);
	gs_acc_normalize(&rest);
	for (i = 0; i < GS_ACC_LIMBS && rest.limb[i] == 0; i++)
		;
	seed->exact = (i == GS_ACC_LIMBS);
}

/*
 * scan_lane_scalar -- the fast scan of one block (see the file header,
 * step 3): out[j] is the correctly rounded prefix through x[j], or a NaN
 * marker where the bound check fails.  Returns whether any check failed.
 */
static int
scan_lane_scalar(const double *x, double *out, size_t steps,
				 const lane_seed *seed)
{
	double		h = seed->hi;
	double		l = seed->lo;
	double		a = seed->lo_bound;
	uint64_t	inexact = seed->exact ? 0 : 1;
	uint64_t	fail = 0;
	size_t		j;

	for (j = 0; j < steps; j++)
	{
		double		xj = x[j];
		double		s = h + xj;
		double		bb = s - h;
		double		e = (h - (s - bb)) + (xj - bb);
		double		t = l + e;
		double		tb = t - l;
		double		d = (l - (t - tb)) + (e - tb);
		double		o,
					z,
					r,
					bound,
					tau;
		uint64_t	ok;

		h = s;
		l = t;
		inexact |= bits_of(d) & ABS_MASK;
		o = h + l;
		z = o - h;
		r = (h - (o - z)) + (l - z);
		a = a + fabs(l);
		bound = fabs(r) + a * BOUND_SCALE;
		tau = double_of((bits_of(o * BELOW_ONE) & EXP_MASK) - HALF_ULP_SHIFT);
		ok = (bound < tau || (inexact == 0 && fabs(r) <= tau)) ? ~UINT64_C(0) : 0;
		fail |= ~ok;
		out[j] = double_of(bits_of(o) | (~ok & QNAN_BITS));
	}
	return fail != 0;
}

/* the fast scan of SCAN_LANES blocks side by side; returns a fail mask */
typedef unsigned (*scan_lanes_fn) (const double *const *x, double *const *out,
								   size_t steps, const lane_seed *seeds);


typedef double v4d __attribute__((vector_size(32)));
typedef uint64_t v4u __attribute__((vector_size(32)));
typedef int64_t v4i __attribute__((vector_size(32)));
typedef double v2d __attribute__((vector_size(16)));
typedef uint64_t v2u __attribute__((vector_size(16)));

/* VABS -- |v|, lane by lane (macros: no vector arguments across calls) */
#define VABS(VD, VU, v)	((VD) ((VU) (v) & abs_mask))

/*
 * V4SHUFFLE -- lanes of a and b picked by index (0..3 from a, 4..7 from b):
 * __builtin_shufflevector where the compiler has it, else GCC's
 * __builtin_shuffle.
 */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define V4SHUFFLE(a, b, i0, i1, i2, i3) \
	__builtin_shufflevector((a), (b), i0, i1, i2, i3)
#else
#define V4SHUFFLE(a, b, i0, i1, i2, i3) \
	__builtin_shuffle((a), (b), (v4i) {i0, i1, i2, i3})
#endif

/*
 * TRANSPOSE4 -- the 4x4 matrix with rows r0..r3 into columns c0..c3 (may
 * be the same variables): lane k of row j becomes lane j of column k.
 */
#define TRANSPOSE4(r0, r1, r2, r3, c0, c1, c2, c3) \
	do { \
		v4d		t0_ = V4SHUFFLE(r0, r1, 0, 4, 2, 6); \
		v4d		t1_ = V4SHUFFLE(r0, r1, 1, 5, 3, 7); \
		v4d		t2_ = V4SHUFFLE(r2, r3, 0, 4, 2, 6); \
		v4d		t3_ = V4SHUFFLE(r2, r3, 1, 5, 3, 7); \
		c0 = V4SHUFFLE(t0_, t2_, 0, 1, 4, 5); \
		c1 = V4SHUFFLE(t1_, t3_, 0, 1, 4, 5); \
		c2 = V4SHUFFLE(t0_, t2_, 2, 3, 6, 7); \
		c3 = V4SHUFFLE(t1_, t3_, 2, 3, 6, 7); \
	} while (0)

/*
 * SCAN_STEP -- one step of the lanes of a vector (type VD, bits VU) on the
 * elements xj (one per lane): advances h, l, a, inexact and fail, and sets
 * oj to the outputs or markers.  scan_lane_scalar, lane by lane.
 */
#define SCAN_STEP(VD, VU, xj, oj) \
	do { \
		VD		s_ = h + (xj); \
		VD		bb_ = s_ - h; \
		VD		e_ = (h - (s_ - bb_)) + ((xj) - bb_); \
		VD		t_ = l + e_; \
		VD		tb_ = t_ - l; \
		VD		d_ = (l - (t_ - tb_)) + (e_ - tb_); \
		VD		o_, z_, r_, absr_, bound_, tau_; \
		VU		ok_; \
		h = s_; \
		l = t_; \
		inexact |= (VU) d_ & abs_mask; \
		o_ = h + l; \
		z_ = o_ - h; \
		r_ = (h - (o_ - z_)) + (l - z_); \
		a = a + VABS(VD, VU, l); \
		absr_ = VABS(VD, VU, r_); \
		bound_ = absr_ + a * bound_scale; \
		tau_ = (VD) (((VU) (o_ * below_one) & exp_mask) - half_ulp); \
		ok_ = (VU) (bound_ < tau_) | \
			((VU) ((VD) inexact == zero) & (VU) (absr_ <= tau_)); \
		fail |= ~ok_; \
		(oj) = (VD) ((VU) o_ | (~ok_ & nan_bits)); \
	} while (0)

/* SCAN_CONSTANTS -- the constants SCAN_STEP uses, as vectors of n lanes */
#define SCAN_CONSTANTS(VD, VU) \
	const VU	abs_mask = (VU) {0} + ABS_MASK; \
	const VU	exp_mask = (VU) {0} + EXP_MASK; \
	const VU	nan_bits = (VU) {0} + QNAN_BITS; \
	const VU	half_ulp = (VU) {0} + HALF_ULP_SHIFT; \
	const VD	below_one = (VD) {0} + BELOW_ONE; \
	const VD	bound_scale = (VD) {0} + BOUND_SCALE; \
	const VD	zero = (VD) {0}		/* inexact == 0, compared as doubles */

/*
 * scan_lanes4 -- scan_lane_scalar for four blocks at once, lane k scanning
 * x[k][0..steps) into out[k][0..steps), four steps at a time: whole-vector
 * loads and stores, the data moved between the lanes' rows and the steps'
 * columns by 4x4 transposes.  For AVX2, which has the registers and the
 * shuffles for it.  Returns bit k set where lane k failed a check.
 */
static ALWAYS_INLINE unsigned
scan_lanes4(const double *const *x, double *const *out, size_t steps,
			const lane_seed *seeds)
{
	SCAN_CONSTANTS(v4d, v4u);
	const double *x0 = x[0],
			   *x1 = x[1],
			   *x2 = x[2],
			   *x3 = x[3];
	double	   *o0 = out[0],
			   *o1 = out[1],
			   *o2 = out[2],
			   *o3 = out[3];
	v4d			h = {seeds[0].hi, seeds[1].hi, seeds[2].hi, seeds[3].hi};
	v4d			l = {seeds[0].lo, seeds[1].lo, seeds[2].lo, seeds[3].lo};
	v4d			a = {seeds[0].lo_bound, seeds[1].lo_bound, seeds[2].lo_bound, seeds[3].lo_bound};
	v4u			inexact = {!seeds[0].exact, !seeds[1].exact, !seeds[2].exact, !seeds[3].exact};
	v4u			fail = {0, 0, 0, 0};
	unsigned	mask = 0;
	size_t		j;
	int			k;

	for (j = 0; j + 4 <= steps; j += 4)
	{
		v4d			r0,
					r1,
					r2,
					r3,
					c0,
					c1,
					c2,
					c3;

		memcpy(&r0, x0 + j, sizeof(r0));
		memcpy(&r1, x1 + j, sizeof(r1));
		memcpy(&r2, x2 + j, sizeof(r2));
		memcpy(&r3, x3 + j, sizeof(r3));
		TRANSPOSE4(r0, r1, r2, r3, c0, c1, c2, c3);
		SCAN_STEP(v4d, v4u, c0, c0);
		SCAN_STEP(v4d, v4u, c1, c1);
		SCAN_STEP(v4d, v4u, c2, c2);
		SCAN_STEP(v4d, v4u, c3, c3);
		TRANSPOSE4(c0, c1, c2, c3, r0, r1, r2, r3);
		memcpy(o0 + j, &r0, sizeof(r0));
		memcpy(o1 + j, &r1, sizeof(r1));
		memcpy(o2 + j, &r2, sizeof(r2));
		memcpy(o3 + j, &r3, sizeof(r3));
	}
	for (; j < steps; j++)
	{
		v4d			xj = {x0[j], x1[j], x2[j], x3[j]};
		v4d			oj;

		SCAN_STEP(v4d, v4u, xj, oj);
		o0[j] = oj[0];
		o1[j] = oj[1];
		o2[j] = oj[2];
		o3[j] = oj[3];
	}
	for (k = 0; k < 4; k++)
		if (fail[k])
			mask |= 1u << k;
	return mask;
}

/*
 * scan_lanes2 -- the same for two blocks, in 128-bit vectors (SSE2, NEON):
 * where 256-bit vectors are not native, compilers split their comparisons
 * into scalar code, and four lanes' state does not fit the registers.
 */
static ALWAYS_INLINE unsigned
scan_lanes2(const double *const *x, double *const *out, size_t steps,
			const lane_seed *seeds)
{
	SCAN_CONSTANTS(v2d, v2u);
	const double *x0 = x[0],
			   *x1 = x[1];
	double	   *o0 = out[0],
			   *o1 = out[1];
	v2d			h = {seeds[0].hi, seeds[1].hi};
	v2d			l = {seeds[0].lo, seeds[1].lo};
	v2d			a = {seeds[0].lo_bound, seeds[1].lo_bound};
	v2u			inexact = {!seeds[0].exact, !seeds[1].exact};
	v2u			fail = {0, 0};
	size_t		j;

	for (j = 0; j < steps; j++)
	{
		v2d			xj = {x0[j], x1[j]};
		v2d			oj;

		SCAN_STEP(v2d, v2u, xj, oj);
		o0[j] = oj[0];
		o1[j] = oj[1];
	}
	return (fail[0] ? 1u : 0u) | (fail[1] ? 2u : 0u);
}

/* scan_lanes_portable -- the portable build: two pairs of lanes */
static unsigned
scan_lanes_portable(const double *const *x, double *const *out, size_t steps,
					const lane_seed *seeds)
{
	return scan_lanes2(x, out, steps, seeds) |
		(scan_lanes2(x + 2, out + 2, steps, seeds + 2) << 2);
}

#if defined(__x86_64__)

/* scan_lanes_avx2 -- the four-lane scan built for AVX2 (no FMA) */
__attribute__((target("avx2")))
static unsigned
scan_lanes_avx2(const double *const *x, double *const *out, size_t steps,
				const lane_seed *seeds)
{
	return scan_lanes4(x, out, steps, seeds);
}

#endif							/* __x86_64__ */

/*
 * choose_scan_lanes -- the vector build for this CPU: AVX2 exactly where
 * the exact sum uses its AVX2 build (cpu_sum_exact_path), so that the
 * tests' cpu_sum_exact_allow_avx2(0) selects the portable build of both.
 */
static scan_lanes_fn
choose_scan_lanes(void)
{
#if defined(__x86_64__)
	if (strcmp(cpu_sum_exact_path(), "avx2") == 0)
		return scan_lanes_avx2;
#endif
	return scan_lanes_portable;
}



/*
 * fix_lane -- compute exactly every output the fast scan of one block
 * marked.  x[0..steps) are the block's elements, out[j] the prefix through
 * x[j], *start the exact carry before x[0] (normalized; not changed).
 */
static void
fix_lane(const double *x, double *out, size_t steps, const gs_exact_acc *start)
{
	gs_exact_acc acc = *start;
	size_t		done = 0;		/* elements of x already in acc */
	size_t		j;

	for (j = 0; j < steps; j++)
	{
		if (out[j] == out[j])
			continue;			/* not a marker */
		if (j + 1 - done >= FIX_GAP_FAST)
			cpu_sum_exact_f64(x + done, j + 1 - done, &acc);
		else
			for (; done <= j; done++)
				gs_acc_add(&acc, x[done]);
		done = j + 1;
		out[j] = round_acc(&acc);
	}
}

/*
 * scan_one_lane -- the whole scan of x[0..len) as one lane, from the exact
 * carry *acc (normalized), which ends including x[0..len).  For short
 * inputs and the few elements after the last full group of lanes.
 */
static void
scan_one_lane(const double *x, size_t len, double *out, int exclusive,
			  gs_exact_acc *acc)
{
	gs_exact_acc start = *acc;
	lane_seed	seed;
	size_t		steps;

	if (len == 0)
		return;
	seed_lane(&start, &seed);
	steps = len - (exclusive ? 1 : 0);
	if (exclusive)
		out[0] = seed.rounded;
	if (scan_lane_scalar(x, out + (exclusive ? 1 : 0), steps, &seed))
		fix_lane(x, out + (exclusive ? 1 : 0), steps, &start);
	cpu_sum_exact_f64(x, len, acc);
}

/*
 * scan_group -- SCAN_LANES blocks of len elements each, x[0..lanes * len),
 * scanned side by side from the exact carry *acc (normalized), which ends
 * including them all (normalized).
 */
static void
scan_group(scan_lanes_fn scan, const double *x, size_t len, double *out,
		   int exclusive, gs_exact_acc *acc)
{
	gs_exact_acc starts[SCAN_LANES];
	lane_seed	seeds[SCAN_LANES];
	const double *lane_x[SCAN_LANES];
	double	   *lane_out[SCAN_LANES];
	size_t		steps = len - (exclusive ? 1 : 0);
	unsigned	fail;
	int			k;

	/* step 1 and 2: the exact carry at each block start, and its seed */
	for (k = 0; k < SCAN_LANES; k++)
	{
		starts[k] = *acc;
		seed_lane(&starts[k], &seeds[k]);
		cpu_sum_exact_f64(x + k * len, len, acc);
		gs_acc_normalize(acc);
		lane_x[k] = x + k * len;
		lane_out[k] = out + k * len + (exclusive ? 1 : 0);
		if (exclusive)
			out[k * len] = seeds[k].rounded;
	}

	/* step 3: the fast scan; step 4: the exact path where it failed */
	fail = scan(lane_x, lane_out, steps, seeds);
	for (k = 0; k < SCAN_LANES; k++)
		if (fail & (1u << k))
			fix_lane(lane_x[k], lane_out[k], steps, &starts[k]);
}

#endif							/* CPU_SCAN_HAVE_FAST_PATH */

/*
 * prefix_sum_f64 -- the driver: full groups of SCAN_BLOCK-element blocks,
 * then the rest as one group of shorter blocks, then the last few
 * elements as one lane.  Requires n > 0 and *carry normalized.
 */
static void
prefix_sum_f64(const double *x, size_t n, double *out, int exclusive,
			   gs_exact_acc *carry)
{
#ifdef CPU_SCAN_HAVE_FAST_PATH
	scan_lanes_fn scan = choose_scan_lanes();
	size_t		off = 0;
	size_t		len;

	for (; n - off >= SCAN_LANES * SCAN_BLOCK; off += SCAN_LANES * SCAN_BLOCK)
		scan_group(scan, x + off, SCAN_BLOCK, out + off, exclusive, carry);

	len = (n - off) / SCAN_LANES;
	if (len >= SCAN_MIN_LANE)
	{
		scan_group(scan, x + off, len, out + off, exclusive, carry);
		off += SCAN_LANES * len;
	}
	scan_one_lane(x + off, n - off, out + off, exclusive, carry);
#else
	size_t		i;

	/* the contract literally, normalizing well before the headroom ends */
	for (i = 0; i < n; i++)
	{
		if (exclusive)
			out[i] = round_acc(carry);
		gs_acc_add(carry, x[i]);
		if (!exclusive)
			out[i] = round_acc(carry);
		if ((i & ((UINT64_C(1) << 30) - 1)) == (UINT64_C(1) << 30) - 1)
			gs_acc_normalize(carry);
	}
#endif
}

/* cpu_prefix_sum_f64 -- see cpu_prefix_sum.h */
void
cpu_prefix_sum_f64(const double *x, size_t n, double *out, int exclusive,
				   gs_exact_acc *carry)
{
	if (n == 0)
		return;
	gs_acc_normalize(carry);
	prefix_sum_f64(x, n, out, exclusive, carry);
	gs_acc_normalize(carry);
}

/*
 * cpu_prefix_sum_f32 -- floats widen to doubles exactly, so this is the
 * double scan over widened pieces of one full group each (the pieces sit
 * in L1/L2, and the result does not depend on the split).
 */
void
cpu_prefix_sum_f32(const float *x, size_t n, double *out, int exclusive,
				   gs_exact_acc *carry)
{
	double		wide[SCAN_LANES * SCAN_BLOCK];
	size_t		off;

	if (n == 0)
		return;
	gs_acc_normalize(carry);
	for (off = 0; off < n; off += SCAN_LANES * SCAN_BLOCK)
	{
		size_t		len = n - off < SCAN_LANES * SCAN_BLOCK ? n - off : SCAN_LANES * SCAN_BLOCK;
		size_t		i;

		for (i = 0; i < len; i++)
			wide[i] = (double) x[off + i];
		prefix_sum_f64(wide, len, out + off, exclusive, carry);
	}
	gs_acc_normalize(carry);
}

/*
 * cpu_prefix_sum_sequential_f64 -- the plain running float8 sum, one
 * rounding per step, as sum() OVER (ROWS UNBOUNDED PRECEDING) does it.
 */
void
cpu_prefix_sum_sequential_f64(const double *x, size_t n, double *out)
{
	double		s = 0.0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		s += x[i];
		out[i] = s;
	}
}
