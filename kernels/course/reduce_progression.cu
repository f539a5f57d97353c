/*-------------------------------------------------------------------------
 *
 * reduce_progression.cu
 *	  The parallel-sum progression of Harris, "Optimizing Parallel Reduction
 *	  in CUDA", one kernel per step, for float and double, each a complete
 *	  multi-block sum of n device values into one device scalar.  A comment
 *	  over every kernel says what it changes against the one before and why.
 *
 * Versions 1-6 reduce each block's slice to one partial sum and launch
 * again over the partial sums until one value is left (a block never
 * waits for another: the only grid-wide barrier is the end of a launch).
 * Version 7 uses a fixed grid and at most two launches; version 8 one.
 *
 * These sums round in the input's precision at every addition: they are
 * for teaching and benchmarking.  The SQL functions use the exact sum of
 * reduce_exact.cu.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <limits.h>

#include <cuda_runtime.h>

#include "device_internal.cuh"
#include "gpuscan_course.h"

#define RP_VERSIONS		8
#define RP_THREADS		256		/* threads per block, every version */
#define RP_LOG2_THREADS 8
#define RP_HEADER		256		/* scratch bytes ahead of the partial sums */
#define RP_MAX_GRID		4096	/* most blocks of versions 7 and 8 */
#define RP_UNROLL		4		/* 16-byte loads in flight per thread (version 8) */

static_assert((1 << RP_LOG2_THREADS) == RP_THREADS, "RP_LOG2_THREADS");
static_assert(RP_THREADS >= 64 && RP_THREADS <= 1024, "the warp steps need 64 threads");

static const char *const rp_names[RP_VERSIONS] = {
	"reduce_interleaved_divergent",
	"reduce_interleaved_strided",
	"reduce_sequential_addressing",
	"reduce_first_add_during_load",
	"reduce_unrolled_last_warp",
	"reduce_complete_unroll",
	"reduce_grid_stride",
	"reduce_shuffle_vectorized",
};

/* ---- device helpers ---- */

/*
 * rp_warp_sum_shared -- the last six steps of a shared-memory tree, done by
 * warp 0 alone (tid < 32) over sdata[0..63]; the sum is valid in thread 0.
 *
 * The course writes these steps through a volatile pointer with no
 * synchronization at all, trusting the 32 threads of a warp to run in
 * lockstep.  Since Volta, independent thread scheduling gives no such
 * guarantee: thread t may read sdata[t + 16] after thread t + 16 has
 * already stored its next value there (or before it stored its previous
 * one), which double-counts or drops elements.  volatile only stops the
 * compiler from caching shared values in registers; it orders nothing
 * between threads.  So each step reads into a register, waits at
 * __syncwarp() until every lane has read, stores, and waits again until
 * every lane has stored.  __syncwarp() also orders the shared-memory
 * accesses of the lanes it joins, so no volatile is needed.
 */
template <typename T>
__device__ __forceinline__ T
rp_warp_sum_shared(T *sdata, unsigned int tid)
{
	T			v = sdata[tid];

	v += sdata[tid + 32];
	__syncwarp();
	sdata[tid] = v;
	__syncwarp();
	v += sdata[tid + 16];
	__syncwarp();
	sdata[tid] = v;
	__syncwarp();
	v += sdata[tid + 8];
	__syncwarp();
	sdata[tid] = v;
	__syncwarp();
	v += sdata[tid + 4];
	__syncwarp();
	sdata[tid] = v;
	__syncwarp();
	v += sdata[tid + 2];
	__syncwarp();
	sdata[tid] = v;
	__syncwarp();
	v += sdata[tid + 1];
	return v;
}

/*
 * rp_block_sum_unrolled -- shared-memory tree over sdata[0..BS) with the
 * block size known at compile time: every `if (BS >= ...)` folds away, so
 * no loop counter, no loop test, no dead __syncthreads().  Sum in thread 0.
 */
