/*-------------------------------------------------------------------------
 *
 * call_profile.h
 *	  Where the time of one array function call goes, stage by stage,
 *	  reported at DEBUG1: the breakdown that decides what to speed up.
 *
 * An array function marks the end of each stage of its work; the time
 * since the previous mark is added to that stage.  Nothing is measured
 * unless DEBUG1 messages are wanted (client_min_messages or
 * log_min_messages), so the marks cost one test each otherwise.  The GPU
 * path overlaps its copies with the device's work: its marks do not wait
 * for the device, and the time the host waits for it shows as `wait'.
 * Through the GPU service, `upload' is the session's copy of each chunk
 * into the staging area, `download' its copy of each answer out, and
 * `wait' the time it waits for the service's answers.
 * bench/call_profile.sh collects the lines.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CALL_PROFILE_H
#define GPUSCAN_CALL_PROFILE_H

typedef enum GsStage
{
	GS_STAGE_ARGS,				/* fetching (detoasting) and opening the arguments */
	GS_STAGE_DISPATCH,			/* choosing the path (and opening the device) */
	GS_STAGE_CHECKS,			/* NULL checks, flag conversion, counting */
	GS_STAGE_ALLOC,				/* result and device memory, allocated and freed */
	GS_STAGE_UPLOAD,			/* host to device copies */
	GS_STAGE_KERNEL,			/* device work */
	GS_STAGE_DOWNLOAD,			/* device to host copies */
	GS_STAGE_WAIT,				/* waiting for the device (overlapped GPU path) */
	GS_STAGE_CPU,				/* the CPU path's work */
	GS_STAGE_RESULT,			/* result rows (set-returning forms) */
	GS_STAGE_COUNT
} GsStage;

/* Whether the current call is being profiled */
extern bool gs_profiling;

/* Stop profiling when a call raises an ERROR (once per process) */
extern void gs_profile_init(void);

/* Start profiling a call, if DEBUG1 messages are wanted */
extern void gs_profile_begin(void);

/* End `stage`: the time since the previous mark is its */
extern void gs_profile_stage_end(GsStage stage);

/* Note the path and size of the call (from gs_stats_record) */
extern void gs_profile_note(const char *fn, bool on_gpu, int64 elements);

/* Report the call at DEBUG1 and stop profiling */
extern void gs_profile_end(void);

/* gs_profile_mark -- end `stage` if the call is being profiled */
static inline void
gs_profile_mark(GsStage stage)
{
	if (gs_profiling)
		gs_profile_stage_end(stage);
}

#endif							/* GPUSCAN_CALL_PROFILE_H */
