/*-------------------------------------------------------------------------
 *
 * spmv.cu
 *	  Sparse matrix x vector (CSR) on the device: the production kernels,
 *	  deterministic and bit-identical to src/cpu/cpu_spmv.c, and one PageRank
 *	  power iteration built on them.  The course's
 *	  gather-multiply-segmented-scan formulation, a reference for the unit
 *	  tests and the kernel benchmark, is kernels/course/spmv_reference.cu.
 *
 * Production (see common/gpuscan_spmv.h for the order every row follows):
 *	  spmv_rows				one launch over all rows.  Its first blocks take
 *							the long rows (longer than long_row), a warp
 *							per segment from the plan's work list: a
 *							one-segment row is stored at once, else the
 *							segment sum goes to scratch.  The other blocks
 *							take the short rows, a group of G lanes per row
 *							(G from the mean row length), each lane holding
 *							32 / G of the order's 32 virtual lanes, so it
 *							reproduces the 32-lane order exactly: the
 *							butterfly steps o >= G between a lane's
 *							registers, o < G by shuffles.  Where the rows
 *							are even enough (the plan's stage_rows), each
 *							short-row block takes that many consecutive
 *							rows and first computes all their products into
 *							shared memory with coalesced loads, eight in
 *							flight per thread, so that the groups then add
 *							them without waiting on global memory
 *							(CSR-Stream, Greathouse and Daga, SC14); a
 *							block whose rows hold more products than fit
 *							reads them directly;
 *	  spmv_segment_fixup	adds each multi-segment row's segment sums in
 *							order.
 * (spmv_short_rows is spmv_rows for a matrix without long rows.)
 * So a row of ten million non-zeros is spread over 2442 warps, and a
 * matrix of short rows wastes few lanes.  x is read through the read-only
 * path (__ldg), col_idx and vals with streaming loads (__ldcs: read once).
 * Per non-zero the kernels move 4 bytes of column, 4 or 8 of value and
 * gather one x; per row 8 bytes of row_ptr and one y.
 *
 * The stores go through an epilogue functor, so that PageRank's update
 * (teleport, damping, residual) happens as the row sums are stored,
 * without another pass over the vectors.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>

#include <cuda/atomic>
#include <cub/device/device_scan.cuh>

#include "device_internal.cuh"
#include "gpuscan_spmv.h"

#define SPMV_BLOCK			256		/* threads per block of every kernel here */
#define SPMV_FULL_MASK		0xffffffffu
#define SPMV_ROW_ITERS		8		/* long_row = SPMV_ROW_ITERS x G: loop trips per lane */

/*
 * SPMV_GROUP_DIVISOR: G is the largest power of two not above the mean row
 * length divided by this (1 <= G <= 32), so that a lane takes about this
 * many products of a typical row.  A tuning knob for the benchmark.
 */
#ifndef SPMV_GROUP_DIVISOR
#define SPMV_GROUP_DIVISOR	2
#endif

/*
 * SPMV_MIN_BLOCKS: blocks per SM that the grouped kernel of G >= 4 must
 * fit, so at most 32 registers a thread: the gathers of x need every warp
 * that can be resident (on the H100, 8 blocks made real SpMV on banded
 * rows 1.16x faster than the compiler's own choice of 34 registers).
 * Smaller G keep more products per lane and get one block.
 */
#ifndef SPMV_MIN_BLOCKS
#define SPMV_MIN_BLOCKS		8
#endif

/*
 * The staged short-row blocks: SPMV_STAGE_CAP products (doubles, 16 kB of
 * shared memory; 3072 and 4096 measured slower on an H200, in
 * bench/tune-spmv.sh) and at most SPMV_STAGE_MAX_ROWS rows a block (the
 * plan chooses how many: spmv_plan_staging).  Short rows need many rows to
 * fill a block: on an H200, rows of 2 took 824 us at 256 rows a block and
 * 584 us at 1024.
 */
#ifndef SPMV_STAGE_CAP
#define SPMV_STAGE_CAP		2048
#endif
#define SPMV_STAGE_MAX_ROWS	1024

/*
 * SPMV_STAGE_MIN_BLOCKS: blocks per SM that the staged kernels of G >= 4
 * must fit (as SPMV_MIN_BLOCKS for the direct ones).
 */
#ifndef SPMV_STAGE_MIN_BLOCKS
#define SPMV_STAGE_MIN_BLOCKS	SPMV_MIN_BLOCKS
#endif

static_assert(SPMV_STAGE_CAP % SPMV_BLOCK == 0, "whole loads per thread");
static_assert(SPMV_ROW_ITERS * GS_SPMV_LANES <= GS_SPMV_SEGMENT,
			  "a row of the grouped kernel must be a single segment");

/* ---- products: how a non-zero becomes a double ---- */

/* double values and x: the rounded product */
struct spmv_prod_f64
{
	const double *vals;
	const double *x;

	__device__ __forceinline__ double
	operator() (int32_t k, int32_t col) const
	{
		return __dmul_rn(__ldcs(vals + k), __ldg(x + col));
	}
};

