/*-------------------------------------------------------------------------
 *
 * scan_exact.cu
 *	  Correctly rounded prefix sums on the device: gsd_prefix_sum_f64 and
 *	  gsd_prefix_sum_f32.
 *
 * Output i is gs_acc_round() of the exact sum of the carry and the inputs
 * up to i (inclusive) or before i (exclusive): the exact prefix sum rounded
 * once to the nearest double, ties to even, with the IEEE rules for Inf,
 * NaN and -0.  So the bits depend on nothing but the data: not on the
 * scheduling, the tile size, the chunking or the device.
 *
 * One pass over the data, decoupled look-back (Merrill and Garland,
 * "Single-pass Parallel Prefix Scan with Decoupled Look-back",
 * NVR-2016-002), in two kernels launched one after the other:
 *
 *  - the fast kernel (scf_scan_kernel) chains only double-doubles with
 *	  rigorous error bounds from tile to tile, so that a tile publishes its
 *	  prefix right after its look-back, and keeps only outputs that the
 *	  bound proves correctly rounded (which, for ordinary data, is all of
 *	  them).  The launch's exact carry comes from the tiles' exact sums,
 *	  added up by atomics.  Where an output cannot be proved so, or a tile
 *	  needs the exact path, it sets a flag and stops;
 *  - the exact kernel (scx_scan_kernel) returns at once unless that flag
 *	  is set, and then scans the whole launch again, as below, with exact
 *	  carries: it never gives up.
 *
 * So the fast kernel does steps 1, 2, 3 and 5 below without the digits;
 * the exact kernel does all of them.  Each block takes the next tile of
 * SCX_TILE elements by an atomic counter (so a block only ever waits for
 * tiles that blocks already running have taken) and:
 *
 *	 1. loads the tile with 16-byte loads, transposing it through shared
 *		memory so that each thread then owns SCX_ITEMS consecutive elements
 *		(floats become doubles on the way), and finds its largest magnitude;
 *	 2. splits every element exactly into level parts (the extraction of
 *		Rump, Ogita and Oishi, as in reduce_exact.cuh) on grids fixed by that
 *		magnitude.  Every sum of level-j parts within a tile is an exact
 *		double, so the tile's exact sum is three doubles T1 + T2 + T3, and the
 *		exact prefix of each element within the tile is A1 + A2 + A3, from an
 *		exact block scan of the per-thread level sums;
 *	 3. publishes T1..T3 as its aggregate; warp 0 then looks back over up to
 *		32 predecessors at a time, adding their aggregates until it meets one
 *		that has published its inclusive prefix, into a double-double CH + CL
 *		with a rigorous error bound CE (the error terms are kept exactly, so
 *		CE is 0 where every step was exact);
 *	 4. while the other warps start on the outputs, warp 0 sums the same
 *		statuses exactly into a fixed-point accumulator held in its
 *		registers, by warp reductions, and leaves it in shared memory (so
 *		the order of the look-back, which depends on timing, cannot matter),
 *		adds the tile's aggregate, normalizes, and publishes the tile's
 *		inclusive prefix: its digits, and a double-double of it for the
 *		look-backs of later tiles;
 *	 5. each output is CH + CL + A1 + A2 + A3 through a few error-free
 *		transformations, kept where the error bound proves it correctly
 *		rounded (Ziv's strategy).  Otherwise a longer chain of TwoSums that
 *		also recognizes exact results (ties, exact zeros) decides, and where
 *		that cannot either, the warp computes the output exactly: the carry's
 *		digits plus A1 + A2 + A3, normalized and rounded.
 *
 * A tile whose elements do not fit three levels (a range of more than about
 * 70 binades) or that holds a value of 2^997 or more publishes no
 * aggregate, only its inclusive prefix; such a tile, and one whose carry
 * reaches 2^1000, takes the exact path for its outputs: per-warp exact sums
 * in shared memory, then each warp walks its elements in order with a
 * warp-held accumulator and rounds after every element.  Inf and NaN never
 * enter the levels: each tile records where the first NaN, +Inf and -Inf
 * occur, which with the carry's counts gives every output's special value;
 * the sign of an exact zero comes the same way from the first -0 and the
 * first other input.
 *
 * Scratch memory per call (stream-ordered pool): control words, the
 * launch's total (36 kB), and per tile two 32-byte records (fast kernel), a
 * status word, an aggregate (40 bytes) and an inclusive prefix (328 bytes;
 * exact kernel).  Inputs beyond SCX_MAX_TILES tiles are scanned in
 * pieces, each one launch, chained through *d_carry exactly as a caller's
 * chunks would be.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>

#include "device_internal.cuh"
#include "reduce_exact.cuh"

/* SCX_BLOCK and SCX_M can be set for probes (bench/scan_probe.cu, H11) */
#ifndef SCX_BLOCK
#define SCX_BLOCK		256		/* threads per block */
#endif
#define SCX_ITEMS		16		/* consecutive elements per thread */
#define SCX_WARPS		(SCX_BLOCK / 32)
#define SCX_TILE		(SCX_BLOCK * SCX_ITEMS)	/* elements per tile: 4096 */
#define SCX_PAIRS		(SCX_ITEMS / 2) /* double2 vectors per thread */
#define SCX_WARP_ELEMS	(32 * SCX_ITEMS)

