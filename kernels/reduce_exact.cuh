/*-------------------------------------------------------------------------
 *
 * reduce_exact.cuh
 *	  Device building blocks of the exact sum: error-free extraction of
 *	  doubles into per-warp level accumulators, a per-block fixed-point
 *	  accumulator in shared memory, and the warp-parallel normalization and
 *	  rounding of a gs_exact_acc.  CUDA-side only; reduce_exact.cu puts them
 *	  together into gsd_sum_exact_f64/_f32.
 *
 * Extraction (Rump, Ogita and Oishi, "Accurate floating-point summation",
 * ExtractScalar).  For sigma = 2^k and a double v with |v| <= 2^-M sigma:
 *
 *		q = fl(fl(sigma + v) - sigma),	r = fl(v - q)
 *
 * are exact: q + r = v, q is a multiple of 2^(k-53) (or of 2^-1074) with
 * |q| <= 2^(k-M), and |r| <= 2^(k-53).  So up to 2^M such q add up exactly
 * in a double (every partial sum is a multiple of the grid and at most
 * 2^k).  A level is one sigma and one double accumulator; level j+1 takes
 * the residuals of level j with sigma_(j+1) = 2^(k_j - 53 + M), so each
 * level covers 53 - M bits.  The residual of the last level, rarely
 * nonzero, goes to the block accumulator one digit at a time.
 *
 * A warp shares one window (sigma of level 1) so that a flush can add the
 * 32 lanes' level sums first (exact while the warp holds at most 2^M
 * terms per level, hence GSX_COUNT_MAX = 2^(M-5) per lane) and then spend
 * only a few shared-memory atomics per level.  The window is set from the
 * largest exponent of the warp's first batch, raised (after a flush) when
 * a larger value comes, and set anew after every count flush, so that it
 * follows the data.
 *
 * With M = 13 a level covers 40 bits.  Doubles go through two levels
 * always and a third when some lane of the warp needs it: every element
 * above 2^-67 times the window's top is caught.  Floats (converted
 * exactly) go through one level always (above 2^-16 times the top) and the
 * next ones on demand (2^-56, 2^-96).  Below that, and for Inf/NaN and
 * doubles from 2^1010 up (where sigma would overflow), the slow path adds
 * the element or residual to the block accumulator digit by digit.
 *
 * Fast path.  Most batches hold only normal numbers whose exponents lie
 * within a few dozen of the window's top; for them the grid argument
 * above makes some steps unnecessary (gsx_warp_summer::fast):
 *
 *	- double, exponent >= top - 27 (FAST_SPAN = GSX_LEVEL_BITS - GSX_M):
 *	  the level-1 residual r = v - q goes into level 2's accumulator as it
 *	  is, without a second extraction and without a residual test.  Level 2
 *	  (sigma_2 = 2^k2) adds multiples of 2^(k2-53), at most 2^(k2-M) each;
 *	  r is at most 2^(k1-53) = 2^(k2-M), a multiple of 2^(k1-53) (from q)
 *	  and of ulp(v) >= 2^(k2-53) (from the exponent bound).  With k2
 *	  clamped at GSX_MIN_SIGMA_EXP the grid is 2^-1075, which every double
 *	  is on, and |r| <= 2^(k1-53) < 2^(-1022-M) still.  So the level
 *	  sum stays exact under the same count limit: 5 FP64 adds per element
 *	  instead of 8, and no test.
 *	- float, exponent >= top - 16 (FAST_SPAN = GSX_LEVEL_BITS - 24): the
 *	  element itself is a multiple of level 1's grid 2^(k1-53) (ulp of a
 *	  float is 2^(E-150)) and at most 2^(k1-M), i.e. exactly what level 1
 *	  adds, so it goes into level 1's accumulator as it is: one conversion
 *	  and one FP64 add per element.
 *
 * Whether a batch qualifies is one integer maximum and minimum per element
 * and one vote per batch: max |x| below the window's top, min |x| at least
 * 2^(top - FAST_SPAN) as an exponent field (so no zero, -0.0, subnormal,
 * Inf or NaN, and the zero flags need no per-element work: every element
 * is "not -0.0").  Other batches take the general path unchanged.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_REDUCE_EXACT_CUH
#define GPUSCAN_REDUCE_EXACT_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "gpuscan_exact.h"

#define GSX_FULL_MASK	0xffffffffu
#define GSX_M			13		/* window headroom: |v| <= 2^-M sigma */
#define GSX_LEVEL_BITS	(53 - GSX_M)	/* bits one level covers (40) */
#define GSX_LEVELS		3		/* levels before the slow path */
#define GSX_COUNT_MAX	(1 << (GSX_M - 5))	/* elements per lane between flushes */
#define GSX_MIN_SIGMA_EXP (-1022)	/* at 2^-1022 a level extracts exactly */
/*
 * GSX_CHUNK, if defined, is the elements per lane of one step of the
 * general path for both types; by default gsx_type<T>::CHUNK (a tuning
 * knob: smaller steps, fewer live registers, more votes).
 */
