/*-------------------------------------------------------------------------
 *
 * service_call.c
 *	  A session's GPU work on values in memory through the GPU service
 *	  (service_call.h), and the memory that carries any request's data.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/resowner.h"

#include "pg/array_input.h"
#include "pg/array_stream.h"
#include "cpu/copy_workers.h"
#include "dispatch/dispatch.h"
#include "ipc/service_status.h"
#include "dispatch/placement.h"
#include "dispatch/stats.h"
#include "client/channel_client.h"
#include "client/service_call.h"
#include "cpu/csr_check.h"
#include "pg/chunks.h"

/*
 * new_segment -- a dynamic shared memory segment of `bytes`, or NULL with
 * the reason in `why` where none can be made (too many segments, no room
 * left in /dev/shm).  The failure is caught, and what dsm_create had
 * registered is released with a resource owner of its own, so that the
 * call can run in the session instead; a cancel is not caught.
 */
static dsm_segment *
new_segment(Size bytes, char *why, size_t why_size)
{
	ResourceOwner saved = CurrentResourceOwner;
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = ResourceOwnerCreate(saved, "gpuscan request segment");
	dsm_segment *seg = NULL;

	CurrentResourceOwner = owner;
	PG_TRY();
	{
		seg = dsm_create(Max(bytes, 1), DSM_CREATE_NULL_IF_MAXSEGMENTS);
		if (seg == NULL)
			strlcpy(why, "too many dynamic shared memory segments", why_size);
		else
			dsm_pin_mapping(seg);	/* no longer `owner`'s ... */
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		CurrentResourceOwner = saved;
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			edata->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			PG_RE_THROW();
		FlushErrorState();
		strlcpy(why, edata->message, why_size);
		FreeErrorData(edata);
		seg = NULL;
	}
	PG_END_TRY();
	CurrentResourceOwner = saved;
	if (seg)
		dsm_unpin_mapping(seg); /* ... but the caller's owner's */
	ResourceOwnerRelease(owner, RESOURCE_RELEASE_BEFORE_LOCKS, false, false);
	ResourceOwnerRelease(owner, RESOURCE_RELEASE_LOCKS, false, false);
	ResourceOwnerRelease(owner, RESOURCE_RELEASE_AFTER_LOCKS, false, false);
	ResourceOwnerDelete(owner);
	return seg;
}

/*
 * request_segment -- rd's memory where the staging area has no room for
 * it: a segment of `bytes` for the request *req, or NULL (rd freed, the
 * failure handled as gs_request_data says)
 */
static GsRequestData *
request_segment(GsRequest *req, GsRequestData *rd, Size bytes, const char *fn)
{
	char		why[256];

	if ((rd->seg = new_segment(bytes, why, sizeof(why))) == NULL)
	{
		pfree(rd);
		if (gpuscan_device_mode == GPUSCAN_DEVICE_GPU)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("%s: no shared memory for the data of a request to the gpuscan GPU service",
							fn),
					 errdetail("%s", why),
					 errhint("Raise gpuscan.service_staging_size or the room of /dev/shm, or set gpuscan.device to 'auto' to run such calls on the CPU.")));
		elog(DEBUG1, "%s: in the session, as no shared memory for the GPU service could be had: %s",
			 fn, why);
		return NULL;
	}
	rd->addr = dsm_segment_address(rd->seg);
	req->data = dsm_segment_handle(rd->seg);
	return rd;
}

/* gs_request_data -- see service_call.h */
GsRequestData *
gs_request_data(GsRequest *req, int slot, Size bytes, const char *fn)
{
	GsRequestData *rd = palloc0(sizeof(GsRequestData));

	rd->slot = slot;
	rd->addr = gs_channel_staging(slot, bytes, bytes, req);
	if (rd->addr != NULL)
		return rd;
	return request_segment(req, rd, bytes, fn);
}

/* gs_request_ring -- see service_call.h */
GsRequestData *
gs_request_ring(GsRequest *req, Size slot_bytes, int *slots, const char *fn)
{
	GsRequestData *rd = palloc0(sizeof(GsRequestData));
	int			least = Min(*slots, 2);

	rd->slot = 0;
	rd->addr = gs_channel_staging(0, *slots * slot_bytes, least * slot_bytes, req);
	if (rd->addr != NULL)
	{
		*slots = (int) Min(*slots, req->staging_len / (int64) slot_bytes);
		return rd;
	}
	*slots = least;
	return request_segment(req, rd, least * slot_bytes, fn);
}

