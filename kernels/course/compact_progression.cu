/*-------------------------------------------------------------------------
 *
 * compact_progression.cu
 *	  Stream compaction in the course's versions, for the unit tests and
 *	  the kernel benchmark: the three steps (predicate, scan of the 0/1
 *	  flags, scatter) as a pipeline on the scan progression, fused versions
 *	  2-5, and version 6, the production kernel of compact.cu, run on the
 *	  caller's scratch (compact_tile.cuh).
 *
 * Fused versions 2-5, per tile of CP_TILE elements (one block), as
 * compact_tile.cuh describes, and:
 *  - Thread t owns, in row r of the tile, the W = 16 / sizeof(T)
 *    consecutive elements of the 16-byte vector r * CP_THREADS + t: its
 *    flags come in one W-byte load, its values in one 16-byte load, both
 *    coalesced across the warp.  Values are loaded only where one of the
 *    vector's flags is set, so a sparse selection reads few of them.
 *  - Per row, W warp ballots; one warp then scans the R x WARPS warp
 *    counts of the tile.
 *  - The kept values go straight to their places (version 2), or are
 *    gathered in shared memory and written out by consecutive threads
 *    (version 3); version 4 has the copy engine bring the tile in, and
 *    version 5 overlaps the next tile's copy with the current one's work.
 *
 * Version 6 changes the layout and the order of events instead (see
 * compact_flags_first): bigger tiles, a warp's rows contiguous, the
 * tile's count published before its values have arrived.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <limits.h>

#include "compact_tile.cuh"
#include "gpuscan_course.h"

#define CP_VERSIONS		6
#define CP_ITEMS		16		/* elements per thread (versions 2 .. 5) */
#define CP_TILE			(CP_THREADS * CP_ITEMS)

static const char *const cp_names[CP_VERSIONS] = {
	"compact_three_step",
	"compact_fused_direct",
	"compact_fused_staged",
	"compact_fused_bulk",
	"compact_fused_pipelined",
	"compact_fused_flags_first",
};

/* cp_part -- component c of a vector */
__device__ __forceinline__ double
cp_part(double2 v, unsigned int c)
{
	return c == 0 ? v.x : v.y;
}

__device__ __forceinline__ float
cp_part(float4 v, unsigned int c)
{
	return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
}

/* cp_vec -- a vector of W elements (the ragged end of the input) */
__device__ __forceinline__ double2
cp_vec(const double *e)
{
	return make_double2(e[0], e[1]);
}

__device__ __forceinline__ float4
cp_vec(const float *e)
{
	return make_float4(e[0], e[1], e[2], e[3]);
}

/* cp_bits -- bit c set where byte c of a flag word is not zero */
__device__ __forceinline__ unsigned int
cp_bits(unsigned int word, unsigned int nbytes)
{
	unsigned int bits = 0;

	for (unsigned int c = 0; c < nbytes; c++)
		bits |= (((word >> (8 * c)) & 0xffu) != 0) << c;
	return bits;
}

/*
 * cp_load_tile -- version 4: the tile of flags and values at `base` into
 * shared memory, elements past n as zero.  A whole tile on sm_90 and
 * later: one thread has the copy engine bring both (cp.async.bulk), and
 * every thread waits on the block barrier for the bytes.  Elsewhere, and
 * for the ragged last tile: an ordinary cooperative copy.
 */
template <typename T, typename O>
__device__ __forceinline__ void
cp_load_tile(const T *vals, const uint8_t *keep, size_t n, size_t base, O *vals_sh,
			 uint8_t *keep_sh, cuda::barrier<cuda::thread_scope_block> &bar)
{
	const size_t len = n - base < CP_TILE ? n - base : CP_TILE;

#if __CUDA_ARCH__ >= 900
	if (len == CP_TILE)
	{
		if (threadIdx.x == 0)
		{
			cuda::memcpy_async(keep_sh, keep + base, cuda::aligned_size_t<16>(CP_TILE), bar);
			cuda::memcpy_async(vals_sh, vals + base, cuda::aligned_size_t<16>(CP_TILE * sizeof(T)),
							   bar);
		}
		bar.arrive_and_wait();
		return;
	}
#endif
	for (unsigned int i = threadIdx.x; i < CP_TILE; i += CP_THREADS)
	{
		keep_sh[i] = i < len ? keep[base + i] : 0;
		vals_sh[i] = i < len ? vals[base + i] : O(0);
	}
	__syncthreads();
}

