/*-------------------------------------------------------------------------
 *
 * spmv_reference.cu
 *	  The course's SpMV formulation as a reference kernel: gather x by
 *	  column index and multiply, a segmented inclusive scan of the products
 *	  over the rows, and y[i] taken from the last element of row i.
 *
 *	  1. spmv_ref_heads		head flags: flags[row_ptr[i]] = 1 for every
 *							non-empty row (after a memset to 0)
 *	  2. spmv_ref_scan		one pass: each tile of SPMV_REF_TILE products
 *							(gathered and multiplied as they are loaded)
 *							is scanned in registers, a warp-shuffle scan and
 *							a scan of the warp totals, all with the
 *							segmented operator
 *								(f1, v1) . (f2, v2) = (f1 | f2, f2 ? v2 : v1 + v2),
 *							and tiles pass their carries by decoupled
 *							look-back, as scan_decoupled_lookback in
 *							scan_progression.cu does.  A tile with a head
 *							publishes its total as its inclusive prefix at
 *							once: nothing before the head matters to what
 *							follows it, so look-backs stop there.
 *	  3. spmv_ref_gather	y[i] = scan[row_ptr[i+1] - 1], 0 for an empty row
 *
 * Arithmetic in the input's precision (float products and sums for real),
 * and the look-back's order depends on timing: not deterministic in the
 * last bits, and not the canonical order.  For teaching and benchmarks.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>

#include <cuda/atomic>

#include "device_internal.cuh"
#include "gpuscan_course.h"

#define SPMV_REF_THREADS	256
#define SPMV_REF_ITEMS		8
#define SPMV_REF_TILE		(SPMV_REF_THREADS * SPMV_REF_ITEMS)
#define SPMV_REF_WARPS		(SPMV_REF_THREADS / 32)
#define SPMV_REF_FULL		0xffffffffu

/* tile status */
#define REF_INVALID		0u
#define REF_AGGREGATE	1u
#define REF_INCLUSIVE	2u

/* ref_publish -- store a status after the value it announces */
__device__ __forceinline__ void
ref_publish(unsigned int *flag, unsigned int status)
{
	cuda::atomic_ref<unsigned int, cuda::thread_scope_device> f(*flag);

	f.store(status, cuda::memory_order_release);
}

/* ref_status -- read a status; later loads see what was stored before it */
__device__ __forceinline__ unsigned int
ref_status(unsigned int *flag)
{
	cuda::atomic_ref<unsigned int, cuda::thread_scope_device> f(*flag);

	return f.load(cuda::memory_order_acquire);
}

/* ref_combine -- the segmented operator: (fa, va) then (fb, vb) */
template <typename T>
__device__ __forceinline__ void
ref_combine(bool fa, T va, bool &fb, T &vb)
{
	if (!fb)
		vb = va + vb;
	fb = fa || fb;
}

/*
 * ref_look_back -- the carry into tile `tile` (> 0), by one warp: lane l
 * looks at tile window - l; wait until the whole window has published,
 * take the nearest inclusive prefix and the aggregates after it, add them
 * by a butterfly; no inclusive prefix in the window: add all 32 and move
 * back.  Tiles draw their ids in launch order, so all waited-on tiles are
 * running: no deadlock.
 */
template <typename T>
__device__ __forceinline__ T
ref_look_back(unsigned int tile, unsigned int *flags, const T *aggs, const T *incs)
{
	const int	lane = threadIdx.x & 31;
	long long	window = (long long) tile - 1;
	T			carry = T(0);

	for (;;)
	{
		const long long p = window - lane;
		unsigned int st;
		unsigned int inclusive;
		T			v;

		do
		{
			st = p >= 0 ? ref_status(&flags[p]) : REF_INCLUSIVE;
		} while (__any_sync(SPMV_REF_FULL, st == REF_INVALID));

		v = p < 0 ? T(0) : (st == REF_INCLUSIVE ? __ldcg(&incs[p]) : __ldcg(&aggs[p]));
		inclusive = __ballot_sync(SPMV_REF_FULL, st == REF_INCLUSIVE);
		if (inclusive != 0 && lane > __ffs(inclusive) - 1)
			v = T(0);
#pragma unroll
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_xor_sync(SPMV_REF_FULL, v, o);
		carry = v + carry;
		if (inclusive != 0)
			return carry;
		window -= 32;
	}
}

