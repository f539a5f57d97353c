/*-------------------------------------------------------------------------
 *
 * standin_device.c
 *	  The stand-in device: the whole API of gpuscan_device.h served from
 *	  host memory by the PostgreSQL-free CPU core (src/cpu/), with one or
 *	  several stand-in "GPUs".  A build of its own (make
 *	  GPUSCAN_DEVICE=standin), for CI, which has no GPU: there the GPU
 *	  service runs its real logic -- the device cache, the staging area,
 *	  placement over several GPUs, faults, cancels -- and the GPU passes of
 *	  the tests run through it, giving the CPU path's bits.
 *
 * What it models:
 *	- the devices: how many, and the memory of each (see Settings);
 *	- gsd_open's rules: one device per process, idempotent for the same
 *	  index, GSD_INVALID for another, GSD_NO_DEVICE out of range; functions
 *	  that need an open device refuse without one;
 *	- the stream-ordered pool of kernels/device.cu: `used' is the bytes of
 *	  live allocations, `reserved' what the pool holds of the device.  An
 *	  allocation grows reserved to at least used; a free leaves the memory
 *	  reserved; at a synchronization point (everything that waits for the
 *	  stream in device.cu: gsd_upload, gsd_download, gsd_synchronize, the
 *	  memory figures, the calls that read a result back) the pool keeps at
 *	  most max(used, the 256 MB release threshold); gsd_memory_trim gives
 *	  all unused memory back.  So leaks (used) and the pool's retention
 *	  (reserved) are observable;
 *	- out of memory: an allocation fails with GSD_OUT_OF_MEMORY and
 *	  cudaMallocAsync's message where it would take the pool's allocations
 *	  past the configured size;
 *	- the argument checks of the kernels' entry points, with their
 *	  statuses.
 *
 * What it does not model: timings and overlap (every call does its work
 * before it returns, on the calling thread); the real kernels (the results
 * are the CPU path's, which the kernels match bit for bit); sticky errors;
 * that device memory is not
 * addressable by the host (a device pointer handed to host code works here
 * and would not on a GPU).  Each process has its own stand-in GPUs: the
 * figures of one process's device are not shared with another's.
 *
 * Settings, from the environment at the first call that needs them:
 *	GPUSCAN_STANDIN_GPUS		how many stand-in GPUs (default 1, at most
 *								16; 0: none)
 *	GPUSCAN_STANDIN_MEMORY_MB	the memory of each, in MB (default 1024)
 *
 * Several threads of one process may call the API at once (the GPU
 * service does): the device's state and the pool's figures are kept under
 * a mutex, the last error is per thread, as in device.cu.
 *
 * Plain C: no CUDA and no PostgreSQL header.
 *
 *-------------------------------------------------------------------------
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuscan_device.h"
#include "cpu/cpu_compact.h"
#include "cpu/cpu_prefix_sum.h"
#include "cpu/cpu_spmv.h"
#include "cpu/cpu_sum.h"

#define STANDIN_MAX_GPUS		16
#define STANDIN_DEFAULT_GPUS	1
#define STANDIN_DEFAULT_MB		1024
#define STANDIN_MAX_MB			((long) 1 << 24)	/* 16 TB */
#define STANDIN_MULTIPROCESSORS 8

/* what gsd_get_build_info reports: not 0, so that a device counts as built in */
#define STANDIN_RUNTIME_VERSION 1

/* bytes the pool keeps cached between calls, as device.cu's */
#define POOL_RELEASE_THRESHOLD	((size_t) 256 << 20)

/*
 * Allocations are aligned as the CUDA pool's are (256 bytes), with a
 * header of their size in front, in the first 256 bytes.
 */
#define ALLOC_ALIGN				((size_t) 256)
#define ALLOC_MAGIC				UINT64_C(0x6773642d73746e64)	/* "gsd-stnd" */
#define ALLOC_FREED				UINT64_C(0x6773642d66726565)	/* "gsd-free" */

/* the compaction's limit, as compact.cu's */
#define COMPACT_MAX_N			((size_t) UINT32_MAX - 65536)

/* the SpMV plan's limit on staged rows, as spmv.cu's */
#define SPMV_STAGE_MAX_ROWS		1024

typedef struct alloc_header
{
	uint64_t	magic;
	size_t		bytes;
} alloc_header;

/* the settings, read once */
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;
static int	standin_gpus;
static size_t standin_memory;

/* everything below is guarded by `lock' */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int	open_device = -1;
static size_t pool_used;		/* bytes of live allocations */
static size_t pool_reserved;	/* bytes the pool holds of the device */

