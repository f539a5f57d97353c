/*-------------------------------------------------------------------------
 *
 * staging_slots.h
 *	  The session's own GPU path: the movement of each chunk (chunks.h)
 *	  through the session's pinned staging slots (gpuscan_device.h).
 *
 * A chunk of a GPU call goes: host copy into an input slot's pinned buffer
 * (the copy workers and the backend together) -> upload to that slot's
 * device buffer -> kernel -> (its output) download into an output slot's
 * pinned buffer -> host copy out of it, one chunk later.  Chunk k takes
 * input slot GS_IN_SLOT(k) and output slot GS_OUT_SLOT(k), so while the
 * host copies chunk k in, chunk k - 1 is on its way up or in its kernel
 * and the output of chunk k - 2 on its way down.  Nothing in the staging
 * is freed when a call is abandoned, and its next use waits for the
 * copies still in flight.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_STAGING_SLOTS_H
#define GPUSCAN_STAGING_SLOTS_H

#include "postgres.h"

#define GS_IN_SLOT(k)	((int) ((k) % 2))
#define GS_OUT_SLOT(k)	(2 + (int) ((k) % 2))

/*
 * Ready the copy workers and the staging under gpuscan.staging_size for a
 * GPU call
 */
extern void gs_staging_begin(const char *fn);

/* A slot's two buffers, once its last copy is done */
typedef struct GsSlot
{
	char	   *host;
	char	   *device;
} GsSlot;

extern GsSlot gs_slot(int slot, const char *fn);

/* Queue the upload of bytes at offset of a slot, and a download into one */
extern void gs_upload_slot(int slot, Size offset, Size bytes, const char *fn);
extern void gs_download_to_slot(int slot, Size offset, const void *d_src, Size bytes,
								const char *fn);

#endif							/* GPUSCAN_STAGING_SLOTS_H */
