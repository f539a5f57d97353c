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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"

#include "call_profile.h"
#include "cpu_sum.h"
#include "gpuscan.h"

/* elements per chunk between interrupt checks */
#define CPU_CHUNK_ELEMS		((int64) 4 << 20)
#define GPU_CHUNK_ELEMS		((int64) 16 << 20)

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
		if (elemtype == FLOAT8OID)
			cpu_sum_exact_f64((const double *) chunk, count, acc);
		else
			cpu_sum_exact_f32((const float *) chunk, count, acc);
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
	gs_exact_acc *d_acc;
	void	   *d_buf;
	gs_exact_acc part;
	int64		start;

	d_acc = gs_device_alloc(sizeof(gs_exact_acc), fn);
	d_buf = gs_device_alloc(chunk_elems * elemsize, fn);
	GS_DEVICE_CHECK(gsd_memset_zero(d_acc, sizeof(gs_exact_acc)), fn);
	gs_profile_device_mark(GS_STAGE_ALLOC);

	for (start = 0; start < n; start += chunk_elems)
	{
		int64		count = Min(chunk_elems, n - start);

		if (in)
			gs_array_check_nulls(in, start, count);
		gs_profile_mark(GS_STAGE_CHECKS);
		GS_DEVICE_CHECK(gsd_upload(d_buf, values + start * elemsize, count * elemsize), fn);
		gs_profile_mark(GS_STAGE_UPLOAD);
		if (elemtype == FLOAT8OID)
			GS_DEVICE_CHECK(gsd_sum_exact_f64(d_buf, count, d_acc, NULL), fn);
		else
			GS_DEVICE_CHECK(gsd_sum_exact_f32(d_buf, count, d_acc, NULL), fn);
		gs_profile_device_mark(GS_STAGE_KERNEL);
		CHECK_FOR_INTERRUPTS();
	}
	GS_DEVICE_CHECK(gsd_download(&part, d_acc, sizeof(part)), fn);
	gs_profile_mark(GS_STAGE_DOWNLOAD);
	gs_device_free(d_buf);
	gs_device_free(d_acc);
	gs_profile_mark(GS_STAGE_ALLOC);

	gs_acc_merge(acc, &part);
	return n * elemsize + (int64) sizeof(part);
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

/* gpu_sum(double precision[]) -- correctly rounded sum; 0 when empty */
Datum
gpu_sum_float8_array(PG_FUNCTION_ARGS)
{
	double		sum;

	gs_profile_begin();
	sum = sum_array(PG_GETARG_ARRAYTYPE_P(0), FLOAT8OID);
	gs_profile_end();
	PG_RETURN_FLOAT8(sum);
}

PG_FUNCTION_INFO_V1(gpu_sum_float4_array);

/* gpu_sum(real[]) -- the same, over real; the result is double precision */
Datum
gpu_sum_float4_array(PG_FUNCTION_ARGS)
{
	double		sum;

	gs_profile_begin();
	sum = sum_array(PG_GETARG_ARRAYTYPE_P(0), FLOAT4OID);
	gs_profile_end();
	PG_RETURN_FLOAT8(sum);
}
