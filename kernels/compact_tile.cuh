/*-------------------------------------------------------------------------
 *
 * compact_tile.cuh
 *	  What every fused stream compaction shares: the tile's types, its
 *	  status words and the decoupled look-back for its output offset, and
 *	  the production kernel (version 6, compact_flags_first) with its
 *	  launch.  compact.cu builds gsd_compact_* from it; the course's
 *	  compaction progression (kernels/course/compact_progression.cu) runs
 *	  the same kernel as its version 6, beside versions 1-5.
 *
 * Every fused version takes one tile per block:
 *  - A dynamic tile id (atomicAdd on a counter), so that a tile only ever
 *    waits for tiles that are already running: no deadlock whatever the
 *    scheduling order.
 *  - Ranks without a shared-memory scan: warp ballots give every lane the
 *    warp's flag masks; a lane's rank in the warp is the population count
 *    of the masks below it, the warp's count their total.  One warp then
 *    scans the warp counts of the tile (cp_tile_offset).
 *  - Decoupled look-back (Merrill & Garland 2016) for the tile's output
 *    offset: one 64-bit status word per tile carries both the status and
 *    the count, so relaxed atomic loads and stores suffice; one warp adds
 *    up to 32 predecessors per step.  Integer counts: the result is the
 *    same on every run.  The last tile writes the total count.
 *
 * Everything here is static: each file that includes it has its own copy
 * of the kernel.  CUDA-side only.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_COMPACT_TILE_CUH
#define GPUSCAN_COMPACT_TILE_CUH

#include <stdint.h>
#include <limits.h>

#include <cuda_runtime.h>
#include <cuda/atomic>
#include <cuda/barrier>

#include "device_internal.cuh"

#define CP_THREADS		256
#define CP_WARPS		(CP_THREADS / 32)
#define CP_FULL_MASK	0xffffffffu
#define CP_HEADER		256		/* scratch bytes ahead of the status words: tile counter */
#define CP_MAX_N		((size_t) UINT32_MAX - 65536)

/* tile status: the count in the low 32 bits, the status above (0: nothing yet) */
#define CP_AGGREGATE	(1ull << 32)	/* the tile's own count */
#define CP_INCLUSIVE	(2ull << 32)	/* the count through this tile */

/* ---- what differs between the element types ----
 *
 * vec: the 16-byte vector of W elements; flags: an unsigned integer of W
 * bytes, the vector's flags.  cp_index stands for the positions of
 * gsd_compact_indices: no values are loaded, outputs are int32.
 */
struct cp_index
{
};

template <typename T> struct cp_type;

template <> struct cp_type<double>
{
	typedef double2 vec;
	typedef double out;
	typedef unsigned short flags;
	static const unsigned int W = 2;
};

template <> struct cp_type<float>
{
	typedef float4 vec;
	typedef float out;
	typedef unsigned int flags;
	static const unsigned int W = 4;
};

template <> struct cp_type<cp_index>
{
	typedef int4 vec;
	typedef int32_t out;
	typedef unsigned int flags;
	static const unsigned int W = 4;
};

/* cp_status_load / cp_status_store -- a tile's status word, relaxed (see above) */
static __device__ __forceinline__ unsigned long long
cp_status_load(unsigned long long *p)
{
	return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*p)
		.load(cuda::memory_order_relaxed);
}

static __device__ __forceinline__ void
cp_status_store(unsigned long long *p, unsigned long long v)
{
	cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*p)
		.store(v, cuda::memory_order_relaxed);
}

/*
 * cp_look_back -- the number of kept elements before tile `tile` (> 0),
 * by one warp: lane l looks at tile window - l; once every tile of the
 * window has published, the counts up to the nearest inclusive one are
 * added; without one, all 32 are, and the window moves back.
 */
