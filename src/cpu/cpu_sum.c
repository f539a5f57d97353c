/*-------------------------------------------------------------------------
 *
 * cpu_sum.c
 *	  CPU sums of double and float arrays: the exact sum into a
 *	  gs_exact_acc, at close to memory speed, and the plain float8 loop.
 *
 * The exact sum works on blocks of CPU_SUM_BLOCK elements with an
 * error-free extraction (Rump, Ogita and Oishi, "Accurate floating-point
 * summation part I", ExtractScalar) in two levels:
 *
 *	 1. A first pass over the block (which brings it into L1) finds its
 *		largest exponent E: every |x| < 2^(E+1).
 *	 2. With k = E + 3 and sigma = 1.5 * 2^k, every |x| < 2^(k-2), so
 *		t = fl(sigma + x) lies in [2^k, 2^(k+1)).  q = t - sigma is exact and
 *		r = x - q is exact (it is the rounding error of sigma + x), so
 *		x = q + r with q a multiple of ulp = 2^(k-52) and |r| <= ulp / 2.
 *		Inside that binade the IEEE bits of t are linear in t, so the
 *		integer sum of bits(t) over the block, less n * bits(sigma), is
 *		exactly sum(q) / ulp: at most n * 2^50 in magnitude, which fits in
 *		64 bits for n <= 4096 (the sum wraps modulo 2^64 on the way).
 *	 3. The same step on r with k2 = k - 50 (|r| < 2^(k2-2)) takes the
 *		next 50 bits.  Steps 2 and 3 are one second pass over the block.
 *
 * If every second-level residual is zero -- every element's bits lie
 * within about 100 bits below the block's largest element -- the two
 * integer sums are the block's exact sum and go into the accumulator with
 * four gs_acc_add() calls.  Otherwise (a wider exponent range inside the
 * block, Inf or NaN, magnitudes near the ends of the double range, or an
 * all-zero block) the block takes the scalar path: gs_acc_add() for each
 * element.  Either way the accumulator ends up holding the same exact
 * value, counters and flags as the scalar path, so gs_acc_round() gives
 * the same bits for any split of the input into calls.
 *
 * The OR of the second-level residuals' bits serves twice: its magnitude
 * bits say whether any residual is nonzero, and its sign bit says whether
 * any element was -0.0 (the only input whose residual is -0.0).
 *
 * Floats convert exactly to double; with 24 bits each, one level usually
 * suffices, and blocks with a wider range go through the double passes.
 *
 * The passes use GCC vector extensions: a portable build of 16-byte
 * vectors (SSE2, NEON) and, on x86-64, an AVX2 build of 32-byte vectors
 * chosen at run time.  Only IEEE additions and subtractions on doubles
 * are used: no contraction, no reassociation (never build this with
 * -ffast-math).
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <stdint.h>
#include <string.h>

#include "cpu/cpu_sum.h"

/* elements per block: at most 4096 (see the header) */
#define CPU_SUM_BLOCK		1024

/* below this many elements a call takes the scalar path */
#define CPU_SUM_SMALL_N		64

/* calls of at least this many elements start and end normalized */
#define CPU_SUM_NORMALIZE_N	4096

/* normalize after this many gs_acc_add() calls (the limit is 2^31) */
#define CPU_SUM_MAX_ADDS	(UINT64_C(1) << 30)

/*
 * Biased exponents of the block maximum for which the two-level fast path
 * holds: k2 = E - 47 must stay >= -1022 (so that the second level works in
 * a normal binade) and the block sum, below 2^(E + 13), must stay finite.
 */
#define FAST_MIN_BIASED_EXP	(1023 - 960)
#define FAST_MAX_BIASED_EXP	(1023 + 1000)

/* The fast path needs IEEE double arithmetic without excess precision. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define CPU_SUM_HAVE_FAST_PATH 1
#endif

/* acc_add_scalar_f64 -- the scalar path: gs_acc_add() for each element */
static void
acc_add_scalar_f64(gs_exact_acc *acc, const double *x, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		gs_acc_add(acc, x[i]);
}

