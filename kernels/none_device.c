/*-------------------------------------------------------------------------
 *
 * none_device.c
 *	  The device API of a CPU-only build (GPUSCAN_DEVICE=none, the default
 *	  where no nvcc is found): every call says so, and the PostgreSQL side
 *	  takes the CPU path.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "gpuscan_device.h"

#define NOT_BUILT_MESSAGE "gpuscan was built without CUDA support (no nvcc at build time, or GPUSCAN_DEVICE=none)"

const char *
gsd_last_error(void)
{
	return NOT_BUILT_MESSAGE;
}

gsd_status
gsd_get_build_info(gsd_build_info *info)
{
	memset(info, 0, sizeof(*info));
	return GSD_OK;
}

gsd_status
gsd_device_count(int *count)
{
	*count = 0;
	return GSD_NOT_BUILT;
}

gsd_status
gsd_get_device_props(int index, gsd_device_props *props)
{
	memset(props, 0, sizeof(*props));
	return GSD_NOT_BUILT;
}

gsd_status
gsd_open(int index)
{
	return GSD_NOT_BUILT;
}

int
gsd_is_open(void)
{
	return 0;
}

gsd_status
gsd_alloc(size_t bytes, void **dptr)
{
	*dptr = NULL;
	return GSD_NOT_BUILT;
}

gsd_status
gsd_free(void *dptr)
{
	return GSD_OK;
}

gsd_status
gsd_upload(void *dst, const void *src, size_t bytes)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_download(void *dst, const void *src, size_t bytes)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_memset_zero(void *dst, size_t bytes)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_synchronize(void)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_host_register(void *host, size_t bytes)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_host_map(void *host, size_t bytes, const void **d_host)
{
	*d_host = NULL;
	return GSD_NOT_BUILT;
}

gsd_status
gsd_memory_in_use(size_t *bytes)
{
	*bytes = 0;
	return GSD_NOT_BUILT;
}

gsd_status
gsd_memory_reserved(size_t *bytes)
{
	*bytes = 0;
	return GSD_NOT_BUILT;
}

gsd_status
gsd_memory_trim(void)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_sum_exact_f64(const double *d_in, size_t n, gs_exact_acc *d_acc, double *d_result)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_sum_exact_f32(const float *d_in, size_t n, gs_exact_acc *d_acc, double *d_result)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_prefix_sum_f64(const double *d_in, size_t n, double *d_out,
				   int exclusive, gs_exact_acc *d_carry)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_prefix_sum_f32(const float *d_in, size_t n, double *d_out,
				   int exclusive, gs_exact_acc *d_carry)
{
	return GSD_NOT_BUILT;
}

/* stream compaction (kernels/compact.cu) */
gsd_status
gsd_compact_f64(const double *d_vals, const uint8_t *d_keep, size_t n, double *d_out,
				uint64_t *d_count)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_compact_f32(const float *d_vals, const uint8_t *d_keep, size_t n, float *d_out,
				uint64_t *d_count)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_compact_indices(const uint8_t *d_keep, size_t n, int32_t first, int32_t *d_out,
					uint64_t *d_count)
{
	return GSD_NOT_BUILT;
}

/* sparse matrix x vector and PageRank (kernels/spmv.cu, kernels/csr_transpose.cu) */
size_t
gsd_spmv_plan_scratch_bytes(int32_t nrows)
{
	return 0;
}

gsd_status
gsd_spmv_plan_analyze(gsd_spmv_plan *plan, const int32_t *d_row_ptr, int32_t nrows,
					  int32_t nnz, void *d_scratch)
{
	memset(plan, 0, sizeof(*plan));
	return GSD_NOT_BUILT;
}

size_t
gsd_spmv_plan_bytes(const gsd_spmv_plan *plan)
{
	return 0;
}

gsd_status
gsd_spmv_plan_build(gsd_spmv_plan *plan, const int32_t *d_row_ptr, const void *d_scratch,
					void *d_plan_memory)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_spmv_f64(const gsd_spmv_plan *plan, const int32_t *d_row_ptr, const int32_t *d_col_idx,
			 const double *d_vals, const double *d_x, double *d_y)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_spmv_f32(const gsd_spmv_plan *plan, const int32_t *d_row_ptr, const int32_t *d_col_idx,
			 const float *d_vals, const float *d_x, float *d_y)
{
	return GSD_NOT_BUILT;
}

size_t
gsd_csr_transpose_scratch_bytes(int32_t ncols, int32_t nnz)
{
	return 0;
}

gsd_status
gsd_heap_values(const void *d_shared, size_t nshared, const void *d_copies, size_t ncopies,
				const gs_heap_page_ref *d_refs, size_t npages, const gs_heap_layout *layout,
				double *d_values, unsigned char *d_bad, unsigned long long *d_nvalues)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_heap_group_sums(const void *d_shared, size_t nshared, const void *d_copies, size_t ncopies,
					const gs_heap_page_ref *d_refs, size_t npages, const gs_heap_layout *key_layouts,
					const gs_heap_layout *value_layout, gsd_group_table table,
					unsigned char *d_bad, uint32_t *d_full)
{
	return GSD_NOT_BUILT;
}

gsd_status
gsd_csr_transpose_pattern(const int32_t *d_row_ptr, const int32_t *d_col_idx, int32_t nrows,
						  int32_t ncols, int32_t nnz, int32_t *d_t_row_ptr,
						  int32_t *d_t_col_idx, void *d_scratch)
{
	return GSD_NOT_BUILT;
}

size_t
gsd_pagerank_work_bytes(int32_t n)
{
	return 0;
}

gsd_status
gsd_pagerank_iteration(const gsd_spmv_plan *plan, const int32_t *d_in_ptr,
					   const int32_t *d_in_idx, const int32_t *d_outdeg, double damping,
					   const double *d_rank, double *d_next, void *d_work, double *residual)
{
	*residual = 0.0;
	return GSD_NOT_BUILT;
}
