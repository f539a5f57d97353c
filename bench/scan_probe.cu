/*-------------------------------------------------------------------------
 *
 * scan_probe.cu
 *	  Where the time of gsd_prefix_sum_f64/f32 goes: a standalone probe (no
 *	  PostgreSQL) that times the exact scan on device-generated data and,
 *	  built with -DSCX_PROFILE (kernels/scan_exact.cu too), prints the
 *	  kernel's per-phase cycle shares and event counts.
 *
 *	  bench/probe-scan.sh builds the variants and runs them (and ncu).
 *
 *	  scan_probe [-n LOG2N ...] [-t d|f|m] [-r REPS]
 *		-n  sizes as log2 (repeatable; default 24 and 28)
 *		-t  d: uniform [0,1) doubles, f: uniform [0,1) floats,
 *			m: doubles of both signs over 81 binades (2^-40 .. 2^40), only a
 *			check of the bits; w: the same over 51 binades (2^-30 .. 2^20,
 *			three levels); r: the ramp i 2^-20 (repeatable; default d and f)
 *		-r  timed runs per case (default 10; the median is printed)
 *
 *	  Every case prints a hash of the output bits: outputs are correctly
 *	  rounded, hence unique, so every variant of the kernel (and the
 *	  version before it) must print the same hash for the same case.
 *
 * Notes: where the time goes, from reading the code (change -> expected effect)
 * ---------------------------------------------------------------------------
 * The H200 figure, 18974 us for 2^28 doubles = 65536 tiles, with ~396
 * resident blocks (132 SMs x 3), is ~115 us of lifetime per block, about
 * 230k cycles, where the tile's arithmetic (~50 DP instructions per element,
 * ~6.4k warp instructions) is ~3k cycles.  So blocks mostly wait.
 *
 *  H1 (main suspect) scx_lookback_exact summed the aggregates of every tile
 *     between the tile and the prefix the look-back met with 64-bit shared
 *     atomicAdd, every lane into the same three limbs (tiles of one data
 *     set have aggregates of one magnitude): 32-way contention on each
 *     atomic, and a 64-bit shared atomic add is, on sm_70+, as far as known
 *     here, an LDS + ATOMS.CAS loop, so each of the 9 atomics per aggregate
 *     retries up to 32 times.  At a look-back depth D of ~400 tiles that is
 *     ~13 aggregates per lane x 9 atomics x 32 retries x ~60 cycles, about
 *     200k cycles -- the whole block lifetime.  It is on the critical path
 *     twice: the block's store waits for warp 0 (barrier), and the tile's
 *     inclusive prefix is published only after it, which keeps later tiles'
 *     look-backs deep (they stop only at a published prefix), which makes
 *     their exact sums long: a slow equilibrium with D ~ resident blocks.
 *     -> done: the sum is kept in warp 0's registers (scx_warp_add_lanes:
 *     lanes whose values share a limb are summed by 5 warp reductions per
 *     group; one group per level for data of one magnitude), the next
 *     window's loads in flight while one is added.  Expected: LBX cycles
 *     down by 10-50x; the look-back depth (LB_DEPTH / tiles) falls from
 *     hundreds towards tens; 2^28 doubles from ~19 ms to ~3-5 ms.
 *     Knob: -DSCX_LBX_ATOMIC=1 restores the atomics (probe variant "atomic",
 *     with the profile, to confirm H1: its LBX share should dominate).
 *  H2 The look-back's counters (NaN, +Inf, -Inf: three 64-bit values, 15
 *     64-bit shuffles per window) are all zero for ordinary data.
 *     -> done: reduced only where some lane holds a nonzero count.  Small
 *     (~100 cycles per window); it also removed the kernel's 28-byte spill.
 *  H3 80 registers with __launch_bounds__(256, 3) give 24 warps per SM.
 *     Once the waiting is gone, more warps hide the DP latency of the output
 *     chain better.  Knob: -DSCX_MIN_BLOCKS=4 (64 registers; watch spills).
 *     Expected: 0-15%, uncertain; probe variant "mb4".
 *  H4 Look-back spins: __nanosleep(64) after 5 tries; a window that waits
 *     costs a round trip to L2 per try.  LB_WAITS / LB_WINDOWS and LB_SPIN
 *     show whether waiting (a predecessor has not published its aggregate)
 *     matters.  Expected small once H1 is fixed: aggregates are published
 *     right after the block scan, long before the look-back needs them.
 *  H5 Per-tile fixed costs of warp 0 -- zeroing s.cacc (70 words), the
 *     publish (normalize, to_dd, 328-byte digits, a __threadfence and a
 *     release) -- are hundreds to a few thousand cycles: PUB share.  Not
 *     changed; if PUB dominates after H1, next: publish the prefix's
 *     double-double first and the digits after (two flags), or a persistent
 *     grid that keeps per-block state.
 *  H6 Fallbacks: for uniform data the fast path's bound B is ~2^-80 against
 *     gaps of >= 2^-52, so N_FAST2 / N_CAREFUL / N_EXACT should be ~0 (only
 *     near-ties).  If not, the bound is too pessimistic.
 *  H7 One tile per block: block launch and the first barrier cost ~1-2 us
 *     per tile at most, and occupancy stays full; a persistent grid would
 *     save that and the per-block zeroing.  Not done (H1 first).
 *
 * After H1-H4 (H200, 2^28 doubles, 3249 us; per tile: TOTAL 46.9k cycles,
 * LB 11.2k, LBX 5.9k, PUB 3.6k, OUT0 17.6k, OUT1 7.5k, STORE_BARRIER 19.9k,
 * look-back depth ~101 tiles): warp 0 is every tile's critical path (LB,
 * then LBX + PUB + its own outputs, while 7 warps wait at the store barrier).
 *  H8 Take the outputs off warp 0.  Knob -DSCX_SPLIT_OUT=1 (probe variants
 *     split, split-prof, split-mb4): warp 0 leaves its threads' exclusive
 *     prefixes in shared memory; warps 1..4 compute its 512 outputs, a lane
 *     per quarter (4 elements) of one of its threads, after their own 16;
 *     warp 0 does only LBX + PUB after the look-back.  Same bits (every
 *     output is correctly rounded).  Expected: OUT0 ~0, OUT1 7.5k -> ~9.5k
 *     (20 outputs per lane instead of 16), STORE_BARRIER 19.9k -> a few k,
 *     TOTAL 46.9k -> ~30k cycles per tile; but the prefix is published no
 *     earlier after the tile's start while tiles turn over faster, so the
 *     look-back gets deeper (~100 -> ~130 tiles) and LB, LBX grow a little:
 *     2^28 doubles 3249 -> ~2300-2800 us.  80 registers, no spills (mb4:
 *     spills grow from 156 to 208 bytes: split-mb4 probably no better).
 *  H9 Per look-back window two dependent round trips to L2: the statuses
 *     (acquire), then the aggregates.  Knob -DSCX_LB_PREFETCH=1 (variants
 *     pf, split-pf, split-pf-prof): where a window holds no prefix, the next
 *     window's statuses are acquired right after this window's aggregate
 *     loads are issued, so the two round trips overlap.  Expected: LB per
 *     window (LB / LB_WINDOWS, now ~2.9k cycles) down by ~1/4-1/3, 5-10%
 *     overall; nothing if the acquire turns out to wait for the loads issued
 *     before it.  LB_WAITS may rise a little (statuses read earlier).
 *  H10 Publish sooner.  Done as the fast kernel (scf_scan_kernel): it
 *     chains only double-doubles with bounds, in write-once records read in
 *     one round trip per window, and leaves a launch to the exact kernel
 *     only where it cannot prove an output.  H200, 2^28 doubles: 3159 ->
 *     ~1860 us; per tile ~31.5k cycles, LB 11.7k (depth ~64), outputs 7.7k
 *     (bench/results/probe-scan-nvidia-h200-2026-11-21-fast.txt).  The
 *     knobs H1-H9 now concern the exact kernel: build with -DSCX_FAST=0.
 *  H11 (tried, not kept) Larger tiles: SCX_M = 12 bounds a tile to 4096
 *     elements (level sums exact).  Knobs -DSCX_BLOCK=512 -DSCX_M=13
 *     -DSCF_MIN_BLOCKS=2 -DSCX_MIN_BLOCKS=2: tiles of 8192 (512 threads of
 *     16 elements, the same swizzle), 40-bit levels, shared memory dynamic
 *     beyond 48 kB.  Same hashes; unit suites gpu_scan 2727 passed on it.
 *     Per tile 30.4k cycles for twice the elements: the look-back falls to
 *     5.3k (depth 24 tiles, 1.2 windows), but with 16 warps the block scan
 *     (4.6k) and levels (2.9k) grow, and with 2 blocks per SM the same
 *     number of elements is in flight.  Uniform data slower: 2^28 doubles
 *     1890-1902 us against 1778-1817, floats 1837-1841 against 1725-1755.
 *     The exact kernel alone (data over 81 binades) is faster with these
 *     tiles: 157 ms against 253 ms at 2^28 -- the rare path, not taken up
 *     (bench/results/probe-scan-nvidia-h200-2026-11-22-tiles-8192.txt).
 *  H12 (tried, not kept) Share the fast look-back among several warps, each
 *     reading its own 32 predecessors, with the ballots and the warps' sums
 *     passed through shared memory at a named barrier: one round trip then
 *     covers 32 x W predecessors.  Same hashes; slower.  H200, 2^28, two
 *     runs each, doubles / floats: before 1875-1891 / 1828-1842 us; W = 1
 *     2028-2053 / 1977-1981; W = 2 1974-1991 / 1908-1923; W = 4 1968-1974
 *     / 1892-1895; W = 7 2149-2160 / 2048-2058
 *     (bench/results/probe-scan-nvidia-h200-2026-11-22-lb-warps.txt).  The
 *     barrier and shared-memory steps in every spin round cost more than
 *     the fewer round trips save.
 *  H13 (tried, not kept) Read K windows per round trip, each lane K tiles
 *     (-DSCF_LB_K, K = 2..4, one warp, no barrier).  Same hashes; slower:
 *     2^28 doubles K = 1 1817-1830 us, 2 2076-2083, 3 2344-2349, 4
 *     2898-2905.  A wider window costs more per round trip (K = 2: 6.7k
 *     cycles against 4.2k, 120 bytes of spills) and waits more often (37%
 *     of windows against 29%); the look-back got deeper (76 tiles against
 *     64), not shallower.
 *  H14 (done) The same kernel with no spills.  Splitting scf_get into the
 *     loads (scf_load, scf_load_window) and the written check (scf_written)
 *     left the fast kernel with 0 bytes of spills instead of 4 (12 bytes of
 *     spill loads, some in per-element code): 2^28 doubles 1864-1878 ->
 *     1780-1788 us, floats 1826-1839 -> 1722-1729 (three rounds each).
 *  H15 (tried, not kept) Issue the next window's loads before adding up
 *     the current one, where it holds no prefix.  Slower (doubles 1974-1979
 *     us): the next window is read ~650 cycles earlier, when fewer of its
 *     tiles have published their prefixes, so the walk gets deeper (85
 *     tiles, 3.3 windows, against 61 and 2.6).  Results of H13-H15 and of
 *     SCF_MIN_BLOCKS 3 and 5 on the new form (both still slower) in
 *     bench/results/probe-scan-nvidia-h200-2026-11-22-lookback-windows.txt.
 *     Nsight Compute on the new form (2^26 doubles): issue slots 53% busy,
 *     FP64 pipe 36%, 38% of warp stall cycles at a CTA barrier (warps 1..7
 *     waiting for warp 0's look-back), 112 instructions per element (38 of
 *     them FP64) (bench/results/ncu-scan-fast-nvidia-h200-2026-11-22.txt).
 *  H16 (tried, not kept) The output loop unrolled (2, 4 or 8 pairs per
 *     step instead of 1), and the rare second look (scx_round_careful and
 *     the sign of zero) out of line (__noinline__) to relieve the common
 *     path's registers.  Same hashes.  2^28 doubles / floats, two runs
 *     each: 1 pair 1789-1790 / 1729-1733 us; 2 pairs 1781-1785 / 1718-1720
 *     (within 1%); 4 pairs 1870-1877 / 1831-1837; 8 pairs (spills)
 *     2039-2051 / 1992-2002; out of line 2016 / 1939 (the call spills)
 *     (bench/results/probe-scan-nvidia-h200-2026-11-22-outputs.txt).
 *  H18 (tried, not kept) Read the nearest window again, up to R times,
 *     while it holds no prefix, before walking deeper (H15 suggested that
 *     reading later finds prefixes nearer).  Same hashes; slower: 2^28
 *     doubles / floats, two runs each: R = 0 1792-1795 / 1730-1735 us;
 *     R = 1 1802-1806 / 1741-1748; R = 2 1817-1818 / 1757-1767; R = 4
 *     1882-1899 / 1826-1841; R = 8 2119-2128 / 2072-2078.  R = 8 cuts the
 *     depth (45 tiles against 60) but triples the spin (10.5k cycles per
 *     tile against 2.4k)
 *     (bench/results/probe-scan-nvidia-h200-2026-11-22-reread.txt).
 *  H17 (tried, not kept) Take the look-back out of the block's critical
 *     path.  After H14 a tile is ~31k cycles: front (load, levels, block
 *     scan) ~8k, look-back ~11k with seven warps idle at the barrier,
 *     outputs ~8k, store ~2k; 4 blocks of 8 warps per SM, 64 registers.
 *     Tried: a persistent grid whose blocks have eight compute warps and a
 *     ninth that only looks back, with two tiles in flight: the compute
 *     warps run tile B's front while the look-back warp finds tile A's
 *     carry, then A's outputs while it looks back for B, handing slots over
 *     through named barriers; the tile's shared memory split into a slot
 *     (what the fast path needs) and the exact kernel's extra per-warp sums,
 *     two slots in 67 kB, so 3 blocks per SM and 72 registers.  Same hashes,
 *     unit suites gpu_scan 2727 passed on it, but slower: 2^28 doubles
 *     2042-2063 us against 1791-1793, floats 1797-1815 against 1730-1737;
 *     with 2 blocks per SM 2338-2358 / 2263-2281.  With 24 compute warps per
 *     SM instead of 32 the fronts and outputs run slower than the hidden
 *     look-back saves: four one-tile blocks already overlap one another's
 *     look-backs.  The patch is kept for reference in
 *     bench/results/probe-scan-nvidia-h200-2026-11-22-pipelined.patch, the
 *     runs in probe-scan-nvidia-h200-2026-11-22-pipelined.txt.
 *
 * Session of 2026-11-22 (H19-H28; runs in
 * bench/results/probe-scan-nvidia-h200-2026-11-22-session5.txt, instruction
 * counts in ncu-scan-source-nvidia-h200-2026-11-22.txt).  Start: 2^28
 * doubles / floats 1790 / 1731 us; end 1537 / 1457 us.
 *  H19 (done) The fast look-back's window as integers: where the window's
 *     tiles share their level grids (a grid code in the aggregate record),
 *     each T_j is an integer number of its level's unit, summed exactly
 *     over the warp, turned into one double-double per window (SCF_LB_INT).
 *     Only ~1% by itself: the look-back waits on memory, not arithmetic.
 *  H20 (done) Two-level tiles take r1 as the second part in the outputs;
 *     FastTwoSum where the carry is at least sg1.  With H19: 1717 / 1645.
 *  H21 (tried, not kept) Tiles of 2048 (128 threads, 8 blocks per SM):
 *     1896 / 1801 us; the look-back doubles in tiles (97 deep, 3.8 windows).
 *  H22 (tried, not kept) Persistent blocks that take their next tile (and
 *     prefetch it) during the current one: 2x slower.  The tile taken early
 *     publishes its aggregate a whole tile later, and every successor's
 *     look-back waits for it (LB_SPIN 41.6k cycles per tile).
 *  H23 (done) A plain output path for the common tile (two levels, no
 *     specials, whole tile, carry >= sg1): FastTwoSums, no per-element
 *     checks, one rare-path branch per pair; Nsight Compute had the output
 *     loop at 88 instructions per pair, half of them branches, convergence
 *     barriers and register moves.  1610 / 1535 us.  Its rare retry out of
 *     line: 2087 / 1838 (the call spills).
 *  H24 (done) The level pass skips the second extraction where the tile's
 *     smallest magnitude proves two levels: 1601 / 1514.
 *  H25 (done) Tile t prefetches tile t + d into L2 after its front, d half
 *     the resident blocks (a quarter: slower; three quarters, all: the
 *     same): 1581 / 1505.  LOAD 4.4k -> 3.5k cycles per tile.
 *  H26 (done) The window's integer sums by REDUX on 21-bit pieces instead
 *     of five dependent shuffles and 64-bit adds: 1537 / 1457.  Keeping the
 *     sums across windows (one conversion per look-back) spilled: slower.
 *  H27 (tried, not kept) 64 predecessors per round trip (each lane two
 *     tiles, the far half used where the near one holds no prefix): 2.0
 *     windows per tile instead of 2.6, but 104 bytes of spills in the
 *     kernel: 1790-1815 / 1688-1714 us.
 *  H28 (tried, not kept) Each block issues the loads of tile blockIdx.x
 *     before its tile number returns from the counter (blocks start in
 *     about that order): 1668-1689 / 1504-1517 us against 1538-1551 /
 *     1460-1471; the load phase grows (5.0k cycles per tile against 3.7k).
 *  Also unchanged by retuning after H26: SCF_SPIN_FREE 2 or 10 and
 *  SCF_SLEEP_NS 32 or 128 within 0.5%; SCF_MIN_BLOCKS 5 13% slower.
 *  Where a tile's ~24k cycles go now: look-back 9.1k (spin 3.2k, 2.6
 *  windows, 60 tiles deep), load 3.7k, outputs 3.6k, block scan 2.0k,
 *  store 1.5k, levels 1.1k.  Each cut elsewhere deepens the look-back.
 *
 * With -DSCX_SPLIT_OUT=1, OUT0 is ~0 (warp 0 computes no outputs) and OUT1
 * is warp 1's own outputs plus its quarters of warp 0's.
 *
 * What to read in the output: TOTAL/tiles is a block's lifetime in cycles;
 * the shares of LB (look-back), LBX (exact carry), PUB (publish) against
 * LOAD, LEVELS, BSCAN, OUT1 (a warp's fast-path outputs) say whether blocks
 * compute or wait; LB_BARRIER (warp 1 waiting for warp 0's look-back) and
 * STORE_BARRIER (warp 1 waiting for warp 0's exact work) are the waits.
 * LB_DEPTH / tiles is the mean look-back depth.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#include <cuda_runtime.h>

#include "gpuscan_exact.h"
#include "gpuscan_device.h"
#include "device_internal.cuh"

#ifdef SCX_PROFILE
extern "C" int gsd_scan_profile_read(uint64_t *out, int n);
extern "C" int gsd_scan_profile_reset(void);

/* in the order of the SCXP_* enum of kernels/scan_exact.cu */
static const char *const prof_names[] = {
	"TILES", "TOTAL", "LOAD", "LEVELS", "BSCAN", "AGG", "LB", "LB_SPIN",
	"LB_WAITS", "LB_WINDOWS", "LB_DEPTH", "LB_DEPTH_MAX", "LB_BARRIER", "LBX",
	"PUB", "OUT0", "OUT1", "STORE_BARRIER", "STORE", "N_OUT", "N_FAST2",
	"N_CAREFUL", "N_EXACT", "N_EXACT_CALLS", "N_SLOW", "N_LEV3", "N_MASKED",
	"N_REDO",
};
#define NPROF ((int) (sizeof(prof_names) / sizeof(prof_names[0])))
#endif

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "scan_probe: %s: %s\n", #x, cudaGetErrorString(e_)); exit(2); } } while (0)
#define GK(x) do { if ((x) != GSD_OK) { \
	fprintf(stderr, "scan_probe: %s: %s\n", #x, gsd_last_error()); exit(2); } } while (0)

static __device__ __forceinline__ uint64_t
mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * kind 0: uniform [0,1); kind 1: sign and binade 2^-40 .. 2^40 random too;
 * kind 2: the same over 2^-30 .. 2^20 (tiles of three levels); kind 3: the
 * ramp i 2^-20 (exact prefix sums; the tiles' level grids change along it)
 */
__global__ void
gen_f64(double *x, size_t n, int kind)
{
	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
	{
		uint64_t	r = mix64(i * 2 + 12345);
		double		u = (double) (r >> 11) * 0x1p-53;

		if (kind == 1 || kind == 2)
		{
			uint64_t	r2 = mix64(i * 2 + 777);

			u = kind == 1 ? ldexp(u, (int) (r2 % 81) - 40) : ldexp(u, (int) (r2 % 51) - 30);
			if (r2 & (1ULL << 40))
				u = -u;
		}
		else if (kind == 3)
			u = ldexp((double) i, -20);
		x[i] = u;
	}
}

__global__ void
gen_f32(float *x, size_t n)
{
	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
		x[i] = (float) (mix64(i * 2 + 12345) >> 40) * 0x1p-24f;
}

/* FNV-1a over the output bits, per 64-bit word, folded on the device */
__global__ void
hash_out(const double *y, size_t n, unsigned long long *h)
{
	unsigned long long acc = 0;

	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
		acc += mix64((uint64_t) __double_as_longlong(y[i]) ^ (i * 0x100000001b3ULL));
	atomicAdd(h, acc);
}

static void
run_case(char kind, int lg, int reps)
{
	const size_t n = (size_t) 1 << lg;
	const size_t esz = kind == 'f' ? sizeof(float) : sizeof(double);
	cudaStream_t st = gsd_stream();
	void	   *in;
	double	   *out;
	gs_exact_acc *carry;
	unsigned long long *dh,
				hh = 0;
	cudaEvent_t e0,
				e1;
	std::vector<float> ms;
	double		last = 0.0;

	CK(cudaMalloc(&in, n * esz));
	CK(cudaMalloc((void **) &out, n * sizeof(double)));
	CK(cudaMalloc((void **) &carry, sizeof(gs_exact_acc)));
	CK(cudaMalloc((void **) &dh, sizeof(*dh)));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	if (kind == 'f')
		gen_f32<<<1024, 256, 0, st>>>((float *) in, n);
	else
		gen_f64<<<1024, 256, 0, st>>>((double *) in, n,
									  kind == 'm' ? 1 : kind == 'w' ? 2 : kind == 'r' ? 3 : 0);
	CK(cudaGetLastError());

	/* one untimed run (warms the pool), then the timed ones */
	for (int r = -1; r < reps; r++)
	{
		float		t;

		CK(cudaEventRecord(e0, st));
		CK(cudaMemsetAsync(carry, 0, sizeof(gs_exact_acc), st));
		if (kind == 'f')
			GK(gsd_prefix_sum_f32((const float *) in, n, out, 0, carry));
		else
			GK(gsd_prefix_sum_f64((const double *) in, n, out, 0, carry));
		CK(cudaEventRecord(e1, st));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&t, e0, e1));
		if (r >= 0)
			ms.push_back(t);
	}
	std::sort(ms.begin(), ms.end());
	CK(cudaMemsetAsync(dh, 0, sizeof(*dh), st));
	hash_out<<<1024, 256, 0, st>>>(out, n, dh);
	CK(cudaMemcpyAsync(&hh, dh, sizeof(hh), cudaMemcpyDeviceToHost, st));
	CK(cudaMemcpyAsync(&last, out + n - 1, sizeof(last), cudaMemcpyDeviceToHost, st));
	CK(cudaStreamSynchronize(st));
	{
		const double med = ms.empty() ? 0.0 : 1000.0 * ms[ms.size() / 2];
		const double gbs = med > 0 ? (double) n * (esz + 8) / (med * 1e3) : 0.0;

		printf("case %c 2^%d: median %.1f us (min %.1f, max %.1f; %d runs), %.0f GB/s in+out, "
			   "hash %016llx, last %.17g\n",
			   kind, lg, med, ms.empty() ? 0.0 : 1000.0 * ms.front(),
			   ms.empty() ? 0.0 : 1000.0 * ms.back(), (int) ms.size(), gbs, hh, last);
	}

#ifdef SCX_PROFILE
	{
		uint64_t	v[NPROF];
		double		tiles,
					total,
					cyc;

		/* one more run alone, for the counters */
		if (gsd_scan_profile_reset() != 0)
		{
			fprintf(stderr, "scan_probe: profile reset failed\n");
			exit(2);
		}
		CK(cudaMemsetAsync(carry, 0, sizeof(gs_exact_acc), st));
		if (kind == 'f')
			GK(gsd_prefix_sum_f32((const float *) in, n, out, 0, carry));
		else
			GK(gsd_prefix_sum_f64((const double *) in, n, out, 0, carry));
		CK(cudaStreamSynchronize(st));
		if (gsd_scan_profile_read(v, NPROF) != NPROF)
		{
			fprintf(stderr, "scan_probe: profile read failed (counter list mismatch?)\n");
			exit(2);
		}
		tiles = (double) (v[0] ? v[0] : 1);
		total = (double) (v[1] ? v[1] : 1);
		printf("  profile (cycles: sum over tiles, per tile, share of TOTAL):\n");
		for (int k = 1; k < NPROF; k++)
		{
			const char *nm = prof_names[k];

			cyc = (double) v[k];
			if (strncmp(nm, "N_", 2) == 0 || strcmp(nm, "LB_WAITS") == 0 ||
				strcmp(nm, "LB_WINDOWS") == 0 || strcmp(nm, "LB_DEPTH") == 0)
				printf("    %-14s %14llu  %10.3f per tile\n", nm, (unsigned long long) v[k], cyc / tiles);
			else if (strcmp(nm, "LB_DEPTH_MAX") == 0)
				printf("    %-14s %14llu\n", nm, (unsigned long long) v[k]);
			else
				printf("    %-14s %14llu  %10.0f cyc/tile  %6.1f%%\n", nm,
					   (unsigned long long) v[k], cyc / tiles, 100.0 * cyc / total);
		}
		printf("    tiles %.0f; mean look-back depth %.1f; windows that waited %.1f%%\n",
			   tiles, (double) v[10] / tiles,
			   v[9] ? 100.0 * (double) v[8] / (double) v[9] : 0.0);
	}
#endif

	CK(cudaFree(in));
	CK(cudaFree(out));
	CK(cudaFree(carry));
	CK(cudaFree(dh));
	CK(cudaEventDestroy(e0));
	CK(cudaEventDestroy(e1));
}

int
main(int argc, char **argv)
{
	std::vector<int> sizes;
	std::vector<char> kinds;
	int			reps = 10;
	cudaDeviceProp prop;
	int			sm_khz = 0;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			sizes.push_back(atoi(argv[++i]));
		else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			kinds.push_back(argv[++i][0]);
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: scan_probe [-n LOG2N ...] [-t d|f|m ...] [-r REPS]\n");
			return 2;
		}
	}
	if (sizes.empty())
		sizes = {24, 28};
	if (kinds.empty())
		kinds = {'d', 'f'};
	if (reps < 0 || reps > 1000)
		reps = 10;

	GK(gsd_open(0));
	CK(cudaGetDeviceProperties(&prop, 0));
	if (cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0) != cudaSuccess)
		sm_khz = 0;
	printf("device %s, %d SMs, clock %d kHz%s\n", prop.name, prop.multiProcessorCount,
		   sm_khz,
#ifdef SCX_PROFILE
		   ", SCX_PROFILE build"
#else
		   ""
#endif
		);
	for (char k : kinds)
		for (int lg : sizes)
			run_case(k, lg, reps);
	return 0;
}