/*
 * compact_fused -- versions 2 (STAGED false), 3 (STAGED true) and 4 (BULK
 * true), and a positions form (T = cp_index: no values loaded, the output
 * is first + the element's index): see the file header.  Version 4 has the copy engine bring the whole tile's
 * flags and values into shared memory (cp.async.bulk on sm_90, completing
 * on a block barrier) instead of loading them through registers: all of
 * the tile's bytes are in flight at once, whatever the registers allow;
 * the kept values are then staged in place.
 */
template <typename T, bool STAGED, bool BULK>
__global__ void __launch_bounds__(CP_THREADS)
compact_fused(const T *__restrict__ vals, const uint8_t *__restrict__ keep, size_t n,
			  typename cp_type<T>::out *__restrict__ out, int32_t first,
			  unsigned int *counter, unsigned long long *status, unsigned int ntiles,
			  unsigned long long *count)
{
	typedef typename cp_type<T>::vec V;
	typedef typename cp_type<T>::out O;
	typedef typename cp_type<T>::flags F;
	const unsigned int W = cp_type<T>::W;
	const unsigned int R = CP_ITEMS / W;
	constexpr bool indices = sizeof(T) == 1;	/* cp_index is empty */
	__shared__ unsigned int row_sh[R * CP_WARPS];	/* warp counts, then their prefixes */
	__shared__ unsigned int tile_sh;
	__shared__ unsigned int prefix_sh;
	__shared__ unsigned int total_sh;
	/* STAGED: the kept values; BULK: first the tile's values */
	__shared__ alignas(16) O stage[(STAGED || BULK) ? CP_TILE : 1];
	__shared__ alignas(16) uint8_t keep_sh[BULK ? CP_TILE : 1];
#pragma nv_diag_suppress static_var_with_dynamic_init
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	const unsigned int tid = threadIdx.x;
	const unsigned int lane = tid & 31;
	const unsigned int warp = tid >> 5;
	const unsigned int lanes_below = (1u << lane) - 1;
	unsigned int bits[R];
	unsigned int masks[R][W];
	V			v[R];
	unsigned int tile;
	size_t		base;

	if (tid == 0)
	{
		tile_sh = atomicAdd(counter, 1u);
		if constexpr (BULK)
			init(&bar, CP_THREADS);
	}
	__syncthreads();
	tile = tile_sh;
	base = (size_t) tile * CP_TILE;

	if constexpr (BULK)
		cp_load_tile(vals, keep, n, base, stage, keep_sh, bar);

	/* flags, then the values of the vectors that keep something */
#pragma unroll
	for (unsigned int r = 0; r < R; r++)
	{
		if constexpr (BULK)
		{
			unsigned int e = (r * CP_THREADS + tid) * W;

			bits[r] = cp_bits(*reinterpret_cast<const F *>(keep_sh + e), W);
			v[r] = *reinterpret_cast<const V *>(stage + e);
			continue;
		}
		else
		{
		size_t		e0 = base + (size_t) (r * CP_THREADS + tid) * W;

		if (e0 + W <= n)
			bits[r] = cp_bits(__ldcs(reinterpret_cast<const F *>(keep + e0)), W);
		else
		{
			bits[r] = 0;
			for (unsigned int c = 0; c < W; c++)
				if (e0 + c < n && keep[e0 + c] != 0)
					bits[r] |= 1u << c;
		}
		}
	}
	if constexpr (!indices && !BULK)
	{
#pragma unroll
		for (unsigned int r = 0; r < R; r++)
		{
			size_t		e0 = base + (size_t) (r * CP_THREADS + tid) * W;

			if (bits[r] != 0 && e0 + W <= n)
				v[r] = __ldcs(reinterpret_cast<const V *>(vals + e0));
			else if (bits[r] != 0)
			{
				O			e[W];

				for (unsigned int c = 0; c < W; c++)
					e[c] = e0 + c < n ? vals[e0 + c] : O(0);
				v[r] = cp_vec(e);
			}
		}
	}

	/* ranks in the warp by ballots; the warp's count per row */
#pragma unroll
	for (unsigned int r = 0; r < R; r++)
	{
		unsigned int cnt = 0;

#pragma unroll
		for (unsigned int c = 0; c < W; c++)
		{
			masks[r][c] = __ballot_sync(CP_FULL_MASK, (bits[r] >> c) & 1u);
			cnt += __popc(masks[r][c]);
		}
		if (lane == 0)
			row_sh[r * CP_WARPS + warp] = cnt;
	}
	__syncthreads();

	/* warp 0: exclusive scan of the warp counts (row-major), look-back */
	if (warp == 0)
		cp_tile_offset<R * CP_WARPS>(tile, ntiles, row_sh, status, count, &prefix_sh, &total_sh);
	__syncthreads();

	/* the kept elements to their places */
#pragma unroll
	for (unsigned int r = 0; r < R; r++)
	{
		size_t		e0 = base + (size_t) (r * CP_THREADS + tid) * W;
		unsigned int pos = row_sh[r * CP_WARPS + warp];

#pragma unroll
		for (unsigned int c = 0; c < W; c++)
			pos += __popc(masks[r][c] & lanes_below);
		if (!STAGED && !BULK)
			pos += prefix_sh;
#pragma unroll
		for (unsigned int c = 0; c < W; c++)
		{
			if ((bits[r] >> c) & 1u)
			{
				O			x;

				if constexpr (indices)
					x = (O) ((int64_t) first + (int64_t) (e0 + c));
				else
					x = cp_part(v[r], c);
				if (STAGED || BULK)
					stage[pos] = x;
				else
					out[pos] = x;
				pos++;
			}
		}
	}
	if (STAGED || BULK)
	{
		const unsigned int total = total_sh;
		O		   *dst = out + prefix_sh;

		__syncthreads();
		for (unsigned int j = tid; j < total; j += CP_THREADS)
			__stcs(&dst[j], stage[j]);
	}
}