#ifndef SCX_M
#define SCX_M			12		/* level window headroom: 2^M >= SCX_TILE terms */
#endif
#define SCX_LEVEL_BITS	(53 - SCX_M)	/* bits one level covers (41) */

#define SCX_MAX_TILES	(1u << 17)	/* tiles per launch (scratch ~48 MB) */

/*
 * Resident blocks per SM asked of the compiler: 4 (64 registers, a little
 * spilling in per-tile code) measured faster than 3 (80 registers) on an
 * H200 (bench/results/probe-scan-*: 2^28 doubles 3071 against 3117 us with
 * SCX_SPLIT_OUT).
 */
#ifndef SCX_MIN_BLOCKS
#define SCX_MIN_BLOCKS	4
#endif

/* the same for the fast kernel (3 measured 7-9% slower, 5 about 4% slower) */
#ifndef SCF_MIN_BLOCKS
#define SCF_MIN_BLOCKS	4
#endif

/*
 * The fast kernel's look-back: tries of a window before it sleeps between
 * them (checking the redo flag), and for how long.  1 try and 32 ns, or 2
 * and 256 ns, measured within 1% of these on an H200
 * (bench/results/probe-scan-nvidia-h200-2026-11-21-fast.txt).
 */
#ifndef SCF_SPIN_FREE
#define SCF_SPIN_FREE	5
#endif
#ifndef SCF_SLEEP_NS
#define SCF_SLEEP_NS	64
#endif

/*
 * SCX_FAST: 1 (default) runs the fast kernel first and the exact kernel
 * only where the fast one asks for it; 0 runs only the exact kernel, as
 * before the fast kernel existed (for comparisons: same bits).
 */
#ifndef SCX_FAST
#define SCX_FAST		1
#endif

/*
 * Elements whose |x| is 2^997 or more (biased exponent >= 2020) take the
 * exact path: with them out of the levels, the level sums stay below
 * 2^1010, and with the carry below 2^1000 no double operation of the fast
 * path can overflow.
 */
#define SCX_HUGE_ABS	(2020u << 20)
#define SCX_SPECIAL_ABS 0x7ff00000u
#define SCX_CARRY_MAX	0x1p1000

#define SCX_U			0x1p-53 /* unit roundoff */
#define SCX_GAP_SCALE	0x1.fffffffffffffp-53	/* (1 - 2^-53) 2^-52 */

/* tile status words */
#define SCX_EMPTY		0u
#define SCX_AGG			1u		/* aggregate published */
#define SCX_PREFIX		2u		/* inclusive prefix published */

/* zero flags: as has_negzero / has_nonnegzero of gs_exact_acc */
#define SCX_Z_NEG		1u
#define SCX_Z_NONNEG	2u

/* per-warp tile facts found by the level pass */
#define SCX_T_LEVEL3	1u		/* some element needs the third level */
#define SCX_T_SLOW		2u		/* some element does not fit three levels */

/* index of the first element of a kind in tile_first[] */
#define SCX_F_NEGZ		0
#define SCX_F_NONNEG	1
#define SCX_F_NAN		2
#define SCX_F_PINF		3
#define SCX_F_NINF		4
#define SCX_NFIRST		5

#define SCX_FULL		0xffffffffu

/*
 * SCX_LBX_ATOMIC: 1 sums the look-back's statuses exactly with 64-bit shared
 * atomics (every lane into the same few limbs); 0 (default) in the warp's
 * registers, one warp reduction per group of lanes whose values share a limb.
 */
#ifndef SCX_LBX_ATOMIC
#define SCX_LBX_ATOMIC	0
#endif

