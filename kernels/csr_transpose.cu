/*-------------------------------------------------------------------------
 *
 * csr_transpose.cu
 *	  The pattern of A^T from the pattern of A, on the device: PageRank
 *	  pulls ranks along in-links, so it iterates over the transpose of the
 *	  graph it is given.
 *
 * The result is the one of cpu_csr_transpose_pattern() (src/cpu/cpu_spmv.c),
 * index for index: row j of A^T lists the rows i of A with an entry in
 * column j, in increasing i, each as often as it occurs.  So the SpMV over
 * it adds in the same order, and PageRank gives the same bits, on either
 * side.  Three steps:
 *
 *	 1. every non-zero k finds its row i (a binary search in row_ptr, so
 *		that one long row costs no more than many short ones);
 *	 2. cub::DeviceRadixSort::SortPairs sorts the (column, row) pairs by
 *		column.  It is stable, and the pairs come in row order, so the rows
 *		of each column stay increasing;
 *	 3. t_row_ptr[j] is the first sorted position whose column is j or more
 *		(a binary search in the sorted columns).
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>

#include <cub/device/device_radix_sort.cuh>

#include "device_internal.cuh"

#define TRANSPOSE_BLOCK		256

/* csr_row_of_nonzero -- rows[k] = the row i with row_ptr[i] <= k < row_ptr[i + 1] */
__global__ void __launch_bounds__(TRANSPOSE_BLOCK)
csr_row_of_nonzero(const int32_t *__restrict__ row_ptr, int32_t nrows, int32_t nnz,
				   uint32_t *__restrict__ rows)
{
	const int64_t k = (int64_t) blockIdx.x * TRANSPOSE_BLOCK + threadIdx.x;
	int32_t		lo = 0,
				hi = nrows - 1;

	if (k >= nnz)
		return;
	/* the last row starting at or before k: row_ptr[0] = 0 <= k < row_ptr[nrows] */
	while (lo < hi)
	{
		int32_t		mid = lo + (hi - lo + 1) / 2;

		if (__ldg(row_ptr + mid) <= k)
			lo = mid;
		else
			hi = mid - 1;
	}
	rows[k] = (uint32_t) lo;
}

/* csr_column_starts -- t_row_ptr[j] = the first position whose sorted column is >= j */
__global__ void __launch_bounds__(TRANSPOSE_BLOCK)
csr_column_starts(const uint32_t *__restrict__ sorted_cols, int32_t nnz, int32_t ncols,
				  int32_t *__restrict__ t_row_ptr)
{
	const int64_t j = (int64_t) blockIdx.x * TRANSPOSE_BLOCK + threadIdx.x;
	int32_t		lo = 0,
				hi = nnz;

	if (j > ncols)
		return;
	while (lo < hi)
	{
		int32_t		mid = lo + (hi - lo) / 2;

		if (__ldg(sorted_cols + mid) < (uint32_t) j)
			lo = mid + 1;
		else
			hi = mid;
	}
	t_row_ptr[j] = lo;
}

/* transpose_key_bits -- the bits that tell the columns 0 .. ncols - 1 apart */
static int
transpose_key_bits(int32_t ncols)
{
	int			bits = 1;

	while (bits < 31 && ((int64_t) 1 << bits) < ncols)
		bits++;
	return bits;
}

/* transpose_pairs_bytes -- one array of the scratch: a uint32_t per non-zero */
static size_t
transpose_pairs_bytes(int32_t nnz)
{
	return gsd_scratch_align(sizeof(uint32_t) * (size_t) (nnz > 0 ? nnz : 1));
}

/* transpose_cub_bytes -- CUB's temporary storage for sorting nnz pairs */
static size_t
transpose_cub_bytes(int32_t ncols, int32_t nnz)
{
	size_t		bytes = 0;

	if (cub::DeviceRadixSort::SortPairs(NULL, bytes, (const uint32_t *) NULL, (uint32_t *) NULL,
										(const uint32_t *) NULL, (uint32_t *) NULL, nnz, 0,
										transpose_key_bits(ncols)) != cudaSuccess)
		return 0;
	return gsd_scratch_align(bytes);
}

size_t
gsd_csr_transpose_scratch_bytes(int32_t ncols, int32_t nnz)
{
	size_t		pairs = transpose_pairs_bytes(nnz);

	return 2 * pairs + transpose_cub_bytes(ncols, nnz > 0 ? nnz : 1);
}

gsd_status
gsd_csr_transpose_pattern(const int32_t *d_row_ptr, const int32_t *d_col_idx, int32_t nrows,
						  int32_t ncols, int32_t nnz, int32_t *d_t_row_ptr,
						  int32_t *d_t_col_idx, void *d_scratch)
{
	const char *what = "transposing a sparse matrix";
	size_t		pairs = transpose_pairs_bytes(nnz);
	uint32_t   *rows = (uint32_t *) d_scratch;
	uint32_t   *sorted_cols = (uint32_t *) ((char *) d_scratch + pairs);
	void	   *cub_tmp = (char *) d_scratch + 2 * pairs;
	size_t		cub_bytes = transpose_cub_bytes(ncols, nnz > 0 ? nnz : 1);
	cudaStream_t s = gsd_stream();
	gsd_status	st = gsd_require_open();

	if (st != GSD_OK)
		return st;
	if (nrows < 0 || ncols < 0 || nnz < 0 || (nnz > 0 && (nrows == 0 || ncols == 0)))
		return gsd_fail(GSD_INVALID, "%s: %d x %d with %d non-zeros", what, nrows, ncols, nnz);
	if (nnz > 0)
	{
		if (cub_bytes == 0)
			return gsd_fail(GSD_INVALID, "%s: cub::DeviceRadixSort size query failed", what);
		csr_row_of_nonzero<<<(unsigned) ((nnz + TRANSPOSE_BLOCK - 1) / TRANSPOSE_BLOCK),
			TRANSPOSE_BLOCK, 0, s>>>(d_row_ptr, nrows, nnz, rows);
		GSD_CHECK_LAUNCH(what);
		st = gsd_cuda_status(cub::DeviceRadixSort::SortPairs(cub_tmp, cub_bytes,
															 (const uint32_t *) d_col_idx,
															 sorted_cols, rows,
															 (uint32_t *) d_t_col_idx, nnz, 0,
															 transpose_key_bits(ncols), s),
							 "cub::DeviceRadixSort::SortPairs");
		if (st != GSD_OK)
			return st;
	}
	csr_column_starts<<<(unsigned) ((ncols + 1 + TRANSPOSE_BLOCK - 1) / TRANSPOSE_BLOCK),
		TRANSPOSE_BLOCK, 0, s>>>(sorted_cols, nnz, ncols, d_t_row_ptr);
	GSD_CHECK_LAUNCH(what);
	return GSD_OK;
}
