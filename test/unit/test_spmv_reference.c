/*-------------------------------------------------------------------------
 *
 * test_spmv_reference.c
 *	  The course's SpMV reference (kernels/course/spmv_reference.cu)
 *	  against the CPU's SpMV: every row within the reference's error bound,
 *	  double and real, on the matrices of test_gpu_spmv.c (the same seed,
 *	  shapes, means and row counts, and a matrix without rows).  Built with
 *	  the course's kernels (CUDA) only; runs only where a GPU is usable.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "unit.h"
#include "cpu/cpu_spmv.h"
#include "gpuscan_device.h"
#include "gpuscan_course.h"

#define GPU_OK(call) \
	do { gsd_status st_ = (call); \
		 UNIT_CHECK(st_ == GSD_OK, "%s: %s", #call, gsd_last_error()); \
		 if (st_ != GSD_OK) goto done; } while (0)

/*
 * check_reference -- the reference kernel's y, double and real, within
 * (row length + 64) units of roundoff of each row's absolute sum of the
 * CPU's double result
 */
static void
check_reference(const unit_csr *m)
{
	size_t		nr = (size_t) m->nrows,
				nz = (size_t) m->nnz,
				nc = (size_t) m->ncols;
	float	   *vf = malloc(sizeof(float) * (nz + 1)),
			   *xf = malloc(sizeof(float) * (nc + 1)),
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
			   *d_ref = NULL;
	int			shown = 0;

	for (size_t k = 0; k < nz; k++)
		vf[k] = (float) m->vals[k];
	for (size_t j = 0; j < nc; j++)
		xf[j] = (float) m->x[j];
	cpu_spmv_f64(m->row_ptr, m->col_idx, m->vals, m->x, y, 0, m->nrows);

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

	for (int is_double = 0; is_double <= 1; is_double++)
	{
		double		u = is_double ? 0x1p-53 : 0x1p-24;

		GPU_OK(gsd_alloc(gsd_spmv_reference_scratch_bytes(m->nnz, is_double), &d_ref));
		GPU_OK(gsd_spmv_reference(is_double, d_rp, m->nrows, d_ci, is_double ? d_v : d_vf,
								  is_double ? d_x : d_xf, d_y, d_ref));
		if (is_double)
			GPU_OK(gsd_download(g, d_y, sizeof(double) * nr));
		else
			GPU_OK(gsd_download(gf, d_y, sizeof(float) * nr));
		gsd_free(d_ref);
		d_ref = NULL;
		for (size_t i = 0; i < nr && shown < 5; i++)
		{
			double		abs_sum = 0.0,
						got = is_double ? g[i] : gf[i];
			int32_t		len = m->row_ptr[i + 1] - m->row_ptr[i];

			for (int32_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++)
				abs_sum += fabs(m->vals[k] * m->x[m->col_idx[k]]);
			if (!(fabs(got - y[i]) <= (len + 64) * u * abs_sum * 1.01 + 1e-300))
			{
				UNIT_CHECK(0, "reference %s row %zu (length %d): %.17g, cpu %.17g",
						   is_double ? "double" : "real", i, len, got, y[i]);
				shown++;
			}
		}
	}

done:
	gsd_free(d_ref);
	gsd_free(d_y);
	gsd_free(d_xf);
	gsd_free(d_vf);
	gsd_free(d_x);
	gsd_free(d_v);
	gsd_free(d_ci);
	gsd_free(d_rp);
	free(vf);
	free(xf);
	free(gf);
	free(y);
	free(g);
}

void
suite_spmv_reference(void)
{
	unit_seed(0x6b3f00d);
	unit_csr_sweep("course spmv reference", "within its bound", check_reference);
}
