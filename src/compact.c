/*-------------------------------------------------------------------------
 *
 * compact.c
 *	  Stream compaction on the CPU or the GPU: gpu_compact (one row per kept
 *	  value), gpu_compact_array (an array, for chaining), and the positions
 *	  of the kept elements, gpu_compact_indices and
 *	  gpu_compact_indices_array, to compact several parallel arrays by one
 *	  predicate.
 *
 * keep is a boolean[] of the same length as vals; a NULL in keep counts as
 * false (as in WHERE), a NULL in vals is an error (as in the other
 * functions).  Positions are 1-based, as WITH ORDINALITY counts, whatever
 * the array's lower bound; result arrays start at 1.
 *
 * The path: compaction is one memory-bound pass over host data, so
 * gpuscan.device = auto keeps it on the CPU (gs_use_gpu with gpu_pays_off
 * false); gpuscan.device = gpu sends it to the GPU all the same, chunk by
 * chunk, with the same result.  The kept count is taken on the host first,
 * so that the result is allocated once at its final size.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "array_stream.h"
#include "call_profile.h"
#include "cpu_compact.h"
#include "gpuscan.h"

/* elements per chunk between interrupt checks */
#define CPU_CHUNK_ELEMS		((int64) 4 << 20)
#define GPU_CHUNK_ELEMS		((int64) 16 << 20)

/*
 * The arguments of one call.  vals is not used for positions (result type
 * INT4OID).  keep points to n flag bytes: the array's own data where it has
 * no NULLs, else a copy with each NULL as false.
 */
typedef struct CompactArgs
{
	const char *fn;
	Oid			result_type;	/* FLOAT8OID, FLOAT4OID or INT4OID */
	GsArrayInput vals;
	int64		n;
	const uint8 *keep;
	int64		kept;			/* how many flags are true */
} CompactArgs;

/* open_keep -- check keep, and give its flags as n bytes with NULLs false */
static void
open_keep(CompactArgs *args, ArrayType *keep)
{
	GsArrayInput in;
	uint8	   *flags;
	const bool *data;
	int64		i;

	gs_array_open(&in, keep, BOOLOID, args->fn, "keep");
	args->n = in.nelems;
	if (in.nulls == NULL)
	{
		args->keep = (const uint8 *) in.data;
		return;
	}
	flags = palloc_extended(Max(in.nelems, 1), MCXT_ALLOC_HUGE);
	data = (const bool *) in.data;	/* only the non-NULL elements are stored */
	for (i = 0; i < in.nelems; i++)
		flags[i] = (in.nulls[i >> 3] & (1 << (i & 7))) != 0 ? (uint8) *data++ : 0;
	args->keep = flags;
}

/*
 * open_args -- the arguments of gpu_compact (vals, keep) when elemtype is
 * a float type, of gpu_compact_indices (keep) when it is INT4OID
 */
static void
open_args(CompactArgs *args, FunctionCallInfo fcinfo, Oid elemtype, const char *fn)
{
	memset(args, 0, sizeof(*args));
	args->fn = fn;
	args->result_type = elemtype;
	if (elemtype == INT4OID)
	{
		ArrayType  *keep = gs_getarg_array(fcinfo, 0);

		gs_profile_mark(GS_STAGE_ARGS);
		open_keep(args, keep);
	}
	else
	{
		ArrayType  *vals = gs_getarg_array(fcinfo, 0);
		ArrayType  *keep = gs_getarg_array(fcinfo, 1);

		gs_profile_mark(GS_STAGE_ARGS);
		gs_array_open(&args->vals, vals, elemtype, fn, "vals");
		open_keep(args, keep);
		if (args->vals.nelems != args->n)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("%s: vals and keep must have the same length", fn),
					 errdetail("vals has length %lld and keep has length %lld.",
							   (long long) args->vals.nelems, (long long) args->n)));
	}
	args->kept = (int64) cpu_count_kept(args->keep, args->n);
	gs_profile_mark(GS_STAGE_CHECKS);
}

/* result_size -- bytes of one result element */
static int
result_size(const CompactArgs *args)
{
	return args->result_type == INT4OID ? sizeof(int32) : gs_float_size(args->result_type);
}

