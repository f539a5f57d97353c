/*-------------------------------------------------------------------------
 *
 * scan_exact_kernels.cuh
 *	  The exact scan's two kernels: the exact kernel and the fast kernel
 *	  (the look-back of each).
 *
 * A part of scan_exact.cu, included by it alone: it uses that file's
 * settings, types and the parts before it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SCAN_EXACT_KERNELS_CUH
#define GPUSCAN_SCAN_EXACT_KERNELS_CUH

/* ---- the exact kernel ---- */

/*
 * scx_scan_tile -- one tile of the exact kernel; see the file header for
 * the steps.  All threads call it.
 */
template <typename T, bool EXCL>
static __device__ __forceinline__ void
scx_scan_tile(const scx_params &p, unsigned tile, scx_shared &s, long long tp0)
{
	const unsigned tid = threadIdx.x;
	const unsigned lane = tid & 31;
	const unsigned warp = tid >> 5;
	long long	tp = tp0;
	scx_fr		f;
	scx_ctx		c;
	bool		carry_ok;

	scx_front<T>(p, tile, s, f, tp);
#if SCX_SPLIT_OUT
	/* read by warps 1..SCX_SPLIT_WARPS after the barrier that follows the look-back */
	if (warp == 0)
	{
		s.a0[lane][0] = f.a1;
		s.a0[lane][1] = f.a2;
		s.a0[lane][2] = f.a3;
	}
#endif
	if (f.slow)
		scx_warp_sums(s, f.sg1, f.sg2, f.sg3, f.t1, f.t2, f.t3);
	SCXP_MARK(SCXP_BSCAN);

	/* 3. publish the aggregate; warp 0 finds the carry */
	if (tid == 0 && !f.slow && tile > 0 && tile + 1 < p.ntiles)
	{
		scx_agg    *a = &p.aggs[tile];

		a->lev[0] = f.T1;
		a->lev[1] = f.T2;
		a->lev[2] = f.T3;
		a->n_nan = s.cnt[0];
		a->n_pos_inf = s.cnt[1];
		a->n_neg_inf = s.cnt[2];
		a->zflags = f.tile_zf;
		__threadfence();
		scx_st_release(&p.flags[tile], SCX_AGG);
	}
	SCXP_MARK(SCXP_AGG);
	if (warp == 0)
	{
		unsigned long long *z = reinterpret_cast<unsigned long long *>(&s.cacc);

		for (unsigned i = lane; i < sizeof(s.cacc) / sizeof(*z); i += 32)
			z[i] = 0;
		if (lane == 0)
			s.cacc_ready = 0;
		__syncwarp();
		if (tile == 0)
			scx_carry_in(p, s);
		else
			scx_lookback(p, tile, s);
		SCXP_MARK(SCXP_LB);
	}
#ifdef SCX_PROFILE
	if (tid == 32)
		tp = SCXP_NOW();
#endif
	__syncthreads();
#ifdef SCX_PROFILE
	if (tid == 32)
	{
		long long	tq = SCXP_NOW();

		SCXP_ADD(SCXP_LB_BARRIER, tq - tp);
		tp = tq;
	}
	if (tid == 0)
		tp = SCXP_NOW();
#endif

	/* 4. publish the inclusive prefix; 5. the outputs */
	carry_ok = scx_ctx_init(c, f, s, s.cdd[0], s.cdd[1], s.cdd[2], s.cacc.n_nan != 0,
							s.cacc.n_pos_inf != 0, s.cacc.n_neg_inf != 0, s.czf);
	if (warp == 0)
	{
		if (tile > 0)
			scx_lookback_exact(p, tile, s);
		SCXP_MARK(SCXP_LBX);
		scx_publish(p, tile, s, f.slow, f.T1, f.T2, f.T3, f.tile_zf);
		SCXP_MARK(SCXP_PUB);
	}
#ifdef SCX_PROFILE
	if (tid == 0)
	{
		if (f.slow || !carry_ok)
			SCXP_ADD(SCXP_N_SLOW, 1);
		if ((f.tbits & SCX_T_LEVEL3) != 0)
			SCXP_ADD(SCXP_N_LEV3, 1);
		if (f.masked)
			SCXP_ADD(SCXP_N_MASKED, 1);
	}
#endif
	if (f.slow || !carry_ok)
	{
		if (!f.slow)
			scx_warp_sums(s, f.sg1, f.sg2, f.sg3, f.t1, f.t2, f.t3);
		scx_walk<EXCL>(&s, f.lo, f.hi, c.f_nan, c.f_pinf, c.f_ninf, c.f_negz, c.f_nonneg);
	}
	else if (!SCX_SPLIT_OUT || warp != 0)
		scx_outputs_any<EXCL, true>(s, c, f);
#ifdef SCX_PROFILE
	if (tid == 0 || tid == 32)
	{
		long long	tq = SCXP_NOW();

		SCXP_ADD(tid == 0 ? SCXP_OUT0 : SCXP_OUT1, tq - tp);
		tp = tq;
	}
#endif
	__syncthreads();
#ifdef SCX_PROFILE
	if (tid == 32)
		SCXP_ADD(SCXP_STORE_BARRIER, SCXP_NOW() - tp);
	if (tid == 0)
		tp = SCXP_NOW();
#endif
	scx_store(p, (long long) tile * SCX_TILE, f.full, f.lo, f.hi, s);
	SCXP_MARK(SCXP_STORE);
	SCXP_TILE_DONE(tp0);
}

