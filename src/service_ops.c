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

#include "catalog/pg_type.h"
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

/* elem_size -- bytes of an element of a type the cache holds, or 0 */
static int
elem_size(Oid elemtype)
{
	switch (elemtype)
	{
		case FLOAT8OID:
			return 8;
		case FLOAT4OID:
		case INT4OID:
			return 4;
		default:
			return 0;
	}
}

/*
 * attach_data -- the session's DSM segment of at least `bytes`, attached;
 * NULL with the answer written where it is gone (the session stopped
 * waiting and let it go) or too short
 */
static dsm_segment *
attach_data(dsm_handle handle, int64 bytes, GsResponse *resp)
{
	dsm_segment *seg = dsm_attach(handle);

	if (seg == NULL)
		strlcpy(resp->error, "the session's data is gone", sizeof(resp->error));
	else if ((int64) dsm_segment_map_length(seg) < bytes)
	{
		dsm_detach(seg);
		seg = NULL;
		strlcpy(resp->error, "the session's data is shorter than it said", sizeof(resp->error));
	}
	return seg;
}

/*
 * serve_load -- GS_OP_LOAD: copy a stored array from the session's segment
 * to new device memory and add it to the cache, unless it is there
 * already or cannot fit (not_cached)
 */
static void
serve_load(const GsRequest *req, GsResponse *resp)
{
	int			elemsize = elem_size(req->elemtype);
	GsCacheItem item;
	dsm_segment *seg;

	if (elemsize == 0 || req->nelems < 0 || req->nelems > (int64) (MaxAllocHugeSize / elemsize))
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return;
	}
	if (!open_device(resp))
		return;
	if (gs_cache_lookup(&req->keys[0], GS_CACHE_ARRAY, req->elemtype, false, &item))
	{
		/* another session loaded it meanwhile */
		resp->ok = true;
		return;
	}
	memset(&item, 0, sizeof(item));
	item.kind = GS_CACHE_ARRAY;
	item.elemtype = req->elemtype;
	item.nelems = req->nelems;
	item.bytes = req->nelems * elemsize;
	item.facts = req->facts;
	if (!gs_cache_make_room(SERVICE_DEVICE, item.bytes, cache_limit_bytes()))
	{
		resp->ok = true;
		resp->not_cached = true;
		return;
	}
	if ((seg = attach_data(req->data, item.bytes, resp)) == NULL)
		return;
	if (device_ok(gsd_alloc(Max(item.bytes, 1), &item.dptr),
				  "cannot allocate device memory for the array", resp))
	{
		if (device_ok(gsd_upload(item.dptr, dsm_segment_address(seg), item.bytes),
					  "cannot copy the array to the GPU", resp))
		{
			gs_cache_add(&req->keys[0], SERVICE_DEVICE, &item);
			resp->ok = true;
		}
		else
			(void) gsd_free(item.dptr);
	}
	dsm_detach(seg);
}

/*
 * serve_sum_cached -- GS_OP_SUM_CACHED: the exact sum of a cached array
 * (missing where it is not cached)
 */
static void
serve_sum_cached(const GsRequest *req, GsResponse *resp)
{
	GsCacheItem item;
	gs_exact_acc *d_acc = NULL;
	gsd_status	st;

	if (req->elemtype != FLOAT8OID && req->elemtype != FLOAT4OID)
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return;
	}
	if (!open_device(resp))
		return;
	if (!gs_cache_lookup(&req->keys[0], GS_CACHE_ARRAY, req->elemtype, !req->after_load, &item))
	{
		resp->ok = true;
		resp->missing = 1;
		return;
	}
	resp->nelems = item.nelems;
	if (device_ok(gsd_alloc(sizeof(gs_exact_acc), (void **) &d_acc),
				  "cannot allocate device memory", resp) &&
		device_ok(gsd_memset_zero(d_acc, sizeof(gs_exact_acc)), "cannot zero memory", resp))
	{
		if (req->elemtype == FLOAT8OID)
			st = gsd_sum_exact_f64(item.dptr, item.nelems, d_acc, NULL);
		else
			st = gsd_sum_exact_f32(item.dptr, item.nelems, d_acc, NULL);
		if (device_ok(st, "the sum failed", resp) &&
			device_ok(gsd_download(&resp->acc, d_acc, sizeof(gs_exact_acc)),
					  "cannot copy the sum back", resp))
			resp->ok = true;
	}
	if (d_acc)
		(void) gsd_free(d_acc);
}

/*
 * matrix_valid -- whether cached arrays row_ptr, col_idx and vals make a
 * CSR matrix for an x of ncols elements, by what the loading sessions
 * found of them (the rules of csr_check.h)
 */
static bool
matrix_valid(const GsCacheItem *rp, const GsCacheItem *ci, const GsCacheItem *va, int64 ncols)
{
	int64		nnz = ci->nelems;

	return rp->nelems >= 1 && rp->facts.row_ptr && rp->facts.last == nnz &&
		va->nelems == nnz &&
		(nnz == 0 || (ci->facts.min >= 0 && ci->facts.max < ncols));
}

/*
 * spmv_plan -- the cached SpMV plan of row_ptr (made and added where there
 * is none); false with the answer written on a device error
 */
