/*-------------------------------------------------------------------------
 *
 * scan_progression.h
 *	  The course's progression of parallel inclusive prefix sums (scans),
 *	  one algorithm per version, from Kogge-Stone in shared memory to a
 *	  single-pass decoupled look-back scan.  Kept for teaching and
 *	  benchmarking beside the production prefix sum (gsd_prefix_sum_*):
 *	  these versions add in the input's own precision, so their results
 *	  are NOT exact and depend on the version.  Versions 1-6 are
 *	  deterministic; version 7 is not (see below).
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
 *
 * Plain C: no CUDA types.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SCAN_PROGRESSION_H
#define GPUSCAN_SCAN_PROGRESSION_H

#include <stddef.h>
#include <stdint.h>

#include "gpuscan_device.h"

#ifdef __cplusplus
extern "C"
{
#endif

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
 * with is_double 0).  Stream compaction's reference pipeline scans its
 * 0/1 flags with it.
 */
gsd_status	gsd_scan_progression_u32(int version, const uint32_t *d_in, size_t n,
									 uint32_t *d_out, void *d_scratch);

/*
 * An upper bound on |computed[i] - exact[i]| / exact[i], over every i,
 * that the version guarantees for n NONNEGATIVE inputs: gamma_h = h*u / (1 - h*u), where u is the unit roundoff of the
 * type and h the largest number of additions any input goes through on
 * its way to any output (each addition of the version's scan network and
 * of its carries).  For inputs of mixed sign the bound applies to
 * sum_{j<=i} |x_j| instead of |exact[i]|.  Needs no device.  Returns -1
 * if the version is unknown.
 */
double		gsd_scan_progression_error_bound(int version, int is_double, size_t n);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_SCAN_PROGRESSION_H */
