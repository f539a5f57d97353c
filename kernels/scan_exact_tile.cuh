/*-------------------------------------------------------------------------
 *
 * scan_exact_tile.cuh
 *	  The exact scan's tile phases, and a tile's first steps, which both
 *	  kernels share.
 *
 * A part of scan_exact.cu, included by it alone: it uses that file's
 * settings, types and the parts before it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SCAN_EXACT_TILE_CUH
#define GPUSCAN_SCAN_EXACT_TILE_CUH

/* ---- tile phases ---- */

/* scx_load -- the tile into shared memory as doubles; per-thread max |x| word and min zero word */
template <typename T>
static __device__ __forceinline__ void
scx_load(const scx_params &p, long long vbase, bool full, int lo, int hi, scx_shared &s,
		 unsigned &amax, unsigned &amin, unsigned &zmin)
{
	const unsigned tid = threadIdx.x;
	const unsigned lane = tid & 31;
	const unsigned warp = tid >> 5;

	amax = 0;
	amin = 0xffffffffu;
	zmin = 0xffffffffu;
	if (full)
	{
		if constexpr (sizeof(T) == 8)
		{
			const double2 *src = reinterpret_cast<const double2 *>(p.in) + vbase / 2;
			double2		v[SCX_PAIRS];

#pragma unroll
			for (int u = 0; u < SCX_PAIRS; u++)
				v[u] = __ldcs(src + warp * (32 * SCX_PAIRS) + u * 32 + lane);
#pragma unroll
			for (int u = 0; u < SCX_PAIRS; u++)
			{
				amax = max(amax, max(scx_abs_word(v[u].x), scx_abs_word(v[u].y)));
				amin = min(amin, min(scx_abs_word(v[u].x), scx_abs_word(v[u].y)));
				zmin = min(zmin, min(scx_zero_word(v[u].x), scx_zero_word(v[u].y)));
				s.buf[scx_swz(warp * (32 * SCX_PAIRS) + u * 32 + lane)] = v[u];
			}
		}
		else
		{
			const float4 *src = reinterpret_cast<const float4 *>(p.in) + vbase / 4;
			float4		v[SCX_ITEMS / 4];

#pragma unroll
			for (int u = 0; u < SCX_ITEMS / 4; u++)
				v[u] = __ldcs(src + warp * (32 * SCX_ITEMS / 4) + u * 32 + lane);
#pragma unroll
			for (int u = 0; u < SCX_ITEMS / 4; u++)
			{
				const unsigned g = warp * (32 * SCX_ITEMS / 4) + u * 32 + lane;
				double2		d01 = make_double2((double) v[u].x, (double) v[u].y);
				double2		d23 = make_double2((double) v[u].z, (double) v[u].w);

				amax = max(amax, max(max(scx_abs_word(d01.x), scx_abs_word(d01.y)),
									 max(scx_abs_word(d23.x), scx_abs_word(d23.y))));
				amin = min(amin, min(min(scx_abs_word(d01.x), scx_abs_word(d01.y)),
									 min(scx_abs_word(d23.x), scx_abs_word(d23.y))));
				zmin = min(zmin, min(min(scx_zero_word(d01.x), scx_zero_word(d01.y)),
									 min(scx_zero_word(d23.x), scx_zero_word(d23.y))));
				s.buf[scx_swz(2 * g)] = d01;
				s.buf[scx_swz(2 * g + 1)] = d23;
			}
		}
	}
	else
	{
		const T    *src = reinterpret_cast<const T *>(p.in) + vbase;

		for (int k = 0; k < SCX_ITEMS; k++)
		{
			const int	e = k * SCX_BLOCK + (int) tid;
			double		x = 0.0;

			if (e >= lo && e < hi)
				x = (double) src[e];
			amax = max(amax, scx_abs_word(x));
			amin = min(amin, scx_abs_word(x));
			zmin = min(zmin, scx_zero_word(x));
			scx_elem(s, (unsigned) e) = x;
		}
	}
}

/* scx_store -- the outputs from shared memory to d_out */
static __device__ __forceinline__ void
scx_store(const scx_params &p, long long vbase, bool full, int lo, int hi, scx_shared &s)
{
	const unsigned tid = threadIdx.x;
	const unsigned lane = tid & 31;
	const unsigned warp = tid >> 5;

	if (full && p.out_vec)
	{
		double2    *dst = reinterpret_cast<double2 *>(p.out + (vbase - (long long) p.shift));

#pragma unroll
		for (int u = 0; u < SCX_PAIRS; u++)
		{
			const unsigned v = warp * (32 * SCX_PAIRS) + u * 32 + lane;

			__stcs(dst + v, s.buf[scx_swz(v)]);
		}
	}
	else
	{
		double	   *dst = p.out + (vbase - (long long) p.shift);

#pragma unroll 4
		for (int k = 0; k < SCX_ITEMS; k++)
		{
			const int	e = k * SCX_BLOCK + (int) tid;

			if (e >= lo && e < hi)
				__stcs(dst + e, scx_elem(s, (unsigned) e));
		}
	}
}

/*
 * scx_levels -- the level pass over a thread's elements: level sums t1, t2
 * (and t3 where some element needs it), whether some element leaves a
 * residual after two levels (res2) or three (res3).  MASK: elements of
 * abs word >= SCX_HUGE_ABS count as zero (the exact path takes them).
 * TWO: every element is known to fit two levels (see scx_front), so that
 * r1 is its second level part and there is no residual to look for.
 */
