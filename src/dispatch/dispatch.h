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
extern bool gpuscan_gpu_prewarm;

/* ---- choosing the path (dispatch.c) ---- */

/*
 * Whether the call `fn`, `work` over `nelems` elements of `elemsize`
 * bytes, runs on the GPU.  With gpuscan.device = auto: the path the cost
 * model predicts faster (opening the GPU counted where the session has not
 * yet), or gpuscan.gpu_min_elements's threshold where that is set.  Opens
 * the device on first use; raises an ERROR when gpuscan.device = gpu and
 * no GPU is usable.  Emits a DEBUG1 line naming the path and the reason,
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
 * Whether the GPU of gs_use_gpu's last answer is the GPU service's: where
 * gpuscan is preloaded the service runs all GPU work, and the caller sends
 * the call there (service_call.h); else the backend runs it on its own GPU.
 */
extern bool gs_gpu_in_service(void);

/*
 * Fill in what the session's settings say of placing a request on the GPU
 * service (GsSessionCost's may_stay, wait and gpu_open)
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

/* Whether a GPU is usable in this backend (opens it if needed; no ERROR). */
extern bool gs_gpu_usable(const char **reason);

/* The GPU this backend opened for its own device work; -1 if none */
extern int	gs_gpu_open_index(void);

/*
 * With gpuscan.gpu_prewarm, start opening the GPU in a helper thread of
 * this backend (from _PG_init in a backend)
 */
extern void gs_dispatch_prewarm(void);

/*
 * Define the settings of where functions run (gpuscan.device, ...); from
 * _PG_init
 */
extern void gs_dispatch_init(void);

/* Mark the GPU unusable for this backend after a sticky error. */
extern void gs_dispatch_mark_broken(void);

#endif							/* GPUSCAN_DISPATCH_H */