/* acc_add_scalar_f32 -- the scalar path for floats (exact in double) */
static void
acc_add_scalar_f32(gs_exact_acc *acc, const float *x, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		gs_acc_add(acc, (double) x[i]);
}

/*
 * What a successful fast pass found in one block: the exact sum is
 * level_sum[0] * 2^level_exp[0] + level_sum[1] * 2^level_exp[1].
 */
typedef struct block_sums
{
	int64_t		level_sum[2];
	int			level_exp[2];
	int			has_negzero;	/* some element was -0.0 */
} block_sums;

/* block_f64_fn -- a fast pass over one block; returns 0 where it cannot */
typedef int (*block_f64_fn) (const double *x, size_t len,
							 const double *next, size_t next_len,
							 block_sums *out);
typedef int (*block_f32_fn) (const float *x, size_t len,
							 const float *next, size_t next_len,
							 block_sums *out);

/* double_from_bits -- the double with the given IEEE bits */
static inline double
double_from_bits(uint64_t bits)
{
	double		d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* pow2 -- 2^e as a double, for -1074 <= e <= 1023 */
static double
pow2(int e)
{
	if (e >= -1022)
		return double_from_bits((uint64_t) (e + 1023) << 52);
	return double_from_bits(UINT64_C(1) << (e + 1074));
}

/*
 * acc_add_scaled -- add v * 2^e exactly, for |v| < 2^63 and v * 2^e finite
 * with e >= -1074.  Each 32-bit piece of |v| times 2^e is a double exactly.
 */
static void
acc_add_scaled(gs_exact_acc *acc, int64_t v, int e)
{
	uint64_t	mag = v < 0 ? -(uint64_t) v : (uint64_t) v;
	double		scale = pow2(e);
	double		hi = (double) (mag & ~UINT64_C(0xffffffff)) * scale;
	double		lo = (double) (mag & UINT64_C(0xffffffff)) * scale;

	if (v < 0)
	{
		hi = -hi;
		lo = -lo;
	}
	if (hi != 0.0)
		gs_acc_add(acc, hi);
	if (lo != 0.0)
		gs_acc_add(acc, lo);
}

/*
 * acc_add_block_sums -- add what a fast pass found; at most four
 * gs_acc_add() calls.  A fast block always holds a nonzero element.
 */
static void
acc_add_block_sums(gs_exact_acc *acc, const block_sums *sums)
{
	acc->has_nonnegzero = 1;
	if (sums->has_negzero)
		acc->has_negzero = 1;
	acc_add_scaled(acc, sums->level_sum[0], sums->level_exp[0]);
	acc_add_scaled(acc, sums->level_sum[1], sums->level_exp[1]);
}

#ifdef CPU_SUM_HAVE_FAST_PATH

/*
 * Vector types of the two builds: 16 bytes (SSE2, NEON: the portable
 * build) and 32 bytes (AVX2).  A vector wider than the target's registers
 * would live in memory, so each build uses its own width.
 */
typedef double v2d __attribute__((vector_size(16)));
typedef uint64_t v2u __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef float v2f __attribute__((vector_size(8)));
typedef double v4d __attribute__((vector_size(32)));
typedef uint64_t v4u __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));