template <bool MASK, bool TWO>
static __device__ __forceinline__ void
scx_levels(scx_shared &s, double sg1, double sg2, double sg3,
		   double &t1, double &t2, double &t3, bool &res2, bool &res3)
{
	const unsigned tid = threadIdx.x;
	unsigned	nz2 = 0,
				nz3 = 0;

	t1 = t2 = t3 = 0.0;
#pragma unroll
	for (int u = 0; u < SCX_PAIRS; u++)
	{
		double2		x = s.buf[scx_swz(SCX_PAIRS * tid + u)];
		double		xs[2] = {x.x, x.y};

#pragma unroll
		for (int h = 0; h < 2; h++)
		{
			double		v = xs[h],
						q1,
						q2,
						r1;

			if (MASK && scx_abs_word(v) >= SCX_HUGE_ABS)
				v = 0.0;
			q1 = scx_hi(sg1, v);
			r1 = __dsub_rn(v, q1);
			t1 = __dadd_rn(t1, q1);
			if (TWO)
				t2 = __dadd_rn(t2, r1);
			else
			{
				q2 = scx_hi(sg2, r1);
				t2 = __dadd_rn(t2, q2);
				nz2 |= gsx_nonzero(__dsub_rn(r1, q2));
			}
		}
	}
	if (nz2 != 0)
	{
		/* rare: the third level, for this thread's elements */
		for (int k = 0; k < SCX_ITEMS; k++)
		{
			double		v = scx_elem(s, SCX_ITEMS * tid + k),
						r1,
						r2,
						q3;

			if (MASK && scx_abs_word(v) >= SCX_HUGE_ABS)
				v = 0.0;
			r1 = __dsub_rn(v, scx_hi(sg1, v));
			r2 = __dsub_rn(r1, scx_hi(sg2, r1));
			q3 = scx_hi(sg3, r2);
			t3 = __dadd_rn(t3, q3);
			nz3 |= gsx_nonzero(__dsub_rn(r2, q3));
		}
	}
	res2 = nz2 != 0;
	res3 = nz3 != 0;
}

/*
 * scx_firsts -- (rare) where the first -0, other input, NaN, +Inf, -Inf of
 * the tile are, and how many specials: atomics into s.first and s.cnt.
 */
static __device__ void
scx_firsts(scx_shared &s, int lo, int hi)
{
	const int	tid = threadIdx.x;
	int			f[SCX_NFIRST];
	unsigned	c[3] = {0, 0, 0};

#pragma unroll
	for (int k = 0; k < SCX_NFIRST; k++)
		f[k] = SCX_TILE;
	for (int j = SCX_ITEMS - 1; j >= 0; j--)
	{
		const int	p = SCX_ITEMS * tid + j;
		double		x;
		uint64_t	bits;

		if (p < lo || p >= hi)
			continue;
		x = scx_elem(s, (unsigned) p);
		bits = (uint64_t) __double_as_longlong(x);
		if (bits == UINT64_C(0x8000000000000000))
			f[SCX_F_NEGZ] = p;
		else
			f[SCX_F_NONNEG] = p;
		if (scx_abs_word(x) >= SCX_SPECIAL_ABS)
		{
			if (bits & ((UINT64_C(1) << 52) - 1))
			{
				f[SCX_F_NAN] = p;
				c[0]++;
			}
			else if (bits >> 63)
			{
				f[SCX_F_NINF] = p;
				c[2]++;
			}
			else
			{
				f[SCX_F_PINF] = p;
				c[1]++;
			}
		}
	}
#pragma unroll
	for (int k = 0; k < SCX_NFIRST; k++)
		if (f[k] < SCX_TILE)
			atomicMin(&s.first[k], f[k]);
#pragma unroll
	for (int k = 0; k < 3; k++)
		if (c[k] != 0)
			atomicAdd(&s.cnt[k], c[k]);
}

/*
 * scx_warp_sums -- (exact path) the exact sum of each warp's elements into
 * s.wacc[warp]: the thread's level sums, plus what the levels left out
 * (third-level residuals and huge elements); Inf and NaN are counted
 * elsewhere.  All threads call it; it ends with a barrier.
 */
static __device__ void
scx_warp_sums(scx_shared &s, double sg1, double sg2, double sg3, double t1, double t2, double t3)
{
	const unsigned tid = threadIdx.x;
	gsx_block_acc *w = &s.wacc[tid >> 5];
	unsigned long long *z = reinterpret_cast<unsigned long long *>(s.wacc);

	for (unsigned i = tid; i < sizeof(s.wacc) / sizeof(*z); i += SCX_BLOCK)
		z[i] = 0;
	__syncthreads();
	gsx_block_acc_add(w, t1);
	gsx_block_acc_add(w, t2);
	gsx_block_acc_add(w, t3);
	for (int k = 0; k < SCX_ITEMS; k++)
	{
		double		v = scx_elem(s, SCX_ITEMS * tid + k),
					r1,
					r2,
					r3;
		unsigned	a = scx_abs_word(v);

		if (a >= SCX_SPECIAL_ABS)
			continue;
		if (a >= SCX_HUGE_ABS)
		{
			gsx_block_acc_add(w, v);
			continue;
		}
		r1 = __dsub_rn(v, scx_hi(sg1, v));
		r2 = __dsub_rn(r1, scx_hi(sg2, r1));
		r3 = __dsub_rn(r2, scx_hi(sg3, r2));
		if (gsx_nonzero(r3))
			gsx_block_acc_add(w, r3);
	}
	__syncthreads();
}

