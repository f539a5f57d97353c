/*-------------------------------------------------------------------------
 *
 * heap_sum.h
 *	  The exact sum of one column over raw heap pages, on the CPU: the
 *	  reference for the GPU's (common/gpuscan_heap.h walks the pages).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_HEAP_SUM_H
#define GPUSCAN_HEAP_SUM_H

#include <stdint.h>

#include "gpuscan_exact.h"
#include "gpuscan_heap.h"

/*
 * gs_heap_page_values -- the values of ncols columns (layouts[c]) of every
 * normal tuple of the page appended to vals[c], nvals[c] counting them
 * (each with room for GS_HEAP_MAX_TUPLES more): the count of normal
 * tuples, or -1 where the walker refuses the page (more line pointers
 * than a page holds, or one of them or its tuple not as the format says),
 * whose values appended so far the caller drops
 */
int			gs_heap_page_values(const unsigned char *page, const gs_heap_layout *layouts, int ncols,
								double **vals, int *nvals);

/*
 * gs_heap_pages_sum -- add layout's column of every normal tuple of the
 * npages pages at pages (GS_HEAP_PAGE_SIZE bytes each) into acc, and the
 * count of non-NULL values into *nvalues.  A page the walker cannot read
 * (its header or one of its tuples not as the format says) adds nothing
 * and is marked in bad[page] (1; 0 for a page read); returns the number
 * of such pages, for the caller to read them the ordinary way.
 */
int			gs_heap_pages_sum(const unsigned char *pages, int npages,
							  const gs_heap_layout *layout, gs_exact_acc *acc,
							  int64_t *nvalues, unsigned char *bad);

#endif							/* GPUSCAN_HEAP_SUM_H */
