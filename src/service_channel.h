/*-------------------------------------------------------------------------
 *
 * service_channel.h
 *	  The channels between sessions and the GPU service: one request at a
 *	  time per session, in shared memory, with latches to wake each side.
 *
 * A session takes a free channel at its first request and keeps it until
 * it exits (and one more per GPU for a call split over several).  It
 * posts a request and waits on its latch for the answer, answering a
 * cancel or a statement timeout at once.  A request it stops waiting for
 * (an ERROR, a cancel, its exit) is abandoned: the service stops it at its
 * next check and frees the channel, and the session takes another one for
 * its next call.  A request that the service cannot finish because it
 * stopped is posted again once the service is back under
 * gpuscan.device = gpu, else it ends in an ERROR (gs_service_call) or
 * the CPU path (gs_service_try_call).
 *
 *-------------------------------------------------------------------------
 */
#ifndef SERVICE_CHANNEL_H
#define SERVICE_CHANNEL_H

#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "storage/dsm.h"
#include "storage/latch.h"

#include "../common/gpuscan_exact.h"
#include "device_cache.h"
#include "gpu_service.h"
#include "stored_array.h"

/*
 * What a request asks of the service.  The work on arrays takes them from
 * the device cache by their keys, or, where the request is `sent`, from
 * its data: a session's values in memory, copied to the device for the
 * one call (service_call.h).
 */
typedef enum GsRequestOp
{
	GS_OP_DEVICES,				/* the service's GPUs */
	GS_OP_LOAD,					/* a stored array into the device cache */
	GS_OP_SUM,					/* the exact sum of an array */
	GS_OP_PREFIX_SUM,			/* the prefix sums of an array */
	GS_OP_COMPACT,				/* the values of an array that flags keep */
	GS_OP_COMPACT_INDICES,		/* the positions of the true flags of a boolean
								 * array */
	GS_OP_SPMV,					/* y = A x */
	GS_OP_PAGERANK,				/* PageRank of a graph */
	GS_OP_CACHE_RESET			/* empty the device cache */
} GsRequestOp;

/* arrays a request names or sends: SpMV's row_ptr, col_idx and vals */
#define GS_REQUEST_KEYS		3

/* where each array a request sends starts in its data: a multiple of this */
#define GS_SENT_ALIGN		8

typedef struct GsRequest
{
	GsRequestOp op;
	int			device;			/* the GPU whose process runs it (placement.h) */
	/* the stored arrays: keys[0] for LOAD and SUM, whose keys[1] names
	 * a part of it (gs_part_key) or is zeros for the whole array */
	GsStoredKey keys[GS_REQUEST_KEYS];
	/*
	 * Or the arrays themselves (sent): sent_nelems[i] elements of array i
	 * (the types the op takes: service_ops.h), one after the other at the
	 * start of the data, each from a multiple of GS_SENT_ALIGN; the op's
	 * own data follows them.  The facts of the integer arrays, as for LOAD.
	 */
	bool		sent;
	int64		sent_nelems[GS_REQUEST_KEYS];
	GsIntArrayFacts sent_facts[GS_REQUEST_KEYS];
	Oid			elemtype;		/* LOAD, SUM, PREFIX_SUM, COMPACT: of the array;
								 * SPMV: of vals, x and y */
	int64		nelems;			/* LOAD: elements in data; SPMV: of x;
								 * COMPACT: flags in data;
								 * COMPACT_INDICES: room for positions */
	int32		lbound;			/* LOAD: the array's lower bound */
	bool		exclusive;		/* PREFIX_SUM: exclusive sums */
	gs_exact_acc carry;			/* PREFIX_SUM: the exact sum of what came before */
	int32		first;			/* COMPACT_INDICES: the position of the first flag */
	GsIntArrayFacts facts;		/* LOAD of an integer array */
	dsm_handle	data;			/* LOAD: the elements; SPMV: x, then room for y;
								 * COMPACT: the flags (a byte each), then room
								 * for the kept values;
								 * COMPACT_INDICES: room for the positions;
								 * PAGERANK: room for the ranks;
								 * PREFIX_SUM: room for the sums */
	bool		staged;			/* the data is in the staging area, not in `data` ... */
	int64		staging_off;	/* ... at this offset ... */
	int64		staging_len;	/* ... of this many bytes (service_staging.h) */
	/*
	 * Streamed (SUM, PREFIX_SUM, COMPACT, COMPACT_INDICES that send their
	 * arrays): the data is a ring of stream_slots slots of
	 * stream_slot_bytes, through which the sent array goes chunk by chunk,
	 * stream_chunk elements a chunk (the last one shorter): see "Streamed
	 * requests" below.  stream_slots 0: not streamed.
	 */
	int32		stream_slots;
	int64		stream_slot_bytes;
	int64		stream_chunk;
	/*
	 * SPMV and PAGERANK streamed whole (see "Streamed requests"): the
	 * bytes of their data, sent arrays and the op's own input, and of the
	 * answer; stream_chunk is in bytes for them
	 */
	int64		stream_in_bytes;
	int64		stream_out_bytes;
	/*
	 * A streamed call on stored array keys[0] (lower bound lbound) that
	 * the cache does not hold: the chunks go into new device memory, which
	 * then joins the cache as that array (not_cached where it does not fit)
	 */
	bool		stream_keep;
	/*
	 * A streamed PREFIX_SUM or COMPACT on stored array keys[0] that the
	 * cache holds: the values come from the cache, not through the slots
	 * (COMPACT's flags still do); answered `missing` before its first
	 * chunk where the cache lacks it, `invalid` where the cached array is
	 * not of sent_nelems[0] elements
	 */
	bool		stream_cached;
	/* PAGERANK, of keys[0] (row_ptr) and keys[1] (col_idx) */
	double		damping;
	double		tolerance;
	int32		max_iterations;
	bool		after_load;		/* on cached arrays: the session just loaded
								 * what was missing: no hits counted */
	/* set by gs_service_call from the debug settings below */
	int			delay_ms;		/* the service waits this long first */
	bool		fault;			/* the service fails with an ERROR (and restarts) */
} GsRequest;

