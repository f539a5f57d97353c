/*-------------------------------------------------------------------------
 *
 * compact.cu
 *	  Stream compaction: keep the values whose flag byte is not zero, in
 *	  order, in one pass with decoupled look-back (compact_tile.cuh).  The
 *	  production functions gsd_compact_f64, _f32 and _indices, all of them
 *	  on compact_flags_first, version 6 of the course's progression.
 *
 * Version 6 takes tiles of CP_FF_TILE elements in which each warp owns
 * consecutive rows of 32 elements: a row's kept elements go to consecutive
 * places, straight from shared memory.  The flags and the values come by
 * two bulk copies, and the tile's count is published as soon as its flags
 * are in, so that the look-back overlaps the values' copy.  The versions
 * it was built up from (the three steps of predicate, scan and scatter,
 * and fused versions 2-5) are in kernels/course/compact_progression.cu,
 * for the unit tests and the kernel benchmark only.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <limits.h>

#include "compact_tile.cuh"

/*
 * cp_production -- the production compaction of one type: scratch from
 * the stream-ordered pool for the call, version 6
 */
template <typename T>
static gsd_status
cp_production(const T *d_vals, const uint8_t *d_keep, size_t n,
			  typename cp_type<T>::out *d_out, int32_t first, uint64_t *d_count,
			  const char *what)
{
	cudaStream_t stream = gsd_stream();
	void	   *scratch = NULL;
	gsd_status	st;

	st = cp_check(what, d_vals, sizeof(T) > 1, d_keep, n, d_out,
				  sizeof(typename cp_type<T>::out), d_count);
	if (st != GSD_OK)
		return st;
	if (n == 0)
		return cp_zero_count(d_count);
	st = gsd_cuda_status(cudaMallocAsync(&scratch, cp_ff_scratch_bytes(n), stream),
						 "cudaMallocAsync (compaction scratch)");
	if (st != GSD_OK)
		return st;
	st = cp_run_flags_first<T>(d_vals, d_keep, n, d_out, first, d_count, scratch, what);
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