static __thread char last_error[512] = "no error";

const char *
gsd_last_error(void)
{
	return last_error;
}

static gsd_status fail(gsd_status status, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/* fail -- record the calling thread's last error and return status */
static gsd_status
fail(gsd_status status, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return status;
}

/*
 * env_long -- a whole number from the environment, dflt where it is unset,
 * empty, not a number or below lo; at most hi
 */
static long
env_long(const char *name, long dflt, long lo, long hi)
{
	const char *s = getenv(name);
	char	   *end;
	long		v;

	if (s == NULL || *s == '\0')
		return dflt;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < lo)
		return dflt;
	return v > hi ? hi : v;
}

/* read_settings -- the stand-in GPUs of GPUSCAN_STANDIN_GPUS and _MEMORY_MB */
static void
read_settings(void)
{
	standin_gpus = (int) env_long("GPUSCAN_STANDIN_GPUS", STANDIN_DEFAULT_GPUS, 0,
								  STANDIN_MAX_GPUS);
	standin_memory = (size_t) env_long("GPUSCAN_STANDIN_MEMORY_MB", STANDIN_DEFAULT_MB, 1,
									   STANDIN_MAX_MB) << 20;
}

/* settings -- read the settings at the first call that needs them */
static void
settings(void)
{
	pthread_once(&settings_once, read_settings);
}

/* device_open -- the device this process opened, -1 if none */
static int
device_open(void)
{
	int			open;

	pthread_mutex_lock(&lock);
	open = open_device;
	pthread_mutex_unlock(&lock);
	return open;
}

/* require_open -- GSD_OK where this process has opened a device */
static gsd_status
require_open(void)
{
	if (device_open() < 0)
		return fail(GSD_INVALID, "no device is open in this process");
	return GSD_OK;
}

/*
 * pool_release -- the pool at a synchronization point: it gives back what
 * it holds unused above the release threshold (call with `lock' held)
 */
static void
pool_release(void)
{
	size_t		keep = pool_reserved < POOL_RELEASE_THRESHOLD ?
		pool_reserved : POOL_RELEASE_THRESHOLD;

	pool_reserved = keep > pool_used ? keep : pool_used;
}

/* sync_point -- a wait for the stream: the pool may release memory */
static void
sync_point(void)
{
	pthread_mutex_lock(&lock);
	pool_release();
	pthread_mutex_unlock(&lock);
}

/*
 * device_room -- whether `bytes' more of device memory fit beside what is
 * in use (call with `lock' held)
 */
static int
device_room(size_t bytes)
{
	return pool_used <= standin_memory && bytes <= standin_memory - pool_used;
}

/*
 * out_of_memory -- GSD_OUT_OF_MEMORY with the CUDA call's message and the
 * stand-in's figures (call with `lock' held)
 */
static gsd_status
out_of_memory(const char *call, size_t bytes)
{
	return fail(GSD_OUT_OF_MEMORY,
				"%s failed: out of memory (cudaErrorMemoryAllocation): %zu bytes asked of stand-in GPU %d, %zu of its %zu in use",
				call, bytes, open_device, pool_used, standin_memory);
}

/* ---- build, driver, devices ---- */

gsd_status
gsd_get_build_info(gsd_build_info *info)
{
	memset(info, 0, sizeof(*info));
	info->runtime_version = STANDIN_RUNTIME_VERSION;
	snprintf(info->arch_list, sizeof(info->arch_list), "%s", GSD_STANDIN_ARCH);
	return GSD_OK;
}

gsd_status
gsd_device_count(int *count)
{
	settings();
	*count = standin_gpus;
	if (standin_gpus == 0)
		return fail(GSD_NO_DEVICE, "no stand-in GPU (GPUSCAN_STANDIN_GPUS is 0)");
	return GSD_OK;
}

gsd_status
gsd_get_device_props(int index, gsd_device_props *props)
{
	settings();
	memset(props, 0, sizeof(*props));
	if (index < 0 || index >= standin_gpus)
		return fail(GSD_NO_DEVICE, "device %d does not exist (%d device%s found)",
					index, standin_gpus, standin_gpus == 1 ? "" : "s");
	snprintf(props->name, sizeof(props->name), "gpuscan stand-in GPU %d (host memory)", index);
	props->total_memory = standin_memory;
	props->multiprocessors = STANDIN_MULTIPROCESSORS;
	return GSD_OK;
}

