/*-------------------------------------------------------------------------
 *
 * scan_exact_accumulator.cuh
 *	  The exact scan's small helpers and its warp-held exact accumulator
 *	  (lane l holds limbs l, 32 + l, 64 + l).
 *
 * A part of scan_exact.cu, included by it alone: it uses that file's
 * settings, types and the parts before it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SCAN_EXACT_ACCUMULATOR_CUH
#define GPUSCAN_SCAN_EXACT_ACCUMULATOR_CUH

/* ---- small helpers ---- */

/* scx_swz -- shared-memory slot of double2 vector v of the tile (no bank conflicts) */
static __device__ __forceinline__ unsigned
scx_swz(unsigned v)
{
	return v ^ ((v >> 3) & 7);
}

/* scx_elem -- element e of the tile in shared memory */
static __device__ __forceinline__ double &
scx_elem(scx_shared &s, unsigned e)
{
	return reinterpret_cast<double *>(s.buf)[2 * scx_swz(e >> 1) + (e & 1)];
}

static __device__ __forceinline__ unsigned
scx_abs_word(double x)
{
	return (unsigned) __double2hiint(x) & 0x7fffffffu;
}

/* zero exactly for -0.0 */
static __device__ __forceinline__ unsigned
scx_zero_word(double x)
{
	return (unsigned) __double2loint(x) | ((unsigned) __double2hiint(x) ^ 0x80000000u);
}

static __device__ __forceinline__ double
scx_nan(void)
{
	return __longlong_as_double(0x7ff8000000000000LL);
}

static __device__ __forceinline__ double
scx_inf(bool negative)
{
	return __longlong_as_double(negative ? (long long) 0xfff0000000000000ULL : 0x7ff0000000000000LL);
}

/* scx_hi -- the part of v on the grid of window sigma (exact, see reduce_exact.cuh) */
static __device__ __forceinline__ double
scx_hi(double sigma, double v)
{
	return __dsub_rn(__dadd_rn(sigma, v), sigma);
}

/* scx_two_sum -- s + e == a + b exactly, s = fl(a + b) (Knuth) */
static __device__ __forceinline__ void
scx_two_sum(double a, double b, double &s, double &e)
{
	double		ss = __dadd_rn(a, b);
	double		bb = __dsub_rn(ss, a);

	e = __dadd_rn(__dsub_rn(a, __dsub_rn(ss, bb)), __dsub_rn(b, bb));
	s = ss;
}

/* scx_fast_two_sum -- the same where |a| >= |b| (Dekker) */
static __device__ __forceinline__ void
scx_fast_two_sum(double a, double b, double &s, double &e)
{
	double		ss = __dadd_rn(a, b);

	e = __dsub_rn(b, __dsub_rn(ss, a));
	s = ss;
}

/*
 * scx_gap -- the distance from h to its nearer neighbour, at least 2^-1074:
 * ulp(h), or ulp(h)/2 where |h| is a power of two (whose lower neighbour is
 * closer).  |h| (1 - 2^-53) 2^-52 falls into the binade below exactly when
 * |h| is a power of two; keeping only its exponent gives the power of two.
 * Within 2^53 ulps of the subnormals the product underflows and the result
 * is 2^-1074, no more than the true gap.  A value s with 2|s - h| < gap
 * rounds to h.
 */
static __device__ __forceinline__ double
scx_gap(double h)
{
	double		m = __dmul_rn(fabs(h), SCX_GAP_SCALE);

	m = __hiloint2double(__double2hiint(m) & 0x7ff00000, 0);
	return m > 0x1p-1074 ? m : 0x1p-1074;
}

/* scx_gap_fast -- the same without the floor: 0 within 2^53 ulps of the subnormals */
static __device__ __forceinline__ double
scx_gap_fast(double h)
{
	double		m = __dmul_rn(fabs(h), SCX_GAP_SCALE);

	return __hiloint2double(__double2hiint(m) & 0x7ff00000, 0);
}

