/*-------------------------------------------------------------------------
 *
 * copy_workers.c
 *	  Helper threads that copy or pre-fault memory, or run a function
 *	  beside the calling thread (copy_workers.h).
 *
 * The pool is a generation counter under one mutex: starting a job bumps
 * the generation and wakes the workers; each worker takes parts off the
 * job's counter until none is left, and the last one to finish wakes the
 * waiter.  A worker is told its index and the generation current when it
 * was started, so that a job started before the thread first takes the
 * lock is not missed.
 *
 *-------------------------------------------------------------------------
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu/copy_workers.h"

#define PAGE_BYTES		((size_t) 4096)
#define WORKER_STACK	((size_t) 256 << 10)

/* below this, waking the workers costs more than it saves: do it here */
#define PARALLEL_MIN_BYTES	((size_t) 512 << 10)

/*
 * A job is cut into about PARTS_PER_THREAD parts for each thread on it, of
 * MIN_PART_BYTES or more, and each thread takes the next part until none is
 * left: a thread that starts late or shares its core with another busy
 * thread takes fewer parts, instead of holding up the job with its share.
 */
#define PARTS_PER_THREAD	8
#define MIN_PART_BYTES		((size_t) 64 << 10)

typedef enum JobKind
{
	JOB_COPY,
	JOB_PREFAULT,
	JOB_RUN
} JobKind;

typedef struct Job
{
	JobKind		kind;
	char	   *dst;
	const char *src;			/* JOB_COPY only */
	size_t		bytes;
	char	   *dst2;			/* JOB_COPY: a second block, bytes2 long */
	const char *src2;
	size_t		bytes2;
	size_t		part_bytes;		/* a multiple of PAGE_BYTES */
	size_t		first_parts;	/* parts of the first block; the second's follow */
	size_t		nparts;
	void		(*fn) (void *arg);	/* JOB_RUN only */
	void	   *arg;
} Job;

typedef struct WorkerStart
{
	int			index;
	unsigned long generation;
} WorkerStart;

static struct
{
	pthread_mutex_t lock;
	pthread_cond_t start;		/* a new job or a stop */
	pthread_cond_t done;		/* pending reached 0 */
	pthread_t	threads[GS_COPY_MAX_WORKERS];
	WorkerStart starts[GS_COPY_MAX_WORKERS];
	int			nworkers;
	int			keep;			/* workers with a higher index exit */
	unsigned long generation;
	Job			job;
	int			pending;		/* workers still on the current job */
	size_t		next_part;		/* the current job's next part to take (atomic) */
	int			busy;			/* a job was started and not waited for */
}			pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.start = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