static bool
spmv_plan(const GsStoredKey *rp_key, const GsCacheItem *rp, int32 nnz, bool count_hit,
		  GsCacheItem *plan, GsResponse *resp)
{
	int32		nrows = (int32) (rp->nelems - 1);
	void	   *d_scratch = NULL;
	bool		ok;

	if (gs_cache_lookup(rp_key, GS_CACHE_SPMV_PLAN, InvalidOid, count_hit, plan))
		return true;
	memset(plan, 0, sizeof(*plan));
	plan->kind = GS_CACHE_SPMV_PLAN;
	ok = device_ok(gsd_alloc(Max(gsd_spmv_plan_scratch_bytes(nrows), 1), &d_scratch),
				   "cannot allocate device memory", resp) &&
		device_ok(gsd_spmv_plan_analyze(&plan->plan, rp->dptr, nrows, nnz, d_scratch),
				  "cannot plan the SpMV", resp);
	if (ok)
	{
		plan->bytes = gsd_spmv_plan_bytes(&plan->plan);
		ok = device_ok(gsd_alloc(Max(plan->bytes, 1), &plan->dptr),
					   "cannot allocate device memory", resp);
	}
	if (ok && !device_ok(gsd_spmv_plan_build(&plan->plan, rp->dptr, d_scratch, plan->dptr),
						 "cannot plan the SpMV", resp))
	{
		(void) gsd_free(plan->dptr);
		ok = false;
	}
	if (d_scratch)
		(void) gsd_free(d_scratch);
	/* kept where it fits; otherwise bytes = -1 says that the caller frees it after the call */
	if (ok && gs_cache_make_room(SERVICE_DEVICE, plan->bytes, cache_limit_bytes()))
		gs_cache_add(rp_key, SERVICE_DEVICE, plan);
	else if (ok)
		plan->bytes = -1;
	return ok;
}

/*
 * serve_spmv_cached -- GS_OP_SPMV_CACHED: y = A x with A's arrays in the
 * cache (missing those that are not), x from the session's segment and y
 * into it after x
 */
static void
serve_spmv_cached(const GsRequest *req, GsResponse *resp)
{
	int			elemsize = elem_size(req->elemtype);
	GsCacheItem arrays[GS_REQUEST_KEYS];
	Oid			types[GS_REQUEST_KEYS] = {INT4OID, INT4OID, req->elemtype};
	GsCacheItem plan;
	dsm_segment *seg;
	int64		x_bytes = req->nelems * elemsize;
	int64		y_bytes;
	void	   *d_x = NULL,
			   *d_y = NULL;
	bool		planned;
	gsd_status	st;
	int			i;

	if ((req->elemtype != FLOAT8OID && req->elemtype != FLOAT4OID) || req->nelems < 0 ||
		req->nelems > (int64) (MaxAllocHugeSize / elemsize))
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return;
	}
	if (!open_device(resp))
		return;
	for (i = 0; i < GS_REQUEST_KEYS; i++)
		if (!gs_cache_lookup(&req->keys[i], GS_CACHE_ARRAY, types[i], !req->after_load,
							 &arrays[i]))
			resp->missing |= 1 << i;
	resp->ok = true;
	if (resp->missing)
		return;
	if (!matrix_valid(&arrays[0], &arrays[1], &arrays[2], req->nelems))
	{
		resp->invalid = true;
		return;
	}
	resp->nelems = arrays[0].nelems - 1;
	resp->nnz = arrays[1].nelems;
	y_bytes = resp->nelems * elemsize;
	resp->ok = false;
	if ((seg = attach_data(req->data, x_bytes, resp)) == NULL)
		return;
	if ((int64) dsm_segment_map_length(seg) < x_bytes + y_bytes)
	{
		/* no room for y: the session runs the call itself */
		dsm_detach(seg);
		resp->ok = true;
		resp->invalid = true;
		return;
	}
	planned = spmv_plan(&req->keys[0], &arrays[0], (int32) arrays[1].nelems, !req->after_load,
						&plan, resp);
	if (planned &&
		device_ok(gsd_alloc(Max(x_bytes, 1), &d_x), "cannot allocate device memory", resp) &&
		device_ok(gsd_alloc(Max(y_bytes, 1), &d_y), "cannot allocate device memory", resp) &&
		device_ok(gsd_upload(d_x, dsm_segment_address(seg), x_bytes), "cannot copy x to the GPU",
				  resp))
	{
		if (req->elemtype == FLOAT8OID)
			st = gsd_spmv_f64(&plan.plan, arrays[0].dptr, arrays[1].dptr, arrays[2].dptr, d_x, d_y);
		else
			st = gsd_spmv_f32(&plan.plan, arrays[0].dptr, arrays[1].dptr, arrays[2].dptr, d_x, d_y);
		if (device_ok(st, "the SpMV failed", resp) &&
			device_ok(gsd_download((char *) dsm_segment_address(seg) + x_bytes, d_y, y_bytes),
					  "cannot copy y back", resp))
			resp->ok = true;
	}
	if (planned && plan.bytes < 0)
		(void) gsd_free(plan.dptr);
	if (d_y)
		(void) gsd_free(d_y);
	if (d_x)
		(void) gsd_free(d_x);
	dsm_detach(seg);
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
		case GS_OP_LOAD:
			serve_load(req, resp);
			break;
		case GS_OP_SUM_CACHED:
			serve_sum_cached(req, resp);
			break;
		case GS_OP_SPMV_CACHED:
			serve_spmv_cached(req, resp);
			break;
		case GS_OP_CACHE_RESET:
			resp->entries_freed = gs_cache_clear();
			resp->ok = true;
			break;
		default:
			strlcpy(resp->error, "unknown request", sizeof(resp->error));
			break;
	}
	gs_cache_unpin_all();
}
