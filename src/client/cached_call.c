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
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "storage/dsm.h"

#include "pg/array_input.h"
#include "pg/array_stream.h"
#include "client/cached_call.h"
#include "ipc/device_cache.h"
#include "dispatch/dispatch.h"
#include "ipc/service_status.h"
#include "dispatch/placement.h"
#include "client/service_call.h"
#include "client/channel_client.h"
#include "ipc/channel.h"
#include "cpu/csr_check.h"
#include "pg/chunks.h"
#include "dispatch/stats.h"

/*
 * cache_usable -- whether this session's calls may go to the cache: it
 * allows the GPU and the cache, and the service runs with a GPU
 */
static bool
cache_usable(void)
{
	GsServiceStatus st;

	if (!gpuscan_cache || !gpuscan_allow_gpu || gpuscan_device_mode == GPUSCAN_DEVICE_CPU)
		return false;
	return gs_service_status(&st) && st.state == GS_SERVICE_READY && st.device_count > 0;
}

/*
 * stored_bytes -- the bytes of value `d` once fetched, where it is stored
 * out of line on disk; -1 for any other value
 */
static int64
stored_bytes(Datum d)
{
	struct varatt_external toast_pointer;

	if (!VARATT_IS_EXTERNAL_ONDISK(DatumGetPointer(d)))
		return -1;
	VARATT_EXTERNAL_GET_POINTER(toast_pointer, DatumGetPointer(d));
	return toast_pointer.va_rawsize;
}

/*
 * stored_elements -- the elements of a stored one-dimensional array
 * without NULLs of elements of elemsize bytes, by its size (`bytes`, as
 * stored_bytes gives it): room for a result by element
 */
static int64
stored_elements(int64 bytes, int elemsize)
{
	return Max((bytes - (int64) ARR_OVERHEAD_NONULLS(1)) / elemsize, 0);
}

/* array_lbound -- the lower bound of a one-dimensional array (1 if empty) */
static int32
array_lbound(ArrayType *array)
{
	return ARR_NDIM(array) > 0 ? ARR_LBOUND(array)[0] : 1;
}

/* large_enough -- whether a value of `bytes` goes to the cache under this gpuscan.device */
static bool
large_enough(int64 bytes, int elemsize)
{
	if (gpuscan_device_mode != GPUSCAN_DEVICE_AUTO)
		return true;
	if (gpuscan_gpu_min_elements >= 0)
		return bytes / elemsize >= gpuscan_gpu_min_elements;
	return bytes >= GS_CACHE_MIN_BYTES;
}

/*
 * load_request -- *req, a GS_OP_LOAD on GPU `device` of the n elements of
 * elemtype at `data` (lower bound lbound), checked by the caller, as stored
 * value `key` (part: the part of it they are, or NULL for all of it), and
 * the memory that carries them, for the session's channel `slot`
 */
static GsRequestData *
load_request(GsRequest *req, int slot, const GsStoredKey *key, const GsStoredKey *part,
			 int device, Oid elemtype, const void *data, int64 n, int32 lbound, const char *fn)
{
	int			elemsize = gs_cache_elem_size(elemtype);
	GsRequestData *rd;

	memset(req, 0, sizeof(*req));
	req->op = GS_OP_LOAD;
	req->device = device;
	req->keys[0] = *key;
	if (part)
		req->keys[1] = *part;
	req->elemtype = elemtype;
	req->nelems = n;
	req->lbound = lbound;
	if (elemtype == INT4OID)
		req->facts = gs_int_facts(data, n);
	rd = gs_request_data(req, slot, n * elemsize, fn);
	if (rd)
		memcpy(rd->addr, data, n * elemsize);
	return rd;
}

/*
 * load -- hand the service the n elements of elemtype at `data` (lower
 * bound lbound), checked by the caller, as stored value `key`: true if it
 * holds them now; false where the cache cannot (or the service failed,
 * under auto)
 */
