/*-------------------------------------------------------------------------
 *
 * copy_workers.h
 *	  Helper threads that copy (or pre-fault) large blocks of memory for
 *	  the calling thread, so that the host side of a GPU transfer keeps up
 *	  with PCIe, or run a function of plain memory work beside it (the
 *	  CSR aggregate's sort).  Plain C with POSIX threads, no PostgreSQL headers: the
 *	  threads never call into PostgreSQL, and they block every signal, so
 *	  that PostgreSQL's signal handlers only ever run on the backend's own
 *	  thread.
 *
 * One pool per process, started on first use and kept for the life of the
 * process; one job at a time.  A job cuts its bytes into parts on page
 * boundaries, several for each thread on it, which the workers (and, for
 * gs_copy, the calling thread) take one at a time until none is left, so
 * that a thread that starts late or runs slowly does not hold up the job.
 * Where no thread can be started, the calling thread does the work itself:
 * the result is the same, only slower.
 *
 * The caller must wait for every job it starts (gs_copy_wait) before the
 * memory it names can be freed; the PostgreSQL side does so in a PG_CATCH
 * block, so that an ERROR raised while a job runs cannot free memory under
 * a worker.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_COPY_WORKERS_H
#define GPUSCAN_COPY_WORKERS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Most helper threads a pool may have. */
#define GS_COPY_MAX_WORKERS 64

/*
 * Make the pool have `workers` threads (0 .. GS_COPY_MAX_WORKERS; threads
 * are started or stopped to match).  Returns how many run: fewer than
 * asked where a thread could not be started.  Must not be called while a
 * job runs.
 */
int			gs_copy_workers_set(int workers);

/* Threads in the pool now. */
int			gs_copy_workers(void);

/*
 * Start copying `bytes` from src to dst (not overlapping) on the workers
 * and return at once; with no workers, copy here before returning.
 */
void		gs_copy_start(void *dst, const void *src, size_t bytes);

/*
 * Start writing one byte of every 4 kB page of [p, p + bytes), so that the
 * page faults of fresh memory are taken by the workers, in parallel, and
 * not by a later sequential pass (the bytes written are zero).
 */
void		gs_prefault_start(void *p, size_t bytes);

/* Wait for the job started last, if any, to finish. */
void		gs_copy_wait(void);

/* Whether a job is running (started and not yet waited for). */
int			gs_copy_busy(void);

/* Copy `bytes` from src to dst on the workers and this thread together. */
void		gs_copy(void *dst, const void *src, size_t bytes);

/*
 * As gs_copy_start and gs_copy, for two blocks at once (bytes2 may be 0):
 * one job, so that the workers are woken and waited for once, not once for
 * each block.
 */
void		gs_copy_pair_start(void *dst, const void *src, size_t bytes,
							   void *dst2, const void *src2, size_t bytes2);
void		gs_copy_pair(void *dst, const void *src, size_t bytes,
						 void *dst2, const void *src2, size_t bytes2);

/*
 * Run fn(arg) on every worker and on this thread at once, and return when
 * all have returned.  fn shares out its work itself (an atomic counter, say)
 * and must not call into PostgreSQL; with no workers it runs here alone.
 */
void		gs_helpers_run(void (*fn) (void *arg), void *arg);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_COPY_WORKERS_H */
