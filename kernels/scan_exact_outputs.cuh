/*-------------------------------------------------------------------------
 *
 * scan_exact_outputs.cuh
 *	  The exact scan's outputs: a prefix rounded from the fast sums where
 *	  that is proved right, from the exact accumulator where not.
 *
 * A part of scan_exact.cu, included by it alone: it uses that file's
 * settings, types and the parts before it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SCAN_EXACT_OUTPUTS_CUH
#define GPUSCAN_SCAN_EXACT_OUTPUTS_CUH

/* ---- the outputs ---- */

/* scx_residual -- (a + b) - s exactly, for s = fl(a + b) (TwoSum's error term) */
static __device__ __forceinline__ double
scx_residual(double a, double b, double s)
{
	double		bb = __dsub_rn(s, a);

	return __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb));
}

/*
 * scx_round_fast -- try the prefix S = C + a1 + a2 + a3 (carry C = CH + CL +
 * eps, |eps| <= CE).  (h1, e) = TwoSum(CH, a1); t = fl(e + CL);
 * l = fl(t + a2 (+ a3)); h = fl(h1 + l), and with |l| <= |h1| FastTwoSum
 * gives lo = h1 + l - h exactly.  Then S = h + lo + d, |d| <= u (|t| + |l|
 * (+ |l'|)) + CE <= B, a bound computed once per tile from the level windows
 * (b2 = 2B), and 2 |lo| + 2B < gap(h) proves that h is S rounded: returns 1.
 * That never accepts h == 0 (gap_fast(0) == 0), nor an h within 2^53 ulps
 * of the subnormals.
 *
 * Where it fails (a near-tie, a tiny or zero result, cancellation), the
 * roundings of t and l are computed exactly: if they and CE are all zero,
 * S == h1 + l exactly and h = fl(h1 + l) is S rounded, ties included;
 * otherwise their actual size replaces the bound.  Returns 2 when accepted
 * so (h may then be zero), 0 when not.
 */
template <int NLEV>
static __device__ __forceinline__ int
scx_round_fast(double a1, double a2, double a3, double ch, double cl, double b2, double ce2,
			   double &out)
{
	double		h1,
				e,
				t,
				l1,
				l,
				h,
				lo;
	bool		f2s;

	scx_two_sum(ch, a1, h1, e);
	t = __dadd_rn(e, cl);
	l1 = __dadd_rn(t, a2);
	l = NLEV == 3 ? __dadd_rn(l1, a3) : l1;
	scx_fast_two_sum(h1, l, h, lo);
	out = h;
	f2s = fabs(l) <= fabs(h1);
	/* & rather than &&: no branch */
	if (f2s & (__fma_ru(fabs(lo), 2.0, b2) < scx_gap_fast(h)))
		return 1;
	{
		double		d = __dadd_ru(fabs(scx_residual(e, cl, t)), fabs(scx_residual(t, a2, l1)));

		if (NLEV == 3)
			d = __dadd_ru(d, fabs(scx_residual(l1, a3, l)));
		if (d == 0.0 && ce2 == 0.0)
			return 2;
		return (f2s && __fma_ru(fabs(lo), 2.0, __fma_ru(d, 2.0, ce2)) < scx_gap(h)) ? 2 : 0;
	}
}

/*
 * scx_round_careful -- the same prefix through error-free transformations
 * only: S = h + L + g0 + g1 + g3 + eps exactly.  Where the tails g and the
 * carry's error are all zero, S == s2 + e3 exactly and h = fl(s2 + e3) is S
 * rounded, ties included; otherwise the bound decides.
 */
template <int NLEV>
static __device__ __forceinline__ bool
scx_round_careful(double a1, double a2, double a3, double ch, double cl, double ce2, double &out)
{
	double		ah,
				al,
				g0 = 0.0,
				s,
				e,
				t,
				f,
				e1,
				g1,
				s2,
				e2,
				e3,
				g3,
				h,
				lo,
				tail;

	scx_two_sum(a1, a2, ah, al);
	if (NLEV == 3)
	{
		double		al3;

		scx_two_sum(al, a3, al3, g0);
		al = al3;
	}
	scx_two_sum(ch, ah, s, e);
	scx_two_sum(cl, al, t, f);
	scx_two_sum(e, t, e1, g1);
	scx_two_sum(s, e1, s2, e2);
	scx_two_sum(e2, f, e3, g3);
	scx_two_sum(s2, e3, h, lo);
	out = h;
	tail = __dadd_ru(__dadd_ru(fabs(g0), fabs(g1)), fabs(g3));
	if (tail == 0.0 && ce2 == 0.0)
		return true;
	return __fma_ru(fabs(lo), 2.0, __fma_ru(tail, 2.0, ce2)) < scx_gap(h);
}