/*
 * scx_carry_in -- (warp 0 of the launch's first tile) the carry from
 * *d_carry: into s.cacc, normalized, and as a double-double into s.cdd.
 */
static __device__ void
scx_carry_in(const scx_params &p, scx_shared &s)
{
	const int	lane = threadIdx.x & 31;
	long long	v0 = __ldcg(&p.carry->limb[lane]);
	long long	v1 = __ldcg(&p.carry->limb[32 + lane]);
	long long	v2 = lane < GS_ACC_LIMBS - 64 ? __ldcg(&p.carry->limb[64 + lane]) : 0;
	double		ch,
				cl,
				ce;

	gsx_warp_normalize(v0, v1, v2);
	s.cacc.limb[lane] = (unsigned long long) v0;
	s.cacc.limb[32 + lane] = (unsigned long long) v1;
	if (lane < GS_ACC_LIMBS - 64)
		s.cacc.limb[64 + lane] = (unsigned long long) v2;
	scx_warp_to_dd(v0, v1, v2, ch, cl, ce);
	if (lane == 0)
	{
		s.cacc.n_nan = __ldcg((const unsigned long long *) &p.carry->n_nan);
		s.cacc.n_pos_inf = __ldcg((const unsigned long long *) &p.carry->n_pos_inf);
		s.cacc.n_neg_inf = __ldcg((const unsigned long long *) &p.carry->n_neg_inf);
		s.czf = (__ldcg((const unsigned long long *) &p.carry->has_negzero) ? SCX_Z_NEG : 0) |
			(__ldcg((const unsigned long long *) &p.carry->has_nonnegzero) ? SCX_Z_NONNEG : 0);
		s.cdd[0] = ch;
		s.cdd[1] = cl;
		s.cdd[2] = ce;
		s.cacc_ready = 1;
	}
}

/*
 * scx_lookback -- (warp 0, tile > 0) the exclusive carry of the tile from
 * its predecessors' statuses: window after window of 32, waiting until
 * every tile nearer than the nearest published prefix has at least its
 * aggregate.  Only what the outputs need at once is summed here: the
 * double-double and its bound (s.cdd), the counters (s.cacc) and the zero
 * flags (s.czf).  The exact sum waits for scx_lookback_exact, after the
 * block has gone on: s.lb_prefix records the tile whose prefix was met;
 * every tile after it has published its aggregate.
 */