/* bits_of -- the IEEE bits of a double */
static inline uint64_t
bits_of(double d)
{
	uint64_t	u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

/* level_sigma -- sigma = 1.5 * 2^k, for -1022 <= k <= 1023 */
static inline double
level_sigma(int k)
{
	return double_from_bits(((uint64_t) (k + 1023) << 52) | (UINT64_C(1) << 51));
}

/*
 * max_high_word_tail_f64 -- the largest of result and the high 32-bit
 * words of |x[i..len)|: the scalar end of the first pass.  The top 12 bits
 * of that word are the biased exponent.
 */
static uint32_t
max_high_word_tail_f64(const double *x, size_t i, size_t len, uint32_t result)
{
	for (; i < len; i++)
	{
		uint32_t	h = (uint32_t) ((bits_of(x[i]) >> 32) & 0x7fffffff);

		if (h > result)
			result = h;
	}
	return result;
}

/*
 * first_level_exponent_f64 -- *k of the first level from the largest high
 * word of |x|; returns 0 where the block must take the scalar path.
 */
static inline int
first_level_exponent_f64(uint32_t max_high_word, int *k)
{
	uint32_t	biased = max_high_word >> 20;

	if (biased < FAST_MIN_BIASED_EXP || biased > FAST_MAX_BIASED_EXP)
		return 0;				/* Inf, NaN, huge, tiny or all zero */
	*k = (int) biased - 1023 + 3;
	return 1;
}

/*
 * finish_block_f64 -- the scalar end of the two-level pass over
 * x[i..len), then the check and the block's sums.  total1, total2 and
 * resid carry the vector part.  Returns 0 where some residual is nonzero.
 */
static int
finish_block_f64(const double *x, size_t i, size_t len, int k1,
				 uint64_t total1, uint64_t total2, uint64_t resid,
				 block_sums *out)
{
	double		sigma1 = level_sigma(k1);
	double		sigma2 = level_sigma(k1 - 50);

	for (; i < len; i++)
	{
		double		t = sigma1 + x[i];
		double		r = x[i] - (t - sigma1);

		total1 += bits_of(t);
		t = sigma2 + r;
		total2 += bits_of(t);
		r = r - (t - sigma2);
		resid |= bits_of(r);
	}
	if (resid & ~(UINT64_C(1) << 63))
		return 0;				/* some element needs more than two levels */
	out->has_negzero = (int) (resid >> 63);
	out->level_sum[0] = (int64_t) (total1 - (uint64_t) len * bits_of(sigma1));
	out->level_sum[1] = (int64_t) (total2 - (uint64_t) len * bits_of(sigma2));
	out->level_exp[0] = k1 - 52;
	out->level_exp[1] = k1 - 50 - 52;
	return 1;
}

/* max_bits_tail_f32 -- the scalar end of the float maximum pass */
static uint32_t
max_bits_tail_f32(const float *x, size_t i, size_t len, uint32_t result)
{
	for (; i < len; i++)
	{
		uint32_t	h;

		memcpy(&h, x + i, sizeof(h));
		h &= 0x7fffffff;
		if (h > result)
			result = h;
	}
	return result;
}

/*
 * level_exponent_f32 -- *k of the one level for floats from the largest
 * bits of |x|: |x| < 2^(E+1) with E = biased - 127, or -126 for subnormal
 * floats.  Returns 0 for the double path (Inf, NaN, or all zero).
 */
static inline int
level_exponent_f32(uint32_t max_bits, int *k)
{
	uint32_t	biased = max_bits >> 23;

	if (biased == 0xff || max_bits == 0)
		return 0;
	*k = (biased == 0 ? 1 : (int) biased) - 127 + 3;
	return 1;
}

/* finish_block_f32 -- the scalar end of the float pass; as for doubles */
static int
finish_block_f32(const float *x, size_t i, size_t len, int k,
				 uint64_t total, uint64_t resid, block_sums *out)
{
	double		sigma = level_sigma(k);

	for (; i < len; i++)
	{
		double		xd = (double) x[i];
		double		t = sigma + xd;

		total += bits_of(t);
		resid |= bits_of(xd - (t - sigma));
	}
	if (resid & ~(UINT64_C(1) << 63))
		return 0;
	out->has_negzero = (int) (resid >> 63);
	out->level_sum[0] = (int64_t) (total - (uint64_t) len * bits_of(sigma));
	out->level_sum[1] = 0;
	out->level_exp[0] = k - 52;
	out->level_exp[1] = k - 52;
	return 1;
}

/* VEC_MAX_ARITH -- m = max(m, h), int32 lanes in [0, 2^31), no comparison */
#define VEC_MAX_ARITH(VI, m, h) \
	do { \
		VI			d_ = (h) - (m); \
		(m) += d_ & ~(d_ >> 31); \
	} while (0)

/* VEC_MAX_COMPARE -- the same with a comparison and a select */
#define VEC_MAX_COMPARE(VI, m, h) \
	do { \
		VI			h_ = (h); \
		VI			gt_ = h_ > (m); \
		(m) = (h_ & gt_) | ((m) & ~gt_); \
	} while (0)

/* LOAD_FLOATS_LANES -- a vector of doubles from floats, lane by lane */
#define LOAD_FLOATS_LANES(VD, VF, dst, src) \
	do { \
		size_t		l_; \
		for (l_ = 0; l_ < sizeof(VD) / sizeof(double); l_++) \
			(dst)[l_] = (double) (src)[l_]; \
	} while (0)

/* LOAD_FLOATS_CONVERT -- the same with one vector conversion */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 9)
#define LOAD_FLOATS_CONVERT(VD, VF, dst, src) \
	do { \
		VF			f_; \
		memcpy(&f_, (src), sizeof(f_)); \
		(dst) = __builtin_convertvector(f_, VD); \
	} while (0)
