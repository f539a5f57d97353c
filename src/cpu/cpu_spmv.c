/*-------------------------------------------------------------------------
 *
 * cpu_spmv.c
 *	  CPU sparse matrix x vector and PageRank in the canonical order of
 *	  common/gpuscan_spmv.h, bit for bit what kernels/spmv.cu computes.
 *
 * This file must be compiled without floating-point contraction (the
 * Makefile adds -ffp-contract=off; the pragma below says the same to GCC):
 * a fused multiply-add would round a * x + p once where the order rounds
 * twice, and the GPU would disagree.
 *
 *-------------------------------------------------------------------------
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize ("fp-contract=off")
#endif

#include <math.h>
#include <string.h>

#include "cpu/cpu_spmv.h"
#include "cpu/cpu_sum.h"
#include "gpuscan_exact.h"
#include "gpuscan_spmv.h"

/* what the stored values and x are */
typedef enum spmv_kind
{
	SPMV_F64,
	SPMV_F32,
	SPMV_PATTERN				/* every value 1, x double */
} spmv_kind;

/* product -- the k-th product of the order, rounded to double */
static inline double
product(spmv_kind kind, const void *vals, const void *x, int32_t col, int64_t k)
{
	switch (kind)
	{
		case SPMV_F64:
			return GS_DMUL(((const double *) vals)[k], ((const double *) x)[col]);
		case SPMV_F32:
			/* exact: 24 x 24 bits fit in 53 */
			return (double) ((const float *) vals)[k] * (double) ((const float *) x)[col];
		case SPMV_PATTERN:
		default:
			return ((const double *) x)[col];
	}
}

/*
 * row_sum -- the canonical sum of the products [begin, end): segments of
 * GS_SPMV_SEGMENT, 32 partial sums per segment combined by the butterfly,
 * segment sums added in order from +0.
 */
static inline double
row_sum(spmv_kind kind, const int32_t *col_idx, const void *vals, const void *x,
		int64_t begin, int64_t end)
{
	double		row = 0.0;
	int64_t		seg;

	for (seg = begin; seg < end; seg += GS_SPMV_SEGMENT)
	{
		int64_t		seg_end = end - seg < GS_SPMV_SEGMENT ? end : seg + GS_SPMV_SEGMENT;
		double		p[GS_SPMV_LANES];
		int64_t		k;
		int			l;

		for (l = 0; l < GS_SPMV_LANES; l++)
			p[l] = 0.0;
		for (k = seg; k < seg_end; k++)
		{
			int			lane = (int) ((k - seg) & (GS_SPMV_LANES - 1));

			p[lane] = GS_DADD(p[lane], product(kind, vals, x, col_idx[k], k));
		}
		row = GS_DADD(row, gs_spmv_butterfly(p));
	}
	return row;
}

/* cpu_spmv_f64 -- y = A x over rows [row_begin, row_end), doubles */
void
cpu_spmv_f64(const int32_t *row_ptr, const int32_t *col_idx, const double *vals,
			 const double *x, double *y, int64_t row_begin, int64_t row_end)
{
	int64_t		i;

	for (i = row_begin; i < row_end; i++)
		y[i] = row_sum(SPMV_F64, col_idx, vals, x, row_ptr[i], row_ptr[i + 1]);
}

/* cpu_spmv_f32 -- the same for real: summed in double, rounded to real once */
void
cpu_spmv_f32(const int32_t *row_ptr, const int32_t *col_idx, const float *vals,
			 const float *x, float *y, int64_t row_begin, int64_t row_end)
{
	int64_t		i;

	for (i = row_begin; i < row_end; i++)
		y[i] = (float) row_sum(SPMV_F32, col_idx, vals, x, row_ptr[i], row_ptr[i + 1]);
}

/* cpu_spmv_pattern_f64 -- y = A x with every stored value 1 */
void
cpu_spmv_pattern_f64(const int32_t *row_ptr, const int32_t *col_idx, const double *x,
					 double *y, int64_t row_begin, int64_t row_end)
{
	int64_t		i;

	for (i = row_begin; i < row_end; i++)
		y[i] = row_sum(SPMV_PATTERN, col_idx, NULL, x, row_ptr[i], row_ptr[i + 1]);
}

/* cpu_csr_transpose_pattern -- the square case of cpu_csr_transpose_pattern_mn */
void
cpu_csr_transpose_pattern(const int32_t *row_ptr, const int32_t *col_idx, int32_t n,
						  int32_t *t_row_ptr, int32_t *t_col_idx)
{
	cpu_csr_transpose_pattern_mn(row_ptr, col_idx, n, n, t_row_ptr, t_col_idx);
}

/* cpu_csr_transpose_pattern_mn -- stable counting sort by column */
void
cpu_csr_transpose_pattern_mn(const int32_t *row_ptr, const int32_t *col_idx, int32_t nrows,
							 int32_t ncols, int32_t *t_row_ptr, int32_t *t_col_idx)
{
	int32_t		nnz = row_ptr[nrows];
	int32_t		i,
				k;

	memset(t_row_ptr, 0, sizeof(int32_t) * ((size_t) ncols + 1));
	for (k = 0; k < nnz; k++)
		t_row_ptr[col_idx[k] + 1]++;
	for (i = 0; i < ncols; i++)
		t_row_ptr[i + 1] += t_row_ptr[i];
	/* t_row_ptr[j] is the next free slot of row j while filling: shift after */
	for (i = 0; i < nrows; i++)
		for (k = row_ptr[i]; k < row_ptr[i + 1]; k++)
			t_col_idx[t_row_ptr[col_idx[k]]++] = i;
	for (i = ncols; i > 0; i--)
		t_row_ptr[i] = t_row_ptr[i - 1];
	t_row_ptr[0] = 0;
}

/* exact_sum -- the exact sum of x[0..n), rounded once */
static double
exact_sum(const double *x, size_t n)
{
	gs_exact_acc acc;

	gs_acc_zero(&acc);
	cpu_sum_exact_f64(x, n, &acc);
	return gs_acc_round(&acc);
}

/* cpu_pagerank_iteration -- see cpu_spmv.h and common/gpuscan_spmv.h */
double
cpu_pagerank_iteration(const int32_t *in_ptr, const int32_t *in_idx, const int32_t *outdeg,
					   int32_t n, double damping, const double *rank, double *next,
					   double *share, double *diff)
{
	double		teleport = (1.0 - damping) / (double) n;
	double		spread;
	int32_t		i;

	for (i = 0; i < n; i++)
	{
		share[i] = gs_pagerank_share(rank[i], outdeg[i]);
		diff[i] = outdeg[i] == 0 ? rank[i] : 0.0;
	}
	spread = exact_sum(diff, (size_t) n) / (double) n;
	cpu_spmv_pattern_f64(in_ptr, in_idx, share, next, 0, n);
	for (i = 0; i < n; i++)
	{
		next[i] = gs_pagerank_rank(next[i], spread, damping, teleport);
		diff[i] = fabs(next[i] - rank[i]);
	}
	return exact_sum(diff, (size_t) n);
}
