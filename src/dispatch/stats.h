/*-------------------------------------------------------------------------
 *
 * stats.h
 *	  The calls counted for gpuscan_stats(), and their timers (stats.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_STATS_H
#define GPUSCAN_STATS_H

#include "postgres.h"

#include "portability/instr_time.h"

typedef struct GsTimer
{
	instr_time	start;
} GsTimer;

extern void gs_timer_start(GsTimer *t);

/* Milliseconds from a to b: the phases some functions log at DEBUG1. */
static inline double
gs_ms_between(instr_time a, instr_time b)
{
	INSTR_TIME_SUBTRACT(b, a);
	return INSTR_TIME_GET_MILLISEC(b);
}

/* Count one call of `fn` on a path, with its elements, bytes moved to and
 * from the device, and the time since the timer started. */
extern void gs_stats_record(const char *fn, bool on_gpu, int64 elements,
							int64 bytes_moved, const GsTimer *t);

/*
 * The GPU whose service process takes the session's call on values in
 * memory (from the client's placement of it): gs_stats_record names it
 */
extern void gs_stats_note_service_device(int device);

/* The same for a call that took another path (named `path`, on GPU
 * `device`) for `reason`; it does not correct the cost model. */
extern void gs_stats_record_path(const char *fn, const char *path, int device, int64 elements,
								 int64 bytes_moved, const GsTimer *t, const char *reason);

#endif							/* GPUSCAN_STATS_H */
