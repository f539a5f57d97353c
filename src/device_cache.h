/*-------------------------------------------------------------------------
 *
 * device_cache.h
 *	  The GPU service's device cache of stored arrays: large arrays stored
 *	  out of line in tables, kept in device memory after their first use,
 *	  for every session of every database, keyed by stored_array.h's key.
 *
 * The entries' descriptions live in shared memory, so that any session
 * can list them (the gpuscan_cache view); their device memory belongs to
 * the service, which alone adds, finds, touches and evicts entries.  The
 * cache holds at most gpuscan.cache_size megabytes per GPU (-1: a quarter
 * of the GPU's memory), least recently used out first; an entry is in use
 * only while the service runs a request on it, and the service runs one
 * request at a time, so an entry in use is never evicted.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_DEVICE_CACHE_H
#define GPUSCAN_DEVICE_CACHE_H

#include "postgres.h"

#include "datatype/timestamp.h"

#include "stored_array.h"

/* settings */
extern bool gpuscan_cache;		/* whether this session uses the cache */
extern int	gpuscan_cache_size_mb;	/* bound per GPU, MB; -1: a quarter of it */

/* the most entries the cache holds, whatever their size */
#define GS_CACHE_MAX_ENTRIES	1024

/* ---- shared memory (from gpu_service.c's hooks) ---- */

extern Size gs_cache_shmem_size(void);
extern void gs_cache_shmem_request(void);
extern void gs_cache_shmem_init(void);

/* ---- the service's side ---- */

/*
 * The device copy of the stored array `key` of elements of elemsize bytes,
 * with their number in *nelems, or NULL; a hit counts and becomes the most
 * recently used entry.
 */
extern void *gs_cache_lookup(const GsStoredKey *key, int elemsize, int64 *nelems);

/*
 * Room for a new entry of `bytes` on device `device`, of at most
 * `limit_bytes` in all: evicts least recently used entries (freeing their
 * device memory) until it fits; false where it cannot (bigger than the
 * limit).
 */
extern bool gs_cache_make_room(int device, int64 bytes, int64 limit_bytes);

/* Add an entry for device memory that the caller filled */
extern void gs_cache_add(const GsStoredKey *key, int elemsize, int64 nelems,
						 int device, void *dptr);

/* Free every entry; returns how many there were */
extern int64 gs_cache_clear(void);

/*
 * Forget every entry without freeing its device memory: at the service's
 * start, where the memory went with the process that held it.
 */
extern void gs_cache_forget_all(void);

/* ---- the sessions' side ---- */

/*
 * One line for gpuscan_info(): entries, bytes, the bound and the counters;
 * NULL where the library was not preloaded
 */
extern char *gs_cache_summary(void);

#endif							/* GPUSCAN_DEVICE_CACHE_H */
