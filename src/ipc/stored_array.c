/*-------------------------------------------------------------------------
 *
 * stored_array.c
 *	  The identity of a stored value (stored_array.h), and
 *	  gs_debug_stored_key(anyelement), which shows it to the tests.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/toast_internals.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "ipc/stored_array.h"

/* gs_stored_key -- see stored_array.h */
bool
gs_stored_key(Datum d, GsStoredKey *key)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varatt_external pointer;
	Relation	toastrel;
	Relation   *indexes;
	int			nindexes;
	int			valid;
	ScanKeyData scankey[2];
	SysScanDesc scan;
	HeapTuple	chunk;
	Snapshot	snapshot;
#if PG_VERSION_NUM < 180000
	SnapshotData toast_snapshot;
#endif

	if (!VARATT_IS_EXTERNAL_ONDISK(raw))
		return false;
	VARATT_EXTERNAL_GET_POINTER(pointer, raw);
	memset(key, 0, sizeof(*key));
	key->dbid = MyDatabaseId;
	key->toastrelid = pointer.va_toastrelid;
	key->valueid = pointer.va_valueid;
	key->extsize = VARATT_EXTERNAL_GET_EXTSIZE(pointer);

#if PG_VERSION_NUM >= 180000
	snapshot = get_toast_snapshot();
#else
	init_toast_snapshot(&toast_snapshot);
	snapshot = &toast_snapshot;
#endif
	toastrel = table_open(pointer.va_toastrelid, AccessShareLock);
	valid = toast_open_indexes(toastrel, AccessShareLock, &indexes, &nindexes);
	ScanKeyInit(&scankey[0], (AttrNumber) 1, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(pointer.va_valueid));
	ScanKeyInit(&scankey[1], (AttrNumber) 2, BTEqualStrategyNumber, F_INT4EQ,
				Int32GetDatum(0));
	scan = systable_beginscan_ordered(toastrel, indexes[valid], snapshot, 2, scankey);
	chunk = systable_getnext_ordered(scan, ForwardScanDirection);
	if (chunk != NULL)
	{
		key->chunk0_tid = chunk->t_self;
		key->chunk0_xmin = HeapTupleHeaderGetRawXmin(chunk->t_data);
	}
	systable_endscan_ordered(scan);
	toast_close_indexes(indexes, nindexes, AccessShareLock);
	table_close(toastrel, AccessShareLock);
	return chunk != NULL;
}

PG_FUNCTION_INFO_V1(gs_debug_stored_key);

/*
 * gs_debug_stored_key(anyelement) -- for the tests, not part of the
 * extension's SQL: the key of a stored value as text (database, TOAST
 * relation, value id, extsize, the first chunk's TID and xmin), NULL where
 * the value has none.  Declared by the test that uses it.
 */
Datum
gs_debug_stored_key(PG_FUNCTION_ARGS)
{
	GsStoredKey key;

	if (PG_ARGISNULL(0) || get_fn_expr_argtype(fcinfo->flinfo, 0) == InvalidOid ||
		get_typlen(get_fn_expr_argtype(fcinfo->flinfo, 0)) != -1 ||
		!gs_stored_key(PG_GETARG_DATUM(0), &key))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("%u %u %u %d (%u,%u) %u", key.dbid, key.toastrelid,
											  key.valueid, key.extsize,
											  ItemPointerGetBlockNumber(&key.chunk0_tid),
											  ItemPointerGetOffsetNumber(&key.chunk0_tid),
											  key.chunk0_xmin)));
}
