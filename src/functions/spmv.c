/*-------------------------------------------------------------------------
 *
 * spmv.c
 *	  Sparse matrix x vector over CSR arrays: gpu_csr_spmv (an array) and
 *	  gpu_csr_spmv_rows (one row per matrix row), for double precision and
 *	  real, on the CPU or the GPU; and the CSR checks PageRank shares.
 *
 * The CSR arrays are 0-based, as in cuSPARSE and SciPy: row_ptr has nrows
 * + 1 entries starting at 0, col_idx holds column indexes 0 .. length(x) -
 * 1, whatever the arrays' lower bounds.  The matrix is checked once on the
 * host, before anything reaches a kernel; both paths then compute every
 * row in the canonical order of common/gpuscan_spmv.h and give the same
 * bits.  Under gpuscan.device = auto the cost model chooses the path by
 * the number of non-zeros (gs_use_gpu).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/tuplestore.h"

#include "pg/array_input.h"
#include "pg/array_stream.h"
#include "client/cached_call.h"
#include "cpu/cpu_spmv.h"
#include "cpu/csr_check.h"
#include "functions/csr_matrix.h"
#include "dispatch/dispatch.h"
#include "client/service_call.h"
#include "functions/spmv.h"
#include "dispatch/stats.h"

/* elements checked, or non-zeros multiplied, between interrupt checks */
#define CHUNK_ELEMS			((int64) 4 << 20)

/* result rows stored between interrupt checks */
#define ROWS_PER_INTERRUPT_CHECK	((int64) 1 << 16)

/* element_number -- the SQL subscript of element i (0-based) of an array */
static int64
element_number(const GsArrayInput *in, int64 i)
{
	return i + (ARR_NDIM(in->array) > 0 ? ARR_LBOUND(in->array)[0] : 1);
}

/* open_int_array -- an integer[] argument: shape, then NULLs throughout */
static void
open_int_array(GsArrayInput *in, ArrayType *array, const char *fn, const char *argname)
{
	int64		start;

	gs_array_open(in, array, INT4OID, fn, argname);
	for (start = 0; start < in->nelems; start += CHUNK_ELEMS)
	{
		gs_array_check_nulls(in, start, Min(CHUNK_ELEMS, in->nelems - start));
		CHECK_FOR_INTERRUPTS();
	}
}

/* gs_csr_open -- see spmv.h; the rules are csr_check()'s */
void
gs_csr_open(GsCsr *csr, ArrayType *row_ptr_array, ArrayType *col_idx_array,
			int64 ncols, const char *fn)
{
	GsArrayInput rp_in,
				ci_in;
	const int32 *rp,
			   *ci;
	int64		at;

	open_int_array(&rp_in, row_ptr_array, fn, "row_ptr");
	open_int_array(&ci_in, col_idx_array, fn, "col_idx");
	rp = (const int32 *) rp_in.data;
	ci = (const int32 *) ci_in.data;

	switch (csr_check(rp, rp_in.nelems, ci, ci_in.nelems, ncols, &at))
	{
		case CSR_OK:
			break;
		case CSR_NO_ROW_PTR:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: row_ptr must not be empty", fn),
					 errdetail("A matrix of n rows has n + 1 row pointers, the first of them 0; a matrix of no rows has row_ptr '{0}'.")));
			break;
		case CSR_FIRST_NOT_ZERO:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: row_ptr must start at 0", fn),
					 errdetail("Element " INT64_FORMAT " of row_ptr is %d; row pointers are 0-based offsets into col_idx.",
							   element_number(&rp_in, 0), rp[0])));
			break;
		case CSR_DECREASING:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: row_ptr must not decrease", fn),
					 errdetail("Element " INT64_FORMAT " of row_ptr is %d, less than element " INT64_FORMAT ", %d.",
							   element_number(&rp_in, at), rp[at],
							   element_number(&rp_in, at - 1), rp[at - 1])));
			break;
		case CSR_LAST_NOT_NNZ:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: the last element of row_ptr must equal the length of col_idx", fn),
					 errdetail("row_ptr ends with %d (element " INT64_FORMAT "), but col_idx has " INT64_FORMAT " elements.",
							   rp[at], element_number(&rp_in, at), ci_in.nelems)));
			break;
		case CSR_COLUMN_OUT_OF_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("%s: column index %d out of range for a vector of length " INT64_FORMAT,
							fn, ci[at], ncols),
					 errdetail("Element " INT64_FORMAT " of col_idx is %d; column indexes are 0-based and must be less than " INT64_FORMAT ".",
							   element_number(&ci_in, at), ci[at], ncols)));
			break;
	}

	csr->nrows = (int32) (rp_in.nelems - 1);
	csr->nnz = (int32) ci_in.nelems;
	csr->row_ptr = rp;
	csr->col_idx = ci;
}