template <unsigned int BS, typename T>
__device__ __forceinline__ T
rp_block_sum_unrolled(T *sdata, unsigned int tid)
{
	static_assert(BS >= 64 && BS <= 1024 && (BS & (BS - 1)) == 0, "block size");
	if (BS >= 1024)
	{
		if (tid < 512)
			sdata[tid] += sdata[tid + 512];
		__syncthreads();
	}
	if (BS >= 512)
	{
		if (tid < 256)
			sdata[tid] += sdata[tid + 256];
		__syncthreads();
	}
	if (BS >= 256)
	{
		if (tid < 128)
			sdata[tid] += sdata[tid + 128];
		__syncthreads();
	}
	if (BS >= 128)
	{
		if (tid < 64)
			sdata[tid] += sdata[tid + 64];
		__syncthreads();
	}
	if (tid < 32)
		return rp_warp_sum_shared(sdata, tid);
	return T(0);
}

/* rp_warp_sum -- sum over the 32 lanes by shuffles; the sum is in lane 0 */
template <typename T>
__device__ __forceinline__ T
rp_warp_sum(T v)
{
#pragma unroll
	for (int offset = 16; offset > 0; offset >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, offset);
	return v;
}

/*
 * rp_block_sum_shuffle -- sum over the block by shuffles: each warp
 * reduces in registers, one shared slot per warp, then warp 0 reduces the
 * slots.  Sum in thread 0; every thread of the block must call it.
 */
template <unsigned int BS, typename T>
__device__ __forceinline__ T
rp_block_sum_shuffle(T v, T *warp_sums)
{
	const unsigned int lane = threadIdx.x & 31;
	const unsigned int warp = threadIdx.x >> 5;

	v = rp_warp_sum(v);
	if (lane == 0)
		warp_sums[warp] = v;
	__syncthreads();
	if (warp == 0)
	{
		v = (lane < BS / 32) ? warp_sums[lane] : T(0);
		v = rp_warp_sum(v);
	}
	return v;
}

/* 16-byte vectors of version 8 */
template <typename T> struct rp_vec;
template <> struct rp_vec<float>
{
	typedef float4 type;
	static const int width = 4;
	static const int log2_width = 2;
};
template <> struct rp_vec<double>
{
	typedef double2 type;
	static const int width = 2;
	static const int log2_width = 1;
};

__device__ __forceinline__ void
rp_add_vec(float (&acc)[4], float4 x)
{
	acc[0] += x.x;
	acc[1] += x.y;
	acc[2] += x.z;
	acc[3] += x.w;
}

__device__ __forceinline__ void
rp_add_vec(double (&acc)[2], double2 x)
{
	acc[0] += x.x;
	acc[1] += x.y;
}

/* rp_pair_sum -- balanced sum of one vector's lanes */
__device__ __forceinline__ float
rp_pair_sum(const float (&a)[4])
{
	return (a[0] + a[1]) + (a[2] + a[3]);
}

__device__ __forceinline__ double
rp_pair_sum(const double (&a)[2])
{
	return a[0] + a[1];
}

/* ---- the kernels ---- */

/*
 * 1. reduce_interleaved_divergent -- the starting point.  Each thread
 * loads one element into shared memory (zero past n); at stride s the
 * threads whose index is a multiple of 2s add the element s to their
 * right, until thread 0 holds the block's sum.  The active threads are
 * scattered over the warps (tid % (2s)), so warps keep running with most
 * of their lanes idle and diverge at every step; and % is a slow
 * instruction.  Writes one partial sum per block.
 */
