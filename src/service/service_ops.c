/*-------------------------------------------------------------------------
 *
 * service_ops.c
 *	  The GPU service's work (service_ops.h): which GPUs it has, the work
 *	  on arrays from the device cache or sent with the request, emptying
 *	  the cache.
 *
 * Each process of the service opens its GPU (one CUDA context per GPU for
 * every session of the server) when it starts (gpu_service.c), and runs
 * several requests at once, each in a thread with a stream of its own
 * (service_workers.h): a request holds the process's PostgreSQL lock
 * except around its device calls (DEVICE), so that the others' device work
 * goes on meanwhile.  A request's data and its answer go through the
 * staging area (staging_area.h), pinned for the GPU, or where the
 * session found no room there, through a dynamic shared memory segment of
 * the request's own.  A session's values in memory come that way, at the
 * start of the request's data (GsRequest.sent); the service copies them to
 * the device for the one call.  A stored array that is not cached yet
 * comes that way too; the service copies it to the device once and keeps
 * it there (device_cache.h), unless it is larger than the cache's bound:
 * then the copy is freed after the call.  A device error is the request's
 * answer; one that breaks the context (GSD_STICKY) also makes the service
 * exit once its requests are answered, and the postmaster starts it again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "postmaster/interrupt.h"
#include "storage/dsm.h"
#include "utils/memutils.h"

#include "ipc/device_cache.h"
#include "ipc/service_status.h"
#include "gpuscan_device.h"
#include "service/channel_serve.h"
#include "service/service_ops.h"
#include "ipc/staging_area.h"
#include "service/service_workers.h"

/* the GPU this process serves */
static int	service_device = 0;
/* shared buffers as the GPU reads them in place (NULL: not mapped) */
static const void *shared_buffers_d = NULL;
static int	shared_buffers_n = 0;

/*
 * DEVICE(call) -- a device call, made without the PostgreSQL lock so that
 * the process's other requests go on meanwhile (service_workers.h); its
 * arguments are evaluated after the lock is let go
 */
#define DEVICE(call) (gs_pg_unlock(), relock(call))

/* relock -- take the PostgreSQL lock again after a device call; its status */
static inline gsd_status
relock(gsd_status st)
{
	gs_pg_lock();
	return st;
}

static bool context_broken = false;

static void note_memory(bool trimmed);

/* how long the process stays idle before it gives its pool's unused memory back */
#define GS_IDLE_TRIM_MS		2000

/* when the last request ended, and whether the pool was trimmed since; under the PostgreSQL lock */
static instr_time last_request_end;
static bool trimmed_since = true;

/* gs_service_ops_set_buffers -- see service_ops.h */
void
gs_service_ops_set_buffers(const void *d_buffers, int nbuffers)
{
	shared_buffers_d = d_buffers;
	shared_buffers_n = nbuffers;
}

/* gs_service_ops_set_device -- see service_ops.h */
void
gs_service_ops_set_device(int device)
{
	service_device = device;
	note_memory(false);
}

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

/*
 * answer_stopped -- a request that stopped before its end: the session
 * abandoned it, or the service is shutting down (then the session posts
 * it again once the service is back)
 */
static void
answer_stopped(GsResponse *resp)
{
	strlcpy(resp->error, ShutdownRequestPending ? "the service is shutting down" :
			"abandoned by the session", sizeof(resp->error));
	resp->retry = ShutdownRequestPending;
}

/* device_alloc -- gsd_alloc for a request, its failure answered */
static bool
device_alloc(size_t bytes, void **dptr, GsResponse *resp)
{
	return device_ok(DEVICE(gsd_alloc(bytes, dptr)), "cannot allocate device memory", resp);
}

/* open_device -- the service's GPU, opened at the start where it could be */
static bool
open_device(GsResponse *resp)
{
	if (gsd_is_open())
		return true;
	return device_ok(DEVICE(gsd_open(service_device)), "cannot open the GPU", resp);
}

/*
 * note_memory -- publish the device memory of this process's allocations
 * and of its pool (gpuscan_info), after a request or a trim
 */
static void
note_memory(bool trimmed)
{
	size_t		used = 0;
	size_t		reserved = 0;

	if (!gsd_is_open())
		return;
	if (gsd_memory_in_use(&used) != GSD_OK)
		used = 0;
	if (gsd_memory_reserved(&reserved) != GSD_OK)
		reserved = (size_t) -1;
	gs_device_note_memory(service_device, (int64) used, (int64) reserved, trimmed);
}

/*
 * trim_pool -- give the pool's unused device memory back to the GPU: after
 * a cache reset, and once the process is idle, so that other programs on
 * the host find it (the pool keeps up to 256 MB otherwise); the caller
 * holds the PostgreSQL lock
 */
static void
trim_pool(void)
{
	gsd_status	st;

	if (!gsd_is_open())
		return;
	st = DEVICE(gsd_memory_trim());
	if (st == GSD_STICKY)
		context_broken = true;
	else if (st != GSD_OK)
		ereport(LOG,
				(errmsg("gpuscan gpu service: cannot give GPU %d's unused memory back: %s",
						service_device, gsd_last_error())));
	trimmed_since = true;
	note_memory(st == GSD_OK);
}

/* cache_limit_bytes -- gpuscan.cache_size in bytes (-1: a quarter of the GPU) */
static int64
cache_limit_bytes(void)
{
	static int64 quarter = -1;	/* of this process's GPU, asked once */
	gsd_device_props props;

	if (gpuscan_cache_size_mb >= 0)
		return (int64) gpuscan_cache_size_mb * 1024 * 1024;
	if (quarter < 0)
	{
		if (gsd_get_device_props(service_device, &props) != GSD_OK)
			return 0;
		quarter = (int64) (props.total_memory / 4);
	}
	return quarter;
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
 * The memory of the request a thread runs: its data and the room for its
 * answer, in the staging area (staging_area.h) or in the session's
 * segment, attached at the first use; and the arrays the request sent,
 * copied to the device for the call (receive_arrays), before the op's data
 */
typedef struct RequestMemory
{
	bool		attached;
	dsm_segment *seg;			/* where not staged */
	char	   *base;
	int64		length;
	int64		skip;			/* bytes of the sent arrays */
	int			nsent;
	GsCacheItem sent[GS_REQUEST_KEYS];
} RequestMemory;

/*
 * attach_memory -- the request's memory into *mem; false, with the failure
 * answered, where it is gone (the session stopped waiting and let it go)
 */
static bool
attach_memory(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	if (req->staged)
	{
		if (!gs_staging_valid(req->staging_off, req->staging_len))
		{
			strlcpy(resp->error, "the session's data is not in the staging area",
					sizeof(resp->error));
			return false;
		}
		mem->base = gs_staging_base() + req->staging_off;
		mem->length = req->staging_len;
	}
	else
	{
		if ((mem->seg = dsm_attach(req->data)) == NULL)
		{
			strlcpy(resp->error, "the session's data is gone", sizeof(resp->error));
			return false;
		}
		mem->base = dsm_segment_address(mem->seg);
		mem->length = (int64) dsm_segment_map_length(mem->seg);
	}
	mem->attached = true;
	return true;
}

/*
 * request_data -- the op's data in the request's memory: in_bytes from the
 * session (after the arrays it sent), then room for out_bytes of the
 * answer.  NULL where the memory is gone or its data is short, with the
 * failure answered; NULL where only the room is short, answered `invalid`
 * (the session then runs the call itself).
 */
static char *
request_data(const GsRequest *req, RequestMemory *mem, int64 in_bytes, int64 out_bytes,
			 GsResponse *resp)
{
	resp->ok = false;
	if (!mem->attached && !attach_memory(req, mem, resp))
		return NULL;
	in_bytes += mem->skip;
	if (mem->length < in_bytes)
		strlcpy(resp->error, "the session's data is shorter than it said", sizeof(resp->error));
	else if (mem->length < in_bytes + out_bytes)
	{
		resp->ok = true;
		resp->invalid = true;
	}
	else
		return mem->base + mem->skip;
	return NULL;
}

/* release_memory -- done with the request's memory and the arrays it sent */
static void
release_memory(RequestMemory *mem)
{
	int			i;

	for (i = 0; i < mem->nsent; i++)
		(void) gsd_free(mem->sent[i].dptr);
	if (mem->seg)
		dsm_detach(mem->seg);
}

/*
 * sent_layout -- where the arrays a sent request carries start in its
 * data (offsets[]), and the bytes they take (*total): how many, 0 where
 * the request's sizes are bad
 */
static int
sent_layout(const GsRequest *req, int64 *offsets, int64 *total)
{
	Oid			types[GS_REQUEST_KEYS];
	int			n = gs_sent_types(req->op, req->elemtype, types);
	int			i;

	*total = 0;
	for (i = 0; i < n; i++)
	{
		int			elemsize = gs_cache_elem_size(types[i]);

		if (elemsize == 0 || req->sent_nelems[i] < 0 ||
			req->sent_nelems[i] > (int64) (MaxAllocHugeSize / elemsize))
			return 0;
		offsets[i] = *total;
		*total += TYPEALIGN(GS_SENT_ALIGN, req->sent_nelems[i] * elemsize);
	}
	return n;
}

/*
 * alloc_sent -- device memory for the n arrays a sent request carries
 * (mem->sent, freed by release_memory); false with the failure answered
 */
static bool
alloc_sent(const GsRequest *req, RequestMemory *mem, int n, GsResponse *resp)
{
	Oid			types[GS_REQUEST_KEYS];
	int			i;

	(void) gs_sent_types(req->op, req->elemtype, types);
	resp->ok = false;
	for (i = 0; i < n; i++)
	{
		GsCacheItem *item = &mem->sent[i];

		memset(item, 0, sizeof(*item));
		item->kind = GS_CACHE_ARRAY;
		item->elemtype = types[i];
		item->nelems = req->sent_nelems[i];
		item->lbound = 1;
		item->bytes = item->nelems * gs_cache_elem_size(types[i]);
		item->facts = req->sent_facts[i];
		if (!device_alloc(Max(item->bytes, 1), &item->dptr, resp))
			return false;
		mem->nsent++;
	}
	return true;
}

/*
 * receive_arrays -- the arrays a sent request carries, each copied to new
 * device memory (mem->sent); false with the failure answered
 */
static bool
receive_arrays(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	int64		offsets[GS_REQUEST_KEYS];
	int64		total;
	char	   *data;
	int			n = sent_layout(req, offsets, &total);
	int			i;

	if (n == 0)
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return false;
	}
	if (!open_device(resp) || (data = request_data(req, mem, total, 0, resp)) == NULL ||
		!alloc_sent(req, mem, n, resp))
		return false;
	for (i = 0; i < n; i++)
		if (!device_ok(DEVICE(gsd_upload(mem->sent[i].dptr, data + offsets[i], mem->sent[i].bytes)),
					   "cannot copy the array to the GPU", resp))
			return false;
	mem->skip = total;
	return true;
}