/* real values and x: widened to double, where the product is exact */
struct spmv_prod_f32
{
	const float *vals;
	const float *x;

	__device__ __forceinline__ double
	operator() (int32_t k, int32_t col) const
	{
		return __dmul_rn((double) __ldcs(vals + k), (double) __ldg(x + col));
	}
};

/* every stored value 1: x itself (PageRank's in-link pattern) */
struct spmv_prod_pattern
{
	const double *x;

	__device__ __forceinline__ double
	operator() (int32_t k, int32_t col) const
	{
		return __ldg(x + col);
	}
};

/* ---- epilogues: what happens to a row's sum ---- */

struct spmv_store_f64
{
	double	   *y;

	__device__ __forceinline__ void
	operator() (int32_t row, double sum) const
	{
		y[row] = sum;
	}
};

/* rounded to real once, as the CPU's (float) cast does */
struct spmv_store_f32
{
	float	   *y;

	__device__ __forceinline__ void
	operator() (int32_t row, double sum) const
	{
		y[row] = __double2float_rn(sum);
	}
};

/* PageRank: the new rank and its change (common/gpuscan_spmv.h) */
struct spmv_store_pagerank
{
	double	   *next;
	double	   *change;
	const double *rank;
	const double *dangling;		/* device: the rounded dangling mass */
	double		damping;
	double		teleport;
	double		n;

	__device__ __forceinline__ void
	operator() (int32_t row, double sum) const
	{
		double		spread = __ddiv_rn(*dangling, n);
		double		r = gs_pagerank_rank(sum, spread, damping, teleport);

		next[row] = r;
		change[row] = fabs(__dsub_rn(r, rank[row]));
	}
};

/* ---- production kernels ---- */

/*
 * spmv_fold_slots -- the butterfly steps between a lane's slots: slot s
 * takes slot s + T for T = T0, T0 / 2, .. 1.  A template, so that every
 * index is a constant and the slots stay in registers.
 */
template <int T>
__device__ __forceinline__ void
spmv_fold_slots(double *p)
{
	if constexpr (T > 0)
	{
#pragma unroll
		for (int s = 0; s < T; s++)
			p[s] = __dadd_rn(p[s], p[s + T]);
		spmv_fold_slots<T / 2>(p);
	}
}

/* ---- where a group finds a row's products ---- */

/* spmv_src_direct -- the columns and values in global memory */
template <class PROD>
struct spmv_src_direct
{
	const int32_t *col_idx;
	PROD		prod;

	__device__ __forceinline__ int32_t
	fetch(int32_t k) const
	{
		return __ldcs(col_idx + k);
	}

	__device__ __forceinline__ double
	product(int32_t k, int32_t col) const
	{
		return prod(k, col);
	}
};

/* spmv_src_staged -- the block's products in shared memory, from non-zero `first` on */
struct spmv_src_staged
{
	const double *prods;
	int32_t		first;

	__device__ __forceinline__ int32_t
	fetch(int32_t) const
	{
		return 0;
	}

	__device__ __forceinline__ double
	product(int32_t k, int32_t) const
	{
		return prods[k - first];
	}
};

/*
 * spmv_group_sum -- the sum of the products [b, e) of one row of one
 * segment, in the canonical order, by a group of G lanes.  Lane l of a
 * group holds the virtual lanes v = s * G + l (slot s < 32 / G) and takes
 * the products k = k0 + v for each 32-wide stretch k0 of the row, in
 * order; every lane of the group returns the sum.  Every lane of the warp
 * must call it (a group with nothing to add passes b == e), so the full
 * shuffle mask is right.
 */
template <int G, class SRC>
__device__ __forceinline__ double
spmv_group_sum(int32_t b, int32_t e, const SRC &src)
{
	const int	NS = GS_SPMV_LANES / G;
	const int	lane = (int) (threadIdx.x & (G - 1));
	double		p[NS];

#pragma unroll
	for (int s = 0; s < NS; s++)
		p[s] = 0.0;

	for (int32_t k0 = b; k0 < e; k0 += GS_SPMV_LANES)
	{
		int32_t		col[NS];

#pragma unroll
		for (int s = 0; s < NS; s++)
		{
			int32_t		k = k0 + s * G + lane;

			col[s] = k < e ? src.fetch(k) : 0;
		}
#pragma unroll
		for (int s = 0; s < NS; s++)
		{
			int32_t		k = k0 + s * G + lane;

			if (k < e)
				p[s] = __dadd_rn(p[s], src.product(k, col[s]));
		}
	}

	/* butterfly steps o = 16 .. G: between this lane's slots */
	spmv_fold_slots<NS / 2>(p);
	/* steps o = G/2 .. 1: between the lanes of the group */
#pragma unroll
	for (int o = G / 2; o > 0; o >>= 1)
		p[0] = __dadd_rn(p[0], __shfl_xor_sync(SPMV_FULL_MASK, p[0], o));
	return p[0];
}

/*
 * spmv_rows_grouped -- one row per group of G lanes, for every row of at
 * most long_row non-zeros (one segment), read from global memory; gt is
 * the thread's index among the grouped blocks' threads.
 */