/*
 * SCX_SPLIT_OUT: 1 takes the outputs off warp 0, which is on every tile's
 * critical path (look-back, exact carry, publication of the prefix): warp 0
 * leaves the exclusive prefixes of its threads' elements in shared memory
 * and warps 1..SCX_SPLIT_WARPS compute its outputs, each lane a quarter of
 * one of warp 0's threads (4 elements), besides their own 16; the store
 * barrier then waits for max(exact carry + publication, outputs) instead of
 * their sum.  The outputs are the same bits (each is correctly rounded; the
 * quarter's starting prefix is an exact sum of level parts, as any).
 * 1 is the default (H200, 2^28 doubles: 3117 against 3247 us); 0: every
 * warp computes its own outputs.
 */
#ifndef SCX_SPLIT_OUT
#define SCX_SPLIT_OUT	1
#endif
#define SCX_SPLIT_WARPS	(32 * SCX_ITEMS / 4 / 32)	/* 128 quarters, one per lane: 4 warps */

/*
 * SCX_LB_PREFETCH: 1 issues the acquire of the next look-back window's
 * status words right after the loads of this window's aggregates (when this
 * window holds no prefix, so that the next one is certainly needed), so the
 * two round trips to L2 overlap: about one per window instead of two.  The
 * acquire orders only what follows it; this window's data was ordered by
 * its own acquire.  0 (default): the statuses are loaded at the window's
 * start; 1 measured slower on an H200 (2^28 doubles: 3342 against 3247 us).
 */
#ifndef SCX_LB_PREFETCH
#define SCX_LB_PREFETCH	0
#endif

/*
 * SCF_LB_INT: 1 (default) adds up a fast look-back window's aggregates as
 * integers where every tile of the window has the same level grids (data of
 * one magnitude): each aggregate T1 + T2 + T3 is, exactly, three integers
 * times the grids' units, whose warp sums are exact 64-bit integer sums,
 * turned into one double-double with an exact error term once per window.
 * That replaces the five dependent double-double additions of a warp
 * reduction (about 30 FP64 operations each) on the look-back's critical
 * path.  Windows with mixed grids take that reduction, as with 0.
 */
#ifndef SCF_LB_INT
#define SCF_LB_INT		1
#endif

/*
 * SCF_PF_QUARTERS: the fast kernel's tile t asks L2 for the input of tile
 * t + d, d = SCF_PF_QUARTERS / 4 of the blocks resident at once (0: no
 * prefetch).  Tiles start in order, about a tile's lifetime apart per
 * resident set, and the request goes out after t's front, so with d about
 * half the resident blocks the data arrives shortly before tile t + d
 * starts, instead of the front waiting for DRAM.
 */
#ifndef SCF_PF_QUARTERS
#define SCF_PF_QUARTERS	2
#endif

/*
 * SCX_PROFILE: per-phase clock64() cycles and event counts, summed over the
 * tiles into scx_prof (read by gsd_scan_profile_read(); bench/scan_probe.cu).
 * Off by default; then every SCXP_* below is nothing.
 */
#ifdef SCX_PROFILE
enum
{
	SCXP_TILES,					/* tiles (thread 0) */
	SCXP_TOTAL,					/* thread 0: start to end of the block */
	SCXP_LOAD,					/* thread 0: tile load, max |x|, first barrier */
	SCXP_LEVELS,				/* thread 0: level pass (extraction), firsts */
	SCXP_BSCAN,					/* thread 0: block scan of the level sums, barrier */
	SCXP_AGG,					/* thread 0: publish the aggregate */
	SCXP_LB,					/* warp 0: look-back (double-double), or carry-in */
	SCXP_LB_SPIN,				/* warp 0: cycles in spin loops that had to wait */
	SCXP_LB_WAITS,				/* windows that had to wait */
	SCXP_LB_WINDOWS,			/* windows of 32 predecessors */
	SCXP_LB_DEPTH,				/* predecessors visited (tile - tile with prefix) */
	SCXP_LB_DEPTH_MAX,			/* the deepest look-back (max, not a sum) */
	SCXP_LB_BARRIER,			/* warp 1: waiting at the barrier after the look-back */
	SCXP_LBX,					/* warp 0: scx_lookback_exact */
	SCXP_PUB,					/* warp 0: scx_publish */
	SCXP_OUT0,					/* warp 0: its outputs (SCX_SPLIT_OUT: none, ~0) */
	SCXP_OUT1,					/* warp 1: its outputs (the fast path, undelayed;
								 * SCX_SPLIT_OUT: and its quarters of warp 0's) */
	SCXP_STORE_BARRIER,			/* warp 1: waiting at the barrier before the store */
	SCXP_STORE,					/* thread 0: the store (issue) */
	SCXP_N_OUT,					/* outputs computed by the fast-path tiles */
	SCXP_N_FAST2,				/* outputs accepted at round_fast's second look */
	SCXP_N_CAREFUL,				/* outputs accepted by round_careful */
	SCXP_N_EXACT,				/* outputs sent to the warp's exact fallback */
	SCXP_N_EXACT_CALLS,			/* scx_exact_outputs calls (warp-level) */
	SCXP_N_SLOW,				/* tiles on the exact path (slow or carry too big) */
	SCXP_N_LEV3,				/* tiles that needed the third level */
	SCXP_N_MASKED,				/* tiles with Inf, NaN or huge values */
	SCXP_N_REDO,				/* fast kernel: tiles that sent the launch to the exact kernel */
	SCXP_NCOUNTERS
};

