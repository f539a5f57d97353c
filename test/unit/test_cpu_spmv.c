/*-------------------------------------------------------------------------
 *
 * test_cpu_spmv.c
 *	  Unit tests of the CPU SpMV and PageRank (src/cpu/cpu_spmv.c).
 *
 * The canonical order is checked against an independent, literal
 * implementation of it: 32 lanes per segment and the full xor butterfly on
 * all lanes, as a warp runs it (rather than the production code's
 * lower-half tree).  Accuracy is checked against exact sums of the rounded
 * products (gs_exact_acc) within the order's error bound, and exactness on
 * integer data.  The transpose against a brute-force one; PageRank against
 * a naive push iteration.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "unit.h"
#include "cpu/cpu_spmv.h"
#include "gpuscan_spmv.h"

void		suite_cpu_spmv(void);

/* literal_row -- the canonical order as common/gpuscan_spmv.h words it */
static double
literal_row(const unit_csr *m, int32_t i, int as_float)
{
	double		row = 0.0;
	int64_t		b = m->row_ptr[i],
				e = m->row_ptr[i + 1];

	for (int64_t s = b; s < e; s += GS_SPMV_SEGMENT)
	{
		double		lane[32];

		for (int l = 0; l < 32; l++)
			lane[l] = 0.0;
		for (int64_t t = 0; s + t < e && t < GS_SPMV_SEGMENT; t++)
		{
			int64_t		k = s + t;
			double		a = m->vals[k],
						x = m->x[m->col_idx[k]];

			if (as_float)
				a = (float) a, x = (float) x;
			lane[t % 32] += a * x;
		}
		for (int o = 16; o > 0; o /= 2)
		{
			double		next[32];

			for (int l = 0; l < 32; l++)
				next[l] = lane[l] + lane[l ^ o];
			memcpy(lane, next, sizeof(lane));
		}
		for (int l = 1; l < 32; l++)
			UNIT_CHECK(unit_double_bits(lane[l]) == unit_double_bits(lane[0]),
					   "butterfly lanes disagree");
		row += lane[0];
	}
	return row;
}

/* check_against_literal -- every row, f64 and f32, bit for bit */
static void
check_against_literal(const unit_csr *m)
{
	double	   *y = malloc(sizeof(double) * (m->nrows + 1));
	float	   *yf = malloc(sizeof(float) * (m->nrows + 1));
	float	   *vf = malloc(sizeof(float) * (m->nnz + 1));
	float	   *xf = malloc(sizeof(float) * (m->ncols + 1));
	int			shown = 0;

	for (int32_t k = 0; k < m->nnz; k++)
		vf[k] = (float) m->vals[k];
	for (int32_t j = 0; j < m->ncols; j++)
		xf[j] = (float) m->x[j];
	/* in two calls, to check the row range */
	cpu_spmv_f64(m->row_ptr, m->col_idx, m->vals, m->x, y, 0, m->nrows / 2);
	cpu_spmv_f64(m->row_ptr, m->col_idx, m->vals, m->x, y, m->nrows / 2, m->nrows);
	cpu_spmv_f32(m->row_ptr, m->col_idx, vf, xf, yf, 0, m->nrows);
	for (int32_t i = 0; i < m->nrows && shown < 5; i++)
	{
		double		want = literal_row(m, i, 0);
		float		wantf = (float) literal_row(m, i, 1);

		if (unit_double_bits(y[i]) != unit_double_bits(want) || memcmp(&yf[i], &wantf, 4) != 0)
		{
			UNIT_CHECK(0, "row %d: %.17g / %.9g, literal order %.17g / %.9g",
					   i, y[i], yf[i], want, wantf);
			shown++;
		}
	}
	free(y);
	free(yf);
	free(vf);
	free(xf);
}

/* check_error_bound -- against the exact sum of the rounded products */
static void
check_error_bound(const unit_csr *m, int integral)
{
	double	   *y = malloc(sizeof(double) * (m->nrows + 1));

	cpu_spmv_f64(m->row_ptr, m->col_idx, m->vals, m->x, y, 0, m->nrows);
	for (int32_t i = 0; i < m->nrows; i++)
	{
		gs_exact_acc acc;
		double		abs_sum = 0.0,
					exact,
					len = m->row_ptr[i + 1] - m->row_ptr[i];
		double		bound;

		gs_acc_zero(&acc);
		for (int32_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++)
		{
			double		p = m->vals[k] * m->x[m->col_idx[k]];

			gs_acc_add(&acc, p);
			abs_sum += fabs(p);
		}
		exact = gs_acc_round(&acc);
		/* per lane len/32 + 1 additions, 5 butterfly, one per segment */
		bound = integral ? 0.0 : (len / 32 + 8 + len / GS_SPMV_SEGMENT) * 0x1p-53 * abs_sum * 1.01;
		UNIT_CHECK(fabs(y[i] - exact) <= bound, "row %d: %.17g, exact %.17g, bound %g",
				   i, y[i], exact, bound);
	}
	free(y);
}

