/*-------------------------------------------------------------------------
 *
 * gpuscan.c
 *	  Module entry: settings and start-up.
 *
 * _PG_init may run in the postmaster (shared_preload_libraries), so it only
 * defines settings and callbacks: CUDA is initialised lazily, per backend,
 * by the first call that uses the GPU (dispatch.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/guc.h"

#include "call_profile.h"
#include "gpuscan.h"

PG_MODULE_MAGIC;

int			gpuscan_device_mode = GPUSCAN_DEVICE_AUTO;
bool		gpuscan_allow_gpu = true;
int			gpuscan_gpu_min_elements = 1000000;
int			gpuscan_device_index = 0;

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
							 "auto: on the GPU when one is usable and the input has at least "
							 "gpuscan.gpu_min_elements elements, else on the CPU; "
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
							"Smallest input that gpuscan.device = auto sends to the GPU.",
							"Smaller inputs run on the CPU, where copying them to the GPU would cost more than it saves.",
							&gpuscan_gpu_min_elements,
							1000000,
							0, INT_MAX,
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

	gs_sum_scan_init();

	MarkGUCPrefixReserved("gpuscan");

	gs_device_init();
	gs_profile_init();
}
