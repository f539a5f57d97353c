/*-------------------------------------------------------------------------
 *
 * call_profile.c
 *	  The stage-by-stage time of one array function call (call_profile.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "lib/stringinfo.h"
#include "portability/instr_time.h"
#include "utils/elog.h"

#include "pg/call_profile.h"

bool		gs_profiling = false;

static const char *const stage_names[GS_STAGE_COUNT] = {
	"args", "dispatch", "checks", "alloc", "upload", "kernel", "download", "wait", "cpu", "result"
};

static struct
{
	instr_time	begin;
	instr_time	last;
	double		ms[GS_STAGE_COUNT];
	char		fn[64];
	bool		on_gpu;
	int64		elements;
} profile;

/*
 * stop_on_abort -- a call that raised an ERROR is not profiled further
 * (else the marks of later aggregate calls would wait for the device)
 */
static void
stop_on_abort(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		gs_profiling = false;
}

/* stop_on_subabort -- the same for a subtransaction (an EXCEPTION block) */
static void
stop_on_subabort(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		gs_profiling = false;
}

/* gs_profile_init -- see call_profile.h */
void
gs_profile_init(void)
{
	RegisterXactCallback(stop_on_abort, NULL);
	RegisterSubXactCallback(stop_on_subabort, NULL);
}

/* gs_profile_begin -- see call_profile.h */
void
gs_profile_begin(void)
{
	gs_profiling = message_level_is_interesting(DEBUG1);
	if (!gs_profiling)
		return;
	memset(&profile, 0, sizeof(profile));
	INSTR_TIME_SET_CURRENT(profile.begin);
	profile.last = profile.begin;
}

/* gs_profile_stage_end -- see call_profile.h */
void
gs_profile_stage_end(GsStage stage)
{
	instr_time	now;
	instr_time	since;

	INSTR_TIME_SET_CURRENT(now);
	since = now;
	INSTR_TIME_SUBTRACT(since, profile.last);
	profile.ms[stage] += INSTR_TIME_GET_MILLISEC(since);
	profile.last = now;
}

/* gs_profile_note -- see call_profile.h */
void
gs_profile_note(const char *fn, bool on_gpu, int64 elements)
{
	if (!gs_profiling)
		return;
	strlcpy(profile.fn, fn, sizeof(profile.fn));
	profile.on_gpu = on_gpu;
	profile.elements = elements;
}

/*
 * gs_profile_end -- see call_profile.h.  The line reads
 *	gpuscan profile: gpu_sum cpu 10000000 elements 14.210 ms: args 2.010 cpu 12.200
 * listing the stages that took any time; "other" is what no mark claimed.
 */
void
gs_profile_end(void)
{
	StringInfoData line;
	instr_time	total;
	double		claimed = 0;
	int			s;

	if (!gs_profiling)
		return;
	gs_profiling = false;
	INSTR_TIME_SET_CURRENT(total);
	INSTR_TIME_SUBTRACT(total, profile.begin);

	initStringInfo(&line);
	appendStringInfo(&line, "gpuscan profile: %s %s " INT64_FORMAT " elements %.3f ms:",
					 profile.fn[0] ? profile.fn : "?", profile.on_gpu ? "gpu" : "cpu",
					 profile.elements, INSTR_TIME_GET_MILLISEC(total));
	for (s = 0; s < GS_STAGE_COUNT; s++)
	{
		claimed += profile.ms[s];
		if (profile.ms[s] > 0.0005)
			appendStringInfo(&line, " %s %.3f", stage_names[s], profile.ms[s]);
	}
	appendStringInfo(&line, " other %.3f", INSTR_TIME_GET_MILLISEC(total) - claimed);
	ereport(DEBUG1, (errmsg_internal("%s", line.data)));
	pfree(line.data);
}
