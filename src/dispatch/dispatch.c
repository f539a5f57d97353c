/*-------------------------------------------------------------------------
 *
 * dispatch.c
 *	  Choosing the CPU or the GPU (the GPU service) for each call.
 *
 * All GPU work runs in the GPU service (service_call.h), which runs only
 * where gpuscan is in shared_preload_libraries; a session never opens a
 * GPU itself.  Without the preload every call runs on the CPU, and
 * gpuscan.device = gpu raises an ERROR whose hint names
 * shared_preload_libraries.  While the service is starting or restarting,
 * auto takes the CPU and gpu waits for it (at most
 * GS_SERVICE_WAIT_SECONDS); where it has no GPU, auto takes the CPU and gpu
 * raises an ERROR.
 *
 * auto chooses by the cost model (cost_model.h): the path predicted
 * faster for this call; the time the call then takes corrects the model
 * for the session's later calls.  gpuscan.gpu_min_elements, where set (>= 0),
 * replaces the model with a threshold.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"

#include "dispatch/cost_model.h"
#include "dispatch/dispatch.h"
#include "ipc/service_status.h"

int			gpuscan_device_mode = GPUSCAN_DEVICE_AUTO;
bool		gpuscan_allow_gpu = true;
int			gpuscan_gpu_min_elements = -1;
static const struct config_enum_entry device_mode_options[] = {
	{"auto", GPUSCAN_DEVICE_AUTO, false},
	{"gpu", GPUSCAN_DEVICE_GPU, false},
	{"cpu", GPUSCAN_DEVICE_CPU, false},
	{NULL, 0, false}
};

/* why no GPU is usable, as gpu_ready found */
static char gpu_reason[512];
static char last_reason[256];

/*
 * The cost model's last choice, until the call's time is known
 * (gs_dispatch_measured)
 */
static struct
{
	bool		valid;
	GsWork		work;
	int64		nelems;
	int			elemsize;
	bool		on_gpu;
} pending;

/*
 * gpu_ready -- whether the GPU service can take a call now; else gpu_reason
 * says why not (gpuscan not preloaded, the service starting, no GPU).
 * *preloaded, where given, says whether gpuscan is preloaded.
 */
static bool
gpu_ready(bool *preloaded)
{
	bool		usable;
	const char *reason;
	bool		service = gs_service_runs_gpu_work(&usable, &reason);

	if (preloaded)
		*preloaded = service;
	if (!service)
	{
		strlcpy(gpu_reason, "gpuscan is not in shared_preload_libraries, so the GPU service, "
				"which runs all GPU work, does not run", sizeof(gpu_reason));
		return false;
	}
	if (!usable)
		strlcpy(gpu_reason, reason, sizeof(gpu_reason));
	return usable;
}

/* gs_gpu_usable -- is a GPU usable here?  Never raises an ERROR. */
bool
gs_gpu_usable(const char **reason)
{
	bool		ready = gpu_ready(NULL);

	if (reason)
		*reason = gpu_reason;
	return ready;
}

/*
 * require_gpu -- ERROR: the GPU cannot take this call; the hint names
 * shared_preload_libraries where gpuscan is not preloaded
 */
static void
require_gpu(const char *fn, bool preloaded)
{
	if (!preloaded)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s: no GPU is usable", fn),
				 errdetail("%s.", gpu_reason),
				 errhint("Add gpuscan to shared_preload_libraries and restart the server, "
						 "or set gpuscan.device to 'auto' or 'cpu' to run on the CPU.")));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("%s: no GPU is usable", fn),
			 errdetail("%s", gpu_reason),
			 errhint("Set gpuscan.device to 'auto' or 'cpu' to run on the CPU.")));
}

/* gs_session_cost_mode -- see dispatch.h */
void
gs_session_cost_mode(GsSessionCost *cost)
{
	cost->may_stay = gpuscan_device_mode == GPUSCAN_DEVICE_AUTO;
	cost->wait = gpuscan_device_mode == GPUSCAN_DEVICE_GPU;
}

/* gs_last_reason -- see dispatch.h */
const char *
gs_last_reason(void)
{
	return last_reason;
}

static bool decide(const char *fn, int64 nelems, bool on_gpu, const char *fmt,...)
			pg_attribute_printf(4, 5);

/*
 * decide -- note the path and its reason (a printf format), say it at
 * DEBUG1, and return whether it is the GPU
 */
static bool
decide(const char *fn, int64 nelems, bool on_gpu, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(last_reason, sizeof(last_reason), fmt, ap);
	va_end(ap);
	elog(DEBUG1, "%s: " INT64_FORMAT " elements on the %s (%s)",
		 fn, nelems, on_gpu ? "GPU" : "CPU", last_reason);
	return on_gpu;
}

/*
 * gpu_if_usable -- the GPU service where it can take the call, else the
 * CPU; `why` says why the GPU was chosen
 */
static bool
gpu_if_usable(const char *fn, int64 nelems, const char *why)
{
	if (!gpu_ready(NULL))
		return decide(fn, nelems, false, "no usable GPU: %s", gpu_reason);
	return decide(fn, nelems, true, "%s, in the GPU service", why);
}

/*
 * forced_gpu -- under gpuscan.device = gpu: ERROR unless a GPU can take
 * the call; a GPU service that is starting or restarting is waited for
 * (gs_service_wait_ready)
 */