template <int G, class PROD, class STORE>
__device__ __forceinline__ void
spmv_rows_grouped(const int32_t *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
				  int32_t nrows, int32_t long_row, int64_t gt, PROD prod, STORE store)
{
	const int64_t row = gt / G;
	int32_t		b = 0,
				e = 0;
	bool		mine = false;
	double		sum;

	if (row < nrows)
	{
		b = __ldg(row_ptr + row);
		e = __ldg(row_ptr + row + 1);
		mine = e - b <= long_row;
		if (!mine)
			e = b;
	}
	sum = spmv_group_sum<G>(b, e, spmv_src_direct<PROD> {col_idx, prod});
	if (mine && (threadIdx.x & (G - 1)) == 0)
		store((int32_t) row, __dadd_rn(0.0, sum));
}

/*
 * spmv_block_rows -- the nr rows from r0 on whose bounds are in shared
 * memory (bounds[i] = row_ptr[r0 + i]), a group of G lanes per row, as
 * many passes as it takes; rows longer than long_row are left to the
 * segment blocks.  Every pass is taken by the whole block.
 */
template <int G, class SRC, class STORE>
__device__ __forceinline__ void
spmv_block_rows(const int32_t *bounds, int64_t r0, int32_t nr, int32_t long_row,
				const SRC &src, STORE store)
{
	for (int32_t base = 0; base < nr; base += SPMV_BLOCK / G)
	{
		const int32_t i = base + (int32_t) (threadIdx.x / G);
		int32_t		b = 0,
					e = 0;
		bool		mine = false;
		double		sum;

		if (i < nr)
		{
			b = bounds[i];
			e = bounds[i + 1];
			mine = e - b <= long_row;
			if (!mine)
				e = b;
		}
		sum = spmv_group_sum<G>(b, e, src);
		if (mine && (threadIdx.x & (G - 1)) == 0)
			store((int32_t) (r0 + i), __dadd_rn(0.0, sum));
	}
}

/*
 * spmv_stage_products -- prods[i] = the product of non-zero kb + i for i <
 * n <= SPMV_STAGE_CAP: every load of the block's range issued at once,
 * coalesced, before the first gather of x.
 */
template <class PROD>
__device__ __forceinline__ void
spmv_stage_products(const int32_t *__restrict__ col_idx, int32_t kb, int32_t n,
					double *prods, PROD prod)
{
	const int	IT = SPMV_STAGE_CAP / SPMV_BLOCK;
	int32_t		col[IT];

#pragma unroll
	for (int j = 0; j < IT; j++)
	{
		int32_t		i = (int32_t) threadIdx.x + j * SPMV_BLOCK;

		col[j] = i < n ? __ldcs(col_idx + kb + i) : 0;
	}
#pragma unroll
	for (int j = 0; j < IT; j++)
	{
		int32_t		i = (int32_t) threadIdx.x + j * SPMV_BLOCK;

		if (i < n)
			prods[i] = prod(kb + i, col[j]);
	}
}

/*
 * spmv_stage_smem_bytes -- a staged block's shared memory: the products,
 * then stage_rows + 1 row bounds.  Sized at launch, so that blocks of few
 * rows (longer ones) leave the rest of the SM's memory to the L1 cache: a
 * fixed room for 1024 rows made the uniform double matrix of rows of 16,
 * staged 128 rows a block, 17% slower on an H200.
 */
static size_t
spmv_stage_smem_bytes(int32_t stage_rows)
{
	return sizeof(double) * SPMV_STAGE_CAP + sizeof(int32_t) * ((size_t) stage_rows + 1);
}

/*
 * spmv_rows_staged -- staged short-row block number `block`: rows
 * [block * stage_rows, + stage_rows).  Their bounds go to shared memory;
 * if their products fit, they are computed there first and the groups add
 * from shared memory, else the groups read them directly.  The same order
 * and the same bits either way.
 */
template <int G, class PROD, class STORE>
__device__ __forceinline__ void
spmv_rows_staged(const int32_t *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
				 int32_t nrows, int32_t long_row, int32_t stage_rows, int64_t block,
				 PROD prod, STORE store)
{
	extern __shared__ double spmv_stage_smem[];	/* spmv_stage_smem_bytes */
	double	   *prods = spmv_stage_smem;
	int32_t    *bounds = reinterpret_cast<int32_t *>(spmv_stage_smem + SPMV_STAGE_CAP);
	const int64_t r0 = block * stage_rows;
	const int32_t nr = (int32_t) min((int64_t) stage_rows, (int64_t) nrows - r0);
	int32_t		kb,
				n;

	for (int32_t i = (int32_t) threadIdx.x; i <= nr; i += SPMV_BLOCK)
		bounds[i] = __ldg(row_ptr + r0 + i);
	__syncthreads();
	kb = bounds[0];
	n = bounds[nr] - kb;
	if (n <= SPMV_STAGE_CAP)
	{
		spmv_stage_products(col_idx, kb, n, prods, prod);
		__syncthreads();
		spmv_block_rows<G>(bounds, r0, nr, long_row, spmv_src_staged {prods, kb}, store);
	}
	else
		spmv_block_rows<G>(bounds, r0, nr, long_row, spmv_src_direct<PROD> {col_idx, prod},
						   store);
}

