/*-------------------------------------------------------------------------
 *
 * heap_layout.h
 *	  A table's columns as the heap page walker (common/gpuscan_heap.h)
 *	  needs them, from the table's tuple descriptor.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_HEAP_LAYOUT_H
#define GPUSCAN_HEAP_LAYOUT_H

#include "access/tupdesc.h"

#include "gpuscan_heap.h"

/*
 * gs_heap_layout_for -- the layout of desc's columns up to attno (a
 * float8 or float4 column) into *layout; false where the walker cannot
 * read it: another type, more than GS_HEAP_MAX_COLS columns up to it, or
 * a server whose block size is not GS_HEAP_PAGE_SIZE
 */
extern bool gs_heap_layout_for(TupleDesc desc, AttrNumber attno, gs_heap_layout *layout);

/*
 * gs_heap_int_layout_for -- the same for an int2, int4 or int8 column (a
 * grouping key, read by gs_heap_read_int)
 */
extern bool gs_heap_int_layout_for(TupleDesc desc, AttrNumber attno, gs_heap_layout *layout);

#endif							/* GPUSCAN_HEAP_LAYOUT_H */
