/*-------------------------------------------------------------------------
 *
 * placement_policy.h
 *	  Which GPU runs a request of the GPU service: the decision alone, in
 *	  plain C (no PostgreSQL headers), so that the unit tests check it
 *	  without a server or a GPU.  placement.h gathers its inputs.
 *
 * Policies (gpuscan.placement):
 *
 *	affinity    the GPU whose cache holds the most bytes of the request's
 *	            stored arrays; where none holds any, the least busy GPU.
 *	            An array is never copied to a second GPU: a copy costs the
 *	            array's read from TOAST and its upload, tens of
 *	            milliseconds for a 10-million-element array, against the
 *	            fraction of a millisecond that a cached request waits for
 *	            another on its GPU.
 *	least_busy  the least busy GPU, wherever the arrays are: an array used
 *	            by many sessions at once ends up cached on every GPU.
 *	fixed       always gpuscan.device_index.
 *
 * "Least busy": the fewest requests waiting or running on it; among those,
 * the one holding the most of the request's bytes, then the fewest bytes
 * cached (so that the first arrays loaded spread over the GPUs), then the
 * lowest index.  Only GPUs whose service is ready
 * are chosen.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_PLACEMENT_POLICY_H
#define GPUSCAN_PLACEMENT_POLICY_H

#include <stdbool.h>
#include <stdint.h>

typedef enum GsPlacementPolicy
{
	GS_PLACE_AFFINITY,
	GS_PLACE_LEAST_BUSY,
	GS_PLACE_FIXED
} GsPlacementPolicy;

/* Why a GPU was chosen */
typedef enum GsPlacedBy
{
	GS_PLACED_NONE,				/* no GPU is ready (or the fixed one is not) */
	GS_PLACED_CACHE,			/* it holds the request's arrays */
	GS_PLACED_LEAST_BUSY,
	GS_PLACED_FIXED,
	GS_PLACED_SPLIT,			/* a part of a call split over the GPUs (placement.h) */
	GS_PLACED_SESSION			/* left to the session: the GPU's queue was too long */
} GsPlacedBy;

/* What the decision knows of one GPU */
typedef struct GsPlacementDevice
{
	bool		ready;			/* its service runs and has the GPU open */
	int			busy;			/* requests waiting for it or running on it */
	int64_t		cache_bytes;	/* its cache's bytes */
	int64_t		holds_bytes;	/* of those, the bytes of this request's arrays */
} GsPlacementDevice;

/*
 * The GPU for a request among devices[0 .. ndevices-1] under `policy`
 * (fixed_index: gpuscan.device_index), with the reason in *by; -1 (and
 * GS_PLACED_NONE) where no GPU can take it.
 */
extern int	gs_placement_choose(GsPlacementPolicy policy, int fixed_index,
								const GsPlacementDevice *devices, int ndevices,
								GsPlacedBy *by);

#endif							/* GPUSCAN_PLACEMENT_POLICY_H */
