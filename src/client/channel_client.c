/*-------------------------------------------------------------------------
 *
 * channel_client.c
 *	  The session's side of the channels to the GPU service
 *	  (channel_client.h): it takes a channel, posts a request, streams its
 *	  chunks, waits for the answer and lets the channel go, also on an
 *	  ERROR, a cancel or its exit.  The layout and its rules are
 *	  ipc/channel_shared.h's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/spin.h"
#include "utils/guc.h"

#include "client/channel_client.h"
#include "dispatch/dispatch.h"
#include "ipc/channel_shared.h"
#include "ipc/service_status.h"
#include "ipc/staging_area.h"
#include "pg/call_profile.h"

/* how long a waiting session sleeps between checks of the service */
#define GS_WAIT_CHECK_MS	1000

/* how long a session spins for a streamed chunk's answer before it sleeps */
#define GS_STREAM_SPIN_US	200

/* how often a call is posted again after the service restarted under it */
#define GS_CALL_RETRIES		3

int			gpuscan_debug_service_delay_ms = 0;
bool		gpuscan_debug_service_fault = false;
bool		gpuscan_debug_service_segments = false;

/*
 * This session's channels, once taken: the first for every request, the
 * others for the parts of a call split over several GPUs
 */
static GsChannel *my_channels[GS_SESSION_CHANNELS];
static bool release_registered = false;

/* wake_service -- set the latch of GPU device's process, if it has published one */
static void
wake_service(int device)
{
	Latch	   *latch;

	SpinLockAcquire(&gs_channels->mutex);
	latch = gs_channels->service_latch[device];
	SpinLockRelease(&gs_channels->mutex);
	if (latch)
		SetLatch(latch);
}

/*
 * let_go -- the session no longer uses channel ch: free, or, while the
 * service runs its request, abandoned for the service to free when the
 * request stops.  Where the process it was posted to is gone, nobody else
 * would: free it now.  Under the channel's lock.
 */
static void
let_go(GsChannel *ch, int start_now)
{
	ch->owner_latch = NULL;
	if (ch->state == GS_CHANNEL_RUNNING && ch->starts == start_now)
		ch->abandoned = true;
	else
	{
		gs_channel_release_staging(ch);
		ch->abandoned = false;
		ch->state = GS_CHANNEL_FREE;
	}
}

/*
 * release_channels -- at the session's exit (also after a FATAL or a
 * pg_terminate_backend): each of its channels is let go
 */
static void
release_channels(int code, Datum arg)
{
	int			i;

	for (i = 0; i < GS_SESSION_CHANNELS; i++)
	{
		GsChannel  *ch = my_channels[i];
		int			now;

		if (ch == NULL)
			continue;
		now = gs_channel_start_now(ch->device);
		SpinLockAcquire(&ch->mutex);
		let_go(ch, now);
		SpinLockRelease(&ch->mutex);
		my_channels[i] = NULL;
	}
}

/*
 * staging_at_xact_end -- at the end of a transaction, give back the
 * staging of the session's channels that no request uses (one that an
 * ERROR left behind); the service frees that of a request still running
 * when it ends
 */
static void
staging_at_xact_end(XactEvent event, void *arg)
{
	int			i;

	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT &&
		event != XACT_EVENT_PARALLEL_COMMIT && event != XACT_EVENT_PARALLEL_ABORT)
		return;
	for (i = 0; i < GS_SESSION_CHANNELS; i++)
		gs_channel_staging_done(i);
}

/*
 * take_channel -- this session's channel `slot`, taking a free one the
 * first time; where none is free, an ERROR for slot 0 and NULL for the
 * others (the caller then does not split its call)
 */