/* bytes of one stage of version 5: a tile of values and its flags */
#define CP_STAGE_BYTES(size)	(CP_TILE * (size) + CP_TILE)

/*
 * cp_issue_tile -- version 5, by one thread: have the copy engine bring
 * the flags and values of a whole tile into a stage (sm_90 and later);
 * the ragged last tile, and every tile before sm_90, is loaded by
 * cp_wait_tile instead.  The fence orders the block's earlier ordinary
 * accesses to the stage before the copy engine's writes.
 */
template <typename T>
__device__ __forceinline__ void
cp_issue_tile(const T *vals, const uint8_t *keep, size_t n, unsigned int tile, T *vals_sh,
			  uint8_t *keep_sh, cuda::barrier<cuda::thread_scope_block> &bar)
{
#if __CUDA_ARCH__ >= 900
	const size_t base = (size_t) tile * CP_TILE;

	if (n - base >= CP_TILE)
	{
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
		cuda::memcpy_async(keep_sh, keep + base, cuda::aligned_size_t<16>(CP_TILE), bar);
		cuda::memcpy_async(vals_sh, vals + base, cuda::aligned_size_t<16>(CP_TILE * sizeof(T)), bar);
	}
#endif
}

/*
 * cp_wait_tile -- version 5, by every thread: wait for the stage that
 * cp_issue_tile filled, or fill it here (elements past n as zero)
 */
template <typename T>
__device__ __forceinline__ void
cp_wait_tile(const T *vals, const uint8_t *keep, size_t n, size_t base, T *vals_sh,
			 uint8_t *keep_sh, cuda::barrier<cuda::thread_scope_block> &bar)
{
#if __CUDA_ARCH__ >= 900
	if (n - base >= CP_TILE)
	{
		bar.arrive_and_wait();
		return;
	}
#endif
	for (unsigned int i = threadIdx.x; i < CP_TILE; i += CP_THREADS)
	{
		keep_sh[i] = base + i < n ? keep[base + i] : 0;
		vals_sh[i] = base + i < n ? vals[base + i] : T(0);
	}
	__syncthreads();
}