#define SCXP_COPIES		32		/* copies of the counters, by block, against contention */
__device__ unsigned long long scx_prof[SCXP_COPIES][SCXP_NCOUNTERS];

#define SCXP_NOW()		((long long) clock64())
#define SCXP_ADD(k, v)	atomicAdd(&scx_prof[blockIdx.x % SCXP_COPIES][(k)], (unsigned long long) (v))
#define SCXP_MAX(k, v)	atomicMax(&scx_prof[blockIdx.x % SCXP_COPIES][(k)], (unsigned long long) (v))
#define SCXP_DECL(x)	x
#define SCXP_INC(ps, f) ((ps).f++)
/* SCXP_MARK -- (thread 0) add the cycles since tp to counter k; tp = now */
#define SCXP_MARK(k) \
	do { \
		if (threadIdx.x == 0) \
		{ \
			long long	tq_ = SCXP_NOW(); \
\
			SCXP_ADD((k), tq_ - tp); \
			tp = tq_; \
		} \
	} while (0)
/* SCXP_TILE_DONE -- (thread 0) the block's lifetime from t0, and one tile more */
#define SCXP_TILE_DONE(t0) \
	do { \
		if (threadIdx.x == 0) \
		{ \
			SCXP_ADD(SCXP_TOTAL, SCXP_NOW() - (t0)); \
			SCXP_ADD(SCXP_TILES, 1); \
		} \
	} while (0)
#else
#define SCXP_NOW()		0LL
#define SCXP_ADD(k, v)	((void) 0)
#define SCXP_MAX(k, v)	((void) 0)
#define SCXP_DECL(x)
#define SCXP_INC(ps, f) ((void) 0)
#define SCXP_MARK(k)	((void) 0)
#define SCXP_TILE_DONE(t0) ((void) 0)
#endif

/* per-thread output counters (empty without SCX_PROFILE) */
typedef struct scx_pstat
{
#ifdef SCX_PROFILE
	unsigned	n_out;
	unsigned	n_fast2;
	unsigned	n_careful;
	unsigned	n_exact;
	unsigned	n_calls;
#else
	char		unused;
#endif
} scx_pstat;

static_assert(SCX_TILE <= (1 << SCX_M), "a tile's level sums must stay exact");
static_assert(SCX_PAIRS == 8, "the shared-memory swizzle assumes 8 vectors per thread");
static_assert(SCX_ITEMS % 4 == 0, "float4 loads");
static_assert(!SCX_SPLIT_OUT || (SCX_ITEMS == 16 && SCX_SPLIT_WARPS < SCX_WARPS),
			  "SCX_SPLIT_OUT: quarters of 4 elements, one per lane of warps 1..4");

/* A tile's aggregate: the exact sum lev[0] + lev[1] + lev[2], and its specials. */
typedef struct scx_agg
{
	double		lev[3];
	unsigned	n_nan;
	unsigned	n_pos_inf;
	unsigned	n_neg_inf;
	unsigned	zflags;
} scx_agg;

/*
 * A tile's inclusive prefix: the normalized accumulator as 32-bit digits
 * (digit 66 is the signed top limb), its counters and flags, and a
 * double-double ph + pl with |value - ph - pl| <= pe (ph NaN: beyond 2^1006).
 */
typedef struct scx_prefix
{
	unsigned	digit[GS_ACC_LIMBS + 1];
	unsigned long long n_nan;
	unsigned long long n_pos_inf;
	unsigned long long n_neg_inf;
	unsigned	zflags;
	unsigned	pad;
	double		ph;
	double		pl;
	double		pe;
} scx_prefix;

