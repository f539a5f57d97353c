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
 * This file holds the settings, the types and the host side; the device
 * code is in four parts, included in order: scan_exact_accumulator.cuh
 * (helpers, the warp-held accumulator), scan_exact_outputs.cuh (rounding the
 * outputs), scan_exact_tile.cuh (a tile's phases) and scan_exact_kernels.cuh
 * (the two kernels).
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

/* ---- the device code, in parts ---- */

#include "scan_exact_accumulator.cuh"
#include "scan_exact_outputs.cuh"
#include "scan_exact_tile.cuh"
#include "scan_exact_kernels.cuh"

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
