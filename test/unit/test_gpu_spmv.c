/*-------------------------------------------------------------------------
 *
 * test_gpu_spmv.c
 *	  Unit tests of the device SpMV, transpose and PageRank (kernels/spmv.cu,
 *	  kernels/csr_transpose.cu) against the CPU code.
 *
 * The production kernel must give the CPU's bits on every row, for double
 * and real, on awkward matrices: empty rows, one row of several segments,
 * skewed lengths, row counts around block sizes, and means that pick every
 * group width G (1 .. 32).  The device transpose must give the CPU's
 * arrays, and a device PageRank iteration the CPU's ranks and residual bit
 * for bit.  Runs only where a GPU is usable.  The course's reference
 * kernel is test_spmv_reference.c's.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "unit.h"
#include "cpu/cpu_spmv.h"
#include "gpuscan_device.h"
#include "gpuscan_spmv.h"

void		suite_gpu_spmv(void);

#define GPU_OK(call) \
	do { gsd_status st_ = (call); \
		 UNIT_CHECK(st_ == GSD_OK, "%s: %s", #call, gsd_last_error()); \
		 if (st_ != GSD_OK) goto done; } while (0)

/* device_plan -- analyze and build the plan of a device row_ptr */
static gsd_status
device_plan(gsd_spmv_plan *plan, const int32_t *d_rp, int32_t nrows, int32_t nnz, void **d_mem)
{
	void	   *d_scratch = NULL;
	gsd_status	st;

	*d_mem = NULL;
	if ((st = gsd_alloc(gsd_spmv_plan_scratch_bytes(nrows), &d_scratch)) != GSD_OK)
		return st;
	if ((st = gsd_spmv_plan_analyze(plan, d_rp, nrows, nnz, d_scratch)) == GSD_OK &&
		(st = gsd_alloc(gsd_spmv_plan_bytes(plan), d_mem)) == GSD_OK)
		st = gsd_spmv_plan_build(plan, d_rp, d_scratch, *d_mem);
	gsd_free(d_scratch);
	return st;
}

/* check_matrix -- production bits, double and real */
static void
check_matrix(const unit_csr *m)
{
	size_t		nr = (size_t) m->nrows,
				nz = (size_t) m->nnz,
				nc = (size_t) m->ncols;
	float	   *vf = malloc(sizeof(float) * (nz + 1)),
			   *xf = malloc(sizeof(float) * (nc + 1)),
			   *yf = malloc(sizeof(float) * (nr + 1)),
			   *gf = malloc(sizeof(float) * (nr + 1));
	double	   *y = malloc(sizeof(double) * (nr + 1)),
			   *g = malloc(sizeof(double) * (nr + 1));
	int32_t    *d_rp = NULL,
			   *d_ci = NULL;
	void	   *d_v = NULL,
			   *d_x = NULL,
			   *d_vf = NULL,
			   *d_xf = NULL,
			   *d_y = NULL,
			   *d_plan = NULL;
	gsd_spmv_plan plan;
	int			shown = 0;

	for (size_t k = 0; k < nz; k++)
		vf[k] = (float) m->vals[k];
	for (size_t j = 0; j < nc; j++)
		xf[j] = (float) m->x[j];
	cpu_spmv_f64(m->row_ptr, m->col_idx, m->vals, m->x, y, 0, m->nrows);
	cpu_spmv_f32(m->row_ptr, m->col_idx, vf, xf, yf, 0, m->nrows);

	d_rp = unit_device_copy(m->row_ptr, sizeof(int32_t) * (nr + 1));
	d_ci = unit_device_copy(m->col_idx, sizeof(int32_t) * nz);
	d_v = unit_device_copy(m->vals, sizeof(double) * nz);
	d_x = unit_device_copy(m->x, sizeof(double) * nc);
	d_vf = unit_device_copy(vf, sizeof(float) * nz);
	d_xf = unit_device_copy(xf, sizeof(float) * nc);
	UNIT_CHECK(d_rp && d_ci && d_v && d_x && d_vf && d_xf, "upload: %s", gsd_last_error());
	if (!(d_rp && d_ci && d_v && d_x && d_vf && d_xf))
		goto done;
	GPU_OK(gsd_alloc(sizeof(double) * (nr + 1), &d_y));
	GPU_OK(device_plan(&plan, d_rp, m->nrows, m->nnz, &d_plan));

	/*
	 * production, double and real, with the plan's choices and then with
	 * the rows read directly, staged 37 rows a block (not a whole number of
	 * passes of the block's groups), 256 and as many as a block takes
	 * (where they do not fit, the block reads directly): the same bits
	 * every time.  Poison first so that
	 * unwritten rows show.
	 */
	for (int v = 0; v < 5 && shown < 10; v++)
	{
		gsd_spmv_plan p = plan;
		static const char *const how[] = {"the plan's", "direct", "staged", "staged", "staged"};
		static const int32_t rows[] = {0, 0, 37, 256, 1024};

		p.stage_rows = v == 0 ? plan.stage_rows : rows[v];
		for (size_t i = 0; i < nr; i++)
			g[i] = NAN;
		GPU_OK(gsd_upload(d_y, g, sizeof(double) * nr));
		GPU_OK(gsd_spmv_f64(&p, d_rp, d_ci, d_v, d_x, d_y));
		GPU_OK(gsd_download(g, d_y, sizeof(double) * nr));
		for (size_t i = 0; i < nr && shown < 5; i++)
			if (unit_double_bits(g[i]) != unit_double_bits(y[i]))
			{
				UNIT_CHECK(0, "double row %zu (length %d, G %d, %s rows %d): gpu %.17g, cpu %.17g",
						   i, m->row_ptr[i + 1] - m->row_ptr[i], p.group_lanes, how[v],
						   p.stage_rows, g[i], y[i]);
				shown++;
			}

		for (size_t i = 0; i < nr; i++)
			gf[i] = NAN;
		GPU_OK(gsd_upload(d_y, gf, sizeof(float) * nr));
		GPU_OK(gsd_spmv_f32(&p, d_rp, d_ci, d_vf, d_xf, d_y));
		GPU_OK(gsd_download(gf, d_y, sizeof(float) * nr));
		for (size_t i = 0; i < nr && shown < 10; i++)
			if (memcmp(&gf[i], &yf[i], sizeof(float)) != 0)
			{
				UNIT_CHECK(0, "real row %zu (%s rows %d): gpu %.9g, cpu %.9g", i, how[v],
						   p.stage_rows, gf[i], yf[i]);
				shown++;
			}
	}

done:
	gsd_free(d_plan);
	gsd_free(d_y);
	gsd_free(d_xf);
	gsd_free(d_vf);
	gsd_free(d_x);
	gsd_free(d_v);
	gsd_free(d_ci);
	gsd_free(d_rp);
	free(vf);
	free(xf);
	free(yf);
	free(gf);
	free(y);
	free(g);
}