/*
 * spmv_row_segments -- one warp per segment of a long row (the plan's
 * work list); warp is the warp's index among the segment blocks' warps.
 * Lane l is virtual lane l; four products in flight per lane, added in
 * order.  A row of one segment is stored here; otherwise the segment's sum
 * goes to segment_sums for spmv_segment_fixup.  The loops are kept rolled
 * ("unroll 1"): the compiler's unrolling made the real-valued form spill at
 * the grouped rows' 32 registers (and ran 7% slower on R-MAT).
 */
template <class PROD, class STORE>
__device__ __forceinline__ void
spmv_row_segments(const int32_t *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
				  const int2 *__restrict__ segments, int32_t nsegments,
				  double *__restrict__ segment_sums, int64_t warp, PROD prod, STORE store)
{
	const int	lane = (int) (threadIdx.x & 31);
	int2		sg;
	int32_t		b,
				e,
				kb,
				ke,
				k;
	double		p = 0.0;

	if (warp >= nsegments)
		return;					/* whole warps: nothing below needs them */
	sg = __ldg(segments + warp);
	b = __ldg(row_ptr + sg.x);
	e = __ldg(row_ptr + sg.x + 1);
	kb = b + sg.y * GS_SPMV_SEGMENT;
	ke = e - kb < GS_SPMV_SEGMENT ? e : kb + GS_SPMV_SEGMENT;

	k = kb + lane;
#pragma unroll 1
	for (; k + 3 * 32 < ke; k += 4 * 32)
	{
		int32_t		c0 = __ldcs(col_idx + k),
					c1 = __ldcs(col_idx + k + 32),
					c2 = __ldcs(col_idx + k + 64),
					c3 = __ldcs(col_idx + k + 96);
		double		v0 = prod(k, c0),
					v1 = prod(k + 32, c1),
					v2 = prod(k + 64, c2),
					v3 = prod(k + 96, c3);

		p = __dadd_rn(p, v0);
		p = __dadd_rn(p, v1);
		p = __dadd_rn(p, v2);
		p = __dadd_rn(p, v3);
	}
#pragma unroll 1
	for (; k < ke; k += 32)
		p = __dadd_rn(p, prod(k, __ldcs(col_idx + k)));

#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		p = __dadd_rn(p, __shfl_xor_sync(SPMV_FULL_MASK, p, o));

	if (lane == 0)
	{
		if (gs_spmv_segments(e - b) == 1)
			store(sg.x, __dadd_rn(0.0, p));
		else
			segment_sums[warp] = p;
	}
}

/*
 * spmv_short_part -- a short-row block: staged (block number `block` of
 * the short-row blocks) or direct (thread `block * SPMV_BLOCK + threadIdx.x`
 * of them).
 */
template <int G, bool STAGED, class PROD, class STORE>
__device__ __forceinline__ void
spmv_short_part(const int32_t *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
				int32_t nrows, int32_t long_row, int32_t stage_rows, int64_t block,
				PROD prod, STORE store)
{
	if constexpr (STAGED)
		spmv_rows_staged<G>(row_ptr, col_idx, nrows, long_row, stage_rows, block, prod, store);
	else
		spmv_rows_grouped<G>(row_ptr, col_idx, nrows, long_row,
							 block * SPMV_BLOCK + threadIdx.x, prod, store);
}

/*
 * spmv_rows -- the production launch: the first segment_blocks blocks take
 * the long rows' segments (a warp each), the others the short rows.  One
 * launch, with the long rows' blocks scheduled first, so that the short
 * rows fill the SMs around them instead of each kind draining the device
 * on its own.  The branch is uniform in a block, so the warp shuffles and
 * barriers below it see whole blocks.
 */
#define SPMV_ROWS_MIN_BLOCKS(G, STAGED) \
	((G) < 4 ? 1 : (STAGED) ? SPMV_STAGE_MIN_BLOCKS : SPMV_MIN_BLOCKS)

template <int G, bool STAGED, class PROD, class STORE>
__global__ void __launch_bounds__(SPMV_BLOCK, SPMV_ROWS_MIN_BLOCKS(G, STAGED))
spmv_rows(const int32_t *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
		  int32_t nrows, int32_t long_row, int32_t stage_rows, const int2 *__restrict__ segments,
		  int32_t nsegments, double *__restrict__ segment_sums, unsigned int segment_blocks,
		  PROD prod, STORE store)
{
	if (blockIdx.x < segment_blocks)
		spmv_row_segments(row_ptr, col_idx, segments, nsegments, segment_sums,
						  ((int64_t) blockIdx.x * SPMV_BLOCK + threadIdx.x) / 32, prod, store);
	else
		spmv_short_part<G, STAGED>(row_ptr, col_idx, nrows, long_row, stage_rows,
								   (int64_t) (blockIdx.x - segment_blocks), prod, store);
}