static __device__ __forceinline__ unsigned
scx_ld_acquire(const unsigned *p)
{
	unsigned	v;

	asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

static __device__ __forceinline__ void
scx_st_release(unsigned *p, unsigned v)
{
	asm volatile("st.release.gpu.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

/*
 * scx_dd_add -- (h, l) += (h2, l2), the error bound e += e2 plus what this
 * step drops: h + l + h2 + l2 = s + t + v + d1 = s + w + d1 + d2 = h + l +
 * d1 + d2, with the dropped d1, d2 exact (TwoSum), so that e stays 0 as
 * long as every step is exact (which lets exact ties be recognized).
 */
static __device__ __forceinline__ void
scx_dd_add(double &h, double &l, double &e, double h2, double l2, double e2)
{
	double		s,
				t,
				v,
				w,
				d1,
				d2;

	scx_two_sum(h, h2, s, t);
	scx_two_sum(l, l2, v, d1);
	scx_two_sum(t, v, w, d2);
	scx_two_sum(s, w, h, l);
	e = __dadd_ru(__dadd_ru(e, e2), __dadd_ru(fabs(d1), fabs(d2)));
}

/* scx_warp_dd_sum -- every lane's (h, l, e) summed over the warp by scx_dd_add, in every lane */
static __device__ __forceinline__ void
scx_warp_dd_sum(double &h, double &l, double &e)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
	{
		double		h2 = __shfl_xor_sync(SCX_FULL, h, off);
		double		l2 = __shfl_xor_sync(SCX_FULL, l, off);
		double		e2 = __shfl_xor_sync(SCX_FULL, e, off);

		scx_dd_add(h, l, e, h2, l2, e2);
	}
}

/* ---- the warp-held exact accumulator: lane l holds limbs l, 32 + l, 64 + l ---- */

static __device__ __forceinline__ long long
scx_pick(int limb, int i, long long lo, long long mid, long long hi)
{
	return limb == i ? lo : limb == i + 1 ? mid : limb == i + 2 ? hi : 0;
}

/*
 * scx_digits -- the finite double x as signed digits lo, mid, hi at limbs
 * i, i + 1, i + 2, as gs_acc_add() splits it; false for zeros
 */
static __device__ __forceinline__ bool
scx_digits(double x, int &i, long long &lo, long long &mid, long long &hi)
{
	const uint64_t bits = (uint64_t) __double_as_longlong(x);
	uint64_t	m;
	int			pos,
				sh;

	if (!gs_split_double(bits, &m, &pos))
		return false;
	i = pos >> 5;
	sh = pos & 31;
	lo = (long long) ((m << sh) & 0xffffffffu);
	mid = (long long) ((m << sh) >> 32);
	hi = sh == 0 ? 0 : (long long) (m >> (64 - sh));
	if (bits >> 63)
	{
		lo = -lo;
		mid = -mid;
		hi = -hi;
	}
	return true;
}

/* scx_warp_add -- add the finite double x (the same in every lane), as gs_acc_add() */
static __device__ __forceinline__ void
scx_warp_add(long long &v0, long long &v1, long long &v2, double x)
{
	int			i;
	long long	lo,
				mid,
				hi;
	const int	lane = threadIdx.x & 31;

	if (!scx_digits(x, i, lo, mid, hi))
		return;
	v0 += scx_pick(lane, i, lo, mid, hi);
	v1 += scx_pick(32 + lane, i, lo, mid, hi);
	if (lane < GS_ACC_LIMBS - 64)
		v2 += scx_pick(64 + lane, i, lo, mid, hi);
}

/* scx_warp_load -- the limbs of a shared gsx_block_acc into the warp */
static __device__ __forceinline__ void
scx_warp_load(const gsx_block_acc *b, long long &v0, long long &v1, long long &v2)
{
	const int	lane = threadIdx.x & 31;

	v0 = (long long) b->limb[lane];
	v1 = (long long) b->limb[32 + lane];
	v2 = lane < GS_ACC_LIMBS - 64 ? (long long) b->limb[64 + lane] : 0;
}

/*
 * scx_warp_to_dd -- a normalized warp-held value V as ph + pl with
 * |V - ph - pl| <= pe, pe == 0 where V == ph + pl exactly.  ph is the top 53
 * bits of |V| (truncated), pl the next 53; pe one unit of pl's last bit if
 * anything is left below.  |V| >= 2^1006 gives ph = NaN, a marker that
 * sends every tile that would use it to the exact path.  All digits below
 * limb 0 are zero, so ph and pl are multiples of 2^-1074 and ldexp is exact.
 */
static __device__ void
scx_warp_to_dd(long long v0, long long v1, long long v2, double &ph, double &pl, double &pe)
{
	const int	lane = threadIdx.x & 31;
	bool		negative = __shfl_sync(SCX_FULL, v2, GS_ACC_LIMBS - 1 - 64) < 0;
	unsigned	b,
				lz,
				rest0;
	int			t = -1,
				eb,
				sticky;
	uint32_t	d4,
				d3,
				d2,
				d1,
				d0;
	unsigned __int128 big;
	uint64_t	hm,
				lm;
	bool		inexact;

	if (negative)
	{
		v0 = -v0;
		v1 = -v1;
		v2 = -v2;
		gsx_warp_normalize(v0, v1, v2);
	}
	if ((b = __ballot_sync(SCX_FULL, v2 != 0)) != 0)
		t = 64 + 31 - __clz((int) b);
	else if ((b = __ballot_sync(SCX_FULL, v1 != 0)) != 0)
		t = 32 + 31 - __clz((int) b);
	else if ((b = __ballot_sync(SCX_FULL, v0 != 0)) != 0)
		t = 31 - __clz((int) b);
	if (t < 0)
	{
		ph = pl = pe = 0.0;
		return;
	}
	if (t >= 65)
	{
		ph = scx_nan();
		pl = pe = 0.0;
		return;
	}
	d4 = (uint32_t) gsx_warp_limb(v0, v1, v2, t);
	d3 = (uint32_t) gsx_warp_limb(v0, v1, v2, t - 1);
	d2 = (uint32_t) gsx_warp_limb(v0, v1, v2, t - 2);
	d1 = (uint32_t) gsx_warp_limb(v0, v1, v2, t - 3);
	d0 = (uint32_t) gsx_warp_limb(v0, v1, v2, t - 4);
	sticky = __any_sync(SCX_FULL,
						(lane <= t - 5 && v0 != 0) ||
						(32 + lane <= t - 5 && v1 != 0) ||
						(64 + lane <= t - 5 && v2 != 0));

	/* digits t .. t-3 as 128 bits, shifted so that the leading one is bit 127 */
	big = ((unsigned __int128) d4 << 96) | ((unsigned __int128) d3 << 64) |
		((unsigned __int128) d2 << 32) | (unsigned __int128) d1;
	lz = (unsigned) __clz((int) d4);
	rest0 = d0;
	if (lz > 0)
	{
		big = (big << lz) | (unsigned __int128) (d0 >> (32 - lz));
		rest0 = d0 << lz;
	}
	hm = (uint64_t) (big >> 75);
	lm = (uint64_t) (big >> 22) & ((UINT64_C(1) << 53) - 1);
	inexact = ((uint64_t) big & ((UINT64_C(1) << 22) - 1)) != 0 || rest0 != 0 || sticky;
	/* bit 0 of big weighs 2^eb */
	eb = 32 * t - GS_ACC_BIAS - 96 - (int) lz;
	ph = ldexp((double) hm, eb + 75);
	pl = ldexp((double) lm, eb + 22);
	pe = inexact ? fmax(ldexp(1.0, eb + 22), 0x1p-1074) : 0.0;
	if (negative)
	{
		ph = -ph;
		pl = -pl;
	}
}

#endif							/* GPUSCAN_SCAN_EXACT_ACCUMULATOR_CUH */
