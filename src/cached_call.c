/*-------------------------------------------------------------------------
 *
 * cached_call.c
 *	  A session's calls on stored arrays through the GPU service's device
 *	  cache (cached_call.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "miscadmin.h"
#include "storage/dsm.h"

#include "array_stream.h"
#include "cached_call.h"
#include "device_cache.h"
#include "gpu_service.h"
#include "gpuscan.h"
#include "service_channel.h"
#include "stored_array.h"

/*
 * use_cache -- whether a call on stored value `d` (an array of elements
 * of elemsize bytes) goes to the service's cache: the value is stored out
 * of line on disk, the session allows the GPU and the cache, and the
 * service runs with a GPU
 */
static bool
use_cache(Datum d, int elemsize)
{
	struct varatt_external toast_pointer;
	GsServiceStatus st;
	int64		raw_bytes;

	if (!VARATT_IS_EXTERNAL_ONDISK(DatumGetPointer(d)))
		return false;
	if (!gpuscan_cache || !gpuscan_allow_gpu || gpuscan_device_mode == GPUSCAN_DEVICE_CPU)
		return false;
	VARATT_EXTERNAL_GET_POINTER(toast_pointer, DatumGetPointer(d));
	raw_bytes = toast_pointer.va_rawsize;
	if (gpuscan_device_mode == GPUSCAN_DEVICE_AUTO &&
		(gpuscan_gpu_min_elements >= 0 ? raw_bytes / elemsize < gpuscan_gpu_min_elements :
		 raw_bytes < GS_CACHE_MIN_BYTES))
		return false;
	return gs_service_status(&st) && st.state == GS_SERVICE_READY && st.device_count > 0;
}

/*
 * array_to_segment -- argument `argno`, read, checked as the function
 * checks it (ERROR where the function would) and its elements copied into
 * a new dynamic shared memory segment; *nelems is their number
 */
static dsm_segment *
array_to_segment(FunctionCallInfo fcinfo, int argno, Oid elemtype, const char *fn,
				 int64 *nelems)
{
	GsArrayInput in;
	dsm_segment *seg;
	int64		bytes;

	gs_array_open(&in, gs_getarg_array(fcinfo, argno), elemtype, fn, "vals");
	gs_array_check_nulls(&in, 0, in.nelems);
	bytes = in.nelems * in.elemsize;
	seg = dsm_create(Max(bytes, 1), 0);
	memcpy(dsm_segment_address(seg), in.data, bytes);
	*nelems = in.nelems;
	return seg;
}

/*
 * service_failed -- where the service could not run the call: an ERROR
 * with gpuscan.device = gpu, else (auto) a DEBUG1 line, and the caller
 * runs the call on the CPU
 */
static void
service_failed(const GsResponse *resp, const char *fn)
{
	if (gpuscan_device_mode == GPUSCAN_DEVICE_GPU)
		ereport(ERROR,
				(errcode(resp->gpu_failed ? ERRCODE_EXTERNAL_ROUTINE_EXCEPTION :
						 ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s: the gpuscan GPU service could not run the call", fn),
				 errdetail("%s", resp->error)));
	elog(DEBUG1, "%s: on the CPU, as the GPU service could not run the call: %s",
		 fn, resp->error);
}

/* gs_cached_sum -- see cached_call.h */
bool
gs_cached_sum(FunctionCallInfo fcinfo, int argno, Oid elemtype, gs_exact_acc *acc,
			  const char *fn)
{
	Datum		d = fcinfo->args[argno].value;
	GsRequest	req;
	GsResponse	resp;
	GsTimer		timer;
	bool		loaded = false;

	memset(&req, 0, sizeof(req));
	req.elemsize = gs_float_size(elemtype);
	if (!use_cache(d, req.elemsize))
		return false;
	gs_timer_start(&timer);
	if (!gs_stored_key(d, &req.key))
		return false;
	req.op = GS_OP_SUM_CACHED;
	req.data = DSM_HANDLE_INVALID;

	if (!gs_service_try_call(&req, &resp))
	{
		service_failed(&resp, fn);
		return false;
	}
	if (resp.miss)
	{
		dsm_segment *seg = array_to_segment(fcinfo, argno, elemtype, fn, &req.nelems);
		bool		ok;

		req.data = dsm_segment_handle(seg);
		ok = gs_service_try_call(&req, &resp);
		dsm_detach(seg);
		if (!ok)
		{
			service_failed(&resp, fn);
			return false;
		}
		loaded = !resp.cached;
	}
	gs_acc_merge(acc, &resp.acc);
	gs_stats_record_path(fn, loaded ? "gpu service, loaded" : "gpu service, cached",
						 resp.nelems, loaded ? resp.nelems * req.elemsize : 0, &timer,
						 loaded ? "a stored array, loaded into the GPU service's cache" :
						 "a stored array in the GPU service's cache");
	return true;
}