static __device__ void
scx_lookback(const scx_params &p, unsigned tile, scx_shared &s)
{
	const int	lane = threadIdx.x & 31;
	double		H = 0.0,
				L = 0.0,
				E = 0.0;
	unsigned long long nn = 0,
				np = 0,
				nm = 0;
	unsigned	zf = 0;
	long long	end = tile;
#ifdef SCX_PROFILE
	long long	spin_cyc = 0;
	unsigned	waits = 0,
				windows = 0;
#endif
#if SCX_LB_PREFETCH
	unsigned	fnext = (long long) tile - 1 - lane >= 0 ?
		scx_ld_acquire(&p.flags[(long long) tile - 1 - lane]) : SCX_PREFIX;
#endif

	for (;;)
	{
		const long long j = end - 1 - lane;
		unsigned	f,
					pre,
					emp,
					below;
		int			pl;
		double		h = 0.0,
					l = 0.0,
					e = 0.0;
		unsigned long long cn = 0,
					cp = 0,
					cm = 0;
		unsigned	z = 0;

		/* tiles before 0 never matter: tile 0 always publishes its prefix */
#ifdef SCX_PROFILE
		long long	t_spin = SCXP_NOW();
		int			spun = 0;
#endif
		for (int spin = 0;; spin++)
		{
#if SCX_LB_PREFETCH
			/* the first try is the acquire issued during the previous window */
			f = spin == 0 ? fnext : j >= 0 ? scx_ld_acquire(&p.flags[j]) : SCX_PREFIX;
#else
			f = j >= 0 ? scx_ld_acquire(&p.flags[j]) : SCX_PREFIX;
#endif
			pre = __ballot_sync(SCX_FULL, f == SCX_PREFIX);
			emp = __ballot_sync(SCX_FULL, f == SCX_EMPTY);
			below = pre ? (pre & (0u - pre)) - 1 : SCX_FULL;
			if ((emp & below) == 0)
				break;
#ifdef SCX_PROFILE
			spun = 1;
#endif
			if (spin > 4)
				__nanosleep(64);
		}
#ifdef SCX_PROFILE
		windows++;
		if (spun)
		{
			waits++;
			spin_cyc += SCXP_NOW() - t_spin;
		}
#endif
		pl = pre ? __ffs((int) pre) - 1 : 32;
		/*
		 * Lane pl's acquire orders the prefix's data; the other lanes (and
		 * scx_lookback_exact, later) read it after this barrier.
		 */
		__syncwarp();

		if (lane < pl)
		{
			const scx_agg *a = &p.aggs[j];
			double		l0 = __ldcg(&a->lev[0]),
						l1 = __ldcg(&a->lev[1]),
						l2 = __ldcg(&a->lev[2]);

			scx_two_sum(l0, l1, h, l);
			scx_two_sum(l, l2, l, e);
			e = fabs(e);
			cn = __ldcg(&a->n_nan);
			cp = __ldcg(&a->n_pos_inf);
			cm = __ldcg(&a->n_neg_inf);
			z = __ldcg(&a->zflags);
		}
		else if (lane == pl)
		{
			const scx_prefix *q = &p.prefixes[j];

			h = __ldcg(&q->ph);
			l = __ldcg(&q->pl);
			e = __ldcg(&q->pe);
			cn = __ldcg(&q->n_nan);
			cp = __ldcg(&q->n_pos_inf);
			cm = __ldcg(&q->n_neg_inf);
			z = __ldcg(&q->zflags);
		}
#if SCX_LB_PREFETCH
		/* no prefix here: the next window is needed; its statuses are on the way */
		if (pl == 32)
		{
			const long long jn = j - 32;

			fnext = jn >= 0 ? scx_ld_acquire(&p.flags[jn]) : SCX_PREFIX;
		}
#endif
		/* the window's double-double, counters and flags over the warp */
		scx_warp_dd_sum(h, l, e);
		/* the counters are almost always all zero: skip their reduction then */
		if (__any_sync(SCX_FULL, (cn | cp | cm) != 0))
		{
#pragma unroll
			for (int off = 16; off > 0; off >>= 1)
			{
				cn += __shfl_xor_sync(SCX_FULL, cn, off);
				cp += __shfl_xor_sync(SCX_FULL, cp, off);
				cm += __shfl_xor_sync(SCX_FULL, cm, off);
			}
		}
		z = __reduce_or_sync(SCX_FULL, z);
		scx_dd_add(H, L, E, h, l, e);
		nn += cn;
		np += cp;
		nm += cm;
		zf |= z;
		if (pl < 32)
		{
			end -= 1 + pl;
			break;
		}
		end -= 32;
	}
	__syncwarp();
	if (lane == 0)
	{
		s.lb_prefix = end;
		s.cacc.n_nan = nn;
		s.cacc.n_pos_inf = np;
		s.cacc.n_neg_inf = nm;
		s.czf = zf;
		s.cdd[0] = H;
		s.cdd[1] = L;
		s.cdd[2] = E;
#ifdef SCX_PROFILE
		SCXP_ADD(SCXP_LB_SPIN, spin_cyc);
		SCXP_ADD(SCXP_LB_WAITS, waits);
		SCXP_ADD(SCXP_LB_WINDOWS, windows);
		SCXP_ADD(SCXP_LB_DEPTH, (long long) tile - end);
		SCXP_MAX(SCXP_LB_DEPTH_MAX, (long long) tile - end);
#endif
	}
}

/*
 * scx_lookback_exact -- (warp 0, tile > 0, after scx_lookback) the exact
 * carry into s.cacc (zeroed before the look-back): the digits of tile
 * s.lb_prefix's inclusive prefix plus the aggregates of the tiles after it,
 * by shared atomics.  The look-back's acquires and the barriers since order
 * these reads.  Sets s.cacc_ready.
 */
#if SCX_LBX_ATOMIC
static __device__ void
scx_lookback_exact(const scx_params &p, unsigned tile, scx_shared &s)
{
	const int	lane = threadIdx.x & 31;
	const long long jp = s.lb_prefix;
	const scx_prefix *q = &p.prefixes[jp];

	atomicAdd(&s.cacc.limb[lane], (unsigned long long) __ldcg(&q->digit[lane]));
	atomicAdd(&s.cacc.limb[32 + lane], (unsigned long long) __ldcg(&q->digit[32 + lane]));
	if (lane < GS_ACC_LIMBS - 1 - 64)
		atomicAdd(&s.cacc.limb[64 + lane], (unsigned long long) __ldcg(&q->digit[64 + lane]));
	else if (lane == GS_ACC_LIMBS - 1 - 64)
		atomicAdd(&s.cacc.limb[64 + lane],	/* the signed top limb */
				  (unsigned long long) (long long) (int) __ldcg(&q->digit[64 + lane]));
	for (long long j = jp + 1 + lane; j < (long long) tile; j += 32)
	{
		const scx_agg *a = &p.aggs[j];

		gsx_block_acc_add(&s.cacc, __ldcg(&a->lev[0]));
		gsx_block_acc_add(&s.cacc, __ldcg(&a->lev[1]));
		gsx_block_acc_add(&s.cacc, __ldcg(&a->lev[2]));
	}
	__syncwarp();
	__threadfence_block();
	if (lane == 0)
		s.cacc_ready = 1;
}
#else
/*
 * scx_lane_sum -- the sum over the warp of the lanes' d (below 2^32),
 * negated in the lanes where neg, exactly, in every lane: the 16-bit halves
 * are summed apart (each sum below 2^21 in magnitude).
 */
static __device__ __forceinline__ long long
scx_lane_sum(unsigned d, bool neg)
{
	int			lo = (int) (d & 0xffffu),
				hi = (int) (d >> 16);

	if (neg)
	{
		lo = -lo;
		hi = -hi;
	}
	lo = __reduce_add_sync(SCX_FULL, lo);
	hi = __reduce_add_sync(SCX_FULL, hi);
	return (long long) hi * 65536 + (long long) lo;
}