#ifdef GSX_CHUNK
#define GSX_CHUNK_OF(TT)	GSX_CHUNK
#else
#define GSX_CHUNK_OF(TT)	TT::CHUNK
#endif

/*
 * Per-block accumulator in shared memory.  Limbs are int64 in two's
 * complement, updated with 64-bit atomics; each update is below 2^32 in
 * magnitude, so a limb takes 2^31 updates before it could overflow (the
 * launch keeps a block's share of the input below that).
 */
typedef struct gsx_block_acc
{
	unsigned long long limb[GS_ACC_LIMBS];
	unsigned long long n_nan;
	unsigned long long n_pos_inf;
	unsigned long long n_neg_inf;
} gsx_block_acc;

/* gsx_pow2 -- 2^e for GSX_MIN_SIGMA_EXP <= e <= 1023 */
static __device__ __forceinline__ double
gsx_pow2(int e)
{
	return __longlong_as_double((long long) (e + 1023) << 52);
}

/* gsx_block_acc_zero -- clear *b; all threads of the block call it */
static __device__ __forceinline__ void
gsx_block_acc_zero(gsx_block_acc *b)
{
	unsigned long long *w = (unsigned long long *) b;

	for (int i = threadIdx.x; i < (int) (sizeof(*b) / sizeof(*w)); i += blockDim.x)
		w[i] = 0;
}

/*
 * gsx_block_acc_add -- add the finite double x exactly into *b (any thread,
 * atomics): its 53-bit mantissa split over three 32-bit digits as
 * gs_acc_add() does.
 */
static __device__ __noinline__ void
gsx_block_acc_add(gsx_block_acc *b, double x)
{
	uint64_t	bits = (uint64_t) __double_as_longlong(x);
	uint64_t	m,
				lo,
				mid,
				hi;
	int			pos,
				i,
				s;

	if (!gs_split_double(bits, &m, &pos))
		return;
	i = pos >> 5;
	s = pos & 31;
	lo = (m << s) & 0xffffffffu;
	mid = (m << s) >> 32;
	hi = (s == 0) ? 0 : (m >> (64 - s));
	if (bits >> 63)
	{
		lo = 0 - lo;
		mid = 0 - mid;
		hi = 0 - hi;
	}
	if (lo)
		atomicAdd(&b->limb[i], (unsigned long long) lo);
	if (mid)
		atomicAdd(&b->limb[i + 1], (unsigned long long) mid);
	if (hi)
		atomicAdd(&b->limb[i + 2], (unsigned long long) hi);
}

/* gsx_block_acc_add_raw -- add one input exactly: counts Inf/NaN, else the value */
static __device__ __noinline__ void
gsx_block_acc_add_raw(gsx_block_acc *b, double x)
{
	uint64_t	bits = (uint64_t) __double_as_longlong(x);

	if (((bits >> 52) & 0x7ff) == 0x7ff)
	{
		if (bits & ((UINT64_C(1) << 52) - 1))
			atomicAdd(&b->n_nan, 1ULL);
		else if (bits >> 63)
			atomicAdd(&b->n_neg_inf, 1ULL);
		else
			atomicAdd(&b->n_pos_inf, 1ULL);
		return;
	}
	gsx_block_acc_add(b, x);
}