/*
 * request_array -- argument i of the request, an array of elemtype: the
 * one it sent, or its cached array (keys[i], with the part keys[1] where
 * `part`); false where it is not cached (the caller answers `missing`)
 */
static bool
request_array(const GsRequest *req, const RequestMemory *mem, int i, bool part, Oid elemtype,
			  GsCacheItem *item)
{
	if (req->sent)
	{
		if (i >= mem->nsent || mem->sent[i].elemtype != elemtype)
			return false;
		*item = mem->sent[i];
		return true;
	}
	return gs_cache_lookup(&req->keys[i], part ? &req->keys[1] : NULL, GS_CACHE_ARRAY, elemtype,
						   !req->after_load, item);
}

/* array_item -- *item, an ARRAY entry of n elements of elemtype from lbound, without memory yet */
static void
array_item(GsCacheItem *item, Oid elemtype, int64 n, int32 lbound)
{
	memset(item, 0, sizeof(*item));
	item->kind = GS_CACHE_ARRAY;
	item->elemtype = elemtype;
	item->nelems = n;
	item->lbound = lbound;
	item->bytes = n * gs_cache_elem_size(elemtype);
}

/*
 * serve_load -- GS_OP_LOAD: copy a stored array from the session's segment
 * to new device memory and add it to the cache, unless it is there
 * already or cannot fit (not_cached)
 */
static void
serve_load(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	int			elemsize = gs_cache_elem_size(req->elemtype);
	GsCacheItem item;
	char	   *data;

	if (elemsize == 0 || req->nelems < 0 || req->nelems > (int64) (MaxAllocHugeSize / elemsize))
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return;
	}
	if (!open_device(resp))
		return;
	if (gs_cache_lookup(&req->keys[0], &req->keys[1], GS_CACHE_ARRAY, req->elemtype, false, &item))
	{
		/* another session loaded it meanwhile */
		resp->ok = true;
		return;
	}
	array_item(&item, req->elemtype, req->nelems, req->lbound);
	item.facts = req->facts;
	if (!gs_cache_make_room(item.bytes, cache_limit_bytes()))
	{
		resp->ok = true;
		resp->not_cached = true;
		return;
	}
	if ((data = request_data(req, mem, item.bytes, 0, resp)) == NULL)
		return;
	if (device_ok(DEVICE(gsd_alloc(Max(item.bytes, 1), &item.dptr)),
				  "cannot allocate device memory for the array", resp))
	{
		if (device_ok(DEVICE(gsd_upload(item.dptr, data, item.bytes)),
					  "cannot copy the array to the GPU", resp))
		{
			resp->ok = true;
			if (!gs_cache_add(&req->keys[0], &req->keys[1], &item, cache_limit_bytes()))
			{
				/* cached by another request meanwhile, or the room went to others */
				(void) gsd_free(item.dptr);
				resp->not_cached = !gs_cache_lookup(&req->keys[0], &req->keys[1], GS_CACHE_ARRAY,
													req->elemtype, false, &item);
			}
		}
		else
			(void) gsd_free(item.dptr);
	}
}

/*
 * request_floats -- the float array of a request on one (sent, or cached
 * as keys[0], with the part keys[1] where `part`) into *item: false, with
 * the answer set, where the request is bad, the GPU cannot be opened or
 * the array is not cached (missing)
 */
static bool
request_floats(const GsRequest *req, const RequestMemory *mem, bool part, GsResponse *resp,
			   GsCacheItem *item)
{
	if ((req->elemtype != FLOAT8OID && req->elemtype != FLOAT4OID) || req->nelems < 0)
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return false;
	}
	if (!open_device(resp))
		return false;
	if (!request_array(req, mem, 0, part, req->elemtype, item))
	{
		resp->ok = true;
		resp->missing = 1;
		return false;
	}
	return true;
}

/*
 * serve_sum -- GS_OP_SUM: the exact sum of a cached array
 * (missing where it is not cached)
 */
static void
serve_sum(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	GsCacheItem item;
	gs_exact_acc *d_acc = NULL;
	gsd_status	st;

	if (!request_floats(req, mem, true, resp, &item))
		return;
	resp->nelems = item.nelems;
	if (device_alloc(sizeof(gs_exact_acc), (void **) &d_acc, resp) &&
		device_ok(DEVICE(gsd_memset_zero(d_acc, sizeof(gs_exact_acc))), "cannot zero memory", resp))
	{
		if (req->elemtype == FLOAT8OID)
			st = DEVICE(gsd_sum_exact_f64(item.dptr, item.nelems, d_acc, NULL));
		else
			st = DEVICE(gsd_sum_exact_f32(item.dptr, item.nelems, d_acc, NULL));
		if (device_ok(st, "the sum failed", resp) &&
			device_ok(DEVICE(gsd_download(&resp->acc, d_acc, sizeof(gs_exact_acc))),
					  "cannot copy the sum back", resp))
			resp->ok = true;
	}
	if (d_acc)
		(void) gsd_free(d_acc);
}

/*
 * serve_prefix_sum -- GS_OP_PREFIX_SUM: the prefix sums of a
 * cached array (missing where it is not cached) into the session's segment
 */