/*
 * gs_sent_types -- the types of the arrays a sent request of `op` carries
 * (elemtype: the request's), into types[]; how many (0: op sends none)
 */
static inline int
gs_sent_types(GsRequestOp op, Oid elemtype, Oid *types)
{
	switch (op)
	{
		case GS_OP_SUM:
		case GS_OP_PREFIX_SUM:
		case GS_OP_COMPACT:
			types[0] = elemtype;
			return 1;
		case GS_OP_COMPACT_INDICES:
			types[0] = BOOLOID;
			return 1;
		case GS_OP_SPMV:
			types[0] = types[1] = INT4OID;
			types[2] = elemtype;
			return 3;
		case GS_OP_PAGERANK:
			types[0] = types[1] = INT4OID;
			return 2;
		default:
			return 0;
	}
}

/*
 * Streamed requests.  A chunked call on values in memory posts one request
 * whose data is a ring of slots in its room of the staging area.  Chunk k
 * goes through slot k % stream_slots: the session writes its input there
 * (its helper threads copying) and counts it; the service uploads it, runs
 * the kernel on it (the sum's accumulator and the prefix sums' carry stay
 * on the GPU from chunk to chunk), writes the chunk's answer into the slot
 * after the input and counts it; the session copies the answer out and
 * reuses the slot.  So the session copies chunk k + 1 while the service
 * works on chunk k.  A slot: a header (the chunk's answer count, for the
 * compactions), the input (the values, and the flags of COMPACT after
 * them), then the room for the answer, each from a multiple of
 * GS_SENT_ALIGN.  Where the values come from the device cache
 * (stream_cached), a slot has no room for them: the session only counts
 * the slot free (and writes COMPACT's flags), the service writes the
 * chunk's answer.
 */
#define GS_STREAM_MAX_SLOTS	4
#define GS_STREAM_HEADER	64

/*
 * SpMV and PageRank, whose work needs their whole input, stream it the
 * same way: their data as a request's data is laid out (the sent arrays,
 * then the op's own input: SpMV's x) goes through the ring in chunks of
 * stream_chunk bytes, each at GS_STREAM_HEADER in its slot, the service
 * uploading each array's part of a chunk as it comes; then their answer
 * (y, the ranks) comes back the same way, chunk by chunk, counted on after
 * the input's chunks: chunk k of the stream is input where k is below
 * gs_stream_whole_chunks(stream_in_bytes, ...), answer after.
 */
static inline bool
gs_stream_whole(GsRequestOp op)
{
	return op == GS_OP_SPMV || op == GS_OP_PAGERANK;
}

/* gs_stream_whole_chunks -- the chunks of `bytes` bytes in chunks of `chunk` bytes */
static inline int64
gs_stream_whole_chunks(int64 bytes, int64 chunk)
{
	return (bytes + chunk - 1) / chunk;
}

