/*-------------------------------------------------------------------------
 *
 * result_rows.h
 *	  Set-returning functions over a computed buffer (result_rows.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_RESULT_ROWS_H
#define GPUSCAN_RESULT_ROWS_H

#include "postgres.h"

#include "fmgr.h"

/* n values of type FLOAT8OID, FLOAT4OID or INT4OID, palloc'd (or NULL if n is 0) */
typedef struct GsRows
{
	void	   *values;
	int64		n;
	Oid			type;
} GsRows;

/* compute the result of the call into *rows, allocating in `cxt` */
typedef void (*GsRowsCompute) (FunctionCallInfo fcinfo, Oid elemtype,
							   MemoryContext cxt, GsRows *rows);

/*
 * The body of a set-returning function that returns one row (a column
 * named colname) per value of the buffer that compute() fills: in a FROM
 * clause all rows at once through a tuplestore, elsewhere one per call.
 */
extern Datum gs_return_rows(FunctionCallInfo fcinfo, Oid elemtype, const char *colname,
							GsRowsCompute compute);

#endif							/* GPUSCAN_RESULT_ROWS_H */
