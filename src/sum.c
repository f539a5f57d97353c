/*-------------------------------------------------------------------------
 *
 * sum.c
 *	  gpu_sum over arrays: the exact sum of real[] or double precision[],
 *	  rounded once to double precision, on the CPU or the GPU.
 *
 * The sum is correctly rounded, so it is the same bits on every path and
 * for every order of the elements (common/gpuscan_exact.h).  Long inputs
 * are consumed in chunks with interrupt checks between them, so that a
 * cancel or statement_timeout stops the call promptly.
 *
 * A large stored array is not fetched whole: it is read in TOAST slices
 * (array_stream.h) and summed slice by slice, on the CPU from one small
 * buffer, on the GPU through two pinned staging buffers, so that each
 * slice's copy to the device and its reduction run while the next slice
 * is read.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"

#include "array_stream.h"
#include "call_profile.h"
#include "cpu_sum.h"
#include "gpuscan.h"

/* elements per chunk between interrupt checks */
#define CPU_CHUNK_ELEMS		((int64) 4 << 20)
#define GPU_CHUNK_ELEMS		((int64) 16 << 20)

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

/* device_acc_new -- a zeroed accumulator in device memory */
static gs_exact_acc *
device_acc_new(const char *fn)
{
	gs_exact_acc *d_acc = gs_device_alloc(sizeof(gs_exact_acc), fn);

	GS_DEVICE_CHECK(gsd_memset_zero(d_acc, sizeof(gs_exact_acc)), fn);
	return d_acc;
}

/*
 * device_acc_finish -- bring the device accumulator back, add it into acc,
 * and free it and the chunk buffer
 */
static void
device_acc_finish(gs_exact_acc *acc, gs_exact_acc *d_acc, void *d_buf, const char *fn)
{
	gs_exact_acc part;

	GS_DEVICE_CHECK(gsd_download(&part, d_acc, sizeof(part)), fn);
	gs_profile_mark(GS_STAGE_DOWNLOAD);
	gs_device_free(d_buf);
	gs_device_free(d_acc);
	gs_profile_mark(GS_STAGE_ALLOC);
	gs_acc_merge(acc, &part);
}

