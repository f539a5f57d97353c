/*-------------------------------------------------------------------------
 *
 * prefix_sum.c
 *	  Prefix sums (scans) on the CPU or the GPU: gpu_prefix_sum (one row per
 *	  element), gpu_prefix_sum_array (an array, for chaining) and the window
 *	  function gpu_running_sum.
 *
 * Every output is the exact prefix sum rounded once to double precision
 * (cpu_prefix_sum.h, gsd_prefix_sum_f64 in gpuscan_device.h), so it is the same
 * bits on every path and for every chunking, at least as close to the
 * exact value as PostgreSQL's sequential sum() OVER, and the last inclusive
 * output equals gpu_sum() of the input.  Long inputs are scanned in chunks
 * (chunks.h) that share one exact carry, with interrupt checks between
 * them.  On the CPU the copy workers take the page faults of the next
 * chunk's results while this one is scanned; on the GPU the call is a
 * streamed request to the GPU service (service_call.h), each chunk's
 * results copied out while the service scans the chunks after it.
 *
 * The path is gs_use_gpu's (the cost model, under gpuscan.device = auto);
 * the results are the same bits on either.
 *
 * gpu_running_sum reads its partition ahead in chunks (up to 1024 rows),
 * scans each chunk's non-NULL values from the exact carry of the rows
 * before it and then hands out one result per row; see RunningSumState.
 * It ignores the window's frame clause (as row_number does): the result is
 * always that of ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "windowapi.h"

#include "pg/array_input.h"
#include "pg/array_stream.h"
#include "client/cached_call.h"
#include "pg/call_profile.h"
#include "cpu/copy_workers.h"
#include "cpu/cpu_prefix_sum.h"
#include "dispatch/dispatch.h"
#include "pg/result_rows.h"
#include "client/service_call.h"
#include "pg/chunks.h"
#include "dispatch/stats.h"

/*
 * scan_on_cpu -- the CPU path of prefix_sum_into.  While a chunk is
 * scanned, the copy workers take the page faults of the next chunk's part
 * of `out` (fresh memory, for a large result); no ERROR can come while they
 * do.
 */
static void
scan_on_cpu(double *out, const char *values, int64 n, Oid elemtype,
			bool exclusive, const GsArrayInput *in, gs_exact_acc *carry, const char *fn)
{
	int			elemsize = gs_float_size(elemtype);
	int64		chunk = gs_chunk_elems(sizeof(double));
	int64		start,
				k;

	if (n > chunk)
		gs_copy_workers_begin(fn);
	for (start = 0, k = 0; start < n; start += chunk, k++)
	{
		int64		count = Min(chunk, n - start);
		int64		next = start + count;
		const char *vals = values + start * elemsize;

		if (in)
			gs_array_check_nulls(in, start, count);
		gs_profile_mark(GS_STAGE_CHECKS);
		if (next < n)
			gs_prefault_start(out + next, Min(chunk, n - next) * sizeof(double));
		if (elemtype == FLOAT8OID)
			cpu_prefix_sum_f64((const double *) vals, count, out + start, exclusive, carry);
		else
			cpu_prefix_sum_f32((const float *) vals, count, out + start, exclusive, carry);
		gs_copy_wait();
		gs_profile_mark(GS_STAGE_CPU);
		gs_chunk_done(k);
	}
}

/*
 * prefix_sum_into -- out[0..n) = the correctly rounded prefix sums of n
 * values of elemtype (FLOAT8OID or FLOAT4OID), on the path gs_use_gpu
 * chooses for `fn`.  If `in` is not NULL, its NULLs are checked chunk by
 * chunk as the values are consumed.  *carry is the exact sum of what came
 * before values[0] and ends including the n values; NULL means none.
 */
static void
prefix_sum_into(double *out, const void *values, int64 n, Oid elemtype,
				bool exclusive, const GsArrayInput *in, gs_exact_acc *carry,
				const char *fn)
{
	GsTimer		timer;
	bool		on_gpu = gs_use_gpu(fn, GS_WORK_PREFIX_SUM, n, gs_float_size(elemtype));
	int64		bytes_moved = 0;
	gs_exact_acc zero;

	if (carry == NULL)
	{
		gs_acc_zero(&zero);
		carry = &zero;
	}
	gs_profile_mark(GS_STAGE_DISPATCH);
	gs_timer_start(&timer);
	if (on_gpu)
		on_gpu = (bytes_moved = gs_service_prefix_sum(out, values, n, elemtype, exclusive, in,
													  carry, fn)) >= 0;
	if (!on_gpu)
	{
		bytes_moved = 0;
		scan_on_cpu(out, values, n, elemtype, exclusive, in, carry, fn);
	}
	gs_stats_record(fn, on_gpu, n, bytes_moved, &timer);
}