/*
 * scx_redo_set -- whether the fast kernel left the launch to the exact
 * kernel (always, where there is no fast kernel: p.ctl NULL)
 */
static __device__ __forceinline__ bool
scx_redo_set(const scx_params &p)
{
	return p.ctl == NULL || *(volatile const unsigned *) &p.ctl[SCF_CTL_REDO] != 0;
}

/*
 * scx_scan_kernel -- the exact kernel: a grid of as many blocks as fit at
 * once, each taking tile after tile in order from an atomic counter (a
 * block only ever waits for tiles that running blocks have taken).  It
 * returns at once unless the fast kernel asked for it.
 */
template <typename T, bool EXCL>
__global__ void __launch_bounds__(SCX_BLOCK, SCX_MIN_BLOCKS)
scx_scan_kernel(const scx_params p)
{
	SCX_SHARED_DECL(s);

	if (!scx_redo_set(p))
		return;
	for (;;)
	{
		long long	tp0 = SCXP_NOW();
		unsigned	tile;

		if (threadIdx.x == 0)
		{
			s.tile = atomicAdd(p.counter, 1u);
			scx_tile_reset(s);
		}
		__syncthreads();
		tile = s.tile;
		if (tile >= p.ntiles)
			return;
		scx_scan_tile<T, EXCL>(p, tile, s, tp0);
		__syncthreads();		/* before the next tile reuses s */
	}
}

/* ---- the fast kernel ---- */

/* scf_word -- x's bits as a record word: never SCF_UNSET (such a NaN becomes another) */
static __device__ __forceinline__ unsigned long long
scf_word(double x)
{
	unsigned long long b = (unsigned long long) __double_as_longlong(x);

	return b == SCF_UNSET ? 0x7ff8000000000000ULL : b;
}

/* scf_put -- write a record (relaxed: each word is read whole or not at all) */
static __device__ __forceinline__ void
scf_put(scf_rec *r, double v0, double v1, double v2, unsigned long long meta)
{
	asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};"
				 :: "l"(&r->w[0]), "l"(scf_word(v0)), "l"(scf_word(v1)) : "memory");
	asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};"
				 :: "l"(&r->w[2]), "l"(scf_word(v2)), "l"(meta) : "memory");
}

/* scf_load -- read a record (see scf_written) */
static __device__ __forceinline__ void
scf_load(const scf_rec *r, unsigned long long w[4])
{
	asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
				 : "=l"(w[0]), "=l"(w[1]) : "l"(&r->w[0]) : "memory");
	asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
				 : "=l"(w[2]), "=l"(w[3]) : "l"(&r->w[2]) : "memory");
}

/* scf_written -- whether all of a record read by scf_load is written */
static __device__ __forceinline__ bool
scf_written(const unsigned long long w[4])
{
	return w[0] != SCF_UNSET && w[1] != SCF_UNSET && w[2] != SCF_UNSET && w[3] != SCF_UNSET;
}