/* sum_on_cpu -- the CPU path of gs_sum_into */
static void
sum_on_cpu(gs_exact_acc *acc, const char *values, int64 n, Oid elemtype,
		   const GsArrayInput *in)
{
	int			elemsize = gs_float_size(elemtype);
	int64		start;

	for (start = 0; start < n; start += CPU_CHUNK_ELEMS)
	{
		int64		count = Min(CPU_CHUNK_ELEMS, n - start);
		const char *chunk = values + start * elemsize;

		if (in)
			gs_array_check_nulls(in, start, count);
		gs_profile_mark(GS_STAGE_CHECKS);
		cpu_sum_chunk(acc, chunk, count, elemtype);
		gs_profile_mark(GS_STAGE_CPU);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * sum_on_gpu -- the GPU path: each chunk is copied into one device buffer
 * and reduced into a device accumulator, which comes back once at the end.
 */
static int64
sum_on_gpu(gs_exact_acc *acc, const char *values, int64 n, Oid elemtype,
		   const GsArrayInput *in, const char *fn)
{
	int			elemsize = gs_float_size(elemtype);
	int64		chunk_elems = Min(GPU_CHUNK_ELEMS, Max(n, 1));
	gs_exact_acc *d_acc = device_acc_new(fn);
	void	   *d_buf = gs_device_alloc(chunk_elems * elemsize, fn);
	int64		start;

	gs_profile_device_mark(GS_STAGE_ALLOC);

	for (start = 0; start < n; start += chunk_elems)
	{
		int64		count = Min(chunk_elems, n - start);

		if (in)
			gs_array_check_nulls(in, start, count);
		gs_profile_mark(GS_STAGE_CHECKS);
		GS_DEVICE_CHECK(gsd_upload(d_buf, values + start * elemsize, count * elemsize), fn);
		gs_profile_mark(GS_STAGE_UPLOAD);
		gpu_sum_chunk(d_buf, count, d_acc, elemtype, fn);
		gs_profile_device_mark(GS_STAGE_KERNEL);
		CHECK_FOR_INTERRUPTS();
	}
	device_acc_finish(acc, d_acc, d_buf, fn);
	return n * elemsize + (int64) sizeof(gs_exact_acc);
}

/* gs_sum_into -- see gpuscan.h */
void
gs_sum_into(gs_exact_acc *acc, const void *values, int64 n, Oid elemtype,
			const GsArrayInput *in, const char *fn)
{
	GsTimer		timer;
	bool		on_gpu = gs_use_gpu(fn, n, false);
	int64		bytes_moved = 0;

	gs_profile_mark(GS_STAGE_DISPATCH);
	gs_timer_start(&timer);
	if (on_gpu)
		bytes_moved = sum_on_gpu(acc, values, n, elemtype, in, fn);
	else
		sum_on_cpu(acc, values, n, elemtype, in);
	gs_stats_record(fn, on_gpu, n, bytes_moved, &timer);
}

/* bytes of a slice of a stored array summed on the CPU */
#define STREAM_SLICE_BYTES	((int64) 8 << 20)

/* sum_stream_on_cpu -- the CPU path over a stored array, slice by slice */
static void
sum_stream_on_cpu(gs_exact_acc *acc, GsArrayStream *s)
{
	int64		start;

	for (start = 0; start < s->in.nelems; start += s->buf_elems)
	{
		int64		count = Min(s->buf_elems, s->in.nelems - start);
		const char *slice = gs_array_stream_read(s, start, count);

		gs_profile_mark(GS_STAGE_ARGS);
		cpu_sum_chunk(acc, slice, count, s->in.elemtype);
		gs_profile_mark(GS_STAGE_CPU);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * sum_stream_on_gpu -- the GPU path over a stored array: each slice is read
 * from the TOAST table straight into a pinned staging buffer, whose copy to
 * the device and reduction then run while the next slice is read into the
 * other buffer.  The profile's marks here do not wait for the device, so
 * that they show the overlap: what is left of the device work shows as the
 * final download.
 */
static int64
sum_stream_on_gpu(gs_exact_acc *acc, GsArrayStream *s, const char *fn)
{
	int			elemsize = s->in.elemsize;
	int64		n = s->in.nelems;
	int64		slice_elems = (GSD_STAGING_BYTES - VARHDRSZ) / elemsize;
	gs_exact_acc *d_acc = device_acc_new(fn);
	void	   *d_buf = gs_device_alloc(slice_elems * elemsize, fn);
	int64		start;
	int			k;

	gs_profile_mark(GS_STAGE_ALLOC);

	for (start = 0, k = 0; start < n; start += slice_elems, k++)
	{
		int64		count = Min(slice_elems, n - start);
		int			slot = k % GSD_STAGING_SLOTS;
		void	   *host;

		GS_DEVICE_CHECK(gsd_staging_buffer(slot, &host), fn);
		gs_profile_mark(GS_STAGE_UPLOAD);
		(void) gs_array_stream_read_to(s, start, count, (struct varlena *) host);
		gs_profile_mark(GS_STAGE_ARGS);
		GS_DEVICE_CHECK(gsd_upload_staged(d_buf, slot, VARHDRSZ, count * elemsize), fn);
		gpu_sum_chunk(d_buf, count, d_acc, s->in.elemtype, fn);
		gs_profile_mark(GS_STAGE_KERNEL);
		CHECK_FOR_INTERRUPTS();
	}
	device_acc_finish(acc, d_acc, d_buf, fn);
	return n * elemsize + (int64) sizeof(gs_exact_acc);
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
	bool		on_gpu = gs_use_gpu("gpu_sum", s->in.nelems, false);
	int64		bytes_moved = 0;

	gs_profile_mark(GS_STAGE_DISPATCH);
	gs_timer_start(&timer);
	gs_acc_zero(&acc);
	if (on_gpu)
		bytes_moved = sum_stream_on_gpu(&acc, s, "gpu_sum");
	else
		sum_stream_on_cpu(&acc, s);
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
 * sum_argument -- gpu_sum over argument 0, an array of elemtype: streamed
 * where it is a large stored value, else fetched whole
 */
static double
sum_argument(FunctionCallInfo fcinfo, Oid elemtype)
{
	GsArrayStream s;
	double		sum;

	gs_profile_begin();
	if (gs_array_stream_open(&s, fcinfo, 0, elemtype,
							 STREAM_SLICE_BYTES / gs_float_size(elemtype), "gpu_sum", "vals"))
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
