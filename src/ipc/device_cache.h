/*-------------------------------------------------------------------------
 *
 * device_cache.h
 *	  The GPU service's device cache of stored arrays: large arrays stored
 *	  out of line in tables, kept in device memory after their first use,
 *	  for every session of every database, keyed by stored_array.h's key.
 *
 * The entries' descriptions live in shared memory, so that any session
 * can list them (the gpuscan_cache view) and place a request on the GPU
 * that holds its arrays (placement.h); their device memory belongs to the
 * service process of their GPU, which alone adds, finds, touches and
 * evicts them.  Each GPU's cache holds at most gpuscan.cache_size
 * megabytes (-1: a quarter of the GPU's memory), least recently used out
 * first.  A request pins the entries it uses until it ends: a pinned entry
 * is never evicted (gpuscan_cache_reset takes it out of the cache at once
 * and frees it when its last request ends).  Each request runs in a thread
 * of its GPU's process (service_workers.h), holding the process's
 * PostgreSQL lock while it calls these functions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_DEVICE_CACHE_H
#define GPUSCAN_DEVICE_CACHE_H

#include "postgres.h"

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"

#include "gpuscan_device.h"
#include "ipc/stored_array.h"

/* settings */
extern bool gpuscan_cache;		/* whether this session uses the cache */
extern int	gpuscan_cache_size_mb;	/* bound per GPU, MB; -1: a quarter of it */

/* the most entries the cache holds, whatever their size */
#define GS_CACHE_MAX_ENTRIES	1024

/* What an entry holds */
typedef enum GsCacheKind
{
	GS_CACHE_ARRAY,				/* the elements of a stored array */
	GS_CACHE_SPMV_PLAN,			/* the SpMV plan of a stored row_ptr array */
	GS_CACHE_PAGERANK_GRAPH		/* PageRank's graph from stored row_ptr and col_idx */
} GsCacheKind;

/*
 * What the CSR checks need of a stored integer[] (csr_check.h), found by
 * the session that loaded it, so that a hit can be checked as a matrix
 * without reading the array: whether it can be a row_ptr (starts at 0,
 * never decreases), and its smallest, largest and last elements.
 */
typedef struct GsIntArrayFacts
{
	bool		row_ptr;
	int32		min;
	int32		max;
	int32		last;
} GsIntArrayFacts;

/* An entry as the service adds and finds it */
typedef struct GsCacheItem
{
	GsCacheKind kind;
	Oid			elemtype;		/* ARRAY: float8, float4 or int4 */
	int64		nelems;			/* ARRAY: its elements */
	int32		lbound;			/* ARRAY: its lower bound */
	int64		bytes;			/* of device memory */
	void	   *dptr;			/* the service's device memory */
	void	   *dptr2;			/* a second allocation, or NULL */
	GsIntArrayFacts facts;		/* ARRAY of integers */
	gsd_spmv_plan plan;			/* SPMV_PLAN, PAGERANK_GRAPH: its parts point into dptr */
	/* PAGERANK_GRAPH: in-link CSR and out-degrees of n nodes, in dptr */
	int32		n;
	int32	   *d_in_ptr;
	int32	   *d_in_idx;
	int32	   *d_outdeg;
} GsCacheItem;

/*
 * The second key of part `part` (0-based) of `nparts` of a stored array
 * split over several GPUs: each GPU caches its part as an ARRAY entry
 * keyed by the array's key and this one (a whole array's second key is
 * zeros)
 */
static inline GsStoredKey
gs_part_key(int part, int nparts)
{
	GsStoredKey k;

	memset(&k, 0, sizeof(k));
	k.valueid = (Oid) (part + 1);
	k.extsize = nparts;
	return k;
}

/*
 * gs_cache_elem_size -- bytes of an element of an array the cache holds, by
 * its element type, or 0 for a type it does not hold; a boolean array is
 * held as its flags, a byte each (NULL as false)
 */
static inline int
gs_cache_elem_size(Oid elemtype)
{
	switch (elemtype)
	{
		case FLOAT8OID:
			return sizeof(double);
		case FLOAT4OID:
			return sizeof(float);
		case INT4OID:
			return sizeof(int32);
		case BOOLOID:
			return 1;
		default:
			return 0;
	}
}

/* ---- shared memory (from gpu_service.c's hooks) ---- */

extern Size gs_cache_shmem_size(void);
extern void gs_cache_shmem_request(void);
extern void gs_cache_shmem_init(void);

/* ---- the service's side: a process works on its own GPU's entries only ---- */

/* At a service process's start: the GPU whose entries it owns */
extern void gs_cache_serve_device(int device);

/*
 * The entry of `kind` for stored value `key` (an ARRAY of elemtype; with
 * the stored value key2 for what is derived from two, else NULL), copied
 * into *item; false if there is none.  A hit becomes the most
 * recently used entry, counts where count_hit says so, and is pinned by
 * the calling thread's request: it is not evicted until that request's
 * gs_cache_unpin_all.
 */
extern bool gs_cache_lookup(const GsStoredKey *key, const GsStoredKey *key2, GsCacheKind kind,
							Oid elemtype, bool count_hit, GsCacheItem *item);

/*
 * Room for a new entry of `bytes`, of at most `limit_bytes` in all on
 * this GPU: evicts least recently used entries that are not pinned
 * (freeing their device memory) until it fits; false where it cannot.
 */
extern bool gs_cache_make_room(int64 bytes, int64 limit_bytes);

/*
 * Add an entry (pinned) for device memory that the caller filled, making
 * room for it as gs_cache_make_room does; false, the memory still the
 * caller's, where another request added the same entry meanwhile or the
 * room is gone
 */
extern bool gs_cache_add(const GsStoredKey *key, const GsStoredKey *key2,
						 const GsCacheItem *item, int64 limit_bytes);

/*
 * The bound of this GPU's cache from now on (gpuscan.cache_size in bytes;
 * 0: nothing is kept): least recently used entries that no request pins
 * are evicted until the rest fit, the others as soon as their last request
 * ends
 */
extern void gs_cache_set_limit(int64 limit_bytes);

/*
 * Unpin the entries the calling thread's request pinned: it is done (and
 * what a lowered bound could not evict while it was in use goes)
 */
extern void gs_cache_unpin_all(void);

/*
 * Take every entry of this GPU out of the cache, freeing its device memory
 * now or, where a request uses it, when the last such request ends;
 * returns how many there were
 */
extern int64 gs_cache_clear(void);

/*
 * Forget every entry of this GPU without freeing its device memory: at the
 * start of its process, where the memory went with the one before.
 */
extern void gs_cache_forget_all(void);

/* ---- the sessions' side ---- */

/*
 * For placement, of GPUs 0 .. ndevices-1: the bytes each caches
 * (cache_bytes) and, of those, the bytes of entries for any of keys[0 ..
 * nkeys-1] (holds_bytes)
 */
extern void gs_cache_holdings(const GsStoredKey *keys, int nkeys, int64 *cache_bytes,
							  int64 *holds_bytes, int ndevices);

/* The entries and bytes cached on GPU `device` */
extern void gs_cache_device_bytes(int device, int *entries, int64 *bytes);

/*
 * One line for gpuscan_info(): entries, bytes, the bound and the counters;
 * NULL where the library was not preloaded
 */
extern char *gs_cache_summary(void);

/* Define gpuscan.cache and gpuscan.cache_size; from _PG_init */
extern void gs_cache_init(void);

#endif							/* GPUSCAN_DEVICE_CACHE_H */
