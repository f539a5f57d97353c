/*-------------------------------------------------------------------------
 *
 * dispatch.c
 *	  Choosing the CPU or the GPU for each call, and the GPU's state in
 *	  this backend.
 *
 * The GPU is opened lazily, at the first call that would use it, or ahead
 * by gpuscan.gpu_prewarm's helper thread.  Where it cannot be opened
 * (CPU-only build, no driver, no device) gpuscan.device = auto quietly
 * takes the CPU and gpuscan.device = gpu raises an ERROR.  After a sticky
 * device error the GPU stays off for the rest of the session: auto warns
 * once and takes the CPU, gpu raises an ERROR.
 *
 * Where gpuscan is preloaded, the GPU is the GPU service's instead
 * (service_call.h): the session never opens one.  While the service is
 * starting or restarting, auto takes the CPU and gpu waits for it (at most
 * GS_SERVICE_WAIT_SECONDS); where it has no GPU, auto takes the CPU and gpu
 * raises an ERROR.
 *
 * auto chooses by the cost model (cost_model.h): the path predicted
 * faster for this call, the opening of the GPU counted where the session
 * has not opened it; the time the call then takes corrects the model for
 * the session's later calls.  gpuscan.gpu_min_elements, where set (>= 0),
 * replaces the model with a threshold.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "storage/ipc.h"
#include "utils/guc.h"

#include "dispatch/cost_model.h"
#include "dispatch/dispatch.h"
#include "ipc/service_status.h"
#include "gpuscan_device.h"
#include "dispatch/placement.h"
#include "pg/chunks.h"

int			gpuscan_device_mode = GPUSCAN_DEVICE_AUTO;
bool		gpuscan_allow_gpu = true;
int			gpuscan_gpu_min_elements = -1;
bool		gpuscan_gpu_prewarm = false;

/* gpuscan.debug_session_gpu: the session's own GPU even where the service runs */
static bool debug_session_gpu = false;

static const struct config_enum_entry device_mode_options[] = {
	{"auto", GPUSCAN_DEVICE_AUTO, false},
	{"gpu", GPUSCAN_DEVICE_GPU, false},
	{"cpu", GPUSCAN_DEVICE_CPU, false},
	{NULL, 0, false}
};

typedef enum GpuState
{
	GPU_UNKNOWN,				/* not tried yet */
	GPU_READY,					/* open and usable */
	GPU_UNAVAILABLE,			/* could not be opened */
	GPU_BROKEN					/* a sticky error happened */
} GpuState;

static GpuState gpu_state = GPU_UNKNOWN;
static int	gpu_open_index = -1;	/* the GPU this process opened ... */
static int	gpu_open_setting = -1;	/* ... under this gpuscan.device_index */
static char gpu_reason[512];
static bool broken_warned = false;
static bool prewarm_started = false;
static char last_reason[256];
static bool in_service = false; /* the GPU of the last call is the service's */

/*
 * The cost model's last choice, until the call's time is known
 * (gs_dispatch_measured); valid only where the model chose with the GPU
 * already open, so that the call's time is the work's alone.
 */
static struct
{
	bool		valid;
	GsWork		work;
	int64		nelems;
	int			elemsize;
	bool		on_gpu;
	bool		service;		/* the GPU path is the GPU service's */
} pending;

/* try_open -- open the configured device once, remembering why not */
static void
try_open(void)
{
	gsd_status	st;
	int			index;

	if (gpu_state != GPU_UNKNOWN)
		return;
	index = gs_place_session_device();
	st = gsd_open(index);
	if (st == GSD_OK)
	{
		gpu_state = GPU_READY;
		gpu_open_index = index;
		gpu_open_setting = gpuscan_device_index;
		gs_device_count_session_open(index);
		elog(DEBUG1, "gpuscan: opened CUDA device %d", gpu_open_index);
		return;
	}
	strlcpy(gpu_reason, gsd_last_error(), sizeof(gpu_reason));
	gpu_state = (st == GSD_STICKY) ? GPU_BROKEN : GPU_UNAVAILABLE;
}

/* gs_dispatch_mark_broken -- no more GPU work in this backend */
void
gs_dispatch_mark_broken(void)
{
	gpu_state = GPU_BROKEN;
	strlcpy(gpu_reason, gsd_last_error(), sizeof(gpu_reason));
}

/*
 * service_gpu -- whether the GPU service runs the GPU work (gpuscan is
 * preloaded), with *usable whether it has a GPU now (else gpu_reason says
 * why not)
 */