static GsChannel *
take_channel(int slot)
{
	int			i;

	if (my_channels[slot])
		return my_channels[slot];
	for (i = 0; i < gs_channels->count; i++)
	{
		GsChannel  *ch = &gs_channels->channels[i];
		bool		taken = false;

		SpinLockAcquire(&ch->mutex);
		if (ch->state == GS_CHANNEL_FREE)
		{
			ch->state = GS_CHANNEL_IDLE;
			ch->abandoned = false;
			ch->owner_latch = MyLatch;
			taken = true;
		}
		SpinLockRelease(&ch->mutex);
		if (taken)
		{
			my_channels[slot] = ch;
			if (!release_registered)
			{
				before_shmem_exit(release_channels, (Datum) 0);
				RegisterXactCallback(staging_at_xact_end, NULL);
			}
			release_registered = true;
			return ch;
		}
	}
	if (slot > 0)
		return NULL;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("no free channel to the gpuscan GPU service"),
			 errdetail("All %d gs_channels are taken.", gs_channels->count)));
	return NULL;				/* not reached */
}

/*
 * reclaim_if_service_stopped -- where the service that the channel's request
 * was posted to is gone, take the channel back to IDLE; true if so
 */
static bool
reclaim_if_service_stopped(GsChannel *ch)
{
	bool		reclaimed = false;
	int			now = gs_channel_start_now(ch->device);

	SpinLockAcquire(&ch->mutex);
	if (ch->state != GS_CHANNEL_IDLE && ch->starts != now)
	{
		ch->state = GS_CHANNEL_IDLE;
		ch->abandoned = false;
		reclaimed = true;
	}
	SpinLockRelease(&ch->mutex);
	return reclaimed;
}

/*
 * wait_on_channel -- sleep on the session's latch until the channel leaves
 * `while_state`, answering interrupts; false if the service stopped first
 */
static bool
wait_on_channel(GsChannel *ch, GsChannelState while_state)
{
	for (;;)
	{
		if (gs_channel_state(ch) != while_state)
			return true;
		if (reclaim_if_service_stopped(ch))
			return false;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 GS_WAIT_CHECK_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

typedef enum GsCallResult
{
	GS_CALL_DONE,				/* answered; resp->ok says whether it worked */
	GS_CALL_NO_SERVICE,			/* the library was not preloaded */
	GS_CALL_NOT_RUNNING,		/* the service is not running now */
	GS_CALL_STOPPED,			/* the service stopped before it answered */
	GS_CALL_NO_CHANNEL			/* no free channel for a second request at once */
} GsCallResult;

/* post -- post `req` on channel ch for GPU device's process in its start `starts` */
static void
post(GsChannel *ch, const GsRequest *req, int starts)
{
	/* the service reads a request only once it is REQUESTED */
	Assert(gs_channel_state(ch) == GS_CHANNEL_IDLE);
	ch->req = *req;
	ch->req.delay_ms = gpuscan_debug_service_delay_ms;
	ch->req.fault = gpuscan_debug_service_fault;
	pg_atomic_write_u64(&ch->stream_in, 0);
	pg_atomic_write_u64(&ch->stream_out, 0);
	SpinLockAcquire(&ch->mutex);
	ch->device = req->device;
	ch->starts = starts;
	ch->abandoned = false;
	ch->state = GS_CHANNEL_REQUESTED;
	SpinLockRelease(&ch->mutex);
	wake_service(req->device);
}

/*
 * await -- wait for the answer on channel ch into *resp; false where the
 * service stopped first (the channel is the session's again)
 */
static bool
await(GsChannel *ch, GsResponse *resp)
{
	if (!wait_on_channel(ch, GS_CHANNEL_REQUESTED) || !wait_on_channel(ch, GS_CHANNEL_RUNNING))
		return false;
	/* the service writes no answer until the next request */
	Assert(gs_channel_state(ch) == GS_CHANNEL_DONE);
	*resp = ch->resp;
	SpinLockAcquire(&ch->mutex);
	ch->state = GS_CHANNEL_IDLE;
	SpinLockRelease(&ch->mutex);
	return true;
}

/*
 * stop_waiting -- after an ERROR (a cancel, a statement timeout) while
 * this session waited on its channels chs[0 .. n-1]: a request the
 * service runs is abandoned, and the session takes another channel for
 * its next call rather than wait for it; one not yet taken is withdrawn
 */
static void
stop_waiting(GsChannel **chs, int n)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		GsChannel  *ch = chs[i];
		int			now = gs_channel_start_now(ch->device);
		bool		gone = false;

		SpinLockAcquire(&ch->mutex);
		if (ch->state == GS_CHANNEL_RUNNING)
		{
			let_go(ch, now);
			gone = true;
		}
		else
			ch->state = GS_CHANNEL_IDLE;
		SpinLockRelease(&ch->mutex);
		if (gone)
			my_channels[i] = NULL;
	}
	/* the service stops the abandoned requests sooner when woken */
	for (i = 0; i < n; i++)
		wake_service(chs[i]->device);
}