/*
 * scf_load_window -- (look-back) read the aggregate a and prefix q records
 * of tile j, or mark both unwritten where j < 0
 */
static __device__ __forceinline__ void
scf_load_window(const scx_params &p, long long j, unsigned long long a[4], unsigned long long q[4])
{
	if (j >= 0)
	{
		scf_load(&p.recs[2 * j], a);
		scf_load(&p.recs[2 * j + 1], q);
	}
	else
	{
		for (int i = 0; i < 4; i++)
			a[i] = q[i] = SCF_UNSET;
	}
}

/* scf_set_redo -- leave the launch to the exact kernel */
static __device__ __forceinline__ void
scf_set_redo(const scx_params &p)
{
	atomicExch(&p.ctl[SCF_CTL_REDO], 1u);
	SCXP_ADD(SCXP_N_REDO, 1);
}

/*
 * scf_grid_code -- a tile's grid code for its aggregate record: k + 1023,
 * where 2^k = sg1 is its first level window, or 0 where the integer window
 * sum cannot take it.  Every level-j part of the tile is a multiple of the
 * unit 2^(k - 53 - SCX_LEVEL_BITS (j - 1)) (the extraction leaves sigma + v
 * in [2^(k-1), 2^(k+1)), see scx_hi), so T_j is that unit times an integer
 * of at most 2^54 in magnitude.  k >= SCF_GRID_KMIN keeps the third unit
 * normal (so scaling by it is exact) and the windows unclamped; k <= 1010
 * holds for every tile that has an aggregate (no element of 2^997 or more).
 */
#define SCF_UNIT2		(53 + SCX_LEVEL_BITS)	/* unit of level 2: 2^(k - SCF_UNIT2) */
#define SCF_UNIT3		(53 + 2 * SCX_LEVEL_BITS)
#define SCF_GRID_KMIN	(SCF_UNIT3 - 1022)

static __device__ __forceinline__ unsigned long long
scf_grid_code(const scx_fr &f)
{
	const int	k = ((__double2hiint(f.sg1) >> 20) & 0x7ff) - 1023;

	return (k >= SCF_GRID_KMIN && k <= 1010) ? (unsigned long long) (k + 1023) : 0;
}

/*
 * scf_warp_sum_ll -- v (|v| < 2^55) summed over the warp, in every lane,
 * exactly: three 21-bit pieces, each summed by one warp reduction
 * instruction (32 pieces stay far inside 32 bits), in place of a chain of
 * five shuffles and 64-bit additions
 */
static __device__ __forceinline__ long long
scf_warp_sum_ll(long long v)
{
	const unsigned s0 = __reduce_add_sync(SCX_FULL, (unsigned) v & 0x1fffffu);
	const unsigned s1 = __reduce_add_sync(SCX_FULL, (unsigned) (v >> 21) & 0x1fffffu);
	const int	s2 = (int) __reduce_add_sync(SCX_FULL, (unsigned) (int) (v >> 42));

	return (long long) s2 * (1LL << 42) + (long long) s1 * (1LL << 21) + (long long) s0;
}

/*
 * scf_window_int -- (all lanes of warp 0) the sum of the aggregates a of the
 * lanes with mine set, all of grid code `code` (nonzero), as h + l + d with
 * h + l a double-double and |d| <= e, d exact where it is 0: the level sums
 * become integers in their units, are summed exactly over the warp (32
 * terms of at most 2^54 each), then turned back into doubles level by
 * level, each level's rounding remainder carried into the next (the units
 * are 2^SCX_LEVEL_BITS apart), and the three doubles added by TwoSums.
 */