typedef struct GsStreamLayout
{
	int64		values;			/* offsets in a slot: the values (or COMPACT_INDICES' flags) */
	int64		flags;			/* COMPACT: the flags */
	int64		answer;			/* PREFIX_SUM, COMPACT, COMPACT_INDICES: the answer */
	int64		bytes;			/* the slot's size */
} GsStreamLayout;

/*
 * gs_stream_layout -- where the parts of a slot of a streamed `op` over
 * chunks of `chunk` elements of elemsize bytes (1 for COMPACT_INDICES'
 * flags) lie, the values in the slot or, where `cached`, in the device
 * cache; false where op does not stream
 */
static inline bool
gs_stream_layout(GsRequestOp op, int elemsize, int64 chunk, bool cached, GsStreamLayout *l)
{
	l->values = GS_STREAM_HEADER;
	l->flags = l->answer = l->values + (cached ? 0 : TYPEALIGN(GS_SENT_ALIGN, chunk * elemsize));
	switch (op)
	{
		case GS_OP_SUM:
			l->bytes = l->answer;
			return true;
		case GS_OP_PREFIX_SUM:
			l->bytes = l->answer + chunk * (int64) sizeof(double);
			return true;
		case GS_OP_COMPACT:
			l->answer = l->flags + TYPEALIGN(GS_SENT_ALIGN, chunk);
			l->bytes = l->answer + chunk * elemsize;
			return true;
		case GS_OP_COMPACT_INDICES:
			l->bytes = l->answer + chunk * (int64) sizeof(int32);
			return true;
		default:
			return false;
	}
}

/*
 * For the tests (superuser): gpuscan.debug_service_delay_ms holds each
 * request of the session in the service this long, gpuscan.debug_service_fault
 * makes the service fail while it runs one
 */
extern int	gpuscan_debug_service_delay_ms;
extern bool gpuscan_debug_service_fault;

/* For the tests (superuser): the session's data never goes through the staging area */
extern bool gpuscan_debug_service_segments;

typedef struct GsServiceDevice
{
	char		name[128];
	uint64		total_memory;	/* bytes */
	int			multiprocessors;
	int			cc_major;
	int			cc_minor;
} GsServiceDevice;

typedef struct GsResponse
{
	bool		ok;
	char		error[256];		/* what failed, where !ok */
	bool		gpu_failed;		/* !ok because the GPU failed (not the request) */
	bool		retry;			/* !ok because the service is stopping: the request
								 * may be posted again once it is back */
	/* the requests on cached arrays: keys[i] not cached where bit i is set: LOAD them */
	int			missing;
	/* LOAD: the array is larger than the cache may hold (or than its room) */
	bool		not_cached;
	/* SPMV, PAGERANK: the arrays do not make a matrix for this x, or a
	 * graph (the session's checks say why); these and PREFIX_SUM: the
	 * session's memory has no room for the result */
	bool		invalid;
	int64		nelems;			/* SUM, PREFIX_SUM: of the array;
								 * COMPACT: the values kept;
								 * COMPACT_INDICES: the positions (also
								 * where invalid: more than the room);
								 * SPMV: of y; PAGERANK: nodes */
	int32		lbound;			/* PREFIX_SUM: of the array */
	int64		nnz;			/* SPMV, PAGERANK: of the matrix */
	int			iterations;		/* PAGERANK: done */
	double		residual;		/* PAGERANK: the last L1 change */
	gs_exact_acc acc;			/* SUM: the sum; PREFIX_SUM: the carry
								 * with the array's values added */
	/* GS_OP_CACHE_RESET */
	int64		entries_freed;
	int			device_count;	/* GS_OP_DEVICES: all the service found ... */
	GsServiceDevice devices[GS_SERVICE_MAX_DEVICES];	/* ... of which the first 16 */
} GsResponse;

/*
 * Channels: one per possible backend, and as many again for the second and
 * later requests of calls split over several GPUs; a session holds at most
 * GS_SESSION_CHANNELS
 */
#define GS_SESSION_CHANNELS	GS_SERVICE_MAX_DEVICES
#define GS_CHANNEL_COUNT	(2 * MaxBackends)

/* ---- shared memory (from gpu_service.c's hooks) ---- */

extern Size gs_channels_shmem_size(void);
extern void gs_channels_shmem_init(void);

/* ---- the session's side ---- */

/*
 * Send `req` to the service and wait for its answer in *resp.  ERROR
 * (SQLSTATE 55000) where the library was not preloaded, the service is
 * not running or stops before it answers, or no channel is free; ERROR
 * (SQLSTATE 38000) where the service answers that the request failed.
 */
extern void gs_service_call(const GsRequest *req, GsResponse *resp);

