/*-------------------------------------------------------------------------
 *
 * chunks.c
 *	  How long inputs are cut into chunks, on every path, and the copies
 *	  of a chunk by the copy workers (chunks.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <unistd.h>

#include "miscadmin.h"
#include "utils/guc.h"

#include "pg/array_input.h"
#include "pg/chunks.h"
#include "cpu/copy_workers.h"

int			gpuscan_copy_threads = -1;
int			gpuscan_debug_chunk_size_kb = 16 * 1024;
int			gpuscan_debug_cancel_after_chunks = 0;

/* gs_chunk_bytes -- see chunks.h: gpuscan.debug_chunk_size (in kB: aligned) */
Size
gs_chunk_bytes(void)
{
	return (Size) gpuscan_debug_chunk_size_kb * 1024;
}

/* gs_chunk_elems -- see chunks.h */
int64
gs_chunk_elems(int bytes_per_elem)
{
	int64		elems = (int64) ((gs_chunk_bytes() - GS_CHUNK_ALIGN) / bytes_per_elem);

	return elems / 256 * 256;
}

/* gs_copy_workers_wanted -- see chunks.h */
int
gs_copy_workers_wanted(void)
{
	long		cores;

	if (gpuscan_copy_threads >= 0)
		return gpuscan_copy_threads;
	cores = sysconf(_SC_NPROCESSORS_ONLN);
	return (int) Min(8, Max(cores, 1) / 2);
}

/* gs_copy_workers_begin -- see chunks.h */
void
gs_copy_workers_begin(const char *fn)
{
	int			want = gs_copy_workers_wanted();

	if (gs_copy_workers() != want && gs_copy_workers_set(want) < want)
		elog(DEBUG1, "%s: %d of %d copy threads started", fn, gs_copy_workers(), want);
}

/* gs_stage_in -- see chunks.h */
void
gs_stage_in(char *host, const GsArrayInput *in, const char *values, int elemsize,
			int64 start, int64 count)
{
	gs_stage_in_pair(host, in, values, elemsize, start, count, NULL, NULL, 0);
}

/* gs_stage_in_pair -- see chunks.h: the NULL check runs while the workers copy */
void
gs_stage_in_pair(char *host, const GsArrayInput *in, const char *values, int elemsize,
				 int64 start, int64 count, char *also_to, const char *also_from,
				 Size also_bytes)
{
	const char *src = values + start * elemsize;
	Size		bytes = (Size) count * elemsize;

	if (in == NULL || in->nulls == NULL)
	{
		gs_copy_pair(host, src, bytes, also_to, also_from, also_bytes);
		return;
	}
	gs_copy_pair_start(host, src, bytes, also_to, also_from, also_bytes);
	PG_TRY();
	{
		gs_array_check_nulls(in, start, count);
	}
	PG_CATCH();
	{
		/* the workers read `values`, which the error may free: wait for them */
		gs_copy_wait();
		PG_RE_THROW();
	}
	PG_END_TRY();
	gs_copy_wait();
}

/*
 * gs_chunk_done -- see chunks.h.  gpuscan.debug_cancel_after_chunks makes
 * the cancel come at a chosen chunk, for tests: the same interrupt as
 * pg_cancel_backend's, taken by the same CHECK_FOR_INTERRUPTS.
 */
void
gs_chunk_done(int64 k)
{
	if (gpuscan_debug_cancel_after_chunks > 0 && k + 1 == gpuscan_debug_cancel_after_chunks)
	{
		QueryCancelPending = true;
		InterruptPending = true;
	}
	CHECK_FOR_INTERRUPTS();
}

/*
 * gs_chunks_init -- define the copies and the chunks of a call:
 * gpuscan.copy_threads and the tests' gpuscan.debug_chunk_size and
 * gpuscan.debug_cancel_after_chunks
 */
void
gs_chunks_init(void)
{
	/* the copy threads are CPU time: a shared resource, for administrators to size */
	DefineCustomIntVariable("gpuscan.copy_threads",
							"Helper threads per session that copy data into and out of the staging.",
							"-1: half the CPU cores, at most 8. 0: the session's own thread copies. "
							"The CPU path uses them to take the page faults of large results ahead, "
							"and gpu_csr_agg to sort and assemble its matrix.",
							&gpuscan_copy_threads,
							-1,
							-1, 64,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	/*
	 * The chunk's size is the streamed requests' slot in the GPU service's
	 * staging, which is sized for the default (gpuscan.service_staging_size);
	 * tests make it small, to cross chunk boundaries with small arrays.
	 */
	DefineCustomIntVariable("gpuscan.debug_chunk_size",
							"For tests: the bytes of one chunk of a chunked call.",
							"Long inputs go chunk by chunk on every path; smaller chunks test their "
							"boundaries with small inputs.",
							&gpuscan_debug_chunk_size_kb,
							16 * 1024,
							64, 256 * 1024,
							PGC_SUSET,
							GUC_UNIT_KB | GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpuscan.debug_cancel_after_chunks",
							"For tests: cancel the statement once a chunked call has done this many chunks.",
							"The same interrupt as pg_cancel_backend's, at a known point. 0: never.",
							&gpuscan_debug_cancel_after_chunks,
							0,
							0, INT_MAX,
							PGC_SUSET,
							GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							NULL, NULL, NULL);
}
