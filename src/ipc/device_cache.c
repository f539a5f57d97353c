/*-------------------------------------------------------------------------
 *
 * device_cache.c
 *	  The GPU service's device cache of stored arrays (device_cache.h), and
 *	  the SQL functions that show and empty it.
 *
 * A fixed table of GS_CACHE_MAX_ENTRIES descriptions in shared memory
 * under one LWLock: the service takes it exclusively to change the table,
 * sessions take it shared to read it.  Lookups scan the table: it is
 * small, and a lookup is one per call of a function on a large array.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#include "ipc/device_cache.h"
#include "gpuscan_device.h"

typedef struct GsCacheEntry
{
	bool		used;
	bool		removed;		/* out of the cache, freed when no request pins it */
	int			pins;			/* requests running on it */
	GsStoredKey key;
	GsStoredKey key2;			/* the second value a derived entry comes from, or zeros */
	GsCacheItem item;
	int			device;
	int64		hits;
	TimestampTz loaded_at;
	TimestampTz last_use;
} GsCacheEntry;

typedef struct GsCacheShared
{
	LWLock	   *lock;			/* protects everything below */
	int64		bytes;			/* in all entries */
	int64		limit_bytes;	/* the bound a service process last applied; 0 until then */
	int64		hits;
	int64		loads;
	int64		evictions;
	GsCacheEntry entries[GS_CACHE_MAX_ENTRIES];
} GsCacheShared;

bool		gpuscan_cache = true;
int			gpuscan_cache_size_mb = -1;

static GsCacheShared *cache = NULL;

/* in a service process: the GPU whose entries it owns; -1 elsewhere */
static int	serve_device = -1;

/* in a service process: its bound (gs_cache_set_limit), -1 until set */
static int64 my_limit = -1;

/* the entries the calling thread's request pinned, once each */
#define GS_MAX_PINS_PER_REQUEST 8
static __thread int my_pins[GS_MAX_PINS_PER_REQUEST];
static __thread int my_npins = 0;

/* gs_cache_serve_device -- see device_cache.h */
void
gs_cache_serve_device(int device)
{
	serve_device = device;
}

/* gs_cache_shmem_size -- see device_cache.h */
Size
gs_cache_shmem_size(void)
{
	return MAXALIGN(sizeof(GsCacheShared));
}

/* gs_cache_shmem_request -- see device_cache.h; the cache's lock */
void
gs_cache_shmem_request(void)
{
	RequestNamedLWLockTranche("gpuscan device cache", 1);
}

/* gs_cache_shmem_init -- see device_cache.h; under AddinShmemInitLock */
void
gs_cache_shmem_init(void)
{
	bool		found;

	cache = ShmemInitStruct("gpuscan device cache", gs_cache_shmem_size(), &found);
	if (found)
		return;
	memset(cache, 0, sizeof(GsCacheShared));
	cache->lock = &(GetNamedLWLockTranche("gpuscan device cache"))->lock;
}

/* keys_equal -- whether two stored keys name the same stored value */
static bool
keys_equal(const GsStoredKey *a, const GsStoredKey *b)
{
	return a->dbid == b->dbid &&
		a->toastrelid == b->toastrelid &&
		a->valueid == b->valueid &&
		a->extsize == b->extsize &&
		ItemPointerEquals((ItemPointer) &a->chunk0_tid, (ItemPointer) &b->chunk0_tid) &&
		a->chunk0_xmin == b->chunk0_xmin;
}

/*
 * pin -- pin entry i for the calling thread's request, once; under the
 * lock.  A request uses at most a few entries; one that found more would
 * leave the rest unpinned, which the service's requests never do.
 */
static void
pin(int i)
{
	int			k;

	for (k = 0; k < my_npins; k++)
		if (my_pins[k] == i)
			return;
	if (my_npins == GS_MAX_PINS_PER_REQUEST)
		return;
	my_pins[my_npins++] = i;
	cache->entries[i].pins++;
}

/*
 * find_entry -- the index of this GPU's entry of kind (and elemtype, for an
 * array) under (key, key2 or zeros), or -1; under the cache's lock
 */
static int
find_entry(const GsStoredKey *key, const GsStoredKey *key2, GsCacheKind kind, Oid elemtype)
{
	GsStoredKey none;
	int			i;

	memset(&none, 0, sizeof(none));
	if (key2 == NULL)
		key2 = &none;
	for (i = 0; i < GS_CACHE_MAX_ENTRIES; i++)
	{
		GsCacheEntry *e = &cache->entries[i];

		if (e->used && !e->removed && e->device == serve_device && e->item.kind == kind &&
			keys_equal(&e->key, key) && keys_equal(&e->key2, key2) &&
			(kind != GS_CACHE_ARRAY || e->item.elemtype == elemtype))
			return i;
	}
	return -1;
}