static void
serve_prefix_sum(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	GsCacheItem item;
	char	   *data;
	double	   *d_out = NULL;
	gs_exact_acc *d_carry = NULL;
	int64		out_bytes;
	gsd_status	st;

	if (!request_floats(req, mem, false, resp, &item))
		return;
	resp->nelems = item.nelems;
	resp->lbound = item.lbound;
	out_bytes = sizeof(double) * item.nelems;
	if ((data = request_data(req, mem, 0, out_bytes, resp)) == NULL)
		return;
	if (device_alloc(Max(out_bytes, 1), (void **) &d_out, resp) &&
		device_alloc(sizeof(gs_exact_acc), (void **) &d_carry, resp) &&
		device_ok(DEVICE(gsd_upload(d_carry, &req->carry, sizeof(gs_exact_acc))),
				  "cannot copy the carry to the GPU", resp))
	{
		if (req->elemtype == FLOAT8OID)
			st = DEVICE(gsd_prefix_sum_f64(item.dptr, item.nelems, d_out, req->exclusive, d_carry));
		else
			st = DEVICE(gsd_prefix_sum_f32(item.dptr, item.nelems, d_out, req->exclusive, d_carry));
		if (device_ok(st, "the prefix sums failed", resp) &&
			device_ok(DEVICE(gsd_download(data, d_out, out_bytes)),
					  "cannot copy the prefix sums back", resp) &&
			device_ok(DEVICE(gsd_download(&resp->acc, d_carry, sizeof(gs_exact_acc))),
					  "cannot copy the carry back", resp))
			resp->ok = true;
	}
	if (d_carry)
		(void) gsd_free(d_carry);
	if (d_out)
		(void) gsd_free(d_out);
}

/*
 * serve_compact -- GS_OP_COMPACT: the values of a cached
 * array whose flags (nelems bytes, in the session's segment) are not zero,
 * written after the flags (missing where it is not cached; invalid where
 * the flags are not as many as the values)
 */
static void
serve_compact(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	int			elemsize = gs_cache_elem_size(req->elemtype);
	GsCacheItem item;
	char	   *data;
	uint8	   *d_keep = NULL;
	void	   *d_out = NULL;
	uint64	   *d_count = NULL;
	uint64		count = 0;
	gsd_status	st;

	if (!request_floats(req, mem, false, resp, &item))
		return;
	resp->ok = true;
	/* an array has fewer than 2^27 elements: within the kernel's 2^32 - 2^16 */
	if (item.nelems != req->nelems)
	{
		resp->invalid = true;
		return;
	}
	if ((data = request_data(req, mem, item.nelems, item.nelems * elemsize, resp)) == NULL)
		return;
	resp->ok = false;
	if (device_alloc(Max(item.nelems, 1), (void **) &d_keep, resp) &&
		device_alloc((item.nelems + 1) * elemsize, &d_out, resp) &&
		device_alloc(sizeof(uint64), (void **) &d_count, resp) &&
		device_ok(DEVICE(gsd_upload(d_keep, data, item.nelems)),
				  "cannot copy the flags to the GPU", resp))
	{
		if (req->elemtype == FLOAT8OID)
			st = DEVICE(gsd_compact_f64(item.dptr, d_keep, item.nelems, d_out, d_count));
		else
			st = DEVICE(gsd_compact_f32(item.dptr, d_keep, item.nelems, d_out, d_count));
		if (device_ok(st, "the compaction failed", resp) &&
			device_ok(DEVICE(gsd_download(&count, d_count, sizeof(uint64))),
					  "cannot copy the count back", resp) &&
			device_ok(DEVICE(gsd_download(data + item.nelems, d_out,
								   Min(count, (uint64) item.nelems) * elemsize)),
					  "cannot copy the kept values back", resp))
		{
			resp->nelems = (int64) Min(count, (uint64) item.nelems);
			resp->ok = true;
		}
	}
	if (d_count)
		(void) gsd_free(d_count);
	if (d_out)
		(void) gsd_free(d_out);
	if (d_keep)
		(void) gsd_free(d_keep);
}

/*
 * serve_compact_indices -- GS_OP_COMPACT_INDICES: the
 * positions (from 1) of the true flags of a cached boolean array, written
 * to the session's segment, which has room for nelems of them (missing
 * where it is not cached; invalid, with their count, where the room is
 * short)
 */
static void
serve_compact_indices(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	GsCacheItem item;
	char	   *data;
	int32	   *d_out = NULL;
	uint64	   *d_count = NULL;
	uint64		count = 0;

	if (req->elemtype != BOOLOID || req->nelems < 0 ||
		req->nelems > (int64) (MaxAllocHugeSize / sizeof(int32)))
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return;
	}
	if (!open_device(resp))
		return;
	if (!request_array(req, mem, 0, false, BOOLOID, &item))
	{
		resp->ok = true;
		resp->missing = 1;
		return;
	}
	if (req->first < 1 || (int64) req->first - 1 + item.nelems > PG_INT32_MAX)
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return;
	}
	if ((data = request_data(req, mem, 0, req->nelems * sizeof(int32), resp)) == NULL)
		return;
	/* an array has fewer than 2^27 elements: positions within integer */
	if (device_alloc((item.nelems + 1) * sizeof(int32), (void **) &d_out, resp) &&
		device_alloc(sizeof(uint64), (void **) &d_count, resp) &&
		device_ok(DEVICE(gsd_compact_indices(item.dptr, item.nelems, req->first, d_out, d_count)),
				  "the compaction failed", resp) &&
		device_ok(DEVICE(gsd_download(&count, d_count, sizeof(uint64))),
				  "cannot copy the count back", resp))
	{
		if (count > (uint64) Min(item.nelems, req->nelems))
		{
			/* the session asks again with room for them */
			resp->ok = true;
			resp->invalid = true;
			resp->nelems = (int64) count;
		}
		else if (device_ok(DEVICE(gsd_download(data, d_out,
												count * sizeof(int32))),
						   "cannot copy the positions back", resp))
		{
			resp->nelems = (int64) count;
			resp->ok = true;
		}
	}
	if (d_count)
		(void) gsd_free(d_count);
	if (d_out)
		(void) gsd_free(d_out);
}

/*
 * stream_valid -- whether a streamed request's ring is one this service
 * can work through: a streaming op of the right types, chunks the kernels
 * take, slots as gs_stream_layout lays them out, all within its memory;
 * *l gets the layout, *elemsize the size of a value sent
 */
static bool
stream_valid(const GsRequest *req, const RequestMemory *mem, GsStreamLayout *l, int *elemsize)
{
	int64		n = req->sent_nelems[0];
	int64		chunk = req->stream_chunk;

	if (req->op == GS_OP_COMPACT_INDICES)
		*elemsize = req->elemtype == BOOLOID ? 1 : 0;
	else
		*elemsize = (req->elemtype == FLOAT8OID || req->elemtype == FLOAT4OID) ?
			gs_cache_elem_size(req->elemtype) : 0;
	/* the compactions' kernels take fewer than 2^32 - 2^16 flags a call */
	return *elemsize > 0 && req->sent && n >= 0 && n <= (int64) MaxAllocHugeSize &&
		chunk >= 1 && chunk <= PG_INT32_MAX &&
		req->stream_slots >= 1 && req->stream_slots <= GS_STREAM_MAX_SLOTS &&
		(!req->stream_cached ||
		 ((req->op == GS_OP_PREFIX_SUM || req->op == GS_OP_COMPACT) && !req->stream_keep)) &&
		(!(req->stream_flags_cached || req->stream_flags_keep) ||
		 (req->op == GS_OP_COMPACT && !(req->stream_flags_cached && req->stream_flags_keep))) &&
		gs_stream_layout(req->op, *elemsize, chunk, req->stream_cached, l) &&
		req->stream_slot_bytes >= l->bytes && req->stream_slot_bytes % GS_SENT_ALIGN == 0 &&
		req->stream_slot_bytes <= mem->length / req->stream_slots &&
		(req->op != GS_OP_COMPACT_INDICES || n <= PG_INT32_MAX);
}

/*
 * keep_new_array -- where the cache has room for n elements of elemtype
 * (lower bound lbound), new device memory for them in *item, to join the
 * cache once filled (*kept true); false only where the memory could not be
 * had (resp says why)
 */
