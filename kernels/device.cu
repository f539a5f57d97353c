/*-------------------------------------------------------------------------
 *
 * device.cu
 *	  The per-process device layer: driver and device queries, one context,
 *	  a stream per thread, the stream-ordered memory pool, copies, error
 *	  reporting.
 *
 * Nothing here runs until the PostgreSQL side asks for it, so a backend that
 * never uses the GPU never loads libcuda.so.1; the runtime is linked
 * statically and opens the driver at its first call.
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "device_internal.cuh"

#ifndef GPUSCAN_ARCHS
#define GPUSCAN_ARCHS "unknown"
#endif

/* bytes the pool keeps cached between calls instead of returning them */
#define POOL_RELEASE_THRESHOLD	((uint64_t) 256 << 20)

static int	open_device = -1;
static int	broken;				/* a sticky error happened ... */
static char broken_reason[512]; /* ... and its message */
static cudaMemPool_t pool;
static int	sm_count;

/*
 * Each thread that works on the open device has its own stream, its own
 * counter of finished blocks (for the reductions that let their last block
 * finish the work) and its own last error: the GPU service runs several
 * requests at once, each in a thread of its own.
 */
static __thread cudaStream_t stream;
static __thread unsigned int *block_counter;
static __thread char last_error[512] = "no error";

const char *
gsd_last_error(void)
{
	return last_error;
}

/* gsd_fail -- record a message of our own and return status */
gsd_status
gsd_fail(gsd_status status, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return status;
}

/* is_sticky -- errors after which the context cannot be used again */
static bool
is_sticky(cudaError_t err)
{
	switch (err)
	{
		case cudaErrorIllegalAddress:
		case cudaErrorLaunchFailure:
		case cudaErrorHardwareStackError:
		case cudaErrorIllegalInstruction:
		case cudaErrorMisalignedAddress:
		case cudaErrorInvalidAddressSpace:
		case cudaErrorInvalidPc:
		case cudaErrorAssert:
		case cudaErrorLaunchTimeout:
		case cudaErrorECCUncorrectable:
		case cudaErrorContextIsDestroyed:
		case cudaErrorDevicesUnavailable:
		case cudaErrorUnknown:
			return true;
		default:
			return false;
	}
}

/* gsd_cuda_status -- classify a CUDA error and record its message */
gsd_status
gsd_cuda_status(cudaError_t err, const char *what)
{
	if (err == cudaSuccess)
		return GSD_OK;
	snprintf(last_error, sizeof(last_error), "%s failed: %s (%s)",
			 what, cudaGetErrorString(err), cudaGetErrorName(err));
	/*
	 * The runtime keeps the error as the thread's last one too: clear it
	 * (sticky errors stay), or the next launch check on this thread
	 * (cudaGetLastError) would report a failed allocation of an earlier
	 * request as its own
	 */
	(void) cudaGetLastError();
	switch (err)
	{
		case cudaErrorMemoryAllocation:
			return GSD_OUT_OF_MEMORY;
		case cudaErrorInsufficientDriver:
		case cudaErrorSystemDriverMismatch:
		case cudaErrorCompatNotSupportedOnDevice:
		case cudaErrorUnsupportedPtxVersion:
			return GSD_NO_DRIVER;
		case cudaErrorNoDevice:
		case cudaErrorInvalidDevice:
		case cudaErrorNoKernelImageForDevice:
			return GSD_NO_DEVICE;
		default:
			break;
	}
	if (is_sticky(err))
	{
		if (!broken)
			memcpy(broken_reason, last_error, sizeof(broken_reason));
		broken = 1;
		return GSD_STICKY;
	}
	return GSD_FAILED;
}

#define TRY(call, what) \
	do { gsd_status st_ = gsd_cuda_status((call), (what)); \
		 if (st_ != GSD_OK) return st_; } while (0)

/*
 * thread_setup -- this thread's stream and block counter on the open
 * device, made at its first work there (the runtime's current device is a
 * thread's own, too)
 */
static gsd_status
thread_setup(void)
{
	TRY(cudaSetDevice(open_device), "cudaSetDevice");
	if (block_counter == NULL)
	{
		TRY(cudaMalloc((void **) &block_counter, sizeof(unsigned int)), "cudaMalloc");
		TRY(cudaMemset(block_counter, 0, sizeof(unsigned int)), "cudaMemset");
	}
	TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
	return GSD_OK;
}

