/*-------------------------------------------------------------------------
 *
 * cpu_compact.h
 *	  CPU stream compaction (plain C, no PostgreSQL headers): the same
 *	  contract as gsd_compact_* in gpuscan_device.h, on host memory.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CPU_COMPACT_H
#define GPUSCAN_CPU_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * The values whose flag byte is not zero, in order, into out; returns how
 * many.  out must have room for that count PLUS ONE value: the loop is
 * branch-free and stores every element, kept or not, at the next free
 * place.
 */
size_t		cpu_compact_f64(const double *vals, const uint8_t *keep, size_t n, double *out);
size_t		cpu_compact_f32(const float *vals, const uint8_t *keep, size_t n, float *out);

/* The positions first + i of the kept elements; room as above. */
size_t		cpu_compact_indices(const uint8_t *keep, size_t n, int32_t first, int32_t *out);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_CPU_COMPACT_H */