/*
 * gsx_extract -- one level: add the high part of v (on the grid of sigma)
 * to acc, return the exact residual.  __dadd_rn/__dsub_rn keep the
 * compiler from contracting or reassociating.
 */
static __device__ __forceinline__ double
gsx_extract(double sigma, double &acc, double v)
{
	double		q = __dsub_rn(__dadd_rn(sigma, v), sigma);

	acc = __dadd_rn(acc, q);
	return __dsub_rn(v, q);
}

/* gsx_residual -- the residual of gsx_extract without accumulating */
static __device__ __forceinline__ double
gsx_residual(double sigma, double v)
{
	return __dsub_rn(v, __dsub_rn(__dadd_rn(sigma, v), sigma));
}

/* gsx_nonzero -- nonzero bits of |v| (0 for +-0) */
static __device__ __forceinline__ unsigned
gsx_nonzero(double v)
{
	return (unsigned) __double2loint(v) | ((unsigned) __double2hiint(v) & 0x7fffffffu);
}

static __device__ __forceinline__ unsigned
gsx_nonzero(float v)
{
	return (unsigned) __float_as_uint(v) & 0x7fffffffu;
}

/*
 * Element types.  abs_word: the 32 bits of |x| that hold the exponent;
 * zero_word: zero iff x is -0.0; HUGE_EXP: the biased exponent from which
 * the slow path takes the element (Inf/NaN, and doubles too large for a
 * window: sigma = 2^(P+M) must stay finite).
 */
template <typename T> struct gsx_type;

template <>
struct gsx_type<double>
{
	typedef double2 vec;
	static const int VEC = 2;
	static const int EXP_SHIFT = 20;
	static const int P_BIAS = 1022;		/* |x| < 2^(max(E,1) - P_BIAS) */
	static const unsigned HUGE_EXP = 1023 + P_BIAS - GSX_M + 1;	/* 2033: sigma would overflow */
	static const int ALWAYS = 2;		/* levels run for every element */
	static const int FAST_SPAN = GSX_LEVEL_BITS - GSX_M;	/* 27: see the fast path */
	static const int CHUNK = 8;			/* general-path step (54 registers on sm_90) */

	static __device__ __forceinline__ unsigned abs_word(double x)
	{
		return (unsigned) __double2hiint(x) & 0x7fffffffu;
	}
	static __device__ __forceinline__ unsigned zero_word(double x)
	{
		return (unsigned) __double2loint(x) | ((unsigned) __double2hiint(x) ^ 0x80000000u);
	}
};

template <>
struct gsx_type<float>
{
	typedef float4 vec;
	static const int VEC = 4;
	static const int EXP_SHIFT = 23;
	static const int P_BIAS = 126;
	static const unsigned HUGE_EXP = 255;	/* only Inf/NaN */
	static const int ALWAYS = 1;
	static const int FAST_SPAN = GSX_LEVEL_BITS - 24;	/* 16: see the fast path */
	static const int CHUNK = 4;			/* general-path step (16 at once: 72 registers) */

	static __device__ __forceinline__ unsigned abs_word(float x)
	{
		return __float_as_uint(x) & 0x7fffffffu;
	}
	static __device__ __forceinline__ unsigned zero_word(float x)
	{
		return __float_as_uint(x) ^ 0x80000000u;
	}
};

/*
 * gsx_warp_summer -- one lane's share of a warp's extraction state.  All
 * members that steer control flow (window, count) are warp-uniform, and
 * every member function must be called by all 32 lanes together.  They
 * are all inlined: an out-of-line call would take the state and the
 * element arrays into local memory.
 */
template <typename T>
struct gsx_warp_summer
{
	typedef gsx_type<T> TT;