static __device__ __forceinline__ unsigned int
cp_look_back(unsigned int tile, unsigned long long *status)
{
	const int	lane = threadIdx.x & 31;
	long long	window = (long long) tile - 1;
	unsigned int excl = 0;

	for (;;)
	{
		const long long p = window - lane;
		unsigned long long w;
		unsigned int inclusive;
		unsigned int v;

		do
		{
			w = p >= 0 ? cp_status_load(&status[p]) : CP_INCLUSIVE;
		} while (__any_sync(CP_FULL_MASK, (w >> 32) == 0));
		inclusive = __ballot_sync(CP_FULL_MASK, (w & CP_INCLUSIVE) != 0);
		v = (unsigned int) w;
		if (inclusive != 0 && lane > __ffs(inclusive) - 1)
			v = 0;				/* beyond the nearest inclusive count */
		excl += __reduce_add_sync(CP_FULL_MASK, v);
		if (inclusive != 0)
			return excl;
		window -= 32;
	}
}

/*
 * cp_tile_offset -- by warp 0 of a tile's block, after row_sh holds the
 * tile's N counts, in element order: turn them into exclusive prefixes
 * within the tile, publish the tile's count, look back for the count of
 * the tiles before it, publish the inclusive count; *prefix_sh and
 * *total_sh get the tile's output offset and count, and the last tile
 * writes the total to *count.
 */
template <unsigned int N>
static __device__ __forceinline__ void
cp_tile_offset(unsigned int tile, unsigned int ntiles, unsigned int *row_sh,
			   unsigned long long *status, unsigned long long *count,
			   unsigned int *prefix_sh, unsigned int *total_sh)
{
	const unsigned int lane = threadIdx.x & 31;
	const unsigned int K = (N + 31) / 32;	/* counts per lane */
	unsigned int c[K];
	unsigned int own = 0,
				incl,
				agg,
				excl = 0;

#pragma unroll
	for (unsigned int k = 0; k < K; k++)
	{
		c[k] = lane * K + k < N ? row_sh[lane * K + k] : 0;
		own += c[k];
	}
	incl = own;
#pragma unroll
	for (unsigned int o = 1; o < 32; o <<= 1)
	{
		unsigned int u = __shfl_up_sync(CP_FULL_MASK, incl, o);

		if (lane >= o)
			incl += u;
	}
	agg = __shfl_sync(CP_FULL_MASK, incl, 31);
	{
		unsigned int run = incl - own;

#pragma unroll
		for (unsigned int k = 0; k < K; k++)
		{
			if (lane * K + k < N)
				row_sh[lane * K + k] = run;
			run += c[k];
		}
	}

	if (tile == 0)
	{
		if (lane == 0)
			cp_status_store(&status[0], CP_INCLUSIVE | agg);
	}
	else
	{
		if (lane == 0)
			cp_status_store(&status[tile], CP_AGGREGATE | agg);
		excl = cp_look_back(tile, status);
		if (lane == 0)
			cp_status_store(&status[tile], CP_INCLUSIVE | (excl + agg));
	}
	if (lane == 0)
	{
		*prefix_sh = excl;
		*total_sh = agg;
		if (tile == ntiles - 1)
			*count = (unsigned long long) excl + agg;
	}
}


/*
 * Version 6 (flags first): a warp owns CP_FF_ITEMS consecutive rows of 32
 * elements, lane l element l of each row, so that a row's kept elements
 * go to consecutive places (coalesced stores straight from shared memory,
 * no staging) and a warp ranks its rows alone.  The flags and the values
 * of the tile come by two bulk copies on two barriers: the tile's count
 * is published as soon as its flags are in, and the look-back runs while
 * the values are still on their way.  Few registers, so the shared memory
 * alone limits how many tiles an SM holds at once.
 */
#ifndef CP_FF_ITEMS
#define CP_FF_ITEMS		48		/* rows of 32 elements per warp */
#endif
#define CP_FF_TILE		(CP_THREADS * CP_FF_ITEMS)

/* cp_ff_smem -- dynamic shared memory of version 6: the tile's flags, then its values */
static constexpr size_t
cp_ff_smem(size_t value_size)
{
	return CP_FF_TILE + CP_FF_TILE * value_size;
}

/*
 * compact_flags_first -- version 6, and the positions (T = cp_index: no
 * values, the output is first + the element's index)
 */
