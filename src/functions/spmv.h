/*-------------------------------------------------------------------------
 *
 * spmv.h
 *	  CSR matrices from SQL arrays, checked, and on the device (spmv.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SPMV_H
#define GPUSCAN_SPMV_H

#include "postgres.h"

#include "utils/array.h"

#include "cpu/csr_check.h"
#include "gpuscan_device.h"


/*
 * Check row_ptr and col_idx of `fn` (a GsCsr, csr_check.h) (one dimension, no NULLs, the CSR
 * rules above, every column index below ncols) and describe them in *csr;
 * ERROR naming the first problem and its position.
 */
extern void gs_csr_open(GsCsr *csr, ArrayType *row_ptr, ArrayType *col_idx,
						int64 ncols, const char *fn);

/* A CSR pattern on the device with its SpMV plan (device memory tracked). */
typedef struct GsDeviceCsr
{
	int32	   *d_row_ptr;
	int32	   *d_col_idx;
	void	   *d_plan_memory;
	gsd_spmv_plan plan;
} GsDeviceCsr;

/* Upload row_ptr and col_idx and make the plan; returns the bytes moved. */
extern int64 gs_csr_upload(GsDeviceCsr *dev, const GsCsr *csr, const char *fn);

/*
 * Upload the pattern of a square matrix, keep its transpose (made on the
 * device, the arrays of cpu_csr_transpose_pattern) and plan it; returns
 * the bytes moved.
 */
extern int64 gs_csr_upload_transposed(GsDeviceCsr *dev, const GsCsr *csr, const char *fn);

/* Free what gs_csr_upload or gs_csr_upload_transposed allocated. */
extern void gs_csr_device_free(GsDeviceCsr *dev);

#endif							/* GPUSCAN_SPMV_H */
