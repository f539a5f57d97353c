/*-------------------------------------------------------------------------
 *
 * service_status.c
 *	  The GPU service's state in shared memory (service_status.h): written
 *	  by the service's processes as they start, serve and stop, read by
 *	  sessions to decide and to wait.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

#include "cpu/placement_policy.h"
#include "ipc/service_status.h"

/* how often a session waiting for the service to start looks again */
#define GS_SERVICE_WAIT_POLL_MS	50

typedef struct GsServiceShared
{
	slock_t		mutex;			/* protects everything below */
	GsServiceStatus status;		/* the first process's */
	GsDeviceStatus devices[GS_SERVICE_MAX_DEVICES];
} GsServiceShared;

static GsServiceShared *service_shared = NULL;

/* gs_status_shmem_size -- see service_status.h */
Size
gs_status_shmem_size(void)
{
	return MAXALIGN(sizeof(GsServiceShared));
}

/* gs_status_shmem_init -- see service_status.h; under AddinShmemInitLock */
void
gs_status_shmem_init(void)
{
	bool		found;

	service_shared = ShmemInitStruct("gpuscan gpu service", sizeof(GsServiceShared), &found);
	if (!found)
	{
		memset(service_shared, 0, sizeof(GsServiceShared));
		SpinLockInit(&service_shared->mutex);
		service_shared->status.state = GS_SERVICE_STOPPED;
		for (int d = 0; d < GS_SERVICE_MAX_DEVICES; d++)
			service_shared->devices[d].state = GS_SERVICE_STOPPED;
	}
}

/* gs_status_device_served -- see service_status.h */
bool
gs_status_device_served(int device)
{
	bool		served;

	SpinLockAcquire(&service_shared->mutex);
	served = service_shared->devices[device].pid != 0;
	SpinLockRelease(&service_shared->mutex);
	return served;
}

/* gs_status_device_starts -- see service_status.h */
int
gs_status_device_starts(int device)
{
	int			starts;

	SpinLockAcquire(&service_shared->mutex);
	starts = service_shared->devices[device].starts;
	SpinLockRelease(&service_shared->mutex);
	return starts;
}

/* gs_status_device_stopping -- see service_status.h */
void
gs_status_device_stopping(int device)
{
	SpinLockAcquire(&service_shared->mutex);
	service_shared->devices[device].stopping = true;
	SpinLockRelease(&service_shared->mutex);
}

/* gs_status_device_exit -- see service_status.h */
void
gs_status_device_exit(int device)
{
	SpinLockAcquire(&service_shared->mutex);
	service_shared->devices[device].state = GS_SERVICE_STOPPED;
	service_shared->devices[device].pid = 0;
	if (device == 0)
	{
		service_shared->status.state = GS_SERVICE_STOPPED;
		service_shared->status.pid = 0;
	}
	SpinLockRelease(&service_shared->mutex);
}

/*
 * gs_status_publish_found -- the first process's findings: how many GPUs there are,
 * or why none is usable; the service stays STARTING until it serves
 */
void
gs_status_publish_found(int device_count, int streams, const char *reason)
{
	SpinLockAcquire(&service_shared->mutex);
	service_shared->status.device_count = device_count;
	service_shared->status.streams = streams;
	strlcpy(service_shared->status.reason, reason ? reason : "",
			sizeof(service_shared->status.reason));
	SpinLockRelease(&service_shared->mutex);
}

/*
 * gs_status_publish_serving -- this process takes requests from now on: its GPU's
 * state (READY, or NO_GPU with the reason) and, for the first process, the
 * service's (READY where it found a GPU)
 */
void
gs_status_publish_serving(int device, GsServiceState state, const char *reason)
{
	GsDeviceStatus *d = &service_shared->devices[device];

	SpinLockAcquire(&service_shared->mutex);
	d->state = state;
	strlcpy(d->reason, reason ? reason : "", sizeof(d->reason));
	if (device == 0)
		service_shared->status.state = service_shared->status.device_count > 0 ?
			GS_SERVICE_READY : GS_SERVICE_NO_GPU;
	SpinLockRelease(&service_shared->mutex);
}

/*
 * gs_status_claim_device -- make this process the one serving GPU `device`; false
 * where another live process does
 */
bool
gs_status_claim_device(int device)
{
	GsDeviceStatus *d = &service_shared->devices[device];
	bool		claimed = false;

	SpinLockAcquire(&service_shared->mutex);
	if (d->pid == 0 || d->pid == MyProcPid)
	{
		d->pid = MyProcPid;
		d->starts++;
		d->started_at = GetCurrentTimestamp();
		d->state = GS_SERVICE_STARTING;
		d->staging_pinned = false;
		d->buffers_mapped = false;
		d->memory_used = 0;
		d->memory_reserved = -1;
		d->stopping = false;
		claimed = true;
		if (device == 0)
		{
			service_shared->status.state = GS_SERVICE_STARTING;
			service_shared->status.pid = MyProcPid;
			service_shared->status.starts++;
			service_shared->status.started_at = d->started_at;
		}
	}
	SpinLockRelease(&service_shared->mutex);
	return claimed;
}

/* gs_status_staging_pinned -- note that GPU device's process pinned the staging area */
void
gs_status_staging_pinned(int device)
{
	SpinLockAcquire(&service_shared->mutex);
	service_shared->devices[device].staging_pinned = true;
	SpinLockRelease(&service_shared->mutex);
}

