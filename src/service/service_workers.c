/*-------------------------------------------------------------------------
 *
 * service_workers.c
 *	  The threads of a GPU service process (service_workers.h).
 *
 * Each thread waits on its own condition variable for work, runs it and
 * marks itself free again; the main thread hands out work and waits for
 * the threads through pool_mutex.  The threads live as long as the process.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>
#include <signal.h>

#include "service/service_workers.h"

typedef struct GsWorker
{
	pthread_t	thread;
	pthread_cond_t wake;		/* work was handed to it */
	GsThreadWork		work;			/* NULL: free */
	void	   *arg;
} GsWorker;

int			gpuscan_service_streams = 4;

static pthread_mutex_t pg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t pool_mutex = PTHREAD_MUTEX_INITIALIZER;	/* protects below */
static pthread_cond_t pool_idle = PTHREAD_COND_INITIALIZER;	/* a thread became free */
static GsWorker workers[GS_SERVICE_MAX_STREAMS];
static int	nworkers = 0;
static int	nbusy = 0;

/* gs_pg_lock -- see service_workers.h */
void
gs_pg_lock(void)
{
	pthread_mutex_lock(&pg_lock);
}

/* gs_pg_unlock -- see service_workers.h */
void
gs_pg_unlock(void)
{
	pthread_mutex_unlock(&pg_lock);
}

/* worker_main -- a thread: run each piece of work handed to it */
static void *
worker_main(void *p)
{
	GsWorker   *w = (GsWorker *) p;

	pthread_mutex_lock(&pool_mutex);
	for (;;)
	{
		GsThreadWork		work;
		void	   *arg;

		while (w->work == NULL)
			pthread_cond_wait(&w->wake, &pool_mutex);
		work = w->work;
		arg = w->arg;
		pthread_mutex_unlock(&pool_mutex);

		work(arg);

		pthread_mutex_lock(&pool_mutex);
		w->work = NULL;
		nbusy--;
		pthread_cond_broadcast(&pool_idle);
	}
	return NULL;
}

/* gs_workers_start -- see service_workers.h */
void
gs_workers_start(void)
{
	sigset_t	all,
				old;
	int			n = Max(1, Min(gpuscan_service_streams, GS_SERVICE_MAX_STREAMS));
	int			err = 0;

	/* the threads take no signal: they inherit this mask */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (nworkers = 0; nworkers < n; nworkers++)
	{
		GsWorker   *w = &workers[nworkers];

		pthread_cond_init(&w->wake, NULL);
		w->work = NULL;
		if ((err = pthread_create(&w->thread, NULL, worker_main, w)) != 0)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (nworkers == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("gpuscan gpu service: could not start a thread: %s", strerror(err))));
	if (nworkers < n)
		ereport(LOG,
				(errmsg("gpuscan gpu service: started %d of %d threads: %s",
						nworkers, n, strerror(err))));
}

/* gs_workers_free -- see service_workers.h */
bool
gs_workers_free(void)
{
	bool		free;

	pthread_mutex_lock(&pool_mutex);
	free = nbusy < nworkers;
	pthread_mutex_unlock(&pool_mutex);
	return free;
}

/* gs_workers_idle -- see service_workers.h */
bool
gs_workers_idle(void)
{
	bool		idle;

	pthread_mutex_lock(&pool_mutex);
	idle = nbusy == 0;
	pthread_mutex_unlock(&pool_mutex);
	return idle;
}

/* gs_workers_run -- see service_workers.h */
bool
gs_workers_run(GsThreadWork work, void *arg)
{
	int			i;

	pthread_mutex_lock(&pool_mutex);
	for (i = 0; i < nworkers; i++)
		if (workers[i].work == NULL)
		{
			workers[i].work = work;
			workers[i].arg = arg;
			nbusy++;
			pthread_cond_signal(&workers[i].wake);
			break;
		}
	pthread_mutex_unlock(&pool_mutex);
	return i < nworkers;
}

/* gs_workers_wait_idle -- see service_workers.h */
void
gs_workers_wait_idle(void)
{
	gs_pg_unlock();
	pthread_mutex_lock(&pool_mutex);
	while (nbusy > 0)
		pthread_cond_wait(&pool_idle, &pool_mutex);
	pthread_mutex_unlock(&pool_mutex);
	gs_pg_lock();
}
