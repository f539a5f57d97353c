/*-------------------------------------------------------------------------
 *
 * service_ops.h
 *	  What the GPU service does for a request (channel.h): runs in
 *	  the service's process only.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SERVICE_OPS_H
#define GPUSCAN_SERVICE_OPS_H

#include "ipc/channel.h"

/*
 * Run one request into *resp.  Device errors are answers (resp->ok false,
 * resp->gpu_failed true), not ERRORs.
 */
extern void gs_service_serve(const GsRequest *req, GsResponse *resp);

/* At the process's start: the GPU it serves */
extern void gs_service_ops_set_device(int device);

/* At the process's start: shared buffers as its GPU reads them (nbuffers pages at d_buffers) */
extern void gs_service_ops_set_buffers(const void *d_buffers, int nbuffers);

/*
 * Whether a device error broke the service's CUDA context: the service
 * must then exit, to be started again with a new one.
 */
extern bool gs_service_context_broken(void);

/*
 * The main thread, after a configuration reload: a lowered
 * gpuscan.cache_size evicts at once (least recently used first, never an
 * entry in use)
 */
extern void gs_service_apply_settings(void);

/*
 * The main thread, now and then: once no request has run for a while, the
 * memory pool's unused device memory goes back to the GPU
 */
extern void gs_service_idle(void);

#endif							/* GPUSCAN_SERVICE_OPS_H */