/* spmv_ref_heads -- flag the first element of every non-empty row */
__global__ void
spmv_ref_heads(const int32_t *__restrict__ row_ptr, int32_t nrows, unsigned char *flags)
{
	const int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i < nrows && row_ptr[i + 1] > row_ptr[i])
		flags[row_ptr[i]] = 1;
}

/* spmv_ref_scan -- the segmented scan of the products; see the file header */
template <typename T>
__global__ void __launch_bounds__(SPMV_REF_THREADS)
spmv_ref_scan(const int32_t *__restrict__ col_idx, const T *__restrict__ vals,
			  const T *__restrict__ x, const unsigned char *__restrict__ heads, int32_t nnz,
			  T *__restrict__ out, unsigned int *counter, unsigned int *flags, T *aggs, T *incs)
{
	__shared__ T vs[SPMV_REF_TILE + SPMV_REF_TILE / 32];
	__shared__ unsigned char hs[SPMV_REF_TILE];
	__shared__ T warp_v[SPMV_REF_WARPS];
	__shared__ bool warp_f[SPMV_REF_WARPS];
	__shared__ unsigned int tile_sh;
	__shared__ T carry_sh;
	const unsigned int tid = threadIdx.x;
	const unsigned int lane = tid & 31;
	const unsigned int warp = tid >> 5;
	unsigned int tile;
	int64_t		base;
	bool		tf = false,
				lf,
				wf;
	T			tv = T(0),
				lv,
				wv;

#define REF_PAD(i) ((i) + (i) / 32)
	if (tid == 0)
		tile_sh = atomicAdd(counter, 1u);
	__syncthreads();
	tile = tile_sh;
	base = (int64_t) tile * SPMV_REF_TILE;

	/* gather and multiply, striped (coalesced), into shared memory */
#pragma unroll
	for (int j = 0; j < SPMV_REF_ITEMS; j++)
	{
		int			e = j * SPMV_REF_THREADS + tid;
		int64_t		k = base + e;
		T			v = T(0);
		unsigned char h = 1;	/* past the end: a head, so nothing leaks */

		if (k < nnz)
		{
			v = vals[k] * __ldg(&x[col_idx[k]]);
			h = heads[k];
		}
		vs[REF_PAD(e)] = v;
		hs[e] = h;
	}
	__syncthreads();

	/* this thread's items: their segmented total */
#pragma unroll
	for (int j = 0; j < SPMV_REF_ITEMS; j++)
	{
		int			e = tid * SPMV_REF_ITEMS + j;
		bool		f = hs[e] != 0;
		T			v = vs[REF_PAD(e)];

		ref_combine(tf, tv, f, v);
		tf = f;
		tv = v;
	}

	/* warp scan of the thread totals (inclusive), then exclusive */
	lf = tf;
	lv = tv;
#pragma unroll
	for (int o = 1; o < 32; o <<= 1)
	{
		bool		uf = __shfl_up_sync(SPMV_REF_FULL, lf, o);
		T			uv = __shfl_up_sync(SPMV_REF_FULL, lv, o);

		if (lane >= (unsigned int) o)
			ref_combine(uf, uv, lf, lv);
	}
	if (lane == 31)
	{
		warp_f[warp] = lf;
		warp_v[warp] = lv;
	}
	{
		bool		ef = __shfl_up_sync(SPMV_REF_FULL, lf, 1);
		T			ev = __shfl_up_sync(SPMV_REF_FULL, lv, 1);

		lf = lane == 0 ? false : ef;
		lv = lane == 0 ? T(0) : ev;
	}
	__syncthreads();

	/* warp 0: the warp totals, the tile's publication and look-back */
	if (warp == 0)
	{
		bool		f = lane < SPMV_REF_WARPS ? warp_f[lane] : false;
		T			v = lane < SPMV_REF_WARPS ? warp_v[lane] : T(0);
		bool		agg_f;
		T			agg_v,
					carry = T(0);

#pragma unroll
		for (int o = 1; o < SPMV_REF_WARPS; o <<= 1)
		{
			bool		uf = __shfl_up_sync(SPMV_REF_FULL, f, o);
			T			uv = __shfl_up_sync(SPMV_REF_FULL, v, o);

			if (lane >= (unsigned int) o)
				ref_combine(uf, uv, f, v);
		}
		agg_f = __shfl_sync(SPMV_REF_FULL, f, SPMV_REF_WARPS - 1);
		agg_v = __shfl_sync(SPMV_REF_FULL, v, SPMV_REF_WARPS - 1);
		{
			bool		ef = __shfl_up_sync(SPMV_REF_FULL, f, 1);
			T			ev = __shfl_up_sync(SPMV_REF_FULL, v, 1);

			__syncwarp();
			if (lane < SPMV_REF_WARPS)
			{
				warp_f[lane] = lane == 0 ? false : ef;
				warp_v[lane] = lane == 0 ? T(0) : ev;
			}
		}

		/*
		 * A tile with a row head publishes its inclusive value at once (the
		 * head cuts off everything before it), but still needs the carry for
		 * its elements before the first head: every tile but the first looks
		 * back.
		 */
		if (lane == 0)
		{
			if (tile == 0 || agg_f)
			{
				incs[tile] = agg_v;
				ref_publish(&flags[tile], REF_INCLUSIVE);
			}
			else
			{
				aggs[tile] = agg_v;
				ref_publish(&flags[tile], REF_AGGREGATE);
			}
		}
		if (tile > 0)
			carry = ref_look_back<T>(tile, flags, aggs, incs);
		if (tile > 0 && !agg_f && lane == 0)
		{
			incs[tile] = carry + agg_v;
			ref_publish(&flags[tile], REF_INCLUSIVE);
		}
		if (lane == 0)
			carry_sh = carry;
	}
	__syncthreads();

	/* this thread's exclusive prefix: tile carry, then warp, then lane */
	wf = warp_f[warp];
	wv = warp_v[warp];
	{
		bool		pf = false;
		T			pv = carry_sh;

		ref_combine(pf, pv, wf, wv);
		ref_combine(wf, wv, lf, lv);
	}

	/* rescan the items from that prefix, into shared memory, then out striped */
#pragma unroll
	for (int j = 0; j < SPMV_REF_ITEMS; j++)
	{
		int			e = tid * SPMV_REF_ITEMS + j;
		bool		f = hs[e] != 0;
		T			v = vs[REF_PAD(e)];

		ref_combine(lf, lv, f, v);
		lf = f;
		lv = v;
		vs[REF_PAD(e)] = v;
	}
	__syncthreads();
#pragma unroll
	for (int j = 0; j < SPMV_REF_ITEMS; j++)
	{
		int			e = j * SPMV_REF_THREADS + tid;
		int64_t		k = base + e;

		if (k < nnz)
			out[k] = vs[REF_PAD(e)];
	}
#undef REF_PAD
}