/* gs_cache_lookup -- see device_cache.h */
bool
gs_cache_lookup(const GsStoredKey *key, const GsStoredKey *key2, GsCacheKind kind, Oid elemtype,
				bool count_hit, GsCacheItem *item)
{
	int			i;

	LWLockAcquire(cache->lock, LW_EXCLUSIVE);
	if ((i = find_entry(key, key2, kind, elemtype)) >= 0)
	{
		GsCacheEntry *e = &cache->entries[i];

		if (count_hit)
		{
			e->hits++;
			cache->hits++;
		}
		e->last_use = GetCurrentTimestamp();
		pin(i);
		*item = e->item;
	}
	LWLockRelease(cache->lock);
	return i >= 0;
}

/* evict -- free entry e's device memory and its slot; under the lock */
static void
evict(GsCacheEntry *e)
{
	(void) gsd_free(e->item.dptr);
	if (e->item.dptr2)
		(void) gsd_free(e->item.dptr2);
	cache->bytes -= e->item.bytes;
	cache->evictions++;
	e->used = false;
}

/*
 * least_recent -- the least recently used entry of this process's GPU
 * that is not pinned, or NULL
 */
static GsCacheEntry *
least_recent(void)
{
	GsCacheEntry *oldest = NULL;
	int			i;

	for (i = 0; i < GS_CACHE_MAX_ENTRIES; i++)
	{
		GsCacheEntry *e = &cache->entries[i];

		if (e->used && !e->removed && e->pins == 0 && e->device == serve_device &&
			(oldest == NULL || e->last_use < oldest->last_use))
			oldest = e;
	}
	return oldest;
}

/* free_slot -- an unused entry, or NULL */
static GsCacheEntry *
free_slot(void)
{
	int			i;

	for (i = 0; i < GS_CACHE_MAX_ENTRIES; i++)
		if (!cache->entries[i].used)
			return &cache->entries[i];
	return NULL;
}

/* bytes_on -- bytes of the entries on `device`; under the lock */
static int64
bytes_on(int device)
{
	int64		sum = 0;
	int			i;

	for (i = 0; i < GS_CACHE_MAX_ENTRIES; i++)
		if (cache->entries[i].used && cache->entries[i].device == device)
			sum += cache->entries[i].item.bytes;
	return sum;
}

/*
 * evict_down_to -- evict least recently used entries of this GPU that no
 * request pins until they hold at most `bytes`; under the lock.  Whether
 * they do (what is left over is pinned).
 */
static bool
evict_down_to(int64 bytes)
{
	GsCacheEntry *victim;

	while (bytes_on(serve_device) > bytes)
	{
		if ((victim = least_recent()) == NULL)
			return false;
		evict(victim);
	}
	return true;
}

/*
 * make_room -- gs_cache_make_room's work, under the lock: evict least
 * recently used entries that no request pins until `bytes` more fit
 * within limit_bytes and a slot is free.  A bound of 0 keeps nothing.
 */
static bool
make_room(int64 bytes, int64 limit_bytes)
{
	GsCacheEntry *victim;

	cache->limit_bytes = limit_bytes;
	my_limit = limit_bytes;
	/* what is over a lowered bound goes first, whatever this entry's size */
	(void) evict_down_to(Max(limit_bytes, 0));
	if (limit_bytes <= 0 || bytes > limit_bytes)
		return false;
	if (!evict_down_to(limit_bytes - bytes))
		return false;			/* what is left is pinned */
	/* a full table: this GPU's least recently used entry goes */
	if (free_slot() == NULL)
	{
		if ((victim = least_recent()) == NULL)
			return false;
		evict(victim);
	}
	return true;
}

/* gs_cache_set_limit -- see device_cache.h */
void
gs_cache_set_limit(int64 limit_bytes)
{
	LWLockAcquire(cache->lock, LW_EXCLUSIVE);
	cache->limit_bytes = limit_bytes;
	my_limit = limit_bytes;
	(void) evict_down_to(Max(limit_bytes, 0));
	LWLockRelease(cache->lock);
}

