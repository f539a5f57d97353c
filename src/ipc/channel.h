/*-------------------------------------------------------------------------
 *
 * channel.h
 *	  The channels between sessions and the GPU service: one request at a
 *	  time per session, in shared memory, with latches to wake each side.
 *
 * A session takes a free channel at its first request and keeps it until
 * it exits (and one more per GPU for a call split over several).  It
 * posts a request and waits on its latch for the answer, answering a
 * cancel or a statement timeout at once.  A request it stops waiting for
 * (an ERROR, a cancel, its exit) is abandoned: the service stops it at its
 * next check and frees the channel, and the session takes another one for
 * its next call.  A request that the service cannot finish because it
 * stopped is posted again once the service is back under
 * gpuscan.device = gpu, else it ends in an ERROR (gs_service_call) or
 * the CPU path (gs_service_try_call).
 *
 *-------------------------------------------------------------------------
 */
#ifndef SERVICE_CHANNEL_H
#define SERVICE_CHANNEL_H

#include "postgres.h"

#include "storage/latch.h"

#include "ipc/protocol.h"
#include "ipc/service_status.h"

/*
 * Channels: one per possible backend, and as many again for the second and
 * later requests of calls split over several GPUs; a session holds at most
 * GS_SESSION_CHANNELS
 */
#define GS_SESSION_CHANNELS	GS_SERVICE_MAX_DEVICES
#define GS_CHANNEL_COUNT	(2 * MaxBackends)

/* ---- shared memory (from gpu_service.c's hooks) ---- */

extern Size gs_channels_shmem_size(void);
extern void gs_channels_shmem_init(void);

/* ---- what both sides read and do ---- */

/* Channels taken by sessions now, and how many there are */
extern void gs_channels_in_use(int *in_use, int *total);

/*
 * Requests waiting for or running on each GPU's current process:
 * busy[0 .. ndevices-1]
 */
extern void gs_channels_busy(int *busy, int ndevices);

/* Where GPU `device`'s process publishes its latch, for sessions to wake it */
extern void gs_channels_set_service_latch(int device, Latch *latch);

/*
 * Free the channels that sessions abandoned while an earlier start of GPU
 * device's process ran their requests (the current start is `starts`):
 * nobody else will.  The service's main thread, at its start and now and
 * then.
 */
extern void gs_channels_sweep(int device, int starts);

#endif							/* SERVICE_CHANNEL_H */
