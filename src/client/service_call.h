/*-------------------------------------------------------------------------
 *
 * service_call.h
 *	  A session's GPU work on values in memory through the GPU service.
 *
 * The GPU service, which runs where gpuscan is preloaded, runs all of the
 * server's GPU work: a session opens no CUDA context.  When the dispatch
 * (gs_use_gpu) gives a call to the GPU, the session copies its values
 * into a request (`sent`: channel.h) and reads the answer back:
 * sums, prefix sums and compaction streamed in the chunks of the CPU path
 * (gs_chunk_elems, chunks.h) through a ring of slots, the session's copy
 * workers filling the next chunk while the service works on the last
 * ("Streamed requests", channel.h), with the same interrupt points
 * (the exact accumulators and the prefix sums' carry join the chunks to
 * the same bits as one call); SpMV and PageRank whole.
 *
 * Each function here returns what it moved (bytes), or -1 where the service
 * could not run the call under gpuscan.device = auto (said at DEBUG1): the
 * caller then runs it on the CPU.  Under gpuscan.device = gpu that is an
 * ERROR instead.  *acc, *carry, *kept, *iterations and *residual change
 * only where the call succeeds.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SERVICE_CALL_H
#define GPUSCAN_SERVICE_CALL_H

#include "postgres.h"

#include "fmgr.h"
#include "storage/dsm.h"

#include "../common/gpuscan_exact.h"
#include "pg/array_input.h"
#include "ipc/device_cache.h"
#include "ipc/channel.h"
#include "cpu/csr_check.h"

/*
 * The memory that carries a request's data to the service and its answer
 * back: the room of the session's channel in the service's staging area,
 * or, where it has none to give, a segment of the request's own
 */
typedef struct GsRequestData
{
	int			slot;			/* the session's channel whose staging it is ... */
	dsm_segment *seg;			/* ... or the segment, where not staged */
	char	   *addr;
} GsRequestData;

/*
 * Memory for `bytes` of req's data and answer, on the session's channel
 * `slot`, noted in *req: its room in the staging area, else a segment of
 * its own.  Where no segment can be made either (too many, or no room left
 * in /dev/shm), an ERROR (SQLSTATE 53200) under gpuscan.device = gpu, else
 * NULL (said at DEBUG1): the caller then runs the call in the session.
 */
extern GsRequestData *gs_request_data(GsRequest *req, int slot, Size bytes, const char *fn);

/*
 * The same for a streamed request's ring of *slots slots of slot_bytes
 * (channel.h): where the staging area has no room for them all,
 * room for fewer (two at least, if *slots asks that many), else a segment
 * of two; *slots gets how many it has
 */
extern GsRequestData *gs_request_ring(GsRequest *req, Size slot_bytes, int *slots,
									  const char *fn);

/* Done with what gs_request_data gave: the answer is read */
extern void gs_request_data_release(GsRequestData *rd);

/*
 * Where the service could not run the call: an ERROR with gpuscan.device =
 * gpu, else (auto) a DEBUG1 line, and the caller runs the call in the session
 */
extern void gs_service_failed(const GsResponse *resp, const char *fn);

/* What the CSR checks need of an integer array (device_cache.h) */
extern GsIntArrayFacts gs_int_facts(const int32 *v, int64 n);

/*
 * The exact sum of n values of elemtype (NULLs checked in `in`, if not
 * NULL, chunk by chunk) added into *acc
 */
extern int64 gs_service_sum(gs_exact_acc *acc, const char *values, int64 n, Oid elemtype,
							const GsArrayInput *in, const char *fn);

/*
 * Where GS_OP_HEAP_SUM's pages come from: chunk k's pages (at most max,
 * all-visible heap pages) named in refs (common/gpuscan_heap.h), and how
 * many.  A page is a buffer the source keeps pinned until the service has
 * answered the chunk (only where in_place: the GPU reads shared buffers),
 * or a copy written at copies (GS_HEAP_PAGE_SIZE bytes each, at most
 * GS_HEAP_CHUNK_COPIES, their count in *ncopies).  Fewer than max, even
 * none, once the table has no more.
 */
typedef int (*GsHeapPagesFill) (int64 k, int max, gs_heap_page_ref *refs, char *copies,
								bool in_place, int *ncopies, void *arg);

/*
 * The exact sum of layout's column over up to npages heap pages that fill
 * names, chunk by chunk (GS_HEAP_CHUNK_PAGES pages each), added into *acc,
 * the count of its values into *nvalues: 1.  0 (nothing added) where the
 * GPU's walker refused a page: the caller reads the pages it sent itself.
 * -1, the failure handled, where the service could not run it or, under
 * auto, its queue would take longer than the session reading the pages at
 * session_pages_per_ms (0: the cost model's figure for an exact sum of the
 * doubles the pages' bytes would hold) (nothing added; fill may have been
 * called).
 */