static bool
keep_new_array(GsCacheItem *item, Oid elemtype, int64 n, int32 lbound, bool *kept,
			   GsResponse *resp)
{
	*kept = false;
	array_item(item, elemtype, n, lbound);
	if (!gs_cache_make_room(item->bytes, cache_limit_bytes()))
		return true;
	*kept = device_alloc(Max(item->bytes, 1), &item->dptr, resp);
	return *kept;
}

/*
 * serve_stream -- a streamed SUM, PREFIX_SUM, COMPACT or COMPACT_INDICES
 * ("Streamed requests", channel.h): each chunk, as the session
 * hands it over, uploaded from its slot (or, stream_cached, taken from the
 * cached array) and worked on; the sum's accumulator and the prefix sums'
 * carry stay on the GPU, the other answers go back into the chunk's slot
 */
static void
serve_stream(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	bool		f64 = req->elemtype == FLOAT8OID;
	int64		n = req->sent_nelems[0];
	int64		chunk = req->stream_chunk;
	int64		kept = 0;
	int64		k;
	int			elemsize;
	int			answer_size;
	GsStreamLayout l;
	char	   *ring;
	void	   *d_in = NULL;
	uint8	   *d_keep = NULL;
	void	   *d_out = NULL;
	gs_exact_acc *d_acc = NULL;
	uint64	   *d_count = NULL;
	GsCacheItem kept_array;
	GsCacheItem cached;
	GsCacheItem kept_flags;
	GsCacheItem cached_flags;
	bool		keep = false;
	bool		keep_flags = false;
	bool		working;

	if (!mem->attached && !attach_memory(req, mem, resp))
		return;
	if (!stream_valid(req, mem, &l, &elemsize))
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return;
	}
	if (!open_device(resp))
		return;
	ring = mem->base;
	answer_size = req->op == GS_OP_PREFIX_SUM ? (int) sizeof(double) :
		req->op == GS_OP_COMPACT_INDICES ? (int) sizeof(int32) : elemsize;
	chunk = Min(chunk, Max(n, 1));
	/*
	 * the values and the flags from the cache: answered before the first
	 * chunk where they are not there (both looked up, so that the session
	 * sends all that is missing at once)
	 */
	if (req->stream_cached &&
		!gs_cache_lookup(&req->keys[0], NULL, GS_CACHE_ARRAY, req->elemtype,
						 !req->after_load, &cached))
		resp->missing |= 1;
	if (req->stream_flags_cached &&
		!gs_cache_lookup(&req->keys[2], NULL, GS_CACHE_ARRAY, BOOLOID,
						 !req->after_load, &cached_flags))
		resp->missing |= 1 << 2;
	if (resp->missing)
	{
		resp->ok = true;
		return;
	}
	if ((req->stream_cached && cached.nelems != n) ||
		(req->stream_flags_cached && cached_flags.nelems != n))
	{
		resp->ok = true;
		resp->invalid = true;
		return;
	}
	/* what is not cached goes where the cache will keep it, where there is room */
	if (req->stream_keep &&
		!keep_new_array(&kept_array, req->elemtype, n, req->lbound, &keep, resp))
		return;
	if (req->stream_flags_keep &&
		!keep_new_array(&kept_flags, BOOLOID, n, 1, &keep_flags, resp))
	{
		if (keep)
			(void) gsd_free(kept_array.dptr);
		return;
	}
	working = keep || req->stream_cached || device_alloc(chunk * elemsize, &d_in, resp);
	if (working && req->op == GS_OP_COMPACT && !keep_flags && !req->stream_flags_cached)
		working = device_alloc(chunk, (void **) &d_keep, resp);
	if (working && req->op != GS_OP_SUM)
		working = device_alloc((chunk + 1) * answer_size, &d_out, resp);
	if (working && (req->op == GS_OP_SUM || req->op == GS_OP_PREFIX_SUM))
		working = device_alloc(sizeof(gs_exact_acc), (void **) &d_acc, resp) &&
			device_ok(DEVICE(gsd_upload(d_acc, &req->carry, sizeof(gs_exact_acc))),
					  "cannot copy the carry to the GPU", resp);
	if (working && (req->op == GS_OP_COMPACT || req->op == GS_OP_COMPACT_INDICES))
		working = device_alloc(sizeof(uint64), (void **) &d_count, resp);

	for (k = 0; working && k * chunk < n; k++)
	{
		int64		count = Min(chunk, n - k * chunk);
		char	   *slot = ring + (k % req->stream_slots) * req->stream_slot_bytes;
		uint64		got = 0;
		gsd_status	st;

		if (keep)
			d_in = (char *) kept_array.dptr + k * chunk * elemsize;
		else if (req->stream_cached)
			d_in = (char *) cached.dptr + k * chunk * elemsize;
		if (keep_flags)
			d_keep = (uint8 *) kept_flags.dptr + k * chunk;
		else if (req->stream_flags_cached)
			d_keep = (uint8 *) cached_flags.dptr + k * chunk;

		if (!gs_stream_chunk_in(k))
		{
			answer_stopped(resp);
			working = false;
			break;
		}
		working = req->stream_cached ||
			device_ok(DEVICE(gsd_upload(d_in, slot + l.values, count * elemsize)),
					  "cannot copy the chunk to the GPU", resp);
		if (working && req->op == GS_OP_COMPACT && !req->stream_flags_cached)
			working = device_ok(DEVICE(gsd_upload(d_keep, slot + l.flags, count)),
								"cannot copy the flags to the GPU", resp);
		if (!working)
			break;
		switch (req->op)
		{
			case GS_OP_SUM:
				/* the slot is read: the session fills it again while the kernel runs */
				gs_stream_chunk_out(k);
				st = f64 ? DEVICE(gsd_sum_exact_f64(d_in, count, d_acc, NULL)) :
					DEVICE(gsd_sum_exact_f32(d_in, count, d_acc, NULL));
				working = device_ok(st, "the sum failed", resp);
				break;
			case GS_OP_PREFIX_SUM:
				st = f64 ? DEVICE(gsd_prefix_sum_f64(d_in, count, d_out, req->exclusive, d_acc)) :
					DEVICE(gsd_prefix_sum_f32(d_in, count, d_out, req->exclusive, d_acc));
				working = device_ok(st, "the prefix sums failed", resp) &&
					device_ok(DEVICE(gsd_download(slot + l.answer, d_out, count * sizeof(double))),
							  "cannot copy the prefix sums back", resp);
				break;
			case GS_OP_COMPACT:
			case GS_OP_COMPACT_INDICES:
				if (req->op == GS_OP_COMPACT_INDICES)
					st = DEVICE(gsd_compact_indices(d_in, count, (int32) (k * chunk + 1), d_out,
													d_count));
				else
					st = f64 ? DEVICE(gsd_compact_f64(d_in, d_keep, count, d_out, d_count)) :
						DEVICE(gsd_compact_f32(d_in, d_keep, count, d_out, d_count));
				working = device_ok(st, "the compaction failed", resp) &&
					device_ok(DEVICE(gsd_download(&got, d_count, sizeof(uint64))),
							  "cannot copy the count back", resp);
				got = Min(got, (uint64) count);
				working = working &&
					device_ok(DEVICE(gsd_download(slot + l.answer, d_out, got * answer_size)),
							  "cannot copy the kept values back", resp);
				/* the chunk's count in the slot's header */
				*(int64 *) slot = (int64) got;
				kept += (int64) got;
				break;
			default:
				working = false;
				break;
		}
		if (working && req->op != GS_OP_SUM)
			gs_stream_chunk_out(k);
	}

	if (working && d_acc)
		working = device_ok(DEVICE(gsd_download(&resp->acc, d_acc, sizeof(gs_exact_acc))),
							"cannot copy the sum back", resp);
	if (working)
	{
		resp->nelems = d_count ? kept : n;
		resp->lbound = req->stream_cached ? cached.lbound : 1;
		resp->ok = true;
		resp->not_cached = req->stream_keep && !keep;
	}
	if (keep)
	{
		/* cached by another request meanwhile, or the room went to others: freed */
		if (!working || !gs_cache_add(&req->keys[0], &req->keys[1], &kept_array,
									  cache_limit_bytes()))
			(void) gsd_free(kept_array.dptr);
		d_in = NULL;
	}
	if (keep_flags)
	{
		if (!working || !gs_cache_add(&req->keys[2], NULL, &kept_flags, cache_limit_bytes()))
			(void) gsd_free(kept_flags.dptr);
		d_keep = NULL;
	}
	if (req->stream_cached)
		d_in = NULL;			/* the cache's */
	if (req->stream_flags_cached)
		d_keep = NULL;
	if (d_count)
		(void) gsd_free(d_count);
	if (d_acc)
		(void) gsd_free(d_acc);
	if (d_out)
		(void) gsd_free(d_out);
	if (d_keep)
		(void) gsd_free(d_keep);
	if (d_in)
		(void) gsd_free(d_in);
}