/* check_transpose -- the device transpose of a square pattern against the CPU's, entry by entry */
static void
check_transpose(const unit_csr *m)
{
	int32_t		n = m->nrows;
	int32_t    *tp = malloc(sizeof(int32_t) * (n + 1)),
			   *ti = malloc(sizeof(int32_t) * (m->nnz + 1)),
			   *gp = malloc(sizeof(int32_t) * (n + 1)),
			   *gi = malloc(sizeof(int32_t) * (m->nnz + 1));
	int32_t    *d_rp = NULL,
			   *d_ci = NULL,
			   *d_tp = NULL,
			   *d_ti = NULL;
	void	   *d_scratch = NULL;
	int			shown = 0;

	cpu_csr_transpose_pattern(m->row_ptr, m->col_idx, n, tp, ti);
	d_rp = unit_device_copy(m->row_ptr, sizeof(int32_t) * (n + 1));
	d_ci = unit_device_copy(m->col_idx, sizeof(int32_t) * m->nnz);
	UNIT_CHECK(d_rp != NULL && d_ci != NULL, "device copies: %s", gsd_last_error());
	if (d_rp == NULL || d_ci == NULL)
		goto done;
	GPU_OK(gsd_alloc(sizeof(int32_t) * (n + 1), (void **) &d_tp));
	GPU_OK(gsd_alloc(sizeof(int32_t) * m->nnz, (void **) &d_ti));
	GPU_OK(gsd_alloc(gsd_csr_transpose_scratch_bytes(n, m->nnz), &d_scratch));
	GPU_OK(gsd_csr_transpose_pattern(d_rp, d_ci, n, n, m->nnz, d_tp, d_ti, d_scratch));
	GPU_OK(gsd_download(gp, d_tp, sizeof(int32_t) * (n + 1)));
	GPU_OK(gsd_download(gi, d_ti, sizeof(int32_t) * m->nnz));
	for (int32_t j = 0; j <= n && shown < 5; j++)
		if (gp[j] != tp[j])
		{
			UNIT_CHECK(0, "t_row_ptr[%d]: gpu %d, cpu %d", j, gp[j], tp[j]);
			shown++;
		}
	for (int32_t k = 0; k < m->nnz && shown < 5; k++)
		if (gi[k] != ti[k])
		{
			UNIT_CHECK(0, "t_col_idx[%d]: gpu %d, cpu %d", k, gi[k], ti[k]);
			shown++;
		}
done:
	gsd_free(d_scratch);
	gsd_free(d_ti);
	gsd_free(d_tp);
	gsd_free(d_ci);
	gsd_free(d_rp);
	free(tp);
	free(ti);
	free(gp);
	free(gi);
}

