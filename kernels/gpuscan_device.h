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
 * A CPU-only build (no nvcc) links src/device_none.c instead, whose
 * functions all return GSD_NOT_BUILT.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_DEVICE_H
#define GPUSCAN_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/gpuscan_exact.h"

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

/* Wait for all work on the process's stream. */
gsd_status	gsd_synchronize(void);

/* Bytes of the pool currently handed out to allocations (not cached). */
gsd_status	gsd_memory_in_use(size_t *bytes);

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

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_DEVICE_H */