gsd_status
gsd_open(int index)
{
	gsd_status	st = GSD_OK;

	settings();
	pthread_mutex_lock(&lock);
	if (open_device >= 0)
	{
		if (index != open_device)
			st = fail(GSD_INVALID, "device %d is already open in this process; cannot switch to device %d",
					  open_device, index);
	}
	else if (index < 0 || index >= standin_gpus)
		st = fail(GSD_NO_DEVICE, "device %d does not exist (%d device%s found)",
				  index, standin_gpus, standin_gpus == 1 ? "" : "s");
	else
		open_device = index;
	pthread_mutex_unlock(&lock);
	return st;
}

int
gsd_is_open(void)
{
	return device_open() >= 0;
}

/* ---- memory ---- */

gsd_status
gsd_alloc(size_t bytes, void **dptr)
{
	/* a zero-byte request still gets a distinct pointer */
	size_t		size = bytes ? bytes : 1;
	gsd_status	st;
	void	   *p = NULL;

	*dptr = NULL;
	if ((st = require_open()) != GSD_OK)
		return st;
	pthread_mutex_lock(&lock);
	if (!device_room(size))
	{
		st = out_of_memory("cudaMallocAsync", bytes);
		pthread_mutex_unlock(&lock);
		return st;
	}
	pool_used += size;
	if (pool_reserved < pool_used)
		pool_reserved = pool_used;
	pthread_mutex_unlock(&lock);

	if (size > SIZE_MAX - ALLOC_ALIGN || posix_memalign(&p, ALLOC_ALIGN, ALLOC_ALIGN + size) != 0)
	{
		pthread_mutex_lock(&lock);
		pool_used -= size;
		pthread_mutex_unlock(&lock);
		return fail(GSD_OUT_OF_MEMORY,
					"cudaMallocAsync failed: out of memory (cudaErrorMemoryAllocation): the host has no %zu bytes for the stand-in GPU",
					bytes);
	}
	((alloc_header *) p)->magic = ALLOC_MAGIC;
	((alloc_header *) p)->bytes = size;
	*dptr = (char *) p + ALLOC_ALIGN;
	return GSD_OK;
}

gsd_status
gsd_free(void *dptr)
{
	alloc_header *h;

	if (dptr == NULL)
		return GSD_OK;
	h = (alloc_header *) ((char *) dptr - ALLOC_ALIGN);
	if (h->magic != ALLOC_MAGIC)
		return fail(GSD_FAILED, "cudaFreeAsync failed: invalid argument (cudaErrorInvalidValue): %p is not an allocation of the stand-in GPU",
					dptr);
	h->magic = ALLOC_FREED;
	pthread_mutex_lock(&lock);
	pool_used -= h->bytes;
	pthread_mutex_unlock(&lock);
	free(h);
	return GSD_OK;
}

/* copy_args -- the arguments of a copy of bytes between dst and src */
static gsd_status
copy_args(void *dst, const void *src, size_t bytes, const char *what)
{
	gsd_status	st = require_open();

	if (st == GSD_OK && bytes > 0 && (dst == NULL || src == NULL))
		return fail(GSD_INVALID, "%s failed: NULL pointer", what);
	return st;
}

gsd_status
gsd_upload(void *dst, const void *src, size_t bytes)
{
	gsd_status	st = copy_args(dst, src, bytes, "copying to the device");

	if (st != GSD_OK || bytes == 0)
		return st;
	memcpy(dst, src, bytes);
	/* device.cu waits for the copy, so that src may be reused */
	sync_point();
	return GSD_OK;
}

gsd_status
gsd_download(void *dst, const void *src, size_t bytes)
{
	gsd_status	st = copy_args(dst, src, bytes, "copying from the device");

	if (st != GSD_OK)
		return st;
	if (bytes > 0)
		memcpy(dst, src, bytes);
	sync_point();
	return GSD_OK;
}

gsd_status
gsd_memset_zero(void *dst, size_t bytes)
{
	gsd_status	st = require_open();

	if (st != GSD_OK)
		return st;
	if (bytes > 0 && dst == NULL)
		return fail(GSD_INVALID, "cudaMemsetAsync failed: NULL pointer");
	if (bytes > 0)
		memset(dst, 0, bytes);
	return GSD_OK;
}

gsd_status
gsd_synchronize(void)
{
	gsd_status	st = require_open();

	if (st == GSD_OK)
		sync_point();
	return st;
}