/* spmv_short_rows -- spmv_rows for a matrix without long rows: the short-row blocks alone */
template <int G, bool STAGED, class PROD, class STORE>
__global__ void __launch_bounds__(SPMV_BLOCK, SPMV_ROWS_MIN_BLOCKS(G, STAGED))
spmv_short_rows(const int32_t *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
				int32_t nrows, int32_t long_row, int32_t stage_rows, PROD prod, STORE store)
{
	spmv_short_part<G, STAGED>(row_ptr, col_idx, nrows, long_row, stage_rows,
							   (int64_t) blockIdx.x, prod, store);
}

/*
 * spmv_segment_fixup -- one thread per segment; the thread of a row's
 * first segment adds the row's segment sums in order, from +0.
 */
template <class STORE>
__global__ void __launch_bounds__(SPMV_BLOCK)
spmv_segment_fixup(const int32_t *__restrict__ row_ptr, const int2 *__restrict__ segments,
				   int32_t nsegments, const double *__restrict__ segment_sums, STORE store)
{
	const int64_t j = (int64_t) blockIdx.x * SPMV_BLOCK + threadIdx.x;
	int2		sg;
	int64_t		nseg;
	double		r = 0.0;

	if (j >= nsegments)
		return;
	sg = segments[j];
	if (sg.y != 0)
		return;
	nseg = gs_spmv_segments((int64_t) row_ptr[sg.x + 1] - row_ptr[sg.x]);
	if (nseg < 2)
		return;
	for (int64_t t = 0; t < nseg; t++)
		r = __dadd_rn(r, segment_sums[j + t]);
	store(sg.x, r);
}

/* spmv_blocks -- blocks of SPMV_BLOCK threads for `threads` threads */
static unsigned int
spmv_blocks(int64_t threads)
{
	int64_t		b = (threads + SPMV_BLOCK - 1) / SPMV_BLOCK;

	return (unsigned int) (b > 0 ? b : 1);
}

/*
 * spmv_launch_rows -- the rows' launch for group size G, staged or not:
 * spmv_rows, or spmv_short_rows when no row is long (1% faster on banded
 * real matrices on the H100).
 */
template <int G, bool STAGED, class PROD, class STORE>
static void
spmv_launch_rows(const gsd_spmv_plan *plan, const int32_t *d_row_ptr, const int32_t *d_col_idx,
				 unsigned int segment_blocks, PROD prod, STORE store, cudaStream_t s)
{
	const int2 *segs = reinterpret_cast<const int2 *>(plan->d_segments);
	int64_t		short_blocks = STAGED
		? ((int64_t) plan->nrows + plan->stage_rows - 1) / plan->stage_rows
		: spmv_blocks((int64_t) plan->nrows * G);
	unsigned int blocks = segment_blocks + (unsigned int) short_blocks;
	size_t		smem = STAGED ? spmv_stage_smem_bytes(plan->stage_rows) : 0;

	if (segment_blocks == 0)
		spmv_short_rows<G, STAGED, PROD, STORE><<<blocks, SPMV_BLOCK, smem, s>>>(
			d_row_ptr, d_col_idx, plan->nrows, plan->long_row, plan->stage_rows, prod, store);
	else
		spmv_rows<G, STAGED, PROD, STORE><<<blocks, SPMV_BLOCK, smem, s>>>(
			d_row_ptr, d_col_idx, plan->nrows, plan->long_row, plan->stage_rows, segs,
			plan->nsegments, plan->d_segment_sums, segment_blocks, prod, store);
}

/*
 * spmv_run -- the production SpMV with a product and an epilogue: the rows
 * in one launch for the plan's G and staging, then the fixup of rows of
 * several segments.
 */
template <class PROD, class STORE>
static gsd_status
spmv_run(const gsd_spmv_plan *plan, const int32_t *d_row_ptr, const int32_t *d_col_idx,
		 PROD prod, STORE store, const char *what)
{
	const int2 *segs = reinterpret_cast<const int2 *>(plan ? plan->d_segments : NULL);
	unsigned int segment_blocks;
	cudaStream_t s = gsd_stream();
	gsd_status	st = gsd_require_open();

	if (st != GSD_OK)
		return st;
	if (plan == NULL || plan->nrows < 0 || (plan->nsegments > 0 && plan->d_segments == NULL) ||
		plan->stage_rows < 0 || plan->stage_rows > SPMV_STAGE_MAX_ROWS)
		return gsd_fail(GSD_INVALID, "%s: no plan, or a plan that was not built", what);
	if (plan->nrows == 0)
		return GSD_OK;

	segment_blocks = plan->nsegments > 0 ? spmv_blocks((int64_t) plan->nsegments * 32) : 0;

#define SPMV_ROWS_CASE(G) \
	case G: \
		if (plan->stage_rows > 0) \
			spmv_launch_rows<G, true>(plan, d_row_ptr, d_col_idx, segment_blocks, prod, store, s); \
		else \
			spmv_launch_rows<G, false>(plan, d_row_ptr, d_col_idx, segment_blocks, prod, store, s); \
		break
	switch (plan->group_lanes)
	{
			SPMV_ROWS_CASE(1);
			SPMV_ROWS_CASE(2);
			SPMV_ROWS_CASE(4);
			SPMV_ROWS_CASE(8);
			SPMV_ROWS_CASE(16);
		default:
			SPMV_ROWS_CASE(32);
	}
#undef SPMV_ROWS_CASE
	GSD_CHECK_LAUNCH(what);

	if (plan->nsegments > 0)
	{
		spmv_segment_fixup<STORE><<<spmv_blocks(plan->nsegments), SPMV_BLOCK, 0, s>>>(
			d_row_ptr, segs, plan->nsegments, plan->d_segment_sums, store);
		GSD_CHECK_LAUNCH(what);
	}
	return GSD_OK;
}