/* compact_on_cpu -- the CPU path of compact_into; returns the kept count */
static int64
compact_on_cpu(const CompactArgs *args, char *out)
{
	int			size = result_size(args);
	int64		kept = 0;
	int64		start;

	for (start = 0; start < args->n; start += CPU_CHUNK_ELEMS)
	{
		int64		count = Min(CPU_CHUNK_ELEMS, args->n - start);
		const uint8 *keep = args->keep + start;
		const char *vals = args->vals.data + start * size;
		char	   *dst = out + kept * size;

		if (args->result_type != INT4OID)
			gs_array_check_nulls(&args->vals, start, count);
		gs_profile_mark(GS_STAGE_CHECKS);
		switch (args->result_type)
		{
			case FLOAT8OID:
				kept += cpu_compact_f64((const double *) vals, keep, count, (double *) dst);
				break;
			case FLOAT4OID:
				kept += cpu_compact_f32((const float *) vals, keep, count, (float *) dst);
				break;
			default:
				kept += cpu_compact_indices(keep, count, (int32) (start + 1), (int32 *) dst);
				break;
		}
		gs_profile_mark(GS_STAGE_CPU);
		CHECK_FOR_INTERRUPTS();
	}
	return kept;
}

/*
 * compact_on_gpu -- the GPU path: each chunk's values and flags are copied
 * into device buffers, compacted into a third, and the kept values copied
 * back after the count.  Returns the kept count; *bytes_moved gets the
 * bytes moved both ways.
 */
static int64
compact_on_gpu(const CompactArgs *args, char *out, int64 *bytes_moved)
{
	const char *fn = args->fn;
	int			size = result_size(args);
	int64		chunk_elems = Min(GPU_CHUNK_ELEMS, Max(args->n, 1));
	bool		positions = args->result_type == INT4OID;
	void	   *d_vals = NULL;
	uint8	   *d_keep;
	void	   *d_out;
	uint64	   *d_count;
	int64		kept = 0;
	int64		start;

	*bytes_moved = 0;
	d_count = gs_device_alloc(sizeof(uint64), fn);
	d_keep = gs_device_alloc(chunk_elems, fn);
	d_out = gs_device_alloc(chunk_elems * size, fn);
	if (!positions)
		d_vals = gs_device_alloc(chunk_elems * size, fn);
	gs_profile_mark(GS_STAGE_ALLOC);

	for (start = 0; start < args->n; start += chunk_elems)
	{
		int64		count = Min(chunk_elems, args->n - start);
		uint64		chunk_kept;

		GS_DEVICE_CHECK(gsd_upload(d_keep, args->keep + start, count), fn);
		gs_profile_mark(GS_STAGE_UPLOAD);
		if (!positions)
		{
			gs_array_check_nulls(&args->vals, start, count);
			gs_profile_mark(GS_STAGE_CHECKS);
			GS_DEVICE_CHECK(gsd_upload(d_vals, args->vals.data + start * size, count * size), fn);
			gs_profile_mark(GS_STAGE_UPLOAD);
		}
		if (args->result_type == FLOAT8OID)
			GS_DEVICE_CHECK(gsd_compact_f64(d_vals, d_keep, count, d_out, d_count), fn);
		else if (args->result_type == FLOAT4OID)
			GS_DEVICE_CHECK(gsd_compact_f32(d_vals, d_keep, count, d_out, d_count), fn);
		else
			GS_DEVICE_CHECK(gsd_compact_indices(d_keep, count, (int32_t) (start + 1),
												d_out, d_count), fn);
		gs_profile_device_mark(GS_STAGE_KERNEL);
		GS_DEVICE_CHECK(gsd_download(&chunk_kept, d_count, sizeof(uint64)), fn);
		if (chunk_kept > (uint64) count || kept + (int64) chunk_kept > args->kept)
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("%s: the GPU returned a wrong count", fn),
					 errdetail("It kept " UINT64_FORMAT " of " INT64_FORMAT " elements of a chunk; the flags say " INT64_FORMAT " in all.",
							   chunk_kept, count, args->kept)));
		if (chunk_kept > 0)
			GS_DEVICE_CHECK(gsd_download(out + kept * size, d_out, chunk_kept * size), fn);
		gs_profile_mark(GS_STAGE_DOWNLOAD);
		kept += chunk_kept;
		*bytes_moved += count * (1 + (positions ? 0 : size)) + chunk_kept * size + sizeof(uint64);
		CHECK_FOR_INTERRUPTS();
	}
	if (d_vals != NULL)
		gs_device_free(d_vals);
	gs_device_free(d_out);
	gs_device_free(d_keep);
	gs_device_free(d_count);
	gs_profile_mark(GS_STAGE_ALLOC);
	return kept;
}

/*
 * compact_into -- the kept values (or positions) into out, which has room
 * for args->kept + 1 elements, on the path gs_use_gpu chooses
 */