gsd_status
gsd_require_open(void)
{
	if (broken)
		return gsd_fail(GSD_STICKY, "%s", broken_reason);	/* the first thread's error */
	if (open_device < 0)
		return gsd_fail(GSD_INVALID, "no device is open in this process");
	if (stream == NULL)
		return thread_setup();
	return GSD_OK;
}

cudaStream_t
gsd_stream(void)
{
	return stream;
}

unsigned int *
gsd_block_counter(void)
{
	return block_counter;
}

int
gsd_sm_count(void)
{
	return sm_count;
}

/* no_driver -- the status and message when no driver can be loaded */
static gsd_status
no_driver(void)
{
	return gsd_fail(GSD_NO_DRIVER,
					"no CUDA driver found (libcuda.so.1 could not be loaded)");
}

gsd_status
gsd_get_build_info(gsd_build_info *info)
{
	memset(info, 0, sizeof(*info));
	info->runtime_version = CUDART_VERSION;
	/* returns 0 without error where no driver is installed */
	if (cudaDriverGetVersion(&info->driver_version) != cudaSuccess)
		info->driver_version = 0;
	snprintf(info->arch_list, sizeof(info->arch_list), "%s", GPUSCAN_ARCHS);
	return GSD_OK;
}

gsd_status
gsd_device_count(int *count)
{
	int			driver = 0;

	*count = 0;
	if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
		return no_driver();
	if (driver < CUDART_VERSION / 1000 * 1000)
		return gsd_fail(GSD_NO_DRIVER,
						"the CUDA driver supports CUDA %d.%d, older than the runtime %d.%d this library was built with",
						driver / 1000, driver % 1000 / 10,
						CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
	TRY(cudaGetDeviceCount(count), "cudaGetDeviceCount");
	return GSD_OK;
}

gsd_status
gsd_get_device_props(int index, gsd_device_props *props)
{
	cudaDeviceProp p;
	int			count;
	gsd_status	st = gsd_device_count(&count);

	memset(props, 0, sizeof(*props));
	if (st != GSD_OK)
		return st;
	if (index < 0 || index >= count)
		return gsd_fail(GSD_NO_DEVICE, "device %d does not exist (%d device%s found)",
						index, count, count == 1 ? "" : "s");
	TRY(cudaGetDeviceProperties(&p, index), "cudaGetDeviceProperties");
	snprintf(props->name, sizeof(props->name), "%s", p.name);
	props->total_memory = p.totalGlobalMem;
	props->multiprocessors = p.multiProcessorCount;
	props->cc_major = p.major;
	props->cc_minor = p.minor;
	return GSD_OK;
}

/* open_device_index -- gsd_open's work: context, stream, pool */
static gsd_status
open_device_index(int index)
{
	gsd_device_props props;
	uint64_t	threshold = POOL_RELEASE_THRESHOLD;
	gsd_status	st;

	st = gsd_get_device_props(index, &props);
	if (st != GSD_OK)
		return st;
	if (props.cc_major < 8)
		return gsd_fail(GSD_NO_DEVICE,
						"device %d (%s) has compute capability %d.%d; 8.0 or newer is required",
						index, props.name, props.cc_major, props.cc_minor);

	TRY(cudaSetDevice(index), "cudaSetDevice");
	/* create the context now, so that its cost is not charged to a kernel */
	TRY(cudaFree(0), "creating the CUDA context");
	TRY(cudaDeviceGetDefaultMemPool(&pool, index), "cudaDeviceGetDefaultMemPool");
	TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
		"cudaMemPoolSetAttribute");
	sm_count = props.multiprocessors;
	open_device = index;
	/* the opening thread's stream */
	st = thread_setup();
	if (st != GSD_OK)
		open_device = -1;
	return st;
}

gsd_status
gsd_open(int index)
{
	if (broken)
		return GSD_STICKY;
	if (open_device >= 0)
		return index == open_device ? GSD_OK :
			gsd_fail(GSD_INVALID, "device %d is already open in this process; cannot switch to device %d",
					 open_device, index);
	return open_device_index(index);
}