static __device__ __forceinline__ void
scf_window_int(const unsigned long long a[4], bool mine, unsigned code,
			   double &h, double &l, double &e)
{
	const int	k = (int) code - 1023;
	long long	k1 = 0,
				k2 = 0,
				k3 = 0,
				r;
	double		d1,
				d2,
				d3,
				s,
				t,
				u,
				dt;

	if (mine)
	{
		k1 = __double2ll_rn(__dmul_rn(__longlong_as_double((long long) a[0]), gsx_pow2(53 - k)));
		k2 = __double2ll_rn(__dmul_rn(__longlong_as_double((long long) a[1]), gsx_pow2(SCF_UNIT2 - k)));
		k3 = __double2ll_rn(__dmul_rn(__longlong_as_double((long long) a[2]), gsx_pow2(SCF_UNIT3 - k)));
	}
	k1 = scf_warp_sum_ll(k1);
	k2 = scf_warp_sum_ll(k2);
	if (__any_sync(SCX_FULL, k3 != 0))
		k3 = scf_warp_sum_ll(k3);

	/* |k1|, |k2|, |k3| < 2^59; each remainder r below is at most 2^6 */
	d1 = __ll2double_rn(k1);
	r = k1 - __double2ll_rn(d1);
	k2 += r * (1LL << SCX_LEVEL_BITS);
	d2 = __ll2double_rn(k2);
	r = k2 - __double2ll_rn(d2);
	k3 += r * (1LL << SCX_LEVEL_BITS);
	d3 = __ll2double_rn(k3);
	r = k3 - __double2ll_rn(d3);

	/* scaled back (exact: powers of two, normal results); sum = h + l + dt + r unit3 */
	scx_two_sum(__dmul_rn(d1, gsx_pow2(k - 53)), __dmul_rn(d2, gsx_pow2(k - SCF_UNIT2)), s, t);
	scx_two_sum(t, __dmul_rn(d3, gsx_pow2(k - SCF_UNIT3)), u, dt);
	scx_two_sum(s, u, h, l);
	e = __dadd_ru(fabs(dt), fabs(__dmul_rn(__ll2double_rn(r), gsx_pow2(k - SCF_UNIT3))));
}

/*
 * scf_lookback -- (warp 0, tile > 0) the fast kernel's look-back: as
 * scx_lookback, from the records: window after window of 32 predecessors,
 * each a single round trip, back to the nearest published prefix; the
 * carry into s.cdd (double-double and bound) and its flags into s.cflags.
 * Sets s.bail instead where the launch has gone to the exact kernel (a
 * tile that will never publish may be among those waited for).
 */