/*
 * scx_warp_add_lanes -- add every lane's finite double x (its own; zeros
 * allowed) exactly to the warp-held accumulator, as scx_warp_add would one
 * after the other.  Each x is split into three digits at limbs i, i + 1,
 * i + 2 as gs_acc_add() does; the lanes whose x share i are summed by warp
 * reductions, one group after the other (for data of one magnitude, one
 * group), and the group's sums added to the limbs.  A group's digit sums are
 * below 32 * 2^32 in magnitude; a limb takes them into its int64 exactly.
 */
static __device__ __forceinline__ void
scx_warp_add_lanes(long long &v0, long long &v1, long long &v2, double x)
{
	const int	lane = threadIdx.x & 31;
	const uint64_t bits = (uint64_t) __double_as_longlong(x);
	uint64_t	m = 0;
	int			pos = 0;
	const bool	has = gs_split_double(bits, &m, &pos) != 0;
	const bool	neg = (bits >> 63) != 0;
	const int	i = pos >> 5;
	const int	sh = pos & 31;
	const uint64_t ms = m << sh;	/* the bits below 2^64 of m * 2^sh */
	const unsigned dlo = (unsigned) ms;
	const unsigned dmid = (unsigned) (ms >> 32);
	const int	dhi = sh == 0 ? 0 : (int) (m >> (64 - sh));	/* below 2^20 */
	unsigned	todo = __ballot_sync(SCX_FULL, has);

	while (todo != 0)
	{
		const int	li = __shfl_sync(SCX_FULL, i, __ffs((int) todo) - 1);
		const bool	mine = has && i == li;
		long long	slo,
					smid,
					shi;

		todo &= ~__ballot_sync(SCX_FULL, mine);
		slo = scx_lane_sum(mine ? dlo : 0u, neg);
		smid = scx_lane_sum(mine ? dmid : 0u, neg);
		shi = (long long) __reduce_add_sync(SCX_FULL, mine ? (neg ? -dhi : dhi) : 0);
		v0 += scx_pick(lane, li, slo, smid, shi);
		v1 += scx_pick(32 + lane, li, slo, smid, shi);
		if (lane < GS_ACC_LIMBS - 64)
			v2 += scx_pick(64 + lane, li, slo, smid, shi);
	}
}

/*
 * scx_lookback_exact -- (warp 0, tile > 0, after scx_lookback) the exact
 * carry into s.cacc's limbs (zero until now): the digits of tile
 * s.lb_prefix's inclusive prefix plus the aggregates of the tiles after it,
 * summed in the warp's registers; the limbs are stored unnormalized (every
 * reader normalizes).  The look-back's acquires and the barriers since
 * order these reads.  Sets s.cacc_ready.
 */
static __device__ void
scx_lookback_exact(const scx_params &p, unsigned tile, scx_shared &s)
{
	const int	lane = threadIdx.x & 31;
	const long long jp = s.lb_prefix;
	const scx_prefix *q = &p.prefixes[jp];
	long long	v0 = (long long) __ldcg(&q->digit[lane]),
				v1 = (long long) __ldcg(&q->digit[32 + lane]),
				v2 = 0;
	double		n0 = 0.0,
				n1 = 0.0,
				n2 = 0.0;
	long long	j = jp + 1 + lane;

	if (lane < GS_ACC_LIMBS - 1 - 64)
		v2 = (long long) __ldcg(&q->digit[64 + lane]);
	else if (lane == GS_ACC_LIMBS - 1 - 64)
		v2 = (long long) (int) __ldcg(&q->digit[64 + lane]);	/* the signed top limb */
	/* the loads of the next window are in flight while this one is added */
	if (j < (long long) tile)
	{
		n0 = __ldcg(&p.aggs[j].lev[0]);
		n1 = __ldcg(&p.aggs[j].lev[1]);
		n2 = __ldcg(&p.aggs[j].lev[2]);
	}
	for (long long base = jp + 1; base < (long long) tile; base += 32)
	{
		const double c0 = n0,
					c1 = n1,
					c2 = n2;

		j += 32;
		n0 = n1 = n2 = 0.0;
		if (j < (long long) tile)
		{
			n0 = __ldcg(&p.aggs[j].lev[0]);
			n1 = __ldcg(&p.aggs[j].lev[1]);
			n2 = __ldcg(&p.aggs[j].lev[2]);
		}
		scx_warp_add_lanes(v0, v1, v2, c0);
		scx_warp_add_lanes(v0, v1, v2, c1);
		scx_warp_add_lanes(v0, v1, v2, c2);
	}
	s.cacc.limb[lane] = (unsigned long long) v0;
	s.cacc.limb[32 + lane] = (unsigned long long) v1;
	if (lane < GS_ACC_LIMBS - 64)
		s.cacc.limb[64 + lane] = (unsigned long long) v2;
	__syncwarp();
	__threadfence_block();
	if (lane == 0)
		s.cacc_ready = 1;
}
#endif

/*
 * scx_publish -- (warp 0) the tile's inclusive prefix: the carry plus the
 * aggregate (the level sums, or on the exact path the per-warp sums),
 * normalized; published for later tiles and, by the launch's last tile,
 * written to *d_carry.
 */