	double		sigma[GSX_LEVELS];
	double		acc[GSX_LEVELS];
	unsigned	lim;			/* elements with abs_word < lim fit the window */
	unsigned	lo_lim;			/* ... and with abs_word >= lo_lim, the fast path */
	int			ecap;			/* biased exponent cap of the window; -1: none */
	int			count;			/* elements per lane since the last flush */
	unsigned	nonneg_or;		/* nonzero once an element other than -0.0 came */
	unsigned	negz_min;		/* zero once a -0.0 came */
	gsx_block_acc *bacc;

	__device__ __forceinline__ void init(gsx_block_acc *b)
	{
#pragma unroll
		for (int j = 0; j < GSX_LEVELS; j++)
		{
			sigma[j] = 0.0;
			acc[j] = 0.0;
		}
		lim = 0;
		lo_lim = 0;
		ecap = -1;
		count = 0;
		nonneg_or = 0;
		negz_min = 0xffffffffu;
		bacc = b;
	}

	/* flush -- add the level sums into the block accumulator, exactly */
	__device__ __forceinline__ void flush()
	{
		double		mine = 0.0;
		const unsigned lane = threadIdx.x & 31;

#pragma unroll
		for (int j = 0; j < GSX_LEVELS; j++)
		{
			double		s = acc[j];

			if (__any_sync(GSX_FULL_MASK, s != 0.0))
			{
				/* all lanes share sigma[j]: the warp sum is exact */
#pragma unroll
				for (int off = 16; off > 0; off >>= 1)
					s = __dadd_rn(s, __shfl_xor_sync(GSX_FULL_MASK, s, off));
				if (lane == (unsigned) j)
					mine = s;
			}
			acc[j] = 0.0;
		}
		if (mine != 0.0)
			gsx_block_acc_add(bacc, mine);
		count = 0;
	}

	/* set_window -- window for elements of biased exponent <= e */
	__device__ __forceinline__ void set_window(int e)
	{
		int			k = (e > 1 ? e : 1) - TT::P_BIAS + GSX_M;

		ecap = e;
		lim = (unsigned) (e + 1) << TT::EXP_SHIFT;
		/* normal, and within FAST_SPAN binades of the top (the fast path) */
		lo_lim = (unsigned) (e - TT::FAST_SPAN > 1 ? e - TT::FAST_SPAN : 1) << TT::EXP_SHIFT;
#pragma unroll
		for (int j = 0; j < GSX_LEVELS; j++)
		{
			int			kj = k - j * GSX_LEVEL_BITS;

			sigma[j] = gsx_pow2(kj > GSX_MIN_SIGMA_EXP ? kj : GSX_MIN_SIGMA_EXP);
		}
	}

	/*
	 * widen -- some element of the batch lies outside the window: take
	 * Inf/NaN and huge ones to the slow path, then raise the window to the
	 * maximum of the others, flushing first.  Returns (warp-uniform)
	 * whether any lane took an element, which the levels must then skip.
	 */
	template <int E>
	__device__ __forceinline__ int widen(const T (&x)[E])
	{
		unsigned	emax = 0;
		int			taken = 0;

#pragma unroll
		for (int e = 0; e < E; e++)
		{
			unsigned	a = TT::abs_word(x[e]);

			if (a >= (TT::HUGE_EXP << TT::EXP_SHIFT))
			{
				gsx_block_acc_add_raw(bacc, (double) x[e]);
				taken = 1;
			}
			else
				emax = max(emax, a >> TT::EXP_SHIFT);
		}
		emax = __reduce_max_sync(GSX_FULL_MASK, emax);
		if ((int) emax > ecap)
		{
			if (count > 0)
				flush();
			set_window((int) emax);
		}
		return __any_sync(GSX_FULL_MASK, taken);
	}

	/* slow_residuals -- residuals left after the last level */
	template <int E>
	__device__ __forceinline__ void slow_residuals(const T (&r)[E])
	{
#pragma unroll
		for (int e = 0; e < E; e++)
			if (gsx_nonzero(r[e]))
				gsx_block_acc_add(bacc, (double) r[e]);
	}