static bool
load(const GsStoredKey *key, Oid elemtype, const void *data, int64 n, int32 lbound,
	 int device, const char *fn)
{
	GsRequest	req;
	GsResponse	resp;
	GsRequestData *rd;
	bool		ok;

	rd = load_request(&req, 0, key, NULL, device, elemtype, data, n, lbound, fn);
	if (rd == NULL)
		return false;
	ok = gs_service_try_call(&req, &resp);
	gs_request_data_release(rd);
	if (!ok)
	{
		gs_service_failed(&resp, fn);
		return false;
	}
	return !resp.not_cached;
}

/*
 * array_request -- *req, an `op` on the stored array `key` of elemtype on
 * GPU `device` (after_load: right after the session loaded it)
 */
static void
array_request(GsRequest *req, GsRequestOp op, const GsStoredKey *key, Oid elemtype, int device,
			  bool after_load)
{
	memset(req, 0, sizeof(*req));
	req->op = op;
	req->device = device;
	req->keys[0] = *key;
	req->elemtype = elemtype;
	req->after_load = after_load;
	req->data = DSM_HANDLE_INVALID;
}

/*
 * call_with_data -- send `req`, whose data is `rd`: rd, or NULL (rd
 * released, the failure handled) where the service failed
 */
static GsRequestData *
call_with_data(const GsRequest *req, GsRequestData *rd, GsResponse *resp, const char *fn)
{
	if (gs_service_try_call(req, resp))
		return rd;
	gs_request_data_release(rd);
	gs_service_failed(resp, fn);
	return NULL;
}

/*
 * call_with_new_data -- send `req` with new memory (gs_request_data) that
 * carries data_bytes of `data` and room for room_bytes of the answer after
 * them: that memory, or NULL (the failure handled) where the service failed
 */
static GsRequestData *
call_with_new_data(GsRequest *req, const void *data, Size data_bytes, Size room_bytes,
					  GsResponse *resp, const char *fn)
{
	GsRequestData *rd = gs_request_data(req, 0, data_bytes + room_bytes, fn);

	if (rd == NULL)
		return NULL;
	if (data_bytes > 0)
		memcpy(rd->addr, data, data_bytes);
	return call_with_data(req, rd, resp, fn);
}

/*
 * sum_request -- GS_OP_SUM of `key` on GPU `device` (after_load:
 * right after the session loaded it); false where the service failed
 */
static bool
sum_request(const GsStoredKey *key, Oid elemtype, int device, bool after_load,
			GsResponse *resp, const char *fn)
{
	GsRequest	req;

	array_request(&req, GS_OP_SUM, key, elemtype, device, after_load);
	if (gs_service_try_call(&req, resp))
		return true;
	gs_service_failed(resp, fn);
	return false;
}

/*
 * load_argument -- argument `argno`, an array of elemtype, read and checked
 * as the function checks it (ERROR where the function would), loaded as
 * stored value `key` on GPU `device`: false where the cache cannot take it
 */
static bool
load_argument(FunctionCallInfo fcinfo, int argno, Oid elemtype, const GsStoredKey *key,
			  int device, const char *fn)
{
	GsArrayInput in;

	gs_array_open(&in, gs_getarg_array(fcinfo, argno), elemtype, fn, "vals");
	gs_array_check_nulls(&in, 0, in.nelems);
	return load(key, elemtype, in.data, in.nelems, array_lbound(in.array), device, fn);
}

/*
 * stored_argument -- the key of argument `argno`, an array of elemtype, and
 * its stored size (*bytes), if it goes to the cache
 */
static bool
stored_argument(FunctionCallInfo fcinfo, int argno, Oid elemtype, GsStoredKey *key,
				int64 *bytes)
{
	Datum		d = fcinfo->args[argno].value;

	*bytes = stored_bytes(d);
	return *bytes >= 0 && large_enough(*bytes, gs_cache_elem_size(elemtype)) &&
		cache_usable() && gs_stored_key(d, key);
}

/* record_loaded -- gpuscan_stats() of a call on cached arguments on GPU `device` */
static void
record_loaded(bool loaded, int device, int64 elements, int64 bytes_moved,
			  const GsTimer *timer, const char *fn)
{
	gs_stats_record_path(fn, loaded ? "gpu service, loaded" : "gpu service, cached", device,
						 elements, bytes_moved, timer,
						 loaded ? "stored arrays, loaded into the GPU service's cache" :
						 "stored arrays in the GPU service's cache");
}