/*
 * alloc_results -- room for n doubles in `cxt`; arrays above 1 GB are
 * allowed (a huge chunk), results of a real[] can be twice its size.
 */
static double *
alloc_results(MemoryContext cxt, int64 n)
{
	double	   *out = MemoryContextAllocExtended(cxt, Max(n, 1) * sizeof(double),
												 MCXT_ALLOC_HUGE);

	gs_prefer_huge_pages(out, Max(n, 1) * sizeof(double));
	return out;
}

/* ---- gpu_prefix_sum: one row per element ---- */

/* the result rows of a call from the GPU service's cache, and where they live */
typedef struct CachedRows
{
	MemoryContext cxt;
	GsRows	   *rows;
} CachedRows;

/* cached_rows -- a GsResultAlloc: room for n result rows */
static double *
cached_rows(void *arg, int64 n, int32 lbound)
{
	CachedRows *c = arg;

	c->rows->values = alloc_results(c->cxt, n);
	c->rows->n = n;
	c->rows->type = FLOAT8OID;
	return c->rows->values;
}

/* prefix_sum_rows -- the prefix sums of argument 0 as result rows */
static void
prefix_sum_rows(FunctionCallInfo fcinfo, Oid elemtype, MemoryContext cxt, GsRows *rows)
{
	GsArrayInput in;
	CachedRows	cached = {cxt, rows};

	if (gs_cached_prefix_sum(fcinfo, elemtype, PG_GETARG_BOOL(1), cached_rows, &cached,
							 "gpu_prefix_sum"))
		return;
	gs_array_open(&in, gs_getarg_array(fcinfo, 0), elemtype, "gpu_prefix_sum", "vals");
	gs_profile_mark(GS_STAGE_ARGS);
	rows->values = alloc_results(cxt, in.nelems);
	gs_profile_mark(GS_STAGE_ALLOC);
	rows->n = in.nelems;
	rows->type = FLOAT8OID;
	prefix_sum_into(rows->values, in.data, in.nelems, elemtype, PG_GETARG_BOOL(1), &in,
					NULL, "gpu_prefix_sum");
}

PG_FUNCTION_INFO_V1(gpu_prefix_sum_float8);

/* gpu_prefix_sum(double precision[], boolean) -- one row per prefix sum */
Datum
gpu_prefix_sum_float8(PG_FUNCTION_ARGS)
{
	return gs_return_rows(fcinfo, FLOAT8OID, "gpu_prefix_sum", prefix_sum_rows);
}

PG_FUNCTION_INFO_V1(gpu_prefix_sum_float4);

/* gpu_prefix_sum(real[], boolean) -- the same over real, as double precision */
Datum
gpu_prefix_sum_float4(PG_FUNCTION_ARGS)
{
	return gs_return_rows(fcinfo, FLOAT4OID, "gpu_prefix_sum", prefix_sum_rows);
}

/* ---- gpu_prefix_sum_array: the prefix sums as an array ---- */

/*
 * cached_array -- a GsResultAlloc: a result array of n doubles with the
 * input's lower bound, into *(ArrayType **) arg
 */
static double *
cached_array(void *arg, int64 n, int32 lbound)
{
	ArrayType **result = arg;

	*result = n == 0 ? construct_empty_array(FLOAT8OID) :
		gs_new_array(FLOAT8OID, sizeof(double), n, lbound, 0, "gpu_prefix_sum_array");
	return (double *) ARR_DATA_PTR(*result);
}

/*
 * prefix_sum_array -- the result array is built in place: the scan writes
 * straight into its data area, with the input's lower bound.
 */
