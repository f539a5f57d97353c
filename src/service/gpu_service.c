/*-------------------------------------------------------------------------
 *
 * gpu_service.c
 *	  The GPU service's background workers and their shared state
 *	  (gpu_service.h).
 *
 * With gpuscan in shared_preload_libraries, the postmaster starts one
 * background worker, "gpuscan gpu service", with the server and again
 * GS_SERVICE_RESTART_SECONDS after it exits.  It looks for the GPUs,
 * publishes what it found, registers a dynamic background worker, "gpuscan
 * gpu service N", for each further GPU N (the postmaster restarts those
 * too), and serves GPU 0.  Every process opens its GPU (its CUDA context,
 * made once for every session), pins the staging area (staging_area.h)
 * and answers the sessions' requests for it (service_ops.h), several at
 * once in threads of its own (service_workers.h).  A process that finds its GPU served by another (a
 * second registration, after the first process restarted) exits at once.
 * None takes a database connection: they never read a table.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>

#include "miscadmin.h"
#include "port/atomics.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#include "ipc/device_cache.h"
#include "service/gpu_service.h"
#include "gpuscan_device.h"
#include "cpu/placement_policy.h"
#include "ipc/channel.h"
#include "service/channel_serve.h"
#include "service/service_ops.h"
#include "ipc/staging_area.h"
#include "service/service_workers.h"

/* how often an idle service process looks at its channels and memory */
#define GS_SERVICE_TICK_MS		1000

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

PGDLLEXPORT void gs_service_main(Datum arg);

/* service_shmem_request -- room for the shared state */
static void
service_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(gs_status_shmem_size());
	RequestAddinShmemSpace(MAXALIGN(gs_channels_shmem_size()));
	RequestAddinShmemSpace(gs_cache_shmem_size());
	RequestAddinShmemSpace(gs_staging_shmem_size());
	gs_cache_shmem_request();
}

/* service_shmem_startup -- create (postmaster) or attach to the shared state */
static void
service_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	gs_status_shmem_init();
	gs_channels_shmem_init();
	gs_cache_shmem_init();
	gs_staging_shmem_init();
	LWLockRelease(AddinShmemInitLock);
}

/*
 * service_worker -- the background worker serving GPU `device`: the first
 * is "gpuscan gpu service", GPU N's "gpuscan gpu service N"; the postmaster
 * starts each again GS_SERVICE_RESTART_SECONDS after it exits
 */
static void
service_worker(BackgroundWorker *worker, int device)
{
	memset(worker, 0, sizeof(*worker));
	/*
	 * A connection to no database, as the logical replication launcher's:
	 * the process then has a row in pg_stat_activity (backend_type "gpuscan
	 * gpu service") and pg_terminate_backend() stops it like any other.  A
	 * worker that asks for it starts once the server can take connections.
	 */
	worker->bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker->bgw_start_time = BgWorkerStart_ConsistentState;
	worker->bgw_restart_time = GS_SERVICE_RESTART_SECONDS;
	snprintf(worker->bgw_library_name, BGW_MAXLEN, "gpuscan");
	snprintf(worker->bgw_function_name, BGW_MAXLEN, "gs_service_main");
	if (device == 0)
		snprintf(worker->bgw_name, BGW_MAXLEN, "gpuscan gpu service");
	else
		snprintf(worker->bgw_name, BGW_MAXLEN, "gpuscan gpu service %d", device);
	snprintf(worker->bgw_type, BGW_MAXLEN, "gpuscan gpu service");
	worker->bgw_main_arg = Int32GetDatum(device);
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

	service_worker(&worker, 0);
	RegisterBackgroundWorker(&worker);
}

/*
 * start_device_service -- register the process for GPU `device` unless
 * one serves it; a WARNING where no worker slot is free
 * (max_worker_processes)
 */
static void
start_device_service(int device)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	if (gs_status_device_served(device))
		return;

	service_worker(&worker, device);
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		ereport(WARNING,
				(errmsg("gpuscan gpu service: cannot start the process for GPU %d", device),
				 errhint("Raise max_worker_processes.")));
}

