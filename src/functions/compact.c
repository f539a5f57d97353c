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
 * Both paths go chunk by chunk (chunks.h) in one pass, writing the kept
 * values straight into the result, which is allocated for the most it can
 * hold (pages never written cost nothing) and trimmed to the kept count at
 * the end: no separate pass to count the flags first.  On the GPU the
 * call is a streamed request to the GPU service (service_call.h): each
 * chunk's values and flags go into the shared staging together, and its
 * kept values, with their count, come back while the service compacts
 * the chunks after it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "pg/array_input.h"
#include "pg/array_stream.h"
#include "client/cached_call.h"
#include "pg/call_profile.h"
#include "cpu/copy_workers.h"
#include "cpu/cpu_compact.h"
#include "dispatch/dispatch.h"
#include "pg/result_rows.h"
#include "client/service_call.h"
#include "pg/chunks.h"
#include "dispatch/stats.h"

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
	bool		keep_read;		/* keep opened already (compact_cached) */
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
 * a float type, of gpu_compact_indices (keep) when it is INT4OID; keep
 * not again where compact_cached opened it into *args
 */
static void
open_args(CompactArgs *args, FunctionCallInfo fcinfo, Oid elemtype, const char *fn)
{
	if (!args->keep_read)
	{
		memset(args, 0, sizeof(*args));
		args->fn = fn;
		args->result_type = elemtype;
	}
	if (elemtype == INT4OID)
	{
		if (!args->keep_read)
		{
			ArrayType  *keep = gs_getarg_array(fcinfo, 0);

			gs_profile_mark(GS_STAGE_ARGS);
			open_keep(args, keep);
		}
	}
	else
	{
		ArrayType  *vals = gs_getarg_array(fcinfo, 0);
		ArrayType  *keep = args->keep_read ? NULL : gs_getarg_array(fcinfo, 1);

		gs_profile_mark(GS_STAGE_ARGS);
		gs_array_open(&args->vals, vals, elemtype, fn, "vals");
		if (keep)
			open_keep(args, keep);
		if (args->vals.nelems != args->n)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("%s: vals and keep must have the same length", fn),
					 errdetail("vals has length %lld and keep has length %lld.",
							   (long long) args->vals.nelems, (long long) args->n)));
	}
	gs_profile_mark(GS_STAGE_CHECKS);
}

/* result_size -- bytes of one result element */
static int
result_size(const CompactArgs *args)
{
	return args->result_type == INT4OID ? sizeof(int32) : gs_float_size(args->result_type);
}

/*
 * chunk_elems -- elements per chunk: as many as one slot of the staging
 * holds of a chunk's values and flags, as in the GPU service's request
 */
static int64
chunk_elems(const CompactArgs *args)
{
	int			size = result_size(args);
	bool		positions = args->result_type == INT4OID;

	return gs_chunk_elems(Max(positions ? 1 : size + 1, size));
}

/* compact_chunk_on_cpu -- compact count elements from start to out; the kept count */
static int64
compact_chunk_on_cpu(const CompactArgs *args, int64 start, int64 count, char *out)
{
	const uint8 *keep = args->keep + start;
	const char *vals = args->vals.data + start * result_size(args);

	switch (args->result_type)
	{
		case FLOAT8OID:
			return cpu_compact_f64((const double *) vals, keep, count, (double *) out);
		case FLOAT4OID:
			return cpu_compact_f32((const float *) vals, keep, count, (float *) out);
		default:
			return cpu_compact_indices(keep, count, (int32) (start + 1), (int32 *) out);
	}
}

/*
 * compact_on_cpu -- the CPU path of compact_into; returns the kept count.
 * out has room for args->n + 1 elements, fresh memory where the input is
 * large: while a chunk is compacted to out + kept, which it fills up to at
 * most count (+ 1) elements, the copy workers take the page faults of the
 * room the next chunk may fill after that, which this one never writes.
 */