/* gsd_host_register -- nothing to pin here; the arguments are checked */
gsd_status
gsd_host_register(void *host, size_t bytes)
{
	gsd_status	st = require_open();

	if (st != GSD_OK)
		return st;
	if (host == NULL || bytes == 0)
		return fail(GSD_INVALID, "cudaHostRegister failed: invalid argument (%zu bytes at %p)",
					bytes, host);
	return GSD_OK;
}

/*
 * gsd_host_map -- the device's memory is the host's here: host is its own
 * address for the kernels
 */
gsd_status
gsd_host_map(void *host, size_t bytes, const void **d_host)
{
	gsd_status	st = gsd_host_register(host, bytes);

	*d_host = st == GSD_OK ? host : NULL;
	return st;
}

/* pool_figure -- *figure (used or reserved) after a wait for the stream */
static gsd_status
pool_figure(const size_t *figure, size_t *bytes)
{
	gsd_status	st = require_open();

	*bytes = 0;
	if (st != GSD_OK)
		return st;
	pthread_mutex_lock(&lock);
	pool_release();
	*bytes = *figure;
	pthread_mutex_unlock(&lock);
	return GSD_OK;
}

gsd_status
gsd_memory_in_use(size_t *bytes)
{
	return pool_figure(&pool_used, bytes);
}

gsd_status
gsd_memory_reserved(size_t *bytes)
{
	return pool_figure(&pool_reserved, bytes);
}

gsd_status
gsd_memory_trim(void)
{
	gsd_status	st = require_open();

	if (st != GSD_OK)
		return st;
	pthread_mutex_lock(&lock);
	pool_reserved = pool_used;
	pthread_mutex_unlock(&lock);
	return GSD_OK;
}

/* ---- reduction: the exact sum ---- */

/*
 * sum_args -- the checks of reduce_exact.cu: an aligned accumulator and
 * result, an input aligned to its element size where n > 0
 */
static gsd_status
sum_args(const void *d_in, size_t n, size_t esize, const gs_exact_acc *d_acc,
		 const double *d_result, const char *what)
{
	gsd_status	st = require_open();

	if (st != GSD_OK)
		return st;
	if (d_acc == NULL || (uintptr_t) d_acc % 8 != 0)
		return fail(GSD_INVALID, "%s: accumulator pointer is NULL or misaligned", what);
	if (d_result != NULL && (uintptr_t) d_result % 8 != 0)
		return fail(GSD_INVALID, "%s: result pointer is misaligned", what);
	if (n > 0 && (d_in == NULL || (uintptr_t) d_in % esize != 0))
		return fail(GSD_INVALID, "%s: input pointer is NULL or not aligned to its element size",
					what);
	return GSD_OK;
}

/* sum_done -- the accumulator normalized, and its rounded sum where asked */
static void
sum_done(gs_exact_acc *d_acc, double *d_result)
{
	gs_acc_normalize(d_acc);
	if (d_result != NULL)
		*d_result = gs_acc_round(d_acc);
}

gsd_status
gsd_sum_exact_f64(const double *d_in, size_t n, gs_exact_acc *d_acc, double *d_result)
{
	gsd_status	st = sum_args(d_in, n, sizeof(double), d_acc, d_result,
							  "exact sum of doubles");

	if (st != GSD_OK)
		return st;
	if (n > 0)
		cpu_sum_exact_f64(d_in, n, d_acc);
	sum_done(d_acc, d_result);
	return GSD_OK;
}

gsd_status
gsd_sum_exact_f32(const float *d_in, size_t n, gs_exact_acc *d_acc, double *d_result)
{
	gsd_status	st = sum_args(d_in, n, sizeof(float), d_acc, d_result,
							  "exact sum of floats");

	if (st != GSD_OK)
		return st;
	if (n > 0)
		cpu_sum_exact_f32(d_in, n, d_acc);
	sum_done(d_acc, d_result);
	return GSD_OK;
}

/* ---- prefix sums ---- */

/*
 * scan_args -- the checks of scan_exact.cu: an aligned carry; where n > 0
 * an aligned input and output that do not overlap
 */
static gsd_status
scan_args(const void *d_in, size_t n, size_t esize, const double *d_out,
		  const gs_exact_acc *d_carry, const char *what)
{
	gsd_status	st = require_open();

	if (st != GSD_OK)
		return st;
	if (d_carry == NULL || (uintptr_t) d_carry % 8 != 0)
		return fail(GSD_INVALID, "%s: carry pointer is NULL or misaligned", what);
	if (n == 0)
		return GSD_OK;
	if (d_in == NULL || (uintptr_t) d_in % esize != 0)
		return fail(GSD_INVALID, "%s: input pointer is NULL or not aligned to its element size",
					what);
	if (d_out == NULL || (uintptr_t) d_out % sizeof(double) != 0)
		return fail(GSD_INVALID, "%s: output pointer is NULL or misaligned", what);
	if ((uintptr_t) d_out < (uintptr_t) d_in + n * esize &&
		(uintptr_t) d_in < (uintptr_t) (d_out + n))
		return fail(GSD_INVALID, "%s: output overlaps the input", what);
	return GSD_OK;
}

