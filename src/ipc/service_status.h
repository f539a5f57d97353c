/*-------------------------------------------------------------------------
 *
 * service_status.h
 *	  What the GPU service is doing, in shared memory: its state and each
 *	  GPU's process's (service_status.c).  The service's processes
 *	  (service/gpu_service.c) write it; sessions read it to choose a path
 *	  and a GPU, to wait for a restart, and for gpuscan_info().
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SERVICE_STATUS_H
#define GPUSCAN_SERVICE_STATUS_H

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
	int			streams;		/* requests each GPU's process runs at once */
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
	bool		staging_pinned; /* its process pinned the staging area (staging_area.h) */
	bool		buffers_mapped; /* its GPU reads shared buffers in place */
	int64		memory_used;	/* device memory its allocations hold ... */
	int64		memory_reserved;	/* ... and its memory pool, what it keeps for
									 * reuse included (-1: not known) */
	int64		memory_trims;	/* times it gave the pool's unused memory back */
	bool		stopping;		/* it takes no more requests and is about to exit */
} GsDeviceStatus;

/* the most GPUs the service serves */
#define GS_SERVICE_MAX_DEVICES	16

/* ---- the shared memory (from the service's shmem hooks) ---- */

extern Size gs_status_shmem_size(void);
extern void gs_status_shmem_init(void);

/* ---- written by the service's processes ---- */

/* Whether a live process serves GPU `device` */
extern bool gs_status_device_served(int device);

/* Times a process has started for GPU `device` */
extern int	gs_status_device_starts(int device);

/*
 * Make this process the one serving GPU `device`: false where another
 * live process does
 */
extern bool gs_status_claim_device(int device);

/*
 * The first process's findings: how many GPUs there are, or why none is
 * usable, and how many requests each GPU's process runs at once; the
 * service stays STARTING until it serves
 */
extern void gs_status_publish_found(int device_count, int streams, const char *reason);

/*
 * This process takes requests from now on: its GPU's state (READY, or
 * NO_GPU with the reason) and, for the first process, the service's
 */
extern void gs_status_publish_serving(int device, GsServiceState state, const char *reason);

/* GPU device's process pinned the staging area (staging_area.h) */
extern void gs_status_staging_pinned(int device);

/* Note that GPU device's process mapped shared buffers for its GPU */
extern void gs_status_buffers_mapped(int device);

/* GPU device's process takes no more requests and is about to exit */
extern void gs_status_device_stopping(int device);

/* GPU device's process exited, whatever the cause: its GPU is not served */
extern void gs_status_device_exit(int device);

/* ---- read (and counted) by sessions ---- */

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
 * Whether the server runs the GPU service (gpuscan is preloaded): then all
 * GPU work goes to it; *ready: it runs with a GPU now, else *reason says
 * why not
 */
extern bool gs_service_runs_gpu_work(bool *ready, const char **reason);

#endif							/* GPUSCAN_SERVICE_STATUS_H */