static int64
compact_on_cpu(const CompactArgs *args, char *out)
{
	int			size = result_size(args);
	int64		chunk = chunk_elems(args);
	int64		kept = 0;
	int64		start,
				k;

	if (args->n > chunk)
		gs_copy_workers_begin(args->fn);
	for (start = 0, k = 0; start < args->n; start += chunk, k++)
	{
		int64		count = Min(chunk, args->n - start);
		int64		ahead = kept + count + 1;	/* past what this chunk may write */
		int64		next = Min(chunk, args->n - start - count);

		if (args->result_type != INT4OID)
			gs_array_check_nulls(&args->vals, start, count);
		gs_profile_mark(GS_STAGE_CHECKS);
		if (next > 0)
			gs_prefault_start(out + ahead * size, Min(next, args->n + 1 - ahead) * size);
		kept += compact_chunk_on_cpu(args, start, count, out + kept * size);
		gs_copy_wait();
		gs_profile_mark(GS_STAGE_CPU);
		gs_chunk_done(k);
	}
	return kept;
}

/*
 * compact_into -- the kept values (or positions) into out, which has room
 * for args->n + 1 elements, on the path gs_use_gpu chooses; the kept count
 */
static int64
compact_into(const CompactArgs *args, char *out)
{
	GsTimer		timer;
	bool		on_gpu = gs_use_gpu(args->fn, GS_WORK_COMPACT, args->n, result_size(args));
	int64		bytes_moved = 0;
	int64		kept;

	gs_profile_mark(GS_STAGE_DISPATCH);
	gs_timer_start(&timer);
	if (on_gpu)
		on_gpu = (bytes_moved = gs_service_compact(args->result_type, &args->vals, args->keep,
												   args->n, out, &kept, args->fn)) >= 0;
	if (!on_gpu)
	{
		bytes_moved = 0;
		kept = compact_on_cpu(args, out);
	}
	gs_stats_record(args->fn, on_gpu, args->n, bytes_moved, &timer);
	return kept;
}

/* ---- vals from the GPU service's device cache ---- */

/* Where the kept values of a call on a cached vals go */
typedef struct KeptRoom
{
	Oid			elemtype;
	const char *fn;
	ArrayType  *array;			/* compact_array's result */
	MemoryContext cxt;			/* compact_rows': rows allocated here */
	GsRows	   *rows;
} KeptRoom;

/* kept_size -- bytes of one kept element: a value, or a position (INT4OID) */
static int
kept_size(Oid elemtype)
{
	return elemtype == INT4OID ? sizeof(int32) : gs_float_size(elemtype);
}

/* kept_array -- GsKeptAlloc: a new array for n kept values */
static void *
kept_array(void *arg, int64 n)
{
	KeptRoom   *room = arg;
	static double none;

	if (n == 0)
	{
		room->array = construct_empty_array(room->elemtype);
		return &none;
	}
	room->array = gs_new_array(room->elemtype, kept_size(room->elemtype), n, 1, 0, room->fn);
	return ARR_DATA_PTR(room->array);
}

/* kept_rows -- GsKeptAlloc: rows for n kept values */
static void *
kept_rows(void *arg, int64 n)
{
	KeptRoom   *room = arg;

	room->rows->values = MemoryContextAllocExtended(room->cxt,
													(n + 1) * kept_size(room->elemtype),
													MCXT_ALLOC_HUGE);
	room->rows->n = n;
	room->rows->type = room->elemtype;
	return room->rows->values;
}

/* the flags of gpu_compact_indices' keep for the device cache, read once */
typedef struct KeepReader
{
	FunctionCallInfo fcinfo;
	CompactArgs *args;
} KeepReader;

/* read_keep -- GsFlagsRead: keep (argument 0) read and checked into the args */
static const uint8 *
read_keep(void *arg, int64 *n)
{
	KeepReader *r = arg;

	if (!r->args->keep_read)
	{
		open_keep(r->args, gs_getarg_array(r->fcinfo, 0));
		r->args->keep_read = true;
	}
	*n = r->args->n;
	return r->args->keep;
}

/*
 * kept_trim -- the result of a call through the device cache cut to the
 * `kept` values written into its room
 */
static void
kept_trim(KeptRoom *room, int64 kept)
{
	if (room->rows)
		room->rows->n = kept;
	else if (kept == 0)
		room->array = construct_empty_array(room->elemtype);
	else if (kept < ARR_DIMS(room->array)[0])
		room->array = gs_array_truncate(room->array, kept);
}

/*
 * compact_cached -- the call through the device cache (cached_call.h)
 * where vals (argument 0) may come from it, keep read and checked into
 * *args (zeroed by the caller) as open_args does, or, stored large and
 * without NULLs, read slice by slice as the chunks go: true if it ran
 * there; where not, open_args reads vals (and keep, if it was streamed).
 * keep must be one-dimensional, or its error would come before vals'
 * (open_args checks vals first).  For
 * gpu_compact_indices keep is argument 0, read only where the cache lacks
 * it.
 */