/* first_failure -- the first of n answers that is not ok (the last if all are) */
static const GsResponse *
first_failure(const GsResponse *resps, int n)
{
	int			i;

	for (i = 0; i < n - 1 && resps[i].ok; i++)
		;
	return &resps[i];
}

/*
 * load_parts -- read argument `argno` (stored value `key`, an array of
 * elemtype) and check it as the function does, then load its parts
 * missing[0 .. nmissing-1] of n, part i on devices[i], all at once: false
 * where the cache cannot take one (or the service failed, under auto)
 */
static bool
load_parts(FunctionCallInfo fcinfo, int argno, Oid elemtype, const GsStoredKey *key,
		   const int *devices, int n, const int *missing, int nmissing, const char *fn)
{
	GsRequest	reqs[GS_SESSION_CHANNELS];
	GsResponse	resps[GS_SESSION_CHANNELS];
	GsRequestData *rds[GS_SESSION_CHANNELS];
	GsArrayInput in;
	bool		ok;
	int			k;

	gs_array_open(&in, gs_getarg_array(fcinfo, argno), elemtype, fn, "vals");
	gs_array_check_nulls(&in, 0, in.nelems);
	for (k = 0; k < nmissing; k++)
	{
		int			i = missing[k];
		int64		lo = in.nelems * i / n;
		int64		hi = in.nelems * (i + 1) / n;
		GsStoredKey part = gs_part_key(i, n);

		rds[k] = load_request(&reqs[k], k, key, &part, devices[i], elemtype,
							  in.data + lo * in.elemsize, hi - lo, 1, fn);
		if (rds[k] == NULL)
		{
			while (--k >= 0)
				gs_request_data_release(rds[k]);
			return false;
		}
	}
	ok = gs_service_try_call_many(reqs, resps, nmissing);
	for (k = 0; k < nmissing; k++)
		gs_request_data_release(rds[k]);
	if (!ok)
	{
		gs_service_failed(first_failure(resps, nmissing), fn);
		return false;
	}
	for (k = 0; k < nmissing; k++)
		if (resps[k].not_cached)
			return false;
	return true;
}

/*
 * sum_parts -- the exact sum of argument `argno` (stored value `key`, an
 * array of elemtype) split over devices[0 .. n-1], into *acc: each GPU sums
 * its part, all at once, after the parts missing are loaded (*loaded); the
 * parts' exact accumulators add up to the same bits as one GPU's.  False
 * where the service failed (under auto) or the cache cannot hold a part.
 */
static bool
sum_parts(FunctionCallInfo fcinfo, int argno, Oid elemtype, const GsStoredKey *key,
		  const int *devices, int n, gs_exact_acc *acc, bool *loaded, const char *fn)
{
	GsRequest	reqs[GS_SESSION_CHANNELS];
	GsResponse	resps[GS_SESSION_CHANNELS];
	int			missing[GS_SESSION_CHANNELS];
	int			nmissing = 0;
	int			i;

	memset(reqs, 0, sizeof(reqs));
	for (i = 0; i < n; i++)
	{
		reqs[i].op = GS_OP_SUM;
		reqs[i].device = devices[i];
		reqs[i].keys[0] = *key;
		reqs[i].keys[1] = gs_part_key(i, n);
		reqs[i].elemtype = elemtype;
		reqs[i].data = DSM_HANDLE_INVALID;
	}
	if (!gs_service_try_call_many(reqs, resps, n))
	{
		gs_service_failed(first_failure(resps, n), fn);
		return false;
	}
	for (i = 0; i < n; i++)
		if (resps[i].missing)
			missing[nmissing++] = i;
	*loaded = nmissing > 0;
	if (nmissing > 0)
	{
		GsRequest	again[GS_SESSION_CHANNELS];
		GsResponse	answers[GS_SESSION_CHANNELS];
		int			k;

		if (!load_parts(fcinfo, argno, elemtype, key, devices, n, missing, nmissing, fn))
			return false;
		for (k = 0; k < nmissing; k++)
		{
			again[k] = reqs[missing[k]];
			again[k].after_load = true;
		}
		if (!gs_service_try_call_many(again, answers, nmissing))
		{
			gs_service_failed(first_failure(answers, nmissing), fn);
			return false;
		}
		for (k = 0; k < nmissing; k++)
		{
			if (answers[k].missing)
				return false;
			resps[missing[k]] = answers[k];
		}
	}
	for (i = 0; i < n; i++)
		gs_acc_merge(acc, &resps[i].acc);
	return true;
}