static __device__ void
scx_publish(const scx_params &p, unsigned tile, scx_shared &s, bool slow,
			double T1, double T2, double T3, unsigned tile_zf)
{
	const int	lane = threadIdx.x & 31;
	scx_prefix *q = &p.prefixes[tile];
	long long	v0,
				v1,
				v2;
	unsigned long long nn = s.cacc.n_nan + s.cnt[0];
	unsigned long long np = s.cacc.n_pos_inf + s.cnt[1];
	unsigned long long nm = s.cacc.n_neg_inf + s.cnt[2];
	unsigned	zf = s.czf | tile_zf;
	double		ph,
				pl,
				pe;

	scx_warp_load(&s.cacc, v0, v1, v2);
	if (slow)
	{
		for (int w = 0; w < SCX_WARPS; w++)
		{
			long long	w0,
						w1,
						w2;

			scx_warp_load(&s.wacc[w], w0, w1, w2);
			v0 += w0;
			v1 += w1;
			v2 += w2;
		}
	}
	else
	{
		scx_warp_add(v0, v1, v2, T1);
		scx_warp_add(v0, v1, v2, T2);
		scx_warp_add(v0, v1, v2, T3);
	}
	gsx_warp_normalize(v0, v1, v2);
	scx_warp_to_dd(v0, v1, v2, ph, pl, pe);

	if (tile + 1 < p.ntiles)
	{
		q->digit[lane] = (unsigned) v0;
		q->digit[32 + lane] = (unsigned) v1;
		if (lane < GS_ACC_LIMBS - 64)
			q->digit[64 + lane] = (unsigned) v2;
		if (lane == 0)
		{
			q->n_nan = nn;
			q->n_pos_inf = np;
			q->n_neg_inf = nm;
			q->zflags = zf;
			q->ph = ph;
			q->pl = pl;
			q->pe = pe;
		}
		__threadfence();
		__syncwarp();
		if (lane == 0)
			scx_st_release(&p.flags[tile], SCX_PREFIX);
	}
	else
	{
		gs_exact_acc *c = p.carry;

		c->limb[lane] = v0;
		c->limb[32 + lane] = v1;
		if (lane < GS_ACC_LIMBS - 64)
			c->limb[64 + lane] = v2;
		if (lane == 0)
		{
			c->n_nan = nn;
			c->n_pos_inf = np;
			c->n_neg_inf = nm;
			c->has_negzero = (zf & SCX_Z_NEG) ? 1 : 0;
			c->has_nonnegzero = (zf & SCX_Z_NONNEG) ? 1 : 0;
		}
	}
}

/* ---- a tile's first steps, shared by both kernels ---- */

/* scx_tile_reset -- (thread 0, before the tile's first barrier) no firsts, no specials yet */
static __device__ __forceinline__ void
scx_tile_reset(scx_shared &s)
{
	for (int k = 0; k < SCX_NFIRST; k++)
		s.first[k] = SCX_TILE;
	s.cnt[0] = s.cnt[1] = s.cnt[2] = 0;
}

/* What scx_front leaves for the rest of a tile. */
typedef struct scx_fr
{
	int			lo,
				hi;				/* valid tile positions [lo, hi) */
	bool		full;			/* lo == 0 and hi == SCX_TILE */
	bool		masked;			/* Inf, NaN or huge values, which the levels skip */
	bool		has_special;	/* Inf or NaN in the tile */
	bool		slow;			/* only the exact path can take the tile */
	unsigned	tbits;			/* SCX_T_* of the tile */
	unsigned	tile_zf;		/* SCX_Z_* of the tile */
	int			f_negz,
				f_nonneg;		/* first -0 / other input in the tile */
	double		sg1,
				sg2,
				sg3;			/* level windows */
	double		t1,
				t2,
				t3;				/* the thread's level sums */
	double		a1,
				a2,
				a3;				/* the thread's exclusive prefix within the tile */
	double		T1,
				T2,
				T3;				/* the tile's level sums (its exact sum unless slow) */
} scx_fr;

/*
 * scx_front -- steps 1 and 2 of the file header: load the tile, find its
 * level windows, split its elements into level parts and scan the level
 * sums exactly over the block.  Also records where the first -0, other
 * input, NaN and infinities are (s.first, s.cnt).  All threads call it.
 */