extern int	gs_service_heap_sum(gs_exact_acc *acc, int64 *nvalues, int64 npages,
								GsHeapPagesFill fill, void *arg, const gs_heap_layout *layout,
								double session_pages_per_ms, const char *fn);

/*
 * The exact sums of layout's column per group of the nkeys integer columns
 * of key_layouts (up to GS_HEAP_MAX_KEYS; NULL a value of its own) over up
 * to npages heap pages that fill names, as gs_service_heap_sum: the groups
 * written to groups (room for capacity / 2 + 1), their count in *ngroups,
 * each sum normalized: 1.  0 (nothing written) where the GPU's walker
 * refused a page or its table of `capacity` slots (a power of two) had no
 * room for the groups: the caller reads the pages it sent itself.  -1 as
 * gs_service_heap_sum's.
 */
extern int	gs_service_heap_group_sum(GsGroupOut *groups, int64 *ngroups, uint32 capacity,
									  int64 npages, GsHeapPagesFill fill, void *arg, int nkeys,
									  const gs_heap_layout *key_layouts,
									  const gs_heap_layout *layout,
									  double session_pages_per_ms, const char *fn);

/*
 * The exact sum of argument `argno`, a stored array of elemtype (key) that
 * the cache of GPU `device` does not hold, into resp->acc: streamed to the
 * GPU (from its TOAST slices where it is stored uncompressed), summed on
 * its way into the cache (resp->not_cached where it does not fit).  The
 * argument is checked as the function checks it.  False, the failure
 * handled, where the service could not run it.
 */
extern bool gs_service_sum_stored(FunctionCallInfo fcinfo, int argno, Oid elemtype,
								  const GsStoredKey *key, int device, GsResponse *resp,
								  const char *fn);

/*
 * out[0 .. n) = the prefix sums of n values of elemtype after *carry (the
 * exact sum of what came before), which then includes them
 */
extern int64 gs_service_prefix_sum(double *out, const char *values, int64 n, Oid elemtype,
								   bool exclusive, const GsArrayInput *in, gs_exact_acc *carry,
								   const char *fn);

/*
 * The elements of `vals` (of result_type, NULLs checked) whose flags keep[0
 * .. n-1] are not zero, or where result_type is INT4OID their positions
 * from 1, into out; *kept gets how many
 */
extern int64 gs_service_compact(Oid result_type, const GsArrayInput *vals, const uint8 *keep,
								int64 n, char *out, int64 *kept, const char *fn);

struct GsArrayStream;			/* array_stream.h */

/*
 * The prefix sums of a stored array of elemtype (key; `stream` opened on
 * the argument, which it checked) into out[0 .. stream->in.nelems) on GPU
 * `device`: from the device cache where it holds the array, else streamed
 * from its TOAST slices into the cache on the way (*loaded).  False, the
 * failure handled, where the service could not run it; true with
 * resp->invalid where the cached array is not the argument's (nothing
 * written then).
 */
extern bool gs_service_prefix_sum_stored(struct GsArrayStream *stream, const GsStoredKey *key,
										 Oid elemtype, bool exclusive, int device,
										 double *out, bool *loaded, GsResponse *resp,
										 const char *fn);

/*
 * A compaction's flags, a byte each (zero drops the element): in memory, or
 * the stored bytes of a boolean array without NULLs, read from its TOAST
 * slices straight into the staging area chunk by chunk; stored, and with
 * their key, they are kept in the device cache as that boolean array
 */
typedef struct GsFlags
{
	const uint8 *bytes;			/* in memory, or NULL ... */
	struct GsArrayStream *stored;	/* ... read from here */
	const GsStoredKey *key;		/* stored: their key, where the cache may keep them */
} GsFlags;

/*
 * The same for the values of a stored array of elemtype whose flags keep[0
 * .. stream->in.nelems) are not zero, into out (room for as many values as
 * flags); *kept gets how many, *flags_cached whether the flags came from
 * the cache (none read)
 */
extern bool gs_service_compact_stored(struct GsArrayStream *stream, const GsStoredKey *key,
									  Oid elemtype, const GsFlags *keep, int device, char *out,
									  int64 *kept, bool *loaded, bool *flags_cached,
									  GsResponse *resp, const char *fn);

/* y = A x, of elemtype, with A = (csr, vals) checked by the caller */
extern int64 gs_service_spmv(const GsCsr *csr, const void *vals, const void *x, int64 ncols,
							 void *y, Oid elemtype, const char *fn);

/*
 * PageRank of the graph csr (checked by the caller) into rank[0 .. nrows);
 * *iterations and *residual get the iterations done and the last L1 change
 */
extern int64 gs_service_pagerank(const GsCsr *csr, double damping, double tolerance,
								 int32 max_iterations, double *rank, int *iterations,
								 double *residual, const char *fn);

#endif							/* GPUSCAN_SERVICE_CALL_H */
