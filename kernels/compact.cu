/*-------------------------------------------------------------------------
 *
 * compact.cu
 *	  Stream compaction: keep the values whose flag byte is not zero, in
 *	  order.  The course's three steps (predicate, scan of the 0/1 flags,
 *	  scatter) as a reference pipeline on the scan progression, and the
 *	  production form fused into one pass with decoupled look-back.
 *
 * The fused kernel, per tile of CP_TILE elements (one block):
 *  - A dynamic tile id (atomicAdd on a counter), so that a tile only ever
 *    waits for tiles that are already running: no deadlock whatever the
 *    scheduling order.
 *  - Thread t owns, in row r of the tile, the W = 16 / sizeof(T)
 *    consecutive elements of the 16-byte vector r * CP_THREADS + t: its
 *    flags come in one W-byte load, its values in one 16-byte load, both
 *    coalesced across the warp.  Values are loaded only where one of the
 *    vector's flags is set, so a sparse selection reads few of them.
 *  - Ranks without a shared-memory scan: per row, W warp ballots give
 *    every lane the warp's flag masks; a lane's rank in the warp is the
 *    population count of the masks below it, the warp's count their total.
 *    One warp then scans the R x WARPS warp counts of the tile.
 *  - Decoupled look-back (Merrill & Garland 2016) for the tile's output
 *    offset: one 64-bit status word per tile carries both the status and
 *    the count, so relaxed atomic loads and stores suffice; one warp adds
 *    up to 32 predecessors per step.  Integer counts: the result is the
 *    same on every run.
 *  - The kept values go straight to their places (version 2), or are
 *    gathered in shared memory and written out by consecutive threads
 *    (version 3).  The last tile writes the total count.
 *
 * Version 6, the production kernel, changes the layout and the order of
 * events instead (see compact_flags_first): bigger tiles, a warp's rows
 * contiguous, the tile's count published before its values have arrived.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <limits.h>

#include <cuda_runtime.h>
#include <cuda/atomic>
#include <cuda/barrier>

#include "device_internal.cuh"
#include "compact_progression.h"
#include "scan_progression.h"

#define CP_VERSIONS		6
#define CP_THREADS		256
#define CP_WARPS		(CP_THREADS / 32)
#define CP_ITEMS		16		/* elements per thread */
#define CP_TILE			(CP_THREADS * CP_ITEMS)
#define CP_FULL_MASK	0xffffffffu
#define CP_HEADER		256		/* scratch bytes ahead of the status words: tile counter */
#define CP_MAX_N		((size_t) UINT32_MAX - 65536)

/* the production kernel of values: version 2 .. 6 (positions: 2, 3 or 6) */
#define CP_PRODUCTION	6
#define CP_PRODUCTION_INDICES 6
static_assert(CP_PRODUCTION >= 2 && CP_PRODUCTION <= 6, "a fused version");
static_assert(CP_PRODUCTION_INDICES == 2 || CP_PRODUCTION_INDICES == 3 ||
			  CP_PRODUCTION_INDICES == 6, "the versions with a positions form");

/* tile status: the count in the low 32 bits, the status above (0: nothing yet) */
#define CP_AGGREGATE	(1ull << 32)	/* the tile's own count */
#define CP_INCLUSIVE	(2ull << 32)	/* the count through this tile */

static const char *const cp_names[CP_VERSIONS] = {
	"compact_three_step",
	"compact_fused_direct",
	"compact_fused_staged",
	"compact_fused_bulk",
	"compact_fused_pipelined",
	"compact_fused_flags_first",
};

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

/* cp_status_load / cp_status_store -- a tile's status word, relaxed (see above) */
__device__ __forceinline__ unsigned long long
cp_status_load(unsigned long long *p)
{
	return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*p)
		.load(cuda::memory_order_relaxed);
}

__device__ __forceinline__ void
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
__device__ __forceinline__ unsigned int
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
__device__ __forceinline__ void
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
 * true), and the positions of gsd_compact_indices (T = cp_index): see the
 * file header.  Version 4 has the copy engine bring the whole tile's
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
__global__ void __launch_bounds__(CP_THREADS)
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

/* cp_ff_tiles -- tiles of version 6 for n elements */
static size_t
cp_ff_tiles(size_t n)
{
	return (n + CP_FF_TILE - 1) / CP_FF_TILE;
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

/*
 * cp_production -- the production compaction of one type: scratch from
 * the stream-ordered pool for the call, the chosen fused version
 */
template <typename T>
static gsd_status
cp_production(const T *d_vals, const uint8_t *d_keep, size_t n,
			  typename cp_type<T>::out *d_out, int32_t first, uint64_t *d_count,
			  const char *what)
{
	constexpr int version = sizeof(T) == 1 ? CP_PRODUCTION_INDICES : CP_PRODUCTION;
	cudaStream_t stream = gsd_stream();
	void	   *scratch = NULL;
	gsd_status	st;

	st = cp_check(what, d_vals, sizeof(T) > 1, d_keep, n, d_out,
				  sizeof(typename cp_type<T>::out), d_count);
	if (st != GSD_OK)
		return st;
	if (n == 0)
		return cp_zero_count(d_count);
	st = gsd_cuda_status(cudaMallocAsync(&scratch, cp_fused_scratch_bytes(n), stream),
						 "cudaMallocAsync (compaction scratch)");
	if (st != GSD_OK)
		return st;
	if constexpr (version == 6)
		st = cp_run_flags_first<T>(d_vals, d_keep, n, d_out, first, d_count, scratch, what);
	else if constexpr (version == 5)
		st = cp_run_pipelined<T>(d_vals, d_keep, n, d_out, d_count, scratch, what);
	else
		st = cp_run_fused<T, version == 3, version == 4>(d_vals, d_keep, n, d_out, first,
														 d_count, scratch, what);
	if (st == GSD_OK)
		return gsd_cuda_status(cudaFreeAsync(scratch, stream), "cudaFreeAsync (compaction scratch)");
	(void) cudaFreeAsync(scratch, stream);	/* keep the first error's message */
	return st;
}

/* ---- the C API ---- */

extern "C" gsd_status
gsd_compact_f64(const double *d_vals, const uint8_t *d_keep, size_t n, double *d_out,
				uint64_t *d_count)
{
	return cp_production<double>(d_vals, d_keep, n, d_out, 0, d_count, "compaction of doubles");
}

extern "C" gsd_status
gsd_compact_f32(const float *d_vals, const uint8_t *d_keep, size_t n, float *d_out,
				uint64_t *d_count)
{
	return cp_production<float>(d_vals, d_keep, n, d_out, 0, d_count, "compaction of floats");
}

extern "C" gsd_status
gsd_compact_indices(const uint8_t *d_keep, size_t n, int32_t first, int32_t *d_out,
					uint64_t *d_count)
{
	if (n > 0 && (int64_t) first + (int64_t) (n - 1) > INT32_MAX)
		return gsd_fail(GSD_INVALID, "compaction of positions: position %lld exceeds INT32_MAX",
						(long long) first + (long long) (n - 1));
	return cp_production<cp_index>(NULL, d_keep, n, d_out, first, d_count,
								   "compaction of positions");
}

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