/*
 * compact_fused_pipelined -- version 5: version 4 with a persistent grid
 * (as many blocks as fit on the device) that works through the tiles in a
 * loop, two shared-memory stages deep: while a block ranks, looks back and
 * writes out one tile, the copy engine already brings its next tile into
 * the other stage, so that the latency of the look-back and of drawing the
 * next tile id overlaps the transfer.  Deadlock-free as the others: a
 * block draws its next tile only after its current one, so the lowest
 * unfinished tile is always some block's current tile, whose predecessors
 * are all done.  The stages live in dynamic shared memory.
 */
template <typename T>
__global__ void __launch_bounds__(CP_THREADS)
compact_fused_pipelined(const T *__restrict__ vals, const uint8_t *__restrict__ keep, size_t n,
						T *__restrict__ out, unsigned int *counter, unsigned long long *status,
						unsigned int ntiles, unsigned long long *count)
{
	typedef typename cp_type<T>::vec V;
	typedef typename cp_type<T>::flags F;
	const unsigned int W = cp_type<T>::W;
	const unsigned int R = CP_ITEMS / W;
	extern __shared__ __align__(16) unsigned char cp_stages[];
	__shared__ unsigned int row_sh[R * CP_WARPS];
	__shared__ unsigned int next_sh;
	__shared__ unsigned int prefix_sh;
	__shared__ unsigned int total_sh;
#pragma nv_diag_suppress static_var_with_dynamic_init
	__shared__ cuda::barrier<cuda::thread_scope_block> bars[2];
	const unsigned int tid = threadIdx.x;
	const unsigned int lane = tid & 31;
	const unsigned int warp = tid >> 5;
	const unsigned int lanes_below = (1u << lane) - 1;
	unsigned int tile;
	unsigned int cur = 0;

/* the values and the flags of stage k */
#define CP_VALS_SH(k)	reinterpret_cast<T *>(cp_stages + (k) * CP_STAGE_BYTES(sizeof(T)))
#define CP_KEEP_SH(k)	(cp_stages + (k) * CP_STAGE_BYTES(sizeof(T)) + CP_TILE * sizeof(T))

	if (tid == 0)
	{
		init(&bars[0], CP_THREADS);
		init(&bars[1], CP_THREADS);
		next_sh = atomicAdd(counter, 1u);
		if (next_sh < ntiles)
			cp_issue_tile(vals, keep, n, next_sh, CP_VALS_SH(0), CP_KEEP_SH(0), bars[0]);
	}
	__syncthreads();
	tile = next_sh;

	while (tile < ntiles)
	{
		const size_t base = (size_t) tile * CP_TILE;
		unsigned int bits[R];
		unsigned int masks[R][W];
		V			v[R];

		__syncthreads();		/* everyone has read next_sh */
		if (tid == 0)
		{
			unsigned int next = atomicAdd(counter, 1u);

			next_sh = next;
			if (next < ntiles)
				cp_issue_tile(vals, keep, n, next, CP_VALS_SH(cur ^ 1), CP_KEEP_SH(cur ^ 1),
							  bars[cur ^ 1]);
		}
		cp_wait_tile(vals, keep, n, base, CP_VALS_SH(cur), CP_KEEP_SH(cur), bars[cur]);

#pragma unroll
		for (unsigned int r = 0; r < R; r++)
		{
			unsigned int e = (r * CP_THREADS + tid) * W;
			unsigned int cnt = 0;

			bits[r] = cp_bits(*reinterpret_cast<const F *>(CP_KEEP_SH(cur) + e), W);
			v[r] = *reinterpret_cast<const V *>(CP_VALS_SH(cur) + e);
#pragma unroll
			for (unsigned int c = 0; c < W; c++)
			{
				masks[r][c] = __ballot_sync(CP_FULL_MASK, (bits[r] >> c) & 1u);
				cnt += __popc(masks[r][c]);
			}
			if (lane == 0)
				row_sh[r * CP_WARPS + warp] = cnt;
		}
		__syncthreads();
		if (warp == 0)
			cp_tile_offset<R * CP_WARPS>(tile, ntiles, row_sh, status, count, &prefix_sh, &total_sh);
		__syncthreads();

		/* stage the kept values in place, then write them out */
#pragma unroll
		for (unsigned int r = 0; r < R; r++)
		{
			unsigned int pos = row_sh[r * CP_WARPS + warp];

#pragma unroll
			for (unsigned int c = 0; c < W; c++)
				pos += __popc(masks[r][c] & lanes_below);
#pragma unroll
			for (unsigned int c = 0; c < W; c++)
				if ((bits[r] >> c) & 1u)
					CP_VALS_SH(cur)[pos++] = cp_part(v[r], c);
		}
		__syncthreads();
		{
			const unsigned int total = total_sh;
			T		   *dst = out + prefix_sh;

			for (unsigned int j = tid; j < total; j += CP_THREADS)
				__stcs(&dst[j], CP_VALS_SH(cur)[j]);
		}
		tile = next_sh;
		cur ^= 1;
	}
#undef CP_VALS_SH
#undef CP_KEEP_SH
}

