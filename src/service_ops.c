/*-------------------------------------------------------------------------
 *
 * service_ops.c
 *	  The GPU service's work (service_ops.h): which GPUs it has, the exact
 *	  sum of a stored array from the device cache, emptying the cache.
 *
 * The service opens its GPU (device 0: one CUDA context for every session
 * of the server) when it starts (gpu_service.c).  A stored array that
 * is not cached yet comes in a dynamic shared memory segment that the
 * session filled; the service copies it to the device once and keeps it
 * there (device_cache.h), unless it is larger than the cache's bound: then
 * the copy is freed after the call.  A device error is the request's
 * answer; one that breaks the context (GSD_STICKY) also makes the service
 * exit after answering, and the postmaster starts it again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "postmaster/interrupt.h"
#include "storage/dsm.h"
#include "utils/memutils.h"

#include "device_cache.h"
#include "gpu_service.h"
#include "gpuscan_device.h"
#include "service_ops.h"

/* the GPU the service uses */
#define SERVICE_DEVICE	0

static bool context_broken = false;

/* gs_service_context_broken -- see service_ops.h */
bool
gs_service_context_broken(void)
{
	return context_broken;
}

/*
 * device_ok -- whether st is GSD_OK; otherwise answer the failure (`what`
 * and the device's own message) and note a broken context
 */
static bool
device_ok(gsd_status st, const char *what, GsResponse *resp)
{
	if (st == GSD_OK)
		return true;
	resp->ok = false;
	resp->gpu_failed = true;
	snprintf(resp->error, sizeof(resp->error), "%s: %s", what, gsd_last_error());
	if (st == GSD_STICKY)
		context_broken = true;
	return false;
}

/* open_device -- the service's GPU, opened at the start where it could be */
static bool
open_device(GsResponse *resp)
{
	if (gsd_is_open())
		return true;
	return device_ok(gsd_open(SERVICE_DEVICE), "cannot open the GPU", resp);
}

/* cache_limit_bytes -- gpuscan.cache_size in bytes (-1: a quarter of the GPU) */
static int64
cache_limit_bytes(void)
{
	gsd_device_props props;

	if (gpuscan_cache_size_mb >= 0)
		return (int64) gpuscan_cache_size_mb * 1024 * 1024;
	if (gsd_get_device_props(SERVICE_DEVICE, &props) != GSD_OK)
		return 0;
	return (int64) (props.total_memory / 4);
}

/* serve_devices -- GS_OP_DEVICES: the GPUs the service found, or why none */
static void
serve_devices(GsResponse *resp)
{
	GsServiceStatus st;
	int			i;

	(void) gs_service_status(&st);
	resp->device_count = st.device_count;
	if (st.state == GS_SERVICE_NO_GPU)
		strlcpy(resp->error, st.reason, sizeof(resp->error));
	for (i = 0; i < Min(st.device_count, GS_SERVICE_MAX_DEVICES); i++)
	{
		gsd_device_props p;
		GsServiceDevice *d = &resp->devices[i];

		if (gsd_get_device_props(i, &p) != GSD_OK)
		{
			snprintf(d->name, sizeof(d->name), "(no properties: %s)", gsd_last_error());
			continue;
		}
		strlcpy(d->name, p.name, sizeof(d->name));
		d->total_memory = p.total_memory;
		d->multiprocessors = p.multiprocessors;
		d->cc_major = p.cc_major;
		d->cc_minor = p.cc_minor;
	}
}

/*
 * load_array -- copy the session's data (a DSM segment of the array's
 * req->nelems elements) to new device memory, kept in the cache where it
 * fits; NULL on failure, with the answer written.  *temporary says the
 * caller must free it.
 */