/* service_exit -- at a process's exit, whatever the cause: its GPU is not served */
static void
service_exit(int code, Datum arg)
{
	int			device = DatumGetInt32(arg);

	gs_channels_set_service_latch(device, NULL);
	gs_status_device_exit(device);
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
 * find_and_start -- the first process's work at its start: find the GPUs,
 * publish them, start a process for each GPU after the first; returns how
 * many there are (0: none usable)
 */
static int
find_and_start(void)
{
	char		reason[256] = "";
	int			count = find_gpus(reason, sizeof(reason));
	int			d;

	if (count > GS_SERVICE_MAX_DEVICES)
	{
		ereport(LOG,
				(errmsg("gpuscan gpu service: %d GPUs found, the first %d used",
						count, GS_SERVICE_MAX_DEVICES)));
		count = GS_SERVICE_MAX_DEVICES;
	}
	gs_status_publish_found(count, gpuscan_service_streams, count > 0 ? NULL : reason);
	ereport(LOG,
			(errmsg("gpuscan gpu service started: %s",
					count > 0 ? psprintf("%d GPU%s", count, count == 1 ? "" : "s") :
					psprintf("no GPU usable (%s)", reason))));
	for (d = 1; d < count; d++)
		start_device_service(d);
	return count;
}

/*
 * register_staging -- pin the staging area (staging_area.h) for the
 * GPU, so that its copies go straight to and from it; where that fails the
 * copies still work, through the driver's buffers
 */
static void
register_staging(int device)
{
	char	   *base = gs_staging_base();

	if (base == NULL)
		return;
	if (gsd_host_register(base, gs_staging_size()) != GSD_OK)
		ereport(LOG,
				(errmsg("gpuscan gpu service: cannot pin the staging area for GPU %d: %s",
						device, gsd_last_error())));
	else
		gs_status_staging_pinned(device);
}

/* gpuscan.service_reads_shared_buffers */
static bool gpuscan_service_reads_buffers = true;

/*
 * Shared buffers mapped for the GPU by a thread of the process's own, as
 * pinning them takes a while (seconds per 10 GB) and the process serves
 * meanwhile: the sessions copy the pages until it is done
 */
static pthread_t map_thread;
static pg_atomic_uint32 map_state;	/* MAP_NONE, MAP_RUNNING, MAP_DONE */
static const void *map_address = NULL;
static double map_ms = 0;
static char map_error[256];

#define MAP_NONE	0
#define MAP_RUNNING 1
#define MAP_DONE	2

/* map_buffers_main -- the mapping thread: pin and map shared buffers, once */
static void *
map_buffers_main(void *arg)
{
	const void *d_buffers = NULL;
	instr_time	start,
				took;

	INSTR_TIME_SET_CURRENT(start);
	if (gsd_host_map(BufferBlocks, (size_t) NBuffers * BLCKSZ, &d_buffers) == GSD_OK)
		map_address = d_buffers;
	else
		strlcpy(map_error, gsd_last_error(), sizeof(map_error));
	INSTR_TIME_SET_CURRENT(took);
	INSTR_TIME_SUBTRACT(took, start);
	map_ms = INSTR_TIME_GET_MILLISEC(took);
	pg_write_barrier();
	pg_atomic_write_u32(&map_state, MAP_DONE);
	return NULL;
}

/*
 * map_shared_buffers -- where gpuscan.service_reads_shared_buffers is on,
 * start the thread that pins the server's shared buffers and maps them
 * for the GPU, which then reads the all-visible pages of a table scan in
 * place (the session keeps them pinned meanwhile)
 */
static void
map_shared_buffers(int device)
{
	int			err;

	pg_atomic_init_u32(&map_state, MAP_NONE);
	if (!gpuscan_service_reads_buffers)
		return;
	pg_atomic_write_u32(&map_state, MAP_RUNNING);
	if ((err = pthread_create(&map_thread, NULL, map_buffers_main, NULL)) != 0)
	{
		pg_atomic_write_u32(&map_state, MAP_NONE);
		ereport(LOG,
				(errmsg("gpuscan gpu service: cannot start the thread that maps shared buffers for GPU %d: %s",
						device, strerror(err))));
	}
}

/*
 * buffers_mapped -- once the mapping thread is done, its outcome: the
 * address the GPU reads shared buffers at, for the requests and the
 * sessions, or where it failed, a LOG (the sessions copy the pages)
 */
static void
buffers_mapped(int device)
{
	if (pg_atomic_read_u32(&map_state) != MAP_DONE)
		return;
	pg_atomic_write_u32(&map_state, MAP_NONE);
	pg_read_barrier();
	(void) pthread_join(map_thread, NULL);
	if (map_address == NULL)
	{
		ereport(LOG,
				(errmsg("gpuscan gpu service: cannot map shared buffers for GPU %d: %s",
						device, map_error)));
		return;
	}
	gs_service_ops_set_buffers(map_address, NBuffers);
	gs_status_buffers_mapped(device);
	ereport(LOG,
			(errmsg("gpuscan gpu service: GPU %d reads shared buffers in place (%.0f MB mapped in %.0f ms)",
					device, (double) NBuffers * BLCKSZ / 1048576.0, map_ms)));
}

/*
 * gs_service_main -- a service process, for GPU `arg`: the first also
 * finds the GPUs.  It opens its GPU, then answers the sessions' requests
 * for it until a SIGTERM (the server's shutdown, or an administrator's
 * pg_terminate_backend, after which the postmaster starts it again).
 * Sessions see it as starting until it takes requests.
 */
void
gs_service_main(Datum arg)
{
	int			device = DatumGetInt32(arg);
	GsServiceState state = GS_SERVICE_READY;
	char	   *why = NULL;
	int			count;
	int			starts;
	TimestampTz last_tick = 0;

	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	/* a cancel has no statement to cancel here */
	pqsignal(SIGINT, SIG_IGN);
	BackgroundWorkerUnblockSignals();

	if (device < 0 || device >= GS_SERVICE_MAX_DEVICES || !gs_status_claim_device(device))
		proc_exit(0);			/* not restarted: another process serves it */
	on_shmem_exit(service_exit, Int32GetDatum(device));
	/* a row in pg_stat_activity; no database: the service reads no table */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	/* the device memory of its cache went with the GPU's last process */
	gs_cache_serve_device(device);
	gs_cache_forget_all();

	if (device == 0)
		count = find_and_start();
	else
	{
		GsServiceStatus st;

		(void) gs_service_status(&st);
		count = st.device_count;
	}
	/* the context now, so that no session's call waits for its creation */
	if (device >= count)
	{
		state = GS_SERVICE_NO_GPU;
		why = "no such GPU";
	}
	else if (gsd_open(device) != GSD_OK)
	{
		state = GS_SERVICE_NO_GPU;
		why = psprintf("cannot open GPU %d: %s", device, gsd_last_error());
		ereport(LOG, (errmsg("gpuscan gpu service: %s", why)));
	}
	else
		register_staging(device);
	gs_service_ops_set_device(device);

	/* from here on the process has threads: see service_workers.h */
	gs_pg_lock();
	gs_workers_start();
	starts = gs_status_device_starts(device);
	/* what sessions and earlier starts of this process left behind */
	gs_channels_sweep(device, starts);
	gs_channels_set_service_latch(device, MyLatch);
	gs_status_publish_serving(device, state, why);
	if (state == GS_SERVICE_READY)
		map_shared_buffers(device);

	while (!ShutdownRequestPending)
	{
		buffers_mapped(device);
		if (gs_service_context_broken())
		{
			gs_status_device_stopping(device);
			gs_workers_wait_idle();
			ereport(LOG,
					(errmsg("gpuscan gpu service: the context of GPU %d is broken; restarting its process",
							device)));
			proc_exit(1);
		}
		gs_channels_serve(device, starts, gs_service_serve);

		gs_pg_unlock();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 GS_SERVICE_TICK_MS, PG_WAIT_EXTENSION);
		gs_pg_lock();
		ResetLatch(MyLatch);
		/*
		 * A process with a row in pg_stat_activity takes part in procsignal
		 * barriers (DROP DATABASE waits for every such process to absorb
		 * one) and memory-context log requests
		 */
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			gs_service_apply_settings();
		}
		/* at most once a tick: a busy process wakes for every request */
		if (TimestampDifferenceExceeds(last_tick, GetCurrentTimestamp(), GS_SERVICE_TICK_MS))
		{
			last_tick = GetCurrentTimestamp();
			gs_channels_sweep(device, starts);
			gs_service_idle();
		}
	}
	/* sessions wait for the next start; the requests running finish first */
	gs_status_device_stopping(device);
	gs_workers_wait_idle();
	/* exit code 1: the postmaster starts the process again, unless it is shutting down */
	proc_exit(1);
}

