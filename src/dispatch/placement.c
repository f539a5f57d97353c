/*-------------------------------------------------------------------------
 *
 * placement.c
 *	  Which GPU runs a call (placement.h): what the policy weighs, read
 *	  from shared memory.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"

#include "dispatch/cost_model.h"
#include "ipc/device_cache.h"
#include "ipc/service_status.h"
#include "dispatch/placement.h"
#include "cpu/placement_policy.h"
#include "ipc/channel.h"

int			gpuscan_placement = GS_PLACE_AFFINITY;
int			gpuscan_device_index = 0;
int			gpuscan_split_min_size_mb = 256;

const struct config_enum_entry gs_placement_options[] = {
	{"affinity", GS_PLACE_AFFINITY, false},
	{"least_busy", GS_PLACE_LEAST_BUSY, false},
	{"fixed", GS_PLACE_FIXED, false},
	{NULL, 0, false}
};

/*
 * worth_the_queue -- under auto, whether a call that would cost *cost in
 * the session should wait for the `busy` requests ahead of it on GPU
 * device's process, which takes about `request_ms` for each and runs
 * `streams` at once (gpuscan.service_streams): a call that finds a free
 * thread never waits, one that finds none waits busy / streams rounds
 * (the session's cost: the caller's where it gives one, else the cost
 * model's)
 */
static bool
worth_the_queue(const GsSessionCost *cost, int busy, double request_ms, int streams)
{
	int			rounds = busy / Max(streams, 1);
	GsCost		c;
	bool		corrected;
	double		session_ms;

	if (!cost->may_stay || rounds == 0)
		return true;
	if (cost->session_ms > 0)
		session_ms = cost->session_ms;
	else
	{
		c = gs_predict(cost->work, cost->n, cost->elemsize, &corrected);
		session_ms = cost->stored_bytes / GS_FETCH_BYTES_PER_MS + c.cpu_ms;
	}
	return rounds * request_ms <= session_ms;
}

/* gs_place_request -- see placement.h */
int
gs_place_request(const GsStoredKey *keys, int nkeys, const GsSessionCost *cost)
{
	GsServiceStatus st;
	GsPlacementDevice devices[GS_SERVICE_MAX_DEVICES];
	double		request_ms[GS_SERVICE_MAX_DEVICES];
	int			busy[GS_SERVICE_MAX_DEVICES];
	int64		cache_bytes[GS_SERVICE_MAX_DEVICES];
	int64		holds_bytes[GS_SERVICE_MAX_DEVICES];
	GsPlacedBy	by;
	bool		waited = false;
	int			n;
	int			d;

again:
	if (!gs_service_status(&st) || st.device_count <= 0)
		return -1;
	n = Min(st.device_count, GS_SERVICE_MAX_DEVICES);
	gs_channels_busy(busy, n);
	gs_cache_holdings(keys, nkeys, cache_bytes, holds_bytes, n);
	for (d = 0; d < n; d++)
	{
		GsDeviceStatus ds = {0};

		devices[d].ready = gs_device_status(d, &ds) && ds.state == GS_SERVICE_READY;
		request_ms[d] = ds.request_ms;
		devices[d].busy = busy[d];
		devices[d].cache_bytes = cache_bytes[d];
		devices[d].holds_bytes = holds_bytes[d];
	}
	d = gs_placement_choose((GsPlacementPolicy) gpuscan_placement, gpuscan_device_index,
							devices, n, &by);
	/* under gpuscan.device = gpu, GPUs whose processes are starting are waited for */
	if (d < 0 && cost->wait && !waited)
	{
		waited = true;
		if (gs_service_wait_ready())
			goto again;
	}
	if (d < 0)
		return -1;
	if (!worth_the_queue(cost, busy[d], request_ms[d], st.streams))
	{
		elog(DEBUG1, "gpuscan: in the session: %d requests queued on GPU %d at %.3f ms each",
			 busy[d], d, request_ms[d]);
		gs_device_count_placed(d, GS_PLACED_SESSION);
		return -1;
	}
	gs_device_count_placed(d, by);
	return d;
}

/* gs_place_split -- see placement.h */
int
gs_place_split(int64 bytes, int *devices)
{
	GsServiceStatus st;
	int			n = 0;
	int			d;

	if (gpuscan_split_min_size_mb < 0 || bytes < (int64) gpuscan_split_min_size_mb * 1024 * 1024 ||
		gpuscan_placement == GS_PLACE_FIXED || !gs_service_status(&st))
		return 0;
	for (d = 0; d < Min(st.device_count, GS_SERVICE_MAX_DEVICES); d++)
	{
		GsDeviceStatus ds;

		if (gs_device_status(d, &ds) && ds.state == GS_SERVICE_READY)
			devices[n++] = d;
	}
	if (n < 2)
		return 0;
	for (d = 0; d < n; d++)
		gs_device_count_placed(devices[d], GS_PLACED_SPLIT);
	return n;
}

/*
 * gs_placement_init -- define which GPU of the service takes a call:
 * gpuscan.placement, gpuscan.device_index and gpuscan.split_min_size
 */
void
gs_placement_init(void)
{
	DefineCustomEnumVariable("gpuscan.placement",
							 "Which GPU of the GPU service runs a call.",
							 "affinity: the GPU whose cache holds the call's arrays, else the least busy one; "
							 "least_busy: the least busy GPU, caching a copy there where needed; "
							 "fixed: the GPU gpuscan.device_index names.",
							 &gpuscan_placement,
							 GS_PLACE_AFFINITY,
							 gs_placement_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuscan.device_index",
							"The GPU that runs this session's calls under gpuscan.placement = fixed.",
							"Only superusers and roles granted SET on it may change it.",
							&gpuscan_device_index,
							0,
							0, 1023,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpuscan.split_min_size",
							"The smallest stored array whose gpu_sum the GPU service splits over its GPUs.",
							"Each GPU caches a part and sums it, all at once; -1: never split. "
							"Only with two GPUs or more and gpuscan.placement other than fixed.",
							&gpuscan_split_min_size_mb,
							256,
							-1, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_MB,
							NULL, NULL, NULL);
}
