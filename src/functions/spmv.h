/*-------------------------------------------------------------------------
 *
 * spmv.h
 *	  CSR matrices from SQL arrays, checked (spmv.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SPMV_H
#define GPUSCAN_SPMV_H

#include "postgres.h"

#include "utils/array.h"

#include "cpu/csr_check.h"

/*
 * Check row_ptr and col_idx of `fn` (one dimension, no NULLs, the CSR
 * rules of csr_check.h, every column index below ncols) and describe them
 * in *csr, a GsCsr; ERROR naming the first problem and its position.
 */
extern void gs_csr_open(GsCsr *csr, ArrayType *row_ptr, ArrayType *col_idx,
						int64 ncols, const char *fn);

#endif							/* GPUSCAN_SPMV_H */