template <typename T>
__global__ void
reduce_interleaved_divergent(const T *in, T *out, size_t n)
{
	__shared__ T sdata[RP_THREADS];
	unsigned int tid = threadIdx.x;
	size_t		i = (size_t) blockIdx.x * blockDim.x + tid;

	sdata[tid] = (i < n) ? in[i] : T(0);
	__syncthreads();
	for (unsigned int s = 1; s < blockDim.x; s *= 2)
	{
		if (tid % (2 * s) == 0)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		out[blockIdx.x] = sdata[0];
}

/*
 * 2. reduce_interleaved_strided -- same pairs as version 1, but thread
 * tid works on index 2*s*tid, so the working threads are the first ones,
 * packed into as few warps as possible: whole warps drop out instead of
 * diverging, and the modulo is gone.  The new cost: at stride s, lanes of
 * a warp touch addresses 2s elements apart, so several lanes hit the same
 * shared-memory bank (2-way at s = 1, worse as s grows) and their
 * accesses are serialized.
 */
template <typename T>
__global__ void
reduce_interleaved_strided(const T *in, T *out, size_t n)
{
	__shared__ T sdata[RP_THREADS];
	unsigned int tid = threadIdx.x;
	size_t		i = (size_t) blockIdx.x * blockDim.x + tid;

	sdata[tid] = (i < n) ? in[i] : T(0);
	__syncthreads();
	for (unsigned int s = 1; s < blockDim.x; s *= 2)
	{
		unsigned int idx = 2 * s * tid;

		if (idx < blockDim.x)
			sdata[idx] += sdata[idx + s];
		__syncthreads();
	}
	if (tid == 0)
		out[blockIdx.x] = sdata[0];
}

/*
 * 3. reduce_sequential_addressing -- reverse the loop: the stride starts
 * at blockDim/2 and halves, and thread tid adds sdata[tid + s] into
 * sdata[tid].  The lanes of a warp now read consecutive words, so there
 * are no bank conflicts, and the working threads stay packed.  Still,
 * half of the threads do nothing but one load, even in the first step.
 */
template <typename T>
__global__ void
reduce_sequential_addressing(const T *in, T *out, size_t n)
{
	__shared__ T sdata[RP_THREADS];
	unsigned int tid = threadIdx.x;
	size_t		i = (size_t) blockIdx.x * blockDim.x + tid;

	sdata[tid] = (i < n) ? in[i] : T(0);
	__syncthreads();
	for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1)
	{
		if (tid < s)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		out[blockIdx.x] = sdata[0];
}

/*
 * 4. reduce_first_add_during_load -- each block covers 2*blockDim
 * elements and every thread adds two of them (blockDim apart, so both
 * loads stay coalesced) before the tree starts: the first step of the
 * tree happens in registers during the load, with every thread busy.
 * Half the blocks, so half the partial sums and the block overheads.
 */
template <typename T>
__global__ void
reduce_first_add_during_load(const T *in, T *out, size_t n)
{
	__shared__ T sdata[RP_THREADS];
	unsigned int tid = threadIdx.x;
	size_t		i = (size_t) blockIdx.x * (2 * blockDim.x) + tid;
	T			v = T(0);

	if (i < n)
		v = in[i];
	if (i + blockDim.x < n)
		v += in[i + blockDim.x];
	sdata[tid] = v;
	__syncthreads();
	for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1)
	{
		if (tid < s)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		out[blockIdx.x] = sdata[0];
}

/*
 * 5. reduce_unrolled_last_warp -- once 32 or fewer threads are left the
 * work fits one warp: stop the loop at s = 64, and let warp 0 do the last
 * six steps without __syncthreads() and without the loop test
 * (rp_warp_sum_shared).  The course relies on volatile and lockstep warps
 * for this; that is a race on Volta and later, see rp_warp_sum_shared for
 * the __syncwarp() form used here.  Requires blockDim >= 64.
 */
template <typename T>
__global__ void
reduce_unrolled_last_warp(const T *in, T *out, size_t n)
{
	__shared__ T sdata[RP_THREADS];
	unsigned int tid = threadIdx.x;
	size_t		i = (size_t) blockIdx.x * (2 * blockDim.x) + tid;
	T			v = T(0);

	if (i < n)
		v = in[i];
	if (i + blockDim.x < n)
		v += in[i + blockDim.x];
	sdata[tid] = v;
	__syncthreads();
	for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1)
	{
		if (tid < s)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	if (tid < 32)
	{
		v = rp_warp_sum_shared(sdata, tid);
		if (tid == 0)
			out[blockIdx.x] = v;
	}
}

/*
 * 6. reduce_complete_unroll -- the block size becomes a template
 * parameter, so the remaining loop over strides unrolls completely at
 * compile time (rp_block_sum_unrolled): no loop counter, no compare, no
 * branch, only the adds and the barriers that the block size needs.
 */
template <unsigned int BS, typename T>
__global__ void __launch_bounds__(BS)
reduce_complete_unroll(const T *in, T *out, size_t n)
{
	__shared__ T sdata[BS];
	unsigned int tid = threadIdx.x;
	size_t		i = (size_t) blockIdx.x * (2 * BS) + tid;
	T			v = T(0);

	if (i < n)
		v = in[i];
	if (i + BS < n)
		v += in[i + BS];
	sdata[tid] = v;
	__syncthreads();
	v = rp_block_sum_unrolled<BS>(sdata, tid);
	if (tid == 0)
		out[blockIdx.x] = v;
}

/*
 * 7. reduce_grid_stride -- versions 1-6 spend one block (and its tree of
 * barriers) on every 256 or 512 elements and need ~log_512(n) launches.
 * Here the grid is fixed to what the device holds at once (a few blocks
 * per multiprocessor), and each thread walks the input with a grid-size
 * stride, adding two elements per step into a register: the tree runs
 * once per resident block instead of once per 512 elements, and the loads
 * of consecutive steps overlap.  A second launch of one block sums the
 * grid's partial sums.  (The course's loop reads in[i + blockSize]
 * unchecked; it is checked here.)
 */
template <unsigned int BS, typename T>
__global__ void __launch_bounds__(BS)
reduce_grid_stride(const T *in, T *out, size_t n)
{
	__shared__ T sdata[BS];
	unsigned int tid = threadIdx.x;
	size_t		i = (size_t) blockIdx.x * (2 * BS) + tid;
	const size_t grid_size = (size_t) (2 * BS) * gridDim.x;
	T			sum = T(0);

	while (i < n)
	{
		T			v = in[i];

		if (i + BS < n)
			v += in[i + BS];
		sum += v;
		i += grid_size;
	}
	sdata[tid] = sum;
	__syncthreads();
	sum = rp_block_sum_unrolled<BS>(sdata, tid);
	if (tid == 0)
		out[blockIdx.x] = sum;
}

/*
 * 8. reduce_shuffle_vectorized -- the modern form, one launch.
 *  - Loads are 16 bytes (float4 / double2) through the read-only path: a
 *    quarter (a half) of the load instructions of version 7, and RP_UNROLL
 *    of them are issued before the first is used, so each thread keeps 64
 *    bytes in flight.  Every loaded lane has its own accumulator, which
 *    also shortens the chains of dependent adds (and their rounding).
 *    Elements before the first 16-byte boundary and after the last whole
 *    vector are added by block 0.
 *  - The block sum uses __shfl_down_sync: lanes read each other's
 *    registers, no shared-memory round trip per step and one block
 *    barrier instead of three.
 *  - No second launch: each block stores its partial sum, makes it
 *    visible (__threadfence), and takes a ticket from a counter; the block
 *    that draws the last ticket knows all partial sums are in and adds
 *    them in block order.  Unlike an atomicAdd of floats into the result,
 *    whose order changes from run to run, the sum is the same every run.
 *    That block sets the counter back to zero for the next call.
 */
template <typename T, unsigned int BS>
__global__ void __launch_bounds__(BS)
reduce_shuffle_vectorized(const T *__restrict__ in, size_t n, T *partial,
						  unsigned int *done, T *out)
{
	typedef typename rp_vec<T>::type V;
	const int	W = rp_vec<T>::width;
	__shared__ T warp_sums[BS / 32];
	__shared__ bool is_last;
	const unsigned int tid = threadIdx.x;
	size_t		head = ((16 - ((uintptr_t) in & 15)) & 15) / sizeof(T);
	T			acc[RP_UNROLL][W];
	T			sum;

	static_assert(RP_UNROLL == 4, "the pairwise sum below assumes 4");
	if (head > n)
		head = n;

	const V    *__restrict__ vin = reinterpret_cast<const V *>(in + head);
	const size_t nvec = (n - head) / W;
	const size_t tail = head + nvec * W;	/* first element after the vectors */
	const size_t tile = (size_t) BS * RP_UNROLL;
	const size_t stride = (size_t) gridDim.x * tile;
	size_t		v = (size_t) blockIdx.x * tile + tid;

#pragma unroll
	for (int u = 0; u < RP_UNROLL; u++)
#pragma unroll
		for (int c = 0; c < W; c++)
			acc[u][c] = T(0);

	for (; v + (RP_UNROLL - 1) * BS < nvec; v += stride)
	{
		V			x[RP_UNROLL];

#pragma unroll
		for (int u = 0; u < RP_UNROLL; u++)
			x[u] = __ldg(&vin[v + u * BS]);
#pragma unroll
		for (int u = 0; u < RP_UNROLL; u++)
			rp_add_vec(acc[u], x[u]);
	}
	/* the rest of this thread's last tile: v + stride is past nvec */
#pragma unroll
	for (int u = 0; u < RP_UNROLL; u++)
		if (v + u * BS < nvec)
			rp_add_vec(acc[u], __ldg(&vin[v + u * BS]));
	if (blockIdx.x == 0)
	{
		if (tid < head)
			acc[0][0] += in[tid];
		if (tid < n - tail)
			acc[0][0] += in[tail + tid];
	}

	sum = (rp_pair_sum(acc[0]) + rp_pair_sum(acc[1])) +
		(rp_pair_sum(acc[2]) + rp_pair_sum(acc[3]));
	sum = rp_block_sum_shuffle<BS>(sum, warp_sums);

	if (tid == 0)
	{
		unsigned int ticket;

		partial[blockIdx.x] = sum;
		__threadfence();		/* the partial sum before the ticket */
		ticket = atomicAdd(done, 1u);
		is_last = (ticket == gridDim.x - 1);
		if (is_last)
			__threadfence();	/* every ticket before the partial sums */
	}
	__syncthreads();
	if (!is_last)
		return;

	/* the last block: all partial sums, in block order, read from L2 */
	sum = T(0);
	for (unsigned int b = tid; b < gridDim.x; b += BS)
		sum += __ldcg(&partial[b]);
	sum = rp_block_sum_shuffle<BS>(sum, warp_sums);
	if (tid == 0)
	{
		*out = sum;
		*done = 0;
	}
}

/* ---- host side ---- */

/* rp_elems_per_block -- elements one block of versions 1-6 covers */
static size_t
rp_elems_per_block(int version)
{
	return version <= 3 ? RP_THREADS : 2 * RP_THREADS;
}

/* rp_ceil_div -- ceil(a / b) */
static size_t
rp_ceil_div(size_t a, size_t b)
{
	return a / b + (a % b != 0);
}

/* rp_blocks_per_sm -- resident blocks per multiprocessor of a kernel (cached) */
template <typename K>
static gsd_status
rp_blocks_per_sm(K kernel, int *cache)
{
	if (*cache == 0)
	{
		int			blocks = 0;
		gsd_status	st;

		st = gsd_cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel,
																		   RP_THREADS, 0),
							 "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
		if (st != GSD_OK)
			return st;
		*cache = blocks > 0 ? blocks : 1;
	}
	return GSD_OK;
}

