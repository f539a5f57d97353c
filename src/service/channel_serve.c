/*-------------------------------------------------------------------------
 *
 * channel_serve.c
 *	  The GPU service's side of the channels (channel_serve.h): its main
 *	  thread hands posted requests to its threads, which run them, stream
 *	  their chunks and hand the answers back, or free the channel of a
 *	  request whose session stopped waiting.  The layout and its rules are
 *	  ipc/channel_shared.h's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/atomics.h"
#include "postmaster/interrupt.h"
#include "storage/latch.h"
#include "storage/spin.h"

#include "ipc/channel_shared.h"
#include "service/channel_serve.h"
#include "service/service_workers.h"

/* in a service thread: the channel of the request it runs */
static __thread GsChannel *running_channel = NULL;

/* gs_request_abandoned -- see channel_serve.h */
bool
gs_request_abandoned(void)
{
	GsChannel  *ch = running_channel;
	bool		abandoned;

	if (ch == NULL)
		return false;
	SpinLockAcquire(&ch->mutex);
	abandoned = ch->abandoned;
	SpinLockRelease(&ch->mutex);
	return abandoned;
}

/*
 * How a service thread waits for the session's next chunk: it spins for up
 * to GS_STREAM_SPIN_US, about the time a session takes to copy one chunk
 * into its slot, then sleeps GS_STREAM_POLL_US between looks.  A sleep
 * lasts 50-90 us on the hosts measured (the kernel's timer slack), longer
 * than the wait it ends: where the service had caught up with the session,
 * sleeping alone cost a third of a chunk's upload time on every chunk
 * (bench/results/service-path-gate-*.md).
 */
#define GS_STREAM_SPIN_US	500
#define GS_STREAM_POLL_US	20

/* chunk_handed_over -- whether the session has handed over chunk k */
static inline bool
chunk_handed_over(GsChannel *ch, int64 k)
{
	if ((int64) pg_atomic_read_u64(&ch->stream_in) <= k)
		return false;
	/* the count was written after the slot's input */
	pg_read_barrier();
	return true;
}

/*
 * gs_stream_chunk_in -- see channel_serve.h; called holding the PostgreSQL
 * lock.  A stop (shutdown, the request abandoned) is seen once the spin is
 * over, within GS_STREAM_SPIN_US.
 */
bool
gs_stream_chunk_in(int64 k)
{
	GsChannel  *ch = running_channel;
	bool		in;
	GsSpin		spin;

	if (ch == NULL)
		return false;
	if (chunk_handed_over(ch, k))
		return true;
	gs_pg_unlock();
	gs_spin_start(&spin);
	while (!(in = chunk_handed_over(ch, k)))
	{
		if (gs_spin_wait(&spin, GS_STREAM_SPIN_US))
			continue;
		if (ShutdownRequestPending || gs_request_abandoned())
			break;
		pg_usleep(GS_STREAM_POLL_US);
	}
	gs_pg_lock();
	return in;
}

/* gs_stream_chunk_out -- see channel_serve.h */
void
gs_stream_chunk_out(int64 k)
{
	GsChannel  *ch = running_channel;
	Latch	   *wake;

	if (ch == NULL)
		return;
	/* the slot's answer before the count that hands it back */
	pg_write_barrier();
	pg_atomic_write_u64(&ch->stream_out, k + 1);
	SpinLockAcquire(&ch->mutex);
	wake = ch->abandoned ? NULL : ch->owner_latch;
	SpinLockRelease(&ch->mutex);
	if (wake)
		SetLatch(wake);
}

/* the service's serve function, for the threads (set by gs_channels_serve) */
static GsServeRequest serve_request = NULL;

/*
 * run_request -- a thread's work: hold the request for the session's debug
 * delay, run it, and hand the answer back to the session that is waiting
 * (or free the channel of one that stopped waiting).  The main thread is
 * woken to give the thread more work.
 */
static void
run_request(void *arg)
{
	GsChannel  *ch = (GsChannel *) arg;
	Latch	   *wake = NULL;
	int			waited;

	/* while RUNNING, the session touches neither the request nor the answer */
	running_channel = ch;
	memset(&ch->resp, 0, sizeof(ch->resp));
	for (waited = 0; waited < ch->req.delay_ms && !ShutdownRequestPending &&
		 !gs_request_abandoned(); waited += 10)
		pg_usleep(10 * 1000L);
	if (ShutdownRequestPending)
	{
		strlcpy(ch->resp.error, "the service is shutting down", sizeof(ch->resp.error));
		ch->resp.retry = true;
	}
	else if (gs_request_abandoned())
		strlcpy(ch->resp.error, "abandoned by the session", sizeof(ch->resp.error));
	else
	{
		gs_pg_lock();
		serve_request(&ch->req, &ch->resp);
		gs_pg_unlock();
	}
	running_channel = NULL;

	SpinLockAcquire(&ch->mutex);
	if (ch->abandoned)
	{
		gs_channel_release_staging(ch);
		ch->state = GS_CHANNEL_FREE;
		ch->abandoned = false;
	}
	else
	{
		ch->state = GS_CHANNEL_DONE;
		wake = ch->owner_latch;
	}
	SpinLockRelease(&ch->mutex);
	if (wake)
		SetLatch(wake);
	SetLatch(MyLatch);
}

/* gs_channels_serve -- see channel_serve.h */
void
gs_channels_serve(int device, int starts, GsServeRequest serve)
{
	static int	first = 0;		/* where the last scan ended: no channel waits behind others */
	int			k;

	serve_request = serve;
	for (k = 0; k < gs_channels->count && gs_workers_free(); k++)
	{
		int			i = (first + k) % gs_channels->count;
		GsChannel  *ch = &gs_channels->channels[i];
		bool		mine = false;

		SpinLockAcquire(&ch->mutex);
		if (ch->state == GS_CHANNEL_REQUESTED && ch->device == device && ch->starts == starts)
		{
			ch->state = GS_CHANNEL_RUNNING;
			mine = true;
		}
		SpinLockRelease(&ch->mutex);
		if (!mine)
			continue;

		if (ch->req.fault)
		{
			/* the injected fault: the process fails, once its other requests are done */
			gs_workers_wait_idle();
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("gpuscan gpu service: a fault injected by gpuscan.debug_service_fault")));
		}
		if (!gs_workers_run(run_request, ch))
			elog(ERROR, "gpuscan gpu service: no free thread");	/* cannot happen */
		first = (i + 1) % gs_channels->count;
	}
}
