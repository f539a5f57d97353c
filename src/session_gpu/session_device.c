/*-------------------------------------------------------------------------
 *
 * session_device.c
 *	  The device from PostgreSQL's side: errors as ereport, and device
 *	  memory that cannot outlive the statement that allocated it.
 *
 * Every device allocation is recorded with the resource owner that was
 * current when it was made.  A resource-release callback frees whatever an
 * owner still holds when it is released: after an ERROR or a cancel the
 * transaction's (or subtransaction's) owners are released, so device memory
 * never leaks; at commit a leftover is a bug and draws a WARNING.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"
#include "utils/resowner.h"

#include "session_gpu/session_device.h"
#include "dispatch/dispatch.h"
#include "gpuscan_device.h"

typedef struct DeviceAllocation
{
	void	   *dptr;
	Size		bytes;
	ResourceOwner owner;
	struct DeviceAllocation *next;
} DeviceAllocation;

static DeviceAllocation *allocations = NULL;

/* gs_device_error -- ERROR with a SQLSTATE for the kind of failure */
void
gs_device_error(gsd_status status, const char *fn)
{
	const char *detail = gsd_last_error();

	switch (status)
	{
		case GSD_OUT_OF_MEMORY:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("%s: out of GPU memory", fn),
					 errdetail("%s", detail),
					 errhint("Run on the CPU with SET gpuscan.device = cpu, or free GPU memory.")));
			break;
		case GSD_NOT_BUILT:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s: gpuscan was built without CUDA", fn),
					 errhint("Set gpuscan.device to 'auto' or 'cpu'.")));
			break;
		case GSD_NO_DRIVER:
		case GSD_NO_DEVICE:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("%s: no GPU is usable", fn),
					 errdetail("%s", detail),
					 errhint("Set gpuscan.device to 'auto' or 'cpu' to run on the CPU.")));
			break;
		case GSD_STICKY:
			gs_dispatch_mark_broken();
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("%s: GPU error; the GPU is off for the rest of this session", fn),
					 errdetail("%s", detail),
					 errhint("Later calls with gpuscan.device = auto run on the CPU.")));
			break;
		case GSD_INVALID:
			elog(ERROR, "%s: invalid device call: %s", fn, detail);
			break;
		case GSD_FAILED:
		case GSD_OK:
		default:
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("%s: GPU operation failed", fn),
					 errdetail("%s", detail)));
			break;
	}
	pg_unreachable();
}

/* gs_device_alloc -- device memory tied to the current resource owner */
void *
gs_device_alloc(Size bytes, const char *fn)
{
	DeviceAllocation *a;
	gsd_status	st;
	void	   *dptr;

	/* the bookkeeping first, so that its failure cannot leak device memory */
	a = MemoryContextAlloc(TopMemoryContext, sizeof(DeviceAllocation));
	st = gsd_alloc(bytes, &dptr);
	if (st != GSD_OK)
	{
		pfree(a);
		gs_device_error(st, fn);
	}
	a->dptr = dptr;
	a->bytes = bytes;
	a->owner = CurrentResourceOwner;
	a->next = allocations;
	allocations = a;
	return dptr;
}

/* gs_device_free -- give back memory from gs_device_alloc */
void
gs_device_free(void *dptr)
{
	DeviceAllocation **p;

	for (p = &allocations; *p != NULL; p = &(*p)->next)
	{
		if ((*p)->dptr == dptr)
		{
			DeviceAllocation *a = *p;

			*p = a->next;
			(void) gsd_free(a->dptr);
			pfree(a);
			return;
		}
	}
	elog(WARNING, "gpuscan: freeing device memory %p that is not tracked", dptr);
}

/* gs_device_bytes_tracked -- what this backend holds now */
Size
gs_device_bytes_tracked(void)
{
	DeviceAllocation *a;
	Size		total = 0;

	for (a = allocations; a != NULL; a = a->next)
		total += a->bytes;
	return total;
}

/*
 * release_device_memory -- resource-release callback: free what the owner
 * being released (CurrentResourceOwner during the callback) still holds.
 */
static void
release_device_memory(ResourceReleasePhase phase, bool isCommit,
					  bool isTopLevel, void *arg)
{
	DeviceAllocation **p;

	if (phase != RESOURCE_RELEASE_AFTER_LOCKS)
		return;
	p = &allocations;
	while (*p != NULL)
	{
		DeviceAllocation *a = *p;

		if (a->owner != CurrentResourceOwner)
		{
			p = &a->next;
			continue;
		}
		if (isCommit)
			elog(WARNING, "gpuscan: device memory leak: %zu bytes at %p", a->bytes, a->dptr);
		*p = a->next;
		(void) gsd_free(a->dptr);	/* never raises: we may be aborting */
		pfree(a);
	}
}

/* gs_device_init -- install the callback (once per process) */
void
gs_device_init(void)
{
	RegisterResourceReleaseCallback(release_device_memory, NULL);
}