/* gs_status_buffers_mapped -- see service_status.h */
void
gs_status_buffers_mapped(int device)
{
	SpinLockAcquire(&service_shared->mutex);
	service_shared->devices[device].buffers_mapped = true;
	SpinLockRelease(&service_shared->mutex);
}

/*
 * settled -- whether a service or GPU process in `state` has got as far
 * as it will: serving, with or without a GPU
 */
static bool
settled(GsServiceState state)
{
	return state == GS_SERVICE_READY || state == GS_SERVICE_NO_GPU;
}

/* gs_service_wait_ready -- see service_status.h */
bool
gs_service_wait_ready(void)
{
	TimestampTz deadline;

	if (service_shared == NULL)
		return false;
	deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
										   GS_SERVICE_WAIT_SECONDS * 1000);
	for (;;)
	{
		GsServiceShared copy;
		bool		all = true;
		int			d;

		SpinLockAcquire(&service_shared->mutex);
		copy = *service_shared;
		SpinLockRelease(&service_shared->mutex);
		all = settled(copy.status.state) && !copy.devices[0].stopping;
		for (d = 0; all && d < Min(copy.status.device_count, GS_SERVICE_MAX_DEVICES); d++)
			all = settled(copy.devices[d].state) && !copy.devices[d].stopping;
		if (all)
			return copy.status.state == GS_SERVICE_READY;
		if (GetCurrentTimestamp() >= deadline)
			return false;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 GS_SERVICE_WAIT_POLL_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* gs_service_status -- see service_status.h */
bool
gs_service_status(GsServiceStatus *status)
{
	if (service_shared == NULL)
		return false;
	SpinLockAcquire(&service_shared->mutex);
	*status = service_shared->status;
	SpinLockRelease(&service_shared->mutex);
	return true;
}

/* gs_device_status -- see service_status.h */
bool
gs_device_status(int device, GsDeviceStatus *status)
{
	if (service_shared == NULL || device < 0 || device >= GS_SERVICE_MAX_DEVICES)
		return false;
	SpinLockAcquire(&service_shared->mutex);
	*status = service_shared->devices[device];
	SpinLockRelease(&service_shared->mutex);
	return true;
}

/* count -- add one to the counter at `offset` in GPU device's state */
static void
count(int device, size_t offset)
{
	if (service_shared == NULL || device < 0 || device >= GS_SERVICE_MAX_DEVICES)
		return;
	SpinLockAcquire(&service_shared->mutex);
	(*(int64 *) ((char *) &service_shared->devices[device] + offset))++;
	SpinLockRelease(&service_shared->mutex);
}

/* gs_device_count_placed -- see service_status.h */
void
gs_device_count_placed(int device, int placed_by)
{
	switch (placed_by)
	{
		case GS_PLACED_CACHE:
			count(device, offsetof(GsDeviceStatus, placed_cache));
			break;
		case GS_PLACED_LEAST_BUSY:
			count(device, offsetof(GsDeviceStatus, placed_least_busy));
			break;
		case GS_PLACED_FIXED:
			count(device, offsetof(GsDeviceStatus, placed_fixed));
			break;
		case GS_PLACED_SPLIT:
			count(device, offsetof(GsDeviceStatus, placed_split));
			break;
		case GS_PLACED_SESSION:
			count(device, offsetof(GsDeviceStatus, left_to_session));
			break;
	}
}

/* gs_device_count_request -- see service_status.h; the average moves a tenth of the way */
void
gs_device_count_request(int device, double ms)
{
	GsDeviceStatus *d;

	if (service_shared == NULL || device < 0 || device >= GS_SERVICE_MAX_DEVICES)
		return;
	d = &service_shared->devices[device];
	SpinLockAcquire(&service_shared->mutex);
	d->requests++;
	d->request_ms = d->request_ms == 0 ? ms : 0.9 * d->request_ms + 0.1 * ms;
	SpinLockRelease(&service_shared->mutex);
}

/* gs_device_note_memory -- see service_status.h */
void
gs_device_note_memory(int device, int64 used, int64 reserved, bool trimmed)
{
	GsDeviceStatus *d;

	if (service_shared == NULL || device < 0 || device >= GS_SERVICE_MAX_DEVICES)
		return;
	d = &service_shared->devices[device];
	SpinLockAcquire(&service_shared->mutex);
	d->memory_used = used;
	d->memory_reserved = reserved;
	if (trimmed)
		d->memory_trims++;
	SpinLockRelease(&service_shared->mutex);
}

/* gs_service_runs_gpu_work -- see service_status.h */
bool
gs_service_runs_gpu_work(bool *ready, const char **reason)
{
	static char why[300];
	GsServiceStatus st;

	if (!gs_service_status(&st))
		return false;
	*ready = st.state == GS_SERVICE_READY && st.device_count > 0;
	switch (st.state)
	{
		case GS_SERVICE_STARTING:
			strlcpy(why, "the gpuscan GPU service is starting", sizeof(why));
			break;
		case GS_SERVICE_STOPPED:
			strlcpy(why, "the gpuscan GPU service is not running; the server starts it again",
					sizeof(why));
			break;
		default:
			snprintf(why, sizeof(why), "the gpuscan GPU service has no usable GPU: %s", st.reason);
			break;
	}
	*reason = why;
	return true;
}