/* check_pagerank -- 25 device iterations against 25 CPU ones, bit for bit */
static void
check_pagerank(const unit_csr *gr)
{
	int32_t		n = gr->nrows;
	int32_t    *ip = malloc(sizeof(int32_t) * (n + 1)),
			   *ii = malloc(sizeof(int32_t) * (gr->nnz + 1)),
			   *deg = malloc(sizeof(int32_t) * n);
	double	   *r = malloc(sizeof(double) * n),
			   *next = malloc(sizeof(double) * n),
			   *share = malloc(sizeof(double) * n),
			   *diff = malloc(sizeof(double) * n),
			   *gpu = malloc(sizeof(double) * n);
	int32_t    *d_ip = NULL,
			   *d_ii = NULL,
			   *d_deg = NULL;
	double	   *d_r[2] = {NULL, NULL};
	void	   *d_plan = NULL,
			   *d_work = NULL;
	gsd_spmv_plan plan;
	int			cur = 0;

	cpu_csr_transpose_pattern(gr->row_ptr, gr->col_idx, n, ip, ii);
	for (int32_t i = 0; i < n; i++)
	{
		deg[i] = gr->row_ptr[i + 1] - gr->row_ptr[i];
		r[i] = 1.0 / n;
	}
	d_ip = unit_device_copy(ip, sizeof(int32_t) * (n + 1));
	d_ii = unit_device_copy(ii, sizeof(int32_t) * gr->nnz);
	d_deg = unit_device_copy(deg, sizeof(int32_t) * n);
	d_r[0] = unit_device_copy(r, sizeof(double) * n);
	GPU_OK(gsd_alloc(sizeof(double) * n, (void **) &d_r[1]));
	GPU_OK(gsd_alloc(gsd_pagerank_work_bytes(n), &d_work));
	GPU_OK(device_plan(&plan, d_ip, n, gr->nnz, &d_plan));
	for (int it = 0; it < 25; it++)
	{
		double		cpu_res = cpu_pagerank_iteration(ip, ii, deg, n, 0.85, r, next, share, diff);
		double		gpu_res;

		memcpy(r, next, sizeof(double) * n);
		GPU_OK(gsd_pagerank_iteration(&plan, d_ip, d_ii, d_deg, 0.85, d_r[cur], d_r[1 - cur],
									  d_work, &gpu_res));
		cur = 1 - cur;
		UNIT_CHECK(unit_double_bits(cpu_res) == unit_double_bits(gpu_res),
				   "iteration %d: residual gpu %.17g, cpu %.17g", it + 1, gpu_res, cpu_res);
	}
	GPU_OK(gsd_download(gpu, d_r[cur], sizeof(double) * n));
	for (int32_t i = 0, shown = 0; i < n && shown < 5; i++)
		if (unit_double_bits(gpu[i]) != unit_double_bits(r[i]))
		{
			UNIT_CHECK(0, "rank %d: gpu %.17g, cpu %.17g", i, gpu[i], r[i]);
			shown++;
		}
done:
	gsd_free(d_plan);
	gsd_free(d_work);
	gsd_free(d_r[0]);
	gsd_free(d_r[1]);
	gsd_free(d_deg);
	gsd_free(d_ii);
	gsd_free(d_ip);
	free(ip);
	free(ii);
	free(deg);
	free(r);
	free(next);
	free(share);
	free(diff);
	free(gpu);
}

void
suite_gpu_spmv(void)
{
	unit_seed(0x6b3f00d);
	unit_csr_sweep("gpu spmv", "bits of the cpu", check_matrix);
	for (int s = 0; s < UNIT_CSR_SHAPES; s++)
		for (int mi = 0; mi < UNIT_CSR_MEANS; mi += 2)
			for (int ri = 0; ri < UNIT_CSR_ROWS; ri += 3)
			{
				unit_csr	g;

				unit_random_csr(&g, unit_csr_shapes[s], unit_csr_rows[ri], unit_csr_rows[ri],
								unit_csr_means[mi], 0);
				unit_case("gpu transpose: %s, mean %d, %d nodes, the cpu's arrays",
						  unit_csr_shape_names[s], unit_csr_means[mi], unit_csr_rows[ri]);
				check_transpose(&g);
				unit_free_csr(&g);
			}
	{
		int32_t		rp[101] = {0};
		unit_csr	g = {100, 100, 0, rp, NULL, NULL, NULL};

		unit_case("gpu transpose: 100 nodes, no edges");
		check_transpose(&g);
	}
	for (int mi = 0; mi < 4; mi++)
	{
		unit_csr	g;

		unit_random_csr(&g, mi == 3 ? CSR_SKEWED : (mi == 1 ? CSR_EMPTY_ROWS : CSR_UNIFORM),
						3000, 3000, unit_csr_means[mi + 1], 0);
		unit_case("gpu pagerank: bits of the cpu, mean %d", unit_csr_means[mi + 1]);
		check_pagerank(&g);
		unit_free_csr(&g);
	}
}
