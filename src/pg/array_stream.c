/*-------------------------------------------------------------------------
 *
 * array_stream.c
 *	  Reading a large stored array in TOAST slices (array_stream.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/table.h"
#include "access/tableam.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/guc.h"

#include "pg/array_input.h"
#include "pg/array_stream.h"

bool		gpuscan_fetch_stored_arrays = true;

/*
 * Stored values smaller than this are left to PostgreSQL's detoasting: one
 * slice would hold them, and their page faults are few
 */
#define LARGE_VALUE_BYTES	((int32) 8 << 20)

/* bytes of a one-dimensional array's header without a NULL bitmap */
#define HEADER_BYTES		ARR_OVERHEAD_NONULLS(1)

/* fetch_slice -- bytes [offset, offset + length) of the stored value into buf */
static void
fetch_slice(GsArrayStream *s, int32 offset, int32 length, struct varlena *buf)
{
	SET_VARSIZE(buf, length + VARHDRSZ);
	table_relation_fetch_toast_slice(s->toastrel, s->valueid, s->attrsize, offset, length, buf);
}

/* gs_array_stream_open -- see array_stream.h */
bool
gs_array_stream_open(GsArrayStream *s, FunctionCallInfo fcinfo, int argno, Oid elemtype,
					 int64 slice_elems, const char *fn, const char *argname)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	struct varatt_external toast_pointer;
	char		header[HEADER_BYTES];
	ArrayType  *a = (ArrayType *) header;

	if (!gpuscan_fetch_stored_arrays || !VARATT_IS_EXTERNAL_ONDISK(raw))
		return false;
	VARATT_EXTERNAL_GET_POINTER(toast_pointer, raw);
	if (VARATT_EXTERNAL_IS_COMPRESSED(toast_pointer) ||
		VARATT_EXTERNAL_GET_EXTSIZE(toast_pointer) < LARGE_VALUE_BYTES)
		return false;

	memset(s, 0, sizeof(*s));
	s->valueid = toast_pointer.va_valueid;
	s->attrsize = VARATT_EXTERNAL_GET_EXTSIZE(toast_pointer);
	s->toastrel = table_open(toast_pointer.va_toastrelid, AccessShareLock);

	/* the header: ndim, dataoffset, element type, then one dimension's size and bound */
	s->buf = palloc(VARHDRSZ + HEADER_BYTES);
	fetch_slice(s, 0, HEADER_BYTES - VARHDRSZ, s->buf);
	memcpy(header, s->buf, HEADER_BYTES);
	SET_VARSIZE(a, VARHDRSZ + s->attrsize);
	if (ARR_NDIM(a) != 1 || ARR_HASNULL(a))
	{
		/* several dimensions (an error) or a NULL bitmap: the whole value, as before */
		pfree(s->buf);
		table_close(s->toastrel, AccessShareLock);
		return false;
	}
	gs_array_open(&s->in, a, elemtype, fn, argname);
	s->in.array = NULL;
	s->in.data = NULL;
	s->data_offset = ARR_DATA_OFFSET(a) - VARHDRSZ;
	s->lbound = ARR_LBOUND(a)[0];
	if ((int64) s->data_offset + s->in.nelems * s->in.elemsize > s->attrsize)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s: stored array of %d bytes is too short for its " INT64_FORMAT " elements",
						fn, s->attrsize, s->in.nelems)));

	pfree(s->buf);
	/* the slice buffer at the first gs_array_stream_read: readers into slots need none */
	s->buf = NULL;
	s->buf_elems = slice_elems;
	return true;
}

/* gs_array_stream_read -- see array_stream.h */
const char *
gs_array_stream_read(GsArrayStream *s, int64 start, int64 count)
{
	Assert(count <= s->buf_elems);
	if (s->buf == NULL)
		s->buf = palloc(VARHDRSZ + s->buf_elems * s->in.elemsize);
	return gs_array_stream_read_to(s, start, count, s->buf);
}

/* gs_array_stream_read_to -- see array_stream.h */
const char *
gs_array_stream_read_to(GsArrayStream *s, int64 start, int64 count, struct varlena *buf)
{
	Assert(start >= 0 && count >= 0 && start + count <= s->in.nelems);
	fetch_slice(s, s->data_offset + (int32) (start * s->in.elemsize),
				(int32) (count * s->in.elemsize), buf);
	return VARDATA(buf);
}

/* gs_array_stream_close -- see array_stream.h */
void
gs_array_stream_close(GsArrayStream *s)
{
	if (s->buf)
		pfree(s->buf);
	table_close(s->toastrel, AccessShareLock);
}

/* gs_getarg_array -- see array_stream.h; toast_fetch_datum's work, but for the allocation */
ArrayType *
gs_getarg_array(FunctionCallInfo fcinfo, int argno)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	struct varatt_external toast_pointer;
	struct varlena *result;
	Relation	toastrel;
	int32		attrsize;

	if (!gpuscan_fetch_stored_arrays || !VARATT_IS_EXTERNAL_ONDISK(raw))
		return PG_GETARG_ARRAYTYPE_P(argno);
	VARATT_EXTERNAL_GET_POINTER(toast_pointer, raw);
	attrsize = VARATT_EXTERNAL_GET_EXTSIZE(toast_pointer);
	if (VARATT_EXTERNAL_IS_COMPRESSED(toast_pointer) || attrsize < LARGE_VALUE_BYTES)
		return PG_GETARG_ARRAYTYPE_P(argno);

	result = palloc(attrsize + VARHDRSZ);
	gs_prefer_huge_pages(result, attrsize + VARHDRSZ);
	SET_VARSIZE(result, attrsize + VARHDRSZ);
	toastrel = table_open(toast_pointer.va_toastrelid, AccessShareLock);
	table_relation_fetch_toast_slice(toastrel, toast_pointer.va_valueid, attrsize, 0, attrsize,
									 result);
	table_close(toastrel, AccessShareLock);
	return (ArrayType *) result;
}

/* gs_array_stream_init -- define gpuscan.fetch_stored_arrays */
void
gs_array_stream_init(void)
{
	DefineCustomBoolVariable("gpuscan.fetch_stored_arrays",
							 "Whether gpuscan reads large stored arrays itself rather than through PostgreSQL's detoasting.",
							 "On: a stored array argument of 8 MB or more (out of line, uncompressed) "
							 "is read by gpuscan: in TOAST slices as gpu_sum consumes them, or whole "
							 "into huge pages for the other functions. The results are the same.",
							 &gpuscan_fetch_stored_arrays,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
}
