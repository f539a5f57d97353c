/*-------------------------------------------------------------------------
 *
 * gpuscan_course.h
 *	  The C API of the course's kernels (kernels/course/): the teaching
 *	  versions of the seed algorithms, kept beside the production kernels
 *	  to test and benchmark them against.  No SQL function calls them, so
 *	  they are not linked into gpuscan.so: the Makefile builds them for the
 *	  unit tests (make unit) and the kernel benchmark (bench/kernel_bench)
 *	  alone, and only where the kernels are built with nvcc.
 *
 *	  reduce_progression.cu	the reduction progression, one kernel a step
 *	  scan_progression.cu	the scan progression, one algorithm a version
 *	  compact_progression.cu	stream compaction's versions 1-5, and 6 (the
 *							production kernel of kernels/compact.cu) on the
 *							caller's scratch
 *	  spmv_reference.cu		SpMV as a segmented scan of the products
 *
 * Plain C, as gpuscan_device.h, whose status codes, gsd_last_error() and
 * device functions (gsd_open, gsd_alloc, ...) these use: no CUDA and no
 * PostgreSQL types.  The kernels run on the open device, in order on the
 * process's stream, as the production ones do.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_COURSE_H
#define GPUSCAN_COURSE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuscan_device.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* ---- the reduction progression (reduce_progression.cu) ----
 *
 * The classic progression of parallel sum reductions, one kernel per
 * step, from interleaved addressing with a divergent branch to warp
 * shuffles with 16-byte loads in a single pass.  Kept for teaching and
 * benchmarking beside the production exact sum (gsd_sum_exact_*): these
 * versions add in the input's own precision, so their results are NOT
 * exact and depend on the version (and, for versions 7 and 8, on the
 * device's multiprocessor count).  Each version is deterministic on a
 * given device.
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
 */

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

/* ---- the scan progression (scan_progression.cu) ----
 *
 * The course's progression of parallel inclusive prefix sums (scans), one
 * algorithm per version, from Kogge-Stone in shared memory to a
 * single-pass decoupled look-back scan.  Kept for teaching and
 * benchmarking beside the production prefix sum (gsd_prefix_sum_*): these
 * versions add in the input's own precision, so their results are NOT
 * exact and depend on the version.  Versions 1-6 are deterministic;
 * version 7 is not (see below).
 *
 * Versions are numbered 1 .. gsd_scan_progression_count():
 *	  1  scan_kogge_stone			Kogge-Stone (Hillis-Steele), double-buffered
 *	  2  scan_brent_kung			two elements per thread, up-sweep + reverse tree
 *	  3  scan_blelloch_padded		up-sweep/down-sweep, CONFLICT_FREE_OFFSET padding
 *	  4  scan_three_phase			per-thread subsection scan, corner turning
 *	  5  scan_hierarchical			version 4's block scan, block sums scanned recursively
 *	  6  scan_stream_chained		single pass, adjacent-block flags, dynamic block ids
 *	  7  scan_decoupled_lookback	single pass, tile status look-back, vector loads
 *
 * Versions 1-4 make a complete scan of any n from their block scan in
 * three launches: scan every section and keep its total; one block walks
 * the totals with a running carry; add each section's carry-in.  Version 5
 * scans the totals with all blocks, recursively.  Versions 6 and 7 take
 * one launch.
 *
 * Version 7's result may differ in the last bits from run to run: each
 * tile's prefix is added up from whichever earlier tiles had published
 * their totals at that moment, so the order of the additions depends on
 * timing (as in CUB's scan).  Its error bound holds for every run.
 *
 * Signed zeros are not kept: a carry of +0 is added to every element, so
 * an output of -0.0 comes back as +0.0.
 */

/* Number of versions; they are numbered from 1. */
int			gsd_scan_progression_count(void);

/* Kernel name of a version ("scan_kogge_stone"); NULL if none. */
const char *gsd_scan_progression_name(int version);

/* Whether a version gives the same bits on every run (1) or not (0); -1 if unknown. */
int			gsd_scan_progression_deterministic(int version);

/*
 * Bytes of device scratch that any version needs for n elements of the
 * type (is_double: 0 float, 1 double).  The caller only allocates it
 * (gsd_alloc); it need not be zeroed: the versions that keep flags or
 * counters there (6 and 7) reset them themselves, with a
 * cudaMemsetAsync on the stream before their launch.  One scratch may
 * serve any number of calls, in stream order, with any n up to the one
 * it was sized for.
 */
size_t		gsd_scan_progression_scratch_bytes(int is_double, size_t n);

/*
 * Inclusive prefix sums of the n device-resident values at d_in (float or
 * double, per is_double) with the given version, in the same precision,
 * into d_out[0..n) (same type): d_out[i] = d_in[0] + ... + d_in[i].  n
 * may be 0 (nothing is written; d_in and d_out may then be NULL).  d_in
 * and d_out must be aligned to their element size (any alignment beyond
 * that is handled) and must not overlap.  Stream-ordered on the process's
 * stream: download d_out to read it.  The device must be open.
 */
gsd_status	gsd_scan_progression(int version, int is_double, const void *d_in,
								 size_t n, void *d_out, void *d_scratch);