gsd_status
gsd_spmv_f64(const gsd_spmv_plan *plan, const int32_t *d_row_ptr, const int32_t *d_col_idx,
			 const double *d_vals, const double *d_x, double *d_y)
{
	spmv_prod_f64 prod = {d_vals, d_x};
	spmv_store_f64 store = {d_y};

	return spmv_run(plan, d_row_ptr, d_col_idx, prod, store, "sparse matrix x vector (double)");
}

gsd_status
gsd_spmv_f32(const gsd_spmv_plan *plan, const int32_t *d_row_ptr, const int32_t *d_col_idx,
			 const float *d_vals, const float *d_x, float *d_y)
{
	spmv_prod_f32 prod = {d_vals, d_x};
	spmv_store_f32 store = {d_y};

	return spmv_run(plan, d_row_ptr, d_col_idx, prod, store, "sparse matrix x vector (real)");
}

/* ---- the plan ---- */

/*
 * spmv_count_segments -- per row, its segments if it is long, else 0;
 * counts[nrows] = 0 so that the exclusive scan's last entry is the total.
 */
__global__ void __launch_bounds__(SPMV_BLOCK)
spmv_count_segments(const int32_t *__restrict__ row_ptr, int32_t nrows, int32_t long_row,
					int32_t *__restrict__ counts)
{
	const int64_t i = (int64_t) blockIdx.x * SPMV_BLOCK + threadIdx.x;

	if (i < nrows)
	{
		int32_t		len = row_ptr[i + 1] - row_ptr[i];

		counts[i] = len > long_row ? (int32_t) gs_spmv_segments(len) : 0;
	}
	else if (i == nrows)
		counts[i] = 0;
}

/* spmv_fill_segments -- the work list: (row, s) for each segment s of a long row */
__global__ void __launch_bounds__(SPMV_BLOCK)
spmv_fill_segments(const int32_t *__restrict__ offsets, int32_t nrows, int2 *__restrict__ segments)
{
	const int64_t i = (int64_t) blockIdx.x * SPMV_BLOCK + threadIdx.x;

	if (i < nrows)
	{
		int32_t		first = offsets[i];
		int32_t		count = offsets[i + 1] - first;

		for (int32_t s = 0; s < count; s++)
			segments[first + s] = make_int2((int) i, (int) s);
	}
}

/*
 * The scratch of the analysis: counts, offsets (nrows + 1 each), CUB's
 * temporary storage.
 *
 * spmv_cub_bytes -- CUB's temporary storage for the exclusive scan of nrows + 1 counts */
static size_t
spmv_cub_bytes(int32_t nrows)
{
	size_t		bytes = 0;

	if (cub::DeviceScan::ExclusiveSum(NULL, bytes, (const int32_t *) NULL, (int32_t *) NULL,
									  nrows + 1) != cudaSuccess)
		bytes = (size_t) 1 << 20;	/* only a size query: keep a safe amount */
	return gsd_scratch_align(bytes);
}

size_t
gsd_spmv_plan_scratch_bytes(int32_t nrows)
{
	size_t		arr = gsd_scratch_align(sizeof(int32_t) * ((size_t) (nrows > 0 ? nrows : 0) + 1));

	return 2 * arr + spmv_cub_bytes(nrows > 0 ? nrows : 0);
}

/* the block sizes a plan tries for staging, as shares of the capacity at the mean row length */
#define SPMV_STAGE_TRIES	3
static const double spmv_stage_fill[SPMV_STAGE_TRIES] = {1.0, 0.9, 0.8};

typedef struct spmv_stage_tries
{
	int32_t		rows[SPMV_STAGE_TRIES];
} spmv_stage_tries;

/*
 * spmv_count_overflow -- for each try t, count the staged blocks of
 * try.rows[t] rows whose products would not fit in shared memory; thread j
 * looks at block j of every try.
 */
__global__ void __launch_bounds__(SPMV_BLOCK)
spmv_count_overflow(const int32_t *__restrict__ row_ptr, int32_t nrows, spmv_stage_tries try_,
					int32_t *__restrict__ counts)
{
	const int64_t j = (int64_t) blockIdx.x * SPMV_BLOCK + threadIdx.x;

#pragma unroll
	for (int t = 0; t < SPMV_STAGE_TRIES; t++)
	{
		const int64_t r0 = j * try_.rows[t];

		if (r0 < nrows &&
			row_ptr[min(r0 + try_.rows[t], (int64_t) nrows)] - row_ptr[r0] > SPMV_STAGE_CAP)
			atomicAdd(&counts[t], 1);
	}
}