/* ---- y = A x ---- */

/* spmv_on_cpu -- the CPU path, in chunks of about CHUNK_ELEMS non-zeros */
static void
spmv_on_cpu(const GsCsr *csr, const void *vals, const void *x, void *y, Oid elemtype)
{
	int64		row = 0;

	while (row < csr->nrows)
	{
		int64		end = row + 1;

		/* whole rows up to CHUNK_ELEMS non-zeros (at least one row) */
		while (end < csr->nrows && end - row < CHUNK_ELEMS &&
			   (int64) csr->row_ptr[end + 1] - csr->row_ptr[row] <= CHUNK_ELEMS)
			end++;
		if (elemtype == FLOAT8OID)
			cpu_spmv_f64(csr->row_ptr, csr->col_idx, vals, x, y, row, end);
		else
			cpu_spmv_f32(csr->row_ptr, csr->col_idx, vals, x, y, row, end);
		row = end;
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * spmv_args -- check the four arguments of `fn` and compute y = A x into a
 * new palloc'd buffer of nrows elements of elemtype; *nrows gets its length.
 */
static void *
spmv_args(FunctionCallInfo fcinfo, Oid elemtype, const char *fn, int32 *nrows)
{
	GsArrayInput vals_in,
				x_in;
	GsCsr		csr;
	GsTimer		timer;
	GsCachedMatrix cached;
	bool		use_cache = gs_cached_matrix(&cached, fcinfo, 3, elemtype);
	int			elemsize = gs_float_size(elemtype);
	void	   *y;
	bool		on_gpu;
	int64		moved = 0;

	/* a stored matrix in the GPU service's cache is not read at all (x is, once) */
	if (use_cache)
	{
		gs_array_open(&x_in, gs_getarg_array(fcinfo, 3), elemtype, fn, "x");
		gs_array_check_nulls(&x_in, 0, x_in.nelems);
		if ((y = gs_cached_spmv(&cached, &x_in, nrows, fn)) != NULL)
			return y;
	}

	gs_array_open(&vals_in, gs_getarg_array(fcinfo, 2), elemtype, fn, "vals");
	if (!use_cache)
		gs_array_open(&x_in, gs_getarg_array(fcinfo, 3), elemtype, fn, "x");
	gs_csr_open(&csr, gs_getarg_array(fcinfo, 0), gs_getarg_array(fcinfo, 1), x_in.nelems, fn);
	if (vals_in.nelems != csr.nnz)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: col_idx and vals must have the same length", fn),
				 errdetail("col_idx has %d elements, vals has " INT64_FORMAT ".",
						   csr.nnz, vals_in.nelems)));
	gs_array_check_nulls(&vals_in, 0, vals_in.nelems);
	if (!use_cache)
		gs_array_check_nulls(&x_in, 0, x_in.nelems);

	/* a miss: load what the service lacks, and ask again */
	if (use_cache && cached.missing && gs_cached_matrix_load(&cached, &csr, &vals_in, fn) &&
		(y = gs_cached_spmv(&cached, &x_in, nrows, fn)) != NULL)
		return y;

	y = palloc((Size) Max(csr.nrows, 1) * elemsize);
	on_gpu = gs_use_gpu(fn, GS_WORK_SPMV, csr.nnz, elemsize);
	gs_timer_start(&timer);
	if (on_gpu)
		on_gpu = (moved = gs_service_spmv(&csr, vals_in.data, x_in.data, x_in.nelems, y,
										  elemtype, fn)) >= 0;
	if (!on_gpu)
	{
		moved = 0;
		spmv_on_cpu(&csr, vals_in.data, x_in.data, y, elemtype);
	}
	gs_stats_record(fn, on_gpu, csr.nnz, moved, &timer);
	*nrows = csr.nrows;
	return y;
}