/*
 * service_call_once -- post reqs[0 .. n-1] at once, each on its own
 * channel of this session (a call split over several GPUs posts one per
 * GPU), and wait for every answer; a cancel or a timeout abandons the
 * requests and rethrows
 */
static GsCallResult
service_call_once(const GsRequest *reqs, GsResponse *resps, int n)
{
	GsChannel  *chs[GS_SESSION_CHANNELS];
	int			starts[GS_SESSION_CHANNELS];
	bool		answered = true;
	int			i;

	memset(resps, 0, sizeof(GsResponse) * n);
	for (i = 0; i < n; i++)
	{
		chs[i] = take_channel(i);
		if (chs[i] == NULL)
			return GS_CALL_NO_CHANNEL;
	}
	for (i = 0; i < n; i++)
	{
		/* a channel whose service stopped is taken back first */
		(void) reclaim_if_service_stopped(chs[i]);
		starts[i] = gs_channel_start_now(reqs[i].device);
		if (starts[i] < 0)
			return GS_CALL_NOT_RUNNING;
	}
	for (i = 0; i < n; i++)
		post(chs[i], &reqs[i], starts[i]);

	PG_TRY();
	{
		/*
		 * every request is answered or reclaimed, whatever the others do;
		 * one that a stopping service refused counts as not answered
		 */
		for (i = 0; i < n; i++)
			if (!await(chs[i], &resps[i]) || resps[i].retry)
				answered = false;
	}
	PG_CATCH();
	{
		stop_waiting(chs, n);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return answered ? GS_CALL_DONE : GS_CALL_STOPPED;
}

/* check_device -- a request names one of the service's possible GPUs */
static void
check_device(int device)
{
	if (device < 0 || device >= GS_SERVICE_MAX_DEVICES)
		elog(ERROR, "gpuscan: no GPU %d for the service", device);
}

/*
 * post_again -- whether a call that ended in `result` is posted again
 * (service_call): where `wait`, after a stop of the service, at most
 * GS_CALL_RETRIES times (*tries counts them), never with the injected
 * fault; then once the service is back (gs_service_wait_ready)
 */
static bool
post_again(GsCallResult result, bool wait, int *tries)
{
	if ((result != GS_CALL_NOT_RUNNING && result != GS_CALL_STOPPED) ||
		!wait || gpuscan_debug_service_fault || ++(*tries) > GS_CALL_RETRIES)
		return false;
	(void) gs_service_wait_ready();
	return true;
}

/*
 * service_call -- service_call_once; where `wait`, a service that is not
 * running (restarting) or stops before it answers is waited for
 * (gs_service_wait_ready) and the requests are posted again: they only
 * read their data, so a second run gives the same answer.  A request with
 * the injected fault is not posted again (it would fail again).
 */
static GsCallResult
service_call(const GsRequest *reqs, GsResponse *resps, int n, bool wait)
{
	GsCallResult result;
	int			tries = 0;
	int			i;

	Assert(n >= 1 && n <= GS_SESSION_CHANNELS);
	if (gs_channels == NULL)
	{
		memset(resps, 0, sizeof(GsResponse) * n);
		return GS_CALL_NO_SERVICE;
	}
	for (i = 0; i < n; i++)
		check_device(reqs[i].device);
	do
		result = service_call_once(reqs, resps, n);
	while (post_again(result, wait, &tries));
	return result;
}

/*
 * answer_or_error -- the end of gs_service_call and gs_service_ask: a call
 * that ended in `result` and was not answered ok is an ERROR that says why
 */
static void
answer_or_error(GsCallResult result, const GsResponse *resp)
{
	switch (result)
	{
		case GS_CALL_NO_CHANNEL:	/* not for the first channel */
		case GS_CALL_NO_SERVICE:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the gpuscan GPU service is not running on this server"),
					 errhint("Add gpuscan to shared_preload_libraries and restart the server.")));
			break;
		case GS_CALL_NOT_RUNNING:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the gpuscan GPU service is not running"),
					 errhint("The server starts it again within %d seconds.",
							 GS_SERVICE_RESTART_SECONDS)));
			break;
		case GS_CALL_STOPPED:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the gpuscan GPU service stopped before it answered"),
					 errhint("The server starts it again within %d seconds.",
							 GS_SERVICE_RESTART_SECONDS)));
			break;
		case GS_CALL_DONE:
			if (!resp->ok)
				ereport(ERROR,
						(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
						 errmsg("the gpuscan GPU service could not run the request"),
						 errdetail("%s", resp->error)));
			break;
	}
}