/*
 * spmv_plan_staging -- whether to stage, and with what G and rows per
 * block.  Staging takes a smaller group than the direct path (about four
 * products a lane: the group adds from shared memory, where a lane's
 * registers are cheaper than shuffles), at least 4 lanes (smaller groups
 * hold too many registers).  Fuller blocks run faster (on an H200, banded
 * real rows of 16: 1024 products a block 272 us, 1840 211 us, 2048 199
 * us), so it takes the largest of the tries (all the capacity at the mean
 * row length, then 90%, 80%) where at most 1 block in 32 overflows; uneven
 * rows, such as a power law's, overflow at every try and keep the direct
 * path, which is faster for them.  One small download.  0 rows: no
 * staging.
 */
static gsd_status
spmv_plan_staging(const int32_t *d_row_ptr, int32_t nrows, double mean, int g_direct,
				  int32_t *d_counts, int *g, int32_t *rows)
{
	int			gs = g_direct / 2 < 4 ? 4 : g_direct / 2;
	spmv_stage_tries try_;
	int32_t		over[SPMV_STAGE_TRIES];
	gsd_status	st;

	*g = g_direct;
	*rows = 0;
	for (int t = 0; t < SPMV_STAGE_TRIES; t++)
	{
		double		r = spmv_stage_fill[t] * SPMV_STAGE_CAP / (mean > 1.0 ? mean : 1.0);

		try_.rows[t] = r < SPMV_STAGE_MAX_ROWS ? (int32_t) r : SPMV_STAGE_MAX_ROWS;
		if (try_.rows[t] < SPMV_BLOCK / gs)
			return GSD_OK;		/* not one pass of the groups: not worth it */
	}
	if (nrows == 0)
		return GSD_OK;
	if ((st = gsd_memset_zero(d_counts, sizeof(over))) != GSD_OK)
		return st;
	spmv_count_overflow<<<spmv_blocks((nrows + (int64_t) try_.rows[SPMV_STAGE_TRIES - 1] - 1) /
									  try_.rows[SPMV_STAGE_TRIES - 1]),
		SPMV_BLOCK, 0, gsd_stream()>>>(d_row_ptr, nrows, try_, d_counts);
	GSD_CHECK_LAUNCH("planning a sparse matrix x vector");
	if ((st = gsd_download(over, d_counts, sizeof(over))) != GSD_OK)
		return st;
	for (int t = 0; t < SPMV_STAGE_TRIES; t++)
	{
		int64_t		blocks = ((int64_t) nrows + try_.rows[t] - 1) / try_.rows[t];

		if ((int64_t) over[t] * 32 <= blocks)
		{
			*g = gs;
			*rows = try_.rows[t];
			break;
		}
	}
	return GSD_OK;
}

gsd_status
gsd_spmv_plan_analyze(gsd_spmv_plan *plan, const int32_t *d_row_ptr, int32_t nrows,
					  int32_t nnz, void *d_scratch)
{
	const char *what = "planning a sparse matrix x vector";
	size_t		arr = gsd_scratch_align(sizeof(int32_t) * ((size_t) (nrows > 0 ? nrows : 0) + 1));
	int32_t    *counts = (int32_t *) d_scratch;
	int32_t    *offsets = (int32_t *) ((char *) d_scratch + arr);
	void	   *cub_tmp = (char *) d_scratch + 2 * arr;
	size_t		cub_bytes;
	double		mean;
	int			g = 1;
	gsd_status	st = gsd_require_open();

	memset(plan, 0, sizeof(*plan));
	if (st != GSD_OK)
		return st;
	if (nrows < 0 || nnz < 0)
		return gsd_fail(GSD_INVALID, "%s: negative size", what);
	plan->nrows = nrows;
	plan->nnz = nnz;
	mean = nrows > 0 ? (double) nnz / nrows : 0.0;
	while (g < GS_SPMV_LANES && 2.0 * g <= mean / SPMV_GROUP_DIVISOR)
		g *= 2;
	st = spmv_plan_staging(d_row_ptr, nrows, mean, g, counts, &g, &plan->stage_rows);
	if (st != GSD_OK)
		return st;
	plan->group_lanes = g;
	plan->long_row = SPMV_ROW_ITERS * g;
	if (nrows == 0)
		return GSD_OK;

	cub_bytes = spmv_cub_bytes(nrows);
	spmv_count_segments<<<spmv_blocks((int64_t) nrows + 1), SPMV_BLOCK, 0, gsd_stream()>>>(
		d_row_ptr, nrows, plan->long_row, counts);
	GSD_CHECK_LAUNCH(what);
	st = gsd_cuda_status(cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, counts, offsets,
													   nrows + 1, gsd_stream()),
						 "cub::DeviceScan::ExclusiveSum");
	if (st != GSD_OK)
		return st;
	return gsd_download(&plan->nsegments, offsets + nrows, sizeof(int32_t));
}

size_t
gsd_spmv_plan_bytes(const gsd_spmv_plan *plan)
{
	return gsd_scratch_align(2 * sizeof(int32_t) * (size_t) plan->nsegments) +
		sizeof(double) * (size_t) plan->nsegments;
}