template <typename T>
static __device__ __forceinline__ void
scx_front(const scx_params &p, unsigned tile, scx_shared &s, scx_fr &f, long long &tp)
{
	const unsigned tid = threadIdx.x;
	const unsigned lane = tid & 31;
	const unsigned warp = tid >> 5;
	const long long vbase = (long long) tile * SCX_TILE;
	unsigned	amax,
				amin,
				tmin = 0xffffffffu,
				zmin,
				tmax = 0,
				tzmin = 0xffffffffu;
	bool		has_negz,
				has_huge = false,
				res2,
				res3;
	int			k1;
	double		i1,
				i2,
				i3;

	f.lo = (int) max((long long) p.shift - vbase, 0LL);
	f.hi = (int) min((long long) (p.n + p.shift) - vbase, (long long) SCX_TILE);
	f.full = f.lo == 0 && f.hi == SCX_TILE;
	f.has_special = false;
	f.tbits = 0;
	f.a1 = f.a2 = f.a3 = 0.0;
	f.T1 = f.T2 = f.T3 = 0.0;

	/* 1. load; the largest magnitude and whether there is a -0 */
	scx_load<T>(p, vbase, f.full, f.lo, f.hi, s, amax, amin, zmin);
	amax = __reduce_max_sync(SCX_FULL, amax);
	amin = __reduce_min_sync(SCX_FULL, amin);
	zmin = __reduce_min_sync(SCX_FULL, zmin);
	if (lane == 0)
	{
		s.wmax[warp] = amax;
		s.wmin[warp] = amin;
		s.wzmin[warp] = zmin;
	}
	__syncthreads();
	for (int w = 0; w < SCX_WARPS; w++)
	{
		tmax = max(tmax, s.wmax[w]);
		tmin = min(tmin, s.wmin[w]);
		tzmin = min(tzmin, s.wzmin[w]);
	}
	SCXP_MARK(SCXP_LOAD);
	has_negz = tzmin == 0;
	f.masked = tmax >= SCX_HUGE_ABS;
	if (f.masked)
	{
		/* rare: Inf, NaN or huge values; the largest of the others */
		unsigned	m = 0,
					bits = 0;

		for (int k = 0; k < SCX_ITEMS; k++)
		{
			unsigned	a = scx_abs_word(scx_elem(s, SCX_ITEMS * tid + k));

			if (a >= SCX_SPECIAL_ABS)
				bits |= 1;
			else if (a >= SCX_HUGE_ABS)
				bits |= 2;
			else
				m = max(m, a);
		}
		m = __reduce_max_sync(SCX_FULL, m);
		bits = __reduce_or_sync(SCX_FULL, bits);
		if (lane == 0)
		{
			s.wmax2[warp] = m;
			s.wrare[warp] = bits;
		}
		__syncthreads();
		tmax = 0;
		bits = 0;
		for (int w = 0; w < SCX_WARPS; w++)
		{
			tmax = max(tmax, s.wmax2[w]);
			bits |= s.wrare[w];
		}
		f.has_special = (bits & 1) != 0;
		has_huge = (bits & 2) != 0;
	}

	/*
	 * 2. level windows from the largest ordinary magnitude; the level pass.
	 * An element x of binade e (|x| >= 2^e) is a multiple of 2^(e - 52), and
	 * so is its r1 (|r1| < 2^(k1 - 52)); the second level extracts r1 whole
	 * where it is a multiple of 2^(k1 - SCX_LEVEL_BITS - 52), the spacing of
	 * doubles in [sg2, 2 sg2).  So where the tile's smallest magnitude
	 * (zeros and subnormals included, which then fail the test) has
	 * e >= k1 - SCX_LEVEL_BITS, every element fits two levels.
	 */
	k1 = max((int) (tmax >> 20), 1) - 1022 + SCX_M;
	k1 = max(k1, GSX_MIN_SIGMA_EXP);
	f.sg1 = gsx_pow2(k1);
	f.sg2 = gsx_pow2(max(k1 - SCX_LEVEL_BITS, GSX_MIN_SIGMA_EXP));
	f.sg3 = gsx_pow2(max(k1 - 2 * SCX_LEVEL_BITS, GSX_MIN_SIGMA_EXP));
	if (f.masked)
		scx_levels<true, false>(s, f.sg1, f.sg2, f.sg3, f.t1, f.t2, f.t3, res2, res3);
	else if (tmin >= ((unsigned) max(k1 - SCX_LEVEL_BITS + 1023, 0) << 20))
		scx_levels<false, true>(s, f.sg1, f.sg2, f.sg3, f.t1, f.t2, f.t3, res2, res3);
	else
		scx_levels<false, false>(s, f.sg1, f.sg2, f.sg3, f.t1, f.t2, f.t3, res2, res3);
	if (has_negz || f.has_special)
		scx_firsts(s, f.lo, f.hi);
	SCXP_MARK(SCXP_LEVELS);

	/* exact block scan of the level sums */
	i1 = f.t1;
	i2 = f.t2;
	i3 = f.t3;
#pragma unroll
	for (int off = 1; off < 32; off <<= 1)
	{
		double		y1 = __shfl_up_sync(SCX_FULL, i1, off);
		double		y2 = __shfl_up_sync(SCX_FULL, i2, off);
		double		y3 = __shfl_up_sync(SCX_FULL, i3, off);

		if ((int) lane >= off)
		{
			i1 = __dadd_rn(i1, y1);
			i2 = __dadd_rn(i2, y2);
			i3 = __dadd_rn(i3, y3);
		}
	}
	{
		unsigned	b = __reduce_or_sync(SCX_FULL, (res2 ? SCX_T_LEVEL3 : 0) | (res3 ? SCX_T_SLOW : 0));

		if (lane == 31)
		{
			s.wsum[warp][0] = i1;
			s.wsum[warp][1] = i2;
			s.wsum[warp][2] = i3;
			s.wbits[warp] = b;
		}
	}
	__syncthreads();
	for (int w = 0; w < SCX_WARPS; w++)
	{
		if (w == (int) warp)
		{
			/* exact: all are partial sums of at most SCX_TILE level parts */
			f.a1 = __dadd_rn(f.a1, __dsub_rn(i1, f.t1));
			f.a2 = __dadd_rn(f.a2, __dsub_rn(i2, f.t2));
			f.a3 = __dadd_rn(f.a3, __dsub_rn(i3, f.t3));
		}
		else if (w < (int) warp)
		{
			f.a1 = __dadd_rn(f.a1, s.wsum[w][0]);
			f.a2 = __dadd_rn(f.a2, s.wsum[w][1]);
			f.a3 = __dadd_rn(f.a3, s.wsum[w][2]);
		}
		f.T1 = __dadd_rn(f.T1, s.wsum[w][0]);
		f.T2 = __dadd_rn(f.T2, s.wsum[w][1]);
		f.T3 = __dadd_rn(f.T3, s.wsum[w][2]);
		f.tbits |= s.wbits[w];
	}
	f.slow = (f.tbits & SCX_T_SLOW) != 0 || has_huge;
	f.f_negz = s.first[SCX_F_NEGZ];
	f.f_nonneg = has_negz ? s.first[SCX_F_NONNEG] : f.lo;
	f.tile_zf = (f.f_negz < SCX_TILE ? SCX_Z_NEG : 0) | (f.f_nonneg < SCX_TILE ? SCX_Z_NONNEG : 0);
}