/*
 * gs_service_init -- where gpuscan is preloaded, define the service's own
 * settings (gpuscan.service_streams, gpuscan.service_staging_size,
 * gpuscan.service_reads_shared_buffers) and register the service; nothing
 * otherwise
 */
void
gs_service_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;

	DefineCustomIntVariable("gpuscan.service_streams",
							"Requests each GPU's service process runs at once.",
							"Each runs in a thread with a CUDA stream of its own; more wait for a free one.",
							&gpuscan_service_streams,
							4,
							1, GS_SERVICE_MAX_STREAMS,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpuscan.service_staging_size",
							"Shared memory through which sessions hand data to the GPU service.",
							"Pinned by each GPU's service process; a request that finds no room uses a segment of its own. 0: none.",
							&gpuscan_service_staging_mb,
							128,
							0, 65536,
							PGC_POSTMASTER,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuscan.service_reads_shared_buffers",
							 "Lets the GPUs read table pages in place in shared buffers.",
							 "Each GPU's service process pins shared buffers and maps them for its GPU, "
							 "which reads the all-visible pages of a row aggregate's table from there; "
							 "off: the sessions copy those pages into the staging area.",
							 &gpuscan_service_reads_buffers,
							 true,
							 PGC_POSTMASTER,
							 0,
							 NULL, NULL, NULL);

	gs_service_register();
}