/*
 * The fast kernel's look-back record, one for a tile's aggregate and one for
 * its inclusive prefix: three doubles and a word of flags, every word
 * SCF_UNSET until the tile writes it (once; a double that happens to have
 * the bits of SCF_UNSET is written as another NaN).  A reader takes a
 * record as published when none of its words is SCF_UNSET: each 8-byte
 * word is read and written whole, so no flag and no fence are needed, and
 * one round trip to L2 reads a whole window of records.
 *
 * Aggregate: the level sums T1, T2, T3.  Prefix: a double-double ph + pl
 * of the exact inclusive prefix with |prefix - ph - pl| <= pe.  Flags (both,
 * the low 32 bits of the last word): SCF_M_NAN, SCF_M_PINF, SCF_M_NINF
 * where the tiles covered hold a NaN, +Inf, -Inf, and the zero flags
 * (SCX_Z_*) shifted by SCF_M_ZSHIFT.  The aggregate's last word also holds,
 * from bit SCF_GRID_SHIFT, the tile's grid code (scf_grid_code).
 */
typedef struct __align__(32) scf_rec
{
	unsigned long long w[4];
} scf_rec;

#define SCF_UNSET		0xffffffffffffffffULL
#define SCF_M_NAN		1u
#define SCF_M_PINF		2u
#define SCF_M_NINF		4u
#define SCF_M_ZSHIFT	3
#define SCF_GRID_SHIFT	32

/* the fast kernel's control words (p.ctl) */
#define SCF_CTL_COUNTER 0		/* tile counter */
#define SCF_CTL_DONE	1		/* tiles finished */
#define SCF_CTL_REDO	2		/* nonzero: the exact kernel redoes the launch */
#define SCF_CTL_ZF		3		/* zero flags of all tiles (OR) */
#define SCF_CTL_WORDS	64		/* 256 bytes */

/*
 * The launch's exact total, for the final carry: SCF_COPIES copies (tile %
 * SCF_COPIES, against contention) of GS_ACC_LIMBS limbs and three counters
 * (NaN, +Inf, -Inf), summed by 64-bit atomics.
 */
#define SCF_COPIES		64
#define SCF_FIN_WORDS	(GS_ACC_LIMBS + 3)

typedef struct scx_params
{
	const char *in;				/* &d_in[-shift]: 16-byte aligned, never read there */
	size_t		n;
	unsigned	shift;			/* elements between the 16-byte boundary and d_in */
	unsigned	ntiles;
	double	   *out;
	int			out_vec;		/* a full tile's output pairs are 16-byte aligned */
	gs_exact_acc *carry;
	unsigned   *counter;
	unsigned   *flags;
	scx_agg    *aggs;
	scx_prefix *prefixes;
	unsigned   *ctl;			/* fast kernel: SCF_CTL_* */
	scf_rec    *recs;			/* fast kernel: tile t's aggregate 2t, prefix 2t + 1 */
	unsigned long long *fin;	/* fast kernel: [SCF_COPIES][SCF_FIN_WORDS] */
	unsigned	pf_dist;		/* fast kernel: tile t prefetches tile t + pf_dist (0: none) */
} scx_params;

typedef struct scx_shared
{
	double2		buf[SCX_TILE / 2];	/* the tile; the outputs replace it */
	gsx_block_acc cacc;			/* exact carry into the tile (limbs, counts) */
	gsx_block_acc wacc[SCX_WARPS];	/* exact per-warp sums (exact path only) */
	double		wsum[SCX_WARPS][3];	/* per-warp level sums */
	double		cdd[3];			/* carry as CH + CL, bound CE */
#if SCX_SPLIT_OUT
	double		a0[32][3];		/* warp 0's threads' exclusive prefixes a1, a2, a3 */
#endif
	unsigned	wmax[SCX_WARPS];
	unsigned	wmin[SCX_WARPS];
	unsigned	wzmin[SCX_WARPS];
	unsigned	wmax2[SCX_WARPS];
	unsigned	wrare[SCX_WARPS];
	unsigned	wbits[SCX_WARPS];
	int			first[SCX_NFIRST];	/* first tile position of each kind */
	unsigned	cnt[3];			/* NaN, +Inf, -Inf in the tile */
	unsigned	czf;			/* carry zero flags */
	unsigned	tile;
	long long	lb_prefix;		/* the tile whose prefix the look-back met */
	volatile int cacc_ready;	/* cacc holds the exact carry (set by warp 0) */
	unsigned	cflags;			/* fast kernel: the carry's SCF_M_* flags */
	int			bail;			/* fast kernel: the exact kernel redoes the launch */
	int			fail;			/* fast kernel: an output was not proved */
	int			last;			/* fast kernel: this block finished last */
} scx_shared;