/*
 * group_table -- HEAP_GROUP_SUM's table of groups of nkeys keys on the
 * GPU, zeroed; false (resp says why) where it cannot be had
 */
static bool
group_table(uint32 capacity, int nkeys, gsd_group_table *t, GsResponse *resp)
{
	Size		slots = capacity;

	memset(t, 0, sizeof(*t));
	t->capacity = capacity;
	t->nkeys = nkeys;
	return device_alloc(slots * sizeof(uint32_t), (void **) &t->state, resp) &&
		device_alloc(slots * nkeys * sizeof(int64_t), (void **) &t->keys, resp) &&
		device_alloc(slots * sizeof(uint32_t), (void **) &t->nulls, resp) &&
		device_alloc(slots * sizeof(gs_exact_acc), (void **) &t->accs, resp) &&
		device_alloc(slots * sizeof(unsigned long long), (void **) &t->counts, resp) &&
		device_ok(DEVICE(gsd_memset_zero(t->state, slots * sizeof(uint32_t))), "cannot zero the groups", resp) &&
		device_ok(DEVICE(gsd_memset_zero(t->accs, slots * sizeof(gs_exact_acc))), "cannot zero the groups", resp) &&
		device_ok(DEVICE(gsd_memset_zero(t->counts, slots * sizeof(unsigned long long))), "cannot zero the groups", resp);
}

/* group_table_free -- what group_table allocated */
static void
group_table_free(gsd_group_table *t)
{
	if (t->counts)
		(void) gsd_free(t->counts);
	if (t->accs)
		(void) gsd_free(t->accs);
	if (t->nulls)
		(void) gsd_free(t->nulls);
	if (t->keys)
		(void) gsd_free(t->keys);
	if (t->state)
		(void) gsd_free(t->state);
}

/*
 * answer_groups -- HEAP_GROUP_SUM's groups written from the start of the
 * ring (ring_bytes), each sum normalized; resp->groups_full where there
 * are more than capacity / 2 + 1 or the ring holds fewer.  False where a
 * copy failed.
 */
static bool
answer_groups(const gsd_group_table *t, char *ring, int64 ring_bytes, GsResponse *resp)
{
	Size		slots = t->capacity;
	uint32_t   *state = malloc(slots * sizeof(uint32_t));
	int64_t    *keys = malloc(slots * t->nkeys * sizeof(int64_t));
	uint32_t   *nulls = malloc(slots * sizeof(uint32_t));
	unsigned long long *counts = malloc(slots * sizeof(unsigned long long));
	gs_exact_acc *accs = malloc(slots * sizeof(gs_exact_acc));
	GsGroupOut *out = (GsGroupOut *) ring;
	/* the session has room for the groups of a table half full (and the ring for them) */
	int64		room = Min(ring_bytes / (int64) sizeof(GsGroupOut), (int64) t->capacity / 2 + 1);
	bool		ok;

	ok = state && keys && nulls && counts && accs;
	if (!ok)
		strlcpy(resp->error, "out of memory", sizeof(resp->error));
	ok = ok &&
		device_ok(DEVICE(gsd_download(state, t->state, slots * sizeof(uint32_t))), "cannot copy the groups back", resp) &&
		device_ok(DEVICE(gsd_download(keys, t->keys, slots * t->nkeys * sizeof(int64_t))), "cannot copy the groups back", resp) &&
		device_ok(DEVICE(gsd_download(nulls, t->nulls, slots * sizeof(uint32_t))), "cannot copy the groups back", resp) &&
		device_ok(DEVICE(gsd_download(counts, t->counts, slots * sizeof(unsigned long long))), "cannot copy the groups back", resp) &&
		device_ok(DEVICE(gsd_download(accs, t->accs, slots * sizeof(gs_exact_acc))), "cannot copy the groups back", resp);
	resp->groups = 0;
	for (Size s = 0; ok && s < slots; s++)
	{
		GsGroupOut *g;

		if (state[s] != 2)
			continue;
		if (resp->groups == room)
		{
			resp->groups_full = true;
			break;
		}
		g = &out[resp->groups++];
		memset(g, 0, offsetof(GsGroupOut, acc));
		memcpy(g->key, &keys[s * t->nkeys], t->nkeys * sizeof(int64_t));
		g->null_keys = nulls[s];
		g->count = counts[s];
		g->acc = accs[s];
		gs_acc_normalize(&g->acc);
		resp->values += (int64) counts[s];
	}
	free(state);
	free(keys);
	free(nulls);
	free(counts);
	free(accs);
	return ok;
}

/* heap_key_layouts_valid -- whether HEAP_GROUP_SUM's grouping columns are in range */
static bool
heap_key_layouts_valid(const GsRequest *req)
{
	if (req->heap_nkeys < 1 || req->heap_nkeys > GS_HEAP_MAX_KEYS)
		return false;
	for (int j = 0; j < req->heap_nkeys; j++)
		if (req->heap_key_layouts[j].ncols < 1 || req->heap_key_layouts[j].ncols > GS_HEAP_MAX_COLS)
			return false;
	return true;
}

/*
 * serve_heap_sum -- GS_OP_HEAP_SUM and GS_OP_HEAP_GROUP_SUM, streamed:
 * each chunk names its heap pages (protocol.h): buffers of shared
 * buffers, which the GPU reads in place where this process mapped them,
 * and copies, which are uploaded from the slot.  HEAP_SUM lays the column
 * out by the walker (gsd_heap_values) and adds it into one exact
 * accumulator; HEAP_GROUP_SUM adds each tuple's value into its group's in
 * a table on the GPU (gsd_heap_group_sums), written into the ring at the
 * end.  The values found and the pages the walker refused are counted.  A
 * chunk is answered only once the GPU has read its pages: the session
 * keeps the buffers pinned until then.
 */
