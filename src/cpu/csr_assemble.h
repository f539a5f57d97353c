/*-------------------------------------------------------------------------
 *
 * csr_assemble.h
 *	  gpu_csr_agg's sorted triples made into the arrays of a CSR matrix:
 *	  one entry per (row, column), duplicates added exactly and rounded
 *	  once.  Plain C, no PostgreSQL headers, so that the unit tests link it.
 *
 * The sorted entries are cut into chunks at changes of key, so that no
 * duplicates span two chunks; each chunk is counted, then written, on the
 * helper threads of copy_workers.h too.  A call covers a range of chunks,
 * so that the caller can answer interrupts between calls:
 *
 *	  gs_csr_chunks(e, n, chunk_start, nchunks);
 *	  gs_csr_count_chunks(e, chunk_start, first, last, unique, threads);
 *	  ... out_start[c]: the unique entries of the chunks before c ...
 *	  gs_csr_write_chunks(e, chunk_start, out_start, first, last, m, threads);
 *	  gs_csr_finish_rows(e, n, nnz, m);
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CSR_ASSEMBLE_H
#define GPUSCAN_CSR_ASSEMBLE_H

#include <stdint.h>

#include "cpu/csr_sort.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* The arrays of the matrix being written. */
typedef struct CsrArrays
{
	int32_t		nrows;
	int32_t    *row_ptr;		/* nrows + 1 */
	int32_t    *col_idx;		/* one per unique (row, column) */
	double	   *vals;
} CsrArrays;

/*
 * chunk_start[0 .. nchunks]: where each of nchunks chunks of the n sorted
 * entries starts, each about n / nchunks long but moved up to a change of
 * key (so some may be empty); chunk_start[nchunks] = n.
 */
void		gs_csr_chunks(const CsrEntry *e, int64_t n, int64_t *chunk_start, int nchunks);

/* unique[c] := the distinct keys of chunk c, for chunks first .. last - 1. */
void		gs_csr_count_chunks(const CsrEntry *e, const int64_t *chunk_start, int first,
								int last, int64_t *unique, int threads);

/*
 * Write chunks first .. last - 1 into m: chunk c's entries, duplicates
 * added, from position out_start[c] of col_idx and vals, and the entries
 * of row_ptr for the rows up to the last row of the chunk that the chunks
 * before it do not have.
 */
void		gs_csr_write_chunks(const CsrEntry *e, const int64_t *chunk_start,
								const int64_t *out_start, int first, int last,
								const CsrArrays *m, int threads);

/* The row_ptr entries of the rows after the last entry's: nnz. */
void		gs_csr_finish_rows(const CsrEntry *e, int64_t n, int64_t nnz, const CsrArrays *m);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_CSR_ASSEMBLE_H */