/*
 * rp_fixed_grid -- blocks of version 7 or 8 for n elements: enough to hold
 * every element once (two per thread, or RP_UNROLL vectors per thread),
 * at most what the device keeps resident, at most RP_MAX_GRID; at least 1.
 */
template <typename T>
static gsd_status
rp_fixed_grid(int version, size_t n, size_t *grid)
{
	static int	resident[2];	/* blocks per SM of version 7 and 8 */
	int		   *cache = &resident[version - 7];
	size_t		per_block;
	size_t		g;
	gsd_status	st;

	if (version == 7)
	{
		st = rp_blocks_per_sm(reduce_grid_stride<RP_THREADS, T>, cache);
		per_block = 2 * RP_THREADS;
	}
	else
	{
		st = rp_blocks_per_sm(reduce_shuffle_vectorized<T, RP_THREADS>, cache);
		per_block = (size_t) RP_THREADS * RP_UNROLL * rp_vec<T>::width;
	}
	if (st != GSD_OK)
		return st;
	g = rp_ceil_div(n, per_block);
	if (g > (size_t) *cache * gsd_sm_count())
		g = (size_t) *cache * gsd_sm_count();
	if (g > RP_MAX_GRID)
		g = RP_MAX_GRID;
	*grid = g > 0 ? g : 1;
	return GSD_OK;
}

