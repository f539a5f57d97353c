/*-------------------------------------------------------------------------
 *
 * gpuscan_device.h
 *	  The C API between the PostgreSQL side (src/) and the CUDA side
 *	  (kernels/).  Plain C: no CUDA and no PostgreSQL types, so src/ never
 *	  includes a CUDA header and kernels/ never includes a PostgreSQL one.
 *
 * Every function returns a gsd_status.  On anything but GSD_OK,
 * gsd_last_error() describes what failed in a sentence fragment suitable
 * for errdetail ("cudaMallocAsync failed: out of memory").  GSD_STICKY
 * means the CUDA context of this process is broken for good: the caller
 * must stop using the device in this process.
 *
 * All device work of one process goes to one stream; device memory comes
 * from that device's stream-ordered pool.  Functions that return results
 * to the host synchronize the stream before returning.
 *
 * Three implementations, one per build (GPUSCAN_DEVICE in the Makefile):
 *	cuda	 the .cu files of kernels/, the product (the default where nvcc
 *			 is found);
 *	none	 kernels/none_device.c, a CPU-only build: every function returns
 *			 GSD_NOT_BUILT, and the PostgreSQL side takes the CPU path;
 *	standin	 kernels/standin_device.c, for tests without a GPU: stand-in
 *			 GPUs served from host memory by the CPU code, with the same
 *			 results, the pool's accounting and out-of-memory at a
 *			 configured size (see that file).
 *
 * This header declares only what src/ uses.  The course's kernels (the
 * teaching versions that the unit tests and the kernel benchmark set
 * beside the production ones) have their own API in
 * kernels/course/gpuscan_course.h and are not linked into gpuscan.so.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_DEVICE_H
#define GPUSCAN_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/gpuscan_exact.h"
#include "../common/gpuscan_heap.h"

#ifdef __cplusplus
extern "C"
{
#endif

typedef enum gsd_status
{
	GSD_OK = 0,
	GSD_NOT_BUILT,				/* built without CUDA */
	GSD_NO_DRIVER,				/* no usable driver (libcuda.so.1 missing or too old) */
	GSD_NO_DEVICE,				/* no device, or index out of range */
	GSD_OUT_OF_MEMORY,			/* device or pinned memory exhausted */
	GSD_INVALID,				/* bad argument (a bug in the caller) */
	GSD_FAILED,					/* other error; the context is still usable */
	GSD_STICKY					/* the context is broken for this process */
} gsd_status;

/* Description of the last error in this process (static storage). */
const char *gsd_last_error(void);

/* ---- build, driver, devices (kernels/device.cu) ---- */

typedef struct gsd_build_info
{
	int			runtime_version;	/* CUDA runtime linked in, e.g. 13000; 0 if CPU-only */
	int			driver_version; /* CUDA version the driver supports; 0 if none */
	char		arch_list[128]; /* GPU architectures compiled in */
} gsd_build_info;

/* arch_list of the stand-in device (kernels/standin_device.c) */
#define GSD_STANDIN_ARCH "stand-in"

typedef struct gsd_device_props
{
	char		name[256];
	size_t		total_memory;	/* bytes */
	int			multiprocessors;
	int			cc_major;
	int			cc_minor;
} gsd_device_props;

/* Build and driver versions; never initializes a context. */
gsd_status	gsd_get_build_info(gsd_build_info *info);

/* Number of devices (loads the driver if needed; no context). */
gsd_status	gsd_device_count(int *count);

/* Properties of device `index` (no context). */
gsd_status	gsd_get_device_props(int index, gsd_device_props *props);

/*
 * Open device `index` for this process: context, stream and memory pool.
 * Idempotent for the same index; a different index is GSD_INVALID once a
 * device is open.  Must not be called before fork().
 */
gsd_status	gsd_open(int index);

/* Whether gsd_open() has succeeded in this process. */
int			gsd_is_open(void);

/* Stream-ordered allocation on the process's stream; *dptr NULL on error. */
gsd_status	gsd_alloc(size_t bytes, void **dptr);

/* Stream-ordered free; never fails loudly (usable from abort callbacks). */
gsd_status	gsd_free(void *dptr);

/* Copy host -> device; the host buffer may be reused when this returns. */
gsd_status	gsd_upload(void *dst, const void *src, size_t bytes);

/* Copy device -> host; waits for all earlier work on the stream. */
gsd_status	gsd_download(void *dst, const void *src, size_t bytes);