/* ---- version 1: the course's three steps ---- */

#define CP_STEP_THREADS 256
#define CP_STEP_BLOCKS_PER_SM 8

/* compact_predicate -- step 1: flags[i] = 1 where keep[i] is not zero, else 0 */
__global__ void
compact_predicate(const uint8_t *__restrict__ keep, size_t n, uint32_t *__restrict__ flags)
{
	for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
		flags[i] = keep[i] != 0;
}

/*
 * compact_scatter -- step 3: a kept element i goes to incl[i] - 1, where
 * incl is the inclusive scan of the flags (its exclusive scan at i); the
 * last element's scan is the count.
 */
template <typename T>
__global__ void
compact_scatter(const T *__restrict__ vals, const uint8_t *__restrict__ keep, size_t n,
				const uint32_t *__restrict__ incl, T *__restrict__ out,
				unsigned long long *count)
{
	for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
	{
		if (keep[i] != 0)
			out[incl[i] - 1] = vals[i];
		if (i == n - 1)
			*count = incl[i];
	}
}

/* ---- host side ---- */

/* cp_tiles -- tiles of CP_TILE elements (versions 2 .. 5) for n elements */
static size_t
cp_tiles(size_t n)
{
	return (n + CP_TILE - 1) / CP_TILE;
}

/* cp_fused_scratch_bytes -- the tile counter and a status word per tile, any fused version */
static size_t
cp_fused_scratch_bytes(size_t n)
{
	size_t		tiles = cp_tiles(n) > cp_ff_tiles(n) ? cp_tiles(n) : cp_ff_tiles(n);

	return CP_HEADER + gsd_scratch_align(tiles * sizeof(unsigned long long));
}

/* cp_step_grid -- blocks of the grid-stride launches of version 1 */
static unsigned int
cp_step_grid(size_t n)
{
	size_t		want = (n + CP_STEP_THREADS - 1) / CP_STEP_THREADS;
	size_t		most = (size_t) gsd_sm_count() * CP_STEP_BLOCKS_PER_SM;

	return (unsigned int) (want < most ? want : most);
}

/* cp_run_fused -- reset the scratch and launch a fused kernel; n > 0 */
template <typename T, bool STAGED, bool BULK>
static gsd_status
cp_run_fused(const T *d_vals, const uint8_t *d_keep, size_t n,
			 typename cp_type<T>::out *d_out, int32_t first, uint64_t *d_count,
			 void *scratch, const char *what)
{
	const size_t tiles = cp_tiles(n);
	cudaStream_t stream = gsd_stream();
	unsigned int *counter = (unsigned int *) scratch;
	unsigned long long *status = (unsigned long long *) ((char *) scratch + CP_HEADER);
	gsd_status	st;

	st = gsd_cuda_status(cudaMemsetAsync(scratch, 0, CP_HEADER + tiles * sizeof(unsigned long long),
										 stream), "cudaMemsetAsync");
	if (st != GSD_OK)
		return st;
	compact_fused<T, STAGED, BULK><<<(unsigned int) tiles, CP_THREADS, 0, stream>>>(
		d_vals, d_keep, n, d_out, first, counter, status, (unsigned int) tiles,
		(unsigned long long *) d_count);
	GSD_CHECK_LAUNCH(what);
	return GSD_OK;
}

