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

#include "gpuscan_device.h"

/*
 * A validated CSR matrix from SQL arrays: 0-based row_ptr (nrows + 1
 * entries from 0, never decreasing, the last = nnz) and col_idx (nnz
 * entries, each in [0, ncols)).  The pointers point into the arrays.
 */
typedef struct GsCsr
{
	int32		nrows;
	int32		nnz;
	const int32 *row_ptr;
	const int32 *col_idx;
} GsCsr;

/*
 * Check row_ptr and col_idx of `fn` (one dimension, no NULLs, the CSR
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