/* Set `bytes` of device memory to zero (stream-ordered). */
gsd_status	gsd_memset_zero(void *dst, size_t bytes);

/* Wait for all work on the calling thread's stream. */
gsd_status	gsd_synchronize(void);

/*
 * Pin `bytes` of host memory at `host` (page-aligned; shared memory too)
 * for the open device, so that copies from and to it go straight to the
 * GPU: once, for memory that lives as long as the process.
 */
gsd_status	gsd_host_register(void *host, size_t bytes);

/*
 * Pin `bytes` of host memory at `host` (page-aligned; shared memory too)
 * and map it for the open device, which reads it in place over the bus
 * (zero copy): *d_host is its address in kernels.  Once, for memory that
 * lives as long as the process (the server's shared buffers).
 */
gsd_status	gsd_host_map(void *host, size_t bytes, const void **d_host);

/* Bytes of the pool currently handed out to allocations (not cached). */
gsd_status	gsd_memory_in_use(size_t *bytes);

/*
 * Bytes the open device's stream-ordered pool holds now: what is allocated
 * plus what it keeps for reuse (cudaMemPoolAttrReservedMemCurrent).  It
 * waits for the stream first, as gsd_memory_in_use: a synchronization
 * point, where the pool gives back what it holds unused beyond its
 * release threshold (256 MB).
 */
gsd_status	gsd_memory_reserved(size_t *bytes);

/*
 * Wait for all device work of the process, then give every byte of the
 * pool that no allocation uses back to the device (cudaDeviceSynchronize +
 * cudaMemPoolTrimTo(pool, 0)); for an idle process, so that other programs
 * get the memory back.
 */
gsd_status	gsd_memory_trim(void);

/* ---- reduction (kernels/reduce_exact.cu) ---- */

/*
 * Add the exact sum of n device-resident values into the device-resident
 * accumulator *d_acc (which the caller zeroed once with gsd_memset_zero,
 * and may feed any number of chunks into: each call leaves *d_acc
 * normalized as gs_acc_normalize() does).  If d_result is not NULL, the
 * same launch also writes gs_acc_round(*d_acc) there (device memory).
 * Stream-ordered: download *d_acc or *d_result to read them.  n may be 0.
 */
gsd_status	gsd_sum_exact_f64(const double *d_in, size_t n, gs_exact_acc *d_acc,
							  double *d_result);
gsd_status	gsd_sum_exact_f32(const float *d_in, size_t n, gs_exact_acc *d_acc,
							  double *d_result);

/* ---- prefix sums (kernels/scan_exact.cu) ---- */

/*
 * Prefix sums of n device-resident values into d_out (n doubles, not
 * overlapping d_in).  Each output is the exact prefix sum rounded once to
 * the nearest double, ties to even: exactly gs_acc_round() of an
 * accumulator holding *d_carry plus the values up to that element
 * (inclusive) or before it (exclusive != 0), with the same IEEE rules for
 * Inf, NaN and -0.  *d_carry (device) is the exact sum of everything before
 * d_in[0] (zero it with gsd_memset_zero for the first chunk); the call
 * adds the chunk's values to it and leaves it normalized, so that a long
 * input can be scanned in chunks.  Stream-ordered.  n may be 0.
 */
gsd_status	gsd_prefix_sum_f64(const double *d_in, size_t n, double *d_out,
							   int exclusive, gs_exact_acc *d_carry);
gsd_status	gsd_prefix_sum_f32(const float *d_in, size_t n, double *d_out,
							   int exclusive, gs_exact_acc *d_carry);

/* ---- stream compaction (kernels/compact.cu) ---- */

/*
 * Of n device-resident values and n device-resident flag bytes (keep the
 * value where its byte is not zero), write the kept values in their
 * original order to d_out[0 .. count) and count (uint64_t) to *d_count
 * (device).  d_vals and d_keep must be 16-byte aligned (as gsd_alloc's
 * memory is), d_out aligned to its element size and large enough for n
 * values; n below 2^32 - 2^16.  One pass over the flags, values read only
 * where kept.  Stream-ordered: download *d_count, then d_out.  n may be 0.
 */
gsd_status	gsd_compact_f64(const double *d_vals, const uint8_t *d_keep, size_t n,
							double *d_out, uint64_t *d_count);
gsd_status	gsd_compact_f32(const float *d_vals, const uint8_t *d_keep, size_t n,
							float *d_out, uint64_t *d_count);