/* gs_service_call -- see channel_client.h */
void
gs_service_call(const GsRequest *req, GsResponse *resp)
{
	answer_or_error(service_call(req, resp, 1, true), resp);
}

/*
 * gs_service_ask -- see channel_client.h; for what reports the service's
 * state (gpuscan_info), which must not wait out a restart
 */
bool
gs_service_ask(const GsRequest *req, GsResponse *resp)
{
	GsCallResult result = service_call(req, resp, 1, false);

	if (result == GS_CALL_NOT_RUNNING || result == GS_CALL_STOPPED)
		return false;
	answer_or_error(result, resp);
	return true;
}

/* call_failure -- why a call that did not end in GS_CALL_DONE failed */
static const char *
call_failure(GsCallResult result)
{
	switch (result)
	{
		case GS_CALL_NO_SERVICE:
			return "the GPU service is not running on this server";
		case GS_CALL_NOT_RUNNING:
			return "the GPU service is not running";
		case GS_CALL_STOPPED:
			return "the GPU service stopped before it answered";
		case GS_CALL_NO_CHANNEL:
			return "no free channel to the GPU service for a second request";
		case GS_CALL_DONE:
			break;
	}
	return NULL;
}

/* gs_service_try_call -- see channel_client.h */
bool
gs_service_try_call(const GsRequest *req, GsResponse *resp)
{
	return gs_service_try_call_many(req, resp, 1);
}

/* gs_service_try_call_many -- see channel_client.h */
bool
gs_service_try_call_many(const GsRequest *reqs, GsResponse *resps, int n)
{
	GsCallResult result = service_call(reqs, resps, n,
									   gpuscan_device_mode == GPUSCAN_DEVICE_GPU);
	bool		ok = true;
	int			i;

	for (i = 0; i < n; i++)
	{
		if (result != GS_CALL_DONE)
		{
			resps[i].ok = false;
			strlcpy(resps[i].error, call_failure(result), sizeof(resps[i].error));
		}
		ok &= resps[i].ok;
	}
	return ok;
}

/* How far a streamed request has come, for stream_wait */
typedef enum GsStreamProgress
{
	GS_STREAM_CHUNK_OUT,		/* the chunk waited for is answered */
	GS_STREAM_ANSWERED,			/* the request is answered (before that chunk: failed) */
	GS_STREAM_STOPPED			/* the service stopped */
} GsStreamProgress;

