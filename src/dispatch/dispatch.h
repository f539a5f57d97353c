/*-------------------------------------------------------------------------
 *
 * dispatch.h
 *	  Where a call runs: gpuscan.device and its settings, the choice of the
 *	  path for each call (dispatch.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_DISPATCH_H
#define GPUSCAN_DISPATCH_H

#include "postgres.h"

#include "dispatch/cost_model.h"
#include "dispatch/placement.h"

/* ---- the settings (dispatch.c's gs_dispatch_init) ---- */

/* gpuscan.device */
typedef enum GpuscanDeviceMode
{
	GPUSCAN_DEVICE_AUTO,
	GPUSCAN_DEVICE_GPU,
	GPUSCAN_DEVICE_CPU
} GpuscanDeviceMode;

extern int	gpuscan_device_mode;
extern bool gpuscan_allow_gpu;
extern int	gpuscan_gpu_min_elements;

/* ---- choosing the path (dispatch.c) ---- */

/*
 * Whether the call `fn`, `work` over `nelems` elements of `elemsize`
 * bytes, runs on the GPU, that is in the GPU service (service_call.h).
 * With gpuscan.device = auto: the path the cost model predicts faster, or
 * gpuscan.gpu_min_elements's threshold where that is set; the CPU where the
 * service cannot take the call (gpuscan not preloaded, the service
 * starting, no GPU).  Raises an ERROR when gpuscan.device = gpu and no GPU
 * is usable.  Emits a DEBUG1 line naming the path and the reason,
 * which gpuscan_stats() shows too (gs_last_reason).
 */
extern bool gs_use_gpu(const char *fn, GsWork work, int64 nelems, int elemsize);

/*
 * Under gpuscan.device = gpu, the ERROR that gs_use_gpu raises where no GPU
 * is usable, for work that has no GPU path (per-group sums, gpu_csr_agg's
 * matrix): one rule for every function and plan
 */
extern void gs_require_forced_gpu(const char *fn);

/*
 * Fill in what the session's settings say of placing a request on the GPU
 * service (GsSessionCost's may_stay and wait)
 */
extern void gs_session_cost_mode(GsSessionCost *cost);

/* Why the last call took its path, as gs_use_gpu said at DEBUG1 */
extern const char *gs_last_reason(void);

/*
 * The in-function time of the call that gs_use_gpu last chose a path for
 * (from gs_stats_record): where the cost model chose, it corrects the
 * model for the session's later calls (cost_model.h).
 */
extern void gs_dispatch_measured(bool on_gpu, int64 nelems, double ms);

/*
 * The call's time includes work that the cost model does not predict
 * (reading a stored array as it goes): gs_dispatch_measured ignores it.
 */
extern void gs_dispatch_not_measured(void);

/*
 * Whether the GPU service can take a call now; else *reason says why not.
 * Never raises an ERROR.
 */
extern bool gs_gpu_usable(const char **reason);

/*
 * Define the settings of where functions run (gpuscan.device, ...); from
 * _PG_init
 */
extern void gs_dispatch_init(void);

#endif							/* GPUSCAN_DISPATCH_H */