/*
 * cp_run_pipelined -- reset the scratch and launch version 5 with as many
 * blocks as fit on the device at once (found once per type); n > 0
 */
template <typename T>
static gsd_status
cp_run_pipelined(const T *d_vals, const uint8_t *d_keep, size_t n, T *d_out, uint64_t *d_count,
				 void *scratch, const char *what)
{
	static int	blocks_per_sm[2];
	int		   *bps = &blocks_per_sm[sizeof(T) == sizeof(double)];
	const size_t smem = 2 * CP_STAGE_BYTES(sizeof(T));
	const size_t tiles = cp_tiles(n);
	cudaStream_t stream = gsd_stream();
	size_t		grid;
	gsd_status	st;

	if (*bps == 0)
	{
		st = gsd_cuda_status(cudaFuncSetAttribute(compact_fused_pipelined<T>,
												  cudaFuncAttributeMaxDynamicSharedMemorySize,
												  (int) smem), "cudaFuncSetAttribute");
		if (st == GSD_OK)
			st = gsd_cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
				bps, compact_fused_pipelined<T>, CP_THREADS, smem),
								 "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
		if (st != GSD_OK)
			return st;
		if (*bps < 1)
			*bps = 1;
	}
	grid = (size_t) gsd_sm_count() * *bps;
	if (grid > tiles)
		grid = tiles;
	st = gsd_cuda_status(cudaMemsetAsync(scratch, 0, CP_HEADER + tiles * sizeof(unsigned long long),
										 stream), "cudaMemsetAsync");
	if (st != GSD_OK)
		return st;
	compact_fused_pipelined<T><<<(unsigned int) grid, CP_THREADS, smem, stream>>>(
		d_vals, d_keep, n, d_out, (unsigned int *) scratch,
		(unsigned long long *) ((char *) scratch + CP_HEADER), (unsigned int) tiles,
		(unsigned long long *) d_count);
	GSD_CHECK_LAUNCH(what);
	return GSD_OK;
}

/* cp_three_step_phase -- one phase of version 1; n > 0 */
template <typename T>
static gsd_status
cp_three_step_phase(int phase, const T *d_vals, const uint8_t *d_keep, size_t n, T *d_out,
					uint64_t *d_count, void *scratch)
{
	cudaStream_t stream = gsd_stream();
	uint32_t   *flags = (uint32_t *) scratch;
	uint32_t   *incl = (uint32_t *) ((char *) scratch + gsd_scratch_align(n * sizeof(uint32_t)));
	void	   *scan_scratch = (char *) incl + gsd_scratch_align(n * sizeof(uint32_t));

	switch (phase)
	{
		case 1:
			compact_predicate<<<cp_step_grid(n), CP_STEP_THREADS, 0, stream>>>(d_keep, n, flags);
			GSD_CHECK_LAUNCH("compact_predicate");
			return GSD_OK;
		case 2:
			return gsd_scan_progression_u32(7, flags, n, incl, scan_scratch);
		default:
			compact_scatter<T><<<cp_step_grid(n), CP_STEP_THREADS, 0, stream>>>(
				d_vals, d_keep, n, incl, d_out, (unsigned long long *) d_count);
			GSD_CHECK_LAUNCH("compact_scatter");
			return GSD_OK;
	}
}