/*
 * scx_zero -- an exact zero prefix ending at tile position qi: -0 where
 * every input so far is -0 (at or after the first -0, before the first
 * other input), else +0
 */
static __device__ __forceinline__ double
scx_zero(const scx_ctx &c, int qi)
{
	return (qi >= c.f_negz && qi < c.f_nonneg) ? -0.0 : 0.0;
}

/* scx_wait_carry -- wait until warp 0 has the exact carry in s.cacc */
static __device__ __forceinline__ void
scx_wait_carry(const scx_shared *s)
{
	while (s->cacc_ready == 0)
		;
	__threadfence_block();
}

/*
 * scx_exact_outputs -- the outputs of the lanes with ok false, exactly: the
 * warp adds each such lane's a1, a2, a3 to the carry's digits, normalizes
 * and rounds.  All lanes call it together.
 */
static __device__ __noinline__ double
scx_exact_outputs(const scx_shared *s, int f_negz, int f_nonneg, bool ok, double out,
				  int qi, double a1, double a2, double a3)
{
	const int	lane = threadIdx.x & 31;
	unsigned	m = __ballot_sync(SCX_FULL, !ok);

	scx_wait_carry(s);
	while (m != 0)
	{
		const int	src = __ffs((int) m) - 1;
		double		b1 = __shfl_sync(SCX_FULL, a1, src);
		double		b2 = __shfl_sync(SCX_FULL, a2, src);
		double		b3 = __shfl_sync(SCX_FULL, a3, src);
		int			qs = __shfl_sync(SCX_FULL, qi, src);
		long long	v0,
					v1,
					v2;
		double		r;

		m &= m - 1;
		scx_warp_load(&s->cacc, v0, v1, v2);
		scx_warp_add(v0, v1, v2, b1);
		scx_warp_add(v0, v1, v2, b2);
		scx_warp_add(v0, v1, v2, b3);
		gsx_warp_normalize(v0, v1, v2);
		r = gsx_warp_round(v0, v1, v2, 0, 0, 0, qs >= f_negz, qs >= f_nonneg);
		if (lane == src)
			out = r;
	}
	return out;
}

/*
 * scx_output -- the output at tile position p of an element x whose prefix
 * before it, within the tile, is a1 + a2 + a3 (advanced past x on return).
 * All lanes call it together.  EXACT: an output that the fast and careful
 * paths cannot prove is computed exactly from the carry's digits; else
 * (the fast kernel, which has no digits) it only sets *failed.
 */
template <int NLEV, bool EXCL, bool MASK, bool EXACT>
static __device__ __forceinline__ double
scx_output(const scx_shared &s, const scx_ctx &c, double x, int p,
		   double &a1, double &a2, double &a3, scx_pstat &ps, bool &failed)
{
	const int	qi = EXCL ? p - 1 : p;	/* the prefix ends at qi */
	double		q1,
				q2,
				q3 = 0.0,
				r1,
				out;
	int			how;
	bool		ok;

	if (MASK && scx_abs_word(x) >= SCX_SPECIAL_ABS)
		x = 0.0;
	q1 = scx_hi(c.sg1, x);
	r1 = __dsub_rn(x, q1);
	/* with two levels, every element's r1 is on the second grid already */
	q2 = NLEV == 3 ? scx_hi(c.sg2, r1) : r1;
	if (NLEV == 3)
		q3 = scx_hi(c.sg3, __dsub_rn(r1, q2));
	if (!EXCL)
	{
		a1 = __dadd_rn(a1, q1);
		a2 = __dadd_rn(a2, q2);
		if (NLEV == 3)
			a3 = __dadd_rn(a3, q3);
	}

	how = scx_round_fast<NLEV>(a1, a2, a3, c.ch, c.cl, c.b2, c.ce2, out);
	ok = how == 1;
	SCXP_INC(ps, n_out);
	if (!ok)
	{
		/* rare: a second look; the sign of an exact zero */
		ok = how == 2 || scx_round_careful<NLEV>(a1, a2, a3, c.ch, c.cl, c.ce2, out);
#ifdef SCX_PROFILE
		if (how == 2)
			ps.n_fast2++;
		else if (ok)
			ps.n_careful++;
#endif
		if (ok && out == 0.0)
			out = scx_zero(c, qi);
	}
	if (c.special && qi >= c.sp_any)
	{
		out = qi >= c.sp_nan ? scx_nan() : scx_inf(qi < c.f_pinf);
		ok = true;
	}
	if (c.partial && (p < c.lo || p >= c.hi))
		ok = true;
	if (!EXACT)
		failed |= !ok;
	else if (__any_sync(SCX_FULL, !ok))
	{
#ifdef SCX_PROFILE
		if (!ok)
			ps.n_exact++;
		ps.n_calls++;
#endif
		out = scx_exact_outputs(&s, c.f_negz, c.f_nonneg, ok, out, qi, a1, a2, a3);
	}

	if (EXCL)
	{
		a1 = __dadd_rn(a1, q1);
		a2 = __dadd_rn(a2, q2);
		if (NLEV == 3)
			a3 = __dadd_rn(a3, q3);
	}
	return out;
}