/* prefault -- take the write faults of the pages of [p, p + bytes) */
static void
prefault(char *p, size_t bytes)
{
	uintptr_t	start = (uintptr_t) p & ~(uintptr_t) (PAGE_BYTES - 1);
	uintptr_t	end = ((uintptr_t) p + bytes + PAGE_BYTES - 1) & ~(uintptr_t) (PAGE_BYTES - 1);
	size_t		i;

	if (bytes == 0)
		return;
#ifdef MADV_POPULATE_WRITE
	/* one system call, no change to the contents (Linux 5.14 and later) */
	if (madvise((void *) start, end - start, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	(void) start;
	(void) end;
	for (i = 0; i < bytes; i += PAGE_BYTES)
		((volatile char *) p)[i] = 0;
}

/* do_part -- part `k` of copy or prefault job j */
static void
do_part(const Job *j, size_t k)
{
	char	   *dst = j->dst;
	const char *src = j->src;
	size_t		bytes = j->bytes;
	size_t		begin;
	size_t		len;

	if (k >= j->first_parts)
	{
		k -= j->first_parts;
		dst = j->dst2;
		src = j->src2;
		bytes = j->bytes2;
	}
	begin = k * j->part_bytes;
	if (begin >= bytes)
		return;
	len = bytes - begin < j->part_bytes ? bytes - begin : j->part_bytes;
	if (j->kind == JOB_COPY)
		memcpy(dst + begin, src + begin, len);
	else
		prefault(dst + begin, len);
}

/*
 * do_job -- this thread's share of job j: fn once for JOB_RUN, else parts
 * taken one at a time until every part is taken
 */
static void
do_job(const Job *j)
{
	size_t		k;

	if (j->kind == JOB_RUN)
	{
		j->fn(j->arg);
		return;
	}
	while ((k = __atomic_fetch_add(&pool.next_part, 1, __ATOMIC_RELAXED)) < j->nparts)
		do_part(j, k);
}

/* worker_main -- wait for jobs, do this worker's part of each */
static void *
worker_main(void *arg)
{
	const WorkerStart *ws = arg;
	int			index = ws->index;
	unsigned long seen;
	Job			job;

	pthread_mutex_lock(&pool.lock);
	seen = ws->generation;
	for (;;)
	{
		while (pool.generation == seen && index < pool.keep)
			pthread_cond_wait(&pool.start, &pool.lock);
		if (index >= pool.keep)
			break;
		seen = pool.generation;
		job = pool.job;
		pthread_mutex_unlock(&pool.lock);

		do_job(&job);

		pthread_mutex_lock(&pool.lock);
		if (--pool.pending == 0)
			pthread_cond_signal(&pool.done);
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* gs_copy_workers_set -- see copy_workers.h */
int
gs_copy_workers_set(int workers)
{
	sigset_t	all,
				old;
	pthread_attr_t attr;

	if (workers < 0)
		workers = 0;
	if (workers > GS_COPY_MAX_WORKERS)
		workers = GS_COPY_MAX_WORKERS;
	gs_copy_wait();

	/* fewer: tell the extra ones to exit, and wait for them */
	if (workers < pool.nworkers)
	{
		int			i;

		pthread_mutex_lock(&pool.lock);
		pool.keep = workers;
		pthread_cond_broadcast(&pool.start);
		pthread_mutex_unlock(&pool.lock);
		for (i = workers; i < pool.nworkers; i++)
			pthread_join(pool.threads[i], NULL);
		pool.nworkers = workers;
		return pool.nworkers;
	}

	/* more: start them with every signal blocked (they inherit the mask) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	pthread_mutex_lock(&pool.lock);
	pool.keep = workers;
	while (pool.nworkers < workers)
	{
		WorkerStart *ws = &pool.starts[pool.nworkers];

		ws->index = pool.nworkers;
		ws->generation = pool.generation;
		if (pthread_create(&pool.threads[pool.nworkers], &attr, worker_main, ws) != 0)
			break;
#ifdef __GLIBC__
		pthread_setname_np(pool.threads[pool.nworkers], "gpuscan copy");
#endif
		pool.nworkers++;
	}
	pool.keep = pool.nworkers;
	pthread_mutex_unlock(&pool.lock);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return pool.nworkers;
}

/* gs_copy_workers -- see copy_workers.h */
int
gs_copy_workers(void)
{
	return pool.nworkers;
}

/*
 * start_job -- hand j to the workers, cut into parts for `threads` threads
 * (the workers and, where threads exceeds them, the caller, which then
 * calls do_job too); sets j->part_bytes and j->nparts
 */
static void
start_job(Job *j, int threads)
{
	size_t		part = (j->bytes + j->bytes2) / ((size_t) threads * PARTS_PER_THREAD);

	if (part < MIN_PART_BYTES)
		part = MIN_PART_BYTES;
	j->part_bytes = (part + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
	j->first_parts = (j->bytes + j->part_bytes - 1) / j->part_bytes;
	j->nparts = j->first_parts + (j->bytes2 + j->part_bytes - 1) / j->part_bytes;
	pthread_mutex_lock(&pool.lock);
	pool.job = *j;
	pool.pending = pool.nworkers;
	/* no worker is on a job now: the last job was waited for */
	__atomic_store_n(&pool.next_part, 0, __ATOMIC_RELAXED);
	pool.generation++;
	pool.busy = 1;
	pthread_cond_broadcast(&pool.start);
	pthread_mutex_unlock(&pool.lock);
}

/*
 * copy_pair -- copy the two blocks on the workers, and on this thread too
 * where `here`; false where they were copied here alone (small, or no
 * workers), else the job runs (gs_copy_wait)
 */
static int
copy_pair(void *dst, const void *src, size_t bytes, void *dst2, const void *src2,
		  size_t bytes2, int here)
{
	Job			j = {.kind = JOB_COPY, .dst = dst, .src = src, .bytes = bytes,
	.dst2 = dst2, .src2 = src2, .bytes2 = bytes2};

	gs_copy_wait();
	if (pool.nworkers == 0 || bytes + bytes2 < PARALLEL_MIN_BYTES)
	{
		memcpy(dst, src, bytes);
		if (bytes2 > 0)
			memcpy(dst2, src2, bytes2);
		return 0;
	}
	start_job(&j, pool.nworkers + (here ? 1 : 0));
	if (here)
		do_job(&j);
	return 1;
}

/* gs_copy_start -- see copy_workers.h */
void
gs_copy_start(void *dst, const void *src, size_t bytes)
{
	(void) copy_pair(dst, src, bytes, NULL, NULL, 0, 0);
}

/* gs_copy_pair_start -- see copy_workers.h */
void
gs_copy_pair_start(void *dst, const void *src, size_t bytes, void *dst2, const void *src2,
				   size_t bytes2)
{
	(void) copy_pair(dst, src, bytes, dst2, src2, bytes2, 0);
}

/* gs_prefault_start -- see copy_workers.h */
void
gs_prefault_start(void *p, size_t bytes)
{
	Job			j = {.kind = JOB_PREFAULT, .dst = p, .bytes = bytes};

	gs_copy_wait();
	if (pool.nworkers == 0 || bytes < PARALLEL_MIN_BYTES)
	{
		prefault(p, bytes);
		return;
	}
	start_job(&j, pool.nworkers);
}

/* gs_copy_wait -- see copy_workers.h */
void
gs_copy_wait(void)
{
	if (!pool.busy)
		return;
	pthread_mutex_lock(&pool.lock);
	while (pool.pending > 0)
		pthread_cond_wait(&pool.done, &pool.lock);
	pool.busy = 0;
	pthread_mutex_unlock(&pool.lock);
}

/* gs_copy_busy -- see copy_workers.h */
int
gs_copy_busy(void)
{
	return pool.busy;
}

/* gs_copy -- see copy_workers.h: the caller takes parts too */
void
gs_copy(void *dst, const void *src, size_t bytes)
{
	if (copy_pair(dst, src, bytes, NULL, NULL, 0, 1))
		gs_copy_wait();
}

/* gs_copy_pair -- see copy_workers.h */
void
gs_copy_pair(void *dst, const void *src, size_t bytes, void *dst2, const void *src2,
			 size_t bytes2)
{
	if (copy_pair(dst, src, bytes, dst2, src2, bytes2, 1))
		gs_copy_wait();
}

/* gs_helpers_run -- see copy_workers.h */
void
gs_helpers_run(void (*fn) (void *arg), void *arg)
{
	Job			j = {.kind = JOB_RUN, .fn = fn, .arg = arg};

	gs_copy_wait();
	if (pool.nworkers > 0)
		start_job(&j, pool.nworkers + 1);
	fn(arg);
	gs_copy_wait();
}
