/*-------------------------------------------------------------------------
 *
 * cached_call.h
 *	  A session's calls on stored arrays through the GPU service's device
 *	  cache (device_cache.h).
 *
 * Where gpuscan is preloaded, the service has a GPU, gpuscan.cache is on
 * and the GPU path is allowed, array arguments stored out of line on disk
 * (of GS_CACHE_MIN_BYTES or more where gpuscan.device = auto) go to the
 * service by their keys (stored_array.h): a hit never reads them from
 * their table.  On a miss the session reads the values, checks them as
 * the function does, and loads those the service lacks (GS_OP_LOAD, in a
 * dynamic shared memory segment); then it asks again.  Where the service
 * fails, gpuscan.device = gpu raises an ERROR and auto runs the call in
 * the session; where the cache cannot hold the arrays, the call runs in
 * the session too.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_CACHED_CALL_H
#define GPUSCAN_CACHED_CALL_H

#include "fmgr.h"

#include "../common/gpuscan_exact.h"
#include "pg/array_input.h"
#include "client/service_call.h"
#include "cpu/csr_check.h"
#include "dispatch/stats.h"
#include "ipc/stored_array.h"

/* the smallest stored array that gpuscan.device = auto sends to the cache */
#define GS_CACHE_MIN_BYTES	(256 * 1024)

/*
 * Add the exact sum of argument `argno`, an array of elemtype, into *acc
 * through the device cache; false, having changed nothing, where the
 * cache is not to be used for it.
 */
extern bool gs_cached_sum(FunctionCallInfo fcinfo, int argno, Oid elemtype,
						  gs_exact_acc *acc, const char *fn);

/*
 * Where a call's result goes: room for n doubles of a result whose input
 * had lower bound lbound, made by the caller
 */
typedef double *(*GsResultAlloc) (void *arg, int64 n, int32 lbound);

/*
 * Whether argument `argno`, an array of elemtype, may go to the cache: it
 * is stored out of line on disk, large enough and the cache is to be used
 * (a quick test, before a caller reads its other arguments)
 */
extern bool gs_cache_candidate(FunctionCallInfo fcinfo, int argno, Oid elemtype);

/*
 * Where kept values go: room for up to n of them, made by the caller, who
 * then learns how many were written
 */
typedef void *(*GsKeptAlloc) (void *arg, int64 n);

/*
 * The values of argument 0, an array of elemtype, whose n flags keep (in
 * memory or stored, GsFlags) are not zero (the caller opened and checked
 * keep, argument 1), through the device cache, into the room alloc(arg,
 * ...) gives, *kept of them; false where the cache is not to be used for
 * it (also where vals is not n long: the caller's own checks say why),
 * having changed nothing but perhaps made the room.
 */
extern bool gs_cached_compact(FunctionCallInfo fcinfo, Oid elemtype, const GsFlags *keep,
							  int64 n, GsKeptAlloc alloc, void *arg, int64 *kept,
							  const char *fn);

/*
 * Where the flags of a boolean array come from when the cache lacks them:
 * *n flags, a byte each, NULL as false, read and checked by the caller
 */
typedef const uint8 *(*GsFlagsRead) (void *arg, int64 *n);

/*
 * The positions (from 1) of the true elements of argument 0, a boolean
 * array, through the device cache, into the room alloc(arg, ...) gives,
 * *kept of them; read_keep(keep_arg, &n) gives its flags where the cache
 * lacks them.  False, having changed nothing but perhaps read the flags,
 * where the cache is not to be used for it.
 */
extern bool gs_cached_compact_indices(FunctionCallInfo fcinfo, GsFlagsRead read_keep,
									  void *keep_arg, GsKeptAlloc alloc, void *arg,
									  int64 *kept, const char *fn);

/*
 * The prefix sums of argument 0, an array of elemtype, through the device
 * cache, into the room alloc(arg, n, lbound) gives; false, having changed
 * nothing but perhaps made the room, where the cache is not to be used
 * for it.  A large array stored uncompressed (array_stream.h) streams
 * from the cache, or on a miss from its TOAST slices into the cache, and
 * its sums come back chunk by chunk while the GPU works on the next.
 */
extern bool gs_cached_prefix_sum(FunctionCallInfo fcinfo, Oid elemtype, bool exclusive,
								 GsResultAlloc alloc, void *arg, const char *fn);

/*
 * A matrix's arguments as the cache knows them: SpMV's row_ptr, col_idx
 * and vals, or PageRank's row_ptr and col_idx (arguments 0 .. nargs - 1)
 */
typedef struct GsCachedMatrix
{
	FunctionCallInfo fcinfo;
	int			nargs;			/* 3: SpMV, 2: PageRank */
	Oid			elemtype;		/* SpMV: of vals, x and y */
	GsStoredKey keys[3];
	int			device;			/* the GPU whose process runs the call (placement.h) */
	int			missing;		/* bit i: argument i is not cached */
	GsTimer		timer;
} GsCachedMatrix;

/*
 * Whether the call's matrix (its first nargs arguments) goes to the cache:
 * each is stored out of line on disk and the cache is to be used; sets up
 * *m.
 */
extern bool gs_cached_matrix(GsCachedMatrix *m, FunctionCallInfo fcinfo, int nargs,
							 Oid elemtype);

/*
 * y = A x in the service, with A's arrays cached and x (checked by the
 * caller) sent: a palloc'd y of *nrows elements, or NULL where some array
 * is missing (m->missing says which), the cached arrays do not make a
 * matrix for this x (the caller's own checks will say why), or the
 * service failed under gpuscan.device = auto.
 */
extern void *gs_cached_spmv(GsCachedMatrix *m, const GsArrayInput *x, int32 *nrows,
							const char *fn);

/*
 * Load the missing arrays of the matrix, which the caller has checked
 * (csr, and vals for SpMV): true if the service has them all now.
 */
extern bool gs_cached_matrix_load(GsCachedMatrix *m, const GsCsr *csr,
								  const GsArrayInput *vals, const char *fn);

/*
 * PageRank in the service of the graph whose row_ptr and col_idx are
 * cached: a palloc'd rank vector of *n elements, or NULL as for
 * gs_cached_spmv.  The iterations done go to DEBUG1, as on the other paths.
 */
extern double *gs_cached_pagerank(GsCachedMatrix *m, double damping, double tolerance,
								  int32 max_iterations, int32 *n, const char *fn);

#endif							/* GPUSCAN_CACHED_CALL_H */
