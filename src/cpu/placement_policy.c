/*-------------------------------------------------------------------------
 *
 * placement_policy.c
 *	  Which GPU runs a request of the GPU service (placement_policy.h).
 *
 *-------------------------------------------------------------------------
 */
#include <stddef.h>

#include "cpu/placement_policy.h"

/*
 * less_busy -- whether GPU a is a better choice than GPU b by load: fewer
 * requests; among equals, more of the request's bytes (no copy needed),
 * then fewer bytes cached
 */
static bool
less_busy(const GsPlacementDevice *a, const GsPlacementDevice *b)
{
	if (a->busy != b->busy)
		return a->busy < b->busy;
	if (a->holds_bytes != b->holds_bytes)
		return a->holds_bytes > b->holds_bytes;
	return a->cache_bytes < b->cache_bytes;
}

/* least_busy -- the least busy ready GPU (lowest index among equals), or -1 */
static int
least_busy(const GsPlacementDevice *devices, int ndevices)
{
	int			best = -1;
	int			i;

	for (i = 0; i < ndevices; i++)
		if (devices[i].ready && (best < 0 || less_busy(&devices[i], &devices[best])))
			best = i;
	return best;
}

/* holder -- the ready GPU holding the most of the request's bytes, or -1 */
static int
holder(const GsPlacementDevice *devices, int ndevices)
{
	int			best = -1;
	int			i;

	for (i = 0; i < ndevices; i++)
	{
		const GsPlacementDevice *d = &devices[i];

		if (!d->ready || d->holds_bytes <= 0)
			continue;
		if (best < 0 || d->holds_bytes > devices[best].holds_bytes ||
			(d->holds_bytes == devices[best].holds_bytes && less_busy(d, &devices[best])))
			best = i;
	}
	return best;
}

/* gs_placement_choose -- see placement_policy.h */
int
gs_placement_choose(GsPlacementPolicy policy, int fixed_index,
					const GsPlacementDevice *devices, int ndevices, GsPlacedBy *by)
{
	int			d = -1;

	*by = GS_PLACED_NONE;
	switch (policy)
	{
		case GS_PLACE_FIXED:
			if (fixed_index >= 0 && fixed_index < ndevices && devices[fixed_index].ready)
			{
				*by = GS_PLACED_FIXED;
				return fixed_index;
			}
			return -1;
		case GS_PLACE_AFFINITY:
			d = holder(devices, ndevices);
			if (d >= 0)
			{
				*by = GS_PLACED_CACHE;
				return d;
			}
			/* FALLTHROUGH */
		case GS_PLACE_LEAST_BUSY:
			d = least_busy(devices, ndevices);
			if (d >= 0)
				*by = GS_PLACED_LEAST_BUSY;
			return d;
	}
	return -1;
}
