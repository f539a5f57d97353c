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

/* Release what the reading holds (the access strategy) */
extern void gs_heap_blocks_end(GsHeapBlocks *b);

#endif							/* GPUSCAN_HEAP_BLOCKS_H */