/* gs_cache_make_room -- see device_cache.h */
bool
gs_cache_make_room(int64 bytes, int64 limit_bytes)
{
	bool		fits;

	LWLockAcquire(cache->lock, LW_EXCLUSIVE);
	fits = make_room(bytes, limit_bytes);
	LWLockRelease(cache->lock);
	return fits;
}

/* gs_cache_add -- see device_cache.h */
bool
gs_cache_add(const GsStoredKey *key, const GsStoredKey *key2, const GsCacheItem *item,
			 int64 limit_bytes)
{
	GsStoredKey none;
	GsCacheEntry *e;
	int			i;

	memset(&none, 0, sizeof(none));
	if (key2 == NULL)
		key2 = &none;

	LWLockAcquire(cache->lock, LW_EXCLUSIVE);
	if (find_entry(key, key2, item->kind, item->elemtype) >= 0)
	{
		LWLockRelease(cache->lock);
		return false;			/* another request's thread added it meanwhile */
	}
	if (!make_room(item->bytes, limit_bytes) || (e = free_slot()) == NULL)
	{
		LWLockRelease(cache->lock);
		return false;
	}
	i = e - cache->entries;
	memset(e, 0, sizeof(*e));
	e->used = true;
	e->key = *key;
	e->key2 = *key2;
	e->item = *item;
	e->device = serve_device;
	e->loaded_at = e->last_use = GetCurrentTimestamp();
	pin(i);
	cache->bytes += item->bytes;
	cache->loads++;
	LWLockRelease(cache->lock);
	return true;
}

/* gs_cache_unpin_all -- see device_cache.h */
void
gs_cache_unpin_all(void)
{
	int			k;

	if (my_npins == 0)
		return;
	LWLockAcquire(cache->lock, LW_EXCLUSIVE);
	for (k = 0; k < my_npins; k++)
	{
		GsCacheEntry *e = &cache->entries[my_pins[k]];

		if (--e->pins == 0 && e->removed)
			evict(e);
	}
	my_npins = 0;
	/* entries that a lowered bound could not evict while in use */
	if (my_limit >= 0)
		(void) evict_down_to(my_limit);
	LWLockRelease(cache->lock);
}

/* gs_cache_clear -- see device_cache.h */
int64
gs_cache_clear(void)
{
	int64		n = 0;
	int			i;

	LWLockAcquire(cache->lock, LW_EXCLUSIVE);
	for (i = 0; i < GS_CACHE_MAX_ENTRIES; i++)
	{
		GsCacheEntry *e = &cache->entries[i];

		if (!e->used || e->removed || e->device != serve_device)
			continue;
		if (e->pins > 0)
			e->removed = true;	/* freed by the last request that uses it */
		else
			evict(e);
		n++;
	}
	LWLockRelease(cache->lock);
	return n;
}

/* gs_cache_forget_all -- see device_cache.h */
void
gs_cache_forget_all(void)
{
	int			i;

	LWLockAcquire(cache->lock, LW_EXCLUSIVE);
	for (i = 0; i < GS_CACHE_MAX_ENTRIES; i++)
	{
		GsCacheEntry *e = &cache->entries[i];

		if (e->used && e->device == serve_device)
		{
			e->used = false;
			cache->bytes -= e->item.bytes;
		}
	}
	LWLockRelease(cache->lock);
}

/*
 * gs_cache_summary -- one line for gpuscan_info(): entries, bytes, the
 * bound and the counters; NULL where the library was not preloaded
 */
char *
gs_cache_summary(void)
{
	int			n = 0;
	int			i;
	char	   *line;

	if (cache == NULL)
		return NULL;
	LWLockAcquire(cache->lock, LW_SHARED);
	for (i = 0; i < GS_CACHE_MAX_ENTRIES; i++)
		if (cache->entries[i].used && !cache->entries[i].removed)
			n++;
	line = psprintf("%d entries, %.1f MB%s; " INT64_FORMAT " hits, " INT64_FORMAT
					" loads, " INT64_FORMAT " evictions",
					n, cache->bytes / 1048576.0,
					cache->limit_bytes > 0 ?
					psprintf(" of %.1f MB per GPU", cache->limit_bytes / 1048576.0) : "",
					cache->hits, cache->loads, cache->evictions);
	LWLockRelease(cache->lock);
	return line;
}

