/*-------------------------------------------------------------------------
 *
 * cpu_spmv.h
 *	  CPU sparse matrix x vector (CSR) and PageRank, in the canonical
 *	  summation order of common/gpuscan_spmv.h (plain C, no PostgreSQL
 *	  headers).
 *
 * CSR with 0-based row_ptr (nrows + 1 entries) and col_idx, as in cuSPARSE
 * and SciPy.  The callers validate the matrix first: every function here
 * trusts row_ptr to start at 0 and never decrease, and every column index
 * to lie within x.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CPU_SPMV_H
#define GPUSCAN_CPU_SPMV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * y[0..nrows) = A x for the rows [row_begin, row_end) only, so that a
 * caller can work in chunks with interrupt checks between them.  Each y[i]
 * is the row's sum in the canonical order; for real, computed in double
 * and rounded to real once.
 */
void		cpu_spmv_f64(const int32_t *row_ptr, const int32_t *col_idx,
						 const double *vals, const double *x, double *y,
						 int64_t row_begin, int64_t row_end);
void		cpu_spmv_f32(const int32_t *row_ptr, const int32_t *col_idx,
						 const float *vals, const float *x, float *y,
						 int64_t row_begin, int64_t row_end);

/* The same with every stored value 1: y[i] = sum of x[col] over row i. */
void		cpu_spmv_pattern_f64(const int32_t *row_ptr, const int32_t *col_idx,
								 const double *x, double *y,
								 int64_t row_begin, int64_t row_end);

/*
 * The transpose of the pattern of an n x n CSR matrix with nnz entries:
 * t_row_ptr (n + 1) and t_col_idx (nnz).  A stable counting sort, so the
 * entries of each row of the transpose (the in-links of a node) come in
 * increasing order of their source row.
 */
void		cpu_csr_transpose_pattern(const int32_t *row_ptr, const int32_t *col_idx,
									  int32_t n, int32_t *t_row_ptr, int32_t *t_col_idx);

/*
 * The same for an nrows x ncols pattern (columns in [0, ncols)): t_row_ptr
 * has ncols + 1 entries, t_col_idx nnz.
 */
void		cpu_csr_transpose_pattern_mn(const int32_t *row_ptr, const int32_t *col_idx,
										 int32_t nrows, int32_t ncols,
										 int32_t *t_row_ptr, int32_t *t_col_idx);

/*
 * One PageRank power iteration (the formulas of common/gpuscan_spmv.h):
 * next from rank over the in-link CSR (in_ptr, in_idx) with the out-degrees
 * outdeg; share and diff are work arrays of n doubles.  Returns the L1
 * residual sum |next - rank|, exactly summed and rounded once.
 */
double		cpu_pagerank_iteration(const int32_t *in_ptr, const int32_t *in_idx,
								   const int32_t *outdeg, int32_t n, double damping,
								   const double *rank, double *next,
								   double *share, double *diff);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_CPU_SPMV_H */
