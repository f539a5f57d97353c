/*-------------------------------------------------------------------------
 *
 * heap_blocks.h
 *	  A heap table read block by block for the sum scans: the values of a
 *	  few float columns, from pages every snapshot sees whole read by the
 *	  heap page walker (common/gpuscan_heap.h), from the other pages tuple
 *	  by tuple under the snapshot's rules.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_HEAP_BLOCKS_H
#define GPUSCAN_HEAP_BLOCKS_H

#include "access/relscan.h"
#include "access/tableam.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

#include "pg/heap_layout.h"

/* the most columns one scan reads */
#define GS_HEAP_BLOCKS_MAX_COLS		32

/*
 * What one block gave: for each column, its non-NULL values appended to
 * the caller's buffer (room for a page's worth: MaxHeapTuplesPerPage)
 */
typedef struct GsHeapBlocks
{
	Relation	rel;
	Snapshot	snapshot;
	BufferAccessStrategy strategy;
	int			ncols;
	AttrNumber	attnos[GS_HEAP_BLOCKS_MAX_COLS];
	bool		is_float4[GS_HEAP_BLOCKS_MAX_COLS];
	gs_heap_layout layouts[GS_HEAP_BLOCKS_MAX_COLS];
	/* the blocks: all of them in turn, or a parallel scan's share */
	BlockNumber nblocks;
	BlockNumber next;
	ParallelBlockTableScanDesc pbscan;
	ParallelBlockTableScanWorkerData pbwork;
	bool		started;
	/* how the pages were read, for EXPLAIN ANALYZE */
	int64		pages_whole;	/* all-visible, read by the walker */
	int64		pages_checked;	/* tuple by tuple under the snapshot */
	/*
	 * Where set (gs_heap_blocks_by_tuple), the pages read here hand each
	 * tuple the snapshot sees to tuple_fn instead of their columns' values
	 */
	void		(*tuple_fn) (void *arg, HeapTuple tuple);
	void	   *tuple_arg;
} GsHeapBlocks;

/*
 * Start reading rel's blocks under snapshot: all of them, or where pscan
 * is not NULL (a parallel plan's shared heap scan) this process's share.
 * False, nothing started, where the scan cannot read them itself: not a
 * heap table (or materialized view) of 8 kB pages, or a column of attnos
 * (float8 or float4) the walker cannot read.
 */
extern bool gs_heap_blocks_begin(GsHeapBlocks *b, Relation rel, Snapshot snapshot,
								 ParallelTableScanDesc pscan, int ncols,
								 const AttrNumber *attnos, const bool *is_float4);

/*
 * The next block's values: vals[c] gets column c's non-NULL values,
 * nvals[c] how many (each buffer has room for MaxHeapTuplesPerPage).
 * False once every block has been read.
 */
extern bool gs_heap_blocks_next(GsHeapBlocks *b, double **vals, int *nvals);

/* What gs_heap_blocks_next_for_gpu did with a block */
typedef enum GsBlockResult
{
	GS_BLOCK_END,				/* no block left */
	GS_BLOCK_PINNED,			/* all-visible: left pinned for the GPU to read */
	GS_BLOCK_COPIED,			/* all-visible: the page copied whole */
	GS_BLOCK_READ				/* its values read here */
} GsBlockResult;

/*
 * The next block (*blk), for a caller that sends all-visible pages to the
 * GPU.  Such a page is left pinned (*pinned; the caller releases it once
 * the GPU has read it) where pin_ok and no line pointer of it can be
 * reused meanwhile (not a temporary table's), else copied into page_copy (GS_HEAP_PAGE_SIZE bytes)
 * under its lock where page_copy is not NULL; *nitems its line pointers.
 * Another page's values are read here, as gs_heap_blocks_next reads them.
 */
extern GsBlockResult gs_heap_blocks_next_for_gpu(GsHeapBlocks *b, bool pin_ok, char *page_copy,
												 Buffer *pinned, int *nitems, BlockNumber *blk,
												 double **vals, int *nvals);

/*
 * Block blk, sent by gs_heap_blocks_next_for_gpu but not summed where it
 * went, read here as gs_heap_blocks_next reads it (the page as it is now:
 * the snapshot's rules give the same tuples)
 */
extern void gs_heap_blocks_read_again(GsHeapBlocks *b, BlockNumber blk, double **vals,
									  int *nvals);

/*
 * At least as many blocks as this process may still read (a parallel
 * scan's blocks not yet handed out count for it too)
 */
extern int64 gs_heap_blocks_left(const GsHeapBlocks *b);

/*
 * From here on, a page read here (not all-visible, or not sent to the
 * GPU) hands each tuple the snapshot sees to fn(arg, tuple), under the
 * buffer's share lock, instead of putting its columns' values in vals (a
 * GROUP BY needs the rows); all-visible pages too are then read tuple by
 * tuple where they are read here
 */
extern void gs_heap_blocks_by_tuple(GsHeapBlocks *b, void (*fn) (void *arg, HeapTuple tuple),
									void *arg);

/* Release what the reading holds (the access strategy) */
extern void gs_heap_blocks_end(GsHeapBlocks *b);

#endif							/* GPUSCAN_HEAP_BLOCKS_H */