template <typename T>
static __global__ void __launch_bounds__(CP_THREADS)
compact_flags_first(const T *__restrict__ vals, const uint8_t *__restrict__ keep, size_t n,
					typename cp_type<T>::out *__restrict__ out, int32_t first,
					unsigned int *counter, unsigned long long *status, unsigned int ntiles,
					unsigned long long *count)
{
	typedef typename cp_type<T>::out O;
	constexpr bool indices = sizeof(T) == 1;	/* cp_index is empty */
	const unsigned int WARP_ELEMS = 32 * CP_FF_ITEMS;
	extern __shared__ __align__(16) unsigned char cp_ff_sh[];
	uint8_t    *keep_sh = cp_ff_sh;
	O		   *vals_sh = reinterpret_cast<O *>(cp_ff_sh + CP_FF_TILE);
	__shared__ unsigned int warp_sh[CP_WARPS];	/* warp counts, then their prefixes */
	__shared__ unsigned int tile_sh;
	__shared__ unsigned int prefix_sh;
	__shared__ unsigned int total_sh;
#pragma nv_diag_suppress static_var_with_dynamic_init
	__shared__ cuda::barrier<cuda::thread_scope_block> bars[2];	/* flags, values */
	const unsigned int tid = threadIdx.x;
	const unsigned int lane = tid & 31;
	const unsigned int warp = tid >> 5;
	const unsigned int lanes_below = (1u << lane) - 1;
	const uint8_t *my_keep;
	unsigned int tile;
	size_t		base,
				len;
	bool		bulk = false;
	unsigned int cnt = 0;

	if (tid == 0)
	{
		tile_sh = atomicAdd(counter, 1u);
		init(&bars[0], CP_THREADS);
		init(&bars[1], CP_THREADS);
	}
	__syncthreads();
	tile = tile_sh;
	base = (size_t) tile * CP_FF_TILE;
	len = n - base < CP_FF_TILE ? n - base : CP_FF_TILE;

	/* the tile in: flags and values by the copy engine (sm_90), else by hand */
#if __CUDA_ARCH__ >= 900
	bulk = len == CP_FF_TILE;
	if (bulk)
	{
		if (tid == 0)
		{
			cuda::memcpy_async(keep_sh, keep + base, cuda::aligned_size_t<16>(CP_FF_TILE),
							   bars[0]);
			if constexpr (!indices)
				cuda::memcpy_async(vals_sh, vals + base,
								   cuda::aligned_size_t<16>(CP_FF_TILE * sizeof(T)), bars[1]);
		}
		bars[0].arrive_and_wait();
	}
#endif
	if (!bulk)
	{
		for (unsigned int i = tid; i < CP_FF_TILE; i += CP_THREADS)
		{
			keep_sh[i] = i < len ? keep[base + i] : 0;
			if constexpr (!indices)
				vals_sh[i] = i < len ? vals[base + i] : O(0);
		}
		__syncthreads();
	}

	/* the warp's count; warp 0 scans the counts and looks back */
	my_keep = keep_sh + warp * WARP_ELEMS + lane;
#pragma unroll
	for (unsigned int j = 0; j < CP_FF_ITEMS; j++)
		cnt += __popc(__ballot_sync(CP_FULL_MASK, my_keep[j * 32] != 0));
	if (lane == 0)
		warp_sh[warp] = cnt;
	__syncthreads();
	if (warp == 0)
		cp_tile_offset<CP_WARPS>(tile, ntiles, warp_sh, status, count, &prefix_sh, &total_sh);
	__syncthreads();
	if constexpr (!indices)
	{
		if (bulk)
			bars[1].arrive_and_wait();
	}

	/* each row's kept elements to consecutive places */
	{
		O		   *dst = out + prefix_sh + warp_sh[warp];
		const unsigned int e0 = warp * WARP_ELEMS + lane;
		unsigned int run = 0;

#pragma unroll
		for (unsigned int j = 0; j < CP_FF_ITEMS; j++)
		{
			const bool	k = my_keep[j * 32] != 0;
			const unsigned int m = __ballot_sync(CP_FULL_MASK, k);

			if (k)
			{
				O			x;

				if constexpr (indices)
					x = (O) ((int64_t) first + (int64_t) (base + e0 + j * 32));
				else
					x = vals_sh[e0 + j * 32];
				__stcs(&dst[run + __popc(m & lanes_below)], x);
			}
			run += __popc(m);
		}
	}
}