/* check_transpose -- against a brute-force transpose */
static void
check_transpose(const unit_csr *m)
{
	int32_t		n = m->nrows;
	int32_t    *tp = malloc(sizeof(int32_t) * (n + 1));
	int32_t    *ti = malloc(sizeof(int32_t) * (m->nnz + 1));
	int32_t		pos = 0;

	cpu_csr_transpose_pattern(m->row_ptr, m->col_idx, n, tp, ti);
	UNIT_CHECK(tp[0] == 0 && tp[n] == m->nnz, "transpose row_ptr ends %d, %d", tp[0], tp[n]);
	for (int32_t j = 0; j < n; j++)
		for (int32_t i = 0; i < n; i++)
			for (int32_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++)
				if (m->col_idx[k] == j)
				{
					UNIT_CHECK(ti[pos] == i, "transpose entry %d is %d, expected %d", pos, ti[pos], i);
					pos++;
				}
	for (int32_t j = 0; j < n; j++)
		UNIT_CHECK(tp[j] <= tp[j + 1], "transpose row_ptr decreases at %d", j);
	free(tp);
	free(ti);
}

/* naive_pagerank -- push iteration in plain C, a fixed number of steps */
static void
naive_pagerank(const unit_csr *g, double d, int steps, double *r)
{
	int32_t		n = g->nrows;
	double	   *nr = malloc(sizeof(double) * n);

	for (int32_t i = 0; i < n; i++)
		r[i] = 1.0 / n;
	for (int s = 0; s < steps; s++)
	{
		double		dangling = 0.0;

		for (int32_t i = 0; i < n; i++)
			nr[i] = 0.0;
		for (int32_t i = 0; i < n; i++)
		{
			int32_t		deg = g->row_ptr[i + 1] - g->row_ptr[i];

			if (deg == 0)
				dangling += r[i];
			for (int32_t k = g->row_ptr[i]; k < g->row_ptr[i + 1]; k++)
				nr[g->col_idx[k]] += r[i] / deg;
		}
		for (int32_t i = 0; i < n; i++)
			r[i] = (1 - d) / n + d * (nr[i] + dangling / n);
	}
	free(nr);
}

/* check_pagerank -- the CPU iteration against the naive one */
static void
check_pagerank(const unit_csr *g)
{
	int32_t		n = g->nrows;
	int32_t    *ip = malloc(sizeof(int32_t) * (n + 1));
	int32_t    *ii = malloc(sizeof(int32_t) * (g->nnz + 1));
	int32_t    *deg = malloc(sizeof(int32_t) * n);
	double	   *r = malloc(sizeof(double) * n),
			   *next = malloc(sizeof(double) * n),
			   *share = malloc(sizeof(double) * n),
			   *diff = malloc(sizeof(double) * n),
			   *want = malloc(sizeof(double) * n);
	double		residual = 1.0,
				total = 0.0;
	int			it;

	cpu_csr_transpose_pattern(g->row_ptr, g->col_idx, n, ip, ii);
	for (int32_t i = 0; i < n; i++)
	{
		deg[i] = g->row_ptr[i + 1] - g->row_ptr[i];
		r[i] = 1.0 / n;
	}
	for (it = 0; it < 60; it++)
	{
		residual = cpu_pagerank_iteration(ip, ii, deg, n, 0.85, r, next, share, diff);
		memcpy(r, next, sizeof(double) * n);
	}
	naive_pagerank(g, 0.85, 60, want);
	for (int32_t i = 0; i < n; i++)
	{
		UNIT_CHECK(fabs(r[i] - want[i]) <= 1e-13, "rank %d: %.17g, naive %.17g", i, r[i], want[i]);
		total += r[i];
	}
	UNIT_CHECK(fabs(total - 1.0) < 1e-12, "ranks sum to %.17g", total);
	UNIT_CHECK(residual < 1e-3, "residual after 60 iterations %g", residual);
	free(ip);
	free(ii);
	free(deg);
	free(r);
	free(next);
	free(share);
	free(diff);
	free(want);
}

void
suite_cpu_spmv(void)
{
	static const unit_csr_shape shapes[] = {CSR_UNIFORM, CSR_EMPTY_ROWS, CSR_SKEWED, CSR_ONE_HUGE_ROW};
	static const char *const shape_names[] = {"uniform", "empty rows", "skewed", "one huge row"};
	static const int means[] = {1, 5, 31, 33, 200};

	unit_seed(0x5b3f00d);
	for (int s = 0; s < 4; s++)
		for (int mi = 0; mi < 5; mi++)
		{
			unit_csr	m;

			unit_random_csr(&m, shapes[s], 300, 1000, means[mi], 0);
			unit_case("cpu spmv: canonical order, %s, mean %d", shape_names[s], means[mi]);
			check_against_literal(&m);
			unit_case("cpu spmv: error bound, %s, mean %d", shape_names[s], means[mi]);
			check_error_bound(&m, 0);
			unit_free_csr(&m);

			unit_random_csr(&m, shapes[s], 300, 1000, means[mi], 1);
			unit_case("cpu spmv: integers exact, %s, mean %d", shape_names[s], means[mi]);
			check_error_bound(&m, 1);
			unit_free_csr(&m);
		}

	{
		unit_csr	m;

		unit_random_csr(&m, CSR_UNIFORM, 0, 1, 3, 0);
		unit_case("cpu spmv: no rows");
		check_against_literal(&m);
		unit_free_csr(&m);
	}

	for (int mi = 0; mi < 3; mi++)
	{
		unit_csr	g;

		unit_random_csr(&g, mi == 1 ? CSR_EMPTY_ROWS : CSR_UNIFORM, 150, 150, means[mi], 0);
		unit_case("cpu transpose, mean %d", means[mi]);
		check_transpose(&g);
		unit_case("cpu pagerank against a naive iteration, mean %d", means[mi]);
		check_pagerank(&g);
		unit_free_csr(&g);
	}
}