/* gs_cached_sum -- see cached_call.h */
bool
gs_cached_sum(FunctionCallInfo fcinfo, int argno, Oid elemtype, gs_exact_acc *acc,
			  const char *fn)
{
	GsStoredKey key;
	GsResponse	resp;
	GsTimer		timer;
	bool		loaded = false;
	int64		bytes;
	int			devices[GS_SERVICE_MAX_DEVICES];
	int			nsplit;
	int			device;
	GsSessionCost cost = {0};

	gs_timer_start(&timer);
	if (!stored_argument(fcinfo, argno, elemtype, &key, &bytes))
		return false;
	nsplit = gs_place_split(bytes, devices);
	if (nsplit >= 2 && gs_service_reserve_channels(nsplit))
	{
		gs_exact_acc parts;

		gs_acc_zero(&parts);
		if (!sum_parts(fcinfo, argno, elemtype, &key, devices, nsplit, &parts, &loaded, fn))
			return false;
		gs_acc_merge(acc, &parts);
		gs_stats_record_path(fn, loaded ? "gpu service, split, loaded" :
							 "gpu service, split, cached", -1,
							 stored_elements(bytes, gs_float_size(elemtype)), loaded ? bytes : 0,
							 &timer,
							 psprintf("a stored array of gpuscan.split_min_size (%d MB) or more, "
									  "in parts on %d GPUs", gpuscan_split_min_size_mb, nsplit));
		return true;
	}
	cost.work = GS_WORK_SUM;
	cost.elemsize = gs_float_size(elemtype);
	cost.n = stored_elements(bytes, cost.elemsize);
	cost.stored_bytes = bytes;
	gs_session_cost_mode(&cost);
	device = gs_place_request(&key, 1, &cost);
	if (device < 0 || !sum_request(&key, elemtype, device, false, &resp, fn))
		return false;
	if (resp.missing)
	{
		/* the array streams to the GPU, summed on its way into the cache */
		if (!gs_service_sum_stored(fcinfo, argno, elemtype, &key, device, &resp, fn))
			return false;
		loaded = true;
	}
	gs_acc_merge(acc, &resp.acc);
	record_loaded(loaded, device, resp.nelems,
				  loaded ? resp.nelems * gs_float_size(elemtype) : 0, &timer, fn);
	return true;
}

/*
 * prefix_sum_request -- GS_OP_PREFIX_SUM of `key` into new memory
 * with room for the sums of a stored array of `bytes`; that memory, or
 * NULL where the service failed
 */
static GsRequestData *
prefix_sum_request(const GsStoredKey *key, Oid elemtype, int64 bytes, bool exclusive,
				   int device, bool after_load, GsResponse *resp, const char *fn)
{
	int64		guess = stored_elements(bytes, gs_float_size(elemtype));
	GsRequest	req;

	array_request(&req, GS_OP_PREFIX_SUM, key, elemtype, device, after_load);
	req.exclusive = exclusive;
	return call_with_new_data(&req, NULL, 0, guess * sizeof(double), resp, fn);
}