/*
 * The same versions over n 32-bit unsigned integers: exact inclusive sums
 * modulo 2^32, the same on every run (the order of integer additions does
 * not matter).  Scratch as for float (gsd_scan_progression_scratch_bytes
 * with is_double 0).  Stream compaction's three-step version scans its
 * 0/1 flags with it.
 */
gsd_status	gsd_scan_progression_u32(int version, const uint32_t *d_in, size_t n,
									 uint32_t *d_out, void *d_scratch);

/*
 * An upper bound on |computed[i] - exact[i]| / exact[i], over every i,
 * that the version guarantees for n NONNEGATIVE inputs: gamma_h = h*u /
 * (1 - h*u), where u is the unit roundoff of the type and h the largest
 * number of additions any input goes through on its way to any output
 * (each addition of the version's scan network and of its carries).  For
 * inputs of mixed sign the bound applies to sum_{j<=i} |x_j| instead of
 * |exact[i]|.  Needs no device.  Returns -1 if the version is unknown.
 */
double		gsd_scan_progression_error_bound(int version, int is_double, size_t n);

/* ---- the compaction progression (compact_progression.cu) ----
 *
 * Stream compaction in the versions the course builds up to, kept for
 * testing and benchmarking beside the production functions (gsd_compact_*
 * in gpuscan_device.h, whose kernel is version 6):
 *
 *	  1  compact_three_step		predicate -> inclusive scan of the 0/1
 *								flags (the scan progression's decoupled
 *								look-back over unsigned ints) -> scatter:
 *								three launches, flags and scan in memory
 *	  2  compact_fused_direct	one pass: flags read once, ranks by warp
 *								ballots, decoupled look-back for the
 *								tile's output offset, each kept value
 *								written straight to its place
 *	  3  compact_fused_staged	as 2, but the tile's kept values are first
 *								gathered in shared memory and then written
 *								out by consecutive threads (coalesced)
 *	  4  compact_fused_bulk		as 3, but the copy engine brings each tile
 *								of flags and values into shared memory
 *								(cp.async.bulk), all of its bytes in flight
 *								at once; every value is read
 *	  5  compact_fused_pipelined as 4 with a persistent grid, two stages
 *								deep: the next tile's copy overlaps the
 *								current tile's look-back and stores
 *	  6  compact_fused_flags_first	one pass over tiles of 12288 elements,
 *								each warp 48 rows of 32 consecutive ones:
 *								flags and values come by two bulk copies,
 *								the tile's count is published as soon as
 *								the flags are in, so the look-back overlaps
 *								the values' copy; each row's kept values go
 *								from shared memory straight to consecutive
 *								places.  The production kernel.
 *
 * All versions give the same result: the values whose flag byte is not
 * zero, in their original order, and their count.
 */

/* Number of versions; they are numbered from 1. */
int			gsd_compact_progression_count(void);

/* Kernel name of a version ("compact_three_step"); NULL if none. */
const char *gsd_compact_progression_name(int version);

/* Bytes of device scratch any version needs for n elements (16-byte aligned). */
size_t		gsd_compact_progression_scratch_bytes(size_t n);

/*
 * Compact n device values (float or double, per is_double) by n flag
 * bytes with the given version: d_out[0 .. *d_count) = the values whose
 * flag is not zero, in order; *d_count (device) = how many.  Arguments as
 * for gsd_compact_f64.  Stream-ordered.
 */
gsd_status	gsd_compact_progression(int version, int is_double, const void *d_vals,
									const uint8_t *d_keep, size_t n, void *d_out,
									uint64_t *d_count, void *d_scratch);

/*
 * One phase of version 1 alone, for timing each phase:
 *	  1 predicate  (flag bytes -> 0/1 unsigned ints in the scratch)
 *	  2 scan       (inclusive scan of those, in the scratch)
 *	  3 scatter    (values to their places; the count)
 * The phases must run in order on the same arguments and scratch.
 */
gsd_status	gsd_compact_three_step_phase(int phase, int is_double, const void *d_vals,
										 const uint8_t *d_keep, size_t n, void *d_out,
										 uint64_t *d_count, void *d_scratch);

/* ---- the SpMV reference (spmv_reference.cu) ---- */

/*
 * The course's formulation of y = A x, for teaching and benchmarking
 * beside the production gsd_spmv_f64/_f32: gather x by column and
 * multiply (in the input's precision), a segmented inclusive scan over
 * the products with the row starts as segment heads (single pass,
 * decoupled look-back), then y[i] from the last element of row i (0 for
 * an empty row).  The CSR arrays as for gsd_spmv_f64.  Not deterministic
 * in the last bits; accurate to about (row length + 64) units of
 * roundoff of the row's absolute sum.  Needs
 * gsd_spmv_reference_scratch_bytes(nnz, is_double) bytes of scratch (no
 * need to zero it).  Stream-ordered.
 */
size_t		gsd_spmv_reference_scratch_bytes(int32_t nnz, int is_double);
gsd_status	gsd_spmv_reference(int is_double, const int32_t *d_row_ptr, int32_t nrows,
							   const int32_t *d_col_idx, const void *d_vals,
							   const void *d_x, void *d_y, void *d_scratch);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_COURSE_H */