static __device__ void
scf_lookback(const scx_params &p, unsigned tile, scx_shared &s)
{
	const int	lane = threadIdx.x & 31;
	double		H = 0.0,
				L = 0.0,
				E = 0.0;
	unsigned	zf = 0;
	long long	end = tile;
#ifdef SCX_PROFILE
	long long	spin_cyc = 0;
	unsigned	waits = 0,
				windows = 0;
#endif

	for (;;)
	{
		unsigned long long a[4],
					q[4];
		unsigned	pre,
					z = 0;
		int			pl;
		double		h = 0.0,
					l = 0.0,
					e = 0.0;
#ifdef SCX_PROFILE
		long long	t_spin = SCXP_NOW();
		int			spun = 0;
#endif

		/* lane's tile is end - 1 - lane; before tile 0 nothing is ever published */
		for (int spin = 0;; spin++)
		{
			unsigned	emp,
						below;
			bool		isp,
						isa;

			scf_load_window(p, end - 1 - lane, a, q);
			isa = scf_written(a);
			isp = scf_written(q);
			pre = __ballot_sync(SCX_FULL, isp);
			emp = __ballot_sync(SCX_FULL, !isp && !isa);
			below = pre ? (pre & (0u - pre)) - 1 : SCX_FULL;
			if ((emp & below) == 0)
				break;
#ifdef SCX_PROFILE
			spun = 1;
#endif
			if (spin >= SCF_SPIN_FREE)
			{
				if (scx_redo_set(p))
				{
					if (lane == 0)
						s.bail = 1;
					return;
				}
				__nanosleep(SCF_SLEEP_NS);
			}
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
		if (lane < pl)
			z = (unsigned) a[3];
		else if (lane == pl)
			z = (unsigned) q[3];
		zf |= __reduce_or_sync(SCX_FULL, z);
#if SCF_LB_INT
		{
			/* the aggregates' grid codes: all the same and nonzero? */
			const unsigned code = (unsigned) (a[3] >> SCF_GRID_SHIFT) & 0xffffu;
			const unsigned cmin = __reduce_min_sync(SCX_FULL, lane < pl ? code : 0xffffu);
			const unsigned cmax = __reduce_max_sync(SCX_FULL, lane < pl ? code : 0u);

			if (pl == 0 || (cmin == cmax && cmin != 0))
			{
				if (pl > 0)
				{
					scf_window_int(a, lane < pl, cmin, h, l, e);
					scx_dd_add(H, L, E, h, l, e);
				}
				if (pl < 32)
				{
					h = __shfl_sync(SCX_FULL, __longlong_as_double((long long) q[0]), pl);
					l = __shfl_sync(SCX_FULL, __longlong_as_double((long long) q[1]), pl);
					e = __shfl_sync(SCX_FULL, __longlong_as_double((long long) q[2]), pl);
					scx_dd_add(H, L, E, h, l, e);
					end -= 1 + pl;
					break;
				}
				end -= 32;
				continue;
			}
		}
#endif
		if (lane < pl)
		{
			scx_two_sum(__longlong_as_double((long long) a[0]),
						__longlong_as_double((long long) a[1]), h, l);
			scx_two_sum(l, __longlong_as_double((long long) a[2]), l, e);
			e = fabs(e);
		}
		else if (lane == pl)
		{
			h = __longlong_as_double((long long) q[0]);
			l = __longlong_as_double((long long) q[1]);
			e = __longlong_as_double((long long) q[2]);
		}
		scx_warp_dd_sum(h, l, e);
		scx_dd_add(H, L, E, h, l, e);
		if (pl < 32)
		{
			end -= 1 + pl;
			break;
		}
		end -= 32;
	}
	if (lane == 0)
	{
		s.cdd[0] = H;
		s.cdd[1] = L;
		s.cdd[2] = E;
		s.cflags = zf;
#ifdef SCX_PROFILE
		SCXP_ADD(SCXP_LB_SPIN, spin_cyc);
		SCXP_ADD(SCXP_LB_WAITS, waits);
		SCXP_ADD(SCXP_LB_WINDOWS, windows);
		SCXP_ADD(SCXP_LB_DEPTH, (long long) tile - end);
		SCXP_MAX(SCXP_LB_DEPTH_MAX, (long long) tile - end);
#endif
	}
	__syncwarp();
}

/* scf_flags -- SCF_M_* of a tile's specials counts and zero flags */
static __device__ __forceinline__ unsigned
scf_flags(const scx_shared &s, unsigned zf)
{
	return (s.cnt[0] ? SCF_M_NAN : 0) | (s.cnt[1] ? SCF_M_PINF : 0) |
		(s.cnt[2] ? SCF_M_NINF : 0) | (zf << SCF_M_ZSHIFT);
}

/*
 * scf_put_prefix -- (lane 0 of warp 0, after the carry) the tile's
 * inclusive prefix record: the carry plus the tile's level sums, as a
 * double-double with its bound, and the flags of both
 */
static __device__ __forceinline__ void
scf_put_prefix(const scx_params &p, unsigned tile, const scx_shared &s, const scx_fr &f)
{
	double		h = s.cdd[0],
				l = s.cdd[1],
				e = s.cdd[2],
				th,
				tl,
				te;

	scx_two_sum(f.T1, f.T2, th, tl);
	scx_two_sum(tl, f.T3, tl, te);
	scx_dd_add(h, l, e, th, tl, fabs(te));
	scf_put(&p.recs[2 * tile + 1], h, l, e, s.cflags | scf_flags(s, f.tile_zf));
}

/*
 * scf_add_total -- (warp 1) add the tile's exact sum T1 + T2 + T3, its
 * specials and zero flags to the launch's total (copy tile % SCF_COPIES),
 * digit by digit as gs_acc_add() would
 */
static __device__ void
scf_add_total(const scx_params &p, unsigned tile, const scx_shared &s, const scx_fr &f)
{
	const int	lane = threadIdx.x & 31;
	unsigned long long *fin = p.fin + (size_t) (tile % SCF_COPIES) * SCF_FIN_WORDS;

	if (lane < 3)
	{
		int			i;
		long long	lo,
					mid,
					hi;

		if (scx_digits(lane == 0 ? f.T1 : lane == 1 ? f.T2 : f.T3, i, lo, mid, hi))
		{
			if (lo != 0)
				atomicAdd(&fin[i], (unsigned long long) lo);
			if (mid != 0)
				atomicAdd(&fin[i + 1], (unsigned long long) mid);
			if (hi != 0)
				atomicAdd(&fin[i + 2], (unsigned long long) hi);
		}
	}
	else if (lane < 6)
	{
		if (s.cnt[lane - 3] != 0)
			atomicAdd(&fin[GS_ACC_LIMBS + lane - 3], (unsigned long long) s.cnt[lane - 3]);
	}
	else if (lane == 6 && f.tile_zf != 0)
		atomicOr(&p.ctl[SCF_CTL_ZF], f.tile_zf);
	__threadfence();
}

/*
 * scf_finish -- (warp 0 of the block that finished last, every tile done
 * and none redone) the launch's carry: *p.carry plus the total's copies,
 * normalized, into *p.carry
 */
static __device__ void
scf_finish(const scx_params &p)
{
	const int	lane = threadIdx.x & 31;
	unsigned long long *cnt = reinterpret_cast<unsigned long long *>(&p.carry->n_nan);
	long long	v0,
				v1,
				v2;
	unsigned long long k = 0;

	__threadfence();
	if (scx_redo_set(p))
		return;
	v0 = __ldcg(&p.carry->limb[lane]);
	v1 = __ldcg(&p.carry->limb[32 + lane]);
	v2 = lane < GS_ACC_LIMBS - 64 ? __ldcg(&p.carry->limb[64 + lane]) : 0;
	if (lane < 3)
		k = __ldcg(&cnt[lane]);
	for (int c = 0; c < SCF_COPIES; c++)
	{
		const unsigned long long *fin = p.fin + (size_t) c * SCF_FIN_WORDS;

		v0 += (long long) __ldcg(&fin[lane]);
		v1 += (long long) __ldcg(&fin[32 + lane]);
		if (lane < GS_ACC_LIMBS - 64)
			v2 += (long long) __ldcg(&fin[64 + lane]);
		if (lane < 3)
			k += __ldcg(&fin[GS_ACC_LIMBS + lane]);
	}
	gsx_warp_normalize(v0, v1, v2);
	p.carry->limb[lane] = v0;
	p.carry->limb[32 + lane] = v1;
	if (lane < GS_ACC_LIMBS - 64)
		p.carry->limb[64 + lane] = v2;
	if (lane < 3)
		cnt[lane] = k;
	if (lane == 0)
	{
		const unsigned zf = __ldcg(&p.ctl[SCF_CTL_ZF]);

		if (zf & SCX_Z_NEG)
			p.carry->has_negzero = 1;
		if (zf & SCX_Z_NONNEG)
			p.carry->has_nonnegzero = 1;
	}
}

/* scf_prefetch -- (one thread) ask L2 for tile t's input, if there is such a tile */
template <typename T>
static __device__ __forceinline__ void
scf_prefetch(const scx_params &p, unsigned t)
{
#if __CUDA_ARCH__ >= 900
	if (t < p.ntiles)
	{
		const size_t first = (size_t) t * SCX_TILE;
		const size_t avail = (p.n + p.shift - first) * sizeof(T);
		const unsigned bytes = (unsigned) (min(avail, (size_t) SCX_TILE * sizeof(T)) & ~(size_t) 15);

		if (bytes > 0)
			asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;"
						 :: "l"(p.in + first * sizeof(T)), "r"(bytes) : "memory");
	}
#else
	(void) p;
	(void) t;
#endif
}