int
gsd_is_open(void)
{
	return open_device >= 0 && !broken;
}

gsd_status
gsd_alloc(size_t bytes, void **dptr)
{
	gsd_status	st;

	*dptr = NULL;
	if ((st = gsd_require_open()) != GSD_OK)
		return st;
	/* a zero-byte request still gets a distinct pointer */
	TRY(cudaMallocAsync(dptr, bytes ? bytes : 1, stream), "cudaMallocAsync");
	return GSD_OK;
}

gsd_status
gsd_free(void *dptr)
{
	if (dptr == NULL || open_device < 0 || broken)
		return GSD_OK;
	if (stream == NULL && thread_setup() != GSD_OK)
		return GSD_FAILED;
	return gsd_cuda_status(cudaFreeAsync(dptr, stream), "cudaFreeAsync");
}

gsd_status
gsd_upload(void *dst, const void *src, size_t bytes)
{
	gsd_status	st;

	if ((st = gsd_require_open()) != GSD_OK)
		return st;
	if (bytes == 0)
		return GSD_OK;
	TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream),
		"copying to the device");
	/* the caller may free or reuse src as soon as we return */
	TRY(cudaStreamSynchronize(stream), "copying to the device");
	return GSD_OK;
}

gsd_status
gsd_download(void *dst, const void *src, size_t bytes)
{
	gsd_status	st;

	if ((st = gsd_require_open()) != GSD_OK)
		return st;
	if (bytes > 0)
		TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream),
			"copying from the device");
	TRY(cudaStreamSynchronize(stream), "copying from the device");
	return GSD_OK;
}

gsd_status
gsd_memset_zero(void *dst, size_t bytes)
{
	gsd_status	st;

	if ((st = gsd_require_open()) != GSD_OK)
		return st;
	TRY(cudaMemsetAsync(dst, 0, bytes, stream), "cudaMemsetAsync");
	return GSD_OK;
}

gsd_status
gsd_synchronize(void)
{
	gsd_status	st;

	if ((st = gsd_require_open()) != GSD_OK)
		return st;
	TRY(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	return GSD_OK;
}

gsd_status
gsd_host_register(void *host, size_t bytes)
{
	gsd_status	st;

	if ((st = gsd_require_open()) != GSD_OK)
		return st;
	TRY(cudaHostRegister(host, bytes, cudaHostRegisterPortable), "cudaHostRegister");
	return GSD_OK;
}

gsd_status
gsd_host_map(void *host, size_t bytes, const void **d_host)
{
	gsd_status	st;
	void	   *d = NULL;

	*d_host = NULL;
	if ((st = gsd_require_open()) != GSD_OK)
		return st;
	TRY(cudaHostRegister(host, bytes, cudaHostRegisterPortable | cudaHostRegisterMapped),
		"cudaHostRegister");
	TRY(cudaHostGetDevicePointer(&d, host, 0), "cudaHostGetDevicePointer");
	*d_host = d;
	return GSD_OK;
}

/* pool_figure -- an attribute of the pool, after the stream's frees have landed */
static gsd_status
pool_figure(cudaMemPoolAttr attr, size_t *bytes)
{
	uint64_t	value = 0;
	gsd_status	st;

	*bytes = 0;
	if ((st = gsd_require_open()) != GSD_OK)
		return st;
	/* frees are stream-ordered: let them land before reading the figure */
	TRY(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
	TRY(cudaMemPoolGetAttribute(pool, attr, &value), "cudaMemPoolGetAttribute");
	*bytes = (size_t) value;
	return GSD_OK;
}

gsd_status
gsd_memory_in_use(size_t *bytes)
{
	return pool_figure(cudaMemPoolAttrUsedMemCurrent, bytes);
}

gsd_status
gsd_memory_reserved(size_t *bytes)
{
	return pool_figure(cudaMemPoolAttrReservedMemCurrent, bytes);
}

/* gsd_memory_trim -- all the process's work done, the pool's unused memory back */
gsd_status
gsd_memory_trim(void)
{
	gsd_status	st;

	if ((st = gsd_require_open()) != GSD_OK)
		return st;
	TRY(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
	TRY(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo");
	return GSD_OK;
}