/* ---- host side ---- */

/* cp_ff_tiles -- tiles of version 6 for n elements */
static size_t
cp_ff_tiles(size_t n)
{
	return (n + CP_FF_TILE - 1) / CP_FF_TILE;
}

/* cp_ff_scratch_bytes -- the tile counter and a status word per tile of version 6 */
static size_t
cp_ff_scratch_bytes(size_t n)
{
	return CP_HEADER + gsd_scratch_align(cp_ff_tiles(n) * sizeof(unsigned long long));
}

/*
 * cp_check -- the arguments of one compaction (d_vals NULL for positions);
 * GSD_OK when they are usable
 */
static gsd_status
cp_check(const char *what, const void *d_vals, bool need_vals, const uint8_t *d_keep,
		 size_t n, const void *d_out, size_t out_size, const void *d_count)
{
	gsd_status	st = gsd_require_open();

	if (st != GSD_OK)
		return st;
	if (d_count == NULL || (uintptr_t) d_count % 8 != 0)
		return gsd_fail(GSD_INVALID, "%s: count pointer is NULL or misaligned", what);
	if (n == 0)
		return GSD_OK;
	if (n > CP_MAX_N)
		return gsd_fail(GSD_INVALID, "%s: %zu elements are too many for one call", what, n);
	if ((need_vals && (d_vals == NULL || (uintptr_t) d_vals % 16 != 0)) ||
		d_keep == NULL || (uintptr_t) d_keep % 16 != 0)
		return gsd_fail(GSD_INVALID, "%s: input pointer is NULL or not 16-byte aligned", what);
	if (d_out == NULL || (uintptr_t) d_out % out_size != 0)
		return gsd_fail(GSD_INVALID, "%s: output pointer is NULL or misaligned", what);
	return GSD_OK;
}

/* cp_zero_count -- *d_count = 0, for n == 0 */
static gsd_status
cp_zero_count(uint64_t *d_count)
{
	return gsd_cuda_status(cudaMemsetAsync(d_count, 0, sizeof(uint64_t), gsd_stream()),
						   "cudaMemsetAsync");
}

/*
 * cp_run_flags_first -- reset the scratch and launch version 6 (or its
 * positions form); n > 0.  The shared memory is dynamic, allowed past the
 * default 48 KiB once per type.
 */
template <typename T>
static gsd_status
cp_run_flags_first(const T *d_vals, const uint8_t *d_keep, size_t n,
				   typename cp_type<T>::out *d_out, int32_t first, uint64_t *d_count,
				   void *scratch, const char *what)
{
	static bool allowed;
	const size_t smem = cp_ff_smem(sizeof(T) > 1 ? sizeof(T) : 0);
	const size_t tiles = cp_ff_tiles(n);
	cudaStream_t stream = gsd_stream();
	gsd_status	st;

	if (!allowed)
	{
		st = gsd_cuda_status(cudaFuncSetAttribute(compact_flags_first<T>,
												  cudaFuncAttributeMaxDynamicSharedMemorySize,
												  (int) smem), "cudaFuncSetAttribute");
		if (st != GSD_OK)
			return st;
		allowed = true;
	}
	st = gsd_cuda_status(cudaMemsetAsync(scratch, 0, CP_HEADER + tiles * sizeof(unsigned long long),
										 stream), "cudaMemsetAsync");
	if (st != GSD_OK)
		return st;
	compact_flags_first<T><<<(unsigned int) tiles, CP_THREADS, smem, stream>>>(
		d_vals, d_keep, n, d_out, first, (unsigned int *) scratch,
		(unsigned long long *) ((char *) scratch + CP_HEADER), (unsigned int) tiles,
		(unsigned long long *) d_count);
	GSD_CHECK_LAUNCH(what);
	return GSD_OK;
}

#endif							/* GPUSCAN_COMPACT_TILE_CUH */