static void
serve_heap_sum(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	bool		grouped = req->op == GS_OP_HEAP_GROUP_SUM;
	int64		n = req->sent_nelems[0];
	int64		chunk = req->stream_chunk;
	int64		refused = 0;
	unsigned long long values = 0;
	uint32_t	full = 0;
	int64		k;
	GsStreamLayout l;
	char	   *ring;
	gs_heap_page_ref *d_refs = NULL;
	void	   *d_copies = NULL;
	double	   *d_values = NULL;
	unsigned char *d_bad = NULL;
	unsigned char *bad = NULL;
	unsigned long long *d_count = NULL;
	uint32_t   *d_full = NULL;
	gs_exact_acc *d_acc = NULL;
	gsd_group_table table = {0};
	bool		working;

	if (!mem->attached && !attach_memory(req, mem, resp))
		return;
	if (req->elemtype != BYTEAOID || !req->sent || n < 0 || n > PG_INT32_MAX ||
		chunk < 1 || chunk > GS_HEAP_CHUNK_PAGES ||
		req->stream_slots < 1 || req->stream_slots > GS_STREAM_MAX_SLOTS || req->stream_cached ||
		req->stream_keep || req->heap_layout.ncols < 1 || req->heap_layout.ncols > GS_HEAP_MAX_COLS ||
		(grouped && (!heap_key_layouts_valid(req) ||
					 req->group_capacity < 1 || req->group_capacity > GS_HEAP_MAX_GROUPS ||
					 (req->group_capacity & (req->group_capacity - 1)) != 0)) ||
		!gs_stream_layout(req->op, GS_HEAP_PAGE_SIZE, chunk, false, &l) ||
		req->stream_slot_bytes < l.bytes || req->stream_slot_bytes % GS_SENT_ALIGN != 0 ||
		req->stream_slot_bytes > mem->length / req->stream_slots)
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return;
	}
	if (!open_device(resp))
		return;
	ring = mem->base;
	/* malloc, not palloc: no ERROR in a request's thread */
	if ((bad = malloc(chunk)) == NULL)
	{
		strlcpy(resp->error, "out of memory", sizeof(resp->error));
		return;
	}
	working = device_alloc(chunk * sizeof(gs_heap_page_ref), (void **) &d_refs, resp) &&
		device_alloc((Size) GS_HEAP_CHUNK_COPIES * GS_HEAP_PAGE_SIZE, &d_copies, resp) &&
		device_alloc(chunk, (void **) &d_bad, resp);
	if (working && grouped)
		working = group_table(req->group_capacity, req->heap_nkeys, &table, resp) &&
			device_alloc(sizeof(*d_full), (void **) &d_full, resp) &&
			device_ok(DEVICE(gsd_memset_zero(d_full, sizeof(*d_full))), "cannot zero the flag", resp);
	else if (working)
		working = device_alloc(chunk * GS_HEAP_MAX_TUPLES * sizeof(double), (void **) &d_values, resp) &&
			device_alloc(sizeof(*d_count), (void **) &d_count, resp) &&
			device_alloc(sizeof(gs_exact_acc), (void **) &d_acc, resp) &&
			device_ok(DEVICE(gsd_memset_zero(d_count, sizeof(*d_count))), "cannot zero the count", resp) &&
			device_ok(DEVICE(gsd_memset_zero(d_acc, sizeof(gs_exact_acc))), "cannot zero the sum", resp);

	for (k = 0; working && k * chunk < n; k++)
	{
		int64		count = Min(chunk, n - k * chunk);
		char	   *slot = ring + (k % req->stream_slots) * req->stream_slot_bytes;
		size_t		nshared = shared_buffers_d ? (size_t) shared_buffers_n : 0;
		int64		npages,
					ncopies,
					p;

		if (!gs_stream_chunk_in(k))
		{
			answer_stopped(resp);
			working = false;
			break;
		}
		/* what the session put in the chunk (its header says), each ref checked on the GPU */
		npages = ((volatile int64 *) slot)[0];
		ncopies = ((volatile int64 *) slot)[1];
		if (npages < 0 || npages > count || ncopies < 0 || ncopies > Min(npages, GS_HEAP_CHUNK_COPIES))
		{
			strlcpy(resp->error, "bad request: a chunk's page count is out of range",
					sizeof(resp->error));
			working = false;
			break;
		}
		working = npages == 0 ||
			(device_ok(DEVICE(gsd_upload(d_refs, slot + l.values, npages * sizeof(gs_heap_page_ref))),
					   "cannot copy the pages' names to the GPU", resp) &&
			 (ncopies == 0 ||
			  device_ok(DEVICE(gsd_upload(d_copies, slot + l.flags, ncopies * GS_HEAP_PAGE_SIZE)),
						"cannot copy the pages to the GPU", resp)) &&
			 (grouped ?
			  device_ok(DEVICE(gsd_heap_group_sums(shared_buffers_d, nshared, d_copies, (size_t) ncopies,
												   d_refs, (size_t) npages, req->heap_key_layouts,
												   &req->heap_layout, table, d_bad, d_full)),
						"summing the groups failed", resp) :
			  (device_ok(DEVICE(gsd_heap_values(shared_buffers_d, nshared, d_copies, (size_t) ncopies,
												d_refs, (size_t) npages, &req->heap_layout,
												d_values, d_bad, d_count)),
						 "reading the pages failed", resp) &&
			   device_ok(DEVICE(gsd_sum_exact_f64(d_values, (size_t) npages * GS_HEAP_MAX_TUPLES,
												  d_acc, NULL)),
						 "the sum failed", resp))) &&
			 device_ok(DEVICE(gsd_download(bad, d_bad, npages)), "cannot copy the refusals back",
					   resp));
		if (!working)
			break;
		/* the GPU has read the pages: the session may unpin them and reuse the slot */
		gs_stream_chunk_out(k);
		for (p = 0; p < npages; p++)
			refused += bad[p] != 0;
	}
	if (working && grouped)
		working = device_ok(DEVICE(gsd_download(&full, d_full, sizeof(full))),
							"cannot copy the flag back", resp) &&
			(full != 0 || answer_groups(&table, ring, req->stream_slots * req->stream_slot_bytes, resp));
	else if (working)
		working = device_ok(DEVICE(gsd_download(&resp->acc, d_acc, sizeof(gs_exact_acc))),
							"cannot copy the sum back", resp) &&
			device_ok(DEVICE(gsd_download(&values, d_count, sizeof(values))),
					  "cannot copy the count back", resp);
	if (working)
	{
		resp->nelems = n;
		if (!grouped)
			resp->values = (int64) values;
		resp->groups_full |= full != 0;
		resp->refused = refused;
		resp->ok = true;
	}
	free(bad);
	group_table_free(&table);
	if (d_full)
		(void) gsd_free(d_full);
	if (d_acc)
		(void) gsd_free(d_acc);
	if (d_count)
		(void) gsd_free(d_count);
	if (d_bad)
		(void) gsd_free(d_bad);
	if (d_values)
		(void) gsd_free(d_values);
	if (d_copies)
		(void) gsd_free(d_copies);
	if (d_refs)
		(void) gsd_free(d_refs);
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
 * is none; where rp_key is NULL, a sent row_ptr's, made and not kept);
 * false with the answer written on a device error
 */
static bool
spmv_plan(const GsStoredKey *rp_key, const GsCacheItem *rp, int32 nnz, bool count_hit,
		  GsCacheItem *plan, GsResponse *resp)
{
	int32		nrows = (int32) (rp->nelems - 1);
	void	   *d_scratch = NULL;
	bool		ok;

	if (rp_key && gs_cache_lookup(rp_key, NULL, GS_CACHE_SPMV_PLAN, InvalidOid, count_hit, plan))
		return true;
	memset(plan, 0, sizeof(*plan));
	plan->kind = GS_CACHE_SPMV_PLAN;
	ok = device_alloc(Max(gsd_spmv_plan_scratch_bytes(nrows), 1), &d_scratch, resp) &&
		device_ok(DEVICE(gsd_spmv_plan_analyze(&plan->plan, rp->dptr, nrows, nnz, d_scratch)),
				  "cannot plan the SpMV", resp);
	if (ok)
	{
		plan->bytes = gsd_spmv_plan_bytes(&plan->plan);
		ok = device_alloc(Max(plan->bytes, 1), &plan->dptr, resp);
	}
	if (ok && !device_ok(DEVICE(gsd_spmv_plan_build(&plan->plan, rp->dptr, d_scratch, plan->dptr)),
						 "cannot plan the SpMV", resp))
	{
		(void) gsd_free(plan->dptr);
		ok = false;
	}
	if (d_scratch)
		(void) gsd_free(d_scratch);
	/* kept where it fits; otherwise bytes = -1 says that the caller frees it after the call */
	if (ok && (rp_key == NULL || !gs_cache_add(rp_key, NULL, plan, cache_limit_bytes())))
		plan->bytes = -1;
	return ok;
}

/*
 * serve_spmv -- GS_OP_SPMV: y = A x with A's arrays in the
 * cache (missing those that are not), x from the session's segment and y
 * into it after x
 */
static void
serve_spmv(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	int			elemsize = gs_cache_elem_size(req->elemtype);
	GsCacheItem arrays[GS_REQUEST_KEYS];
	Oid			types[GS_REQUEST_KEYS] = {INT4OID, INT4OID, req->elemtype};
	GsCacheItem plan;
	char	   *data;
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
		if (!request_array(req, mem, i, false, types[i], &arrays[i]))
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
	if ((data = request_data(req, mem, x_bytes, y_bytes, resp)) == NULL)
		return;
	planned = spmv_plan(req->sent ? NULL : &req->keys[0], &arrays[0], (int32) arrays[1].nelems, !req->after_load,
						&plan, resp);
	if (planned &&
		device_alloc(Max(x_bytes, 1), &d_x, resp) &&
		device_alloc(Max(y_bytes, 1), &d_y, resp) &&
		device_ok(DEVICE(gsd_upload(d_x, data, x_bytes)),
				  "cannot copy x to the GPU",
				  resp))
	{
		if (req->elemtype == FLOAT8OID)
			st = DEVICE(gsd_spmv_f64(&plan.plan, arrays[0].dptr, arrays[1].dptr, arrays[2].dptr,
									 d_x, d_y));
		else
			st = DEVICE(gsd_spmv_f32(&plan.plan, arrays[0].dptr, arrays[1].dptr, arrays[2].dptr,
									 d_x, d_y));
		if (device_ok(st, "the SpMV failed", resp) &&
			device_ok(DEVICE(gsd_download(data + x_bytes, d_y,
										  y_bytes)),
					  "cannot copy y back", resp))
			resp->ok = true;
	}
	if (planned && plan.bytes < 0)
		(void) gsd_free(plan.dptr);
	if (d_y)
		(void) gsd_free(d_y);
	if (d_x)
		(void) gsd_free(d_x);
}