/*
 * A block's scx_shared: static shared memory for tiles of 4096 (39 kB),
 * dynamic for larger tiles (probe builds), which pass the default limit of
 * 48 kB and must be allowed it first (scx_smem_allow).
 */
#if SCX_TILE > 4096
#define SCX_DYN_SMEM	sizeof(scx_shared)
#define SCX_SHARED_DECL(s) \
	extern __shared__ __align__(16) unsigned char scx_dsmem_[]; \
	scx_shared &s = *reinterpret_cast<scx_shared *>(scx_dsmem_)
#else
static_assert(sizeof(scx_shared) <= 48 * 1024, "static shared memory above the default limit");
#define SCX_DYN_SMEM	0
#define SCX_SHARED_DECL(s) __shared__ scx_shared s
#endif

/* What every thread knows about its tile once the carry is in. */
typedef struct scx_ctx
{
	double		sg1,
				sg2,
				sg3;			/* level windows */
	double		ch,
				cl;				/* carry double-double */
	double		b2;				/* twice the fast path's error bound */
	double		ce2;			/* twice the carry's error bound */
	int			lo,
				hi;				/* valid tile positions [lo, hi) */
	int			f_negz,
				f_nonneg;		/* first -0 / other input; -1: in the carry */
	int			f_nan,
				f_pinf,
				f_ninf;			/* first NaN, +Inf, -Inf; -1: in the carry */
	int			sp_any,
				sp_nan;			/* first position whose prefix is special / NaN */
	bool		special;		/* sp_any < SCX_TILE */
	bool		partial;
} scx_ctx;

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

/* ---- host side ---- */

#ifdef SCX_PROFILE
/*
 * gsd_scan_profile_read -- the first n counters (summed over the copies;
 * SCXP_LB_DEPTH_MAX the largest) into out; returns how many there are.
 * gsd_scan_profile_reset -- zero them.  Only in an SCX_PROFILE build
 * (bench/scan_probe.cu).
 */
extern "C" int
gsd_scan_profile_read(uint64_t *out, int n)
{
	static unsigned long long h[SCXP_COPIES][SCXP_NCOUNTERS];

	if (cudaMemcpyFromSymbol(h, scx_prof, sizeof(h)) != cudaSuccess)
		return -1;
	for (int k = 0; k < n && k < SCXP_NCOUNTERS; k++)
	{
		uint64_t	v = 0;

		for (int c = 0; c < SCXP_COPIES; c++)
			v = k == SCXP_LB_DEPTH_MAX ? (h[c][k] > v ? h[c][k] : v) : v + h[c][k];
		out[k] = v;
	}
	return SCXP_NCOUNTERS;
}

extern "C" int
gsd_scan_profile_reset(void)
{
	static const unsigned long long z[SCXP_COPIES][SCXP_NCOUNTERS] = {{0}};

	return cudaMemcpyToSymbol(scx_prof, z, sizeof(z)) == cudaSuccess ? 0 : -1;
}
#endif

/*
 * The scratch of a call, for max_tiles tiles: the fast kernel's control
 * words, the exact kernel's tile counter, the launch's total and the exact
 * kernel's statuses (zeroed before each launch, together), the fast
 * kernel's records (SCF_UNSET before each launch), the exact kernel's
 * aggregates and prefixes.
 */
#define SCX_OFF_COUNTER		256
#define SCX_OFF_FIN			512
#define SCX_OFF_FLAGS		(SCX_OFF_FIN + gsd_scratch_align(SCF_COPIES * SCF_FIN_WORDS * 8))

static size_t
scx_off_recs(unsigned max_tiles)
{
	return SCX_OFF_FLAGS + gsd_scratch_align((size_t) max_tiles * sizeof(unsigned));
}

static size_t
scx_off_aggs(unsigned max_tiles)
{
	return scx_off_recs(max_tiles) + gsd_scratch_align((size_t) max_tiles * 2 * sizeof(scf_rec));
}

static size_t
scx_off_prefixes(unsigned max_tiles)
{
	return scx_off_aggs(max_tiles) + gsd_scratch_align((size_t) max_tiles * sizeof(scx_agg));
}

/*
 * scx_smem_allow -- let both kernels have sizeof(scx_shared) bytes of
 * dynamic shared memory, where that is more than the default 48 kB (once
 * per pair of kernels)
 */