	/*
	 * batch -- add E elements of this lane (the whole warp calls it with the
	 * same E <= GSX_COUNT_MAX).  Partial batches (Full false) pass invalid
	 * elements as +0.0 with valid false, so that they count for nothing.
	 */
	template <int E, bool Full>
	__device__ __forceinline__ void batch(T (&x)[E], bool valid)
	{
		constexpr int C = GSX_CHUNK_OF(TT);

		static_assert(E <= GSX_COUNT_MAX && (E <= C || E % C == 0), "batch size");
		if (count + E > GSX_COUNT_MAX)
		{
			flush();
			/* let the next window fit the data that comes now */
			lim = 0;
			ecap = -1;
		}
		if constexpr (Full)
		{
			/* the fast path when every lane's batch qualifies */
			unsigned	amax = 0,
						amin = 0xffffffffu;

#pragma unroll
			for (int e = 0; e < E; e++)
			{
				unsigned	a = TT::abs_word(x[e]);

				amax = max(amax, a);
				amin = min(amin, a);
			}
			if (__all_sync(GSX_FULL_MASK, amax < lim && amin >= lo_lim))
			{
				nonneg_or = 1;	/* no element is -0.0 (nor any zero) */
				count += E;
				fast<E>(x);
				return;
			}
		}
		/* the general path, C elements at a time (fewer live registers) */
		if constexpr (E > C)
		{
#pragma unroll
			for (int c = 0; c < E; c += C)
			{
				T			y[C];

#pragma unroll
				for (int e = 0; e < C; e++)
					y[e] = x[c + e];
				general<C, Full>(y, valid);
			}
		}
		else
			general<E, Full>(x, valid);
	}

	/* general -- batch's general path: any elements, count checked already */
	template <int E, bool Full>
	__device__ __forceinline__ void general(T (&x)[E], bool valid)
	{
		bool		out = false;

#pragma unroll
		for (int e = 0; e < E; e++)
			out |= TT::abs_word(x[e]) >= lim;
#pragma unroll
		for (int e = 0; e < E; e++)
		{
			unsigned	z = TT::zero_word(x[e]);

			if (Full || valid)
			{
				nonneg_or |= z;
				negz_min = min(negz_min, z);
			}
		}
		if (__any_sync(GSX_FULL_MASK, out) && widen<E>(x))
		{
			/* rare: the levels get a copy without the elements taken */
			T			y[E];

#pragma unroll
			for (int e = 0; e < E; e++)
				y[e] = TT::abs_word(x[e]) >= (TT::HUGE_EXP << TT::EXP_SHIFT) ? (T) 0 : x[e];
			count += E;
			levels<E>(y);
			return;
		}
		count += E;
		levels<E>(x);
	}

	/*
	 * fast -- E elements, all normal and inside the window, none more than
	 * FAST_SPAN binades below its top (see the header comment)
	 */
	template <int E>
	__device__ __forceinline__ void fast(const T (&x)[E])
	{
#pragma unroll
		for (int e = 0; e < E; e++)
		{
			if constexpr (TT::ALWAYS == 2)
			{
				double		v = (double) x[e];
				double		q = __dsub_rn(__dadd_rn(sigma[0], v), sigma[0]);

				acc[0] = __dadd_rn(acc[0], q);
				acc[1] = __dadd_rn(acc[1], __dsub_rn(v, q));
			}
			else
				acc[0] = __dadd_rn(acc[0], (double) x[e]);
		}
	}