/* align_up -- n rounded up to a multiple of 256 bytes */
static int64
align_up(int64 n)
{
	return (n + 255) & ~(int64) 255;
}

/*
 * build_graph -- PageRank's graph from cached row_ptr and col_idx (the
 * out-links of n nodes): the in-link CSR (their transpose, made on the
 * device), the out-degrees and the SpMV plan of the in-links, in two
 * allocations; false with the answer written on a device error
 */
static bool
build_graph(const GsCacheItem *rp, const GsCacheItem *ci, GsCacheItem *g, GsResponse *resp)
{
	int32		n = (int32) (rp->nelems - 1);
	int32		nnz = (int32) ci->nelems;
	int64		off_idx = align_up(sizeof(int32) * ((int64) n + 1));
	int64		off_deg = off_idx + align_up(sizeof(int32) * (int64) Max(nnz, 1));
	int64		block = off_deg + align_up(sizeof(int32) * (int64) n);
	int32	   *row_ptr = NULL;
	void	   *d_scratch = NULL;
	int32		i;
	bool		ok;

	memset(g, 0, sizeof(*g));
	g->kind = GS_CACHE_PAGERANK_GRAPH;
	g->n = n;
	ok = device_alloc(block, &g->dptr, resp);
	if (ok)
	{
		g->d_in_ptr = g->dptr;
		g->d_in_idx = (int32 *) ((char *) g->dptr + off_idx);
		g->d_outdeg = (int32 *) ((char *) g->dptr + off_deg);
		ok = device_alloc(Max(gsd_csr_transpose_scratch_bytes(n, nnz), 1), &d_scratch, resp) &&
			device_ok(DEVICE(gsd_csr_transpose_pattern(rp->dptr, ci->dptr, n, n, nnz, g->d_in_ptr,
												g->d_in_idx, d_scratch)),
					  "cannot transpose the graph", resp);
		if (d_scratch)
			(void) gsd_free(d_scratch);
		d_scratch = NULL;
	}
	if (ok)
	{
		/* the out-degrees, from row_ptr on the host */
		/* malloc, not palloc: no ERROR in a request's thread */
		row_ptr = malloc(sizeof(int32) * ((Size) n + 1));
		if (row_ptr == NULL)
		{
			strlcpy(resp->error, "out of memory", sizeof(resp->error));
			ok = false;
		}
		else
			ok = device_ok(DEVICE(gsd_download(row_ptr, rp->dptr, sizeof(int32) * ((Size) n + 1))),
						   "cannot copy row_ptr back", resp);
		for (i = 0; ok && i < n; i++)
			row_ptr[i] = row_ptr[i + 1] - row_ptr[i];
		ok = ok && device_ok(DEVICE(gsd_upload(g->d_outdeg, row_ptr, sizeof(int32) * (Size) n)),
							 "cannot copy the out-degrees to the GPU", resp);
		free(row_ptr);
	}
	if (ok)
		ok = device_alloc(Max(gsd_spmv_plan_scratch_bytes(n), 1), &d_scratch, resp) &&
			device_ok(DEVICE(gsd_spmv_plan_analyze(&g->plan, g->d_in_ptr, n, nnz, d_scratch)),
					  "cannot plan the iterations", resp) &&
			device_alloc(Max(gsd_spmv_plan_bytes(&g->plan), 1), &g->dptr2, resp) &&
			device_ok(DEVICE(gsd_spmv_plan_build(&g->plan, g->d_in_ptr, d_scratch, g->dptr2)),
					  "cannot plan the iterations", resp);
	if (d_scratch)
		(void) gsd_free(d_scratch);
	g->bytes = block + (int64) gsd_spmv_plan_bytes(&g->plan);
	if (!ok)
	{
		if (g->dptr2)
			(void) gsd_free(g->dptr2);
		if (g->dptr)
			(void) gsd_free(g->dptr);
	}
	return ok;
}

/*
 * serve_pagerank -- GS_OP_PAGERANK: the ranks of the graph
 * of cached row_ptr and col_idx (missing those that are not), into the
 * session's segment; the graph derived from them is kept as an entry of
 * its own where it fits
 */
static void
serve_pagerank(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	GsCacheItem rp,
				ci,
				g;
	bool		have_graph;
	bool		keep_graph = false;
	char	   *data;
	double	   *rank;
	double	   *d_rank[2] = {NULL, NULL};
	void	   *d_work = NULL;
	int64		vec_bytes;
	int			it,
				cur = 0;
	int32		i;

	if (!open_device(resp))
		return;
	if (!request_array(req, mem, 0, false, INT4OID, &rp))
		resp->missing |= 1;
	if (!request_array(req, mem, 1, false, INT4OID, &ci))
		resp->missing |= 2;
	resp->ok = true;
	if (resp->missing)
		return;
	/* a graph: n > 0 nodes, each column a node */
	if (rp.nelems < 2 || !rp.facts.row_ptr || rp.facts.last != ci.nelems ||
		(ci.nelems > 0 && (ci.facts.min < 0 || ci.facts.max >= rp.nelems - 1)) ||
		req->max_iterations < 1)
	{
		resp->invalid = true;
		return;
	}
	resp->nelems = rp.nelems - 1;
	resp->nnz = ci.nelems;
	vec_bytes = sizeof(double) * resp->nelems;
	if ((data = request_data(req, mem, 0, vec_bytes, resp)) == NULL)
		return;

	/* the graph of cached arrays is kept where it fits; a sent one's is not */
	have_graph = !req->sent &&
		gs_cache_lookup(&req->keys[0], &req->keys[1], GS_CACHE_PAGERANK_GRAPH, InvalidOid,
						!req->after_load, &g);
	if (!have_graph && (have_graph = build_graph(&rp, &ci, &g, resp)) && !req->sent)
		keep_graph = gs_cache_add(&req->keys[0], &req->keys[1], &g, cache_limit_bytes());
	else if (have_graph)
		keep_graph = true;

	rank = (double *) data;
	gs_pg_unlock();
	for (i = 0; i < g.n; i++)
		rank[i] = 1.0 / (double) g.n;
	gs_pg_lock();
	if (have_graph &&
		device_alloc(vec_bytes, (void **) &d_rank[0], resp) &&
		device_alloc(vec_bytes, (void **) &d_rank[1], resp) &&
		device_alloc(Max(gsd_pagerank_work_bytes(g.n), 1), &d_work, resp) &&
		device_ok(DEVICE(gsd_upload(d_rank[0], rank, vec_bytes)),
				  "cannot copy the ranks to the GPU", resp))
	{
		bool		failed = false;

		/* an abandoned request stops between two iterations */
		for (it = 1; it <= req->max_iterations && !ShutdownRequestPending &&
			 !gs_request_abandoned(); it++)
		{
			if (!device_ok(DEVICE(gsd_pagerank_iteration(&g.plan, g.d_in_ptr, g.d_in_idx, g.d_outdeg,
												  req->damping, d_rank[cur], d_rank[1 - cur],
												  d_work, &resp->residual)),
						   "a PageRank iteration failed", resp))
			{
				failed = true;
				break;
			}
			cur = 1 - cur;
			if (resp->residual <= req->tolerance)
				break;
		}
		resp->iterations = Min(it, req->max_iterations);
		if (!failed && !ShutdownRequestPending && !gs_request_abandoned() &&
			device_ok(DEVICE(gsd_download(rank, d_rank[cur], vec_bytes)),
					  "cannot copy the ranks back", resp))
			resp->ok = true;
		else if (!failed)
		{
			answer_stopped(resp);
		}
	}
	if (d_work)
		(void) gsd_free(d_work);
	if (d_rank[1])
		(void) gsd_free(d_rank[1]);
	if (d_rank[0])
		(void) gsd_free(d_rank[0]);
	if (have_graph && !keep_graph)
	{
		(void) gsd_free(g.dptr2);
		(void) gsd_free(g.dptr);
	}
}