/* rp_launch_pass -- one launch of versions 1-6 */
template <typename T>
static void
rp_launch_pass(int version, size_t blocks, const T *in, T *out, size_t n)
{
	cudaStream_t stream = gsd_stream();
	unsigned int grid = (unsigned int) blocks;

	switch (version)
	{
		case 1:
			reduce_interleaved_divergent<T><<<grid, RP_THREADS, 0, stream>>>(in, out, n);
			break;
		case 2:
			reduce_interleaved_strided<T><<<grid, RP_THREADS, 0, stream>>>(in, out, n);
			break;
		case 3:
			reduce_sequential_addressing<T><<<grid, RP_THREADS, 0, stream>>>(in, out, n);
			break;
		case 4:
			reduce_first_add_during_load<T><<<grid, RP_THREADS, 0, stream>>>(in, out, n);
			break;
		case 5:
			reduce_unrolled_last_warp<T><<<grid, RP_THREADS, 0, stream>>>(in, out, n);
			break;
		case 6:
			reduce_complete_unroll<RP_THREADS, T><<<grid, RP_THREADS, 0, stream>>>(in, out, n);
			break;
	}
}

/*
 * rp_multipass -- versions 1-6: reduce to one partial sum per block, then
 * again over the partial sums, until one block is left, which writes
 * *out.  The partial sums alternate between the two scratch areas.
 */