template <typename T, bool EXCL>
static gsd_status
scx_smem_allow(void)
{
	static bool done = false;
	gsd_status	st = GSD_OK;

	if (!done && SCX_DYN_SMEM > 0)
	{
		st = gsd_cuda_status(cudaFuncSetAttribute(scx_scan_kernel<T, EXCL>,
												  cudaFuncAttributeMaxDynamicSharedMemorySize,
												  (int) sizeof(scx_shared)),
							 "cudaFuncSetAttribute");
		if (st == GSD_OK)
			st = gsd_cuda_status(cudaFuncSetAttribute(scf_scan_kernel<T, EXCL>,
													  cudaFuncAttributeMaxDynamicSharedMemorySize,
													  (int) sizeof(scx_shared)),
								 "cudaFuncSetAttribute");
	}
	if (st == GSD_OK)
		done = true;
	return st;
}

/*
 * scx_resident -- how many blocks of kernel k the device holds at once
 * (*per_sm caches the blocks per SM, one cache per kernel)
 */
static gsd_status
scx_resident(const void *k, int *per_sm, size_t *blocks)
{
	if (*per_sm == 0)
	{
		int			b = 0;
		gsd_status	st = gsd_cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			&b, k, SCX_BLOCK, SCX_DYN_SMEM),
										 "cudaOccupancyMaxActiveBlocksPerMultiprocessor");

		if (st != GSD_OK)
			return st;
		*per_sm = b < 1 ? 1 : b;
	}
	*blocks = (size_t) gsd_sm_count() * (size_t) *per_sm;
	return GSD_OK;
}

/*
 * scx_launch_kernels -- the fast kernel (one block per tile), then the
 * exact kernel, which returns at once unless the fast one left it the launch
 */
template <typename T, bool EXCL>
static gsd_status
scx_launch_kernels(const scx_params &p, cudaStream_t stream, const char *what)
{
	static int	exact_per_sm = 0,
				fast_per_sm = 0;
	scx_params	lp = p;
	unsigned	grid;
	size_t		exact_blocks = 0,
				fast_blocks = 0;
	gsd_status	st = scx_smem_allow<T, EXCL>();

	if (st == GSD_OK)
		st = scx_resident((const void *) scx_scan_kernel<T, EXCL>, &exact_per_sm, &exact_blocks);
	if (st == GSD_OK)
		st = scx_resident((const void *) scf_scan_kernel<T, EXCL>, &fast_per_sm, &fast_blocks);
	if (st != GSD_OK)
		return st;
	lp.pf_dist = (unsigned) (fast_blocks * SCF_PF_QUARTERS / 4);
	/* the exact kernel: as many blocks as are resident, each taking tile after tile */
	grid = (unsigned) (lp.ntiles < exact_blocks ? lp.ntiles : exact_blocks);
	if (SCX_FAST)
		scf_scan_kernel<T, EXCL><<<lp.ntiles, SCX_BLOCK, SCX_DYN_SMEM, stream>>>(lp);
	scx_scan_kernel<T, EXCL><<<grid, SCX_BLOCK, SCX_DYN_SMEM, stream>>>(lp);
	GSD_CHECK_LAUNCH(what);
	return GSD_OK;
}

/* scx_launch_one -- one launch over at most SCX_MAX_TILES tiles */
template <typename T>
static gsd_status
scx_launch_one(const T *d_in, size_t n, double *d_out, int exclusive, gs_exact_acc *d_carry,
			   char *scratch, unsigned max_tiles, const char *what)
{
	const unsigned vec = 16 / sizeof(T);
	scx_params	p;
	size_t		ntiles;
	cudaStream_t stream = gsd_stream();
	gsd_status	st;

	p.shift = (unsigned) (((uintptr_t) d_in & 15) / sizeof(T));
	ntiles = (n + p.shift + SCX_TILE - 1) / SCX_TILE;
	if (ntiles > max_tiles || p.shift >= vec)
		return gsd_fail(GSD_FAILED, "%s: internal error: %zu tiles in one launch", what, ntiles);
	p.in = reinterpret_cast<const char *>(d_in) - (size_t) p.shift * sizeof(T);
	p.n = n;
	p.ntiles = (unsigned) ntiles;
	p.out = d_out;
	p.out_vec = ((((uintptr_t) d_out) >> 3) - p.shift) % 2 == 0;
	p.carry = d_carry;
	p.ctl = reinterpret_cast<unsigned *>(scratch);
	p.counter = reinterpret_cast<unsigned *>(scratch + SCX_OFF_COUNTER);
	p.fin = reinterpret_cast<unsigned long long *>(scratch + SCX_OFF_FIN);
	p.flags = reinterpret_cast<unsigned *>(scratch + SCX_OFF_FLAGS);
	p.recs = reinterpret_cast<scf_rec *>(scratch + scx_off_recs(max_tiles));
	p.aggs = reinterpret_cast<scx_agg *>(scratch + scx_off_aggs(max_tiles));
	p.prefixes = reinterpret_cast<scx_prefix *>(scratch + scx_off_prefixes(max_tiles));

	st = gsd_cuda_status(cudaMemsetAsync(scratch, 0, SCX_OFF_FLAGS + ntiles * sizeof(unsigned),
										 stream), "cudaMemsetAsync");
	if (st == GSD_OK && SCX_FAST)
		st = gsd_cuda_status(cudaMemsetAsync(p.recs, 0xff, ntiles * 2 * sizeof(scf_rec), stream),
							 "cudaMemsetAsync");
	if (st == GSD_OK && !SCX_FAST)
		st = gsd_cuda_status(cudaMemsetAsync(&p.ctl[SCF_CTL_REDO], 1, 1, stream),
							 "cudaMemsetAsync");
	if (st != GSD_OK)
		return st;
	if (exclusive)
		return scx_launch_kernels<T, true>(p, stream, what);
	return scx_launch_kernels<T, false>(p, stream, what);
}

