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
 * service_channel.h (service_ops.h): the sums, prefix sums, compactions,
 * SpMV and PageRank of stored arrays from its GPU's device cache
 * (device_cache.h) and of values the sessions send (service_call.h).  A
 * session of a server that runs the service opens no GPU of its own.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPU_SERVICE_H
#define GPU_SERVICE_H

#include "postgres.h"

#include "datatype/timestamp.h"

/* seconds before the postmaster starts the service again after it exits */
#define GS_SERVICE_RESTART_SECONDS	5

/*
 * the longest a call under gpuscan.device = gpu waits for a service that
 * is starting or restarting (interruptibly: statement_timeout and a cancel
 * end it sooner)
 */
#define GS_SERVICE_WAIT_SECONDS		30

/* What the service is doing */
typedef enum GsServiceState
{
	GS_SERVICE_STOPPED,			/* not running (between a crash and its restart, or at shutdown) */
	GS_SERVICE_STARTING,		/* started, looking for the GPUs */
	GS_SERVICE_READY,			/* running, with device_count GPUs */
	GS_SERVICE_NO_GPU			/* running, no GPU usable: reason says why */
} GsServiceState;

/* A copy of the service's shared state: its first process, and what it found */
typedef struct GsServiceStatus
{
	GsServiceState state;
	int			pid;			/* the service's process, 0 if not running */
	int			starts;			/* times the service has started since the server did */
	int			device_count;
	TimestampTz started_at;
	char		reason[256];	/* why no GPU is usable (GS_SERVICE_NO_GPU) */
} GsServiceStatus;

/* A copy of the state of the process serving one GPU, and its counters */
typedef struct GsDeviceStatus
{
	GsServiceState state;		/* READY: the GPU is open; NO_GPU: it cannot be (reason) */
	int			pid;			/* 0 if no process serves it */
	int			starts;			/* times a process has started for it */
	TimestampTz started_at;
	char		reason[128];
	int64		requests;		/* requests it has answered */
	int64		placed_cache;	/* requests placed on it for its cached arrays ... */
	int64		placed_least_busy;	/* ... as the least busy GPU ... */
	int64		placed_fixed;	/* ... by gpuscan.placement = fixed ... */
	int64		placed_split;	/* ... as a part of a call split over the GPUs */
	int64		left_to_session;	/* calls placed on it but run in the session, its
									 * queue too long (placement.h) */
	double		request_ms;		/* its recent time per request (moving average) */
	int64		session_opens;	/* sessions and parallel workers that opened it themselves */
	bool		staging_pinned; /* its process pinned the staging area (service_staging.h) */
	int64		memory_used;	/* device memory its allocations hold ... */
	int64		memory_reserved;	/* ... and its memory pool, what it keeps for
									 * reuse included (-1: not known) */
	int64		memory_trims;	/* times it gave the pool's unused memory back */
	bool		stopping;		/* it takes no more requests and is about to exit */
} GsDeviceStatus;

/* the most GPUs the service serves */
#define GS_SERVICE_MAX_DEVICES	16

/*
 * Ask for the shared memory and register the service's background worker;
 * from gs_service_init while shared_preload_libraries is processed.
 */
extern void gs_service_register(void);

/*
 * Copy the service's state into *status; false where the library was not
 * preloaded (no service on this server).
 */
extern bool gs_service_status(GsServiceStatus *status);

/* The same of the process serving GPU `device`; false as above or where
 * device is out of range */
extern bool gs_device_status(int device, GsDeviceStatus *status);

/* Count a request placed on `device` (placement.h's GsPlacedBy) */
extern void gs_device_count_placed(int device, int placed_by);

/* Count a session or parallel worker that opened `device` itself */
extern void gs_device_count_session_open(int device);

/* Count a request of `ms` that GPU `device`'s process answered (that process) */
extern void gs_device_count_request(int device, double ms);

/*
 * Note the device memory of GPU `device`'s process: its allocations and
 * its pool (that process), and whether it has just trimmed the pool
 */
extern void gs_device_note_memory(int device, int64 used, int64 reserved, bool trimmed);

/*
 * Wait until the service and each of its GPUs' processes serve requests
 * (with or without a GPU), at most GS_SERVICE_WAIT_SECONDS, answering
 * interrupts; whether the service then has a GPU.  For calls under
 * gpuscan.device = gpu, which wait for a service that is starting or
 * restarting instead of failing.
 */
extern bool gs_service_wait_ready(void);

/*
 * Where gpuscan is preloaded, define the service's settings and register
 * it (gs_service_register); from _PG_init
 */
extern void gs_service_init(void);

#endif							/* GPU_SERVICE_H */
