/*-------------------------------------------------------------------------
 *
 * sum.c
 *	  gpu_sum over arrays: the exact sum of real[] or double precision[],
 *	  rounded once to double precision, on the CPU or the GPU.
 *
 * The sum is correctly rounded, so it is the same bits on every path and
 * for every order of the elements (common/gpuscan_exact.h).  Long inputs
 * are consumed in chunks (chunks.h) with interrupt checks between them,
 * so that a cancel or statement_timeout stops the call promptly.
 *
 * On the GPU the call is a streamed request to the GPU service
 * (service_call.h): the copy workers copy each chunk into the shared
 * staging while the service reduces the chunk before, and only the
 * accumulator comes back, once, at the end.
 *
 * A large stored array goes to the GPU service's device cache where it can
 * (cached_call.h); otherwise it is not fetched whole: it is read in TOAST slices
 * (array_stream.h) and summed slice by slice from one small buffer, on
 * the CPU or, a request a slice, in the GPU service.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"

#include "pg/array_input.h"
#include "pg/array_stream.h"
#include "client/cached_call.h"
#include "pg/call_profile.h"
#include "cpu/cpu_sum.h"
#include "dispatch/dispatch.h"
#include "client/service_call.h"
#include "pg/chunks.h"
#include "dispatch/stats.h"
#include "functions/sum.h"

/* cpu_sum_chunk -- add count values of elemtype at chunk into acc */
static void
cpu_sum_chunk(gs_exact_acc *acc, const char *chunk, int64 count, Oid elemtype)
{
	if (elemtype == FLOAT8OID)
		cpu_sum_exact_f64((const double *) chunk, count, acc);
	else
		cpu_sum_exact_f32((const float *) chunk, count, acc);
}

/* sum_on_cpu -- the CPU path of gs_sum_into */
static void
sum_on_cpu(gs_exact_acc *acc, const char *values, int64 n, Oid elemtype,
		   const GsArrayInput *in)
{
	int			elemsize = gs_float_size(elemtype);
	int64		chunk = gs_chunk_elems(elemsize);
	int64		start,
				k;

	for (start = 0, k = 0; start < n; start += chunk, k++)
	{
		int64		count = Min(chunk, n - start);

		if (in)
			gs_array_check_nulls(in, start, count);
		gs_profile_mark(GS_STAGE_CHECKS);
		cpu_sum_chunk(acc, values + start * elemsize, count, elemtype);
		gs_profile_mark(GS_STAGE_CPU);
		gs_chunk_done(k);
	}
}

/* gs_sum_into -- see sum.h */
void
gs_sum_into(gs_exact_acc *acc, const void *values, int64 n, Oid elemtype,
			const GsArrayInput *in, const char *fn)
{
	GsTimer		timer;
	bool		on_gpu = gs_use_gpu(fn, GS_WORK_SUM, n, gs_float_size(elemtype));
	int64		bytes_moved = 0;

	gs_profile_mark(GS_STAGE_DISPATCH);
	gs_timer_start(&timer);
	if (on_gpu)
		on_gpu = (bytes_moved = gs_service_sum(acc, values, n, elemtype, in, fn)) >= 0;
	if (!on_gpu)
	{
		bytes_moved = 0;
		sum_on_cpu(acc, values, n, elemtype, in);
	}
	gs_stats_record(fn, on_gpu, n, bytes_moved, &timer);
}

/*
 * sum_stream_slices -- a stored array, slice by slice, on the CPU or, where
 * on_gpu, in the GPU service: each slice read is sent to it, and a slice
 * it cannot take (under auto) and the rest are summed on the CPU.  Whether
 * the service took them all.
 */
static bool
sum_stream_slices(gs_exact_acc *acc, GsArrayStream *s, bool on_gpu, int64 *bytes_moved)
{
	int64		start,
				k;

	for (start = 0, k = 0; start < s->in.nelems; start += s->buf_elems, k++)
	{
		int64		count = Min(s->buf_elems, s->in.nelems - start);
		const char *slice = gs_array_stream_read(s, start, count);
		int64		moved;

		gs_profile_mark(GS_STAGE_ARGS);
		if (on_gpu &&
			(moved = gs_service_sum(acc, slice, count, s->in.elemtype, NULL, "gpu_sum")) >= 0)
			*bytes_moved += moved;
		else
		{
			on_gpu = false;
			cpu_sum_chunk(acc, slice, count, s->in.elemtype);
		}
		gs_profile_mark(on_gpu ? GS_STAGE_KERNEL : GS_STAGE_CPU);
		gs_chunk_done(k);
	}
	return on_gpu;
}

/*
 * sum_stream -- gpu_sum over a stored array read in slices, on the path
 * gs_use_gpu chooses
 */
static double
sum_stream(GsArrayStream *s)
{
	GsTimer		timer;
	gs_exact_acc acc;
	bool		on_gpu = gs_use_gpu("gpu_sum", GS_WORK_SUM, s->in.nelems, s->in.elemsize);
	int64		bytes_moved = 0;

	gs_profile_mark(GS_STAGE_DISPATCH);
	gs_timer_start(&timer);
	gs_acc_zero(&acc);
	on_gpu = sum_stream_slices(&acc, s, on_gpu, &bytes_moved);
	gs_dispatch_not_measured();
	gs_stats_record("gpu_sum", on_gpu, s->in.nelems, bytes_moved, &timer);
	return gs_acc_round(&acc);
}

/* sum_array -- gpu_sum over an array of elemtype */
static double
sum_array(ArrayType *array, Oid elemtype)
{
	GsArrayInput in;
	gs_exact_acc acc;

	gs_array_open(&in, array, elemtype, "gpu_sum", "vals");
	gs_profile_mark(GS_STAGE_ARGS);
	gs_acc_zero(&acc);
	gs_sum_into(&acc, in.data, in.nelems, elemtype, &in, "gpu_sum");
	return gs_acc_round(&acc);
}

PG_FUNCTION_INFO_V1(gpu_sum_float8_array);

/*
 * sum_argument -- gpu_sum over argument 0, an array of elemtype: from the
 * GPU service's cache where it is a stored value the cache takes, else
 * streamed where it is a large stored value, else fetched whole
 */
static double
sum_argument(FunctionCallInfo fcinfo, Oid elemtype)
{
	GsArrayStream s;
	gs_exact_acc acc;
	double		sum;

	gs_profile_begin();
	gs_acc_zero(&acc);
	if (gs_cached_sum(fcinfo, 0, elemtype, &acc, "gpu_sum"))
		sum = gs_acc_round(&acc);
	else if (gs_array_stream_open(&s, fcinfo, 0, elemtype,
							 gs_chunk_elems(gs_float_size(elemtype)), "gpu_sum", "vals"))
	{
		gs_profile_mark(GS_STAGE_ARGS);
		sum = sum_stream(&s);
		gs_array_stream_close(&s);
	}
	else
		sum = sum_array(gs_getarg_array(fcinfo, 0), elemtype);
	gs_profile_end();
	return sum;
}

/* gpu_sum(double precision[]) -- correctly rounded sum; 0 when empty */
Datum
gpu_sum_float8_array(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(sum_argument(fcinfo, FLOAT8OID));
}

PG_FUNCTION_INFO_V1(gpu_sum_float4_array);

/* gpu_sum(real[]) -- the same, over real; the result is double precision */
Datum
gpu_sum_float4_array(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(sum_argument(fcinfo, FLOAT4OID));
}