/*
 * scf_scan_kernel -- the fast kernel: one tile per block, the tile's steps
 * as in the exact kernel, but the look-back chains only double-doubles
 * with rigorous bounds (records, no digits), so that a tile publishes its
 * prefix right after its look-back, and an output that the fast and
 * careful paths cannot prove is not computed: the tile sets the redo flag,
 * and the exact kernel, launched next, takes the whole launch over.  So
 * are a tile that only the exact path can take, and a carry too large for
 * the fast paths.  The block that finishes last (with no redo) writes the
 * launch's exact carry from the tiles' exact sums.
 */
template <typename T, bool EXCL>
__global__ void __launch_bounds__(SCX_BLOCK, SCF_MIN_BLOCKS)
scf_scan_kernel(const scx_params p)
{
	SCX_SHARED_DECL(s);
	const unsigned tid = threadIdx.x;
	const unsigned lane = tid & 31;
	const unsigned warp = tid >> 5;
	const long long tp0 = SCXP_NOW();
	long long	tp = tp0;
	unsigned	tile;
	scx_fr		f;
	scx_ctx		c;

	(void) tp;
	if (tid == 0)
	{
		s.tile = atomicAdd(&p.ctl[SCF_CTL_COUNTER], 1u);
		s.bail = scx_redo_set(p) ? 1 : 0;
		s.fail = 0;
		scx_tile_reset(s);
	}
	__syncthreads();
	tile = s.tile;
	if (s.bail)
		return;

	scx_front<T>(p, tile, s, f, tp);
	SCXP_MARK(SCXP_BSCAN);
	if (f.slow)
	{
		if (tid == 0)
			scf_set_redo(p);
		return;
	}

	/* the aggregate; the tile's share of the total; the carry and the prefix */
	if (tid == 0 && tile > 0 && tile + 1 < p.ntiles)
		scf_put(&p.recs[2 * tile], f.T1, f.T2, f.T3,
				scf_flags(s, f.tile_zf) | (scf_grid_code(f) << SCF_GRID_SHIFT));
	if (warp == 1)
	{
		scf_add_total(p, tile, s, f);
		if (lane == 0 && p.pf_dist > 0)
			scf_prefetch<T>(p, tile + p.pf_dist);
	}
	SCXP_MARK(SCXP_AGG);
	if (warp == 0)
	{
		if (tile == 0)
		{
			scx_carry_in(p, s);
			if (lane == 0)
				s.cflags = (s.cacc.n_nan ? SCF_M_NAN : 0) | (s.cacc.n_pos_inf ? SCF_M_PINF : 0) |
					(s.cacc.n_neg_inf ? SCF_M_NINF : 0) | (s.czf << SCF_M_ZSHIFT);
		}
		else
			scf_lookback(p, tile, s);
		if (lane == 0 && !s.bail && tile + 1 < p.ntiles)
			scf_put_prefix(p, tile, s, f);
		SCXP_MARK(SCXP_LB);
	}
	__syncthreads();
	if (s.bail)
		return;

	/* the outputs */
	{
		const unsigned cf = s.cflags;

		if (!scx_ctx_init(c, f, s, s.cdd[0], s.cdd[1], s.cdd[2], (cf & SCF_M_NAN) != 0,
						  (cf & SCF_M_PINF) != 0, (cf & SCF_M_NINF) != 0, cf >> SCF_M_ZSHIFT))
		{
			if (tid == 0)
				scf_set_redo(p);
			return;
		}
	}
	scx_outputs_any<EXCL, false>(s, c, f);
	SCXP_MARK(SCXP_OUT0);
	__syncthreads();
	if (s.fail)
	{
		if (tid == 0)
			scf_set_redo(p);
		return;
	}
	scx_store(p, (long long) tile * SCX_TILE, f.full, f.lo, f.hi, s);
	SCXP_MARK(SCXP_STORE);

	/* the block that finishes last writes the launch's carry */
	if (tid == 0)
	{
		__threadfence();
		s.last = atomicAdd(&p.ctl[SCF_CTL_DONE], 1u) == p.ntiles - 1;
	}
	__syncthreads();
	if (s.last && warp == 0)
		scf_finish(p);
	SCXP_TILE_DONE(tp0);
}

/* scx_normalize_kernel -- n == 0: leave *carry normalized, as every call does */
__global__ void
scx_normalize_kernel(gs_exact_acc *carry)
{
	const int	lane = threadIdx.x & 31;
	long long	v0 = carry->limb[lane];
	long long	v1 = carry->limb[32 + lane];
	long long	v2 = lane < GS_ACC_LIMBS - 64 ? carry->limb[64 + lane] : 0;

	gsx_warp_normalize(v0, v1, v2);
	carry->limb[lane] = v0;
	carry->limb[32 + lane] = v1;
	if (lane < GS_ACC_LIMBS - 64)
		carry->limb[64 + lane] = v2;
}

#endif							/* GPUSCAN_SCAN_EXACT_KERNELS_CUH */