static bool
service_gpu(bool *usable)
{
	const char *reason;

	if (debug_session_gpu || !gs_service_runs_gpu_work(usable, &reason))
		return false;
	if (!*usable)
		strlcpy(gpu_reason, reason, sizeof(gpu_reason));
	return true;
}

/*
 * gpu_ready -- whether a GPU can take a call now: the service's where it
 * runs the GPU work (in_service), else this backend's own, opened if need be
 */
static bool
gpu_ready(void)
{
	bool		usable;

	in_service = service_gpu(&usable);
	if (in_service)
		return usable;
	try_open();
	return gpu_state == GPU_READY;
}

/* gs_gpu_usable -- is a GPU usable here?  Never raises an ERROR. */
bool
gs_gpu_usable(const char **reason)
{
	bool		ready = gpu_ready();

	if (reason)
		*reason = gpu_reason;
	return ready;
}

/* gs_gpu_in_service -- see dispatch.h */
bool
gs_gpu_in_service(void)
{
	return in_service;
}

/* gs_gpu_open_index -- see dispatch.h */
int
gs_gpu_open_index(void)
{
	return gpu_state == GPU_READY ? gpu_open_index : -1;
}

/* require_gpu -- ERROR unless the GPU can take this call */
static void
require_gpu(const char *fn)
{
	if (gpu_state == GPU_READY && gpuscan_device_index != gpu_open_setting)
		ereport(ERROR,
				(errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM),
				 errmsg("gpuscan.device_index cannot change once the session has used a GPU"),
				 errdetail("This session uses device %d; gpuscan.device_index was %d and is %d.",
						   gpu_open_index, gpu_open_setting, gpuscan_device_index),
				 errhint("Start a new session to use another device.")));
	if (gpu_state == GPU_BROKEN)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("%s: the GPU is unusable in this session after an earlier error", fn),
				 errdetail("%s", gpu_reason),
				 errhint("Set gpuscan.device to 'auto' or 'cpu' to run on the CPU, or start a new session.")));
	if (gpu_state != GPU_READY)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s: no GPU is usable", fn),
				 errdetail("%s", gpu_reason),
				 errhint("Set gpuscan.device to 'auto' or 'cpu' to run on the CPU.")));
}

/*
 * wait_for_prewarm -- at process exit: a backend that ends while the
 * prewarm thread still creates the CUDA context (a client that connects and
 * leaves at once) must let it finish first, or the runtime's teardown at
 * exit races it
 */
static void
wait_for_prewarm(int code, Datum arg)
{
	gsd_prewarm_wait();
}

/* gs_dispatch_prewarm -- see dispatch.h */
void
gs_dispatch_prewarm(void)
{
	bool		usable;

	/* where the service runs the GPU work, the session opens no GPU */
	if (!gpuscan_gpu_prewarm || !gpuscan_allow_gpu ||
		gpuscan_device_mode == GPUSCAN_DEVICE_CPU || gpu_state != GPU_UNKNOWN ||
		service_gpu(&usable))
		return;
	if (gsd_prewarm(gs_place_session_device(), gs_slot_bytes()) == GSD_OK)
	{
		prewarm_started = true;
		on_proc_exit(wait_for_prewarm, (Datum) 0);
	}
}

