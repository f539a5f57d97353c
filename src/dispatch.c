/*-------------------------------------------------------------------------
 *
 * dispatch.c
 *	  Choosing the CPU or the GPU for each call, and the GPU's state in
 *	  this backend.
 *
 * The GPU is opened lazily, at the first call that would use it.  Where it
 * cannot be opened (CPU-only build, no driver, no device) gpuscan.device =
 * auto quietly takes the CPU and gpuscan.device = gpu raises an ERROR.
 * After a sticky device error the GPU stays off for the rest of the
 * session: auto warns once and takes the CPU, gpu raises an ERROR.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "gpuscan.h"

typedef enum GpuState
{
	GPU_UNKNOWN,				/* not tried yet */
	GPU_READY,					/* open and usable */
	GPU_UNAVAILABLE,			/* could not be opened */
	GPU_BROKEN					/* a sticky error happened */
} GpuState;

static GpuState gpu_state = GPU_UNKNOWN;
static int	gpu_open_index = -1;
static char gpu_reason[512];
static bool broken_warned = false;

/* try_open -- open the configured device once, remembering why not */
static void
try_open(void)
{
	gsd_status	st;

	if (gpu_state != GPU_UNKNOWN)
		return;
	st = gsd_open(gpuscan_device_index);
	if (st == GSD_OK)
	{
		gpu_state = GPU_READY;
		gpu_open_index = gpuscan_device_index;
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

/* gs_gpu_usable -- is a GPU usable here?  Never raises an ERROR. */
bool
gs_gpu_usable(const char **reason)
{
	try_open();
	if (reason)
		*reason = gpu_reason;
	return gpu_state == GPU_READY;
}

/* require_gpu -- ERROR unless the GPU can take this call */
static void
require_gpu(const char *fn)
{
	if (gpu_state == GPU_READY && gpuscan_device_index != gpu_open_index)
		ereport(ERROR,
				(errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM),
				 errmsg("gpuscan.device_index cannot change once the session has used a GPU"),
				 errdetail("This session uses device %d; gpuscan.device_index is %d.",
						   gpu_open_index, gpuscan_device_index),
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

/* gs_use_gpu -- the path for one call; see gpuscan.h */
bool
gs_use_gpu(const char *fn, int64 nelems, bool gpu_pays_off)
{
	switch (gpuscan_device_mode)
	{
		case GPUSCAN_DEVICE_CPU:
			elog(DEBUG1, "%s: " INT64_FORMAT " elements on the CPU (gpuscan.device = cpu)",
				 fn, nelems);
			return false;

		case GPUSCAN_DEVICE_GPU:
			if (!gpuscan_allow_gpu)
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("%s: permission denied to use the GPU", fn),
						 errdetail("gpuscan.device is 'gpu', but gpuscan.allow_gpu is off for this session."),
						 errhint("Set gpuscan.device to 'auto' or 'cpu' to run on the CPU, or ask an administrator to allow the GPU.")));
			try_open();
			require_gpu(fn);
			elog(DEBUG1, "%s: " INT64_FORMAT " elements on the GPU (gpuscan.device = gpu)",
				 fn, nelems);
			return true;

		case GPUSCAN_DEVICE_AUTO:
		default:
			if (!gpu_pays_off)
			{
				elog(DEBUG1, "%s: " INT64_FORMAT " elements on the CPU (a single pass over host memory: copying it to the GPU costs more than the work)",
					 fn, nelems);
				return false;
			}
			if (!gpuscan_allow_gpu)
			{
				elog(DEBUG1, "%s: " INT64_FORMAT " elements on the CPU (gpuscan.allow_gpu is off)",
					 fn, nelems);
				return false;
			}
			if (nelems < gpuscan_gpu_min_elements)
			{
				elog(DEBUG1, "%s: " INT64_FORMAT " elements on the CPU (fewer than gpuscan.gpu_min_elements = %d)",
					 fn, nelems, gpuscan_gpu_min_elements);
				return false;
			}
			try_open();
			if (gpu_state == GPU_BROKEN && !broken_warned)
			{
				broken_warned = true;
				ereport(WARNING,
						(errmsg("gpuscan: the GPU is off for this session after an error; using the CPU"),
						 errdetail("%s", gpu_reason)));
			}
			if (gpu_state != GPU_READY)
			{
				elog(DEBUG1, "%s: " INT64_FORMAT " elements on the CPU (no usable GPU: %s)",
					 fn, nelems, gpu_reason);
				return false;
			}
			require_gpu(fn);	/* device_index changed: say so */
			elog(DEBUG1, "%s: " INT64_FORMAT " elements on the GPU (gpuscan.device = auto)",
				 fn, nelems);
			return true;
	}
}