static void
forced_gpu(const char *fn)
{
	bool		preloaded;

	if (!gpuscan_allow_gpu)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s: permission denied to use the GPU", fn),
				 errdetail("gpuscan.device is 'gpu', but gpuscan.allow_gpu is off for this session."),
				 errhint("Set gpuscan.device to 'auto' or 'cpu' to run on the CPU, or ask an administrator to allow the GPU.")));
	if (gpu_ready(&preloaded) || (preloaded && gs_service_wait_ready() && gpu_ready(NULL)))
		return;
	require_gpu(fn, preloaded);
}

/* gs_require_forced_gpu -- see dispatch.h */
void
gs_require_forced_gpu(const char *fn)
{
	if (gpuscan_device_mode == GPUSCAN_DEVICE_GPU)
		forced_gpu(fn);
}

/* gs_use_gpu -- the path for one call; see dispatch.h */
bool
gs_use_gpu(const char *fn, GsWork work, int64 nelems, int elemsize)
{
	GsCost		cost;
	bool		corrected;
	char		why[200];

	pending.valid = false;
	switch (gpuscan_device_mode)
	{
		case GPUSCAN_DEVICE_CPU:
			return decide(fn, nelems, false, "gpuscan.device = cpu");

		case GPUSCAN_DEVICE_GPU:
			forced_gpu(fn);
			return decide(fn, nelems, true, "gpuscan.device = gpu, in the GPU service");

		case GPUSCAN_DEVICE_AUTO:
		default:
			if (!gpuscan_allow_gpu)
				return decide(fn, nelems, false, "gpuscan.allow_gpu is off");
			if (gpuscan_gpu_min_elements >= 0)
			{
				if (nelems < gpuscan_gpu_min_elements)
					return decide(fn, nelems, false, "fewer than gpuscan.gpu_min_elements = %d",
								  gpuscan_gpu_min_elements);
				snprintf(why, sizeof(why), "at least gpuscan.gpu_min_elements = %d",
						 gpuscan_gpu_min_elements);
				return gpu_if_usable(fn, nelems, why);
			}
			cost = gs_predict(work, nelems, elemsize, &corrected);
			snprintf(why, sizeof(why), "cost model, %s: %.3f ms on the CPU, %.3f ms on the GPU",
					 gs_work_name(work), cost.cpu_ms, cost.gpu_ms);
			if (corrected)
				snprintf(why + strlen(why), sizeof(why) - strlen(why),
						 ", as corrected by this session's calls");
			pending.work = work;
			pending.nelems = nelems;
			pending.elemsize = elemsize;
			if (cost.cpu_ms <= cost.gpu_ms)
				pending.on_gpu = decide(fn, nelems, false, "%s", why);
			else
				pending.on_gpu = gpu_if_usable(fn, nelems, why);
			pending.valid = true;
			return pending.on_gpu;
	}
}

/* gs_dispatch_measured -- see dispatch.h */
void
gs_dispatch_measured(bool on_gpu, int64 nelems, double ms)
{
	if (pending.valid && pending.on_gpu == on_gpu && pending.nelems == nelems)
		gs_cost_observe(pending.work, nelems, pending.elemsize, on_gpu, ms);
	pending.valid = false;
}

/* gs_dispatch_not_measured -- see dispatch.h */
void
gs_dispatch_not_measured(void)
{
	pending.valid = false;
}

/*
 * gs_dispatch_init -- define where gpuscan functions run: gpuscan.device
 * and the settings of the GPU path
 */
void
gs_dispatch_init(void)
{
	DefineCustomEnumVariable("gpuscan.device",
							 "Where gpuscan functions run.",
							 "auto: on the path predicted faster for each call (on the GPU only "
							 "where one is usable; see gpuscan.gpu_min_elements); "
							 "gpu: always on the GPU, an error if none is usable; "
							 "cpu: always on the CPU. The GPU is the GPU service's, which runs only "
							 "where gpuscan is in shared_preload_libraries.",
							 &gpuscan_device_mode,
							 GPUSCAN_DEVICE_AUTO,
							 device_mode_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * What costs resources that all sessions share is for administrators to
	 * hand out: whether a session may use the GPU at all (its requests take
	 * the GPU service's time and the staging) and which device.  Both are
	 * PGC_SUSET, so a superuser sets them per role or database (ALTER ROLE
	 * ... SET) or lets a role set them itself (GRANT SET ON PARAMETER).
	 */
	DefineCustomBoolVariable("gpuscan.allow_gpu",
							 "Whether this session may use the GPU.",
							 "Off: every function runs on the CPU, gpuscan.device = auto "
							 "sends nothing to the GPU service and gpuscan.device = gpu is an error. "
							 "Only superusers and roles granted SET on it may change it.",
							 &gpuscan_allow_gpu,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuscan.gpu_min_elements",
							"Smallest input that gpuscan.device = auto sends to the GPU; -1: the cost model decides.",
							"-1 (the default): auto takes the path its cost model predicts faster for "
							"each call. 0 or more: inputs of fewer elements (non-zeros for SpMV, edges "
							"for PageRank) run on the CPU, larger ones on the GPU where one is usable.",
							&gpuscan_gpu_min_elements,
							-1,
							-1, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);
}
