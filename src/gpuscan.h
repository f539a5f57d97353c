/*-------------------------------------------------------------------------
 *
 * gpuscan.h
 *	  Declarations shared by the PostgreSQL side of gpuscan.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_H
#define GPUSCAN_H

#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "portability/instr_time.h"
#include "utils/array.h"

#include "gpuscan_device.h"

/* ---- settings (gpuscan.c) ---- */

typedef enum GpuscanDeviceMode
{
	GPUSCAN_DEVICE_AUTO,
	GPUSCAN_DEVICE_GPU,
	GPUSCAN_DEVICE_CPU
} GpuscanDeviceMode;

extern int	gpuscan_device_mode;
extern bool gpuscan_allow_gpu;
extern int	gpuscan_gpu_min_elements;
extern int	gpuscan_device_index;
extern bool gpuscan_gpu_prewarm;

/* ---- choosing the path (dispatch.c) ---- */

/* The kinds of work a call does, for the cost model (cost_model.h) */
typedef enum GsWork
{
	GS_WORK_SUM,				/* an exact sum: n values in */
	GS_WORK_SCAN,				/* prefix sums: n values in, n doubles out */
	GS_WORK_COMPACT,			/* compaction: n values (or none) and flags in */
	GS_WORK_SPMV,				/* y = A x over n non-zeros */
	GS_WORK_PAGERANK			/* PageRank over n edges */
} GsWork;

/*
 * Whether the call `fn`, `work` over `nelems` elements of `elemsize`
 * bytes, runs on the GPU.  With gpuscan.device = auto: the path the cost
 * model predicts faster (opening the GPU counted where the session has not
 * yet), or gpuscan.gpu_min_elements's threshold where that is set.  Opens
 * the device on first use; raises an ERROR when gpuscan.device = gpu and
 * no GPU is usable.  Emits a DEBUG1 line naming the path and the reason,
 * which gpuscan_stats() shows too (gs_last_reason).
 */
extern bool gs_use_gpu(const char *fn, GsWork work, int64 nelems, int elemsize);

/*
 * Under gpuscan.device = gpu, the ERROR that gs_use_gpu raises where no GPU
 * is usable, for work that has no GPU path (per-group sums, gpu_csr_agg's
 * matrix): one rule for every function and plan
 */
extern void gs_require_forced_gpu(const char *fn);

/*
 * Whether the GPU of gs_use_gpu's last answer is the GPU service's: where
 * gpuscan is preloaded the service runs all GPU work, and the caller sends
 * the call there (service_call.h); else the backend runs it on its own GPU.
 */
extern bool gs_gpu_in_service(void);

/* Why the last call took its path, as gs_use_gpu said at DEBUG1 */
extern const char *gs_last_reason(void);

/*
 * The in-function time of the call that gs_use_gpu last chose a path for
 * (from gs_stats_record): where the cost model chose, it corrects the
 * model for the session's later calls (cost_model.h).
 */
extern void gs_dispatch_measured(bool on_gpu, int64 nelems, double ms);

/*
 * The call's time includes work that the cost model does not predict
 * (reading a stored array as it goes): gs_dispatch_measured ignores it.
 */
extern void gs_dispatch_not_measured(void);

/* Whether a GPU is usable in this backend (opens it if needed; no ERROR). */
extern bool gs_gpu_usable(const char **reason);

/* The GPU this backend opened for its own device work; -1 if none */
extern int	gs_gpu_open_index(void);

/*
 * With gpuscan.gpu_prewarm, start opening the GPU in a helper thread of
 * this backend (from _PG_init in a backend)
 */
extern void gs_dispatch_prewarm(void);

/*
 * Define the settings of where functions run (gpuscan.device, ...); from
 * _PG_init
 */
extern void gs_dispatch_init(void);

/* ---- the device, from PostgreSQL's side (device.c) ---- */

/*
 * Raise an ERROR for a failed device call, with a SQLSTATE for the kind of
 * failure; a sticky failure also turns the GPU off for this backend.
 */
#if PG_VERSION_NUM >= 180000
extern pg_noreturn void gs_device_error(gsd_status status, const char *fn);
#else
extern void gs_device_error(gsd_status status, const char *fn) pg_attribute_noreturn();
#endif

/* Check a device call's status: ERROR unless GSD_OK. */
#define GS_DEVICE_CHECK(call, fn) \
	do { gsd_status gs_st_ = (call); \
		 if (gs_st_ != GSD_OK) gs_device_error(gs_st_, (fn)); } while (0)

/*
 * Device memory owned by the current resource owner: released at the end
 * of the statement if an ERROR or a cancel skips gs_device_free().
 */
extern void *gs_device_alloc(Size bytes, const char *fn);
extern void gs_device_free(void *dptr);

/* Bytes of device memory this backend has allocated and not freed. */
extern Size gs_device_bytes_tracked(void);

/* Install the resource-owner callback (from _PG_init). */
extern void gs_device_init(void);

/* Mark the GPU unusable for this backend after a sticky error. */
extern void gs_dispatch_mark_broken(void);

/* ---- statistics (stats.c) ---- */

