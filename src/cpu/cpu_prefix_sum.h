/*-------------------------------------------------------------------------
 *
 * cpu_prefix_sum.h
 *	  CPU implementations of the correctly rounded prefix sums (plain C, no
 *	  PostgreSQL headers).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CPU_SCAN_H
#define GPUSCAN_CPU_SCAN_H

#include <stddef.h>

#include "gpuscan_exact.h"

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * Prefix sums of x[0..n) into out[0..n): the same contract as
 * gsd_prefix_sum_f64 in gpuscan_device.h, with *carry on the host.  Each
 * output is gs_acc_round() of *carry plus the values up to element i
 * (inclusive) or before it (exclusive); *carry ends including all n values.
 */
void		cpu_prefix_sum_f64(const double *x, size_t n, double *out,
							   int exclusive, gs_exact_acc *carry);
void		cpu_prefix_sum_f32(const float *x, size_t n, double *out,
							   int exclusive, gs_exact_acc *carry);

/*
 * The plain sequential float8 running sum, as sum() OVER (ROWS UNBOUNDED
 * PRECEDING) computes it: the accuracy baseline of the tests and benchmarks.
 */
void		cpu_prefix_sum_sequential_f64(const double *x, size_t n, double *out);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_CPU_SCAN_H */
