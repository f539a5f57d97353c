/*-------------------------------------------------------------------------
 *
 * gpu_service.c
 *	  The GPU service's background worker and its shared state
 *	  (gpu_service.h).
 *
 * With gpuscan in shared_preload_libraries, the postmaster starts one
 * background worker, "gpuscan gpu service", with the server and again
 * GS_SERVICE_RESTART_SECONDS after it exits.  It looks for the GPUs,
 * opens the first one (its CUDA context, made once for every session) and
 * publishes what it found in a small struct of shared memory; then it
 * answers the sessions' requests (service_ops.h).
 * It takes no database connection: it never reads a table.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#include "device_cache.h"
#include "gpu_service.h"
#include "gpuscan_device.h"
#include "service_channel.h"
#include "service_ops.h"

typedef struct GsServiceShared
{
	slock_t		mutex;			/* protects everything below */
	GsServiceStatus status;
} GsServiceShared;

static GsServiceShared *service_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

PGDLLEXPORT void gs_service_main(Datum arg);

/* service_shmem_request -- room for the shared state */
static void
service_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(GsServiceShared)));
	RequestAddinShmemSpace(MAXALIGN(gs_channels_shmem_size()));
	RequestAddinShmemSpace(gs_cache_shmem_size());
	gs_cache_shmem_request();
}

/* service_shmem_startup -- create (postmaster) or attach to the shared state */
static void
service_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	service_shared = ShmemInitStruct("gpuscan gpu service", sizeof(GsServiceShared), &found);
	if (!found)
	{
		memset(service_shared, 0, sizeof(GsServiceShared));
		SpinLockInit(&service_shared->mutex);
		service_shared->status.state = GS_SERVICE_STOPPED;
	}
	gs_channels_shmem_init();
	gs_cache_shmem_init();
	LWLockRelease(AddinShmemInitLock);
}

/* gs_service_register -- see gpu_service.h */
void
gs_service_register(void)
{
	BackgroundWorker worker;

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = service_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = service_shmem_startup;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = GS_SERVICE_RESTART_SECONDS;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpuscan");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "gs_service_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "gpuscan gpu service");
	snprintf(worker.bgw_type, BGW_MAXLEN, "gpuscan gpu service");
	RegisterBackgroundWorker(&worker);
}

/* publish -- set the shared state (the service's own process) */
static void
publish(GsServiceState state, int device_count, const char *reason)
{
	SpinLockAcquire(&service_shared->mutex);
	service_shared->status.state = state;
	service_shared->status.device_count = device_count;
	strlcpy(service_shared->status.reason, reason ? reason : "",
			sizeof(service_shared->status.reason));
	SpinLockRelease(&service_shared->mutex);
}

/* service_exit -- at the service's exit, whatever the cause: not running */
static void
service_exit(int code, Datum arg)
{
	gs_channels_set_service_latch(NULL);
	SpinLockAcquire(&service_shared->mutex);
	service_shared->status.state = GS_SERVICE_STOPPED;
	service_shared->status.pid = 0;
	SpinLockRelease(&service_shared->mutex);
}

/*
 * find_gpus -- how many GPUs this process can use, or 0 with the reason in
 * `reason`; loads the driver but creates no context.
 */
static int
find_gpus(char *reason, size_t reason_size)
{
	gsd_build_info build;
	gsd_status	st;
	int			count = 0;

	gsd_get_build_info(&build);
	if (build.runtime_version == 0)
	{
		strlcpy(reason, "gpuscan was built without CUDA", reason_size);
		return 0;
	}
	st = gsd_device_count(&count);
	if (st != GSD_OK)
	{
		snprintf(reason, reason_size, "%s", gsd_last_error());
		return 0;
	}
	if (count == 0)
		strlcpy(reason, "no CUDA device is visible", reason_size);
	return count;
}

/*
 * gs_service_main -- the service's process: find the GPUs, publish them,
 * then answer the sessions' requests until a SIGTERM (the server's
 * shutdown, or an administrator's kill, after which it starts again).
 */
void
gs_service_main(Datum arg)
{
	char		reason[256] = "";
	int			count;

	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();

	SpinLockAcquire(&service_shared->mutex);
	service_shared->status.state = GS_SERVICE_STARTING;
	service_shared->status.pid = MyProcPid;
	service_shared->status.starts++;
	service_shared->status.started_at = GetCurrentTimestamp();
	SpinLockRelease(&service_shared->mutex);
	on_shmem_exit(service_exit, (Datum) 0);
	/* the device memory of the cache went with the service's last process */
	gs_cache_forget_all();

	count = find_gpus(reason, sizeof(reason));
	/* the context now, so that no session's call waits for its creation */
	if (count > 0 && gsd_open(0) != GSD_OK)
	{
		snprintf(reason, sizeof(reason), "cannot open GPU 0: %s", gsd_last_error());
		count = 0;
	}
	if (count > 0)
		publish(GS_SERVICE_READY, count, NULL);
	else
		publish(GS_SERVICE_NO_GPU, 0, reason);
	ereport(LOG,
			(errmsg("gpuscan gpu service started: %s",
					count > 0 ? psprintf("%d GPU%s", count, count == 1 ? "" : "s") :
					psprintf("no GPU usable (%s)", reason))));
	gs_channels_set_service_latch(MyLatch);

	while (!ShutdownRequestPending)
	{
		int			starts;

		SpinLockAcquire(&service_shared->mutex);
		starts = service_shared->status.starts;
		SpinLockRelease(&service_shared->mutex);
		gs_channels_serve(starts, gs_service_serve);
		if (gs_service_context_broken())
		{
			ereport(LOG,
					(errmsg("gpuscan gpu service: the GPU's context is broken; restarting the service")));
			proc_exit(1);
		}

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
	}
	/* exit code 1: the postmaster starts the service again, unless it is shutting down */
	proc_exit(1);
}

/* gs_service_status -- see gpu_service.h */
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