gsd_status
gsd_prefix_sum_f64(const double *d_in, size_t n, double *d_out, int exclusive,
				   gs_exact_acc *d_carry)
{
	gsd_status	st = scan_args(d_in, n, sizeof(double), d_out, d_carry,
							   "prefix sum of doubles");

	if (st != GSD_OK)
		return st;
	if (n > 0)
		cpu_prefix_sum_f64(d_in, n, d_out, exclusive, d_carry);
	gs_acc_normalize(d_carry);
	return GSD_OK;
}

gsd_status
gsd_prefix_sum_f32(const float *d_in, size_t n, double *d_out, int exclusive,
				   gs_exact_acc *d_carry)
{
	gsd_status	st = scan_args(d_in, n, sizeof(float), d_out, d_carry,
							   "prefix sum of floats");

	if (st != GSD_OK)
		return st;
	if (n > 0)
		cpu_prefix_sum_f32(d_in, n, d_out, exclusive, d_carry);
	gs_acc_normalize(d_carry);
	return GSD_OK;
}

/* ---- stream compaction ---- */

/*
 * compact_args -- the checks of compact.cu (vals NULL and need_vals 0 for
 * positions); *d_count is set to 0 where n is 0
 */
static gsd_status
compact_args(const void *d_vals, int need_vals, const uint8_t *d_keep, size_t n,
			 const void *d_out, size_t out_size, uint64_t *d_count, const char *what)
{
	gsd_status	st = require_open();

	if (st != GSD_OK)
		return st;
	if (d_count == NULL || (uintptr_t) d_count % 8 != 0)
		return fail(GSD_INVALID, "%s: count pointer is NULL or misaligned", what);
	if (n == 0)
	{
		*d_count = 0;
		return GSD_OK;
	}
	if (n > COMPACT_MAX_N)
		return fail(GSD_INVALID, "%s: %zu elements are too many for one call", what, n);
	if ((need_vals && (d_vals == NULL || (uintptr_t) d_vals % 16 != 0)) ||
		d_keep == NULL || (uintptr_t) d_keep % 16 != 0)
		return fail(GSD_INVALID, "%s: input pointer is NULL or not 16-byte aligned", what);
	if (d_out == NULL || (uintptr_t) d_out % out_size != 0)
		return fail(GSD_INVALID, "%s: output pointer is NULL or misaligned", what);
	return GSD_OK;
}

/*
 * compact_run -- the CPU's compaction into d_out (positions from `first'
 * where d_vals is NULL).  cpu_compact.c may store one element past the kept
 * ones, which the device API leaves alone: that element is kept aside and
 * put back.
 */
static void
compact_run(const void *d_vals, const uint8_t *d_keep, size_t n, int32_t first,
			void *d_out, size_t size, uint64_t *d_count)
{
	size_t		kept = 0;
	unsigned char saved[sizeof(double)];
	char	   *past;

	for (size_t i = 0; i < n; i++)
		kept += d_keep[i] != 0;
	past = (char *) d_out + kept * size;
	if (kept < n)
		memcpy(saved, past, size);
	if (d_vals == NULL)
		cpu_compact_indices(d_keep, n, first, d_out);
	else if (size == sizeof(double))
		cpu_compact_f64(d_vals, d_keep, n, d_out);
	else
		cpu_compact_f32(d_vals, d_keep, n, d_out);
	if (kept < n)
		memcpy(past, saved, size);
	*d_count = kept;
}

gsd_status
gsd_compact_f64(const double *d_vals, const uint8_t *d_keep, size_t n, double *d_out,
				uint64_t *d_count)
{
	gsd_status	st = compact_args(d_vals, 1, d_keep, n, d_out, sizeof(double), d_count,
								  "compaction of doubles");

	if (st == GSD_OK && n > 0)
		compact_run(d_vals, d_keep, n, 0, d_out, sizeof(double), d_count);
	return st;
}