/*
 * The positions of the kept elements instead of their values: d_out[j] =
 * first + i for the j-th i (in increasing order) whose flag is not zero.
 * first + n - 1 must not exceed INT32_MAX.  Otherwise as gsd_compact_f64.
 */
gsd_status	gsd_compact_indices(const uint8_t *d_keep, size_t n, int32_t first,
								int32_t *d_out, uint64_t *d_count);

/* ---- sparse matrix x vector and PageRank (kernels/spmv.cu) ---- */

/*
 * CSR with 32-bit 0-based row_ptr (nrows + 1 entries, from 0, never
 * decreasing) and col_idx (row_ptr[nrows] entries, each within x), as in
 * cuSPARSE.  The callers validate; the kernels trust the matrix.
 *
 * The production SpMV computes every y[i] in the canonical order of
 * common/gpuscan_spmv.h, so it gives the same bits as src/cpu/cpu_spmv.c.  It
 * runs from a plan, a partition of the rows made once per matrix (PageRank
 * reuses it every iteration): rows of up to long_row non-zeros are taken
 * by groups of group_lanes lanes (chosen from the mean row length), longer
 * rows are cut into their GS_SPMV_SEGMENT-long segments, each taken by a
 * whole warp, and the segment sums of a row added in order after.  The
 * short rows are taken stage_rows at a time by a block that first computes
 * their products into shared memory (0: each group reads its own row).
 *
 * Making a plan takes two calls, so that the caller owns all its device
 * memory (the PostgreSQL side ties it to a resource owner):
 *	 gsd_spmv_plan_analyze(&plan, d_row_ptr, nrows, nnz, d_scratch) with
 *	   gsd_spmv_plan_scratch_bytes(nrows) bytes of scratch, which counts the
 *	   long rows' segments (one small download);
 *	 gsd_spmv_plan_build(&plan, d_row_ptr, d_scratch, d_plan_memory) with
 *	   gsd_spmv_plan_bytes(&plan) bytes that must live as long as the plan.
 * The scratch may be freed after the build.
 */
typedef struct gsd_spmv_plan
{
	int32_t		nrows;
	int32_t		nnz;
	int32_t		group_lanes;	/* lanes per row of up to long_row non-zeros: 1..32 */
	int32_t		long_row;		/* longer rows go to whole warps, by segment */
	int32_t		stage_rows;		/* short rows per staged block: 0..1024, 0 = not staged */
	int32_t		nsegments;		/* segments of the long rows */
	int32_t    *d_segments;		/* (row, segment of the row) pairs, in row order */
	double	   *d_segment_sums;	/* one per segment */
} gsd_spmv_plan;

size_t		gsd_spmv_plan_scratch_bytes(int32_t nrows);
gsd_status	gsd_spmv_plan_analyze(gsd_spmv_plan *plan, const int32_t *d_row_ptr,
								  int32_t nrows, int32_t nnz, void *d_scratch);
size_t		gsd_spmv_plan_bytes(const gsd_spmv_plan *plan);
gsd_status	gsd_spmv_plan_build(gsd_spmv_plan *plan, const int32_t *d_row_ptr,
								const void *d_scratch, void *d_plan_memory);

/*
 * y = A x with the plan of A (production kernel; deterministic, the same
 * bits as cpu_spmv_f64/_f32).  d_y has plan->nrows elements and must not
 * overlap the inputs.  Stream-ordered.
 */
gsd_status	gsd_spmv_f64(const gsd_spmv_plan *plan, const int32_t *d_row_ptr,
						 const int32_t *d_col_idx, const double *d_vals,
						 const double *d_x, double *d_y);
gsd_status	gsd_spmv_f32(const gsd_spmv_plan *plan, const int32_t *d_row_ptr,
						 const int32_t *d_col_idx, const float *d_vals,
						 const float *d_x, float *d_y);

/*
 * The pattern of A^T (ncols rows) from the pattern of A (nrows rows, nnz
 * non-zeros, columns validated to lie in [0, ncols)): the same arrays as
 * cpu_csr_transpose_pattern, so row j of A^T lists the rows of column j in
 * increasing order.  d_t_row_ptr has ncols + 1 entries, d_t_col_idx nnz;
 * d_scratch holds gsd_csr_transpose_scratch_bytes(ncols, nnz) bytes.
 * Stream-ordered.
 */
size_t		gsd_csr_transpose_scratch_bytes(int32_t ncols, int32_t nnz);
gsd_status	gsd_csr_transpose_pattern(const int32_t *d_row_ptr, const int32_t *d_col_idx,
									  int32_t nrows, int32_t ncols, int32_t nnz,
									  int32_t *d_t_row_ptr, int32_t *d_t_col_idx,
									  void *d_scratch);

