/*-------------------------------------------------------------------------
 *
 * unit.h
 *	  A very small unit-test harness: named cases made of checks.
 *
 * A case passes when every check in it holds.  main.c runs the suites and
 * prints "unit: N passed, N failed, N skipped" last (N skipped: the suites
 * that cannot run here).
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

/*
 * A random CSR matrix (0-based, malloc'd arrays the caller frees): nrows
 * rows whose lengths follow `shape` (unit_csr_shape), columns in [0, ncols),
 * values and x uniform in [-1, 1) or small integers (integral != 0).
 */
typedef enum unit_csr_shape
{
	CSR_UNIFORM,				/* lengths 0 .. 2 * mean */
	CSR_EMPTY_ROWS,				/* most rows empty, a few of length mean */
	CSR_SKEWED,					/* power-law lengths, some of several segments */
	CSR_ONE_HUGE_ROW			/* short rows and one of ~5 segments */
} unit_csr_shape;

typedef struct unit_csr
{
	int32_t		nrows;
	int32_t		ncols;
	int32_t		nnz;
	int32_t    *row_ptr;
	int32_t    *col_idx;
	double	   *vals;
	double	   *x;
} unit_csr;

void		unit_random_csr(unit_csr *m, unit_csr_shape shape, int32_t nrows, int32_t ncols,
							int mean, int integral);
void		unit_free_csr(unit_csr *m);

/*
 * The CSR suites' sizes (unit_util.c): the shapes and their names, mean row
 * lengths (on the GPU they pick groups of 1 to 32 lanes) and row counts
 */
#define UNIT_CSR_SHAPES	4
#define UNIT_CSR_MEANS	7
#define UNIT_CSR_ROWS	8
extern const unit_csr_shape unit_csr_shapes[UNIT_CSR_SHAPES];
extern const char *const unit_csr_shape_names[UNIT_CSR_SHAPES];
extern const int unit_csr_means[UNIT_CSR_MEANS];
extern const int32_t unit_csr_rows[UNIT_CSR_ROWS];

/*
 * check(m) on a random matrix of every shape, mean and row count (5000
 * columns, integral values on every other row count, at most 2,000,000
 * non-zeros), then on one without rows; each a case named
 * "<what>: <shape>, mean M, R rows, <claim>"
 */
void		unit_csr_sweep(const char *what, const char *claim, void (*check) (const unit_csr *m));

/* A device copy of `bytes` of host data (gsd_alloc, gsd_upload); NULL on failure. */
void	   *unit_device_copy(const void *host, size_t bytes);

#define UNIT_CHECK(cond, ...) \
	do { if (!(cond)) unit_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)

/* Suites: each test file defines one or more of these; main.c lists them. */
void		suite_cpu_sum(void);
void		suite_gpu_sum(void);
void		suite_cpu_scan(void);
void		suite_gpu_scan(void);
void		suite_cpu_compact(void);
void		suite_gpu_compact(void);
void		suite_cpu_spmv(void);
void		suite_gpu_spmv(void);
void		suite_sum_state(void);
void		suite_sum_window(void);
void		suite_heap_pages(void);
void		suite_gpu_heap(void);
void		suite_copy_workers(void);
void		suite_placement(void);
void		suite_csr_build(void);
void		suite_gpu_memory(void);

/* the course's suites, built with its kernels (GPUSCAN_COURSE) alone */
void		suite_reduce_progression(void);
void		suite_scan_progression(void);
void		suite_compact_progression(void);
void		suite_spmv_reference(void);

#endif							/* GPUSCAN_UNIT_H */