/* gs_cached_prefix_sum -- see cached_call.h */
bool
gs_cached_prefix_sum(FunctionCallInfo fcinfo, Oid elemtype, bool exclusive,
					 GsResultAlloc alloc, void *arg, const char *fn)
{
	int64		bytes = stored_bytes(fcinfo->args[0].value);
	GsStoredKey key;
	GsResponse	resp;
	GsTimer		timer;
	GsRequestData *rd;
	GsArrayStream stream;
	bool		loaded = false;
	int			device;
	GsSessionCost cost = {0};

	gs_timer_start(&timer);
	cost.work = GS_WORK_PREFIX_SUM;
	cost.elemsize = gs_float_size(elemtype);
	cost.n = stored_elements(bytes, cost.elemsize);
	cost.stored_bytes = bytes;
	gs_session_cost_mode(&cost);
	if (!stored_argument(fcinfo, 0, elemtype, &key, &bytes) ||
		(device = gs_place_request(&key, 1, &cost)) < 0)
		return false;
	if (gs_array_stream_open(&stream, fcinfo, 0, elemtype, gs_chunk_elems(sizeof(double)), fn,
							 "vals"))
	{
		double	   *out = alloc(arg, stream.in.nelems, stream.lbound);
		bool		ok;

		ok = gs_service_prefix_sum_stored(&stream, &key, elemtype, exclusive, device, out,
										  &loaded, &resp, fn);
		gs_array_stream_close(&stream);
		if (!ok || resp.invalid)
			return false;
		record_loaded(loaded, device, resp.nelems,
					  (loaded ? cost.elemsize : 0) * resp.nelems + sizeof(double) * resp.nelems,
					  &timer, fn);
		return true;
	}
	if ((rd = prefix_sum_request(&key, elemtype, bytes, exclusive, device, false, &resp,
								 fn)) == NULL)
		return false;
	if (resp.missing)
	{
		gs_request_data_release(rd);
		if (!load_argument(fcinfo, 0, elemtype, &key, device, fn) ||
			(rd = prefix_sum_request(&key, elemtype, bytes, exclusive, device, true, &resp,
									  fn)) == NULL)
			return false;
		loaded = true;
	}
	if (resp.missing || resp.invalid)
	{
		gs_request_data_release(rd);
		return false;
	}
	memcpy(alloc(arg, resp.nelems, resp.lbound), rd->addr,
		   sizeof(double) * resp.nelems);
	gs_request_data_release(rd);
	record_loaded(loaded, device, resp.nelems, sizeof(double) * resp.nelems, &timer, fn);
	return true;
}

/* gs_cache_candidate -- see cached_call.h */
bool
gs_cache_candidate(FunctionCallInfo fcinfo, int argno, Oid elemtype)
{
	int64		bytes = stored_bytes(fcinfo->args[argno].value);

	return bytes >= 0 && large_enough(bytes, gs_cache_elem_size(elemtype)) && cache_usable();
}

/*
 * compact_request -- GS_OP_COMPACT of `key` on GPU `device` with the
 * n flags keep, in new memory with room for as many kept values; that
 * memory, or NULL where the service failed
 */
static GsRequestData *
compact_request(const GsStoredKey *key, Oid elemtype, const uint8 *keep, int64 n, int device,
				bool after_load, GsResponse *resp, const char *fn)
{
	GsRequest	req;

	array_request(&req, GS_OP_COMPACT, key, elemtype, device, after_load);
	req.nelems = n;
	return call_with_new_data(&req, keep, n, n * gs_float_size(elemtype), resp, fn);
}

/*
 * load_vals -- argument 0 (stored value `key`, an array of elemtype) read
 * and loaded on GPU `device`, checked as gpu_compact checks it after keep:
 * false (the caller's path then raises the error) where it is not n long,
 * an ERROR at a NULL; false where the cache cannot take it
 */
static bool
load_vals(FunctionCallInfo fcinfo, Oid elemtype, const GsStoredKey *key, int64 n, int device,
		  const char *fn)
{
	GsArrayInput in;

	gs_array_open(&in, gs_getarg_array(fcinfo, 0), elemtype, fn, "vals");
	if (in.nelems != n)
		return false;
	gs_array_check_nulls(&in, 0, in.nelems);
	return load(key, elemtype, in.data, in.nelems, array_lbound(in.array), device, fn);
}