/* gs_request_data_release -- see service_call.h */
void
gs_request_data_release(GsRequestData *rd)
{
	if (rd->seg)
		dsm_detach(rd->seg);
	else
		gs_channel_staging_done(rd->slot);
	pfree(rd);
}

/* gs_service_failed -- see service_call.h */
void
gs_service_failed(const GsResponse *resp, const char *fn)
{
	if (gpuscan_device_mode == GPUSCAN_DEVICE_GPU)
		ereport(ERROR,
				(errcode(resp->gpu_failed ? ERRCODE_EXTERNAL_ROUTINE_EXCEPTION :
						 ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s: the gpuscan GPU service could not run the call", fn),
				 errdetail("%s", resp->error)));
	elog(DEBUG1, "%s: in the session, as the GPU service could not run the call: %s",
		 fn, resp->error);
}

/* gs_int_facts -- see service_call.h */
GsIntArrayFacts
gs_int_facts(const int32 *v, int64 n)
{
	GsIntArrayFacts f;
	int64		i;

	memset(&f, 0, sizeof(f));
	f.row_ptr = n >= 1 && v[0] == 0;
	if (n > 0)
		f.min = f.max = f.last = v[n - 1];
	for (i = 0; i < n; i++)
	{
		f.min = Min(f.min, v[i]);
		f.max = Max(f.max, v[i]);
		if (i > 0 && v[i] < v[i - 1])
			f.row_ptr = false;
		if ((i & ((1 << 22) - 1)) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return f;
}

/*
 * place -- the GPU whose process takes a call of `work` over n elements of
 * elemsize bytes; -1 (the failure handled) where none is ready or, under
 * auto, its queue is too long (placement.h) for what the call would cost
 * in the session: session_ms where the caller knows it (> 0), else the
 * cost model's figure
 */
static int
place(GsWork work, int64 n, int elemsize, double session_ms, const char *fn)
{
	GsSessionCost cost = {work, n, elemsize, 0};
	GsResponse	resp;
	int			device;

	gs_session_cost_mode(&cost);
	cost.session_ms = session_ms;
	device = gs_place_request(NULL, 0, &cost);

	gs_stats_note_service_device(device);
	if (device < 0)
	{
		memset(&resp, 0, sizeof(resp));
		strlcpy(resp.error, "no GPU of the service is ready, or its queue is too long",
				sizeof(resp.error));
		gs_service_failed(&resp, fn);
	}
	return device;
}

/* sent_request -- *req, an `op` on GPU `device` that sends its arrays, of elemtype */
static void
sent_request(GsRequest *req, GsRequestOp op, Oid elemtype, int device)
{
	memset(req, 0, sizeof(*req));
	req->op = op;
	req->device = device;
	req->sent = true;
	req->elemtype = elemtype;
	req->data = DSM_HANDLE_INVALID;
}

/* sent_bytes -- bytes of n sent elements of elemsize, up to where the next array starts */
static int64
sent_bytes(int64 n, int elemsize)
{
	return TYPEALIGN(GS_SENT_ALIGN, n * elemsize);
}

/*
 * send -- send `req`, whose data is `rd`, and wait: true with the answer
 * in *resp; false (rd released, the failure handled) where the service
 * failed or did not take the request (`expect`: the elements its answer
 * must have, -1 for at most `most`)
 */
static bool
send(const GsRequest *req, GsRequestData *rd, GsResponse *resp, int64 expect, int64 most,
	 const char *fn)
{
	if (gs_service_try_call(req, resp))
	{
		if (!resp->missing && !resp->invalid &&
			(expect >= 0 ? resp->nelems == expect : resp->nelems >= 0 && resp->nelems <= most))
			return true;
		resp->gpu_failed = false;
		strlcpy(resp->error, "the GPU service did not take the values sent", sizeof(resp->error));
	}
	gs_request_data_release(rd);
	gs_service_failed(resp, fn);
	return false;
}

/*
 * A chunked call streamed through the service ("Streamed requests",
 * channel.h): what its fill and drain work on
 */
typedef struct StreamCall
{
	GsStreamLayout layout;
	int64		n;				/* elements (COMPACT_INDICES: flags) */
	int64		chunk;			/* a chunk's elements */
	int			elemsize;		/* of a value sent (COMPACT_INDICES: 1) */
	const char *values;			/* the values sent (COMPACT_INDICES: the flags) ... */
	const GsArrayInput *in;		/* ... their NULLs checked here, if not NULL */
	GsArrayStream *stored;		/* or the values read from their TOAST slices */
	GsHeapPagesFill pages;		/* or HEAP_SUM's pages, named by this */
	void	   *pages_arg;
	bool		pages_in_place; /* the GPU reads shared buffers in place */
	int64		min_slot_bytes; /* a slot at least this large (HEAP_GROUP_SUM's answer) */
	GsGroupOut *groups;			/* HEAP_GROUP_SUM: its answer copied here ... */
	int64		max_groups;		/* ... up to this many */
	bool		cached;			/* or none sent: they are in the device cache */
	bool		flags_cached;	/* COMPACT: the flags are in the device cache, or ... */
	const uint8 *keep;			/* ... the flags, or ... */
	GsArrayStream *keep_stored; /* ... their TOAST slices */
	char	   *out;			/* the answers: prefix sums, kept values or positions */
	int			out_size;		/* of one answer */
	int64		total;			/* answers copied out so far */
	bool		counted;		/* the compactions: a chunk's answers are counted */
	bool		bad;			/* the service answered more than a chunk has */
} StreamCall;

/* a streamed request's slots start at multiples of this in its ring */
#define STREAM_SLOT_ALIGN	4096

/*
 * read_flags -- count flags from `start` of their stored array into `to`.
 * A slice is read into a varlena, whose 4-byte header lands just before
 * `to`, on the slot's values: those bytes are put back.
 */
static void
read_flags(GsArrayStream *stored, int64 start, int64 count, char *to)
{
	char		before[VARHDRSZ];

	memcpy(before, to - VARHDRSZ, VARHDRSZ);
	(void) gs_array_stream_read_to(stored, start, count, (struct varlena *) (to - VARHDRSZ));
	memcpy(to - VARHDRSZ, before, VARHDRSZ);
}

/* fill_chunk -- chunk k's input into its slot, on the copy workers (GsStreamFill) */
static void
fill_chunk(int64 k, char *slot, void *arg)
{
	StreamCall *c = (StreamCall *) arg;
	int64		start = k * c->chunk;
	int64		count = Min(c->chunk, c->n - start);
	bool		flags_in = false;

	if (k == 0)
	{
		/* the first chunk, also of a request posted again after a restart */
		c->total = 0;
		c->bad = false;
	}
	if (c->cached)
		;						/* the slot is free again: that is all the service needs */
	else if (c->pages)
	{
		/* the header says how many pages, and how many copies, the chunk has */
		int			ncopies = 0;
		int			npages = c->pages(k, (int) count, (gs_heap_page_ref *) (slot + c->layout.values),
									  slot + c->layout.flags, c->pages_in_place, &ncopies,
									  c->pages_arg);

		if (npages < 0 || npages > count || ncopies < 0 ||
			ncopies > Min(npages, GS_HEAP_CHUNK_COPIES))
			elog(ERROR, "heap page source named %d pages and %d copies in a chunk of %lld",
				 npages, ncopies, (long long) count);
		((int64 *) slot)[0] = npages;
		((int64 *) slot)[1] = ncopies;
	}
	else if (c->stored)
		(void) gs_array_stream_read_to(c->stored, start, count,
									   (struct varlena *) (slot + c->layout.values - VARHDRSZ));
	else if (c->keep && !c->flags_cached)
	{
		/* the values and the flags in one job of the copy workers */
		gs_stage_in_pair(slot + c->layout.values, c->in, c->values, c->elemsize, start, count,
						 slot + c->layout.flags, (const char *) c->keep + start, count);
		flags_in = true;
	}
	else
		gs_stage_in(slot + c->layout.values, c->in, c->values, c->elemsize, start, count);
	if (c->flags_cached || flags_in)
		;						/* the service has them, or they are in */
	else if (c->keep)
		gs_copy(slot + c->layout.flags, c->keep + start, count);
	else if (c->keep_stored)
		read_flags(c->keep_stored, start, count, slot + c->layout.flags);
	gs_chunk_done(k);
}

/* drain_chunk -- chunk k's answer out of its slot, on the copy workers (GsStreamDrain) */
static void
drain_chunk(int64 k, const char *slot, void *arg)
{
	StreamCall *c = (StreamCall *) arg;
	int64		count = Min(c->chunk, c->n - k * c->chunk);
	int64		got = count;

	if (c->counted)
	{
		/* as many as the slot's header says, at most the chunk's */
		got = *(const int64 *) slot;
		if (got < 0 || got > count)
		{
			c->bad = true;
			return;
		}
	}
	gs_copy(c->out + c->total * c->out_size, slot + c->layout.answer, got * c->out_size);
	c->total += got;
}

/*
 * stream_call -- run the streamed `req` (its op, device, elemtype and
 * extra fields set) over c's chunks: false, the failure handled
 * (gs_service_failed), where it could not run or its answer's count is not
 * the call's; else true with the answer in *resp (which may be `missing`
 * or `invalid` for values from the cache, before any chunk)
 */
static bool
stream_call(GsRequest *req, StreamCall *c, GsResponse *resp, const char *fn)
{
	int64		nchunks = c->n == 0 ? 0 : (c->n + c->chunk - 1) / c->chunk;
	GsRequestData *rd;
	int			slots;
	bool		ok;

	req->sent = true;
	req->sent_nelems[0] = c->n;
	req->stream_chunk = c->chunk;
	req->stream_cached = c->cached;
	(void) gs_stream_layout(req->op, c->elemsize, c->chunk, c->cached, &c->layout);
	req->stream_slot_bytes = TYPEALIGN(STREAM_SLOT_ALIGN, Max(c->layout.bytes, c->min_slot_bytes));
	/* a ring of up to GS_STREAM_MAX_SLOTS, but no more slots than chunks */
	slots = (int) Max(Min(nchunks, GS_STREAM_MAX_SLOTS), 1);
	gs_copy_workers_begin(fn);
	if ((rd = gs_request_ring(req, req->stream_slot_bytes, &slots, fn)) == NULL)
		return false;
	req->stream_slots = slots;
	ok = gs_service_try_stream(req, rd->addr, nchunks, fill_chunk,
							   c->out ? drain_chunk : NULL, c, resp);
	/* HEAP_GROUP_SUM's groups, from the start of the ring, checked against its size */
	if (ok && c->groups != NULL)
	{
		if (resp->groups < 0 || resp->groups > c->max_groups ||
			resp->groups * (int64) sizeof(GsGroupOut) > (int64) slots * req->stream_slot_bytes)
		{
			resp->ok = ok = false;
			strlcpy(resp->error, "the GPU service answered more groups than it had room for",
					sizeof(resp->error));
		}
		else
			memcpy(c->groups, rd->addr, resp->groups * sizeof(GsGroupOut));
	}
	gs_request_data_release(rd);
	if (ok && !resp->missing && !resp->invalid &&
		(c->bad || resp->nelems != (c->counted ? c->total : c->n)))
	{
		resp->ok = ok = false;
		strlcpy(resp->error, c->bad ? "the GPU service answered more than a chunk has" :
				"the GPU service did not take the values sent", sizeof(resp->error));
	}
	if (!ok)
		gs_service_failed(resp, fn);
	return ok;
}

/* gs_service_sum -- see service_call.h */
int64
gs_service_sum(gs_exact_acc *acc, const char *values, int64 n, Oid elemtype,
			   const GsArrayInput *in, const char *fn)
{
	int			elemsize = gs_float_size(elemtype);
	int			device = place(GS_WORK_SUM, n, elemsize, 0, fn);
	StreamCall	c = {0};
	GsRequest	req;
	GsResponse	resp;

	if (device < 0)
		return -1;
	sent_request(&req, GS_OP_SUM, elemtype, device);
	c.n = n;
	c.chunk = gs_chunk_elems(elemsize);
	c.elemsize = elemsize;
	c.values = values;
	c.in = in;
	if (!stream_call(&req, &c, &resp, fn))
		return -1;
	gs_acc_merge(acc, &resp.acc);
	return n * elemsize;
}

/*
 * heap_stream -- a HEAP_SUM or HEAP_GROUP_SUM request of up to npages pages
 * that fill names, on the GPU the dispatch places it on (the work counted
 * as the doubles the pages' bytes would hold; under auto, its queue
 * weighed against the session reading them at session_pages_per_ms);
 * false, the failure handled, where there is none
 */
static bool
heap_stream(GsRequest *req, StreamCall *c, GsRequestOp op, int64 npages, GsHeapPagesFill fill,
			void *arg, const gs_heap_layout *layout, double session_pages_per_ms, const char *fn)
{
	int			device = place(GS_WORK_SUM, npages * (GS_HEAP_PAGE_SIZE / sizeof(double)),
							   sizeof(double),
							   session_pages_per_ms > 0 ? npages / session_pages_per_ms : 0, fn);
	GsDeviceStatus ds;

	if (device < 0)
		return false;
	sent_request(req, op, BYTEAOID, device);
	req->heap_layout = *layout;
	c->n = npages;
	c->chunk = GS_HEAP_CHUNK_PAGES;
	c->elemsize = GS_HEAP_PAGE_SIZE;
	c->pages = fill;
	c->pages_arg = arg;
	c->pages_in_place = gs_device_status(device, &ds) && ds.buffers_mapped;
	return true;
}

/* gs_service_heap_sum -- see service_call.h */
int
gs_service_heap_sum(gs_exact_acc *acc, int64 *nvalues, int64 npages, GsHeapPagesFill fill,
					void *arg, const gs_heap_layout *layout, double session_pages_per_ms,
					const char *fn)
{
	StreamCall	c = {0};
	GsRequest	req;
	GsResponse	resp;

	if (!heap_stream(&req, &c, GS_OP_HEAP_SUM, npages, fill, arg, layout, session_pages_per_ms,
					 fn) ||
		!stream_call(&req, &c, &resp, fn))
		return -1;
	if (resp.refused > 0 || resp.values < 0 || resp.values > npages * GS_HEAP_MAX_TUPLES)
		return 0;
	gs_acc_merge(acc, &resp.acc);
	*nvalues += resp.values;
	return 1;
}

/* gs_service_heap_group_sum -- see service_call.h */
int
gs_service_heap_group_sum(GsGroupOut *groups, int64 *ngroups, uint32 capacity, int64 npages,
						  GsHeapPagesFill fill, void *arg, int nkeys,
						  const gs_heap_layout *key_layouts, const gs_heap_layout *layout,
						  double session_pages_per_ms, const char *fn)
{
	StreamCall	c = {0};
	GsRequest	req;
	GsResponse	resp;

	Assert(nkeys >= 1 && nkeys <= GS_HEAP_MAX_KEYS);
	if (!heap_stream(&req, &c, GS_OP_HEAP_GROUP_SUM, npages, fill, arg, layout,
					 session_pages_per_ms, fn))
		return -1;
	memcpy(req.heap_key_layouts, key_layouts, sizeof(gs_heap_layout) * nkeys);
	req.heap_nkeys = nkeys;
	req.group_capacity = capacity;
	/*
	 * room in the ring for the groups of a table half full: a ring has at
	 * least two slots where the call has two chunks or more
	 */
	c.max_groups = capacity / 2 + 1;
	c.min_slot_bytes = c.max_groups * (int64) sizeof(GsGroupOut);
	if (npages > GS_HEAP_CHUNK_PAGES)
		c.min_slot_bytes = (c.min_slot_bytes + 1) / 2;
	c.groups = groups;
	if (!stream_call(&req, &c, &resp, fn))
		return -1;
	if (resp.refused > 0 || resp.groups_full)
		return 0;
	*ngroups = resp.groups;
	return 1;
}

/* gs_service_sum_stored -- see service_call.h */
bool
gs_service_sum_stored(FunctionCallInfo fcinfo, int argno, Oid elemtype, const GsStoredKey *key,
					  int device, GsResponse *resp, const char *fn)
{
	int			elemsize = gs_float_size(elemtype);
	StreamCall	c = {0};
	GsArrayStream stream;
	GsArrayInput in;
	GsRequest	req;
	bool		ok;

	sent_request(&req, GS_OP_SUM, elemtype, device);
	req.keys[0] = *key;
	req.stream_keep = true;
	c.chunk = gs_chunk_elems(elemsize);
	c.elemsize = elemsize;
	if (gs_array_stream_open(&stream, fcinfo, argno, elemtype, c.chunk, fn, "vals"))
	{
		/* its TOAST slices straight into the staging area */
		c.stored = &stream;
		c.n = stream.in.nelems;
		req.lbound = stream.lbound;
	}
	else
	{
		gs_array_open(&in, gs_getarg_array(fcinfo, argno), elemtype, fn, "vals");
		c.n = in.nelems;
		c.values = in.data;
		c.in = &in;
		req.lbound = ARR_NDIM(in.array) > 0 ? ARR_LBOUND(in.array)[0] : 1;
	}
	ok = stream_call(&req, &c, resp, fn);
	if (c.stored)
		gs_array_stream_close(&stream);
	return ok;
}

/* gs_service_prefix_sum -- see service_call.h */
int64
gs_service_prefix_sum(double *out, const char *values, int64 n, Oid elemtype, bool exclusive,
					  const GsArrayInput *in, gs_exact_acc *carry, const char *fn)
{
	int			elemsize = gs_float_size(elemtype);
	int			device = place(GS_WORK_PREFIX_SUM, n, elemsize, 0, fn);
	StreamCall	c = {0};
	GsRequest	req;
	GsResponse	resp;

	if (device < 0)
		return -1;
	sent_request(&req, GS_OP_PREFIX_SUM, elemtype, device);
	req.exclusive = exclusive;
	req.carry = *carry;
	c.n = n;
	c.chunk = gs_chunk_elems(sizeof(double));
	c.elemsize = elemsize;
	c.values = values;
	c.in = in;
	c.out = (char *) out;
	c.out_size = sizeof(double);
	if (!stream_call(&req, &c, &resp, fn))
		return -1;
	*carry = resp.acc;
	return n * (elemsize + (int64) sizeof(double));
}

/* gs_service_compact -- see service_call.h */
int64
gs_service_compact(Oid result_type, const GsArrayInput *vals, const uint8 *keep, int64 n,
				   char *out, int64 *kept, const char *fn)
{
	bool		indices = result_type == INT4OID;
	int			size = indices ? sizeof(int32) : gs_float_size(result_type);
	int			device = place(GS_WORK_COMPACT, n, size, 0, fn);
	StreamCall	c = {0};
	GsRequest	req;
	GsResponse	resp;

	if (device < 0)
		return -1;
	c.n = n;
	c.chunk = gs_chunk_elems(Max(indices ? 1 : size + 1, size));
	c.out = out;
	c.out_size = size;
	c.counted = true;
	if (indices)
	{
		/* the flags are the array sent; the positions come back */
		sent_request(&req, GS_OP_COMPACT_INDICES, BOOLOID, device);
		c.elemsize = 1;
		c.values = (const char *) keep;
	}
	else
	{
		/* the values are the array sent, the flags after them; the kept values come back */
		sent_request(&req, GS_OP_COMPACT, result_type, device);
		c.elemsize = size;
		c.values = vals->data;
		c.in = vals;
		c.keep = keep;
	}
	if (!stream_call(&req, &c, &resp, fn))
		return -1;
	*kept = c.total;
	return n * (indices ? 1 : size + 1) + c.total * size;
}

/*
 * stream_stored -- run `req` over the stored array of `stream` (stored
 * value `key`), and COMPACT's flags where req->stream_flags_cached names
 * them (keys[2]): from the device cache where it holds them, else through
 * the staging area into the cache (*loaded), the values' TOAST slices and
 * the flags as c reads them; as stream_call, the answer `invalid` where
 * the cache's array is not the argument's
 */
static bool
stream_stored(GsRequest *req, StreamCall *c, GsArrayStream *stream, const GsStoredKey *key,
			  bool *loaded, GsResponse *resp, const char *fn)
{
	req->keys[0] = *key;
	req->lbound = stream->lbound;
	c->n = stream->in.nelems;
	c->cached = true;
	c->flags_cached = req->stream_flags_cached;
	*loaded = false;
	for (;;)
	{
		int			asked = (c->cached ? 1 : 0) | (c->flags_cached ? 1 << 2 : 0);

		if (!stream_call(req, c, resp, fn) || !resp->missing)
			return resp->ok;
		if ((resp->missing & ~asked) != 0)
		{
			resp->ok = false;
			strlcpy(resp->error, "the GPU service found missing what was not asked of its cache",
					sizeof(resp->error));
			gs_service_failed(resp, fn);
			return false;
		}
		/* what is not cached goes through the staging area into the cache */
		if (resp->missing & 1)
		{
			c->cached = false;
			c->stored = stream;
			req->stream_keep = true;
		}
		if (resp->missing & (1 << 2))
		{
			c->flags_cached = req->stream_flags_cached = false;
			req->stream_flags_keep = true;
		}
		req->after_load = true; /* the hits were counted by the first request */
		*loaded = true;
	}
}

/* gs_service_prefix_sum_stored -- see service_call.h */
bool
gs_service_prefix_sum_stored(struct GsArrayStream *stream, const GsStoredKey *key,
							 Oid elemtype, bool exclusive, int device, double *out,
							 bool *loaded, GsResponse *resp, const char *fn)
{
	StreamCall	c = {0};
	GsRequest	req;

	sent_request(&req, GS_OP_PREFIX_SUM, elemtype, device);
	req.exclusive = exclusive;
	c.chunk = gs_chunk_elems(sizeof(double));
	c.elemsize = gs_float_size(elemtype);
	c.out = (char *) out;
	c.out_size = sizeof(double);
	return stream_stored(&req, &c, stream, key, loaded, resp, fn);
}

/* gs_service_compact_stored -- see service_call.h */
bool
gs_service_compact_stored(struct GsArrayStream *stream, const GsStoredKey *key, Oid elemtype,
						  const GsFlags *keep, int device, char *out, int64 *kept,
						  bool *loaded, bool *flags_cached, GsResponse *resp, const char *fn)
{
	int			size = gs_float_size(elemtype);
	StreamCall	c = {0};
	GsRequest	req;

	sent_request(&req, GS_OP_COMPACT, elemtype, device);
	if (keep->key != NULL)
	{
		req.keys[2] = *keep->key;
		req.stream_flags_cached = true;
	}
	c.chunk = gs_chunk_elems(size + 1);
	c.elemsize = size;
	c.keep = keep->bytes;
	c.keep_stored = keep->bytes ? NULL : keep->stored;
	c.out = out;
	c.out_size = size;
	c.counted = true;
	if (!stream_stored(&req, &c, stream, key, loaded, resp, fn))
		return false;
	*kept = c.total;
	*flags_cached = c.flags_cached;
	return true;
}

/*
 * graph_request -- note in *req the CSR arrays of csr (checked by the
 * caller, its column indexes below ncols) as the first two arrays it
 * sends; the bytes they take in its data (graph_pieces)
 */
static int64
graph_request(GsRequest *req, const GsCsr *csr, int64 ncols)
{
	req->sent_nelems[0] = (int64) csr->nrows + 1;
	req->sent_nelems[1] = csr->nnz;
	/* bounds, as the caller's checks found them (csr_check.h) */
	req->sent_facts[0].row_ptr = true;
	req->sent_facts[0].min = 0;
	req->sent_facts[0].max = req->sent_facts[0].last = csr->nnz;
	req->sent_facts[1].min = 0;
	req->sent_facts[1].max = (int32) Max(ncols - 1, 0);
	req->sent_facts[1].last = csr->nnz > 0 ? csr->col_idx[csr->nnz - 1] : 0;
	return sent_bytes((int64) csr->nrows + 1, sizeof(int32)) + sent_bytes(csr->nnz, sizeof(int32));
}

/*
 * A part of a request's data that send_whole copies in: `bytes` at offset
 * `off` of the data, from `src`
 */
typedef struct DataPiece
{
	int64		off;
	const void *src;
	int64		bytes;
} DataPiece;

/* graph_pieces -- the arrays graph_request noted, as pieces[0] and [1] */
static void
graph_pieces(const GsCsr *csr, DataPiece *pieces)
{
	pieces[0].off = 0;
	pieces[0].src = csr->row_ptr;
	pieces[0].bytes = sizeof(int32) * ((int64) csr->nrows + 1);
	pieces[1].off = sent_bytes((int64) csr->nrows + 1, sizeof(int32));
	pieces[1].src = csr->col_idx;
	pieces[1].bytes = sizeof(int32) * csr->nnz;
}

/* A request streamed whole (send_whole): what its fill and drain work on */
typedef struct WholeStream
{
	const DataPiece *pieces;
	int			npieces;
	int64		in_bytes;		/* of the data */
	int64		chunk;			/* bytes a chunk */
	int64		nin;			/* the data's chunks; the answer's follow */
	char	   *out;			/* the answer */
	int64		out_bytes;
} WholeStream;

/* fill_whole -- chunk k of the data into its slot, on the copy workers (GsStreamFill) */
static void
fill_whole(int64 k, char *slot, void *arg)
{
	WholeStream *w = (WholeStream *) arg;
	int64		a = k * w->chunk;
	int64		b = Min(a + w->chunk, w->in_bytes);
	int			i;

	/* an answer's chunk: the slot is free again, nothing to write */
	for (i = 0; k < w->nin && i < w->npieces; i++)
	{
		const DataPiece *p = &w->pieces[i];
		int64		lo = Max(a, p->off);
		int64		hi = Min(b, p->off + p->bytes);

		if (lo < hi)
			gs_copy(slot + GS_STREAM_HEADER + (lo - a), (const char *) p->src + (lo - p->off),
					hi - lo);
	}
	gs_chunk_done(k);
}

/* drain_whole -- chunk k's part of the answer out of its slot (GsStreamDrain) */
static void
drain_whole(int64 k, const char *slot, void *arg)
{
	WholeStream *w = (WholeStream *) arg;
	int64		a = (k - w->nin) * w->chunk;

	if (k >= w->nin)
		gs_copy(w->out + a, slot + GS_STREAM_HEADER, Min(w->chunk, w->out_bytes - a));
}

/*
 * send_whole -- send `req`, an SPMV or PAGERANK whose data is `pieces`
 * (in_bytes in all) and whose answer of `expect` elements is out_bytes
 * into `out`: streamed through a ring of slots (GsRequest.stream_in_bytes)
 * where they take more than one slot, so that the service uploads a chunk
 * while the session copies the next; else in one piece of memory.  As
 * send(): false, the failure handled, where the service did not answer so;
 * else true with the answer in *resp.
 */
static bool
send_whole(GsRequest *req, const DataPiece *pieces, int npieces, int64 in_bytes, void *out,
		   int64 out_bytes, int64 expect, GsResponse *resp, const char *fn)
{
	int64		chunk = (int64) gs_chunk_bytes() - STREAM_SLOT_ALIGN;
	WholeStream w = {pieces, npieces, in_bytes, chunk, 0, out, out_bytes};
	GsRequestData *rd;
	int64		nchunks;
	int			slots;
	int			i;
	bool		ok;

	if (in_bytes + out_bytes <= chunk)
	{
		if ((rd = gs_request_data(req, 0, in_bytes + out_bytes, fn)) == NULL)
			return false;
		for (i = 0; i < npieces; i++)
			memcpy(rd->addr + pieces[i].off, pieces[i].src, pieces[i].bytes);
		if (!send(req, rd, resp, expect, 0, fn))
			return false;
		memcpy(out, rd->addr + in_bytes, out_bytes);
		gs_request_data_release(rd);
		return true;
	}
	w.nin = gs_stream_whole_chunks(in_bytes, chunk);
	nchunks = w.nin + gs_stream_whole_chunks(out_bytes, chunk);
	req->stream_chunk = chunk;
	req->stream_in_bytes = in_bytes;
	req->stream_out_bytes = out_bytes;
	req->stream_slot_bytes = TYPEALIGN(STREAM_SLOT_ALIGN, GS_STREAM_HEADER + chunk);
	slots = (int) Min(nchunks, GS_STREAM_MAX_SLOTS);
	gs_copy_workers_begin(fn);
	if ((rd = gs_request_ring(req, req->stream_slot_bytes, &slots, fn)) == NULL)
		return false;
	req->stream_slots = slots;
	ok = gs_service_try_stream(req, rd->addr, nchunks, fill_whole, drain_whole, &w, resp);
	gs_request_data_release(rd);
	if (ok && (resp->missing || resp->invalid || resp->nelems != expect))
	{
		resp->ok = ok = false;
		resp->gpu_failed = false;
		strlcpy(resp->error, "the GPU service did not take the values sent", sizeof(resp->error));
	}
	if (!ok)
		gs_service_failed(resp, fn);
	return ok;
}

/* gs_service_spmv -- see service_call.h */
int64
gs_service_spmv(const GsCsr *csr, const void *vals, const void *x, int64 ncols, void *y,
				Oid elemtype, const char *fn)
{
	int			elemsize = gs_float_size(elemtype);
	int			device = place(GS_WORK_SPMV, csr->nnz, elemsize, 0, fn);
	int64		graph_bytes,
				in_bytes;
	GsRequest	req;
	GsResponse	resp;
	DataPiece	pieces[4];

	if (device < 0)
		return -1;
	sent_request(&req, GS_OP_SPMV, elemtype, device);
	graph_bytes = graph_request(&req, csr, ncols);
	req.sent_nelems[2] = csr->nnz;
	req.nelems = ncols;
	in_bytes = graph_bytes + sent_bytes(csr->nnz, elemsize);
	graph_pieces(csr, pieces);
	pieces[2].off = graph_bytes;
	pieces[2].src = vals;
	pieces[2].bytes = csr->nnz * elemsize;
	pieces[3].off = in_bytes;
	pieces[3].src = x;
	pieces[3].bytes = ncols * elemsize;
	if (!send_whole(&req, pieces, 4, in_bytes + ncols * elemsize, y,
					(int64) csr->nrows * elemsize, csr->nrows, &resp, fn))
		return -1;
	return in_bytes + (ncols + csr->nrows) * elemsize;
}

/* gs_service_pagerank -- see service_call.h */
int64
gs_service_pagerank(const GsCsr *csr, double damping, double tolerance, int32 max_iterations,
					double *rank, int *iterations, double *residual, const char *fn)
{
	int			device = place(GS_WORK_PAGERANK, csr->nnz, sizeof(double), 0, fn);
	int64		in_bytes;
	GsRequest	req;
	GsResponse	resp;
	DataPiece	pieces[2];

	if (device < 0)
		return -1;
	sent_request(&req, GS_OP_PAGERANK, FLOAT8OID, device);
	in_bytes = graph_request(&req, csr, csr->nrows);
	req.damping = damping;
	req.tolerance = tolerance;
	req.max_iterations = max_iterations;
	graph_pieces(csr, pieces);
	if (!send_whole(&req, pieces, 2, in_bytes, rank, sizeof(double) * (int64) csr->nrows,
					csr->nrows, &resp, fn))
		return -1;
	*iterations = resp.iterations;
	*residual = resp.residual;
	return in_bytes + 2 * sizeof(double) * (int64) csr->nrows;
}
