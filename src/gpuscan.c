/*-------------------------------------------------------------------------
 *
 * gpuscan.c
 *	  Module entry: settings and start-up.
 *
 * _PG_init may run in the postmaster (shared_preload_libraries), so it only
 * defines settings and callbacks, and there registers the GPU service
 * (gpu_service.c): CUDA is initialised lazily, per backend,
 * by the first call that uses the GPU (dispatch.c), or, with
 * gpuscan.gpu_prewarm, by a helper thread started here when the library is
 * loaded in a client backend (session_preload_libraries).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "call_profile.h"
#include "device_cache.h"
#include "gpu_service.h"
#include "gpuscan.h"
#include "placement.h"
#include "placement_policy.h"
#include "service_channel.h"
#include "service_staging.h"
#include "service_workers.h"
#include "staging.h"

PG_MODULE_MAGIC;

int			gpuscan_device_mode = GPUSCAN_DEVICE_AUTO;
bool		gpuscan_allow_gpu = true;
int			gpuscan_gpu_min_elements = -1;
int			gpuscan_device_index = 0;
bool		gpuscan_gpu_prewarm = false;

static const struct config_enum_entry device_mode_options[] = {
	{"auto", GPUSCAN_DEVICE_AUTO, false},
	{"gpu", GPUSCAN_DEVICE_GPU, false},
	{"cpu", GPUSCAN_DEVICE_CPU, false},
	{NULL, 0, false}
};

void		_PG_init(void);

/* _PG_init -- define the settings, the sum scan and its planner hook, the cleanup callback */
void
_PG_init(void)
{
	DefineCustomEnumVariable("gpuscan.device",
							 "Where gpuscan functions run.",
							 "auto: on the path predicted faster for each call (on the GPU only "
							 "where one is usable; see gpuscan.gpu_min_elements); "
							 "gpu: always on the GPU, an error if none is usable; "
							 "cpu: always on the CPU, never loading CUDA.",
							 &gpuscan_device_mode,
							 GPUSCAN_DEVICE_AUTO,
							 device_mode_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * What costs resources that all sessions share is for administrators to
	 * hand out: whether a session may use the GPU at all (each session that
	 * does holds a CUDA context on the device) and which device.  Both are
	 * PGC_SUSET, so a superuser sets them per role or database (ALTER ROLE
	 * ... SET) or lets a role set them itself (GRANT SET ON PARAMETER).
	 */
	DefineCustomBoolVariable("gpuscan.allow_gpu",
							 "Whether this session may use the GPU.",
							 "Off: every function runs on the CPU, gpuscan.device = auto "
							 "never opens the GPU and gpuscan.device = gpu is an error. "
							 "Only superusers and roles granted SET on it may change it.",
							 &gpuscan_allow_gpu,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuscan.gpu_min_elements",
							"Smallest input that gpuscan.device = auto sends to the GPU; -1: the cost model decides.",
							"-1 (the default): auto takes the path its cost model predicts faster for "
							"each call. 0 or more: inputs of fewer elements (non-zeros for SpMV, edges "
							"for PageRank) run on the CPU, larger ones on the GPU where one is usable.",
							&gpuscan_gpu_min_elements,
							-1,
							-1, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpuscan.device_index",
							"Which CUDA device gpuscan uses.",
							"Fixed for a session once it has used the GPU. "
							"Only superusers and roles granted SET on it may change it.",
							&gpuscan_device_index,
							0,
							0, 1023,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("gpuscan.placement",
							 "Which GPU runs a call on stored arrays in the GPU service, and the GPU parallel workers open.",
							 "affinity: the GPU whose cache holds the call's arrays, else the least busy one; "
							 "least_busy: the least busy GPU, caching a copy there where needed; "
							 "fixed: the GPU gpuscan.device_index names, for parallel workers too.",
							 &gpuscan_placement,
							 GS_PLACE_AFFINITY,
							 gs_placement_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuscan.split_min_size",
							"The smallest stored array whose gpu_sum the GPU service splits over its GPUs.",
							"Each GPU caches a part and sums it, all at once; -1: never split. "
							"Only with two GPUs or more and gpuscan.placement other than fixed.",
							&gpuscan_split_min_size_mb,
							256,
							-1, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuscan.fetch_stored_arrays",
							 "Whether gpuscan reads large stored arrays itself rather than through PostgreSQL's detoasting.",
							 "On: a stored array argument of 8 MB or more (out of line, uncompressed) "
							 "is read by gpuscan: in TOAST slices as gpu_sum consumes them, or whole "
							 "into huge pages for the other functions. The results are the same.",
							 &gpuscan_fetch_stored_arrays,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * The staging is pinned host memory and device memory per session that
	 * used the GPU, and the copy threads are CPU time: shared resources,
	 * for administrators to size.
	 */
	DefineCustomIntVariable("gpuscan.staging_size",
							"Pinned host memory (and as much device memory) per session for the GPU path's copies.",
							"Four slots of a quarter each; a long input moves through them chunk by "
							"chunk, and a chunk is what one slot holds. Allocated at the session's "
							"first GPU call and kept; a new size takes effect at the next one.",
							&gpuscan_staging_size_kb,
							64 * 1024,
							256, 1024 * 1024,
							PGC_SUSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpuscan.copy_threads",
							"Helper threads per session that copy data into and out of the staging.",
							"-1: half the CPU cores, at most 8. 0: the session's own thread copies. "
							"The CPU path uses them to take the page faults of large results ahead, "
							"and gpu_csr_agg to sort and assemble its matrix.",
							&gpuscan_copy_threads,
							-1,
							-1, 64,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuscan.gpu_prewarm",
							 "Whether a session opens the GPU ahead, when the library is loaded.",
							 "On: where gpuscan is loaded into a session at its start "
							 "(session_preload_libraries), a helper thread creates the CUDA context "
							 "and the staging at once, so that the first GPU call does not wait for "
							 "them, and gpuscan.device = auto counts the GPU as open.",
							 &gpuscan_gpu_prewarm,
							 false,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuscan.cache",
							 "Whether this session's calls on large stored arrays use the GPU service's device cache.",
							 "On: a large array stored in a table is kept on the GPU after its first use "
							 "and later calls on it, from any session, read it there. Needs gpuscan in "
							 "shared_preload_libraries and a GPU.",
							 &gpuscan_cache,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuscan.cache_size",
							"Device memory the GPU service's cache of stored arrays may hold, per GPU.",
							"-1 (the default): a quarter of the GPU's memory. 0: nothing is kept.",
							&gpuscan_cache_size_mb,
							-1,
							-1, INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	/* the service's own settings: they exist where gpuscan is preloaded */
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomIntVariable("gpuscan.service_streams",
								"Requests each GPU's service process runs at once.",
								"Each runs in a thread with a CUDA stream of its own; more wait for a free one.",
								&gpuscan_service_streams,
								4,
								1, GS_SERVICE_MAX_STREAMS,
								PGC_POSTMASTER,
								0,
								NULL, NULL, NULL);

		DefineCustomIntVariable("gpuscan.service_staging_size",
								"Shared memory through which sessions hand data to the GPU service.",
								"Pinned by each GPU's service process; a request that finds no room uses a segment of its own. 0: none.",
								&gpuscan_service_staging_mb,
								128,
								0, 65536,
								PGC_POSTMASTER,
								GUC_UNIT_MB,
								NULL, NULL, NULL);
	}

	DefineCustomIntVariable("gpuscan.debug_cancel_after_chunks",
							"For tests: cancel the statement once a chunked call has done this many chunks.",
							"The same interrupt as pg_cancel_backend's, at a known point. 0: never.",
							&gpuscan_debug_cancel_after_chunks,
							0,
							0, INT_MAX,
							PGC_SUSET,
							GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							NULL, NULL, NULL);

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

	gs_sum_scan_init();

	MarkGUCPrefixReserved("gpuscan");

	gs_device_init();
	gs_profile_init();

	if (process_shared_preload_libraries_in_progress)
		gs_service_register();

	/* a client backend, not the postmaster or a parallel worker */
	if (IsUnderPostmaster && MyBackendType == B_BACKEND)
		gs_dispatch_prewarm();
}