/* stream_answered -- whether the service has answered chunk k already (no wait) */
static bool
stream_answered(GsChannel *ch, int64 k)
{
	return (int64) pg_atomic_read_u64(&ch->stream_out) > k;
}

/*
 * stream_wait -- wait on the session's latch until the service has
 * answered chunk k of the streamed request on channel ch, or answered the
 * whole request, or stopped; answering interrupts
 */
static GsStreamProgress
stream_wait(GsChannel *ch, int64 k)
{
	GsSpin		spin;

	gs_spin_start(&spin);
	for (;;)
	{
		bool		answered;

		/*
		 * Only the count is read while spinning, not the channel's state,
		 * whose lock the service takes for every chunk
		 */
		if (!stream_answered(ch, k) && gs_spin_wait(&spin, GS_STREAM_SPIN_US))
			continue;

		/*
		 * the state first: the service counts its chunks before it answers,
		 * so a chunk counted by then is seen below
		 */
		answered = gs_channel_state(ch) == GS_CHANNEL_DONE;
		if (stream_answered(ch, k))
		{
			/* the answer in the slot was written before the count */
			pg_read_barrier();
			return GS_STREAM_CHUNK_OUT;
		}
		if (answered)
			return GS_STREAM_ANSWERED;
		if (reclaim_if_service_stopped(ch))
			return GS_STREAM_STOPPED;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 GS_WAIT_CHECK_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * stream_once -- post the streamed request `req` on the session's first
 * channel and move its chunks through `room` (gs_service_try_stream); a
 * cancel or an ERROR in fill or drain abandons it and rethrows
 */
static GsCallResult
stream_once(const GsRequest *req, char *room, int64 nchunks, GsStreamFill fill,
			GsStreamDrain drain, void *arg, GsResponse *resp)
{
	GsChannel  *ch;
	GsStreamProgress progress = GS_STREAM_CHUNK_OUT;
	int64		drained = 0;
	int64		k;
	int			starts;
	bool		answered = true;

	memset(resp, 0, sizeof(*resp));
	if ((ch = take_channel(0)) == NULL)
		return GS_CALL_NO_CHANNEL;
	(void) reclaim_if_service_stopped(ch);
	if ((starts = gs_channel_start_now(req->device)) < 0)
		return GS_CALL_NOT_RUNNING;
	post(ch, req, starts);

	PG_TRY();
	{
		for (k = 0; k <= nchunks && progress == GS_STREAM_CHUNK_OUT; k++)
		{
			/*
			 * before chunk k goes into its slot, chunk k - slots is read out
			 * of it; after the last chunk, every answer.  Answers already
			 * out are read at once too, soon after the GPU wrote them.
			 */
			int64		upto = k < nchunks ? k - req->stream_slots + 1 : nchunks;

			while (drained < nchunks &&
				   (drained < upto || stream_answered(ch, drained)) &&
				   (progress = stream_wait(ch, drained)) == GS_STREAM_CHUNK_OUT)
			{
				gs_profile_mark(GS_STAGE_WAIT);
				if (drain)
					drain(drained, room + (drained % req->stream_slots) * req->stream_slot_bytes,
						  arg);
				drained++;
				gs_profile_mark(GS_STAGE_DOWNLOAD);
			}
			if (k < nchunks && progress == GS_STREAM_CHUNK_OUT)
			{
				fill(k, room + (k % req->stream_slots) * req->stream_slot_bytes, arg);
				gs_profile_mark(GS_STAGE_UPLOAD);
				/* the slot's input before the count that hands it over */
				pg_write_barrier();
				pg_atomic_write_u64(&ch->stream_in, k + 1);
			}
		}
		if (progress == GS_STREAM_STOPPED || !await(ch, resp) || resp->retry)
			answered = false;
		else if (resp->ok && !resp->missing && !resp->invalid && drained < nchunks)
		{
			resp->ok = false;
			strlcpy(resp->error, "the GPU service answered before the last chunk",
					sizeof(resp->error));
		}
		gs_profile_mark(GS_STAGE_WAIT);
	}
	PG_CATCH();
	{
		stop_waiting(&ch, 1);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return answered ? GS_CALL_DONE : GS_CALL_STOPPED;
}

/* gs_service_try_stream -- see channel_client.h */
bool
gs_service_try_stream(const GsRequest *req, char *room, int64 nchunks, GsStreamFill fill,
					  GsStreamDrain drain, void *arg, GsResponse *resp)
{
	GsCallResult result = GS_CALL_NO_SERVICE;
	int			tries = 0;

	Assert(req->stream_slots >= 1 && req->stream_slots <= GS_STREAM_MAX_SLOTS);
	memset(resp, 0, sizeof(*resp));
	check_device(req->device);
	if (gs_channels != NULL)
		do
			result = stream_once(req, room, nchunks, fill, drain, arg, resp);
		while (post_again(result, gpuscan_device_mode == GPUSCAN_DEVICE_GPU, &tries));
	if (result != GS_CALL_DONE)
	{
		resp->ok = false;
		strlcpy(resp->error, call_failure(result), sizeof(resp->error));
	}
	return resp->ok;
}

/* gs_service_reserve_channels -- see channel_client.h */
bool
gs_service_reserve_channels(int n)
{
	int			i;

	if (gs_channels == NULL || n > GS_SESSION_CHANNELS)
		return false;
	for (i = 0; i < n; i++)
		if (take_channel(i) == NULL)
			return false;
	return true;
}

/* gs_channel_staging -- see channel_client.h */
char *
gs_channel_staging(int slot, Size bytes, Size least, GsRequest *req)
{
	char	   *base = gs_staging_base();
	GsChannel  *ch;

	req->staged = false;
	if (gs_channels == NULL || base == NULL)
		return NULL;
	if (gpuscan_debug_service_segments)
	{
		gs_staging_count(false);
		return NULL;
	}
	if ((ch = take_channel(slot)) == NULL || gs_channel_state(ch) != GS_CHANNEL_IDLE)
		return NULL;
	if (ch->staging_len < (int64) Max(bytes, 1))
	{
		gs_channel_release_staging(ch);
		if (!gs_staging_alloc(bytes, &ch->staging_off, &ch->staging_len) &&
			(least >= bytes || !gs_staging_alloc(least, &ch->staging_off, &ch->staging_len)))
		{
			gs_staging_count(false);
			return NULL;
		}
	}
	gs_staging_count(true);
	req->staged = true;
	req->staging_off = ch->staging_off;
	req->staging_len = ch->staging_len;
	return base + ch->staging_off;
}

/* gs_channel_staging_done -- see channel_client.h */
void
gs_channel_staging_done(int slot)
{
	GsChannel  *ch = my_channels[slot];

	if (ch == NULL)
		return;
	SpinLockAcquire(&ch->mutex);
	if (ch->state == GS_CHANNEL_IDLE)
		gs_channel_release_staging(ch);
	SpinLockRelease(&ch->mutex);
}

/*
 * gs_channel_init -- define the tests' settings of a session's requests to
 * the GPU service
 */
void
gs_channel_init(void)
{
	DefineCustomIntVariable("gpuscan.debug_service_delay_ms",
							"For tests: the GPU service holds each request of this session this long.",
							"So that a test can cancel or terminate a session that waits for the service. 0: no delay.",
							&gpuscan_debug_service_delay_ms,
							0,
							0, 3600 * 1000,
							PGC_SUSET,
							GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL | GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuscan.debug_service_segments",
							 "For tests: this session hands the GPU service its data in segments of their own.",
							 "Not through the staging area (gpuscan.service_staging_size), as where it has no room.",
							 &gpuscan_debug_service_segments,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuscan.debug_service_fault",
							 "For tests: the GPU service fails while it runs a request of this session.",
							 "The service raises an ERROR, exits and is started again by the server.",
							 &gpuscan_debug_service_fault,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);
}