/*
 * scx_ctx_init -- what every thread needs for its outputs, from the tile's
 * front and the carry: the carry's double-double CH + CL with bound ce,
 * whether it holds a NaN, +Inf, -Inf and its zero flags czf.  Returns false
 * where the carry is too large (or the NaN marker) for the fast paths.
 */
static __device__ __forceinline__ bool
scx_ctx_init(scx_ctx &c, const scx_fr &f, const scx_shared &s, double ch, double cl, double ce,
			 bool cnan, bool cpinf, bool cninf, unsigned czf)
{
	double		hb,
				tb,
				lb,
				sum;

	c.ch = ch;
	c.cl = cl;
	c.f_nan = cnan ? -1 : s.first[SCX_F_NAN];
	c.f_pinf = cpinf ? -1 : s.first[SCX_F_PINF];
	c.f_ninf = cninf ? -1 : s.first[SCX_F_NINF];
	c.f_negz = (czf & SCX_Z_NEG) ? -1 : f.f_negz;
	c.f_nonneg = (czf & SCX_Z_NONNEG) ? -1 : f.f_nonneg;
	c.sp_any = min(c.f_nan, min(c.f_pinf, c.f_ninf));
	c.sp_nan = min(c.f_nan, max(c.f_pinf, c.f_ninf));
	c.special = c.sp_any < SCX_TILE;
	c.lo = f.lo;
	c.hi = f.hi;
	c.partial = !f.full;
	c.sg1 = f.sg1;
	c.sg2 = f.sg2;
	c.sg3 = f.sg3;

	/*
	 * The fast path's bound B (see scx_round_fast), from |a1| <= sg1,
	 * |a2| <= sg2, |a3| <= sg3:  |h1| <= 2 (|CH| + sg1),
	 * |t| <= 2 (u |h1| + |CL|),  |l| <= 2 (|t| + sg2),
	 * |l'| <= 2 (|l| + sg3);  B = u (|t| + |l| (+ |l'|)) + CE.
	 */
	hb = __dmul_ru(2.0, __dadd_ru(fabs(ch), f.sg1));
	tb = __dmul_ru(2.0, __fma_ru(SCX_U, hb, fabs(cl)));
	lb = __dmul_ru(2.0, __dadd_ru(tb, f.sg2));
	sum = __dadd_ru(tb, lb);
	if ((f.tbits & SCX_T_LEVEL3) != 0)
		sum = __dadd_ru(sum, __dmul_ru(2.0, __dadd_ru(lb, f.sg3)));
	c.b2 = __dmul_ru(2.0, __fma_ru(SCX_U, sum, ce));
	c.ce2 = __dmul_ru(2.0, ce);

	/* NaN (a marker, or an overflow in the look-back) fails these too */
	return fabs(ch) < SCX_CARRY_MAX && fabs(cl) < SCX_CARRY_MAX && ce < SCX_CARRY_MAX;
}

/*
 * scx_outputs_any -- scx_outputs for the tile's number of levels and
 * specials; scx_outputs_plain in the fast kernel's common case
 */
template <bool EXCL, bool EXACT>
static __device__ __forceinline__ void
scx_outputs_any(scx_shared &s, const scx_ctx &c, const scx_fr &f)
{
	if ((f.tbits & SCX_T_LEVEL3) != 0)
	{
		if (f.has_special)
			scx_outputs<3, EXCL, true, EXACT>(s, c, f.a1, f.a2, f.a3);
		else
			scx_outputs<3, EXCL, false, EXACT>(s, c, f.a1, f.a2, f.a3);
	}
	else
	{
		if (f.has_special)
			scx_outputs<2, EXCL, true, EXACT>(s, c, f.a1, f.a2, f.a3);
		else if (!EXACT && !c.special && !c.partial && fabs(c.ch) >= f.sg1)
			scx_outputs_plain<EXCL>(s, c, f.a1, f.a2);
		else
			scx_outputs<2, EXCL, false, EXACT>(s, c, f.a1, f.a2, f.a3);
	}
}

#endif							/* GPUSCAN_SCAN_EXACT_TILE_CUH */
