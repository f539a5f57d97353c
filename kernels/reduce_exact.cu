/*-------------------------------------------------------------------------
 *
 * reduce_exact.cu
 *	  The exact sum on the device: gsd_sum_exact_f64 and gsd_sum_exact_f32.
 *
 * One launch per call.  A persistent grid (as many blocks as fit on the
 * device at once) strides over tiles of GSX_BLOCK x GSX_UNROLL 16-byte
 * vectors; each lane loads its GSX_UNROLL vectors before using any.  The
 * elements before the first 16-byte boundary and after the last whole tile
 * are taken by the last block, one element per thread at a time.
 *
 * Each warp extracts its elements into level accumulators (see
 * reduce_exact.cuh) and flushes them, exactly, into a per-block
 * fixed-point accumulator in shared memory; each block then adds its
 * accumulator to *d_acc with global atomics, and the last block to finish
 * normalizes *d_acc and rounds it to *d_result.  Per element that is, on
 * the fast path (reduce_exact.cuh), five FP64 additions for doubles and one
 * conversion and one addition for floats, plus an integer maximum and
 * minimum; so the kernel runs at memory speed.  Registers decide the
 * bytes in flight: at 56 or fewer per thread (sm_90: 54 for doubles, 56
 * for floats) 9 blocks of 128 threads, 36 warps, stay resident per
 * multiprocessor, each warp with a 2 KiB tile of loads and (prefetch) the
 * lines of its next tile in flight.
 *
 * The finished-block counter is a file-static device variable, reset by
 * the last block of each launch: calls must not overlap, which holds
 * because all device work of a process goes to its one stream.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>

#include "device_internal.cuh"
#include "reduce_exact.cuh"

/* tuning knobs (bench/tune-reduce.sh): -D overrides the defaults */
#ifndef GSX_BLOCK
#define GSX_BLOCK	128			/* threads per block */
#endif
#ifndef GSX_UNROLL
#define GSX_UNROLL	4			/* 16-byte vectors per thread and tile */
#endif

/*
 * Tiles ahead (in this block's stride) whose lines are prefetched into L2
 * while the current tile is loaded.  Off by default: measured on an H200
 * (bench/tune-reduce.sh, 2026-11-21, 2^28 elements) the prefetch cost
 * time, 537.8 against 496.1 us for doubles and 274.2 against 245.4 us for
 * floats, where CUB takes 478 and 243 us.  A tuning knob for the benchmark.
 */
#ifndef GSX_PREFETCH_TILES
#define GSX_PREFETCH_TILES	0
#endif

/*
 * GSX_MIN_BLOCKS_PER_SM, if defined, is the minimum of resident blocks per
 * multiprocessor asked of the compiler.  Left undefined the registers are
 * the compiler's choice, without spills (sm_90: 54 for doubles, 56 for
 * floats, i.e. 9 blocks of 128 threads); a larger GSX_UNROLL or GSX_BLOCK
 * needs more, which this can cap.  A tuning knob for the benchmark.
 */
#ifdef GSX_MIN_BLOCKS_PER_SM
#define GSX_LAUNCH_BOUNDS __launch_bounds__(GSX_BLOCK, GSX_MIN_BLOCKS_PER_SM)
#else
#define GSX_LAUNCH_BOUNDS __launch_bounds__(GSX_BLOCK)
#endif

/*
 * A block adds at most one digit (< 2^32) per element to a limb of its
 * shared accumulator, plus a few per flush: keeping a block's share of the
 * input below 2^29 elements keeps every limb far from overflow.
 */
#define GSX_MAX_PER_BLOCK	(UINT64_C(1) << 29)

/* whole warps; one thread per limb when a block publishes its accumulator */
static_assert(GSX_BLOCK % 32 == 0 && GSX_BLOCK >= GS_ACC_LIMBS, "GSX_BLOCK");

/*
 * gsx_sum_kernel -- add the exact sum of in[0..n) into *acc; the last block
 * normalizes *acc and writes its rounding to *result if not NULL.
 * in + head is 16-byte aligned; ntiles whole tiles follow it.  *done counts
 * the finished blocks (the calling thread's counter: launches of several
 * threads run at once).
 */