static Datum
prefix_sum_array(FunctionCallInfo fcinfo, Oid elemtype)
{
	const char *fn = "gpu_prefix_sum_array";
	GsArrayInput in;
	ArrayType  *result;

	gs_profile_begin();
	if (gs_cached_prefix_sum(fcinfo, elemtype, PG_GETARG_BOOL(1), cached_array, &result, fn))
	{
		gs_profile_end();
		PG_RETURN_ARRAYTYPE_P(result);
	}
	gs_array_open(&in, gs_getarg_array(fcinfo, 0), elemtype, fn, "vals");
	gs_profile_mark(GS_STAGE_ARGS);
	if (in.nelems == 0)
	{
		/* dispatched all the same, so that every call counts on its path */
		prefix_sum_into(NULL, in.data, 0, elemtype, false, &in, NULL, fn);
		gs_profile_end();
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(FLOAT8OID));
	}

	result = gs_new_array(FLOAT8OID, sizeof(double), in.nelems, ARR_LBOUND(in.array)[0], 0, fn);
	gs_profile_mark(GS_STAGE_ALLOC);
	prefix_sum_into((double *) ARR_DATA_PTR(result), in.data, in.nelems,
					elemtype, PG_GETARG_BOOL(1), &in, NULL, fn);
	gs_profile_end();
	PG_RETURN_ARRAYTYPE_P(result);
}

PG_FUNCTION_INFO_V1(gpu_prefix_sum_array_float8);

/* gpu_prefix_sum_array(double precision[], boolean) -- the prefix sums */
Datum
gpu_prefix_sum_array_float8(PG_FUNCTION_ARGS)
{
	return prefix_sum_array(fcinfo, FLOAT8OID);
}

PG_FUNCTION_INFO_V1(gpu_prefix_sum_array_float4);

/* gpu_prefix_sum_array(real[], boolean) -- the same over real */
Datum
gpu_prefix_sum_array_float4(PG_FUNCTION_ARGS)
{
	return prefix_sum_array(fcinfo, FLOAT4OID);
}

/* ---- gpu_running_sum: the window function ---- */

/*
 * The partition-local state.  WinGetPartitionLocalMemory zeroes it on the
 * first call in a partition; the buffers live in the same (partition)
 * memory context, which is reset when the partition ends.
 *
 * The rows are read ahead in chunks, each scanned from the exact carry of
 * the values before it, which gives the same bits as one scan of the whole
 * partition.  Reading a chunk ahead instead of the whole partition lets the
 * window's tuplestore drop the rows already done (WinSetMarkPosition), so
 * that a long partition streams through memory as sum() OVER (ROWS
 * UNBOUNDED PRECEDING) does, rather than being spooled to disk first (a
 * whole 10-million-row partition read at once made the query twice as
 * slow).  Chunks start small, for short partitions, and grow to
 * WINDOW_CHUNK_ROWS, small enough that even wide rows stay within work_mem
 * and in cache; the per-chunk cost (a scan call) is then still negligible.
 */
typedef struct RunningSumState
{
	int64		capacity;		/* rows the buffers hold; 0 before the first chunk */
	int64		chunk_start;	/* first row of the scanned chunk */
	int64		chunk_end;		/* one past its last row */
	int64		first_value;	/* first row with a non-NULL value, if seen */
	bool		seen_value;		/* whether first_value is set */
	double		last_sum;		/* running sum through row chunk_start - 1 */
	double	   *sums;			/* per row of the chunk: the running sum */
	char	   *values;			/* the chunk's non-NULL values */
	bits8	   *is_null;		/* per row of the chunk: the value is NULL */
	gs_exact_acc carry;			/* exact sum of the values before the chunk */
} RunningSumState;

#define WINDOW_FIRST_ROWS	64
#define WINDOW_CHUNK_ROWS	1024

/* running_sum_buffers -- (re)allocate the chunk buffers for `rows` rows */
static void
running_sum_buffers(RunningSumState *st, int64 rows, int elemsize)
{
	MemoryContext partcxt = GetMemoryChunkContext(st);

	if (st->sums != NULL)
	{
		pfree(st->sums);
		pfree(st->values);
		pfree(st->is_null);
	}
	st->sums = MemoryContextAlloc(partcxt, rows * sizeof(double));
	st->values = MemoryContextAlloc(partcxt, rows * elemsize);
	st->is_null = MemoryContextAlloc(partcxt, (rows + 7) / 8);
	st->capacity = rows;
}

/*
 * running_sum_chunk -- read the rows from chunk_end on (up to a chunk's
 * worth, or to the end of the partition), scan their non-NULL values from
 * the carry, and give every row its running sum: a NULL row repeats the
 * sum before it (NULL before the first value, which the caller handles).
 */
