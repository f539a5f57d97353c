/*-------------------------------------------------------------------------
 *
 * compact_progression.h
 *	  Stream compaction in the versions the course builds up to, kept for
 *	  testing and benchmarking beside the production functions
 *	  (gsd_compact_* in gpuscan_device.h, which use the best of them):
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
 * zero, in their original order, and their count.  Plain C: no CUDA types.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_COMPACT_PROGRESSION_H
#define GPUSCAN_COMPACT_PROGRESSION_H

#include <stddef.h>
#include <stdint.h>

#include "gpuscan_device.h"

#ifdef __cplusplus
extern "C"
{
#endif

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

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_COMPACT_PROGRESSION_H */
