/*-------------------------------------------------------------------------
 *
 * channel.c
 *	  The channels between sessions and the GPU service: their shared
 *	  memory and what both sides read of them (channel.h,
 *	  channel_shared.h).  The session's side is client/channel_client.c,
 *	  the service's service/channel_serve.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sched.h>

#include "miscadmin.h"
#include "storage/shmem.h"
#include "storage/spin.h"

#include "ipc/channel.h"
#include "ipc/channel_shared.h"
#include "ipc/service_status.h"
#include "ipc/staging_area.h"

GsChannels *gs_channels = NULL;

/* gs_channels_shmem_size -- see channel.h */
Size
gs_channels_shmem_size(void)
{
	return add_size(offsetof(GsChannels, channels),
					mul_size(GS_CHANNEL_COUNT, sizeof(GsChannel)));
}

/* gs_channels_shmem_init -- see channel.h; under AddinShmemInitLock */
void
gs_channels_shmem_init(void)
{
	bool		found;
	int			i;

	gs_channels = ShmemInitStruct("gpuscan service channels", gs_channels_shmem_size(), &found);
	if (found)
		return;
	SpinLockInit(&gs_channels->mutex);
	memset(gs_channels->service_latch, 0, sizeof(gs_channels->service_latch));
	gs_channels->count = GS_CHANNEL_COUNT;
	for (i = 0; i < gs_channels->count; i++)
	{
		GsChannel  *ch = &gs_channels->channels[i];

		memset(ch, 0, sizeof(*ch));
		SpinLockInit(&ch->mutex);
		pg_atomic_init_u64(&ch->stream_in, 0);
		pg_atomic_init_u64(&ch->stream_out, 0);
		ch->state = GS_CHANNEL_FREE;
	}
}

/* gs_channels_set_service_latch -- see channel.h */
void
gs_channels_set_service_latch(int device, Latch *latch)
{
	SpinLockAcquire(&gs_channels->mutex);
	gs_channels->service_latch[device] = latch;
	SpinLockRelease(&gs_channels->mutex);
}

/* gs_channel_release_staging -- give back channel ch's room in the staging area */
void
gs_channel_release_staging(GsChannel *ch)
{
	if (ch->staging_len > 0)
		gs_staging_free(ch->staging_off, ch->staging_len);
	ch->staging_len = 0;
}

/*
 * gs_channel_start_now -- the current start of GPU device's process, or -1 if
 * none runs
 */
int
gs_channel_start_now(int device)
{
	GsDeviceStatus st;

	if (!gs_device_status(device, &st) || st.pid == 0 || st.state == GS_SERVICE_STOPPED)
		return -1;
	return st.starts;
}

/* gs_channel_state -- the channel's state, read under its lock */
GsChannelState
gs_channel_state(GsChannel *ch)
{
	GsChannelState st;

	SpinLockAcquire(&ch->mutex);
	st = ch->state;
	SpinLockRelease(&ch->mutex);
	return st;
}

/* How a request ended, for gs_service_call and gs_service_try_call */
/* gs_channels_in_use -- see channel.h */
void
gs_channels_in_use(int *in_use, int *total)
{
	int			i;

	*in_use = 0;
	*total = gs_channels ? gs_channels->count : 0;
	for (i = 0; i < *total; i++)
		if (gs_channel_state(&gs_channels->channels[i]) != GS_CHANNEL_FREE)
			(*in_use)++;
}

/* gs_channels_busy -- see channel.h */
void
gs_channels_busy(int *busy, int ndevices)
{
	int			now[GS_SERVICE_MAX_DEVICES];
	int			i;

	memset(busy, 0, sizeof(int) * ndevices);
	ndevices = Min(ndevices, GS_SERVICE_MAX_DEVICES);
	for (i = 0; i < ndevices; i++)
		now[i] = gs_channel_start_now(i);
	for (i = 0; gs_channels != NULL && i < gs_channels->count; i++)
	{
		GsChannel  *ch = &gs_channels->channels[i];

		/* a request posted to an earlier start of the process is nobody's work */
		SpinLockAcquire(&ch->mutex);
		if ((ch->state == GS_CHANNEL_REQUESTED || ch->state == GS_CHANNEL_RUNNING) &&
			ch->device >= 0 && ch->device < ndevices && ch->starts == now[ch->device])
			busy[ch->device]++;
		SpinLockRelease(&ch->mutex);
	}
}

/* gs_channels_sweep -- see channel.h */
void
gs_channels_sweep(int device, int starts)
{
	int			i;

	for (i = 0; i < gs_channels->count; i++)
	{
		GsChannel  *ch = &gs_channels->channels[i];

		SpinLockAcquire(&ch->mutex);
		if (ch->device == device && ch->starts != starts && ch->abandoned &&
			(ch->state == GS_CHANNEL_REQUESTED || ch->state == GS_CHANNEL_RUNNING))
		{
			gs_channel_release_staging(ch);
			ch->abandoned = false;
			ch->state = GS_CHANNEL_FREE;
		}
		SpinLockRelease(&ch->mutex);
	}
}

/* gs_spin_start -- see channel_shared.h */
void
gs_spin_start(GsSpin *spin)
{
	INSTR_TIME_SET_CURRENT(spin->start);
	spin->pauses = 0;
	spin->over = false;
}

/* gs_spin_wait -- see channel_shared.h: the clock read every 256 pauses */
bool
gs_spin_wait(GsSpin *spin, int budget_us)
{
	instr_time	now;

	if (spin->over)
		return false;
	pg_spin_delay();
	if (++spin->pauses % 256 != 0)
		return true;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, spin->start);
	spin->over = INSTR_TIME_GET_MICROSEC(now) >= budget_us;
	sched_yield();
	return !spin->over;
}
