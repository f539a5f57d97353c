/*-------------------------------------------------------------------------
 *
 * gpuscan.c
 *	  Module entry: start-up.
 *
 * _PG_init may run in the postmaster (shared_preload_libraries), so it only
 * has each module define its settings (in its *_init function) and
 * callbacks, and there registers the GPU service (gpu_service.c), whose
 * processes alone use CUDA: a session's GPU work is a request to them
 * (dispatch.c, service_call.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include "pg/array_stream.h"
#include "pg/call_profile.h"
#include "ipc/device_cache.h"
#include "dispatch/dispatch.h"
#include "service/gpu_service.h"
#include "dispatch/placement.h"
#include "client/channel_client.h"
#include "ipc/channel.h"
#include "pg/chunks.h"
#include "planner/sum_table_scan.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/*
 * _PG_init -- each module defines its settings (and the sum scan its
 * planner hook, and, where gpuscan is preloaded, the GPU service), then
 * the profile
 */
void
_PG_init(void)
{
	gs_dispatch_init();
	gs_placement_init();
	gs_array_stream_init();
	gs_chunks_init();
	gs_cache_init();
	gs_channel_init();
	gs_service_init();
	gs_sum_scan_init();

	MarkGUCPrefixReserved("gpuscan");

	gs_profile_init();
}