/* gs_cache_holdings -- see device_cache.h */
void
gs_cache_holdings(const GsStoredKey *keys, int nkeys, int64 *cache_bytes,
				  int64 *holds_bytes, int ndevices)
{
	int			i;

	memset(cache_bytes, 0, sizeof(int64) * ndevices);
	memset(holds_bytes, 0, sizeof(int64) * ndevices);
	if (cache == NULL)
		return;
	LWLockAcquire(cache->lock, LW_SHARED);
	for (i = 0; i < GS_CACHE_MAX_ENTRIES; i++)
	{
		GsCacheEntry *e = &cache->entries[i];
		int			k;

		if (!e->used || e->removed || e->device < 0 || e->device >= ndevices)
			continue;
		cache_bytes[e->device] += e->item.bytes;
		for (k = 0; k < nkeys; k++)
			if (keys_equal(&e->key, &keys[k]))
			{
				holds_bytes[e->device] += e->item.bytes;
				break;
			}
	}
	LWLockRelease(cache->lock);
}

/* gs_cache_device_bytes -- see device_cache.h */
void
gs_cache_device_bytes(int device, int *entries, int64 *bytes)
{
	int			i;

	*entries = 0;
	*bytes = 0;
	if (cache == NULL)
		return;
	LWLockAcquire(cache->lock, LW_SHARED);
	for (i = 0; i < GS_CACHE_MAX_ENTRIES; i++)
		if (cache->entries[i].used && !cache->entries[i].removed && cache->entries[i].device == device)
		{
			(*entries)++;
			*bytes += cache->entries[i].item.bytes;
		}
	LWLockRelease(cache->lock);
}

PG_FUNCTION_INFO_V1(gpuscan_cache_entries);

/*
 * gpuscan_cache_entries -- one row per entry of the device cache (the
 * gpuscan_cache view names their database and relation); none where the
 * library was not preloaded
 */
Datum
gpuscan_cache_entries(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	GsCacheEntry *copy;
	int			n = 0;
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	if (cache == NULL)
		return (Datum) 0;

	/* copy under the lock, build the rows after */
	copy = palloc(sizeof(GsCacheEntry) * GS_CACHE_MAX_ENTRIES);
	LWLockAcquire(cache->lock, LW_SHARED);
	for (i = 0; i < GS_CACHE_MAX_ENTRIES; i++)
		if (cache->entries[i].used && !cache->entries[i].removed)
			copy[n++] = cache->entries[i];
	LWLockRelease(cache->lock);

	for (i = 0; i < n; i++)
	{
		GsCacheEntry *e = &copy[i];
		Datum		values[11];
		bool		nulls[11] = {false};

		values[0] = ObjectIdGetDatum(e->key.dbid);
		values[1] = ObjectIdGetDatum(e->key.toastrelid);
		values[2] = ObjectIdGetDatum(e->key.valueid);
		if (e->item.kind == GS_CACHE_ARRAY && e->key2.valueid != InvalidOid)
			values[3] = CStringGetTextDatum(psprintf("array part %u of %d", e->key2.valueid,
													 e->key2.extsize));
		else
			values[3] = CStringGetTextDatum(e->item.kind == GS_CACHE_ARRAY ? "array" :
											e->item.kind == GS_CACHE_SPMV_PLAN ? "spmv plan" :
											"pagerank graph");
		values[4] = ObjectIdGetDatum(e->item.elemtype);
		nulls[4] = e->item.kind != GS_CACHE_ARRAY;
		values[5] = Int64GetDatum(e->item.nelems);
		nulls[5] = e->item.kind != GS_CACHE_ARRAY;
		values[6] = Int64GetDatum(e->item.bytes);
		values[7] = Int32GetDatum(e->device);
		values[8] = Int64GetDatum(e->hits);
		values[9] = TimestampTzGetDatum(e->loaded_at);
		values[10] = TimestampTzGetDatum(e->last_use);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(copy);
	return (Datum) 0;
}

/*
 * gs_cache_init -- define the GPU service's device cache: gpuscan.cache and
 * gpuscan.cache_size
 */
void
gs_cache_init(void)
{
	DefineCustomBoolVariable("gpuscan.cache",
							 "Whether this session's calls on large stored arrays use the GPU service's device cache.",
							 "On: a large array stored in a table is kept on the GPU after its first use "
							 "and later calls on it, from any session, read it there. Needs gpuscan in "
							 "shared_preload_libraries and a GPU.",
							 &gpuscan_cache,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuscan.cache_size",
							"Device memory the GPU service's cache of stored arrays may hold, per GPU.",
							"-1 (the default): a quarter of the GPU's memory. 0: nothing is kept.",
							&gpuscan_cache_size_mb,
							-1,
							-1, INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MB,
							NULL, NULL, NULL);
}