static bool
compact_cached(FunctionCallInfo fcinfo, Oid elemtype, CompactArgs *args, KeptRoom *room,
			   GsKeptAlloc alloc)
{
	ArrayType  *keep;
	GsArrayStream stored;
	GsFlags		flags = {NULL, NULL, NULL};
	int64		n;
	int64		kept;
	bool		done;

	args->fn = room->fn;
	args->result_type = elemtype;
	if (elemtype == INT4OID)
	{
		KeepReader reader = {fcinfo, args};

		if (!gs_cache_candidate(fcinfo, 0, BOOLOID) ||
			!gs_cached_compact_indices(fcinfo, read_keep, &reader, alloc, room, &kept, room->fn))
			return false;
		kept_trim(room, kept);
		return true;
	}
	if (!gs_cache_candidate(fcinfo, 0, elemtype))
		return false;
	if (gs_array_stream_open(&stored, fcinfo, 1, BOOLOID, gs_chunk_elems(1), room->fn, "keep"))
	{
		/* one dimension, no NULL: the flags are the stored bytes, read as the chunks go */
		flags.stored = &stored;
		n = stored.in.nelems;
	}
	else
	{
		keep = gs_getarg_array(fcinfo, 1);
		if (ARR_NDIM(keep) > 1)
			return false;
		open_keep(args, keep);
		args->keep_read = true;
		flags.bytes = args->keep;
		n = args->n;
	}
	gs_profile_mark(GS_STAGE_ARGS);
	done = gs_cached_compact(fcinfo, elemtype, &flags, n, alloc, room, &kept, room->fn);
	if (flags.stored)
		gs_array_stream_close(&stored);
	if (done)
		kept_trim(room, kept);
	return done;
}

/* ---- one row per kept element ---- */

/* compact_rows -- the result of gpu_compact or gpu_compact_indices as rows */
static void
compact_rows(FunctionCallInfo fcinfo, Oid elemtype, MemoryContext cxt, GsRows *rows)
{
	CompactArgs args;
	Size		room;
	const char *fn = elemtype == INT4OID ? "gpu_compact_indices" : "gpu_compact";
	KeptRoom	kept = {elemtype, fn, NULL, cxt, rows};

	memset(&args, 0, sizeof(args));
	if (compact_cached(fcinfo, elemtype, &args, &kept, kept_rows))
		return;
	open_args(&args, fcinfo, elemtype, fn);
	room = (args.n + 1) * result_size(&args);
	rows->values = MemoryContextAllocExtended(cxt, room, MCXT_ALLOC_HUGE);
	gs_prefer_huge_pages(rows->values, room);
	gs_profile_mark(GS_STAGE_ALLOC);
	rows->n = compact_into(&args, rows->values);
	rows->type = elemtype;
	if (room > (rows->n + 1) * result_size(&args) + GS_TRIM_BYTES)
		rows->values = repalloc_huge(rows->values, (rows->n + 1) * result_size(&args));
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
 * writes straight into the data area of an array of args.n elements (and
 * one more, see cpu_compact.h), which is then cut to the kept count.
 */
static Datum
compact_array(FunctionCallInfo fcinfo, Oid elemtype, const char *fn)
{
	CompactArgs args;
	ArrayType  *result;
	double		spare;			/* the one element cpu_compact.h may store */
	int64		kept;
	KeptRoom	room = {elemtype, fn, NULL, NULL, NULL};

	memset(&args, 0, sizeof(args));
	gs_profile_begin();
	if (compact_cached(fcinfo, elemtype, &args, &room, kept_array))
	{
		gs_profile_end();
		PG_RETURN_ARRAYTYPE_P(room.array);
	}
	open_args(&args, fcinfo, elemtype, fn);
	if (args.n == 0)
	{
		(void) compact_into(&args, (char *) &spare);	/* counted on its path */
		gs_profile_end();
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));
	}
	result = gs_new_array(elemtype, result_size(&args), args.n, 1, 1, fn);
	gs_profile_mark(GS_STAGE_ALLOC);
	kept = compact_into(&args, ARR_DATA_PTR(result));
	gs_profile_end();
	if (kept == 0)
	{
		pfree(result);
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));
	}
	PG_RETURN_ARRAYTYPE_P(gs_array_truncate(result, kept));
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
