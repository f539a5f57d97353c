/*-------------------------------------------------------------------------
 *
 * csr_state.h
 *	  The state of the gpu_csr_agg aggregate (csr_agg.c): the triples so
 *	  far, checked as they come, and the gpu_csr built from them.  The
 *	  aggregate's transition and final functions use it, and so does the
 *	  GpuscanCsr scan (csr_table_scan.c), which fills it from a table without a
 *	  function call per row.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CSR_STATE_H
#define GPUSCAN_CSR_STATE_H

#include "postgres.h"

#include "access/tupdesc.h"

typedef struct CsrAggState CsrAggState;

/* One row of the aggregate's input: (row, column, value [, nrows, ncols]) */
typedef struct CsrTriple
{
	bool		null[5];		/* row, column, value, nrows, ncols */
	int64		row;
	int64		col;
	double		val;
	bool		sized;			/* nrows and ncols given (the five-argument form) */
	int32		nrows;
	int32		ncols;
} CsrTriple;

/* An empty state in cxt, where its triples live too */
extern CsrAggState *gs_csr_state_new(MemoryContext cxt);

/*
 * Add a triple, checked as the aggregate checks it: ERROR (naming the
 * triple's number in the input) on a NULL, a negative index, an index beyond
 * integer or beyond the sizes given, or sizes unlike the rows' before
 */
extern void gs_csr_state_add(CsrAggState *s, const CsrTriple *t);

/* The triples added so far */
extern int64 gs_csr_state_count(const CsrAggState *s);

/* The gpu_csr of the state's triples (desc: the type's tuple descriptor) */
extern Datum gs_csr_state_result(CsrAggState *s, TupleDesc desc);

#endif							/* GPUSCAN_CSR_STATE_H */