gsd_status
gsd_compact_f32(const float *d_vals, const uint8_t *d_keep, size_t n, float *d_out,
				uint64_t *d_count)
{
	gsd_status	st = compact_args(d_vals, 1, d_keep, n, d_out, sizeof(float), d_count,
								  "compaction of floats");

	if (st == GSD_OK && n > 0)
		compact_run(d_vals, d_keep, n, 0, d_out, sizeof(float), d_count);
	return st;
}

gsd_status
gsd_compact_indices(const uint8_t *d_keep, size_t n, int32_t first, int32_t *d_out,
					uint64_t *d_count)
{
	gsd_status	st;

	if (n > 0 && (int64_t) first + (int64_t) (n - 1) > INT32_MAX)
		return fail(GSD_INVALID, "compaction of positions: position %lld exceeds INT32_MAX",
					(long long) first + (long long) (n - 1));
	st = compact_args(NULL, 0, d_keep, n, d_out, sizeof(int32_t), d_count,
					  "compaction of positions");
	if (st == GSD_OK && n > 0)
		compact_run(NULL, d_keep, n, first, d_out, sizeof(int32_t), d_count);
	return st;
}

/* ---- sparse matrix x vector and PageRank ---- */

/*
 * The plan: the CPU's SpMV takes the rows one by one, so a plan holds only
 * the sizes, one group lane a row and no long-row segments; its memory is
 * a small block that nothing reads.
 */
size_t
gsd_spmv_plan_scratch_bytes(int32_t nrows)
{
	return ALLOC_ALIGN;
}

gsd_status
gsd_spmv_plan_analyze(gsd_spmv_plan *plan, const int32_t *d_row_ptr, int32_t nrows,
					  int32_t nnz, void *d_scratch)
{
	gsd_status	st = require_open();

	memset(plan, 0, sizeof(*plan));
	if (st != GSD_OK)
		return st;
	if (nrows < 0 || nnz < 0)
		return fail(GSD_INVALID, "planning a sparse matrix x vector: negative size");
	plan->nrows = nrows;
	plan->nnz = nnz;
	plan->group_lanes = 1;
	plan->long_row = INT32_MAX;
	/* spmv.cu reads the segments' count back */
	sync_point();
	return GSD_OK;
}

size_t
gsd_spmv_plan_bytes(const gsd_spmv_plan *plan)
{
	return ALLOC_ALIGN;
}

gsd_status
gsd_spmv_plan_build(gsd_spmv_plan *plan, const int32_t *d_row_ptr, const void *d_scratch,
					void *d_plan_memory)
{
	gsd_status	st = require_open();

	if (st != GSD_OK)
		return st;
	plan->d_segments = (int32_t *) d_plan_memory;
	plan->d_segment_sums = (double *) d_plan_memory;
	return GSD_OK;
}

/* spmv_args -- the checks of spmv.cu: a plan of the rows */
static gsd_status
spmv_args(const gsd_spmv_plan *plan, const char *what)
{
	gsd_status	st = require_open();

	if (st != GSD_OK)
		return st;
	if (plan == NULL || plan->nrows < 0 || (plan->nsegments > 0 && plan->d_segments == NULL) ||
		plan->stage_rows < 0 || plan->stage_rows > SPMV_STAGE_MAX_ROWS)
		return fail(GSD_INVALID, "%s: no plan, or a plan that was not built", what);
	return GSD_OK;
}

gsd_status
gsd_spmv_f64(const gsd_spmv_plan *plan, const int32_t *d_row_ptr, const int32_t *d_col_idx,
			 const double *d_vals, const double *d_x, double *d_y)
{
	gsd_status	st = spmv_args(plan, "sparse matrix x vector (double)");

	if (st == GSD_OK && plan->nrows > 0)
		cpu_spmv_f64(d_row_ptr, d_col_idx, d_vals, d_x, d_y, 0, plan->nrows);
	return st;
}

gsd_status
gsd_spmv_f32(const gsd_spmv_plan *plan, const int32_t *d_row_ptr, const int32_t *d_col_idx,
			 const float *d_vals, const float *d_x, float *d_y)
{
	gsd_status	st = spmv_args(plan, "sparse matrix x vector (real)");

	if (st == GSD_OK && plan->nrows > 0)
		cpu_spmv_f32(d_row_ptr, d_col_idx, d_vals, d_x, d_y, 0, plan->nrows);
	return st;
}

size_t
gsd_csr_transpose_scratch_bytes(int32_t ncols, int32_t nnz)
{
	return ALLOC_ALIGN;
}

/*
 * gsd_heap_values -- see gpuscan_device.h: the pages one by one with the
 * walker the device runs, a page any of whose tuples it refuses written
 * as -0.0 throughout
 */
