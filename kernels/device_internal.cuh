/*-------------------------------------------------------------------------
 *
 * device_internal.cuh
 *	  What the kernel files share with device.cu: the process's stream,
 *	  device facts read once at open, and error recording.  CUDA-side only.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_DEVICE_INTERNAL_CUH
#define GPUSCAN_DEVICE_INTERNAL_CUH

#include <cuda_runtime.h>

#include "gpuscan_device.h"

/*
 * The stream all work of the calling thread goes to (valid after
 * gsd_require_open): a thread's calls run in order, several threads' at
 * once.
 */
cudaStream_t gsd_stream(void);

/*
 * The calling thread's counter of finished blocks (valid after
 * gsd_require_open), zero between launches: a kernel whose last block
 * finishes the work counts its blocks here, and that block resets it.
 */
unsigned int *gsd_block_counter(void);

/* Multiprocessor count of the open device. */
int			gsd_sm_count(void);

/*
 * Record a CUDA error as the last error ("<what> failed: <cuda message>")
 * and classify it: GSD_OUT_OF_MEMORY, GSD_STICKY (the context is broken:
 * illegal address, launch failure, ...; device.cu then refuses further
 * work) or GSD_FAILED.  cudaSuccess gives GSD_OK.
 */
gsd_status	gsd_cuda_status(cudaError_t err, const char *what);

/* Record a non-CUDA error message and return `status`. */
gsd_status	gsd_fail(gsd_status status, const char *fmt,...);

/* Check the launch just made (cudaGetLastError) as gsd_cuda_status does. */
#define GSD_CHECK_LAUNCH(what) \
	do { gsd_status st_ = gsd_cuda_status(cudaGetLastError(), (what)); \
		 if (st_ != GSD_OK) return st_; } while (0)

/* Return early unless a device is open and usable. */
gsd_status	gsd_require_open(void);

/* Scratch areas carved out of one allocation start on 256-byte boundaries. */
#define GSD_SCRATCH_ALIGN	256

/* gsd_scratch_align -- bytes rounded up to GSD_SCRATCH_ALIGN */
static inline size_t
gsd_scratch_align(size_t bytes)
{
	return (bytes + GSD_SCRATCH_ALIGN - 1) / GSD_SCRATCH_ALIGN * GSD_SCRATCH_ALIGN;
}

#endif							/* GPUSCAN_DEVICE_INTERNAL_CUH */