gsd_status
gsd_spmv_plan_build(gsd_spmv_plan *plan, const int32_t *d_row_ptr, const void *d_scratch,
					void *d_plan_memory)
{
	size_t		arr = gsd_scratch_align(sizeof(int32_t) * ((size_t) plan->nrows + 1));
	const int32_t *offsets = (const int32_t *) ((const char *) d_scratch + arr);
	gsd_status	st = gsd_require_open();

	(void) d_row_ptr;
	if (st != GSD_OK)
		return st;
	plan->d_segments = (int32_t *) d_plan_memory;
	plan->d_segment_sums = (double *) ((char *) d_plan_memory +
									   gsd_scratch_align(2 * sizeof(int32_t) * (size_t) plan->nsegments));
	if (plan->nsegments == 0)
		return GSD_OK;
	spmv_fill_segments<<<spmv_blocks(plan->nrows), SPMV_BLOCK, 0, gsd_stream()>>>(
		offsets, plan->nrows, reinterpret_cast<int2 *>(plan->d_segments));
	GSD_CHECK_LAUNCH("building a sparse matrix x vector plan");
	return GSD_OK;
}

/* ---- PageRank ---- */

/*
 * pagerank_prepare -- share[i] = rank[i] / outdeg[i] (0 if dangling) and
 * dangling[i] = rank[i] if node i is dangling, else 0.
 */
__global__ void __launch_bounds__(SPMV_BLOCK)
pagerank_prepare(const double *__restrict__ rank, const int32_t *__restrict__ outdeg, int32_t n,
				 double *__restrict__ share, double *__restrict__ dangling)
{
	const int64_t i = (int64_t) blockIdx.x * SPMV_BLOCK + threadIdx.x;

	if (i < n)
	{
		double		r = rank[i];
		int32_t		d = outdeg[i];

		share[i] = gs_pagerank_share(r, d);
		dangling[i] = d == 0 ? r : 0.0;
	}
}

/* the work area of an iteration */
typedef struct pagerank_work
{
	gs_exact_acc *acc;			/* exact sums, zeroed before each */
	double	   *scalars;		/* [0] dangling mass, [1] residual */
	double	   *share;
	double	   *vec;			/* the dangling ranks, then the changes */
} pagerank_work;

/* pagerank_layout -- the work area's parts */
static pagerank_work
pagerank_layout(void *d_work, int32_t n)
{
	pagerank_work w;
	char	   *p = (char *) d_work;

	w.acc = (gs_exact_acc *) p;
	p += gsd_scratch_align(sizeof(gs_exact_acc));
	w.scalars = (double *) p;
	p += GSD_SCRATCH_ALIGN;
	w.share = (double *) p;
	p += gsd_scratch_align(sizeof(double) * (size_t) n);
	w.vec = (double *) p;
	return w;
}

size_t
gsd_pagerank_work_bytes(int32_t n)
{
	return gsd_scratch_align(sizeof(gs_exact_acc)) + GSD_SCRATCH_ALIGN +
		2 * gsd_scratch_align(sizeof(double) * (size_t) (n > 0 ? n : 1));
}

gsd_status
gsd_pagerank_iteration(const gsd_spmv_plan *plan, const int32_t *d_in_ptr,
					   const int32_t *d_in_idx, const int32_t *d_outdeg, double damping,
					   const double *d_rank, double *d_next, void *d_work, double *residual)
{
	const int32_t n = plan->nrows;
	pagerank_work w = pagerank_layout(d_work, n);
	spmv_prod_pattern prod = {w.share};
	spmv_store_pagerank store;
	gsd_status	st = gsd_require_open();

	*residual = 0.0;
	if (st != GSD_OK)
		return st;
	if (n <= 0)
		return gsd_fail(GSD_INVALID, "PageRank iteration: empty graph");

	pagerank_prepare<<<spmv_blocks(n), SPMV_BLOCK, 0, gsd_stream()>>>(d_rank, d_outdeg, n,
																	 w.share, w.vec);
	GSD_CHECK_LAUNCH("PageRank iteration");
	if ((st = gsd_memset_zero(w.acc, sizeof(gs_exact_acc))) != GSD_OK ||
		(st = gsd_sum_exact_f64(w.vec, (size_t) n, w.acc, &w.scalars[0])) != GSD_OK)
		return st;

	store.next = d_next;
	store.change = w.vec;
	store.rank = d_rank;
	store.dangling = &w.scalars[0];
	store.damping = damping;
	store.teleport = (1.0 - damping) / (double) n;
	store.n = (double) n;
	st = spmv_run(plan, d_in_ptr, d_in_idx, prod, store, "PageRank iteration");
	if (st != GSD_OK)
		return st;

	if ((st = gsd_memset_zero(w.acc, sizeof(gs_exact_acc))) != GSD_OK ||
		(st = gsd_sum_exact_f64(w.vec, (size_t) n, w.acc, &w.scalars[1])) != GSD_OK)
		return st;
	return gsd_download(residual, &w.scalars[1], sizeof(double));
}