	/* levels -- extract E elements (all inside the window) into the levels */
	template <int E>
	__device__ __forceinline__ void levels(T (&x)[E])
	{
		if constexpr (TT::ALWAYS == 2)
		{
			/* doubles: two levels always, the third when a lane needs it */
			unsigned	res = 0;

#pragma unroll
			for (int e = 0; e < E; e++)
			{
				double		v = (double) x[e];

				v = gsx_extract(sigma[0], acc[0], v);
				v = gsx_extract(sigma[1], acc[1], v);
				x[e] = (T) v;
				res |= gsx_nonzero(v);
			}
			if (__any_sync(GSX_FULL_MASK, res != 0))
				level3<E>(x);
		}
		else
		{
			/*
			 * floats: one level always.  A residual of a float is a float
			 * (its bits are a subset of the input's, or one rounding bit
			 * within 24 of them), so the residuals are kept as T exactly.
			 */
			unsigned	res = 0;

#pragma unroll
			for (int e = 0; e < E; e++)
			{
				double		v = gsx_extract(sigma[0], acc[0], (double) x[e]);

				res |= gsx_nonzero(v);
			}
			if (__any_sync(GSX_FULL_MASK, res != 0))
				level2<E>(x);
		}
	}

	/* level2 -- (floats) residuals of level 1 recomputed, through level 2 */
	template <int E>
	__device__ __forceinline__ void level2(T (&x)[E])
	{
		unsigned	res = 0;

#pragma unroll
		for (int e = 0; e < E; e++)
		{
			double		v = gsx_residual(sigma[0], (double) x[e]);

			v = gsx_extract(sigma[1], acc[1], v);
			x[e] = (T) v;
			res |= gsx_nonzero(x[e]);
		}
		if (__any_sync(GSX_FULL_MASK, res != 0))
			level3<E>(x);
	}

	/* level3 -- the last level on the residuals in x; the rest goes slow */
	template <int E>
	__device__ __forceinline__ void level3(T (&x)[E])
	{
		unsigned	res = 0;

#pragma unroll
		for (int e = 0; e < E; e++)
		{
			double		v = gsx_extract(sigma[2], acc[2], (double) x[e]);

			x[e] = (T) v;
			res |= gsx_nonzero(x[e]);
		}
		if (__any_sync(GSX_FULL_MASK, res != 0))
			slow_residuals<E>(x);
	}
};

/*
 * gsx_warp_normalize -- normalize a gs_exact_acc held by one warp: lane l
 * holds limbs l, 32 + l and 64 + l (v2 is 0 for l >= 3).  Each round moves
 * every carry up one limb; the nonzero carries after a round sit only just
 * above those of the round before, so at most GS_ACC_LIMBS rounds run.
 * The result equals gs_acc_normalize()'s (the normalized form is unique).
 */
static __device__ __forceinline__ void
gsx_warp_normalize(long long &v0, long long &v1, long long &v2)
{
	const int	lane = threadIdx.x & 31;

	for (int round = 0; round <= GS_ACC_LIMBS; round++)
	{
		long long	c0 = v0 >> 32;
		long long	c1 = v1 >> 32;
		long long	c2 = (lane < GS_ACC_LIMBS - 1 - 64) ? (v2 >> 32) : 0;	/* the top limb keeps its carry */
		long long	in0,
					in1,
					in2,
					top0,
					top1;

		if (!__any_sync(GSX_FULL_MASK, (c0 | c1 | c2) != 0))
			break;
		v0 &= 0xffffffffLL;
		v1 &= 0xffffffffLL;
		if (lane < GS_ACC_LIMBS - 1 - 64)
			v2 &= 0xffffffffLL;
		in0 = __shfl_up_sync(GSX_FULL_MASK, c0, 1);
		in1 = __shfl_up_sync(GSX_FULL_MASK, c1, 1);
		in2 = __shfl_up_sync(GSX_FULL_MASK, c2, 1);
		top0 = __shfl_sync(GSX_FULL_MASK, c0, 31);
		top1 = __shfl_sync(GSX_FULL_MASK, c1, 31);
		if (lane == 0)
		{
			in0 = 0;
			in1 = top0;
			in2 = top1;
		}
		v0 += in0;
		v1 += in1;
		if (lane < GS_ACC_LIMBS - 64)
			v2 += in2;
	}
}

