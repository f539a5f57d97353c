/*-------------------------------------------------------------------------
 *
 * stats.c
 *	  Per-backend counters of what ran where: gpuscan_stats() and
 *	  gpuscan_stats_reset().
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "pg/call_profile.h"
#include "dispatch/dispatch.h"
#include "dispatch/stats.h"

typedef struct StatsEntry
{
	char		fn[64];
	char		path[32];		/* cpu, gpu, or a path through the GPU service */
	int			device;			/* the GPU that ran it; -1 for the CPU */
	int64		calls;
	int64		elements;
	int64		bytes_moved;
	double		time_ms;
	char		reason[256];	/* of the last call */
	struct StatsEntry *next;
} StatsEntry;

static StatsEntry *entries = NULL;

/* gs_timer_start -- note the start of a timed call */
void
gs_timer_start(GsTimer *t)
{
	INSTR_TIME_SET_CURRENT(t->start);
}

/* record -- add one call of `ms` to the counters of (fn, path) */
static void
record(const char *fn, const char *path, int device, int64 elements, int64 bytes_moved,
	   double ms, const char *reason)
{
	StatsEntry *e;

	for (e = entries; e != NULL; e = e->next)
		if (strcmp(e->path, path) == 0 && strcmp(e->fn, fn) == 0 && e->device == device)
			break;
	if (e == NULL)
	{
		e = MemoryContextAllocZero(TopMemoryContext, sizeof(StatsEntry));
		strlcpy(e->fn, fn, sizeof(e->fn));
		strlcpy(e->path, path, sizeof(e->path));
		e->device = device;
		e->next = entries;
		entries = e;
	}
	e->calls++;
	e->elements += elements;
	e->bytes_moved += bytes_moved;
	e->time_ms += ms;
	strlcpy(e->reason, reason, sizeof(e->reason));
}

/* elapsed_ms -- milliseconds since gs_timer_start(t) */
static double
elapsed_ms(const GsTimer *t)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, t->start);
	return INSTR_TIME_GET_MILLISEC(now);
}

/* the GPU of the service's process that took the session's last call */
static int	service_device = -1;

/* gs_stats_note_service_device -- see stats.h */
void
gs_stats_note_service_device(int device)
{
	service_device = device;
}

/* gs_stats_record -- add one call to the counters of (fn, path) */
void
gs_stats_record(const char *fn, bool on_gpu, int64 elements,
				int64 bytes_moved, const GsTimer *t)
{
	double		ms = elapsed_ms(t);

	gs_profile_note(fn, on_gpu, elements);
	gs_dispatch_measured(on_gpu, elements, ms);
	if (!on_gpu)
		record(fn, "cpu", -1, elements, bytes_moved, ms, gs_last_reason());
	else
		record(fn, "gpu service", service_device, elements, bytes_moved, ms,
			   gs_last_reason());
}

/* gs_stats_record_path -- see stats.h; the call's profile line names it as well */
void
gs_stats_record_path(const char *fn, const char *path, int device, int64 elements,
					 int64 bytes_moved, const GsTimer *t, const char *reason)
{
	gs_profile_note(fn, strcmp(path, "cpu") != 0, elements);
	record(fn, path, device, elements, bytes_moved, elapsed_ms(t), reason);
}

PG_FUNCTION_INFO_V1(gpuscan_stats);

/* gpuscan_stats -- one row per (function, path) used in this backend */
Datum
gpuscan_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StatsEntry *e;

	InitMaterializedSRF(fcinfo, 0);
	/* the library is newer than the SQL objects until ALTER EXTENSION ... UPDATE */
	if (rsinfo->setDesc->natts != 8)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuscan_stats: the extension's SQL objects are older than its library"),
				 errhint("Run ALTER EXTENSION gpuscan UPDATE.")));
	for (e = entries; e != NULL; e = e->next)
	{
		Datum		values[8];
		bool		nulls[8] = {false};

		values[0] = CStringGetTextDatum(e->fn);
		values[1] = CStringGetTextDatum(e->path);
		values[2] = Int32GetDatum(e->device);
		nulls[2] = e->device < 0;
		values[3] = Int64GetDatum(e->calls);
		values[4] = Int64GetDatum(e->elements);
		values[5] = Int64GetDatum(e->bytes_moved);
		values[6] = Float8GetDatum(e->time_ms);
		values[7] = CStringGetTextDatum(e->reason);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(gpuscan_stats_reset);

/* gpuscan_stats_reset -- forget the counters of this backend */
Datum
gpuscan_stats_reset(PG_FUNCTION_ARGS)
{
	while (entries != NULL)
	{
		StatsEntry *next = entries->next;

		pfree(entries);
		entries = next;
	}
	PG_RETURN_VOID();
}