#else
#define LOAD_FLOATS_CONVERT LOAD_FLOATS_LANES
#endif

/*
 * DEFINE_BLOCK_PASSES -- the vector passes of one build, named _SUFFIX:
 * VD, VU, VI, VF are vectors of double, uint64, int32 and float of one
 * width (VF: as many floats as VD has doubles); ATTR the target
 * attribute; VEC_MAX and LOAD_FLOATS the variants of those steps that
 * suit the build (vector comparisons of a width the target lacks would
 * be done element by element).  The scalar ends are the functions above.
 *
 * extract_block_f64_SUFFIX -- the two-level extraction of one block of
 * doubles (see the file header); prefetches the next block.  Returns 0,
 * with *out undefined, where the block must take the scalar path.
 *
 * extract_block_f32_SUFFIX -- one level for a block of floats, each
 * converted exactly to double.  A float has 24 bits, so one level of 50
 * bits takes every element within 2^26 of the block's largest; a wider
 * block returns 0 and goes through the double pass.
 */
#define DEFINE_BLOCK_PASSES(SUFFIX, ATTR, VD, VU, VI, VF, VEC_MAX, LOAD_FLOATS) \
\
ATTR static int \
extract_block_f64_##SUFFIX(const double *x, size_t len, \
						   const double *next, size_t next_len, \
						   block_sums *out) \
{ \
	const size_t lanes = sizeof(VD) / sizeof(double); \
	const VU	high_mask = (VU) {0} + UINT64_C(0x7fffffff00000000); \
	VI			max0 = {0}, \
				max1 = {0}; \
	VU			count1 = {0}, \
				count2 = {0}, \
				resid_bits = {0}; \
	VD			sig1, \
				sig2; \
	uint64_t	total1 = 0, \
				total2 = 0, \
				resid = 0; \
	uint32_t	max_high = 0; \
	size_t		i, \
				l; \
	int			k1; \
\
	/* pass 1: the largest exponent (the block comes into L1) */ \
	for (i = 0; i + 2 * lanes <= len; i += 2 * lanes) \
	{ \
		VU			a, \
					b; \
\
		memcpy(&a, x + i, sizeof(a)); \
		memcpy(&b, x + i + lanes, sizeof(b)); \
		VEC_MAX(VI, max0, (VI) (a & high_mask)); \
		VEC_MAX(VI, max1, (VI) (b & high_mask)); \
	} \
	for (l = 0; l < 2 * lanes; l++) \
	{ \
		if ((uint32_t) max0[l] > max_high) \
			max_high = (uint32_t) max0[l]; \
		if ((uint32_t) max1[l] > max_high) \
			max_high = (uint32_t) max1[l]; \
	} \
	if (!first_level_exponent_f64(max_high_word_tail_f64(x, i, len, max_high), \
								  &k1)) \
		return 0; \
	sig1 = (VD) {0} + level_sigma(k1); \
	sig2 = (VD) {0} + level_sigma(k1 - 50); \
\
	/* pass 2: both levels; integer sums of bits(t), OR of residuals */ \
	for (i = 0; i + 2 * lanes <= len; i += 2 * lanes) \
	{ \
		VD			xa, \
					xb, \
					ta, \
					tb; \
\
		if (i < next_len) \
			__builtin_prefetch(next + i, 0, 2); \
		memcpy(&xa, x + i, sizeof(xa)); \
		memcpy(&xb, x + i + lanes, sizeof(xb)); \
		ta = sig1 + xa; \
		tb = sig1 + xb; \
		count1 += (VU) ta + (VU) tb; \
		xa = xa - (ta - sig1); \
		xb = xb - (tb - sig1); \
		ta = sig2 + xa; \
		tb = sig2 + xb; \
		count2 += (VU) ta + (VU) tb; \
		xa = xa - (ta - sig2); \
		xb = xb - (tb - sig2); \
		resid_bits |= (VU) xa | (VU) xb; \
	} \
	for (l = 0; l < lanes; l++) \
	{ \
		total1 += count1[l]; \
		total2 += count2[l]; \
		resid |= resid_bits[l]; \
	} \
	return finish_block_f64(x, i, len, k1, total1, total2, resid, out); \
} \
\
ATTR static int \
extract_block_f32_##SUFFIX(const float *x, size_t len, \
						   const float *next, size_t next_len, \
						   block_sums *out) \
{ \
	const size_t lanes = sizeof(VD) / sizeof(double); \
	const VI	abs_mask = (VI) {0} + 0x7fffffff; \
	VI			max0 = {0}, \
				max1 = {0}; \
	VU			count = {0}, \
				resid_bits = {0}; \
	VD			sig; \
	uint64_t	total = 0, \
				resid = 0; \
	uint32_t	max_bits = 0; \
	size_t		i, \
				l; \
	int			k; \
\
	/* pass 1: the largest exponent; a VI holds 2 * lanes floats */ \
	for (i = 0; i + 4 * lanes <= len; i += 4 * lanes) \
	{ \
		VI			a, \
					b; \
\
		memcpy(&a, x + i, sizeof(a)); \
		memcpy(&b, x + i + 2 * lanes, sizeof(b)); \
		VEC_MAX(VI, max0, a & abs_mask); \
		VEC_MAX(VI, max1, b & abs_mask); \
	} \
	for (l = 0; l < 2 * lanes; l++) \
	{ \
		if ((uint32_t) max0[l] > max_bits) \
			max_bits = (uint32_t) max0[l]; \
		if ((uint32_t) max1[l] > max_bits) \
			max_bits = (uint32_t) max1[l]; \
	} \
	if (!level_exponent_f32(max_bits_tail_f32(x, i, len, max_bits), &k)) \
		return 0; \
	sig = (VD) {0} + level_sigma(k); \
\
	/* pass 2: one level */ \
	for (i = 0; i + 2 * lanes <= len; i += 2 * lanes) \
	{ \
		VD			xa, \
					xb, \
					ta, \
					tb; \
\
		if (i < next_len) \
			__builtin_prefetch(next + i, 0, 2); \
		LOAD_FLOATS(VD, VF, xa, x + i); \
		LOAD_FLOATS(VD, VF, xb, x + i + lanes); \
		ta = sig + xa; \
		tb = sig + xb; \
		count += (VU) ta + (VU) tb; \
		xa = xa - (ta - sig); \
		xb = xb - (tb - sig); \
		resid_bits |= (VU) xa | (VU) xb; \
	} \
	for (l = 0; l < lanes; l++) \
	{ \
		total += count[l]; \
		resid |= resid_bits[l]; \
	} \
	return finish_block_f32(x, i, len, k, total, resid, out); \
}