/* gs_session_cost_mode -- see dispatch.h */
void
gs_session_cost_mode(GsSessionCost *cost)
{
	cost->may_stay = gpuscan_device_mode == GPUSCAN_DEVICE_AUTO;
	cost->wait = gpuscan_device_mode == GPUSCAN_DEVICE_GPU;
	cost->gpu_open = gs_gpu_open_index() >= 0;
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
 * gpu_if_usable -- open the GPU if need be and take it, or the CPU where
 * none is usable; `why` says why the GPU was chosen
 */
static bool
gpu_if_usable(const char *fn, int64 nelems, const char *why)
{
	bool		ready = gpu_ready();

	if (!in_service && gpu_state == GPU_BROKEN && !broken_warned)
	{
		broken_warned = true;
		ereport(WARNING,
				(errmsg("gpuscan: the GPU is off for this session after an error; using the CPU"),
				 errdetail("%s", gpu_reason)));
	}
	if (!ready)
		return decide(fn, nelems, false, "no usable GPU: %s", gpu_reason);
	if (in_service)
		return decide(fn, nelems, true, "%s, in the GPU service", why);
	require_gpu(fn);			/* device_index changed: say so */
	return decide(fn, nelems, true, "%s", why);
}

/*
 * forced_gpu -- under gpuscan.device = gpu: ERROR unless a GPU can take
 * the call; a GPU service that is starting or restarting is waited for
 * (gs_service_wait_ready)
 */
static void
forced_gpu(const char *fn)
{
	bool		ready;

	if (!gpuscan_allow_gpu)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s: permission denied to use the GPU", fn),
				 errdetail("gpuscan.device is 'gpu', but gpuscan.allow_gpu is off for this session."),
				 errhint("Set gpuscan.device to 'auto' or 'cpu' to run on the CPU, or ask an administrator to allow the GPU.")));
	ready = gpu_ready();
	if (!ready && in_service && gs_service_wait_ready())
		ready = gpu_ready();
	if (!ready || !in_service)
		require_gpu(fn);		/* in the service: no GPU of its own to check */
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
	bool		usable;
	char		why[200];

	pending.valid = false;
	in_service = false;
	switch (gpuscan_device_mode)
	{
		case GPUSCAN_DEVICE_CPU:
			return decide(fn, nelems, false, "gpuscan.device = cpu");

		case GPUSCAN_DEVICE_GPU:
			forced_gpu(fn);
			return decide(fn, nelems, true, in_service ?
						  "gpuscan.device = gpu, in the GPU service" : "gpuscan.device = gpu");

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
			pending.service = service_gpu(&usable);
			cost = gs_predict(work, nelems, elemsize,
							  gpu_state == GPU_READY || prewarm_started || pending.service,
							  pending.service, &corrected);
			snprintf(why, sizeof(why), "cost model, %s: %.3f ms on the CPU, %.3f ms on the GPU",
					 gs_work_name(work), cost.cpu_ms, cost.gpu_ms);
			if (cost.open_ms > 0)
				snprintf(why + strlen(why), sizeof(why) - strlen(why), " + %.0f ms to open it",
						 cost.open_ms);
			if (corrected)
				snprintf(why + strlen(why), sizeof(why) - strlen(why),
						 ", as corrected by this session's calls");
			pending.work = work;
			pending.nelems = nelems;
			pending.elemsize = elemsize;
			if (cost.cpu_ms <= cost.gpu_ms + cost.open_ms)
				pending.on_gpu = decide(fn, nelems, false, "%s", why);
			else
				pending.on_gpu = gpu_if_usable(fn, nelems, why);
			/* a call that opens the GPU: its time is not the work's */
			pending.valid = (cost.open_ms == 0 || !pending.on_gpu);
			return pending.on_gpu;
	}
}

/* gs_dispatch_measured -- see dispatch.h */
void
gs_dispatch_measured(bool on_gpu, int64 nelems, double ms)
{
	if (pending.valid && pending.on_gpu == on_gpu && pending.nelems == nelems)
		gs_cost_observe(pending.work, nelems, pending.elemsize, on_gpu, pending.service, ms);
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
							 "cpu: always on the CPU, never loading CUDA.",
							 &gpuscan_device_mode,
							 GPUSCAN_DEVICE_AUTO,
							 device_mode_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * What costs resources that all sessions share is for administrators to
	 * hand out: whether a session may use the GPU at all (each session that
	 * does holds a CUDA context on the device) and which device.  Both are
	 * PGC_SUSET, so a superuser sets them per role or database (ALTER ROLE
	 * ... SET) or lets a role set them itself (GRANT SET ON PARAMETER).
	 */
	DefineCustomBoolVariable("gpuscan.allow_gpu",
							 "Whether this session may use the GPU.",
							 "Off: every function runs on the CPU, gpuscan.device = auto "
							 "never opens the GPU and gpuscan.device = gpu is an error. "
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

	DefineCustomBoolVariable("gpuscan.gpu_prewarm",
							 "Whether a session opens the GPU ahead, when the library is loaded.",
							 "On: where gpuscan is loaded into a session at its start "
							 "(session_preload_libraries), a helper thread creates the CUDA context "
							 "and the staging at once, so that the first GPU call does not wait for "
							 "them, and gpuscan.device = auto counts the GPU as open.",
							 &gpuscan_gpu_prewarm,
							 false,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuscan.debug_session_gpu",
							 "For benchmarks: this session runs its GPU work on values in memory on a GPU of its own.",
							 "Also where the GPU service runs, so that the session's own GPU path and the "
							 "service's can be measured taking turns in one session. Calls on stored "
							 "arrays still use the service's device cache.",
							 &debug_session_gpu,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);
}
