/*-------------------------------------------------------------------------
 *
 * chunks.h
 *	  Chunked calls: how long inputs are cut into chunks on every path
 *	  (the CPU path and the GPU service's streamed requests), the copy
 *	  workers that move a chunk (copy_workers.h), and the interrupt check
 *	  at the end of each chunk.
 *
 * Every path cuts its inputs into chunks of the same number of elements,
 * so that they answer interrupts (gs_chunk_done) at the same points.  The
 * copy workers run only while the backend waits for them, with one
 * exception, gs_stage_in's NULL check, which catches its ERROR to wait for
 * them first: no ERROR or cancel ever leaves a worker copying.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CHUNKS_H
#define GPUSCAN_CHUNKS_H

#include "pg/array_input.h"

/* gpuscan.copy_threads, gpuscan.debug_chunk_size (kB), gpuscan.debug_cancel_after_chunks */
extern int	gpuscan_copy_threads;
extern int	gpuscan_debug_chunk_size_kb;
extern int	gpuscan_debug_cancel_after_chunks;

/* a chunk's room is a multiple of this, and this much of it is left over for a count */
#define GS_CHUNK_ALIGN		((Size) 256)

/* Bytes of the room of one chunk (a slot of a streamed request's staging) */
extern Size gs_chunk_bytes(void);

/* Copy threads under gpuscan.copy_threads (-1: half the cores, at most 8) */
extern int	gs_copy_workers_wanted(void);

/*
 * Elements per chunk of a call that puts bytes_per_elem bytes of each
 * element into a chunk's room: a multiple of 256, with GS_CHUNK_ALIGN bytes
 * of the room left over after them (for a chunk's count)
 */
extern int64 gs_chunk_elems(int bytes_per_elem);

/*
 * Ready the copy workers under gpuscan.copy_threads (kept between calls;
 * the CPU path uses them to pre-fault results)
 */
extern void gs_copy_workers_begin(const char *fn);

/*
 * Copy `count` elements of `in` (elements of `elemsize` bytes at `values`,
 * checked for NULLs where `in` has a NULL bitmap), from element `start`,
 * to `host`, on the copy workers and this thread
 */
extern void gs_stage_in(char *host, const GsArrayInput *in, const char *values, int elemsize,
						int64 start, int64 count);

/*
 * gs_stage_in, and also_bytes from also_from to also_to (a compaction's
 * flags) in the same job of the copy workers
 */
extern void gs_stage_in_pair(char *host, const GsArrayInput *in, const char *values,
							 int elemsize, int64 start, int64 count, char *also_to,
							 const char *also_from, Size also_bytes);

/*
 * The end of chunk k (0-based) of a chunked call on any path: answer a
 * cancel or statement_timeout here
 */
extern void gs_chunk_done(int64 k);

/*
 * Define gpuscan.copy_threads and the tests' chunk size and chunk cancel;
 * from _PG_init
 */
extern void gs_chunks_init(void);

#endif							/* GPUSCAN_CHUNKS_H */