/* gs_cached_compact -- see cached_call.h */
bool
gs_cached_compact(FunctionCallInfo fcinfo, Oid elemtype, const GsFlags *keep, int64 n,
				  GsKeptAlloc alloc, void *arg, int64 *kept, const char *fn)
{
	const uint8 *flags;
	int			elemsize = gs_float_size(elemtype);
	GsStoredKey keys[2];		/* vals, and keep where it is stored large */
	GsFlags		stored_keep = *keep;
	GsResponse	resp;
	GsTimer		timer;
	GsSessionCost cost = {0};
	GsRequestData *rd;
	GsArrayStream stream;
	int64		bytes;
	int64		keep_bytes;
	bool		loaded = false;
	bool		flags_cached = false;
	int			device;

	gs_timer_start(&timer);
	if (!stored_argument(fcinfo, 0, elemtype, &keys[0], &bytes))
		return false;
	stored_keep.key = keep->stored != NULL &&
		stored_argument(fcinfo, 1, BOOLOID, &keys[1], &keep_bytes) ? &keys[1] : NULL;
	cost.work = GS_WORK_COMPACT;
	cost.elemsize = elemsize;
	cost.n = n;
	cost.stored_bytes = bytes;
	gs_session_cost_mode(&cost);
	if ((device = gs_place_request(keys, stored_keep.key ? 2 : 1, &cost)) < 0)
		return false;
	if (gs_array_stream_open(&stream, fcinfo, 0, elemtype, gs_chunk_elems(elemsize + 1), fn,
							 "vals"))
	{
		bool		ok = stream.in.nelems == n;

		/* vals not n long: the caller's checks say so */
		ok = ok && gs_service_compact_stored(&stream, &keys[0], elemtype, &stored_keep, device,
											 alloc(arg, n), kept, &loaded, &flags_cached,
											 &resp, fn);
		gs_array_stream_close(&stream);
		if (!ok || resp.invalid)
			return false;
		record_loaded(loaded, device, n,
					  (flags_cached ? 0 : n) + (loaded ? n + *kept : *kept) * elemsize,
					  &timer, fn);
		return true;
	}
	/* vals is not read in slices: the flags go with the request, read whole (no NULL) */
	flags = keep->bytes ? keep->bytes : (const uint8 *) ARR_DATA_PTR(gs_getarg_array(fcinfo, 1));
	if ((rd = compact_request(&keys[0], elemtype, flags, n, device, false, &resp, fn)) == NULL)
		return false;
	if (resp.missing)
	{
		gs_request_data_release(rd);
		if (!load_vals(fcinfo, elemtype, &keys[0], n, device, fn) ||
			(rd = compact_request(&keys[0], elemtype, flags, n, device, true, &resp, fn)) == NULL)
			return false;
		loaded = true;
	}
	if (resp.missing || resp.invalid)
	{
		gs_request_data_release(rd);
		return false;
	}
	memcpy(alloc(arg, resp.nelems), rd->addr + n,
		   resp.nelems * elemsize);
	*kept = resp.nelems;
	gs_request_data_release(rd);
	record_loaded(loaded, device, n, n + resp.nelems * elemsize, &timer, fn);
	return true;
}

/*
 * compact_indices_request -- GS_OP_COMPACT_INDICES of `key` on GPU
 * `device`, in new memory with room for `room` positions; that memory, or
 * NULL where the service failed
 */
static GsRequestData *
compact_indices_request(const GsStoredKey *key, int64 room, int device, bool after_load,
						GsResponse *resp, const char *fn)
{
	GsRequest	req;

	array_request(&req, GS_OP_COMPACT_INDICES, key, BOOLOID, device, after_load);
	req.nelems = room;
	req.first = 1;
	return call_with_new_data(&req, NULL, 0, room * sizeof(int32), resp, fn);
}

/* the room for positions of a first request: more are asked for again */
#define FIRST_POSITIONS		((int64) 1 << 20)

/*
 * gs_cached_compact_indices -- see cached_call.h.  There are no more
 * positions than keep's stored bytes (a true flag is a stored byte, NULLs
 * or not), known from its TOAST pointer; a first request has room for up
 * to FIRST_POSITIONS of them, and where there are more the service says how
 * many and the session asks again with room for exactly those (room as
 * large as the flags would cost more than the call, in a segment).
 */
