/*-------------------------------------------------------------------------
 *
 * csr_check.c
 *	  Checking a CSR matrix from outside (see csr_check.h).  Plain C.
 *
 *-------------------------------------------------------------------------
 */
#include "cpu/csr_check.h"

/* csr_check -- see csr_check.h */
csr_problem
csr_check(const int32_t *row_ptr, int64_t nrp, const int32_t *col_idx,
		  int64_t nnz, int64_t ncols, int64_t *at)
{
	int64_t		i;

	*at = 0;
	if (nrp < 1)
		return CSR_NO_ROW_PTR;
	if (row_ptr[0] != 0)
		return CSR_FIRST_NOT_ZERO;
	for (i = 1; i < nrp; i++)
		if (row_ptr[i] < row_ptr[i - 1])
		{
			*at = i;
			return CSR_DECREASING;
		}
	if ((int64_t) row_ptr[nrp - 1] != nnz)
	{
		*at = nrp - 1;
		return CSR_LAST_NOT_NNZ;
	}
	for (i = 0; i < nnz; i++)
		if (col_idx[i] < 0 || (int64_t) col_idx[i] >= ncols)
		{
			*at = i;
			return CSR_COLUMN_OUT_OF_RANGE;
		}
	return CSR_OK;
}