DEFINE_BLOCK_PASSES(portable, , v2d, v2u, v4i, v2f,
					VEC_MAX_ARITH, LOAD_FLOATS_LANES)

#if defined(__x86_64__)
DEFINE_BLOCK_PASSES(avx2, __attribute__((target("avx2"))), v4d, v4u, v8i, v4f,
					VEC_MAX_COMPARE, LOAD_FLOATS_CONVERT)
#endif

#endif							/* CPU_SUM_HAVE_FAST_PATH */

/* path choice: -1 not yet decided, 0 portable, 1 AVX2 */
static int	use_avx2 = -1;
static int	avx2_allowed = 1;

/* decide_path -- choose the vector build once per process */
static void
decide_path(void)
{
	use_avx2 = 0;
#if defined(CPU_SUM_HAVE_FAST_PATH) && defined(__x86_64__)
	__builtin_cpu_init();
	if (avx2_allowed && __builtin_cpu_supports("avx2"))
		use_avx2 = 1;
#endif
}

/* cpu_sum_exact_path -- which build of the fast pass the exact sums use */
const char *
cpu_sum_exact_path(void)
{
#ifdef CPU_SUM_HAVE_FAST_PATH
	if (use_avx2 < 0)
		decide_path();
	return use_avx2 ? "avx2" : "portable";
#else
	return "scalar";
#endif
}

