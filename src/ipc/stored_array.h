/*-------------------------------------------------------------------------
 *
 * stored_array.h
 *	  The identity of a stored (out-of-line, on-disk TOAST) value: what the
 *	  device cache of the GPU service is to be keyed and checked by.
 *
 * A TOAST pointer names its value by (TOAST relation, value id), but a
 * value id can be used again once the value is gone, and a table rewrite
 * (VACUUM FULL, CLUSTER) keeps value ids while it writes the chunks anew.
 * So the key adds the first chunk's tuple identity, read by one probe of
 * the TOAST relation's index: its TID and its raw xmin.  Two different
 * values cannot share all of them: a value id is used again only after its
 * chunks are dead and vacuumed away, by another transaction, so a new
 * chunk 0 at the same TID has another xmin.  A rewrite gives the chunks
 * the rewriting transaction's xmin, so a rewritten value gets a new key
 * (a cache miss, never a wrong hit).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_STORED_ARRAY_H
#define GPUSCAN_STORED_ARRAY_H

#include "postgres.h"

#include "storage/itemptr.h"

typedef struct GsStoredKey
{
	Oid			dbid;
	Oid			toastrelid;
	Oid			valueid;
	int32		extsize;		/* bytes stored (compressed or not) */
	ItemPointerData chunk0_tid;
	TransactionId chunk0_xmin;
} GsStoredKey;

/*
 * The key of value `d` (any varlena Datum) into *key: true for a value
 * stored out of line on disk, whose first chunk the probe found; false for
 * anything else (inline, compressed in line, in memory, or gone).
 */
extern bool gs_stored_key(Datum d, GsStoredKey *key);

#endif							/* GPUSCAN_STORED_ARRAY_H */
