/*-------------------------------------------------------------------------
 *
 * info.c
 *	  gpuscan_info(): the build, the copy threads, the GPU service and its
 *	  GPUs, the driver and the devices, or why no GPU is usable.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "cpu/copy_workers.h"
#include "cpu/cpu_sum.h"
#include "ipc/device_cache.h"
#include "dispatch/dispatch.h"
#include "ipc/service_status.h"
#include "gpuscan_device.h"
#include "client/channel_client.h"
#include "ipc/channel.h"
#include "ipc/staging_area.h"
#include "pg/chunks.h"

/* put_row -- one (item, value) row */
static void
put_row(ReturnSetInfo *rsinfo, const char *item, const char *value)
{
	Datum		values[2];
	bool		nulls[2] = {false};

	values[0] = CStringGetTextDatum(item);
	values[1] = CStringGetTextDatum(value);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* cuda_version -- "13.0" from 13000 */
static char *
cuda_version(int v)
{
	return psprintf("%d.%d", v / 1000, (v % 1000) / 10);
}

/*
 * first_stopping -- whether the service's first process takes no more
 * requests and is about to exit (gs_status_device_stopping): it still
 * reads as serving, but calls under gpuscan.device = gpu wait for its next
 * start, and the server starts it again once it is gone
 */
static bool
first_stopping(void)
{
	GsDeviceStatus ds;

	return gs_device_status(0, &ds) && ds.stopping && ds.pid != 0;
}

/*
 * service_text -- the GPU service's state for gpuscan_info(), or how to
 * start it where the library was not preloaded
 */
static char *
service_text(void)
{
	GsServiceStatus st;
	const char *what;

	if (!gs_service_status(&st))
		return pstrdup("not running: add gpuscan to shared_preload_libraries and restart the server to start it");
	/*
	 * until it takes requests again: from the moment its process stops
	 * taking them, as it finishes those running and exits, until the next
	 * start has its GPU open
	 */
	if ((st.state == GS_SERVICE_READY || st.state == GS_SERVICE_NO_GPU) && first_stopping())
		return psprintf("starting (pid %d is stopping; the server starts it again within %d seconds)",
						st.pid, GS_SERVICE_RESTART_SECONDS);
	/* the postmaster restarts a process that stopped */
	if (st.state == GS_SERVICE_STOPPED)
		return st.starts == 0 ? pstrdup("starting") :
			psprintf("starting (it stopped after %d start%s; the server starts it again within %d seconds)",
					 st.starts, st.starts == 1 ? "" : "s", GS_SERVICE_RESTART_SECONDS);
	if (st.state == GS_SERVICE_STARTING)
		return psprintf("starting (pid %d, since %s)", st.pid, timestamptz_to_str(st.started_at));
	if (st.state == GS_SERVICE_READY)
		what = psprintf("%d GPU%s found", st.device_count, st.device_count == 1 ? "" : "s");
	else
		what = psprintf("no GPU usable: %s", st.reason);
	return psprintf("running (pid %d, since %s): %s", st.pid,
					timestamptz_to_str(st.started_at), what);
}

/* device_text -- "NVIDIA H100 80GB HBM3, 79.1 GiB, 132 SMs, compute capability 9.0" */
static char *
device_text(const char *name, uint64 total_memory, int multiprocessors, int cc_major,
			int cc_minor)
{
	return psprintf("%s, %.1f GiB, %d SMs, compute capability %d.%d", name,
					total_memory / 1073741824.0, multiprocessors, cc_major, cc_minor);
}

/*
 * device_work_text -- the process serving GPU `device` and its counters:
 * requests answered, how they were placed there, and what it caches
 */
static char *
device_work_text(int device)
{
	GsDeviceStatus ds;
	const char *state;
	int			entries;
	int64		bytes;

	if (!gs_device_status(device, &ds))
		return pstrdup("unknown");
	gs_cache_device_bytes(device, &entries, &bytes);
	if (ds.stopping && ds.pid != 0)
		state = psprintf("its process (pid %d) is stopping", ds.pid);
	else if (ds.state == GS_SERVICE_READY)
		state = psprintf("served by pid %d", ds.pid);
	else if (ds.state == GS_SERVICE_NO_GPU)
		state = psprintf("not served (%s)", ds.reason);
	else if (ds.state == GS_SERVICE_STARTING)
		state = "its process is starting";
	else
		state = "its process is stopped";
	return psprintf("%s; " INT64_FORMAT " requests, %.3f ms each lately; placed " INT64_FORMAT
					" by cache, " INT64_FORMAT " least busy, " INT64_FORMAT " fixed, " INT64_FORMAT
					 " split; " INT64_FORMAT " left to the session (queue); cache %d entries, %.1f MB; staging %s",
					state, ds.requests, ds.request_ms, ds.placed_cache, ds.placed_least_busy,
					ds.placed_fixed, ds.placed_split, ds.left_to_session,
					entries, bytes / 1048576.0, ds.staging_pinned ? "pinned" : "not pinned");
}

/*
 * device_memory_text -- the device memory of the process serving GPU
 * `device`, as it last noted it: its pool, what its allocations hold of it
 * and what its cache holds of that (the rest belongs to running requests)
 */
static char *
device_memory_text(int device)
{
	GsDeviceStatus ds;
	int			entries;
	int64		bytes;

	if (!gs_device_status(device, &ds) || ds.state != GS_SERVICE_READY)
		return pstrdup("unknown");
	gs_cache_device_bytes(device, &entries, &bytes);
	return psprintf("pool %s MB, allocated %.1f MB, cache %.1f MB; pool trimmed " INT64_FORMAT
					" times",
					ds.memory_reserved < 0 ? "?" : psprintf("%.1f", ds.memory_reserved / 1048576.0),
					ds.memory_used / 1048576.0, bytes / 1048576.0, ds.memory_trims);
}

/*
 * put_service_rows -- the service's state and, where it runs, what it
 * answers through this session's channel: its GPUs, and the channels
 * taken.  This reports the state, it never waits out a restart: a service
 * that is starting or stopping is not asked, and one that stops under the
 * question is not waited for (gs_service_ask).
 */
static void
put_service_rows(ReturnSetInfo *rsinfo)
{
	GsServiceStatus st;
	GsRequest	req = {GS_OP_DEVICES};
	GsResponse	resp;
	bool		answered = false;
	int			in_use;
	int			total;
	int			busy[GS_SERVICE_MAX_DEVICES];
	int			waiting = 0;
	int			i;

	if (gs_service_status(&st) &&
		(st.state == GS_SERVICE_READY || st.state == GS_SERVICE_NO_GPU) && !first_stopping())
		answered = gs_service_ask(&req, &resp);
	/* the state once asked: a stop that the question ran into shows */
	put_row(rsinfo, "gpu_service", service_text());
	if (!answered)
		return;

	if (resp.device_count == 0)
		put_row(rsinfo, "gpu_service_device_count", psprintf("0 (%s)", resp.error));
	else
		put_row(rsinfo, "gpu_service_device_count", psprintf("%d", resp.device_count));
	for (i = 0; i < Min(resp.device_count, GS_SERVICE_MAX_DEVICES); i++)
	{
		GsServiceDevice *d = &resp.devices[i];

		put_row(rsinfo, psprintf("gpu_service_device %d", i),
				device_text(d->name, d->total_memory, d->multiprocessors, d->cc_major,
							d->cc_minor));
		put_row(rsinfo, psprintf("gpu_service_device %d work", i), device_work_text(i));
		put_row(rsinfo, psprintf("gpu_service_device %d memory", i), device_memory_text(i));
	}
	gs_channels_in_use(&in_use, &total);
	gs_channels_busy(busy, GS_SERVICE_MAX_DEVICES);
	for (i = 0; i < GS_SERVICE_MAX_DEVICES; i++)
		waiting += busy[i];
	put_row(rsinfo, "gpu_service_channels",
			psprintf("%d of %d in use; %d request%s waiting or running", in_use, total, waiting,
					 waiting == 1 ? "" : "s"));
	put_row(rsinfo, "gpu_service_cache", gs_cache_summary());
	if (gs_staging_base() != NULL)
		put_row(rsinfo, "gpu_service_staging", gs_staging_summary());
}

PG_FUNCTION_INFO_V1(gpuscan_info);

/* gpuscan_info -- what this backend can use, as (item, value) rows */
Datum
gpuscan_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	gsd_build_info build;
	bool		standin;
	const char *reason = NULL;
	int			count = 0;
	gsd_status	st;
	int			i;

	InitMaterializedSRF(fcinfo, 0);

	gsd_get_build_info(&build);
	standin = strcmp(build.arch_list, GSD_STANDIN_ARCH) == 0;
	if (build.runtime_version == 0)
		put_row(rsinfo, "build", "CPU only (built without CUDA)");
	else if (standin)
		put_row(rsinfo, "build", "stand-in GPUs in host memory, for tests (built without CUDA)");
	else
		put_row(rsinfo, "build", psprintf("CUDA %s, architectures %s",
										  cuda_version(build.runtime_version),
										  build.arch_list));
	put_row(rsinfo, "cpu_sum_path", cpu_sum_exact_path());
	put_row(rsinfo, "copy_threads", psprintf("%d (running: %d)", gs_copy_workers_wanted(),
											 gs_copy_workers()));

	put_service_rows(rsinfo);

	if (gpuscan_device_mode == GPUSCAN_DEVICE_CPU)
	{
		put_row(rsinfo, "gpu_usable", "false");
		put_row(rsinfo, "gpu_reason", "gpuscan.device = cpu: CUDA is not loaded");
		return (Datum) 0;
	}
	if (!gpuscan_allow_gpu)
	{
		put_row(rsinfo, "gpu_usable", "false");
		put_row(rsinfo, "gpu_reason", "gpuscan.allow_gpu is off for this session: CUDA is not loaded");
		return (Datum) 0;
	}
	if (build.runtime_version != 0 && !standin)
		put_row(rsinfo, "driver", build.driver_version > 0 ?
				psprintf("CUDA %s", cuda_version(build.driver_version)) :
				"none (libcuda.so.1 not found)");

	st = gsd_device_count(&count);
	if (st == GSD_OK)
	{
		put_row(rsinfo, "device_count", psprintf("%d", count));
		for (i = 0; i < count; i++)
		{
			gsd_device_props p;

			if (gsd_get_device_props(i, &p) != GSD_OK)
				continue;
			put_row(rsinfo, psprintf("device %d", i),
					device_text(p.name, p.total_memory, p.multiprocessors, p.cc_major,
								p.cc_minor));
		}
	}

	if (gs_gpu_usable(&reason))
		put_row(rsinfo, "gpu_usable", "true");
	else
	{
		put_row(rsinfo, "gpu_usable", "false");
		put_row(rsinfo, "gpu_reason", reason);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(gpuscan_device_memory);

/*
 * gpuscan_device_memory -- gone in 1.2, where sessions hold no device
 * memory: the SQL function of an older version, until ALTER EXTENSION
 * ... UPDATE drops it, says so instead of answering
 */
Datum
gpuscan_device_memory(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("gpuscan_device_memory() was removed in gpuscan 1.2"),
			 errdetail("All GPU work runs in the GPU service; a session holds no device memory."),
			 errhint("Run ALTER EXTENSION gpuscan UPDATE. The GPU service's device memory is in gpuscan_info().")));
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(gpuscan_cache_reset);

/*
 * gpuscan_cache_reset -- empty the device cache of every GPU (through
 * each GPU's service process, which owns its memory); returns the number
 * of entries freed
 */
Datum
gpuscan_cache_reset(PG_FUNCTION_ARGS)
{
	GsServiceStatus st;
	GsRequest	req;
	GsResponse	resp;
	int64		freed = 0;
	int			d;

	memset(&req, 0, sizeof(req));
	req.op = GS_OP_CACHE_RESET;
	if (!gs_service_status(&st) || st.device_count == 0)
	{
		/* no GPU: the first process answers (or says why it cannot) */
		gs_service_call(&req, &resp);
		PG_RETURN_INT64(resp.entries_freed);
	}
	for (d = 0; d < Min(st.device_count, GS_SERVICE_MAX_DEVICES); d++)
	{
		req.device = d;
		gs_service_call(&req, &resp);
		freed += resp.entries_freed;
	}
	PG_RETURN_INT64(freed);
}