template <typename T>
static gsd_status
rp_multipass(int version, const T *in, size_t n, T *out, T *area_a, T *area_b)
{
	const size_t per_block = rp_elems_per_block(version);
	const T    *src = in;
	size_t		count = n;

	for (;;)
	{
		size_t		blocks = count > 0 ? rp_ceil_div(count, per_block) : 1;
		T		   *dst = blocks == 1 ? out : (src == area_a ? area_b : area_a);

		if (blocks > (size_t) INT_MAX)
			return gsd_fail(GSD_INVALID, "%zu elements are too many for %s",
							n, rp_names[version - 1]);
		rp_launch_pass<T>(version, blocks, src, dst, count);
		GSD_CHECK_LAUNCH(rp_names[version - 1]);
		if (blocks == 1)
			return GSD_OK;
		src = dst;
		count = blocks;
	}
}

/* rp_run -- one version on one type */
template <typename T>
static gsd_status
rp_run(int version, const T *in, size_t n, T *out, void *scratch)
{
	unsigned int *done = (unsigned int *) scratch;
	T		   *area_a = (T *) ((char *) scratch + RP_HEADER);
	T		   *area_b = area_a + rp_ceil_div(n, RP_THREADS);
	cudaStream_t stream = gsd_stream();
	size_t		grid;
	gsd_status	st;

	if (version <= 6)
		return rp_multipass<T>(version, in, n, out, area_a, area_b);

	if ((st = rp_fixed_grid<T>(version, n, &grid)) != GSD_OK)
		return st;
	if (version == 7)
	{
		if (grid == 1)
		{
			reduce_grid_stride<RP_THREADS, T><<<1, RP_THREADS, 0, stream>>>(in, out, n);
			GSD_CHECK_LAUNCH(rp_names[6]);
			return GSD_OK;
		}
		reduce_grid_stride<RP_THREADS, T><<<(unsigned int) grid, RP_THREADS, 0, stream>>>(in, area_a, n);
		GSD_CHECK_LAUNCH(rp_names[6]);
		reduce_grid_stride<RP_THREADS, T><<<1, RP_THREADS, 0, stream>>>(area_a, out, grid);
		GSD_CHECK_LAUNCH(rp_names[6]);
		return GSD_OK;
	}
	reduce_shuffle_vectorized<T, RP_THREADS><<<(unsigned int) grid, RP_THREADS, 0, stream>>>(in, n, area_a,
																						  done, out);
	GSD_CHECK_LAUNCH(rp_names[7]);
	return GSD_OK;
}

/*
 * rp_depth -- the most additions any input goes through on its way to the
 * result of a version (see gsd_reduce_progression_error_bound).  Mirrors
 * the launches above.
 */
