/*-------------------------------------------------------------------------
 *
 * channel_serve.h
 *	  The GPU service's side of the channels (channel_serve.c): run the
 *	  requests posted to this process, stream their chunks, notice a
 *	  session that stopped waiting.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CHANNEL_SERVE_H
#define GPUSCAN_CHANNEL_SERVE_H

#include "postgres.h"

#include "ipc/channel.h"

/*
 * executes one request; runs in one of the service process's threads,
 * holding the PostgreSQL lock (service_workers.h)
 */
typedef void (*GsServeRequest) (const GsRequest *req, GsResponse *resp);

/*
 * Hand the requests posted to GPU `device`'s process in its start `starts`
 * to the process's free threads (the rest wait for one); each thread hands
 * its answer back and sets the process's latch.  The caller is the main
 * thread, holding the PostgreSQL lock.
 */
extern void gs_channels_serve(int device, int starts, GsServeRequest serve);

/*
 * In a service thread running a streamed request: wait until the session
 * has written chunk k into its slot (false where the session stopped
 * waiting or the service is stopping first); then, once the slot's answer
 * is written (or its input read), hand chunk k back to the session.  The
 * PostgreSQL lock is not held while waiting.
 */
extern bool gs_stream_chunk_in(int64 k);
extern void gs_stream_chunk_out(int64 k);

/*
 * In a service thread: whether the session stopped waiting for the
 * request the thread runs (a cancel, a timeout, its exit): the request
 * then stops at once, its answer unread
 */
extern bool gs_request_abandoned(void);


#endif							/* GPUSCAN_CHANNEL_SERVE_H */