#if SCX_SPLIT_OUT
/*
 * scx_outputs_w0 -- (SCX_SPLIT_OUT; warps 1..SCX_SPLIT_WARPS together) the
 * outputs of warp 0's elements: lane k = 32 (warp - 1) + lane takes quarter
 * r = k % 4 of warp 0's thread t = k / 4, its elements 16 t + 4 r .. + 3.
 * The quarter's exclusive prefix is thread t's a1, a2, a3 plus the level
 * parts of the 4 r elements before it, split as scx_output splits them:
 * every partial sum of level parts within the tile is exact, so this is the
 * very value thread t would carry there.  All lanes of the warp call it.
 */
template <int NLEV, bool EXCL, bool MASK>
static __device__ __forceinline__ void
scx_outputs_w0(scx_shared &s, const scx_ctx &c, scx_pstat &ps)
{
	const unsigned k = threadIdx.x - 32;
	const unsigned t = k >> 2;
	const int	r = (int) (k & 3);
	const int	base = SCX_ITEMS * (int) t;
	double		a1 = s.a0[t][0],
				a2 = s.a0[t][1],
				a3 = s.a0[t][2];

	for (int i = 0; i < 4 * r; i++)
	{
		double		x = scx_elem(s, (unsigned) (base + i)),
					q1,
					r1;

		if (MASK && scx_abs_word(x) >= SCX_SPECIAL_ABS)
			x = 0.0;
		q1 = scx_hi(c.sg1, x);
		r1 = __dsub_rn(x, q1);
		a1 = __dadd_rn(a1, q1);
		if (NLEV == 3)
		{
			double		q2 = scx_hi(c.sg2, r1);

			a2 = __dadd_rn(a2, q2);
			a3 = __dadd_rn(a3, scx_hi(c.sg3, __dsub_rn(r1, q2)));
		}
		else
			a2 = __dadd_rn(a2, r1);
	}
	/* the lanes of quarters before this one overwrite what was just read */
	__syncwarp();
#pragma unroll 1
	for (int u = 0; u < 2; u++)
	{
		const unsigned v = scx_swz(SCX_PAIRS * t + 2 * r + u);
		const int	p = base + 4 * r + 2 * u;
		double2		x = s.buf[v];
		bool		unused = false;
		double		o0 = scx_output<NLEV, EXCL, MASK, true>(s, c, x.x, p, a1, a2, a3, ps, unused);
		double		o1 = scx_output<NLEV, EXCL, MASK, true>(s, c, x.y, p + 1, a1, a2, a3, ps, unused);

		s.buf[v] = make_double2(o0, o1);
	}
}
#endif

/*
 * scx_outputs -- a thread's outputs, in place of its elements in shared
 * memory (EXACT: see scx_output; else s.fail is set where one failed)
 */
