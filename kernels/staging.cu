/*-------------------------------------------------------------------------
 *
 * staging.cu
 *	  Pinned staging slots and their device buffers, and the copies between
 *	  them on two copy streams of their own (gpuscan_device.h).
 *
 * Ordering, with the kernels on the process's stream (gsd_stream):
 *  - an upload waits for every kernel queued before it (its device buffer
 *    may still be read by one), and every later kernel waits for it;
 *  - a download waits for every kernel queued before it (its source is
 *    written by one), and every later kernel waits for it (it may
 *    overwrite the source);
 *  - one event per slot marks its last copy: gsd_staging_slot waits for it
 *    before the host buffer is written or read.
 * So the upload of chunk k + 1 and the download of chunk k both start once
 * the kernel of chunk k is done, and run at the same time, each on its
 * copy engine, while the host fills the next slot.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <string.h>

#include <cuda_runtime.h>

#include "device_internal.cuh"

#define MIN_SLOT_BYTES	((size_t) 64 << 10)
#define DEFAULT_SLOT_BYTES ((size_t) 16 << 20)

static size_t configured = DEFAULT_SLOT_BYTES;
static gsd_staging_buffers bufs;	/* allocated = bufs.slot_bytes != 0 */
static cudaStream_t up_stream,
			down_stream;
static cudaEvent_t slot_done[GSD_STAGING_SLOTS + 1];

#define NSLOTS			(GSD_STAGING_SLOTS + 1)

/* slot_size -- bytes of slot s in buffers of slot_bytes */
static size_t
slot_size(int s, size_t slot_bytes)
{
	return s == GSD_SCRATCH_SLOT ? GSD_STAGING_SCRATCH : slot_bytes;
}
static cudaEvent_t compute_tail;

#define TRY(call, what) \
	do { gsd_status st_ = gsd_cuda_status((call), (what)); \
		 if (st_ != GSD_OK) return st_; } while (0)

/* gsd_staging_alloc -- see device_internal.cuh; on failure frees what it made */
cudaError_t
gsd_staging_alloc(gsd_staging_buffers *b, size_t slot_bytes)
{
	cudaError_t err = cudaSuccess;
	int			s;

	memset(b, 0, sizeof(*b));
	for (s = 0; s < NSLOTS && err == cudaSuccess; s++)
	{
		err = cudaMallocHost(&b->host[s], slot_size(s, slot_bytes));
		if (err == cudaSuccess)
			err = cudaMalloc(&b->device[s], slot_size(s, slot_bytes));
	}
	if (err != cudaSuccess)
	{
		gsd_staging_release(b);
		return err;
	}
	b->slot_bytes = slot_bytes;
	return cudaSuccess;
}

/* gsd_staging_release -- see device_internal.cuh */
void
gsd_staging_release(gsd_staging_buffers *b)
{
	int			s;

	for (s = 0; s < NSLOTS; s++)
	{
		if (b->host[s])
			(void) cudaFreeHost(b->host[s]);
		if (b->device[s])
			(void) cudaFree(b->device[s]);
	}
	memset(b, 0, sizeof(*b));
}

/* gsd_staging_adopt -- see device_internal.cuh */
void
gsd_staging_adopt(gsd_staging_buffers *b)
{
	if (bufs.slot_bytes == 0 && b->slot_bytes == configured)
		bufs = *b;
	else
		gsd_staging_release(b);
	memset(b, 0, sizeof(*b));
}

/* ready -- the streams and events (once), and buffers of the configured size */
static gsd_status
ready(void)
{
	gsd_status	st = gsd_require_open();
	int			s;

	if (st != GSD_OK)
		return st;
	if (up_stream == NULL)
	{
		TRY(cudaStreamCreateWithFlags(&up_stream, cudaStreamNonBlocking), "cudaStreamCreate");
		TRY(cudaStreamCreateWithFlags(&down_stream, cudaStreamNonBlocking), "cudaStreamCreate");
		TRY(cudaEventCreateWithFlags(&compute_tail, cudaEventDisableTiming), "cudaEventCreate");
		for (s = 0; s < NSLOTS; s++)
			TRY(cudaEventCreateWithFlags(&slot_done[s], cudaEventDisableTiming), "cudaEventCreate");
	}
	if (bufs.slot_bytes != 0 && bufs.slot_bytes != configured)
	{
		/* another size: let the copies out of the old buffers finish first */
		TRY(cudaStreamSynchronize(up_stream), "cudaStreamSynchronize");
		TRY(cudaStreamSynchronize(down_stream), "cudaStreamSynchronize");
		TRY(cudaStreamSynchronize(gsd_stream()), "cudaStreamSynchronize");
		gsd_staging_release(&bufs);
	}
	if (bufs.slot_bytes == 0)
		TRY(gsd_staging_alloc(&bufs, configured), "allocating the pinned staging");
	return GSD_OK;
}

