/*-------------------------------------------------------------------------
 *
 * protocol.h
 *	  The one request format that the sessions and the GPU service share:
 *	  what a request asks (GsRequest), how its data and a streamed
 *	  request's chunks are laid out, and the answer (GsResponse).  The
 *	  channels (channel.h) carry them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_PROTOCOL_H
#define GPUSCAN_PROTOCOL_H

#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "storage/dsm.h"

#include "../common/gpuscan_exact.h"
#include "../common/gpuscan_heap.h"
#include "ipc/device_cache.h"
#include "ipc/service_status.h"
#include "ipc/stored_array.h"

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
	GS_OP_CACHE_RESET,			/* empty the device cache */
	GS_OP_HEAP_SUM,				/* the exact sum of a column of raw heap pages */
	GS_OP_HEAP_GROUP_SUM		/* its exact sums per group of integer columns */
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
	int64		staging_len;	/* ... of this many bytes (staging_area.h) */
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
	/*
	 * A streamed COMPACT whose flags are stored boolean array keys[2]:
	 * stream_flags_cached, they come from the cache, not through the slots
	 * (answered `missing`, bit 2, before the first chunk where the cache
	 * lacks them, `invalid` where its array is not of sent_nelems[0]
	 * elements); stream_flags_keep, they come through the slots into new
	 * device memory, which then joins the cache as that array
	 */
	bool		stream_flags_cached;
	bool		stream_flags_keep;
	/* PAGERANK, of keys[0] (row_ptr) and keys[1] (col_idx) */
	double		damping;
	double		tolerance;
	int32		max_iterations;
	/* HEAP_SUM: the column read from each page (the pages are the sent
	 * "elements", GS_HEAP_PAGE_SIZE bytes each, elemtype BYTEAOID) */
	gs_heap_layout heap_layout;
	/* HEAP_GROUP_SUM: the grouping columns (heap_nkeys of them), and the
	 * slots of the GPU's table of groups (a power of two) */
	gs_heap_layout heap_key_layouts[GS_HEAP_MAX_KEYS];
	int32		heap_nkeys;
	uint32		group_capacity;
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
		case GS_OP_HEAP_SUM:
		case GS_OP_HEAP_GROUP_SUM:
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
 * and counts it; the session copies the answer out and reuses the slot.
 * So the session copies chunk k + 1 while the service works on chunk k.
 * A slot: a header (the chunk's answer count, for the compactions; for
 * HEAP_SUM, see below), then the input (the values, and
 * the flags of COMPACT after them), each from a multiple of GS_SENT_ALIGN.
 * The answer goes where the input began: the service has uploaded the
 * input before it writes the answer, and the slot is only as large as the
 * larger of the two: a smaller ring, more of it in the CPU's last-level
 * cache (four chunks of prefix sums of 16 MB take 64 MB, not 128).  Where
 * the values come from the device cache (stream_cached), a slot has no
 * room for them: the session only counts the slot free (and writes
 * COMPACT's flags), the service writes the chunk's answer.
 */
#define GS_STREAM_MAX_SLOTS	4
#define GS_STREAM_HEADER	64

/*
 * HEAP_SUM's chunks: up to GS_HEAP_CHUNK_PAGES pages each, named by
 * gs_heap_page_ref (common/gpuscan_heap.h) at the values' place, the
 * copies among them (at most GS_HEAP_CHUNK_COPIES) after the refs; the
 * header's two int64 say how many pages and how many copies the chunk
 * holds.  The service answers a chunk (its slot free again) only once its
 * GPU has read the pages: the session keeps them pinned until then.
 */
#define GS_HEAP_CHUNK_PAGES		2048
#define GS_HEAP_CHUNK_COPIES	256

/* the most slots of HEAP_GROUP_SUM's table of groups on the GPU */
#define GS_HEAP_MAX_GROUPS		65536

/*
 * HEAP_GROUP_SUM's answer: once every chunk is in, the service writes the
 * groups from the start of the request's ring (response.groups of them)
 */
typedef struct GsGroupOut
{
	int64		key[GS_HEAP_MAX_KEYS];	/* the request's heap_nkeys keys */
	uint32		null_keys;		/* bit j: key j is NULL (key[j] is 0) */
	int32		pad;
	uint64		count;			/* its non-NULL values */
	gs_exact_acc acc;			/* their exact sum, normalized */
} GsGroupOut;

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
	int64		in_end;

	l->values = GS_STREAM_HEADER;
	l->flags = l->values + (cached ? 0 : TYPEALIGN(GS_SENT_ALIGN, chunk * elemsize));
	/* the answer overwrites the input, which the service has uploaded by then */
	l->answer = l->values;
	switch (op)
	{
		case GS_OP_SUM:
			l->bytes = l->flags;
			return true;
		case GS_OP_HEAP_SUM:
		case GS_OP_HEAP_GROUP_SUM:
			/* chunk refs at values, then room for the copies */
			if (elemsize != GS_HEAP_PAGE_SIZE || chunk > GS_HEAP_CHUNK_PAGES)
				return false;
			l->flags = l->answer = l->values +
				TYPEALIGN(GS_SENT_ALIGN, chunk * (int64) sizeof(gs_heap_page_ref));
			l->bytes = l->flags + (int64) GS_HEAP_CHUNK_COPIES * GS_HEAP_PAGE_SIZE;
			return true;
		case GS_OP_PREFIX_SUM:
			l->bytes = Max(l->flags, l->answer + chunk * (int64) sizeof(double));
			return true;
		case GS_OP_COMPACT:
			in_end = l->flags + TYPEALIGN(GS_SENT_ALIGN, chunk);
			l->bytes = Max(in_end, l->answer + chunk * elemsize);
			return true;
		case GS_OP_COMPACT_INDICES:
			l->bytes = Max(l->flags, l->answer + chunk * (int64) sizeof(int32));
			return true;
		default:
			return false;
	}
}


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
	gs_exact_acc acc;			/* SUM, HEAP_SUM: the sum; PREFIX_SUM: the carry
								 * with the array's values added */
	int64		values;			/* HEAP_SUM: the values found */
	int64		refused;		/* HEAP_SUM: pages the walker refused (their
								 * values not in acc) */
	int64		groups;			/* HEAP_GROUP_SUM: the groups, as GsGroupOut
								 * from the start of the request's ring */
	bool		groups_full;	/* HEAP_GROUP_SUM: the GPU's table, or the
								 * ring, had no room for them all */
	/* GS_OP_CACHE_RESET */
	int64		entries_freed;
	int			device_count;	/* GS_OP_DEVICES: all the service found ... */
	GsServiceDevice devices[GS_SERVICE_MAX_DEVICES];	/* ... of which the first 16 */
} GsResponse;

#endif							/* GPUSCAN_PROTOCOL_H */