template <int NLEV, bool EXCL, bool MASK, bool EXACT>
static __device__ __forceinline__ void
scx_outputs(scx_shared &s, const scx_ctx &c, double a1, double a2, double a3)
{
	const unsigned tid = threadIdx.x;
	scx_pstat	ps;
	bool		failed = false;

#ifdef SCX_PROFILE
	ps.n_out = ps.n_fast2 = ps.n_careful = ps.n_exact = ps.n_calls = 0;
#endif

#pragma unroll 1
	for (int u = 0; u < SCX_PAIRS; u++)
	{
		const unsigned v = scx_swz(SCX_PAIRS * tid + u);
		const int	p = SCX_ITEMS * (int) tid + 2 * u;
		double2		x = s.buf[v];
		double		o0 = scx_output<NLEV, EXCL, MASK, EXACT>(s, c, x.x, p, a1, a2, a3, ps, failed);
		double		o1 = scx_output<NLEV, EXCL, MASK, EXACT>(s, c, x.y, p + 1, a1, a2, a3, ps, failed);

		s.buf[v] = make_double2(o0, o1);
	}
#if SCX_SPLIT_OUT
	if (EXACT && (tid >> 5) >= 1 && (tid >> 5) <= SCX_SPLIT_WARPS)
		scx_outputs_w0<NLEV, EXCL, MASK>(s, c, ps);
#endif
	if (!EXACT && __any_sync(SCX_FULL, failed) && (tid & 31) == 0)
		s.fail = 1;
#ifdef SCX_PROFILE
	{
		unsigned	n_out = __reduce_add_sync(SCX_FULL, ps.n_out);
		unsigned	n_fast2 = __reduce_add_sync(SCX_FULL, ps.n_fast2);
		unsigned	n_careful = __reduce_add_sync(SCX_FULL, ps.n_careful);
		unsigned	n_exact = __reduce_add_sync(SCX_FULL, ps.n_exact);

		if ((tid & 31) == 0)
		{
			SCXP_ADD(SCXP_N_OUT, n_out);
			if (n_fast2)
				SCXP_ADD(SCXP_N_FAST2, n_fast2);
			if (n_careful)
				SCXP_ADD(SCXP_N_CAREFUL, n_careful);
			if (n_exact)
				SCXP_ADD(SCXP_N_EXACT, n_exact);
			if (ps.n_calls)
				SCXP_ADD(SCXP_N_EXACT_CALLS, ps.n_calls);
		}
	}
#endif
}

/*
 * scx_round_plain -- scx_round_fast's first test for two levels where
 * |CH| >= |a1| is known (the carry is at least sg1, which bounds every a1
 * of the tile), so that Dekker's FastTwoSum gives the same (h1, e) as
 * TwoSum: true where h is proved to be S rounded (out = h either way)
 */
static __device__ __forceinline__ bool
scx_round_plain(double a1, double a2, double ch, double cl, double b2, double &out)
{
	double		h1,
				e,
				l,
				h,
				lo;

	scx_fast_two_sum(ch, a1, h1, e);
	l = __dadd_rn(__dadd_rn(e, cl), a2);
	scx_fast_two_sum(h1, l, h, lo);
	out = h;
	return (fabs(l) <= fabs(h1)) & (__fma_ru(fabs(lo), 2.0, b2) < scx_gap_fast(h));
}

/*
 * scx_retry_plain -- (rare) an output scx_round_plain could not prove, as
 * scx_output takes it after its first test: the residuals' second look,
 * the careful path, the sign of an exact zero.  False where none proves it.
 */
static __device__ __forceinline__ bool
scx_retry_plain(const scx_ctx &c, double a1, double a2, int qi, double &out)
{
	const int	how = scx_round_fast<2>(a1, a2, 0.0, c.ch, c.cl, c.b2, c.ce2, out);
	const bool	ok = how != 0 || scx_round_careful<2>(a1, a2, 0.0, c.ch, c.cl, c.ce2, out);

	if (ok && out == 0.0)
		out = scx_zero(c, qi);
	return ok;
}

/*
 * scx_outputs_plain -- (fast kernel) scx_outputs for the common tile: two
 * levels, no Inf or NaN in it or its carry, all of it in the input, and a
 * carry of at least sg1.  The same outputs with less work per element: no
 * third level (r1 is the second level part), FastTwoSums, no per-element
 * checks of specials or bounds, and one rare-path branch per pair.
 */