/* gsx_warp_limb -- limb idx (warp-uniform; 0 if idx < 0) of a warp-held acc */
static __device__ __forceinline__ long long
gsx_warp_limb(long long v0, long long v1, long long v2, int idx)
{
	long long	v;

	if (idx < 0)
		return 0;
	v = (idx < 32) ? v0 : (idx < 64) ? v1 : v2;
	return __shfl_sync(GSX_FULL_MASK, v, idx & 31);
}

/*
 * gsx_warp_round -- gs_acc_round() of a normalized acc held by one warp
 * (limbs as in gsx_warp_normalize), the special counters and the zero
 * flags given.  Every lane returns the result.  Each step mirrors
 * gs_acc_round(); the top digits and the sticky bit are found with votes.
 */
static __device__ __noinline__ double
gsx_warp_round(long long v0, long long v1, long long v2,
			   unsigned long long n_nan, unsigned long long n_pos_inf,
			   unsigned long long n_neg_inf, int has_negzero, int has_nonnegzero)
{
	const int	lane = threadIdx.x & 31;
	int			negative,
				t,
				shift,
				exp2,
				sticky;
	unsigned	b;
	uint64_t	top,
				w,
				mant,
				rbits,
				dt,
				dt1;
	uint32_t	lo;

	if (n_nan > 0 || (n_pos_inf > 0 && n_neg_inf > 0))
		return __longlong_as_double(0x7ff8000000000000LL);
	if (n_pos_inf > 0)
		return __longlong_as_double(0x7ff0000000000000LL);
	if (n_neg_inf > 0)
		return __longlong_as_double((long long) 0xfff0000000000000ULL);

	negative = __shfl_sync(GSX_FULL_MASK, v2, GS_ACC_LIMBS - 1 - 64) < 0;
	if (negative)
	{
		v0 = -v0;
		v1 = -v1;
		v2 = -v2;
		gsx_warp_normalize(v0, v1, v2);
	}

	/* most significant nonzero digit */
	t = -1;
	if ((b = __ballot_sync(GSX_FULL_MASK, v2 != 0)) != 0)
		t = 64 + 31 - __clz((int) b);
	else if ((b = __ballot_sync(GSX_FULL_MASK, v1 != 0)) != 0)
		t = 32 + 31 - __clz((int) b);
	else if ((b = __ballot_sync(GSX_FULL_MASK, v0 != 0)) != 0)
		t = 31 - __clz((int) b);
	if (t < 0)
		return (has_negzero && !has_nonnegzero) ? -0.0 : 0.0;
	if (t == GS_ACC_LIMBS - 1)
		return negative ? __longlong_as_double((long long) 0xfff0000000000000ULL)
			: __longlong_as_double(0x7ff0000000000000LL);

	dt = (uint64_t) gsx_warp_limb(v0, v1, v2, t);
	dt1 = (uint64_t) gsx_warp_limb(v0, v1, v2, t - 1);
	lo = (uint32_t) gsx_warp_limb(v0, v1, v2, t - 2);
	sticky = __any_sync(GSX_FULL_MASK,
						(lane <= t - 3 && v0 != 0) ||
						(32 + lane <= t - 3 && v1 != 0) ||
						(64 + lane <= t - 3 && v2 != 0));

	if (t <= 1)
	{
		/* below 2^(64-1074): every such value is a double exactly */
		uint64_t	v = (t == 1) ? ((dt << 32) | dt1) : dt;

		if (v < (UINT64_C(1) << 53))
			return negative ? -ldexp((double) v, -GS_ACC_BIAS) : ldexp((double) v, -GS_ACC_BIAS);
	}

	/* top 96 bits: digits t, t-1, t-2; sticky for the rest */
	top = (dt << 32) | dt1;
	shift = __clzll((long long) top);	/* 0..31, since digit t is nonzero */
	if (shift == 0)
	{
		w = top;
		if (lo)
			sticky = 1;
	}
	else
	{
		w = (top << shift) | ((uint64_t) lo >> (32 - shift));
		if ((uint32_t) (lo << shift))
			sticky = 1;
	}
	exp2 = 32 * (t - 1) - GS_ACC_BIAS - shift;

	/* round w to 53 bits, nearest, ties to even */
	mant = w >> 11;
	rbits = w & 0x7ff;
	if (rbits > 0x400 || (rbits == 0x400 && (sticky || (mant & 1))))
		mant++;
	{
		double		r = ldexp((double) mant, exp2 + 11);

		return negative ? -r : r;
	}
}