/*
 * ---- heap pages (kernels/heap_values.cu) ----
 *
 * The values of layout's column in the npages heap pages d_refs names
 * (common/gpuscan_heap.h: among nshared pages of shared buffers at
 * d_shared, mapped for the device by gsd_host_map, and ncopies pages at
 * d_copies, GS_HEAP_PAGE_SIZE bytes each; every page all-visible), laid
 * out for an exact sum (gsd_sum_exact_f64 over npages * GS_HEAP_MAX_TUPLES
 * doubles): d_values[p * GS_HEAP_MAX_TUPLES + i] is the value of line
 * pointer i of page p, or -0.0 where there is none (NULL, a line pointer
 * that is not a normal one, none at all), which changes no exact sum and
 * no sign of one.  A page the walker refuses (common/gpuscan_heap.h), or a
 * ref that names no page, gives -0.0 throughout and d_bad[p] = 1, else 0;
 * *d_nvalues (zeroed by the caller) gets the count of values of the pages
 * read.  The same values as gs_heap_pages_sum (src/cpu/heap_sum.c).
 * Stream-ordered.
 */

gsd_status	gsd_heap_values(const void *d_shared, size_t nshared, const void *d_copies,
							size_t ncopies, const gs_heap_page_ref *d_refs, size_t npages,
							const gs_heap_layout *layout, double *d_values,
							unsigned char *d_bad, unsigned long long *d_nvalues);

/*
 * ---- group sums over heap pages (kernels/heap_groups.cu) ----
 *
 * The exact sums of GROUP BY up to GS_HEAP_MAX_KEYS integer columns over
 * the heap pages d_refs names (as gsd_heap_values): each tuple's keys
 * (key_layouts[0 .. table.nkeys - 1], read by gs_heap_read_group; a NULL
 * key is 0 with its bit set in the group's nulls) find or claim their slot
 * in an open-addressing table of `capacity` slots (a power of two), and its
 * value (value_layout; NULL adds nothing) goes into the slot's exact
 * accumulator by integer atomic additions, so that the sums do not depend
 * on the order the GPU adds them in.  The table (capacity slots of each
 * array, keys nkeys to a slot: slot s's at keys[s * nkeys]) is zeroed by
 * the caller with gsd_memset_zero and may take any number of calls, up to
 * 2^31 values a group; state[s] is 2 where slot s holds a group, counts[s]
 * its values.  A page the walker refuses adds nothing and gets
 * d_bad[p] = 1.  Where a group finds no free slot, *d_full becomes 1 and
 * the table lacks it: the caller reads those pages again some other way.
 * Stream-ordered.
 */
typedef struct gsd_group_table
{
	uint32_t   *state;			/* 0 free, 1 being claimed, 2 a group */
	int64_t    *keys;			/* nkeys a slot; a NULL key 0 */
	uint32_t   *nulls;			/* bit j: key j is NULL */
	gs_exact_acc *accs;
	unsigned long long *counts;
	uint32_t	capacity;
	int32_t		nkeys;			/* 1 .. GS_HEAP_MAX_KEYS */
} gsd_group_table;

gsd_status	gsd_heap_group_sums(const void *d_shared, size_t nshared, const void *d_copies,
								size_t ncopies, const gs_heap_page_ref *d_refs, size_t npages,
								const gs_heap_layout *key_layouts,
								const gs_heap_layout *value_layout, gsd_group_table table,
								unsigned char *d_bad, uint32_t *d_full);

/*
 * One PageRank power iteration on the device (the formulas of
 * common/gpuscan_spmv.h, the same bits as cpu_pagerank_iteration): d_next
 * from d_rank over the in-link CSR (d_in_ptr, d_in_idx, with its plan) and
 * the out-degrees d_outdeg, all n = plan->nrows long.  d_work holds
 * gsd_pagerank_work_bytes(n) bytes.  Waits for the result and returns the
 * L1 residual in *residual (8 bytes come back per iteration).
 */
size_t		gsd_pagerank_work_bytes(int32_t n);
gsd_status	gsd_pagerank_iteration(const gsd_spmv_plan *plan, const int32_t *d_in_ptr,
								   const int32_t *d_in_idx, const int32_t *d_outdeg,
								   double damping, const double *d_rank, double *d_next,
								   void *d_work, double *residual);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_DEVICE_H */