bool
gs_cached_compact_indices(FunctionCallInfo fcinfo, GsFlagsRead read_keep, void *keep_arg,
						  GsKeptAlloc alloc, void *arg, int64 *kept, const char *fn)
{
	GsStoredKey key;
	GsResponse	resp;
	GsTimer		timer;
	GsSessionCost cost = {0};
	GsRequestData *rd;
	int64		bytes;
	int64		room;
	int64		n = 0;
	bool		loaded = false;
	int			device;

	gs_timer_start(&timer);
	if (!stored_argument(fcinfo, 0, BOOLOID, &key, &bytes))
		return false;
	cost.work = GS_WORK_COMPACT;
	cost.elemsize = sizeof(int32);
	cost.n = stored_elements(bytes, 1);
	cost.stored_bytes = bytes;
	gs_session_cost_mode(&cost);
	room = Min(cost.n, FIRST_POSITIONS);
	if ((device = gs_place_request(&key, 1, &cost)) < 0 ||
		(rd = compact_indices_request(&key, room, device, false, &resp, fn)) == NULL)
		return false;
	if (resp.missing)
	{
		const uint8 *keep;

		gs_request_data_release(rd);
		keep = read_keep(keep_arg, &n);
		if (!load(&key, BOOLOID, keep, n, 1, device, fn) ||
			(rd = compact_indices_request(&key, room, device, true, &resp, fn)) == NULL)
			return false;
		loaded = true;
	}
	if (!resp.missing && resp.invalid && resp.nelems > room && resp.nelems <= cost.n)
	{
		gs_request_data_release(rd);
		room = resp.nelems;
		if ((rd = compact_indices_request(&key, room, device, true, &resp, fn)) == NULL)
			return false;
	}
	if (resp.missing || resp.invalid)
	{
		gs_request_data_release(rd);
		return false;
	}
	memcpy(alloc(arg, resp.nelems), rd->addr, resp.nelems * sizeof(int32));
	*kept = resp.nelems;
	gs_request_data_release(rd);
	record_loaded(loaded, device, loaded ? n : cost.n, n + resp.nelems * sizeof(int32), &timer,
				  fn);
	return true;
}

/* gs_cached_matrix -- see cached_call.h */
bool
gs_cached_matrix(GsCachedMatrix *m, FunctionCallInfo fcinfo, int nargs, Oid elemtype)
{
	int64		last_bytes = stored_bytes(fcinfo->args[nargs - 1].value);
	GsSessionCost cost = {0};
	int			i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < nargs; i++)
		if (stored_bytes(fcinfo->args[i].value) < 0)
			return false;
	if (!large_enough(last_bytes, nargs == 3 ? gs_float_size(elemtype) : sizeof(int32)) ||
		!cache_usable())
		return false;
	for (i = 0; i < nargs; i++)
		if (!gs_stored_key(fcinfo->args[i].value, &m->keys[i]))
			return false;
	cost.work = nargs == 3 ? GS_WORK_SPMV : GS_WORK_PAGERANK;
	cost.elemsize = nargs == 3 ? gs_float_size(elemtype) : sizeof(double);
	cost.n = stored_elements(stored_bytes(fcinfo->args[1].value), sizeof(int32));
	cost.stored_bytes = 0;
	for (i = 0; i < nargs; i++)
		cost.stored_bytes += stored_bytes(fcinfo->args[i].value);
	gs_session_cost_mode(&cost);
	m->device = gs_place_request(m->keys, nargs, &cost);
	if (m->device < 0)
		return false;
	m->fcinfo = fcinfo;
	m->nargs = nargs;
	m->elemtype = elemtype;
	gs_timer_start(&m->timer);
	return true;
}

/*
 * rows_of_row_ptr -- as many rows as the stored row_ptr argument has (one
 * less than its elements): room for a result by row
 */
static int64
rows_of_row_ptr(GsCachedMatrix *m)
{
	return Max(stored_elements(stored_bytes(m->fcinfo->args[0].value), sizeof(int32)) - 1, 0);
}

/* record_cached -- gpuscan_stats() of a call on a cached matrix */
static void
record_cached(GsCachedMatrix *m, int64 elements, int64 bytes_moved, const char *fn)
{
	record_loaded(m->missing != 0, m->device, elements, bytes_moved, &m->timer, fn);
}