gsd_status
gsd_heap_values(const void *d_shared, size_t nshared, const void *d_copies, size_t ncopies,
				const gs_heap_page_ref *d_refs, size_t npages, const gs_heap_layout *layout,
				double *d_values, unsigned char *d_bad, unsigned long long *d_nvalues)
{
	gsd_status	st = require_open();
	size_t		p;

	if (st != GSD_OK)
		return st;
	if (layout == NULL || (npages > 0 && (d_refs == NULL || d_values == NULL || d_bad == NULL ||
										  d_nvalues == NULL)))
		return fail(GSD_INVALID, "reading heap pages: a NULL pointer");
	if (layout->ncols < 1 || layout->ncols > GS_HEAP_MAX_COLS)
		return fail(GSD_INVALID, "reading heap pages: %d columns", layout->ncols);
	for (p = 0; p < npages; p++)
	{
		const unsigned char *page = gs_heap_ref_page(d_refs[p], d_shared, nshared, d_copies,
													 ncopies);
		double	   *out = d_values + p * GS_HEAP_MAX_TUPLES;
		int			nitems = d_refs[p].nitems;
		int			refused = page == NULL;
		unsigned long long count = 0;
		int			i;

		for (i = 0; i < GS_HEAP_MAX_TUPLES; i++)
			out[i] = -0.0;
		for (i = 0; !refused && i < nitems; i++)
		{
			uint32_t	off,
						len;
			int			item = gs_heap_item(page, i, &off, &len);
			int			r;

			if (item == 0)
				continue;
			r = item < 0 ? GS_HEAP_BAD : gs_heap_read(page + off, len, layout, &out[i]);
			if (r == GS_HEAP_BAD)
				refused = 1;
			else if (r == GS_HEAP_VALUE)
				count++;
			else
				out[i] = -0.0;
		}
		if (refused)
			for (i = 0; i < GS_HEAP_MAX_TUPLES; i++)
				out[i] = -0.0;
		d_bad[p] = (unsigned char) refused;
		if (!refused)
			*d_nvalues += count;
	}
	return GSD_OK;
}

/*
 * group_slot -- the slot of a group's keys (and NULL bits) in the table,
 * by linear probing from a hash of them, claimed if it has none; -1
 * where the table is full
 */
static int64_t
group_slot(gsd_group_table t, const int64_t *key, uint32_t nulls)
{
	uint32_t	mask = t.capacity - 1;
	uint64_t	hash = 0x9e3779b97f4a7c15ull * (nulls + 1);
	uint32_t	h;

	for (int j = 0; j < t.nkeys; j++)
	{
		hash = (hash ^ (uint64_t) key[j]) * 0x9e3779b97f4a7c15ull;
		hash ^= hash >> 29;
	}
	h = (uint32_t) (hash >> 32) & mask;
	for (uint32_t probe = 0; probe < t.capacity; probe++, h = (h + 1) & mask)
	{
		int64_t    *slot_keys = &t.keys[(size_t) h * t.nkeys];

		if (t.state[h] == 0)
		{
			t.state[h] = 2;
			memcpy(slot_keys, key, sizeof(int64_t) * t.nkeys);
			t.nulls[h] = nulls;
			return h;
		}
		if (t.nulls[h] == nulls && memcmp(slot_keys, key, sizeof(int64_t) * t.nkeys) == 0)
			return h;
	}
	return -1;
}

/*
 * gsd_heap_group_sums -- see gpuscan_device.h: each page walked whole
 * first, its groups updated only where no tuple of it is refused
 */