/* spmv_array -- gpu_csr_spmv: y as an array (lower bound 1) */
static Datum
spmv_array(FunctionCallInfo fcinfo, Oid elemtype)
{
	const char *fn = "gpu_csr_spmv";
	int32		nrows;
	void	   *y = spmv_args(fcinfo, elemtype, fn, &nrows);
	int			elemsize = gs_float_size(elemtype);
	ArrayType  *result;

	if (nrows == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));
	result = gs_new_array(elemtype, elemsize, nrows, 1, 0, fn);
	memcpy(ARR_DATA_PTR(result), y, (Size) nrows * elemsize);
	pfree(y);
	PG_RETURN_ARRAYTYPE_P(result);
}

/* spmv_rows -- gpu_csr_spmv_rows: (row_index, value), row_index 0-based */
static Datum
spmv_rows(FunctionCallInfo fcinfo, Oid elemtype)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		nrows;
	void	   *y;
	int32		i;

	InitMaterializedSRF(fcinfo, 0);
	y = spmv_args(fcinfo, elemtype, "gpu_csr_spmv_rows", &nrows);
	for (i = 0; i < nrows; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int32GetDatum(i);
		values[1] = elemtype == FLOAT8OID ? Float8GetDatum(((double *) y)[i]) :
			Float4GetDatum(((float *) y)[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		if ((i & (ROWS_PER_INTERRUPT_CHECK - 1)) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(y);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(gpu_csr_spmv_float8);

/* gpu_csr_spmv(integer[], integer[], double precision[], double precision[]) -- y = A x */
Datum
gpu_csr_spmv_float8(PG_FUNCTION_ARGS)
{
	return spmv_array(fcinfo, FLOAT8OID);
}

PG_FUNCTION_INFO_V1(gpu_csr_spmv_float4);

/* gpu_csr_spmv(integer[], integer[], real[], real[]) -- y = A x in real */
Datum
gpu_csr_spmv_float4(PG_FUNCTION_ARGS)
{
	return spmv_array(fcinfo, FLOAT4OID);
}

PG_FUNCTION_INFO_V1(gpu_csr_spmv_rows_float8);

/* gpu_csr_spmv_rows(..., double precision[], double precision[]) -- one row per y[i] */
Datum
gpu_csr_spmv_rows_float8(PG_FUNCTION_ARGS)
{
	return spmv_rows(fcinfo, FLOAT8OID);
}

PG_FUNCTION_INFO_V1(gpu_csr_spmv_rows_float4);

/* gpu_csr_spmv_rows(..., real[], real[]) -- one row per y[i], in real */
Datum
gpu_csr_spmv_rows_float4(PG_FUNCTION_ARGS)
{
	return spmv_rows(fcinfo, FLOAT4OID);
}

PG_FUNCTION_INFO_V1(gpu_csr_spmv_matrix);

/* gpu_csr_spmv(matrix gpu_csr, x double precision[]) -- y = A x of a built matrix */
Datum
gpu_csr_spmv_matrix(PG_FUNCTION_ARGS)
{
	ArrayType  *x = PG_GETARG_ARRAYTYPE_P(1);
	GsCsrMatrix m;
	LOCAL_FCINFO(inner, 4);

	gs_csr_matrix_fields(PG_GETARG_HEAPTUPLEHEADER(0), &m, "gpu_csr_spmv");
	gs_csr_matrix_check(&m, ArrayGetNItems(ARR_NDIM(x), ARR_DIMS(x)), "gpu_csr_spmv");
	InitFunctionCallInfoData(*inner, fcinfo->flinfo, 4, fcinfo->fncollation, NULL, NULL);
	inner->args[0].value = m.row_ptr;
	inner->args[1].value = m.col_idx;
	inner->args[2].value = m.vals;
	inner->args[3].value = PointerGetDatum(x);
	for (int i = 0; i < 4; i++)
		inner->args[i].isnull = false;
	return spmv_array(inner, FLOAT8OID);
}