/* cpu_sum_exact_allow_avx2 -- let tests force the portable build */
void
cpu_sum_exact_allow_avx2(int allow)
{
	avx2_allowed = allow;
	decide_path();
}

/*
 * sum_state -- one call of the exact sum: the fast passes of the chosen
 * build (NULL where there is none) and the headroom bookkeeping,
 * gs_acc_add() calls since the accumulator was last normalized.
 */
typedef struct sum_state
{
	gs_exact_acc *acc;
	block_f64_fn extract_f64;
	block_f32_fn extract_f32;
	uint64_t	adds;
} sum_state;

/*
 * begin_sum -- choose the build; a large call starts normalized so that
 * it never depends on headroom that the caller has used.
 */
static void
begin_sum(sum_state *st, gs_exact_acc *acc, size_t n)
{
	st->acc = acc;
	st->adds = 0;
	st->extract_f64 = NULL;
	st->extract_f32 = NULL;
#ifdef CPU_SUM_HAVE_FAST_PATH
	if (use_avx2 < 0)
		decide_path();
	st->extract_f64 = extract_block_f64_portable;
	st->extract_f32 = extract_block_f32_portable;
#if defined(__x86_64__)
	if (use_avx2)
	{
		st->extract_f64 = extract_block_f64_avx2;
		st->extract_f32 = extract_block_f32_avx2;
	}
#endif
#endif
	if (n >= CPU_SUM_NORMALIZE_N)
		gs_acc_normalize(acc);
}

/* end_sum -- a large call leaves the accumulator normalized */
static void
end_sum(sum_state *st, size_t n)
{
	if (n >= CPU_SUM_NORMALIZE_N)
		gs_acc_normalize(st->acc);
}

/* note_adds -- count gs_acc_add() calls; normalize before the limit */
static inline void
note_adds(sum_state *st, size_t adds)
{
	st->adds += adds;
	if (st->adds >= CPU_SUM_MAX_ADDS)
	{
		gs_acc_normalize(st->acc);
		st->adds = 0;
	}
}

/* block_len -- elements of the block at off, 0 past the end */
static inline size_t
block_len(size_t n, size_t off)
{
	if (off >= n)
		return 0;
	return n - off < CPU_SUM_BLOCK ? n - off : CPU_SUM_BLOCK;
}