template <typename T>
static gsd_status
rp_depth(int version, size_t n, size_t *depth)
{
	size_t		h = 0;
	size_t		grid;
	gsd_status	st;

	if (version <= 6)
	{
		/* per pass: one add at load from version 4 on, then the block tree */
		size_t		per_pass = RP_LOG2_THREADS + (version >= 4 ? 1 : 0);
		size_t		count = n;
		size_t		blocks;

		do
		{
			blocks = count > 0 ? rp_ceil_div(count, rp_elems_per_block(version)) : 1;
			h += per_pass;
			count = blocks;
		} while (blocks > 1);
		*depth = h;
		return GSD_OK;
	}

	if ((st = rp_fixed_grid<T>(version, n, &grid)) != GSD_OK)
		return st;
	if (version == 7)
	{
		/* in[i] + in[i + BS], then one add per grid step, then the tree */
		h = 1 + rp_ceil_div(n, 2 * RP_THREADS * grid) + RP_LOG2_THREADS;
		if (grid > 1)
			h += 1 + rp_ceil_div(grid, 2 * RP_THREADS) + RP_LOG2_THREADS;
	}
	else
	{
		const size_t W = rp_vec<T>::width;

		/* one add per vector step (+1 for the last tile), head and tail */
		h = rp_ceil_div(n, W * RP_THREADS * RP_UNROLL * grid) + 1 + 2;
		/* pairwise over the accumulators, two shuffle levels of 5 */
		h += rp_vec<T>::log2_width + 2 + 10;
		/* the last block: partial sums in order, then two shuffle levels */
		h += rp_ceil_div(grid, RP_THREADS) + 10;
	}
	*depth = h;
	return GSD_OK;
}

/* ---- the C API ---- */

extern "C" int
gsd_reduce_progression_count(void)
{
	return RP_VERSIONS;
}

extern "C" const char *
gsd_reduce_progression_name(int version)
{
	if (version < 1 || version > RP_VERSIONS)
		return NULL;
	return rp_names[version - 1];
}

extern "C" size_t
gsd_reduce_progression_scratch_bytes(int is_double, size_t n)
{
	size_t		esize = is_double ? sizeof(double) : sizeof(float);
	size_t		first = rp_ceil_div(n, RP_THREADS);	/* most partial sums, version 1-3 */
	size_t		second = rp_ceil_div(first, RP_THREADS);
	size_t		elems = first + second;

	if (elems < RP_MAX_GRID)
		elems = RP_MAX_GRID;
	return RP_HEADER + elems * esize;
}

extern "C" gsd_status
gsd_reduce_progression(int version, int is_double, const void *d_in, size_t n,
					   void *d_out, void *d_scratch)
{
	size_t		esize = is_double ? sizeof(double) : sizeof(float);
	gsd_status	st;

	if ((st = gsd_require_open()) != GSD_OK)
		return st;
	if (version < 1 || version > RP_VERSIONS)
		return gsd_fail(GSD_INVALID, "reduce progression version %d does not exist (1..%d)",
						version, RP_VERSIONS);
	if (d_out == NULL || d_scratch == NULL || (n > 0 && d_in == NULL))
		return gsd_fail(GSD_INVALID, "%s: NULL device pointer", rp_names[version - 1]);
	if ((uintptr_t) d_in % esize != 0 || (uintptr_t) d_out % esize != 0 ||
		(uintptr_t) d_scratch % 16 != 0)
		return gsd_fail(GSD_INVALID, "%s: misaligned device pointer", rp_names[version - 1]);
	if (is_double)
		return rp_run<double>(version, (const double *) d_in, n, (double *) d_out, d_scratch);
	return rp_run<float>(version, (const float *) d_in, n, (float *) d_out, d_scratch);
}

extern "C" double
gsd_reduce_progression_error_bound(int version, int is_double, size_t n)
{
	size_t		h;
	double		u = is_double ? 0x1p-53 : 0x1p-24;
	double		hu;

	if (version < 1 || version > RP_VERSIONS || gsd_require_open() != GSD_OK)
		return -1.0;
	if ((is_double ? rp_depth<double>(version, n, &h) : rp_depth<float>(version, n, &h)) != GSD_OK)
		return -1.0;
	hu = (double) h * u;
	return hu < 0.5 ? hu / (1.0 - hu) : 1.0;
}