static void *
load_array(const GsRequest *req, bool *temporary, GsResponse *resp)
{
	int64		bytes = req->nelems * req->elemsize;
	dsm_segment *seg;
	void	   *dptr = NULL;
	bool		cacheable;

	if (req->nelems < 0 || req->nelems > MaxAllocHugeSize / req->elemsize)
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return NULL;
	}
	seg = dsm_attach(req->data);
	if (seg == NULL)
	{
		/* the session stopped waiting and let the segment go */
		strlcpy(resp->error, "the session's data is gone", sizeof(resp->error));
		return NULL;
	}
	if ((int64) dsm_segment_map_length(seg) < bytes)
	{
		dsm_detach(seg);
		strlcpy(resp->error, "the session's data is shorter than the array", sizeof(resp->error));
		return NULL;
	}
	cacheable = gs_cache_make_room(SERVICE_DEVICE, bytes, cache_limit_bytes());
	if (device_ok(gsd_alloc(bytes, &dptr), "cannot allocate device memory for the array", resp) &&
		!device_ok(gsd_upload(dptr, dsm_segment_address(seg), bytes),
				   "cannot copy the array to the GPU", resp))
	{
		(void) gsd_free(dptr);
		dptr = NULL;
	}
	dsm_detach(seg);
	if (dptr == NULL)
		return NULL;
	if (cacheable)
		gs_cache_add(&req->key, req->elemsize, req->nelems, SERVICE_DEVICE, dptr);
	*temporary = !cacheable;
	return dptr;
}

/*
 * serve_sum_cached -- GS_OP_SUM_CACHED: the exact sum of a stored array,
 * from its cached device copy; where there is none, a miss if the session
 * sent no data, else the data is loaded (and cached) first
 */
static void
serve_sum_cached(const GsRequest *req, GsResponse *resp)
{
	int64		nelems = req->nelems;
	bool		temporary = false;
	void	   *d_vals;
	gs_exact_acc *d_acc = NULL;
	gsd_status	st;

	if (req->elemsize != 4 && req->elemsize != 8)
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return;
	}
	if (!open_device(resp))
		return;
	d_vals = gs_cache_lookup(&req->key, req->elemsize, &nelems);
	resp->cached = d_vals != NULL;
	if (d_vals == NULL && req->data == DSM_HANDLE_INVALID)
	{
		resp->ok = true;
		resp->miss = true;
		return;
	}
	if (d_vals == NULL && (d_vals = load_array(req, &temporary, resp)) == NULL)
		return;
	resp->nelems = nelems;

	if (device_ok(gsd_alloc(sizeof(gs_exact_acc), (void **) &d_acc),
				  "cannot allocate device memory", resp) &&
		device_ok(gsd_memset_zero(d_acc, sizeof(gs_exact_acc)), "cannot zero memory", resp))
	{
		if (req->elemsize == 8)
			st = gsd_sum_exact_f64(d_vals, nelems, d_acc, NULL);
		else
			st = gsd_sum_exact_f32(d_vals, nelems, d_acc, NULL);
		if (device_ok(st, "the sum failed", resp) &&
			device_ok(gsd_download(&resp->acc, d_acc, sizeof(gs_exact_acc)),
					  "cannot copy the sum back", resp))
			resp->ok = true;
	}
	if (d_acc)
		(void) gsd_free(d_acc);
	if (temporary)
		(void) gsd_free(d_vals);
}

/* gs_service_serve -- see service_ops.h */
void
gs_service_serve(const GsRequest *req, GsResponse *resp)
{
	int			waited;

	for (waited = 0; waited < req->delay_ms; waited += 10)
	{
		if (ShutdownRequestPending)
		{
			strlcpy(resp->error, "the service is shutting down", sizeof(resp->error));
			return;
		}
		pg_usleep(10 * 1000L);
	}
	if (req->fault)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("gpuscan gpu service: a fault injected by gpuscan.debug_service_fault")));

	switch (req->op)
	{
		case GS_OP_DEVICES:
			resp->ok = true;
			serve_devices(resp);
			break;
		case GS_OP_SUM_CACHED:
			serve_sum_cached(req, resp);
			break;
		case GS_OP_CACHE_RESET:
			resp->entries_freed = gs_cache_clear();
			resp->ok = true;
			break;
		default:
			strlcpy(resp->error, "unknown request", sizeof(resp->error));
			break;
	}
}
