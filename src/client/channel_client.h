/*-------------------------------------------------------------------------
 *
 * channel_client.h
 *	  The session's side of the channels to the GPU service
 *	  (channel_client.c): send a request (ipc/channel.h's GsRequest) and
 *	  wait for its answer, stream one chunk by chunk, take room in the
 *	  staging area for its data.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CHANNEL_CLIENT_H
#define GPUSCAN_CHANNEL_CLIENT_H

#include "postgres.h"

#include "ipc/channel.h"

/*
 * For the tests (superuser): gpuscan.debug_service_delay_ms holds each
 * request of the session in the service this long, gpuscan.debug_service_fault
 * makes the service fail while it runs one
 */
extern int	gpuscan_debug_service_delay_ms;
extern bool gpuscan_debug_service_fault;

/* For the tests (superuser): the session's data never goes through the staging area */
extern bool gpuscan_debug_service_segments;

/*
 * Send `req` to the service and wait for its answer in *resp.  ERROR
 * (SQLSTATE 55000) where the library was not preloaded, the service is
 * not running or stops before it answers, or no channel is free; ERROR
 * (SQLSTATE 38000) where the service answers that the request failed.
 */
extern void gs_service_call(const GsRequest *req, GsResponse *resp);

/*
 * The same, but a service that is not running (restarting) or stops
 * before it answers is not waited for: false then, at once or as soon as
 * the process it was posted to is gone, where gs_service_call waits for
 * the next start (up to GS_SERVICE_WAIT_SECONDS)
 */
extern bool gs_service_ask(const GsRequest *req, GsResponse *resp);

/*
 * The same, but where the service is not running, stops before it answers
 * or answers that the request failed, return false with the reason in
 * resp->error instead of an ERROR (so that the caller can run the work on
 * the CPU).  A cancel or a timeout still ends in an ERROR.
 */
extern bool gs_service_try_call(const GsRequest *req, GsResponse *resp);

/*
 * The same for reqs[0 .. n-1] (n at most GS_SESSION_CHANNELS), posted at
 * once on n channels of this session, so that the GPUs they name work on
 * them at the same time: true if every one was answered ok; false with
 * each failure in its resps[i].error (also where no channel is free for a
 * second request).
 */
extern bool gs_service_try_call_many(const GsRequest *reqs, GsResponse *resps, int n);

/*
 * A streamed request (see "Streamed requests" above): post `req`, whose
 * data is `room` (gs_channel_staging or a segment's), then for each chunk
 * k: wait for its slot to be free, fill(k, slot, arg) writes its input
 * there, and once the service answered it, drain(k, slot, arg) reads the
 * answer (in the order of k; drain may be NULL); then wait for the last
 * answer in *resp.  As gs_service_try_call: false with the reason in
 * resp->error where the service could not run it (or stopped: then, under
 * gpuscan.device = gpu, the request is posted again from its first chunk).
 */
typedef void (*GsStreamFill) (int64 k, char *slot, void *arg);
typedef void (*GsStreamDrain) (int64 k, const char *slot, void *arg);

extern bool gs_service_try_stream(const GsRequest *req, char *room, int64 nchunks,
								  GsStreamFill fill, GsStreamDrain drain, void *arg,
								  GsResponse *resp);

/*
 * Take this session's first n channels now: false where one is not free
 * (the caller then does not split its call)
 */
extern bool gs_service_reserve_channels(int n);

/*
 * Room for `bytes` in the service's staging area (staging_area.h) for
 * the next request on this session's channel `slot`, or where that much is
 * not free, for `least` bytes (as much as `bytes` at most), noted in *req
 * (staging_len: how much): its
 * address, or NULL where there is none (no area, no room free, or the
 * channel still busy with a request the session stopped waiting for): the
 * caller then uses a segment of its own.  The room stays the channel's
 * until gs_channel_staging_done, the end of the transaction or the
 * session's exit.
 */
extern char *gs_channel_staging(int slot, Size bytes, Size least, GsRequest *req);

/* The session has read the answer in its channel `slot`'s staging */
extern void gs_channel_staging_done(int slot);

/* Define the tests' settings of the requests to the service; from _PG_init */
extern void gs_channel_init(void);

#endif							/* GPUSCAN_CHANNEL_CLIENT_H */
