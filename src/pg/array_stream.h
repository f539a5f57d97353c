/*-------------------------------------------------------------------------
 *
 * array_stream.h
 *	  Reading a large stored array argument chunk by chunk, straight from
 *	  its TOAST slices, instead of fetching the whole value first; and
 *	  fetching one whole into huge pages where the function needs it whole.
 *
 * Fetching a 480 MB array from TOAST into one fresh allocation is most of
 * a one-shot call (bench/results/call-profile-*.md): the copy out of the
 * TOAST table, and the page faults of the new memory.  A function that
 * consumes its input in order can instead read it in slices into one
 * small buffer that stays in the cache, and start working (or copying to
 * the GPU) on the first slice while the rest is still on disk.
 *
 * Only for values of 8 MB or more that are stored out of line and
 * uncompressed (an array of random doubles does not compress, so large
 * ones are stored so), of one dimension without a NULL bitmap; anything
 * else is fetched whole as before.  The slices are read with the table AM's TOAST slice fetch under
 * the call's snapshot, as detoasting does.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_ARRAY_STREAM_H
#define GPUSCAN_ARRAY_STREAM_H

#include "utils/rel.h"

#include "pg/array_input.h"

typedef struct GsArrayStream
{
	GsArrayInput in;			/* the array's description; in.data is NULL */
	Relation	toastrel;
	Oid			valueid;
	int32		attrsize;		/* bytes of the stored value */
	int32		data_offset;	/* where the elements start in it */
	int32		lbound;			/* the array's lower bound */
	struct varlena *buf;		/* one slice (gs_array_stream_read), made at its first use */
	int64		buf_elems;		/* elements a slice holds */
} GsArrayStream;

/*
 * If argument `argno` of the call is a large stored array that can be read
 * in slices, check it as gs_array_open does (ERROR where that would), set
 * up *s and return true; otherwise return false and leave the argument
 * alone.  Slices hold up to slice_elems elements.
 */
extern bool gs_array_stream_open(GsArrayStream *s, FunctionCallInfo fcinfo, int argno,
								 Oid elemtype, int64 slice_elems,
								 const char *fn, const char *argname);

/*
 * Elements [start, start + count) of the array (count at most the slice
 * size), read into the slice buffer; valid until the next call.
 */
extern const char *gs_array_stream_read(GsArrayStream *s, int64 start, int64 count);

/*
 * The same into `buf`, a varlena with room for count elements after its
 * 4-byte header (a GPU staging buffer, say); returns VARDATA(buf).
 */
extern const char *gs_array_stream_read_to(GsArrayStream *s, int64 start, int64 count,
										   struct varlena *buf);

/* Close the TOAST table and free the buffer */
extern void gs_array_stream_close(GsArrayStream *s);

/*
 * Argument `argno` of the call as an array in memory, as
 * PG_GETARG_ARRAYTYPE_P gives it, except that a large value stored out of
 * line and uncompressed is fetched into memory advised huge pages
 * (gs_prefer_huge_pages), so that writing it in costs a page fault per 2 MB
 * rather than per 4 kB.
 */
extern ArrayType *gs_getarg_array(FunctionCallInfo fcinfo, int argno);

/* Define gpuscan.fetch_stored_arrays; from _PG_init */
extern void gs_array_stream_init(void);

extern bool gpuscan_fetch_stored_arrays;

#endif							/* GPUSCAN_ARRAY_STREAM_H */
