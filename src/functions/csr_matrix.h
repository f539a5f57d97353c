/*-------------------------------------------------------------------------
 *
 * csr_matrix.h
 *	  The gpu_csr composite type (nrows, ncols, row_ptr, col_idx, vals),
 *	  as gpu_csr_agg builds it (csr_agg.c), for the functions that take one.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CSR_MATRIX_H
#define GPUSCAN_CSR_MATRIX_H

#include "postgres.h"

#include "access/htup_details.h"

/* the fields of a gpu_csr value; the arrays as they are (checked by their users) */
typedef struct GsCsrMatrix
{
	int32		nrows;
	int32		ncols;
	Datum		row_ptr;		/* integer[] */
	Datum		col_idx;		/* integer[] */
	Datum		vals;			/* double precision[] */
} GsCsrMatrix;

/*
 * The fields of a gpu_csr value; ERROR (naming `caller`) on a NULL field
 * or a negative size.
 */
extern void gs_csr_matrix_fields(HeapTupleHeader matrix, GsCsrMatrix *m, const char *caller);

/*
 * ERROR (naming `caller`) unless row_ptr has nrows + 1 entries and x, of
 * x_length elements, has ncols.  The CSR itself is checked by gs_csr_open
 * where the arrays are used.
 */
extern void gs_csr_matrix_check(const GsCsrMatrix *m, int64 x_length, const char *caller);

#endif							/* GPUSCAN_CSR_MATRIX_H */