/* spmv_ref_gather -- y[i] from the last element of row i */
template <typename T>
__global__ void
spmv_ref_gather(const int32_t *__restrict__ row_ptr, int32_t nrows, const T *__restrict__ scan,
				T *__restrict__ y)
{
	const int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i < nrows)
	{
		int32_t		e = row_ptr[i + 1];

		y[i] = e > row_ptr[i] ? scan[e - 1] : T(0);
	}
}

/* the scratch: counter, tile flags, tile aggregates and prefixes, head flags, scan */
typedef struct ref_scratch
{
	unsigned int *counter;
	unsigned int *flags;
	void	   *aggs;
	void	   *incs;
	unsigned char *heads;
	void	   *scan;
	size_t		flags_bytes;
	size_t		bytes;
} ref_scratch;

/* ref_layout -- where the parts of the scratch lie (base NULL: sizes only) */
static ref_scratch
ref_layout(void *base, int32_t nnz, int is_double)
{
	ref_scratch s;
	size_t		tsize = is_double ? sizeof(double) : sizeof(float);
	size_t		tiles = ((size_t) (nnz > 0 ? nnz : 0) + SPMV_REF_TILE - 1) / SPMV_REF_TILE + 1;
	char	   *p = (char *) base;
	size_t		off = 0;

	s.counter = (unsigned int *) (p + off);
	off += GSD_SCRATCH_ALIGN;
	s.flags = (unsigned int *) (p + off);
	s.flags_bytes = tiles * sizeof(unsigned int);
	off += gsd_scratch_align(s.flags_bytes);
	s.aggs = p + off;
	off += gsd_scratch_align(tiles * tsize);
	s.incs = p + off;
	off += gsd_scratch_align(tiles * tsize);
	s.heads = (unsigned char *) (p + off);
	off += gsd_scratch_align((size_t) (nnz > 0 ? nnz : 1));
	s.scan = p + off;
	off += gsd_scratch_align((size_t) (nnz > 0 ? nnz : 1) * tsize);
	s.bytes = off;
	return s;
}

