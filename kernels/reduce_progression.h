/*-------------------------------------------------------------------------
 *
 * reduce_progression.h
 *	  The classic progression of parallel sum reductions, one kernel per
 *	  step, from interleaved addressing with a divergent branch to warp
 *	  shuffles with 16-byte loads in a single pass.  Kept for teaching and
 *	  benchmarking beside the production exact sum (gsd_sum_exact_*):
 *	  these versions add in the input's own precision, so their results
 *	  are NOT exact and depend on the version (and, for versions 7 and 8,
 *	  on the device's multiprocessor count).  Each version is
 *	  deterministic on a given device.
 *
 * Versions are numbered 1 .. gsd_reduce_progression_count():
 *	  1  reduce_interleaved_divergent	tid % (2s) picks the adding threads
 *	  2  reduce_interleaved_strided		index 2*s*tid: no divergence, bank conflicts
 *	  3  reduce_sequential_addressing	stride halves from blockDim/2: no conflicts
 *	  4  reduce_first_add_during_load	each thread adds two elements as it loads
 *	  5  reduce_unrolled_last_warp		last 32 threads without __syncthreads
 *	  6  reduce_complete_unroll			block size a template parameter
 *	  7  reduce_grid_stride				many elements per thread, fixed grid
 *	  8  reduce_shuffle_vectorized		__shfl_down_sync, 16-byte loads, one launch
 *
 * Plain C: no CUDA types.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_REDUCE_PROGRESSION_H
#define GPUSCAN_REDUCE_PROGRESSION_H

#include <stddef.h>

#include "gpuscan_device.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Number of versions; they are numbered from 1. */
int			gsd_reduce_progression_count(void);

/* Kernel name of a version ("reduce_sequential_addressing"); NULL if none. */
const char *gsd_reduce_progression_name(int version);

/*
 * Bytes of device scratch that any version needs for n elements of the
 * type (is_double: 0 float, 1 double).  The caller allocates it once
 * (gsd_alloc) and ZEROES IT ONCE (gsd_memset_zero) before its first use:
 * version 8 keeps a block counter there, which every call leaves at zero
 * again.  One scratch may serve any number of calls, in stream order, with
 * any n up to the one it was sized for.
 */
size_t		gsd_reduce_progression_scratch_bytes(int is_double, size_t n);

/*
 * Sum the n device-resident values at d_in (float or double, per
 * is_double) with the given version, in the same precision, and write the
 * sum to the device scalar *d_out (a float or a double).  n may be 0
 * (the sum is +0).  d_in must be aligned to its element size; any
 * alignment beyond that is handled.  Stream-ordered on the process's
 * stream: download *d_out to read it.  The device must be open.
 */
gsd_status	gsd_reduce_progression(int version, int is_double, const void *d_in,
								   size_t n, void *d_out, void *d_scratch);

/*
 * An upper bound on |computed - exact| / exact that the version
 * guarantees for n NONNEGATIVE inputs on the open device: gamma_h =
 * h*u / (1 - h*u), where u is the unit roundoff of the type and h the
 * largest number of roundings any input goes through on its way to the
 * result (each addition in the version's summation tree).  For inputs of
 * mixed sign the bound applies to sum |x_i| instead of |sum x_i|.
 * Returns -1 if the version is unknown or no device is open.
 */
double		gsd_reduce_progression_error_bound(int version, int is_double, size_t n);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_REDUCE_PROGRESSION_H */
