/*-------------------------------------------------------------------------
 *
 * gpu_service.h
 *	  The GPU service: a background worker, started where gpuscan is in
 *	  shared_preload_libraries, that is to own the GPUs for every session.
 *
 * The service starts with the server, finds the GPUs (or why none is
 * usable), publishes what it found in shared memory and answers the
 * sessions' requests through the channels of service_channel.h
 * (service_ops.h): which GPUs it has, and the sums, prefix sums, SpMV and
 * PageRank of stored arrays from its device cache (device_cache.h).  The
 * other device work still runs in each session.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPU_SERVICE_H
#define GPU_SERVICE_H

#include "postgres.h"

#include "datatype/timestamp.h"

/* seconds before the postmaster starts the service again after it exits */
#define GS_SERVICE_RESTART_SECONDS	5

/* What the service is doing */
typedef enum GsServiceState
{
	GS_SERVICE_STOPPED,			/* not running (between a crash and its restart, or at shutdown) */
	GS_SERVICE_STARTING,		/* started, looking for the GPUs */
	GS_SERVICE_READY,			/* running, with device_count GPUs */
	GS_SERVICE_NO_GPU			/* running, no GPU usable: reason says why */
} GsServiceState;

/* A copy of the service's shared state */
typedef struct GsServiceStatus
{
	GsServiceState state;
	int			pid;			/* the service's process, 0 if not running */
	int			starts;			/* times the service has started since the server did */
	int			device_count;
	TimestampTz started_at;
	char		reason[256];	/* why no GPU is usable (GS_SERVICE_NO_GPU) */
} GsServiceStatus;

/*
 * Ask for the shared memory and register the service's background worker;
 * from _PG_init while shared_preload_libraries is processed.
 */
extern void gs_service_register(void);

/*
 * Copy the service's state into *status; false where the library was not
 * preloaded (no service on this server).
 */
extern bool gs_service_status(GsServiceStatus *status);

#endif							/* GPU_SERVICE_H */