/*
 * serve_whole_stream -- SPMV or PAGERANK streamed whole ("Streamed
 * requests", channel.h): each chunk of the input, as the session
 * hands it over, goes to the device arrays it belongs to (the sent arrays)
 * or to a buffer here (the op's own input: SpMV's x); the op then runs on
 * them as on a request's data, and its answer goes back through the ring
 */
static void
serve_whole_stream(const GsRequest *req, RequestMemory *mem, GsResponse *resp)
{
	int64		offsets[GS_REQUEST_KEYS];
	int64		arrays_bytes;
	int64		in_bytes = req->stream_in_bytes;
	int64		out_bytes = req->stream_out_bytes;
	int64		chunk = req->stream_chunk;
	int64		nin;
	int64		nout;
	int64		own_in;
	int64		k;
	int			n = sent_layout(req, offsets, &arrays_bytes);
	char	   *ring;
	char	   *own;
	bool		working = true;

	if (!mem->attached && !attach_memory(req, mem, resp))
		return;
	if (n == 0 || !req->sent || chunk < 1 || chunk > PG_INT32_MAX ||
		req->stream_slots < 1 || req->stream_slots > GS_STREAM_MAX_SLOTS ||
		req->stream_slot_bytes < GS_STREAM_HEADER + chunk ||
		req->stream_slot_bytes % GS_SENT_ALIGN != 0 ||
		req->stream_slot_bytes > mem->length / req->stream_slots ||
		in_bytes < arrays_bytes || in_bytes > (int64) MaxAllocHugeSize ||
		out_bytes < 0 || out_bytes > (int64) MaxAllocHugeSize ||
		/* the op's own input: SpMV's x, which its op reads from the start of its data */
		(req->op == GS_OP_SPMV && (req->nelems < 0 || req->nelems > (int64) MaxAllocHugeSize / 8 ||
								   in_bytes - arrays_bytes !=
								   req->nelems * gs_cache_elem_size(req->elemtype))) ||
		(req->op == GS_OP_PAGERANK && in_bytes != arrays_bytes))
	{
		strlcpy(resp->error, "bad request", sizeof(resp->error));
		return;
	}
	if (!open_device(resp) || !alloc_sent(req, mem, n, resp))
		return;
	own_in = in_bytes - arrays_bytes;
	if ((own = malloc(Max(own_in + out_bytes, 1))) == NULL)
	{
		strlcpy(resp->error, "out of memory for the request's data", sizeof(resp->error));
		return;
	}
	ring = mem->base;
	nin = gs_stream_whole_chunks(in_bytes, chunk);
	nout = gs_stream_whole_chunks(out_bytes, chunk);

	/* the input: each chunk's bytes to the arrays they belong to, or to own */
	for (k = 0; working && k < nin; k++)
	{
		char	   *slot = ring + (k % req->stream_slots) * req->stream_slot_bytes + GS_STREAM_HEADER;
		int64		a = k * chunk;
		int64		b = Min(a + chunk, in_bytes);
		int			i;

		if (!gs_stream_chunk_in(k))
		{
			working = false;
			break;
		}
		for (i = 0; working && i < n; i++)
		{
			int64		lo = Max(a, offsets[i]);
			int64		hi = Min(b, offsets[i] + mem->sent[i].bytes);

			if (lo < hi)
				working = device_ok(DEVICE(gsd_upload((char *) mem->sent[i].dptr + (lo - offsets[i]),
													   slot + (lo - a), hi - lo)),
									"cannot copy the array to the GPU", resp);
		}
		if (working && b > arrays_bytes)
		{
			int64		lo = Max(a, arrays_bytes);

			memcpy(own + (lo - arrays_bytes), slot + (lo - a), b - lo);
		}
		if (working)
			gs_stream_chunk_out(k);
	}

	/* the op, on the arrays and on own as its data */
	if (working)
	{
		RequestMemory whole = *mem;

		whole.seg = NULL;
		whole.base = own;
		whole.length = own_in + out_bytes;
		whole.skip = 0;
		if (req->op == GS_OP_SPMV)
			serve_spmv(req, &whole, resp);
		else
			serve_pagerank(req, &whole, resp);
		working = resp->ok && !resp->missing && !resp->invalid;
	}
	else if (resp->error[0] == '\0')
		answer_stopped(resp);

	/* the answer, chunk by chunk after the input's */
	for (k = 0; working && k < nout; k++)
	{
		char	   *slot = ring + ((nin + k) % req->stream_slots) * req->stream_slot_bytes +
			GS_STREAM_HEADER;
		int64		a = k * chunk;

		if (!gs_stream_chunk_in(nin + k))
		{
			resp->ok = false;
			answer_stopped(resp);
			break;
		}
		memcpy(slot, own + own_in + a, Min(chunk, out_bytes - a));
		gs_stream_chunk_out(nin + k);
	}
	free(own);
}

/* gs_service_serve -- see service_ops.h */
void
gs_service_serve(const GsRequest *req, GsResponse *resp)
{
	RequestMemory mem;
	instr_time	start;
	instr_time	end;

	INSTR_TIME_SET_CURRENT(start);
	memset(&mem, 0, sizeof(mem));
	/* a lowered gpuscan.cache_size applies before anything else */
	gs_cache_set_limit(cache_limit_bytes());
	if (req->stream_slots > 0 && gs_stream_whole(req->op))
		serve_whole_stream(req, &mem, resp);
	else if (req->stream_slots > 0 &&
			 (req->op == GS_OP_HEAP_SUM || req->op == GS_OP_HEAP_GROUP_SUM))
		serve_heap_sum(req, &mem, resp);
	else if (req->stream_slots > 0)
		serve_stream(req, &mem, resp);
	else if (!req->sent || receive_arrays(req, &mem, resp))
		switch (req->op)
		{
			case GS_OP_DEVICES:
				resp->ok = true;
				serve_devices(resp);
				break;
			case GS_OP_LOAD:
				serve_load(req, &mem, resp);
				break;
			case GS_OP_SUM:
				serve_sum(req, &mem, resp);
				break;
			case GS_OP_PREFIX_SUM:
				serve_prefix_sum(req, &mem, resp);
				break;
			case GS_OP_COMPACT:
				serve_compact(req, &mem, resp);
				break;
			case GS_OP_COMPACT_INDICES:
				serve_compact_indices(req, &mem, resp);
				break;
			case GS_OP_SPMV:
				serve_spmv(req, &mem, resp);
				break;
			case GS_OP_PAGERANK:
				serve_pagerank(req, &mem, resp);
				break;
			case GS_OP_CACHE_RESET:
				resp->entries_freed = gs_cache_clear();
				resp->ok = true;
				/* what the entries held goes back to the GPU, not to the pool */
				trim_pool();
				break;
			default:
				strlcpy(resp->error, "unknown request", sizeof(resp->error));
				break;
		}
	release_memory(&mem);
	gs_cache_unpin_all();
	INSTR_TIME_SET_CURRENT(end);
	last_request_end = end;
	trimmed_since = false;
	INSTR_TIME_SUBTRACT(end, start);
	gs_device_count_request(service_device, INSTR_TIME_GET_MILLISEC(end));
	note_memory(false);
}

/* gs_service_apply_settings -- see service_ops.h */
void
gs_service_apply_settings(void)
{
	if (gsd_is_open())
		gs_cache_set_limit(cache_limit_bytes());
}

/* gs_service_idle -- see service_ops.h */
void
gs_service_idle(void)
{
	instr_time	now;

	if (trimmed_since || !gs_workers_idle())
		return;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, last_request_end);
	if (INSTR_TIME_GET_MILLISEC(now) >= GS_IDLE_TRIM_MS)
		trim_pool();
}
