/*-------------------------------------------------------------------------
 *
 * placement.h
 *	  Which GPU of the GPU service runs a call's request.
 *
 * gpuscan.placement names the policy (placement_policy.h): affinity (the
 * default), least_busy or fixed.  What the policy weighs is read from
 * shared memory at each call: which GPUs' processes are ready, how many
 * requests each has waiting or running, and what each caches.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_PLACEMENT_H
#define GPUSCAN_PLACEMENT_H

#include "postgres.h"

#include "utils/guc.h"

#include "dispatch/cost_model.h"
#include "ipc/stored_array.h"

/* gpuscan.placement: a GsPlacementPolicy */
extern int	gpuscan_placement;
extern const struct config_enum_entry gs_placement_options[];

/* What a call would cost on the CPU instead: its work and what it would read */
typedef struct GsSessionCost
{
	GsWork		work;
	int64		n;				/* elements (non-zeros, edges) */
	int			elemsize;
	int64		stored_bytes;	/* its stored arguments, read from their table */
	/* from the session's settings (dispatch.h's gs_session_cost_mode) */
	bool		may_stay;		/* a long queue leaves it to the session (device = auto) */
	bool		wait;			/* wait for a service that is restarting (device = gpu) */
	/*
	 * > 0: what the call costs in the session, known to its caller (a
	 * table's pages read there), in place of the cost model's figure for
	 * work over n elements
	 */
	double		session_ms;
} GsSessionCost;

/* how fast a session reads a stored array, bytes a millisecond (80 MB in 78.5 ms) */
#define GS_FETCH_BYTES_PER_MS	(1024.0 * 1024.0)

/*
 * The GPU whose service process runs a request on the stored arrays
 * keys[0 .. nkeys-1], counted in that GPU's placement counters; -1 where
 * no GPU's process is ready, or, under gpuscan.device = auto, where the
 * requests queued on that GPU would take longer, at its process's recent
 * time per request, than the call in the session (*cost: reading its
 * arguments and the work on the CPU, by the cost model).  On -1 the caller
 * runs the call in the session, on the CPU.
 */
extern int	gs_place_request(const GsStoredKey *keys, int nkeys, const GsSessionCost *cost);

/* gpuscan.device_index: the GPU of fixed placement */
extern int	gpuscan_device_index;

/* gpuscan.split_min_size: MB; -1: never split */
extern int	gpuscan_split_min_size_mb;

/*
 * The GPUs a call on a stored array of `bytes` is split over, in devices[]
 * (GS_SERVICE_MAX_DEVICES of room), and how many: every GPU whose process
 * is ready, where the array is gpuscan.split_min_size or more, there are
 * two such GPUs or more and gpuscan.placement is not fixed; else 0.  Each
 * is counted as placed for a split.
 */
extern int	gs_place_split(int64 bytes, int *devices);

/* Define gpuscan.placement and gpuscan.split_min_size; from _PG_init */
extern void gs_placement_init(void);

#endif							/* GPUSCAN_PLACEMENT_H */
