/*-------------------------------------------------------------------------
 *
 * cached_call.h
 *	  A session's calls on stored arrays through the GPU service's device
 *	  cache (device_cache.h).
 *
 * Where gpuscan is preloaded, the service has a GPU, gpuscan.cache is on
 * and the GPU path is allowed, an array argument stored out of line on
 * disk (of GS_CACHE_MIN_BYTES or more where gpuscan.device = auto) goes
 * to the service by its key (stored_array.h): a hit never reads the value
 * from its table.  On a miss the session reads the value, checks it as the
 * function would, and copies its elements into a dynamic shared memory
 * segment, which the service copies to the device and keeps.  Where the
 * service fails, gpuscan.device = gpu raises an ERROR and auto runs the
 * call on the CPU.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CACHED_CALL_H
#define GPUSCAN_CACHED_CALL_H

#include "fmgr.h"

#include "../common/gpuscan_exact.h"

/* the smallest stored array that gpuscan.device = auto sends to the cache */
#define GS_CACHE_MIN_BYTES	(256 * 1024)

/*
 * Add the exact sum of argument `argno`, an array of elemtype, into *acc
 * through the device cache; false, having changed nothing, where the
 * cache is not to be used for it.
 */
extern bool gs_cached_sum(FunctionCallInfo fcinfo, int argno, Oid elemtype,
						  gs_exact_acc *acc, const char *fn);

#endif							/* GPUSCAN_CACHED_CALL_H */
