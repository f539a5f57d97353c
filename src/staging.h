/*-------------------------------------------------------------------------
 *
 * staging.h
 *	  Chunked calls: how long inputs are cut into chunks on both paths, and
 *	  the GPU path's movement of each chunk through the pinned staging
 *	  (gpuscan_device.h) with the copy workers (copy_workers.h).
 *
 * A chunk of a GPU call goes: host copy into an input slot's pinned buffer
 * (the copy workers and the backend together) -> upload to that slot's
 * device buffer -> kernel -> (its output) download into an output slot's
 * pinned buffer -> host copy out of it, one chunk later.  Chunk k takes
 * input slot GS_IN_SLOT(k) and output slot GS_OUT_SLOT(k), so while the
 * host copies chunk k in, chunk k - 1 is on its way up or in its kernel
 * and the output of chunk k - 2 on its way down.
 *
 * The copy workers run only while the backend waits for them, with one
 * exception, gs_stage_in's NULL check, which catches its ERROR to wait for
 * them first: no ERROR or cancel ever leaves a worker copying.  Nothing in
 * the staging is freed when a call is abandoned, and its next use waits
 * for the copies still in flight.
 *
 * The CPU path cuts its inputs into chunks of the same number of elements,
 * so that both paths answer interrupts (gs_chunk_done) at the same points.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_STAGING_H
#define GPUSCAN_STAGING_H

#include "array_input.h"

#define GS_IN_SLOT(k)	((int) ((k) % 2))
#define GS_OUT_SLOT(k)	(2 + (int) ((k) % 2))

/* gpuscan.staging_size (kB), gpuscan.copy_threads, gpuscan.debug_cancel_after_chunks */
extern int	gpuscan_staging_size_kb;
extern int	gpuscan_copy_threads;
extern int	gpuscan_debug_cancel_after_chunks;

/* Bytes of one staging slot under gpuscan.staging_size */
extern Size gs_slot_bytes(void);

/* Copy threads under gpuscan.copy_threads (-1: half the cores, at most 8) */
extern int	gs_copy_workers_wanted(void);

/*
 * Elements per chunk of a call that puts bytes_per_elem bytes of each
 * element into one slot: a multiple of 256, with GSD_STAGING_ALIGN bytes
 * of the slot left over after them (room for a chunk's count)
 */
extern int64 gs_chunk_elems(int bytes_per_elem);

/*
 * Ready the copy workers under gpuscan.copy_threads (kept between calls;
 * the CPU path uses them to pre-fault results), and for a GPU call the
 * staging under gpuscan.staging_size.
 */
extern void gs_copy_workers_begin(const char *fn);
extern void gs_staging_begin(const char *fn);

/* A slot's two buffers, once its last copy is done */
typedef struct GsSlot
{
	char	   *host;
	char	   *device;
} GsSlot;

extern GsSlot gs_slot(int slot, const char *fn);

/*
 * Copy `count` elements of `in` (elements of `elemsize` bytes at `values`,
 * checked for NULLs where `in` has a NULL bitmap), from element `start`,
 * to `host`, on the copy workers and this thread
 */
extern void gs_stage_in(char *host, const GsArrayInput *in, const char *values, int elemsize,
						int64 start, int64 count);

/* Queue the upload of bytes at offset of a slot, and a download into one */
extern void gs_upload_slot(int slot, Size offset, Size bytes, const char *fn);
extern void gs_download_to_slot(int slot, Size offset, const void *d_src, Size bytes,
								const char *fn);

/*
 * The end of chunk k (0-based) of a chunked call on either path: answer a
 * cancel or statement_timeout here
 */
extern void gs_chunk_done(int64 k);

/*
 * Define gpuscan.staging_size, gpuscan.copy_threads and the tests' chunk
 * cancel; from _PG_init
 */
extern void gs_staging_init(void);

#endif							/* GPUSCAN_STAGING_H */
