/*-------------------------------------------------------------------------
 *
 * service_workers.h
 *	  The threads of a GPU service process: several requests at once on
 *	  its GPU, each thread with a CUDA stream of its own.
 *
 * A process's PostgreSQL state (memory contexts, LWLocks, mappings of
 * dynamic shared memory) is not made for threads, so one mutex, the
 * PostgreSQL lock, guards it: the main thread holds it except while it
 * sleeps on its latch or waits for the threads, and a request's thread
 * holds it except around its device work.  A thread takes no signal (those
 * go to the main thread), and its device errors are answers, not ERRORs;
 * what it calls of PostgreSQL raises none short of running out of memory,
 * which ends the process as any ERROR in the service does.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SERVICE_WORKERS_H
#define SERVICE_WORKERS_H

/* the most requests a process runs at once (gpuscan.service_streams) */
#define GS_SERVICE_MAX_STREAMS	32

/* gpuscan.service_streams: requests each GPU's process runs at once */
extern int	gpuscan_service_streams;

/* work for a thread; it runs without the PostgreSQL lock */
typedef void (*GsThreadWork) (void *arg);

/*
 * Start the threads (gpuscan.service_streams of them), the caller holding
 * the PostgreSQL lock; an ERROR where none can be started
 */
extern void gs_workers_start(void);

/* Whether a thread is free for gs_workers_run */
extern bool gs_workers_free(void);

/* Whether no thread has work */
extern bool gs_workers_idle(void);

/* Hand work(arg) to a free thread; false where none is free */
extern bool gs_workers_run(GsThreadWork work, void *arg);

/*
 * Wait until no thread has work, the caller (the main thread) holding the
 * PostgreSQL lock: it is let go meanwhile
 */
extern void gs_workers_wait_idle(void);

/* Take and let go of the PostgreSQL lock */
extern void gs_pg_lock(void);
extern void gs_pg_unlock(void);

#endif							/* SERVICE_WORKERS_H */
