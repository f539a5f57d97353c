/*-------------------------------------------------------------------------
 *
 * channel_shared.h
 *	  The channels' layout in shared memory, for the code of the channels
 *	  on either side only: the session's (client/channel_client.c), the
 *	  service's (service/channel_serve.c) and what both use
 *	  (ipc/channel.c).  Everything else goes through channel.h and the
 *	  sides' headers.
 *
 * Two channels per possible backend (GS_CHANNEL_COUNT), each with a spinlock
 * over its state:
 *
 *	FREE       no session holds it
 *	IDLE       held by a session, no request
 *	REQUESTED  a request is posted, for the process of GPU `device` in its
 *	           start `starts`
 *	RUNNING    that process is working on it
 *	DONE       the answer is there for the session
 *
 * A session that stops waiting for a RUNNING request (an ERROR, a cancel, a
 * statement timeout, its exit) marks it abandoned and lets go of the
 * channel: the request stops at its next check (gs_request_abandoned:
 * between PageRank iterations, before each step of its work), the
 * service frees the channel and its staging, and the session's next call
 * takes another channel instead of waiting.  Only the service moves a
 * channel out of RUNNING, except where the service has stopped: then the
 * session that waits on the channel takes it back to IDLE itself, and an
 * abandoned one is freed by the session that lets go of it or by the
 * service's next start (gs_channels_sweep), as that start never runs a
 * request posted to an earlier one.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CHANNEL_SHARED_H
#define GPUSCAN_CHANNEL_SHARED_H

#include "postgres.h"

#include "port/atomics.h"
#include "portability/instr_time.h"
#include "storage/latch.h"
#include "storage/spin.h"

#include "ipc/protocol.h"

typedef enum GsChannelState
{
	GS_CHANNEL_FREE,
	GS_CHANNEL_IDLE,
	GS_CHANNEL_REQUESTED,
	GS_CHANNEL_RUNNING,
	GS_CHANNEL_DONE
} GsChannelState;

typedef struct GsChannel
{
	slock_t		mutex;			/* protects everything below */
	GsChannelState state;
	bool		abandoned;		/* RUNNING, and no session will read the answer:
								 * the service frees the channel at the end */
	Latch	   *owner_latch;
	int			device;			/* the GPU whose process the request was posted to ... */
	int			starts;			/* ... in this start of that process */
	int64		staging_off;	/* the channel's room in the staging area ... */
	int64		staging_len;	/* ... 0: none; changed by the session while IDLE, by
								 * the service as it ends a request it must free */
	/* a streamed request's chunks: written by the session, answered by the service */
	pg_atomic_uint64 stream_in;
	pg_atomic_uint64 stream_out;
	GsRequest	req;
	GsResponse	resp;
} GsChannel;

typedef struct GsChannels
{
	slock_t		mutex;			/* protects service_latch */
	Latch	   *service_latch[GS_SERVICE_MAX_DEVICES];	/* of each GPU's process */
	int			count;
	GsChannel	channels[FLEXIBLE_ARRAY_MEMBER];
} GsChannels;

/* The channels, in shared memory (NULL where the library was not preloaded) */
extern GsChannels *gs_channels;

/* A channel's state, read under its lock */
extern GsChannelState gs_channel_state(GsChannel *ch);

/* Give back channel ch's room in the staging area (under its lock, or its owner's) */
extern void gs_channel_release_staging(GsChannel *ch);

/* The current start of GPU device's process, or -1 if none runs */
extern int	gs_channel_start_now(int device);

/*
 * A short spin of either side waiting for the other's next chunk count
 * (a streamed chunk takes a fraction of a millisecond; a sleep or a latch
 * wake-up, tens of microseconds): gs_spin_wait pauses once and says
 * whether the spin of budget_us since gs_spin_start goes on.  Now and then
 * it reads the clock and yields the core to a thread waiting for it (a
 * session's copy thread, say).
 */
typedef struct GsSpin
{
	instr_time	start;
	int			pauses;
	bool		over;
} GsSpin;

extern void gs_spin_start(GsSpin *spin);
extern bool gs_spin_wait(GsSpin *spin, int budget_us);

#endif							/* GPUSCAN_CHANNEL_SHARED_H */