size_t
gsd_spmv_reference_scratch_bytes(int32_t nnz, int is_double)
{
	return ref_layout(NULL, nnz, is_double).bytes;
}

/* ref_run -- the three steps for element type T */
template <typename T>
static gsd_status
ref_run(const int32_t *d_row_ptr, int32_t nrows, const int32_t *d_col_idx, const T *d_vals,
		const T *d_x, T *d_y, void *d_scratch)
{
	const char *what = "reference sparse matrix x vector";
	ref_scratch s = ref_layout(d_scratch, 0, sizeof(T) == sizeof(double));
	cudaStream_t stream = gsd_stream();
	int32_t		nnz;
	gsd_status	st;
	unsigned int tiles;

	if (nrows <= 0)
		return GSD_OK;
	/* the layout depends on nnz: read it (one small download) */
	if ((st = gsd_download(&nnz, d_row_ptr + nrows, sizeof(int32_t))) != GSD_OK)
		return st;
	s = ref_layout(d_scratch, nnz, sizeof(T) == sizeof(double));
	tiles = (unsigned int) (((size_t) nnz + SPMV_REF_TILE - 1) / SPMV_REF_TILE);
	if (nnz > 0)
	{
		st = gsd_cuda_status(cudaMemsetAsync(s.counter, 0, sizeof(unsigned int), stream), what);
		if (st == GSD_OK)
			st = gsd_cuda_status(cudaMemsetAsync(s.flags, 0, s.flags_bytes, stream), what);
		if (st == GSD_OK)
			st = gsd_cuda_status(cudaMemsetAsync(s.heads, 0, (size_t) nnz, stream), what);
		if (st != GSD_OK)
			return st;
		spmv_ref_heads<<<(nrows + 255) / 256, 256, 0, stream>>>(d_row_ptr, nrows, s.heads);
		GSD_CHECK_LAUNCH(what);
		spmv_ref_scan<T><<<tiles, SPMV_REF_THREADS, 0, stream>>>(
			d_col_idx, d_vals, d_x, s.heads, nnz, (T *) s.scan, s.counter, s.flags,
			(T *) s.aggs, (T *) s.incs);
		GSD_CHECK_LAUNCH(what);
	}
	spmv_ref_gather<T><<<(nrows + 255) / 256, 256, 0, stream>>>(d_row_ptr, nrows,
																 (const T *) s.scan, d_y);
	GSD_CHECK_LAUNCH(what);
	return GSD_OK;
}

gsd_status
gsd_spmv_reference(int is_double, const int32_t *d_row_ptr, int32_t nrows,
				   const int32_t *d_col_idx, const void *d_vals, const void *d_x, void *d_y,
				   void *d_scratch)
{
	gsd_status	st = gsd_require_open();

	if (st != GSD_OK)
		return st;
	if (is_double)
		return ref_run<double>(d_row_ptr, nrows, d_col_idx, (const double *) d_vals,
							   (const double *) d_x, (double *) d_y, d_scratch);
	return ref_run<float>(d_row_ptr, nrows, d_col_idx, (const float *) d_vals,
						  (const float *) d_x, (float *) d_y, d_scratch);
}