/* gs_cached_spmv -- see cached_call.h */
void *
gs_cached_spmv(GsCachedMatrix *m, const GsArrayInput *x, int32 *nrows, const char *fn)
{
	int			elemsize = gs_float_size(m->elemtype);
	int64		rows_guess = rows_of_row_ptr(m);
	int64		x_bytes = x->nelems * elemsize;
	GsRequest	req;
	GsResponse	resp;
	GsRequestData *rd;
	void	   *y = NULL;
	bool		ok;

	memset(&req, 0, sizeof(req));
	req.op = GS_OP_SPMV;
	req.device = m->device;
	memcpy(req.keys, m->keys, sizeof(req.keys));
	req.elemtype = m->elemtype;
	req.nelems = x->nelems;
	req.after_load = m->missing != 0;
	rd = gs_request_data(&req, 0, x_bytes + rows_guess * elemsize, fn);
	if (rd == NULL)
		return NULL;
	memcpy(rd->addr, x->data, x_bytes);
	ok = gs_service_try_call(&req, &resp);
	if (ok && !resp.missing && !resp.invalid)
	{
		*nrows = (int32) resp.nelems;
		y = palloc((Size) Max(resp.nelems, 1) * elemsize);
		memcpy(y, rd->addr + x_bytes, resp.nelems * elemsize);
		record_cached(m, resp.nnz, (x->nelems + resp.nelems) * elemsize, fn);
	}
	gs_request_data_release(rd);
	if (!ok)
		gs_service_failed(&resp, fn);
	else
		m->missing = resp.missing;
	return y;
}

/* gs_cached_matrix_load -- see cached_call.h */
bool
gs_cached_matrix_load(GsCachedMatrix *m, const GsCsr *csr, const GsArrayInput *vals,
					  const char *fn)
{
	const void *data[3] = {csr->row_ptr, csr->col_idx, vals ? vals->data : NULL};
	int64		n[3] = {(int64) csr->nrows + 1, csr->nnz, vals ? vals->nelems : 0};
	Oid			types[3] = {INT4OID, INT4OID, m->elemtype};
	/* vals may be summed or prefix-summed from the cache later: its own bound */
	int32		lbound[3] = {1, 1, vals ? array_lbound(vals->array) : 1};
	int			i;

	for (i = 0; i < m->nargs; i++)
		if ((m->missing & (1 << i)) &&
			!load(&m->keys[i], types[i], data[i], n[i], lbound[i], m->device, fn))
			return false;
	return true;
}

/* gs_cached_pagerank -- see cached_call.h */
double *
gs_cached_pagerank(GsCachedMatrix *m, double damping, double tolerance, int32 max_iterations,
				   int32 *n, const char *fn)
{
	int64		rows_guess = rows_of_row_ptr(m);
	GsRequest	req;
	GsResponse	resp;
	GsRequestData *rd;
	double	   *rank = NULL;
	bool		ok;

	memset(&req, 0, sizeof(req));
	req.op = GS_OP_PAGERANK;
	req.device = m->device;
	memcpy(req.keys, m->keys, sizeof(req.keys));
	req.damping = damping;
	req.tolerance = tolerance;
	req.max_iterations = max_iterations;
	req.after_load = m->missing != 0;
	rd = gs_request_data(&req, 0, rows_guess * sizeof(double), fn);
	if (rd == NULL)
		return NULL;
	ok = gs_service_try_call(&req, &resp);
	if (ok && !resp.missing && !resp.invalid)
	{
		*n = (int32) resp.nelems;
		rank = palloc(sizeof(double) * (Size) resp.nelems);
		memcpy(rank, rd->addr, sizeof(double) * resp.nelems);
		record_cached(m, resp.nnz, sizeof(double) * resp.nelems, fn);
		elog(DEBUG1, "%s: %d nodes, " INT64_FORMAT " edges, %d iteration%s, final L1 residual %g%s",
			 fn, *n, resp.nnz, resp.iterations, resp.iterations == 1 ? "" : "s", resp.residual,
			 resp.residual <= tolerance ? "" : " (did not reach the tolerance)");
	}
	gs_request_data_release(rd);
	if (!ok)
		gs_service_failed(&resp, fn);
	else
		m->missing = resp.missing;
	return rank;
}