/* scx_launch -- validate, allocate scratch, launch piece by piece */
template <typename T>
static gsd_status
scx_launch(const T *d_in, size_t n, double *d_out, int exclusive, gs_exact_acc *d_carry,
		   const char *what)
{
	const size_t vec = 16 / sizeof(T);
	/* a piece's length keeps d_in's alignment and fits max_tiles tiles */
	const size_t piece = (size_t) SCX_MAX_TILES * SCX_TILE - vec;
	cudaStream_t stream;
	gsd_status	st;
	size_t		shift,
				ntiles,
				bytes,
				done;
	unsigned	max_tiles;
	char	   *scratch = NULL;

	st = gsd_require_open();
	if (st != GSD_OK)
		return st;
	if (d_carry == NULL || ((uintptr_t) d_carry % 8) != 0)
		return gsd_fail(GSD_INVALID, "%s: carry pointer is NULL or misaligned", what);
	if (n > 0 && (d_in == NULL || ((uintptr_t) d_in % sizeof(T)) != 0))
		return gsd_fail(GSD_INVALID, "%s: input pointer is NULL or not aligned to its element size", what);
	if (n > 0 && (d_out == NULL || ((uintptr_t) d_out % sizeof(double)) != 0))
		return gsd_fail(GSD_INVALID, "%s: output pointer is NULL or misaligned", what);
	if (n > 0 && (uintptr_t) d_out < (uintptr_t) (d_in + n) &&
		(uintptr_t) d_in < (uintptr_t) (d_out + n))
		return gsd_fail(GSD_INVALID, "%s: output overlaps the input", what);
	stream = gsd_stream();

	if (n == 0)
	{
		scx_normalize_kernel<<<1, 32, 0, stream>>>(d_carry);
		GSD_CHECK_LAUNCH(what);
		return GSD_OK;
	}

	shift = ((uintptr_t) d_in & 15) / sizeof(T);
	ntiles = (n + shift + SCX_TILE - 1) / SCX_TILE;
	max_tiles = (unsigned) (ntiles < SCX_MAX_TILES ? ntiles : SCX_MAX_TILES);
	bytes = scx_off_prefixes(max_tiles) + (size_t) max_tiles * sizeof(scx_prefix);
	st = gsd_cuda_status(cudaMallocAsync((void **) &scratch, bytes, stream),
						 "cudaMallocAsync (scan scratch)");
	if (st != GSD_OK)
		return st;

	for (done = 0; done < n && st == GSD_OK; done += piece)
	{
		size_t		len = n - done < piece ? n - done : piece;

		st = scx_launch_one<T>(d_in + done, len, d_out + done, exclusive, d_carry,
							   scratch, max_tiles, what);
	}

	if (st == GSD_OK)
		return gsd_cuda_status(cudaFreeAsync(scratch, stream), "cudaFreeAsync (scan scratch)");
	(void) cudaFreeAsync(scratch, stream);	/* keep the first error's message */
	return st;
}

gsd_status
gsd_prefix_sum_f64(const double *d_in, size_t n, double *d_out, int exclusive,
				   gs_exact_acc *d_carry)
{
	return scx_launch<double>(d_in, n, d_out, exclusive, d_carry, "prefix sum of doubles");
}

gsd_status
gsd_prefix_sum_f32(const float *d_in, size_t n, double *d_out, int exclusive,
				   gs_exact_acc *d_carry)
{
	return scx_launch<float>(d_in, n, d_out, exclusive, d_carry, "prefix sum of floats");
}