/*
 * gsx_block_finish -- end of a block: publish the block accumulator into
 * *acc with global atomics, and let the last block to finish normalize
 * *acc and write its rounding to *result (if not NULL).  All threads of
 * the block call it.  *done counts finished blocks and is reset by the
 * last one, so kernels using the same counter must not run concurrently
 * (each thread has its own: gsd_block_counter).
 */
static __device__ __forceinline__ void
gsx_block_finish(gsx_block_acc *bacc, int lane_negzero, int lane_nonnegzero,
				 gs_exact_acc *acc, double *result, unsigned int *done)
{
	__shared__ int is_last;
	const int	tid = threadIdx.x;
	int			any_negzero,
				any_nonnegzero;

	/* flushes into bacc are complete after this barrier */
	any_negzero = __syncthreads_or(lane_negzero);
	any_nonnegzero = __syncthreads_or(lane_nonnegzero);

	if (tid < GS_ACC_LIMBS)
	{
		/*
		 * One carry step first, so that what a block adds to a limb of *acc
		 * is below 2^33 in magnitude whatever the block summed.
		 */
		long long	v = (long long) bacc->limb[tid];
		long long	below = tid > 0 ? ((long long) bacc->limb[tid - 1] >> 32) : 0;
		long long	add = (tid == GS_ACC_LIMBS - 1) ? v + below : (v & 0xffffffffLL) + below;

		if (add != 0)
			atomicAdd((unsigned long long *) &acc->limb[tid], (unsigned long long) add);
	}
	if (tid == 0)
	{
		if (bacc->n_nan)
			atomicAdd((unsigned long long *) &acc->n_nan, bacc->n_nan);
		if (bacc->n_pos_inf)
			atomicAdd((unsigned long long *) &acc->n_pos_inf, bacc->n_pos_inf);
		if (bacc->n_neg_inf)
			atomicAdd((unsigned long long *) &acc->n_neg_inf, bacc->n_neg_inf);
		if (any_negzero)
			atomicOr((unsigned long long *) &acc->has_negzero, 1ULL);
		if (any_nonnegzero)
			atomicOr((unsigned long long *) &acc->has_nonnegzero, 1ULL);
	}
	__threadfence();
	__syncthreads();
	if (tid == 0)
		is_last = atomicAdd(done, 1u) == gridDim.x - 1;
	__syncthreads();
	if (!is_last || tid >= 32)
		return;

	/* the last block: every other block's atomics are visible now */
	__threadfence();
	{
		const int	lane = tid;
		long long	v0 = __ldcg(&acc->limb[lane]);
		long long	v1 = __ldcg(&acc->limb[32 + lane]);
		long long	v2 = (lane < GS_ACC_LIMBS - 64) ? __ldcg(&acc->limb[64 + lane]) : 0;

		gsx_warp_normalize(v0, v1, v2);
		acc->limb[lane] = v0;
		acc->limb[32 + lane] = v1;
		if (lane < GS_ACC_LIMBS - 64)
			acc->limb[64 + lane] = v2;
		if (result != NULL)
		{
			double		r = gsx_warp_round(v0, v1, v2,
										   __ldcg((const unsigned long long *) &acc->n_nan),
										   __ldcg((const unsigned long long *) &acc->n_pos_inf),
										   __ldcg((const unsigned long long *) &acc->n_neg_inf),
										   __ldcg((const unsigned long long *) &acc->has_negzero) != 0,
										   __ldcg((const unsigned long long *) &acc->has_nonnegzero) != 0);

			if (lane == 0)
				*result = r;
		}
		if (lane == 0)
			*done = 0;
	}
}

#endif							/* GPUSCAN_REDUCE_EXACT_CUH */
