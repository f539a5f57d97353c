/*-------------------------------------------------------------------------
 *
 * unit.h
 *	  A very small unit-test harness: named cases made of checks.
 *
 * A case passes when every check in it holds.  main.c runs the suites and
 * prints "unit: N passed, N failed" last.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_UNIT_H
#define GPUSCAN_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuscan_exact.h"

/* Start a named case (printf-style name); ends the previous one. */
void		unit_case(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/* Record one failed check of the current case, with a message. */
void		unit_fail(const char *file, int line, const char *fmt,...) __attribute__((format(printf, 3, 4)));

/* Whether a GPU is usable (device 0 opened); once per process. */
int			unit_gpu_available(void);

/* Deterministic random numbers for the tests (splitmix64). */
uint64_t	unit_rand64(void);
double		unit_rand_uniform(void);	/* [0, 1) */
void		unit_seed(uint64_t seed);

/* Shared helpers (unit_util.c). */
uint64_t	unit_double_bits(double x);
double		unit_bits_double(uint64_t u);
float		unit_bits_float(uint32_t u);
uint64_t	unit_rand_below(uint64_t n);	/* [0, n) */
double		unit_rand_sign(void);	/* +1.0 or -1.0 */
double		unit_rand_with_exponent(int e); /* random significand times 2^e, random sign */
size_t		unit_random_piece(size_t left, size_t large);
int			unit_random_cuts(size_t n, size_t *cuts, int k);
void		unit_check_acc(const char *what, const gs_exact_acc *want, const gs_exact_acc *got);

#define UNIT_CHECK(cond, ...) \
	do { if (!(cond)) unit_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)

/* Suites: each test file defines one or more of these; main.c lists them. */
void		suite_cpu_sum(void);
void		suite_gpu_sum(void);
void		suite_reduce_progression(void);
void		suite_cpu_scan(void);
void		suite_gpu_scan(void);
void		suite_scan_progression(void);
void		suite_cpu_compact(void);
void		suite_gpu_compact(void);

#endif							/* GPUSCAN_UNIT_H */