gsd_status
gsd_staging_configure(size_t slot_bytes)
{
	slot_bytes = slot_bytes / GSD_STAGING_ALIGN * GSD_STAGING_ALIGN;
	configured = slot_bytes < MIN_SLOT_BYTES ? MIN_SLOT_BYTES : slot_bytes;
	return GSD_OK;
}

int
gsd_staging_allocated(size_t *slot_bytes)
{
	*slot_bytes = bufs.slot_bytes;
	return bufs.slot_bytes != 0;
}

gsd_status
gsd_staging_slot(int slot, void **host, void **device)
{
	gsd_status	st;

	*host = NULL;
	*device = NULL;
	if ((st = ready()) != GSD_OK)
		return st;
	if (slot < 0 || slot >= NSLOTS)
		return gsd_fail(GSD_INVALID, "staging slot %d out of range", slot);
	TRY(cudaEventSynchronize(slot_done[slot]), "waiting for a staged copy");
	*host = bufs.host[slot];
	*device = bufs.device[slot];
	return GSD_OK;
}

/* check_range -- a copy of bytes at offset within a slot of the current buffers */
static gsd_status
check_range(int slot, size_t offset, size_t bytes)
{
	if (slot < 0 || slot >= NSLOTS || bufs.slot_bytes == 0 ||
		offset > slot_size(slot, bufs.slot_bytes) ||
		bytes > slot_size(slot, bufs.slot_bytes) - offset)
		return gsd_fail(GSD_INVALID, "staged copy of %zu bytes at %zu of slot %d out of range",
						bytes, offset, slot);
	return GSD_OK;
}

/*
 * copy_after_kernels -- on `copy`, after everything queued on the kernels'
 * stream; the slot's event after it, and the kernels' stream waits for it
 */
static gsd_status
copy_after_kernels(cudaStream_t copy, int slot, void *dst, const void *src, size_t bytes,
				   cudaMemcpyKind kind, const char *what)
{
	cudaStream_t compute = gsd_stream();

	TRY(cudaEventRecord(compute_tail, compute), "cudaEventRecord");
	TRY(cudaStreamWaitEvent(copy, compute_tail, 0), "cudaStreamWaitEvent");
	if (bytes > 0)
		TRY(cudaMemcpyAsync(dst, src, bytes, kind, copy), what);
	TRY(cudaEventRecord(slot_done[slot], copy), "cudaEventRecord");
	TRY(cudaStreamWaitEvent(compute, slot_done[slot], 0), "cudaStreamWaitEvent");
	return GSD_OK;
}

gsd_status
gsd_upload_staged(int slot, size_t offset, size_t bytes)
{
	gsd_status	st;

	if ((st = ready()) != GSD_OK || (st = check_range(slot, offset, bytes)) != GSD_OK)
		return st;
	return copy_after_kernels(up_stream, slot, (char *) bufs.device[slot] + offset,
							  (const char *) bufs.host[slot] + offset, bytes,
							  cudaMemcpyHostToDevice, "copying to the device");
}

gsd_status
gsd_download_staged(int slot, size_t offset, const void *d_src, size_t bytes)
{
	gsd_status	st;

	if ((st = ready()) != GSD_OK || (st = check_range(slot, offset, bytes)) != GSD_OK)
		return st;
	return copy_after_kernels(down_stream, slot, (char *) bufs.host[slot] + offset, d_src, bytes,
							  cudaMemcpyDeviceToHost, "copying from the device");
}
