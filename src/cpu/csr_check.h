/*-------------------------------------------------------------------------
 *
 * csr_check.h
 *	  Checking a CSR matrix from outside before anything indexes with it
 *	  (plain C, no PostgreSQL headers, so that the fuzzing harnesses link
 *	  it).
 *
 * The rules (0-based, as in cuSPARSE and SciPy): row_ptr has nrows + 1 >= 1
 * entries, starts at 0, never decreases and ends at nnz, the length of
 * col_idx; every column index lies in [0, ncols).  A matrix that passes may
 * be handed to every function of cpu_spmv.h and to the device.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CSR_CHECK_H
#define GPUSCAN_CSR_CHECK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * A validated CSR matrix: 0-based row_ptr (nrows + 1 entries from 0,
 * never decreasing, the last = nnz) and col_idx (nnz entries, each in
 * [0, ncols)).  The pointers point into the arrays it was checked in
 * (functions/spmv.h's gs_csr_open, from SQL arrays).
 */
typedef struct GsCsr
{
	int32_t		nrows;
	int32_t		nnz;
	const int32_t *row_ptr;
	const int32_t *col_idx;
} GsCsr;

/* The first rule a matrix breaks */
typedef enum csr_problem
{
	CSR_OK = 0,
	CSR_NO_ROW_PTR,				/* row_ptr has no entries */
	CSR_FIRST_NOT_ZERO,			/* row_ptr[0] is not 0 */
	CSR_DECREASING,				/* row_ptr[at] < row_ptr[at - 1] */
	CSR_LAST_NOT_NNZ,			/* row_ptr's last entry is not nnz */
	CSR_COLUMN_OUT_OF_RANGE		/* col_idx[at] is outside [0, ncols) */
} csr_problem;

/*
 * Check row_ptr (nrp entries) and col_idx (nnz entries) against the rules
 * above; on a problem, *at is the 0-based position of the offending entry
 * (of row_ptr, or of col_idx for CSR_COLUMN_OUT_OF_RANGE).  Reads only
 * row_ptr[0 .. nrp) and col_idx[0 .. nnz).
 */
csr_problem csr_check(const int32_t *row_ptr, int64_t nrp, const int32_t *col_idx,
					  int64_t nnz, int64_t ncols, int64_t *at);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_CSR_CHECK_H */