template <typename T>
__global__ void GSX_LAUNCH_BOUNDS
gsx_sum_kernel(const T *__restrict__ in, size_t n, size_t head, unsigned int ntiles,
			   gs_exact_acc *acc, double *result, unsigned int *done)
{
	typedef gsx_type<T> TT;
	typedef typename TT::vec V;
	const size_t tile_vecs = (size_t) GSX_BLOCK * GSX_UNROLL;
	__shared__ gsx_block_acc bacc;
	gsx_warp_summer<T> sum;

	gsx_block_acc_zero(&bacc);
	__syncthreads();
	sum.init(&bacc);

	{
		const V    *vin = reinterpret_cast<const V *>(in + head);

		for (unsigned int tile = blockIdx.x; tile < ntiles; tile += gridDim.x)
		{
			const V    *p = vin + (size_t) tile * tile_vecs + threadIdx.x;
			V			v[GSX_UNROLL];
			T			x[GSX_UNROLL * TT::VEC];

#if GSX_PREFETCH_TILES > 0
			if ((size_t) tile + (size_t) GSX_PREFETCH_TILES * gridDim.x < ntiles)
			{
				const V    *q = p + (size_t) GSX_PREFETCH_TILES * gridDim.x * tile_vecs;

#pragma unroll
				for (int u = 0; u < GSX_UNROLL; u++)
					asm volatile("prefetch.global.L2 [%0];"::"l"(q + u * GSX_BLOCK));
			}
#endif
#pragma unroll
			for (int u = 0; u < GSX_UNROLL; u++)
				v[u] = __ldg(p + u * GSX_BLOCK);
#pragma unroll
			for (int u = 0; u < GSX_UNROLL; u++)
			{
				if constexpr (TT::VEC == 2)
				{
					x[2 * u] = v[u].x;
					x[2 * u + 1] = v[u].y;
				}
				else
				{
					x[4 * u] = v[u].x;
					x[4 * u + 1] = v[u].y;
					x[4 * u + 2] = v[u].z;
					x[4 * u + 3] = v[u].w;
				}
			}
			sum.template batch<GSX_UNROLL * TT::VEC, true>(x, true);
		}
	}

	if (blockIdx.x == gridDim.x - 1)
	{
		/* the head before the vectors and the tail after the whole tiles */
		const size_t body_end = head + (size_t) ntiles * tile_vecs * TT::VEC;
		const size_t nleft = head + (n - body_end);

		for (size_t base = 0; base < nleft; base += GSX_BLOCK)
		{
			size_t		i = base + threadIdx.x;
			bool		valid = i < nleft;
			T			x[1];

			x[0] = (T) 0;
			if (valid)
				x[0] = in[i < head ? i : i - head + body_end];
			sum.template batch<1, false>(x, valid);
		}
	}

	if (sum.count > 0)
		sum.flush();
	gsx_block_finish(&bacc, sum.negz_min == 0, sum.nonneg_or != 0, acc, result, done);
}

/*
 * gsx_sum_launch -- validate, size the grid and launch for element type T.
 * *max_blocks caches the resident blocks per multiprocessor of the kernel.
 */
template <typename T>
static gsd_status
gsx_sum_launch(const T *d_in, size_t n, gs_exact_acc *d_acc, double *d_result,
			   int *blocks_per_sm, const char *what)
{
	typedef gsx_type<T> TT;
	const size_t tile_elems = (size_t) GSX_BLOCK * GSX_UNROLL * TT::VEC;
	gsd_status	st;
	size_t		head,
				ntiles,
				grid,
				max_grid;

	st = gsd_require_open();
	if (st != GSD_OK)
		return st;
	if (d_acc == NULL || ((uintptr_t) d_acc % 8) != 0)
		return gsd_fail(GSD_INVALID, "%s: accumulator pointer is NULL or misaligned", what);
	if (d_result != NULL && ((uintptr_t) d_result % 8) != 0)
		return gsd_fail(GSD_INVALID, "%s: result pointer is misaligned", what);
	if (n > 0 && (d_in == NULL || ((uintptr_t) d_in % sizeof(T)) != 0))
		return gsd_fail(GSD_INVALID, "%s: input pointer is NULL or not aligned to its element size", what);

	if (*blocks_per_sm <= 0)
	{
		int			nb = 0;
		cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, gsx_sum_kernel<T>,
																		GSX_BLOCK, 0);

		if (err != cudaSuccess)
			return gsd_cuda_status(err, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
		*blocks_per_sm = nb > 0 ? nb : 1;
	}

	head = n > 0 ? ((16 - ((uintptr_t) d_in & 15)) & 15) / sizeof(T) : 0;
	if (head > n)
		head = n;
	ntiles = (n - head) / tile_elems;
	if (ntiles > ((size_t) 1 << 31))
		return gsd_fail(GSD_INVALID, "%s: %zu elements are more than one call can take", what, n);

	max_grid = (size_t) gsd_sm_count() * (size_t) *blocks_per_sm;
	if (max_grid < 1)
		max_grid = 1;
	grid = ntiles < max_grid ? ntiles : max_grid;
	if (grid < (n + GSX_MAX_PER_BLOCK - 1) / GSX_MAX_PER_BLOCK)
		grid = (n + GSX_MAX_PER_BLOCK - 1) / GSX_MAX_PER_BLOCK;
	if (grid < 1)
		grid = 1;

	gsx_sum_kernel<T><<<(unsigned int) grid, GSX_BLOCK, 0, gsd_stream()>>>(d_in, n, head,
																			 (unsigned int) ntiles,
																		 d_acc, d_result,
																		 gsd_block_counter());
	GSD_CHECK_LAUNCH(what);
	return GSD_OK;
}

gsd_status
gsd_sum_exact_f64(const double *d_in, size_t n, gs_exact_acc *d_acc, double *d_result)
{
	static int	blocks_per_sm = 0;

	return gsx_sum_launch<double>(d_in, n, d_acc, d_result, &blocks_per_sm,
								  "exact sum of doubles");
}

gsd_status
gsd_sum_exact_f32(const float *d_in, size_t n, gs_exact_acc *d_acc, double *d_result)
{
	static int	blocks_per_sm = 0;

	return gsx_sum_launch<float>(d_in, n, d_acc, d_result, &blocks_per_sm,
								 "exact sum of floats");
}
