/*-------------------------------------------------------------------------
 *
 * heap_layout.c
 *	  A table's columns as the heap page walker needs them, and the check
 *	  that the walker's restatement of the page format is PostgreSQL's.
 *
 * common/gpuscan_heap.h may not include PostgreSQL's headers (the kernels
 * use it), so it states the page format's offsets and flags itself; the
 * static assertions below compare them with PostgreSQL's at build time,
 * for each server version built against.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "storage/bufpage.h"
#include "storage/itemid.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

#include "pg/heap_layout.h"

StaticAssertDecl(SizeOfPageHeaderData == GS_HEAP_HEADER_SIZE, "page header size");
StaticAssertDecl(offsetof(PageHeaderData, pd_flags) == GS_HEAP_PD_FLAGS, "pd_flags");
StaticAssertDecl(offsetof(PageHeaderData, pd_lower) == GS_HEAP_PD_LOWER, "pd_lower");
StaticAssertDecl(offsetof(PageHeaderData, pd_upper) == GS_HEAP_PD_UPPER, "pd_upper");
StaticAssertDecl(offsetof(PageHeaderData, pd_special) == GS_HEAP_PD_SPECIAL, "pd_special");
StaticAssertDecl(PD_ALL_VISIBLE == GS_HEAP_ALL_VISIBLE, "PD_ALL_VISIBLE");
StaticAssertDecl(sizeof(ItemIdData) == GS_HEAP_LP_SIZE, "line pointer size");
StaticAssertDecl(MaxHeapTuplesPerPage == GS_HEAP_MAX_TUPLES, "MaxHeapTuplesPerPage");
StaticAssertDecl(LP_NORMAL == GS_HEAP_LP_NORMAL, "LP_NORMAL");
StaticAssertDecl(offsetof(HeapTupleHeaderData, t_infomask2) == GS_HEAP_T_INFOMASK2, "t_infomask2");
StaticAssertDecl(offsetof(HeapTupleHeaderData, t_infomask) == GS_HEAP_T_INFOMASK, "t_infomask");
StaticAssertDecl(offsetof(HeapTupleHeaderData, t_hoff) == GS_HEAP_T_HOFF, "t_hoff");
StaticAssertDecl(offsetof(HeapTupleHeaderData, t_bits) == GS_HEAP_T_BITS, "t_bits");
StaticAssertDecl(HEAP_HASNULL == GS_HEAP_HASNULL, "HEAP_HASNULL");
StaticAssertDecl(HEAP_NATTS_MASK == GS_HEAP_NATTS_MASK, "HEAP_NATTS_MASK");
StaticAssertDecl(VARHDRSZ_EXTERNAL == GS_HEAP_VARHDRSZ_EXTERNAL, "VARHDRSZ_EXTERNAL");
StaticAssertDecl(VARTAG_ONDISK == GS_HEAP_VARTAG_ONDISK, "VARTAG_ONDISK");
StaticAssertDecl(sizeof(varatt_external) == GS_HEAP_TOAST_POINTER_SIZE, "TOAST pointer size");

/* align_bytes -- attalign as a number of bytes */
static uint8
align_bytes(char attalign)
{
	switch (attalign)
	{
		case TYPALIGN_CHAR:
			return 1;
		case TYPALIGN_SHORT:
			return ALIGNOF_SHORT;
		case TYPALIGN_INT:
			return ALIGNOF_INT;
		default:
			return ALIGNOF_DOUBLE;
	}
}

/*
 * layout_for -- the walker's layout of rel's columns up to attno, whose
 * type (one of the types `oids` lists, with the gs_heap_type beside it in
 * `types`) it reads; false where it cannot read that column
 */
static bool
layout_for(TupleDesc desc, AttrNumber attno, const Oid *oids, const int *types, int ntypes,
		   gs_heap_layout *layout)
{
	Form_pg_attribute target;
	int			a;
	int			t;

	if (BLCKSZ != GS_HEAP_PAGE_SIZE || attno < 1 || attno > desc->natts ||
		attno > GS_HEAP_MAX_COLS)
		return false;
	target = TupleDescAttr(desc, attno - 1);
	for (t = 0; t < ntypes && target->atttypid != oids[t]; t++)
		;
	if (target->attisdropped || t == ntypes)
		return false;
	memset(layout, 0, sizeof(*layout));
	layout->ncols = attno;
	layout->type = types[t];
	for (a = 0; a < attno; a++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a);

		if (att->attlen == 0 || att->attlen < -2)
			return false;
		layout->col[a].len = att->attlen;
		layout->col[a].align = align_bytes(att->attalign);
	}
	if (target->atthasmissing)
	{
		bool		isnull;
		Datum		d = getmissingattr(desc, attno, &isnull);

		layout->has_missing = !isnull;
		if (!isnull)
			switch (target->atttypid)
			{
				case FLOAT8OID:
					layout->missing = DatumGetFloat8(d);
					break;
				case FLOAT4OID:
					layout->missing = (double) DatumGetFloat4(d);
					break;
				case INT2OID:
					layout->missing_int = DatumGetInt16(d);
					break;
				case INT4OID:
					layout->missing_int = DatumGetInt32(d);
					break;
				default:
					layout->missing_int = DatumGetInt64(d);
					break;
			}
	}
	return true;
}

/* gs_heap_layout_for -- see heap_layout.h */
bool
gs_heap_layout_for(TupleDesc desc, AttrNumber attno, gs_heap_layout *layout)
{
	static const Oid oids[] = {FLOAT8OID, FLOAT4OID};
	static const int types[] = {GS_HEAP_FLOAT8, GS_HEAP_FLOAT4};

	return layout_for(desc, attno, oids, types, lengthof(oids), layout);
}

/* gs_heap_int_layout_for -- see heap_layout.h */
bool
gs_heap_int_layout_for(TupleDesc desc, AttrNumber attno, gs_heap_layout *layout)
{
	static const Oid oids[] = {INT2OID, INT4OID, INT8OID};
	static const int types[] = {GS_HEAP_INT2, GS_HEAP_INT4, GS_HEAP_INT8};

	return layout_for(desc, attno, oids, types, lengthof(oids), layout);
}