static void
compact_into(const CompactArgs *args, char *out)
{
	GsTimer		timer;
	bool		on_gpu = gs_use_gpu(args->fn, args->n, false);
	int64		bytes_moved = 0;
	int64		kept;

	gs_profile_mark(GS_STAGE_DISPATCH);
	gs_timer_start(&timer);
	if (on_gpu)
		kept = compact_on_gpu(args, out, &bytes_moved);
	else
		kept = compact_on_cpu(args, out);
	if (kept != args->kept)
		elog(ERROR, "%s: kept " INT64_FORMAT " elements, expected " INT64_FORMAT,
			 args->fn, kept, args->kept);
	gs_stats_record(args->fn, on_gpu, args->n, bytes_moved, &timer);
}

/* ---- one row per kept element ---- */

/* compact_rows -- the result of gpu_compact or gpu_compact_indices as rows */
static void
compact_rows(FunctionCallInfo fcinfo, Oid elemtype, MemoryContext cxt, GsRows *rows)
{
	CompactArgs args;

	open_args(&args, fcinfo, elemtype,
			  elemtype == INT4OID ? "gpu_compact_indices" : "gpu_compact");
	rows->values = MemoryContextAllocExtended(cxt, (args.kept + 1) * result_size(&args),
											  MCXT_ALLOC_HUGE);
	gs_prefer_huge_pages(rows->values, (args.kept + 1) * result_size(&args));
	gs_profile_mark(GS_STAGE_ALLOC);
	gs_profile_touch(rows->values, (args.kept + 1) * result_size(&args));
	rows->n = args.kept;
	rows->type = elemtype;
	compact_into(&args, rows->values);
}

PG_FUNCTION_INFO_V1(gpu_compact_float8);

/* gpu_compact(double precision[], boolean[]) -- one row per kept value */
Datum
gpu_compact_float8(PG_FUNCTION_ARGS)
{
	return gs_return_rows(fcinfo, FLOAT8OID, "gpu_compact", compact_rows);
}

PG_FUNCTION_INFO_V1(gpu_compact_float4);

/* gpu_compact(real[], boolean[]) -- the same over real */
Datum
gpu_compact_float4(PG_FUNCTION_ARGS)
{
	return gs_return_rows(fcinfo, FLOAT4OID, "gpu_compact", compact_rows);
}

PG_FUNCTION_INFO_V1(gpu_compact_indices);

/* gpu_compact_indices(boolean[]) -- one row per position of a true element */
Datum
gpu_compact_indices(PG_FUNCTION_ARGS)
{
	return gs_return_rows(fcinfo, INT4OID, "gpu_compact_indices", compact_rows);
}

/* ---- the same as arrays ---- */

/*
 * compact_array -- the result array is built in place: the compaction
 * writes straight into its data area (allocated with room for one more
 * element, see cpu_compact.h).
 */
static Datum
compact_array(FunctionCallInfo fcinfo, Oid elemtype, const char *fn)
{
	CompactArgs args;
	ArrayType  *result;

	gs_profile_begin();
	open_args(&args, fcinfo, elemtype, fn);
	if (args.kept == 0)
	{
		double		spare;		/* the one element cpu_compact.h may store */

		compact_into(&args, (char *) &spare);	/* still checks vals for NULLs */
		gs_profile_end();
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));
	}
	result = gs_new_array(elemtype, result_size(&args), args.kept, 1, 1, fn);
	gs_profile_mark(GS_STAGE_ALLOC);
	gs_profile_touch(ARR_DATA_PTR(result), args.kept * result_size(&args));
	compact_into(&args, ARR_DATA_PTR(result));
	gs_profile_end();
	PG_RETURN_ARRAYTYPE_P(result);
}

PG_FUNCTION_INFO_V1(gpu_compact_array_float8);

/* gpu_compact_array(double precision[], boolean[]) -- the kept values */
Datum
gpu_compact_array_float8(PG_FUNCTION_ARGS)
{
	return compact_array(fcinfo, FLOAT8OID, "gpu_compact_array");
}

PG_FUNCTION_INFO_V1(gpu_compact_array_float4);

/* gpu_compact_array(real[], boolean[]) -- the same over real */
Datum
gpu_compact_array_float4(PG_FUNCTION_ARGS)
{
	return compact_array(fcinfo, FLOAT4OID, "gpu_compact_array");
}

PG_FUNCTION_INFO_V1(gpu_compact_indices_array);

/* gpu_compact_indices_array(boolean[]) -- the positions of the true elements */
Datum
gpu_compact_indices_array(PG_FUNCTION_ARGS)
{
	return compact_array(fcinfo, INT4OID, "gpu_compact_indices_array");
}