template <bool EXCL>
static __device__ __forceinline__ void
scx_outputs_plain(scx_shared &s, const scx_ctx &c, double a1, double a2)
{
	const unsigned tid = threadIdx.x;
	bool		failed = false;

#pragma unroll 1
	for (int u = 0; u < SCX_PAIRS; u++)
	{
		const unsigned v = scx_swz(SCX_PAIRS * tid + u);
		const int	p = SCX_ITEMS * (int) tid + 2 * u;
		const double2 x = s.buf[v];
		const double q1x = scx_hi(c.sg1, x.x),
					q1y = scx_hi(c.sg1, x.y);
		double		b1,
					b2,
					d1,
					d2,
					o0,
					o1;
		bool		ok0,
					ok1;

		/* (b1, b2): the first output's prefix, (d1, d2): the second's */
		if (EXCL)
		{
			b1 = a1;
			b2 = a2;
			d1 = __dadd_rn(a1, q1x);
			d2 = __dadd_rn(a2, __dsub_rn(x.x, q1x));
			a1 = __dadd_rn(d1, q1y);
			a2 = __dadd_rn(d2, __dsub_rn(x.y, q1y));
		}
		else
		{
			b1 = __dadd_rn(a1, q1x);
			b2 = __dadd_rn(a2, __dsub_rn(x.x, q1x));
			d1 = a1 = __dadd_rn(b1, q1y);
			d2 = a2 = __dadd_rn(b2, __dsub_rn(x.y, q1y));
		}
		ok0 = scx_round_plain(b1, b2, c.ch, c.cl, c.b2, o0);
		ok1 = scx_round_plain(d1, d2, c.ch, c.cl, c.b2, o1);
		if (!(ok0 & ok1))
		{
			if (!ok0)
				ok0 = scx_retry_plain(c, b1, b2, EXCL ? p - 1 : p, o0);
			if (!ok1)
				ok1 = scx_retry_plain(c, d1, d2, EXCL ? p : p + 1, o1);
			failed |= !(ok0 & ok1);
		}
		s.buf[v] = make_double2(o0, o1);
	}
#ifdef SCX_PROFILE
	if ((tid & 31) == 0)
		SCXP_ADD(SCXP_N_OUT, 32 * SCX_ITEMS);
#endif
	if (__any_sync(SCX_FULL, failed) && (tid & 31) == 0)
		s.fail = 1;
}

/*
 * scx_walk -- the exact path: warp w's outputs, one element after the
 * other, from the carry plus the exact sums of warps 0..w-1.  f_* are the
 * first tile positions of each kind (-1: already in the carry).
 */
template <bool EXCL>
static __device__ __noinline__ void
scx_walk(scx_shared *s, int lo, int hi, int f_nan, int f_pinf, int f_ninf,
		 int f_negz, int f_nonneg)
{
	const int	lane = threadIdx.x & 31;
	const int	warp = threadIdx.x >> 5;
	const int	base = warp * SCX_WARP_ELEMS;
	long long	v0,
				v1,
				v2;
	int			nan,
				pinf,
				ninf,
				negz,
				nonneg;

	scx_wait_carry(s);
	scx_warp_load(&s->cacc, v0, v1, v2);
	for (int w = 0; w < warp; w++)
	{
		long long	w0,
					w1,
					w2;

		scx_warp_load(&s->wacc[w], w0, w1, w2);
		v0 += w0;
		v1 += w1;
		v2 += w2;
	}
	gsx_warp_normalize(v0, v1, v2);
	nan = base - 1 >= f_nan;
	pinf = base - 1 >= f_pinf;
	ninf = base - 1 >= f_ninf;
	negz = base - 1 >= f_negz;
	nonneg = base - 1 >= f_nonneg;

	for (int p = base; p < base + SCX_WARP_ELEMS; p++)
	{
		double		x,
					r = 0.0;
		uint64_t	bits;

		if (p < lo || p >= hi)
			continue;
		x = scx_elem(*s, (unsigned) p);
		bits = (uint64_t) __double_as_longlong(x);
		if (EXCL)
			r = gsx_warp_round(v0, v1, v2, nan, pinf, ninf, negz, nonneg);
		if (bits == UINT64_C(0x8000000000000000))
			negz = 1;
		else
			nonneg = 1;
		if (scx_abs_word(x) >= SCX_SPECIAL_ABS)
		{
			if (bits & ((UINT64_C(1) << 52) - 1))
				nan = 1;
			else if (bits >> 63)
				ninf = 1;
			else
				pinf = 1;
		}
		else if (x != 0.0)
		{
			scx_warp_add(v0, v1, v2, x);
			gsx_warp_normalize(v0, v1, v2);
		}
		if (!EXCL)
			r = gsx_warp_round(v0, v1, v2, nan, pinf, ninf, negz, nonneg);
		__syncwarp();
		if (lane == 0)
			scx_elem(*s, (unsigned) p) = r;
		__syncwarp();
	}
}

#endif							/* GPUSCAN_SCAN_EXACT_OUTPUTS_CUH */
