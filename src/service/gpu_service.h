/*-------------------------------------------------------------------------
 *
 * gpu_service.h
 *	  The GPU service: a background worker, started where gpuscan is in
 *	  shared_preload_libraries, that is to own the GPUs for every session.
 *
 * The service is one process per GPU.  The first, "gpuscan gpu service",
 * starts with the server, finds the GPUs (or why none is usable), publishes
 * what it found in shared memory, starts one more process, "gpuscan gpu
 * service N", for each further GPU N, and serves GPU 0.  Each process opens
 * its own GPU (one CUDA context per GPU for the whole server) and answers
 * the requests that placement.h sent to it through the channels of
 * channel.h (service_ops.h): the sums, prefix sums, compactions,
 * SpMV and PageRank of stored arrays from its GPU's device cache
 * (device_cache.h) and of values the sessions send (service_call.h).  A
 * session of a server that runs the service opens no GPU of its own.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPU_SERVICE_H
#define GPU_SERVICE_H

#include "postgres.h"

#include "ipc/service_status.h"


/*
 * Ask for the shared memory and register the service's background worker;
 * from gs_service_init while shared_preload_libraries is processed.
 */
extern void gs_service_register(void);

/*
 * Where gpuscan is preloaded, define the service's settings and register
 * it (gs_service_register); from _PG_init
 */
extern void gs_service_init(void);

#endif							/* GPU_SERVICE_H */
