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
 * On the GPU each chunk goes through a pinned staging slot: the copy
 * workers copy it in while the chunk before is uploaded and reduced, and
 * only the accumulator comes back, once, at the end.
 *
 * A large stored array goes to the GPU service's device cache where it can
 * (cached_call.h); otherwise it is not fetched whole: it is read in TOAST slices
 * (array_stream.h) and summed slice by slice, on the CPU from one small
 * buffer, on the GPU straight into the staging slots, so that each
 * slice's copy to the device and its reduction run while the next slice
 * is read.
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
#include "session_gpu/session_device.h"
#include "dispatch/dispatch.h"
#include "gpuscan_device.h"
#include "client/service_call.h"
#include "pg/chunks.h"
#include "session_gpu/staging_slots.h"
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

/* gpu_sum_chunk -- queue the reduction of count device values into d_acc */
static void
gpu_sum_chunk(const void *d_buf, int64 count, gs_exact_acc *d_acc, Oid elemtype, const char *fn)
{
	if (elemtype == FLOAT8OID)
		GS_DEVICE_CHECK(gsd_sum_exact_f64(d_buf, count, d_acc, NULL), fn);
	else
		GS_DEVICE_CHECK(gsd_sum_exact_f32(d_buf, count, d_acc, NULL), fn);
}

/* device_acc_new -- a zeroed accumulator in the device scratch */
static gs_exact_acc *
device_acc_new(const char *fn)
{
	GsSlot		scratch = gs_slot(GSD_SCRATCH_SLOT, fn);

	GS_DEVICE_CHECK(gsd_memset_zero(scratch.device, sizeof(gs_exact_acc)), fn);
	return (gs_exact_acc *) scratch.device;
}

/*
 * device_acc_finish -- bring the device accumulator back (the call's one
 * wait for the device) and add it into acc
 */
static void
device_acc_finish(gs_exact_acc *acc, gs_exact_acc *d_acc, const char *fn)
{
	GsSlot		scratch;

	gs_download_to_slot(GSD_SCRATCH_SLOT, 0, d_acc, sizeof(gs_exact_acc), fn);
	scratch = gs_slot(GSD_SCRATCH_SLOT, fn);
	gs_profile_mark(GS_STAGE_WAIT);
	gs_acc_merge(acc, (const gs_exact_acc *) scratch.host);
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

/*
 * sum_on_gpu -- the GPU path: each chunk is copied into a staging slot (the
 * four in turn), uploaded and reduced into the device accumulator while
 * the next chunk is copied in.  The profile's marks do not wait for the
 * device, so that they show the overlap.
 */
static int64
sum_on_gpu(gs_exact_acc *acc, const char *values, int64 n, Oid elemtype,
		   const GsArrayInput *in, const char *fn)
{
	int			elemsize = gs_float_size(elemtype);
	int64		chunk;
	gs_exact_acc *d_acc;
	int64		start,
				k;

	gs_staging_begin(fn);
	chunk = gs_chunk_elems(elemsize);
	d_acc = device_acc_new(fn);
	for (start = 0, k = 0; start < n; start += chunk, k++)
	{
		int64		count = Min(chunk, n - start);
		int			slot = (int) (k % GSD_STAGING_SLOTS);
		GsSlot		s = gs_slot(slot, fn);

		gs_profile_mark(GS_STAGE_WAIT);
		gs_stage_in(s.host, in, values, elemsize, start, count);
		gs_profile_mark(GS_STAGE_UPLOAD);
		gs_upload_slot(slot, 0, count * elemsize, fn);
		gpu_sum_chunk(s.device, count, d_acc, elemtype, fn);
		gs_profile_mark(GS_STAGE_KERNEL);
		gs_chunk_done(k);
	}
	device_acc_finish(acc, d_acc, fn);
	return n * elemsize + (int64) sizeof(gs_exact_acc);
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
	if (on_gpu && gs_gpu_in_service())
		on_gpu = (bytes_moved = gs_service_sum(acc, values, n, elemtype, in, fn)) >= 0;
	else if (on_gpu)
		bytes_moved = sum_on_gpu(acc, values, n, elemtype, in, fn);
	if (!on_gpu)
	{
		bytes_moved = 0;
		sum_on_cpu(acc, values, n, elemtype, in);
	}
	gs_stats_record(fn, on_gpu, n, bytes_moved, &timer);
}

/*
 * where a slice's elements start in a staging slot: the TOAST slice is read
 * as a varlena whose 4-byte header ends here, so that the elements lie on
 * an 8-byte boundary on both sides of the upload
 */
#define SLICE_DATA_OFFSET	8

/*
 * sum_stream_on_gpu -- the GPU path over a stored array: each slice is read
 * from the TOAST table straight into a pinned staging slot, whose upload
 * and reduction then run while the next slice is read into the next slot.
 */
static int64
sum_stream_on_gpu(gs_exact_acc *acc, GsArrayStream *s, const char *fn)
{
	int			elemsize = s->in.elemsize;
	int64		n = s->in.nelems;
	int64		slice_elems;
	gs_exact_acc *d_acc;
	int64		start,
				k;

	gs_staging_begin(fn);
	slice_elems = gs_chunk_elems(elemsize);
	d_acc = device_acc_new(fn);
	for (start = 0, k = 0; start < n; start += slice_elems, k++)
	{
		int64		count = Min(slice_elems, n - start);
		int			slot = (int) (k % GSD_STAGING_SLOTS);
		GsSlot		buf = gs_slot(slot, fn);

		gs_profile_mark(GS_STAGE_WAIT);
		(void) gs_array_stream_read_to(s, start, count,
									   (struct varlena *) (buf.host + SLICE_DATA_OFFSET - VARHDRSZ));
		gs_profile_mark(GS_STAGE_ARGS);
		gs_upload_slot(slot, SLICE_DATA_OFFSET, count * elemsize, fn);
		gpu_sum_chunk(buf.device + SLICE_DATA_OFFSET, count, d_acc, s->in.elemtype, fn);
		gs_profile_mark(GS_STAGE_KERNEL);
		gs_chunk_done(k);
	}
	device_acc_finish(acc, d_acc, fn);
	return n * elemsize + (int64) sizeof(gs_exact_acc);
}

/*
 * sum_stream_slices -- the CPU path over a stored array, slice by slice, or
 * where in_service, the GPU service's: each slice read is sent to it, and
 * a slice it cannot take (under auto) and the rest are summed on the CPU.
 * Whether the service took them all.
 */
static bool
sum_stream_slices(gs_exact_acc *acc, GsArrayStream *s, bool in_service, int64 *bytes_moved)
{
	int64		start,
				k;

	for (start = 0, k = 0; start < s->in.nelems; start += s->buf_elems, k++)
	{
		int64		count = Min(s->buf_elems, s->in.nelems - start);
		const char *slice = gs_array_stream_read(s, start, count);
		int64		moved;

		gs_profile_mark(GS_STAGE_ARGS);
		if (in_service &&
			(moved = gs_service_sum(acc, slice, count, s->in.elemtype, NULL, "gpu_sum")) >= 0)
			*bytes_moved += moved;
		else
		{
			in_service = false;
			cpu_sum_chunk(acc, slice, count, s->in.elemtype);
		}
		gs_profile_mark(in_service ? GS_STAGE_KERNEL : GS_STAGE_CPU);
		gs_chunk_done(k);
	}
	return in_service;
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
	if (on_gpu && !gs_gpu_in_service())
		bytes_moved = sum_stream_on_gpu(&acc, s, "gpu_sum");
	else
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
