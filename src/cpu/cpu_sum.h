/*-------------------------------------------------------------------------
 *
 * cpu_sum.h
 *	  CPU implementations of the exact sum (plain C, no PostgreSQL headers).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CPU_SUM_H
#define GPUSCAN_CPU_SUM_H

#include <stddef.h>

#include "gpuscan_exact.h"

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * Add the exact sum of x[0..n) into *acc.  The result of gs_acc_round()
 * is the same bits as adding every element with gs_acc_add(), for any
 * split of the input into calls.  *acc keeps its headroom for any n.
 */
void		cpu_sum_exact_f64(const double *x, size_t n, gs_exact_acc *acc);
void		cpu_sum_exact_f32(const float *x, size_t n, gs_exact_acc *acc);

/*
 * Which build of the vectorized exact sum runs: "avx2" or "portable" (or
 * "scalar" where the compiler's doubles have excess precision).  Tests
 * call cpu_sum_exact_allow_avx2(0) to run the portable build on an AVX2
 * machine, and (1) to restore the automatic choice.
 */
const char *cpu_sum_exact_path(void);
void		cpu_sum_exact_allow_avx2(int allow);

/*
 * The plain float8 loop that PostgreSQL users would write in C: several
 * independent accumulators so that the compiler can vectorize.  Not
 * correctly rounded; the baseline of the CPU benchmark.
 */
double		cpu_sum_plain_f64(const double *x, size_t n);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_CPU_SUM_H */