static void
running_sum_chunk(WindowObject winobj, RunningSumState *st, Oid elemtype)
{
	int			elemsize = gs_float_size(elemtype);
	int64		start = st->chunk_end;
	int64		limit,
				nrows,
				nvalues = 0,
				i;
	bool		any_null = false;

	/* the window API addresses rows by int */
	if (start > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpu_running_sum: window partition too large"),
				 errdetail("Window functions can address at most %lld rows of a partition.",
						   (long long) PG_INT32_MAX + 1),
				 errhint("Add a PARTITION BY clause to split the rows.")));

	if (st->capacity == 0)
		running_sum_buffers(st, WINDOW_FIRST_ROWS, elemsize);
	else if (st->capacity < WINDOW_CHUNK_ROWS)
		running_sum_buffers(st, Min(st->capacity * 4, WINDOW_CHUNK_ROWS), elemsize);
	limit = Min(st->capacity, (int64) PG_INT32_MAX + 1 - start);

	/* the rows before the chunk are never read again */
	WinSetMarkPosition(winobj, start);

	memset(st->is_null, 0, (st->capacity + 7) / 8);
	for (nrows = 0; nrows < limit; nrows++)
	{
		bool		isnull,
					isout;
		Datum		d;

		d = WinGetFuncArgInPartition(winobj, 0, (int) (start + nrows),
									 WINDOW_SEEK_HEAD, false, &isnull, &isout);
		if (isout)
			break;
		if (isnull)
		{
			st->is_null[nrows >> 3] |= (bits8) (1 << (nrows & 7));
			any_null = true;
			continue;
		}
		if (!st->seen_value)
		{
			st->seen_value = true;
			st->first_value = start + nrows;
		}
		if (elemtype == FLOAT8OID)
			((double *) st->values)[nvalues++] = DatumGetFloat8(d);
		else
			((float *) st->values)[nvalues++] = DatumGetFloat4(d);
	}
	if (nrows == 0)
		elog(ERROR, "gpu_running_sum: no row at position " INT64_FORMAT " of the partition",
			 start);

	prefix_sum_into(st->sums, st->values, nvalues, elemtype, false, NULL,
					&st->carry, "gpu_running_sum");

	if (any_null)
	{
		int64		k = nvalues;

		/* move the k-th value's sum to its row (k <= row: in place, backwards) */
		for (i = nrows - 1; i >= 0 && k > 0; i--)
			if (!(st->is_null[i >> 3] & (1 << (i & 7))))
				st->sums[i] = st->sums[--k];
		/* a NULL row repeats the sum before it */
		for (i = 0; i < nrows; i++)
			if (st->is_null[i >> 3] & (1 << (i & 7)))
				st->sums[i] = (i == 0) ? st->last_sum : st->sums[i - 1];
	}
	st->chunk_start = start;
	st->chunk_end = start + nrows;
	st->last_sum = st->sums[nrows - 1];
}

/* running_sum -- one row's result, from the chunk that holds the row */
static Datum
running_sum(FunctionCallInfo fcinfo, Oid elemtype)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	RunningSumState *st;
	int64		pos = WinGetCurrentPosition(winobj);

	st = (RunningSumState *) WinGetPartitionLocalMemory(winobj, sizeof(RunningSumState));
	if (pos < st->chunk_start)
		elog(ERROR, "gpu_running_sum: rows out of order (row " INT64_FORMAT " after row " INT64_FORMAT ")",
			 pos, st->chunk_start);
	while (pos >= st->chunk_end)
		running_sum_chunk(winobj, st, elemtype);

	if (!st->seen_value || pos < st->first_value)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(st->sums[pos - st->chunk_start]);
}

PG_FUNCTION_INFO_V1(gpu_running_sum_float8);

/* gpu_running_sum(double precision) -- correctly rounded running sum */
Datum
gpu_running_sum_float8(PG_FUNCTION_ARGS)
{
	return running_sum(fcinfo, FLOAT8OID);
}

PG_FUNCTION_INFO_V1(gpu_running_sum_float4);

/* gpu_running_sum(real) -- the same over real, as double precision */
Datum
gpu_running_sum_float4(PG_FUNCTION_ARGS)
{
	return running_sum(fcinfo, FLOAT4OID);
}
