/*-------------------------------------------------------------------------
 *
 * csr_sort.h
 *	  The sort of gpu_csr_agg's triples by (row, column): a radix sort that
 *	  shares its passes with the helper threads of copy_workers.h.  Plain C,
 *	  no PostgreSQL headers, so that the unit tests link it.
 *
 * The sort goes in steps, each a bounded amount of work with no thread
 * running between them, so that the caller can answer interrupts between
 * steps (an ERROR thrown there leaves no thread on the arrays):
 *
 *	  sort = gs_csr_sort_begin(entries, sorted, n, col_bits, row_bits, threads);
 *	  while (gs_csr_sort_step(sort))
 *		  ... check for interrupts ...
 *	  gs_csr_sort_end(sort);
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CSR_SORT_H
#define GPUSCAN_CSR_SORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* a triple: (row, column) packed in a key that sorts as the pair, and its value */
typedef struct CsrEntry
{
	uint64_t	key;			/* row << 32 | column */
	double		val;
} CsrEntry;

#define ENTRY_KEY(row, col)	(((uint64_t) (row) << 32) | (uint32_t) (col))
#define ENTRY_ROW(key)		((int32_t) ((key) >> 32))
#define ENTRY_COL(key)		((int32_t) (uint32_t) (key))

typedef struct CsrSort CsrSort;

/* Bits needed for the values 0 .. size - 1. */
int			gs_csr_bits_for(int64_t size);

/*
 * Begin sorting the n entries of `entries` by key into `sorted` (room for
 * n; not overlapping), every row below 2^row_bits and every column below
 * 2^col_bits.  `entries` is used on the way and left in no order.  With
 * threads non-zero the passes run on the helper threads too (the pool of
 * copy_workers.h, as it is configured).  NULL where memory runs out.
 */
CsrSort    *gs_csr_sort_begin(CsrEntry *entries, CsrEntry *sorted, int64_t n,
							  int col_bits, int row_bits, int threads);

/* Do the next step; 0 once `sorted` holds every entry in order of key. */
int			gs_csr_sort_step(CsrSort *sort);

/* Free the sort (done or not). */
void		gs_csr_sort_end(CsrSort *sort);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_CSR_SORT_H */