/* cp_run_version -- one version of the progression on one type; n > 0 */
template <typename T>
static gsd_status
cp_run_version(int version, const T *d_vals, const uint8_t *d_keep, size_t n, T *d_out,
			   uint64_t *d_count, void *scratch)
{
	gsd_status	st = GSD_OK;

	if (version == 2)
		return cp_run_fused<T, false, false>(d_vals, d_keep, n, d_out, 0, d_count, scratch,
											 cp_names[1]);
	if (version == 3)
		return cp_run_fused<T, true, false>(d_vals, d_keep, n, d_out, 0, d_count, scratch,
											cp_names[2]);
	if (version == 4)
		return cp_run_fused<T, true, true>(d_vals, d_keep, n, d_out, 0, d_count, scratch,
										   cp_names[3]);
	if (version == 5)
		return cp_run_pipelined<T>(d_vals, d_keep, n, d_out, d_count, scratch, cp_names[4]);
	if (version == 6)
		return cp_run_flags_first<T>(d_vals, d_keep, n, d_out, 0, d_count, scratch, cp_names[5]);
	for (int phase = 1; phase <= 3 && st == GSD_OK; phase++)
		st = cp_three_step_phase<T>(phase, d_vals, d_keep, n, d_out, d_count, scratch);
	return st;
}

/* ---- the C API (gpuscan_course.h) ---- */

extern "C" int
gsd_compact_progression_count(void)
{
	return CP_VERSIONS;
}

extern "C" const char *
gsd_compact_progression_name(int version)
{
	if (version < 1 || version > CP_VERSIONS)
		return NULL;
	return cp_names[version - 1];
}

extern "C" size_t
gsd_compact_progression_scratch_bytes(size_t n)
{
	size_t		three_step = 2 * gsd_scratch_align(n * sizeof(uint32_t)) +
		gsd_scan_progression_scratch_bytes(0, n);
	size_t		fused = cp_fused_scratch_bytes(n);

	return three_step > fused ? three_step : fused;
}

/* cp_check_version -- common checks of the progression entry points */
static gsd_status
cp_check_version(int version, int is_double, const void *d_vals, const uint8_t *d_keep,
				 size_t n, const void *d_out, const uint64_t *d_count, const void *d_scratch)
{
	gsd_status	st;

	if (version < 1 || version > CP_VERSIONS)
		return gsd_fail(GSD_INVALID, "compaction version %d does not exist (1..%d)",
						version, CP_VERSIONS);
	st = cp_check(cp_names[version - 1], d_vals, true, d_keep, n, d_out,
				  is_double ? sizeof(double) : sizeof(float), d_count);
	if (st == GSD_OK && n > 0 && (d_scratch == NULL || (uintptr_t) d_scratch % 16 != 0))
		return gsd_fail(GSD_INVALID, "%s: scratch pointer is NULL or misaligned",
						cp_names[version - 1]);
	return st;
}

extern "C" gsd_status
gsd_compact_progression(int version, int is_double, const void *d_vals,
						const uint8_t *d_keep, size_t n, void *d_out, uint64_t *d_count,
						void *d_scratch)
{
	gsd_status	st = cp_check_version(version, is_double, d_vals, d_keep, n, d_out,
									  d_count, d_scratch);

	if (st != GSD_OK)
		return st;
	if (n == 0)
		return cp_zero_count(d_count);
	if (is_double)
		return cp_run_version<double>(version, (const double *) d_vals, d_keep, n,
									  (double *) d_out, d_count, d_scratch);
	return cp_run_version<float>(version, (const float *) d_vals, d_keep, n,
								 (float *) d_out, d_count, d_scratch);
}

extern "C" gsd_status
gsd_compact_three_step_phase(int phase, int is_double, const void *d_vals,
							 const uint8_t *d_keep, size_t n, void *d_out,
							 uint64_t *d_count, void *d_scratch)
{
	gsd_status	st = cp_check_version(1, is_double, d_vals, d_keep, n, d_out,
									  d_count, d_scratch);

	if (st != GSD_OK)
		return st;
	if (phase < 1 || phase > 3)
		return gsd_fail(GSD_INVALID, "compaction phase %d does not exist (1..3)", phase);
	if (n == 0)
		return phase == 3 ? cp_zero_count(d_count) : GSD_OK;
	if (is_double)
		return cp_three_step_phase<double>(phase, (const double *) d_vals, d_keep, n,
										   (double *) d_out, d_count, d_scratch);
	return cp_three_step_phase<float>(phase, (const float *) d_vals, d_keep, n,
									  (float *) d_out, d_count, d_scratch);
}