/*
 * The same, but where the service is not running, stops before it answers
 * or answers that the request failed, return false with the reason in
 * resp->error instead of an ERROR (so that the caller can run the work on
 * the CPU).  A cancel or a timeout still ends in an ERROR.
 */
extern bool gs_service_try_call(const GsRequest *req, GsResponse *resp);

/*
 * The same for reqs[0 .. n-1] (n at most GS_SESSION_CHANNELS), posted at
 * once on n channels of this session, so that the GPUs they name work on
 * them at the same time: true if every one was answered ok; false with
 * each failure in its resps[i].error (also where no channel is free for a
 * second request).
 */
extern bool gs_service_try_call_many(const GsRequest *reqs, GsResponse *resps, int n);

/*
 * A streamed request (see "Streamed requests" above): post `req`, whose
 * data is `room` (gs_channel_staging or a segment's), then for each chunk
 * k: wait for its slot to be free, fill(k, slot, arg) writes its input
 * there, and once the service answered it, drain(k, slot, arg) reads the
 * answer (in the order of k; drain may be NULL); then wait for the last
 * answer in *resp.  As gs_service_try_call: false with the reason in
 * resp->error where the service could not run it (or stopped: then, under
 * gpuscan.device = gpu, the request is posted again from its first chunk).
 */
typedef void (*GsStreamFill) (int64 k, char *slot, void *arg);
typedef void (*GsStreamDrain) (int64 k, const char *slot, void *arg);

extern bool gs_service_try_stream(const GsRequest *req, char *room, int64 nchunks,
								  GsStreamFill fill, GsStreamDrain drain, void *arg,
								  GsResponse *resp);

/*
 * Take this session's first n channels now: false where one is not free
 * (the caller then does not split its call)
 */
extern bool gs_service_reserve_channels(int n);

/*
 * Room for `bytes` in the service's staging area (service_staging.h) for
 * the next request on this session's channel `slot`, or where that much is
 * not free, for `least` bytes (as much as `bytes` at most), noted in *req
 * (staging_len: how much): its
 * address, or NULL where there is none (no area, no room free, or the
 * channel still busy with a request the session stopped waiting for): the
 * caller then uses a segment of its own.  The room stays the channel's
 * until gs_channel_staging_done, the end of the transaction or the
 * session's exit.
 */
extern char *gs_channel_staging(int slot, Size bytes, Size least, GsRequest *req);

/* The session has read the answer in its channel `slot`'s staging */
extern void gs_channel_staging_done(int slot);

/* Channels taken by sessions now, and how many there are */
extern void gs_channels_in_use(int *in_use, int *total);

/* ---- the service's side ---- */

/*
 * executes one request; runs in one of the service process's threads,
 * holding the PostgreSQL lock (service_workers.h)
 */
typedef void (*GsServeRequest) (const GsRequest *req, GsResponse *resp);

/*
 * Hand the requests posted to GPU `device`'s process in its start `starts`
 * to the process's free threads (the rest wait for one); each thread hands
 * its answer back and sets the process's latch.  The caller is the main
 * thread, holding the PostgreSQL lock.
 */
extern void gs_channels_serve(int device, int starts, GsServeRequest serve);

/* Where GPU `device`'s process publishes its latch, for sessions to wake it */
extern void gs_channels_set_service_latch(int device, Latch *latch);

/*
 * Requests waiting for or running on each GPU's current process:
 * busy[0 .. ndevices-1]
 */
extern void gs_channels_busy(int *busy, int ndevices);

/*
 * Free the channels that sessions abandoned while an earlier start of GPU
 * device's process ran their requests (the current start is `starts`):
 * nobody else will.  The service's main thread, at its start and now and
 * then.
 */
extern void gs_channels_sweep(int device, int starts);

/*
 * In a service thread running a streamed request: wait until the session
 * has written chunk k into its slot (false where the session stopped
 * waiting or the service is stopping first); then, once the slot's answer
 * is written (or its input read), hand chunk k back to the session.  The
 * PostgreSQL lock is not held while waiting.
 */
extern bool gs_stream_chunk_in(int64 k);
extern void gs_stream_chunk_out(int64 k);

/*
 * In a service thread: whether the session stopped waiting for the
 * request the thread runs (a cancel, a timeout, its exit): the request
 * then stops at once, its answer unread
 */
extern bool gs_request_abandoned(void);

/* Define the tests' settings of the requests to the service; from _PG_init */
extern void gs_channel_init(void);

#endif							/* SERVICE_CHANNEL_H */
