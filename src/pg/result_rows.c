/*-------------------------------------------------------------------------
 *
 * result_rows.c
 *	  Set-returning functions whose whole result is one computed buffer of
 *	  values (prefix sums, compacted values, positions): one row per value.
 *
 * Where the caller is a function scan (FROM f(...)), which says so with
 * SFRM_Materialize_Preferred, the rows go into a tuplestore at once: the
 * scan stores them there either way, and this saves a function call per
 * row.  Elsewhere (in a select list) the buffer is computed on the first
 * call and handed out one value per call, which streams without a
 * tuplestore.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/tuplestore.h"

#include "pg/call_profile.h"
#include "pg/result_rows.h"

/* result rows stored between interrupt checks */
#define ROWS_PER_INTERRUPT_CHECK	((int64) 1 << 16)

/* row_datum -- element i of the buffer as a Datum */
static Datum
row_datum(const GsRows *rows, int64 i)
{
	switch (rows->type)
	{
		case FLOAT8OID:
			return Float8GetDatum(((const double *) rows->values)[i]);
		case FLOAT4OID:
			return Float4GetDatum(((const float *) rows->values)[i]);
		case INT4OID:
			return Int32GetDatum(((const int32 *) rows->values)[i]);
		default:
			elog(ERROR, "unexpected result type %u", rows->type);
	}
	return (Datum) 0;			/* keep compilers quiet */
}

/* return_rows_materialized -- compute, then all rows into a tuplestore */
static Datum
return_rows_materialized(FunctionCallInfo fcinfo, Oid elemtype, const char *colname,
						 GsRowsCompute compute)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext per_query = rsinfo->econtext->ecxt_per_query_memory;
	MemoryContext oldcxt;
	Tuplestorestate *store;
	TupleDesc	desc;
	GsRows		rows;
	int64		i;

	gs_profile_begin();
	compute(fcinfo, elemtype, CurrentMemoryContext, &rows);

	oldcxt = MemoryContextSwitchTo(per_query);
	desc = CreateTemplateTupleDesc(1);
	TupleDescInitEntry(desc, (AttrNumber) 1, colname, rows.type, -1, 0);
	store = tuplestore_begin_heap((rsinfo->allowedModes & SFRM_Materialize_Random) != 0,
								  false, work_mem);
	MemoryContextSwitchTo(oldcxt);

	for (i = 0; i < rows.n; i++)
	{
		Datum		value = row_datum(&rows, i);
		bool		isnull = false;

		tuplestore_putvalues(store, desc, &value, &isnull);
		if ((i & (ROWS_PER_INTERRUPT_CHECK - 1)) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (rows.values != NULL)
		pfree(rows.values);
	gs_profile_mark(GS_STAGE_RESULT);
	gs_profile_end();

	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = store;
	rsinfo->setDesc = desc;
	return (Datum) 0;
}

/* gs_return_rows -- see result_rows.h */
Datum
gs_return_rows(FunctionCallInfo fcinfo, Oid elemtype, const char *colname,
			   GsRowsCompute compute)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	FuncCallContext *funcctx;
	GsRows	   *rows;

	if (SRF_IS_FIRSTCALL())
	{
		if (rsinfo != NULL && IsA(rsinfo, ReturnSetInfo) &&
			(rsinfo->allowedModes & SFRM_Materialize) != 0 &&
			(rsinfo->allowedModes & SFRM_Materialize_Preferred) != 0)
			return return_rows_materialized(fcinfo, elemtype, colname, compute);

		funcctx = SRF_FIRSTCALL_INIT();
		rows = MemoryContextAlloc(funcctx->multi_call_memory_ctx, sizeof(GsRows));
		gs_profile_begin();		/* the rows handed out later are not counted */
		compute(fcinfo, elemtype, funcctx->multi_call_memory_ctx, rows);
		gs_profile_end();
		funcctx->user_fctx = rows;
	}

	funcctx = SRF_PERCALL_SETUP();
	rows = (GsRows *) funcctx->user_fctx;
	if ((int64) funcctx->call_cntr < rows->n)
	{
		/* not inside SRF_RETURN_NEXT, which advances call_cntr first */
		Datum		result = row_datum(rows, (int64) funcctx->call_cntr);

		SRF_RETURN_NEXT(funcctx, result);
	}
	SRF_RETURN_DONE(funcctx);
}
