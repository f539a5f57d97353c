/*-------------------------------------------------------------------------
 *
 * pages_to_gpu.h
 *	  A table's pages named to the GPU service, call by call, for the scans
 *	  that send them (GpuscanSum's one sum, GpuscanGroupSum's groups): the
 *	  page source of a GS_OP_HEAP_SUM or GS_OP_HEAP_GROUP_SUM call
 *	  (client/service_call.h's GsHeapPagesFill).
 *
 * Each chunk of a call names the next all-visible pages (heap_blocks.h's
 * gs_heap_blocks_next_for_gpu): a buffer left pinned where the GPU reads
 * shared buffers in place, else a copy.  The pages that are not
 * all-visible on the way are read in the session.  Chunk k's buffers stay
 * pinned until the service has answered it, which it has by the time
 * chunk k + GS_STREAM_MAX_SLOTS is filled (or the call is over); a chunk
 * asked for again (the service restarted, the call posted anew) is left
 * empty, and every page the call named is read in the session once it is
 * over.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_PAGES_TO_GPU_H
#define GPUSCAN_PAGES_TO_GPU_H

#include "ipc/protocol.h"
#include "planner/heap_blocks.h"

/*
 * the most pages one call names (512 MB): their block numbers are kept, to
 * read them here if the call fails
 */
#define GS_PAGES_CALL_MAX	65536

typedef struct GsPagesToGpu
{
	GsHeapBlocks *blocks;
	/*
	 * Where a page read in the session puts its values (vals as
	 * gs_heap_blocks_next's), and what is done with them once read (nvals);
	 * both NULL where the blocks hand each tuple to their tuple_fn
	 * (gs_heap_blocks_by_tuple)
	 */
	void		(*values_at) (void *arg, double **vals);
	void		(*values_read) (void *arg, const int *nvals);
	void	   *arg;
	bool		ended;			/* no block left */
	int64		on_gpu;			/* pages the GPU read, over all calls */
	/* the current call */
	BlockNumber sent[GS_PAGES_CALL_MAX];	/* the blocks its chunks named */
	int64		nsent;
	int64		nchunks;		/* chunks filled */
	int64		not_read;		/* the first not_read of sent: to read here */
	/* chunk k's pinned buffers in pinned[k % GS_STREAM_MAX_SLOTS] */
	Buffer		pinned[GS_STREAM_MAX_SLOTS][GS_HEAP_CHUNK_PAGES];
	int			npinned[GS_STREAM_MAX_SLOTS];
} GsPagesToGpu;

/*
 * A page source (palloc'd) over blocks, whose pages read in the session go
 * through values_at and values_read (NULL, NULL where the blocks hand
 * tuples to their tuple_fn)
 */
extern GsPagesToGpu *gs_pages_to_gpu_begin(GsHeapBlocks *blocks,
										   void (*values_at) (void *arg, double **vals),
										   void (*values_read) (void *arg, const int *nvals),
										   void *arg);

/* A call starts: the pages it may name (up to GS_PAGES_CALL_MAX, at least 1) */
extern int64 gs_pages_to_gpu_start_call(GsPagesToGpu *p);

/* GsHeapPagesFill over a GsPagesToGpu (arg): chunk k of the current call */
extern int	gs_pages_to_gpu_fill(int64 k, int max, gs_heap_page_ref *refs, char *copies,
								 bool in_place, int *ncopies, void *arg);

/*
 * The current call is over: every buffer released; where the GPU did not
 * read its pages (!answered) they are read in the session.  Returns the
 * pages the GPU read in it.
 */
extern int64 gs_pages_to_gpu_end_call(GsPagesToGpu *p, bool answered);

/*
 * Up to npages more pages read in the session; after each, where stop is
 * not NULL and stop(arg) says so, it stops early (a GROUP BY's groups
 * outgrew hash_mem): false then
 */
extern bool gs_pages_to_gpu_read_here(GsPagesToGpu *p, int64 npages, bool (*stop) (void *arg));

/* Release the buffers still pinned (an unfinished scan: an ERROR, a rescan) */
extern void gs_pages_to_gpu_release(GsPagesToGpu *p);

#endif							/* GPUSCAN_PAGES_TO_GPU_H */