typedef struct GsTimer
{
	instr_time	start;
} GsTimer;

extern void gs_timer_start(GsTimer *t);

/* Milliseconds from a to b: the phases some functions log at DEBUG1. */
static inline double
gs_ms_between(instr_time a, instr_time b)
{
	INSTR_TIME_SUBTRACT(b, a);
	return INSTR_TIME_GET_MILLISEC(b);
}

/* Count one call of `fn` on a path, with its elements, bytes moved to and
 * from the device, and the time since the timer started. */
extern void gs_stats_record(const char *fn, bool on_gpu, int64 elements,
							int64 bytes_moved, const GsTimer *t);

/* The same for a call that took another path (named `path`, on GPU
 * `device`) for `reason`; it does not correct the cost model. */
extern void gs_stats_record_path(const char *fn, const char *path, int device, int64 elements,
								 int64 bytes_moved, const GsTimer *t, const char *reason);

/* gs_float_size -- bytes of one element of FLOAT8OID or FLOAT4OID */
static inline int
gs_float_size(Oid elemtype)
{
	return (elemtype == FLOAT8OID) ? sizeof(double) : sizeof(float);
}

/* ---- array arguments (array_input.c) ---- */

typedef struct GsArrayInput
{
	ArrayType  *array;
	const char *fn;				/* SQL function name, for messages */
	const char *argname;		/* argument name, for messages */
	Oid			elemtype;
	int			elemsize;
	int64		nelems;
	const char *data;			/* ARR_DATA_PTR */
	bits8	   *nulls;			/* NULL bitmap, or NULL if none */
} GsArrayInput;

/*
 * Check that `array` is one-dimensional (or empty) with elements of type
 * `elemtype`, and describe it in *in.  NULL elements are found by
 * gs_array_check_nulls, chunk by chunk.
 */
extern void gs_array_open(GsArrayInput *in, ArrayType *array, Oid elemtype,
						  const char *fn, const char *argname);

/* ERROR if any of the elements [start, start + count) is NULL. */
extern void gs_array_check_nulls(const GsArrayInput *in, int64 start, int64 count);

/*
 * A new one-dimensional array result of n > 0 elements of elemsize bytes
 * (no NULLs, first subscript lbound), its data left for the caller to
 * fill in place, with room for `spare` more elements after them; an ERROR
 * from `fn` if it would exceed the 1 GB limit of a value.
 */
extern ArrayType *gs_new_array(Oid elemtype, int elemsize, int64 n, int lbound, int spare,
							   const char *fn);

/*
 * Cut an array made by gs_new_array to its first n elements (0 < n <= its
 * length), giving back the memory past them where that is more than
 * GS_TRIM_BYTES; returns the array, which may have moved.
 */
#define GS_TRIM_BYTES	((Size) 1 << 20)
extern ArrayType *gs_array_truncate(ArrayType *array, int64 n);

/*
 * Ask for huge pages under the `bytes` of fresh, untouched memory at p
 * (a large result): its first touch then takes one page fault per 2 MB
 * rather than per 4 kB.  Does nothing for small sizes or where the system
 * offers no transparent huge pages.
 */
extern void gs_prefer_huge_pages(void *p, Size bytes);

/* ---- set-returning functions over a computed buffer (result_rows.c) ---- */

/* n values of type FLOAT8OID, FLOAT4OID or INT4OID, palloc'd (or NULL if n is 0) */
typedef struct GsRows
{
	void	   *values;
	int64		n;
	Oid			type;
} GsRows;

/* compute the result of the call into *rows, allocating in `cxt` */
typedef void (*GsRowsCompute) (FunctionCallInfo fcinfo, Oid elemtype,
							   MemoryContext cxt, GsRows *rows);

/*
 * The body of a set-returning function that returns one row (a column
 * named colname) per value of the buffer that compute() fills: in a FROM
 * clause all rows at once through a tuplestore, elsewhere one per call.
 */
extern Datum gs_return_rows(FunctionCallInfo fcinfo, Oid elemtype, const char *colname,
							GsRowsCompute compute);

/* ---- sums (sum.c) ---- */

/*
 * Add the exact sum of n values of type elemtype (FLOAT8OID or FLOAT4OID)
 * into *acc, on the path gs_use_gpu chooses for `fn`, in chunks with
 * interrupt checks between them.  If `in` is not NULL, its NULLs are
 * checked chunk by chunk as the values are consumed.
 */
extern void gs_sum_into(gs_exact_acc *acc, const void *values, int64 n,
						Oid elemtype, const GsArrayInput *in, const char *fn);

/* ---- the gpu_sum aggregate (sum_agg.c) and its scan (sum_scan.c) ---- */

/* A partial state of the gpu_sum aggregates holding acc. */
extern Datum gs_sum_state_from_acc(const gs_exact_acc *acc);

extern bool gpuscan_enable_sum_scan;
extern bool gpuscan_fetch_stored_arrays;

/* Define gpuscan.enable_sum_scan, register the scan, install the planner hook. */
extern void gs_sum_scan_init(void);

/* ---- CSR matrices (spmv.c) ---- */

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

#endif							/* GPUSCAN_H */