gsd_status
gsd_heap_group_sums(const void *d_shared, size_t nshared, const void *d_copies, size_t ncopies,
					const gs_heap_page_ref *d_refs, size_t npages, const gs_heap_layout *key_layouts,
					const gs_heap_layout *value_layout, gsd_group_table table,
					unsigned char *d_bad, uint32_t *d_full)
{
	gsd_status	st = require_open();

	if (st != GSD_OK)
		return st;
	if (key_layouts == NULL || value_layout == NULL ||
		(npages > 0 && (d_refs == NULL || d_bad == NULL || d_full == NULL || table.state == NULL ||
						table.keys == NULL || table.nulls == NULL || table.accs == NULL ||
						table.counts == NULL)))
		return fail(GSD_INVALID, "summing groups of heap pages: a NULL pointer");
	if (table.capacity == 0 || (table.capacity & (table.capacity - 1)) != 0)
		return fail(GSD_INVALID, "summing groups of heap pages: a table of %u slots (not a power of two)",
					table.capacity);
	if (table.nkeys < 1 || table.nkeys > GS_HEAP_MAX_KEYS)
		return fail(GSD_INVALID, "summing groups of heap pages: %d grouping columns", table.nkeys);
	for (int j = 0; j < table.nkeys; j++)
		if (key_layouts[j].ncols < 1 || key_layouts[j].ncols > GS_HEAP_MAX_COLS)
			return fail(GSD_INVALID, "summing groups of heap pages: a key's layout of %d columns",
						key_layouts[j].ncols);
	if (value_layout->ncols < 1 || value_layout->ncols > GS_HEAP_MAX_COLS)
		return fail(GSD_INVALID, "summing groups of heap pages: a layout of %d columns",
					value_layout->ncols);
	for (size_t p = 0; p < npages; p++)
	{
		const unsigned char *page = gs_heap_ref_page(d_refs[p], d_shared, nshared, d_copies,
													 ncopies);
		int			n = page ? d_refs[p].nitems : 0;
		int			refused = page == NULL;
		int64_t		key[GS_HEAP_MAX_KEYS];
		uint32_t	nulls;
		double		value;

		/* the first walk: is every tuple of the page as the format says? */
		for (int i = 0; !refused && i < n; i++)
		{
			uint32_t	off,
						len;
			int			item = gs_heap_item(page, i, &off, &len);

			if (item < 0 ||
				(item > 0 && gs_heap_read_group(page + off, len, key_layouts, table.nkeys,
												value_layout, key, &nulls,
												&value) == GS_HEAP_BAD))
				refused = 1;
		}
		d_bad[p] = (unsigned char) refused;
		/* the second: each tuple into its group */
		for (int i = 0; !refused && i < n; i++)
		{
			uint32_t	off,
						len;
			int64_t		s;
			int			vst;

			if (gs_heap_item(page, i, &off, &len) <= 0)
				continue;
			vst = gs_heap_read_group(page + off, len, key_layouts, table.nkeys, value_layout,
									 key, &nulls, &value);
			s = group_slot(table, key, nulls);
			if (s < 0)
			{
				*d_full = 1;
				continue;
			}
			if (vst == GS_HEAP_VALUE)
			{
				gs_acc_add(&table.accs[s], value);
				table.counts[s]++;
			}
		}
	}
	return GSD_OK;
}

gsd_status
gsd_csr_transpose_pattern(const int32_t *d_row_ptr, const int32_t *d_col_idx, int32_t nrows,
						  int32_t ncols, int32_t nnz, int32_t *d_t_row_ptr,
						  int32_t *d_t_col_idx, void *d_scratch)
{
	gsd_status	st = require_open();

	if (st != GSD_OK)
		return st;
	if (nrows < 0 || ncols < 0 || nnz < 0 || (nnz > 0 && (nrows == 0 || ncols == 0)))
		return fail(GSD_INVALID, "transposing a sparse matrix: %d x %d with %d non-zeros",
					nrows, ncols, nnz);
	cpu_csr_transpose_pattern_mn(d_row_ptr, d_col_idx, nrows, ncols, d_t_row_ptr, d_t_col_idx);
	return GSD_OK;
}

/* pagerank_vector_bytes -- one work vector of n doubles, 256-byte aligned */
static size_t
pagerank_vector_bytes(int32_t n)
{
	size_t		bytes = sizeof(double) * (size_t) (n > 0 ? n : 1);

	return (bytes + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;
}

size_t
gsd_pagerank_work_bytes(int32_t n)
{
	return 2 * pagerank_vector_bytes(n);
}

gsd_status
gsd_pagerank_iteration(const gsd_spmv_plan *plan, const int32_t *d_in_ptr,
					   const int32_t *d_in_idx, const int32_t *d_outdeg, double damping,
					   const double *d_rank, double *d_next, void *d_work, double *residual)
{
	int32_t		n = plan->nrows;
	gsd_status	st = require_open();

	*residual = 0.0;
	if (st != GSD_OK)
		return st;
	if (n <= 0)
		return fail(GSD_INVALID, "PageRank iteration: empty graph");
	*residual = cpu_pagerank_iteration(d_in_ptr, d_in_idx, d_outdeg, n, damping, d_rank,
									   d_next, (double *) d_work,
									   (double *) ((char *) d_work + pagerank_vector_bytes(n)));
	/* spmv.cu downloads the residual */
	sync_point();
	return GSD_OK;
}