/*
 * add_block_f64 -- one block of doubles: the fast pass, else the scalar
 * path.  A fast block costs four gs_acc_add() calls, so blocks of fewer
 * elements take the scalar path.
 */
static void
add_block_f64(sum_state *st, const double *x, size_t len,
			  const double *next, size_t next_len)
{
	block_sums	sums;

	if (st->extract_f64 != NULL && len >= 4 &&
		st->extract_f64(x, len, next, next_len, &sums))
	{
		acc_add_block_sums(st->acc, &sums);
		note_adds(st, 4);
	}
	else
	{
		acc_add_scalar_f64(st->acc, x, len);
		note_adds(st, len);
	}
}

/*
 * add_block_f32 -- one block of floats: the one-level float pass, else
 * the block converted to double and added as doubles.
 */
static void
add_block_f32(sum_state *st, const float *x, size_t len,
			  const float *next, size_t next_len)
{
	block_sums	sums;
	double		wide[CPU_SUM_BLOCK];
	size_t		i;

	if (st->extract_f32 != NULL && len >= 4 &&
		st->extract_f32(x, len, next, next_len, &sums))
	{
		acc_add_block_sums(st->acc, &sums);
		note_adds(st, 4);
		return;
	}
	for (i = 0; i < len; i++)
		wide[i] = (double) x[i];
	add_block_f64(st, wide, len, NULL, 0);
}

/*
 * cpu_sum_exact_f64 -- add the exact sum of x[0..n) into *acc.
 *
 * Uses no more of the accumulator's headroom than n gs_acc_add() calls
 * would; calls of CPU_SUM_NORMALIZE_N elements or more leave *acc
 * normalized.
 */
void
cpu_sum_exact_f64(const double *x, size_t n, gs_exact_acc *acc)
{
	sum_state	st;
	size_t		off;

	if (n < CPU_SUM_SMALL_N)
	{
		acc_add_scalar_f64(acc, x, n);
		return;
	}
	begin_sum(&st, acc, n);
	for (off = 0; off < n; off += CPU_SUM_BLOCK)
	{
		size_t		len = block_len(n, off);

		add_block_f64(&st, x + off, len, x + off + len, block_len(n, off + len));
	}
	end_sum(&st, n);
}

/*
 * cpu_sum_exact_f32 -- add the exact sum of float x[0..n) into *acc: the
 * same value as adding each element converted to double.  Headroom as for
 * cpu_sum_exact_f64.
 */
void
cpu_sum_exact_f32(const float *x, size_t n, gs_exact_acc *acc)
{
	sum_state	st;
	size_t		off;

	if (n < CPU_SUM_SMALL_N)
	{
		acc_add_scalar_f32(acc, x, n);
		return;
	}
	begin_sum(&st, acc, n);
	for (off = 0; off < n; off += CPU_SUM_BLOCK)
	{
		size_t		len = block_len(n, off);

		add_block_f32(&st, x + off, len, x + off + len, block_len(n, off + len));
	}
	end_sum(&st, n);
}

/*
 * cpu_sum_plain_f64 -- the plain loop: eight independent accumulators so
 * that the compiler can keep several additions in flight.  Not exact.
 */
double
cpu_sum_plain_f64(const double *x, size_t n)
{
	double		s0 = 0.0,
				s1 = 0.0,
				s2 = 0.0,
				s3 = 0.0,
				s4 = 0.0,
				s5 = 0.0,
				s6 = 0.0,
				s7 = 0.0;
	size_t		i;

	for (i = 0; i + 8 <= n; i += 8)
	{
		s0 += x[i];
		s1 += x[i + 1];
		s2 += x[i + 2];
		s3 += x[i + 3];
		s4 += x[i + 4];
		s5 += x[i + 5];
		s6 += x[i + 6];
		s7 += x[i + 7];
	}
	for (; i < n; i++)
		s0 += x[i];
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
}
