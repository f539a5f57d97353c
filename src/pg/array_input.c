/*-------------------------------------------------------------------------
 *
 * array_input.c
 *	  Checking array arguments (one dimension, the expected element type,
 *	  no NULL elements), and allocating array results.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/mman.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "pg/array_input.h"

/* gs_array_open -- check the shape of an array argument and describe it */
void
gs_array_open(GsArrayInput *in, ArrayType *array, Oid elemtype,
			  const char *fn, const char *argname)
{
	int			ndim = ARR_NDIM(array);

	if (ARR_ELEMTYPE(array) != elemtype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: argument %s must be an array of %s", fn, argname,
						format_type_be(elemtype)),
				 errdetail("The array's elements are of type %s.",
						   format_type_be(ARR_ELEMTYPE(array)))));
	if (ndim > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: argument %s must be a one-dimensional array", fn, argname),
				 errdetail("The array has %d dimensions.", ndim)));

	in->array = array;
	in->fn = fn;
	in->argname = argname;
	in->elemtype = elemtype;
	in->elemsize = get_typlen(elemtype);
	in->nelems = (ndim == 0) ? 0 : ArrayGetNItems(ndim, ARR_DIMS(array));
	in->data = ARR_DATA_PTR(array);
	in->nulls = ARR_NULLBITMAP(array);
}

/* gs_array_check_nulls -- ERROR at the first NULL in [start, start+count) */
void
gs_array_check_nulls(const GsArrayInput *in, int64 start, int64 count)
{
	int64		i;

	if (in->nulls == NULL)
		return;
	for (i = start; i < start + count; i++)
	{
		/* whole bytes of non-NULLs at a time */
		if ((i & 7) == 0 && i + 8 <= start + count && in->nulls[i >> 3] == 0xff)
		{
			i += 7;
			continue;
		}
		if ((in->nulls[i >> 3] & (1 << (i & 7))) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: array must not contain nulls", in->fn),
					 errdetail("Element " INT64_FORMAT " of argument %s is NULL.",
							   i + ARR_LBOUND(in->array)[0], in->argname),
					 errhint("Remove the NULLs first, e.g. with array_remove(%s, NULL).",
							 in->argname)));
	}
}

/*
 * gs_new_array -- see array_input.h.  The value may be as large as any array
 * (MaxAllocSize); the spare elements are scratch space past its end, not
 * part of it, so the allocation may exceed MaxAllocSize by them.
 */
ArrayType *
gs_new_array(Oid elemtype, int elemsize, int64 n, int lbound, int spare, const char *fn)
{
	Size		nbytes = ARR_OVERHEAD_NONULLS(1) + (Size) n * elemsize;
	ArrayType  *result;

	Assert(n > 0);
	if (nbytes > MaxAllocSize || n > (int64) MaxArraySize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: result array size exceeds the maximum allowed (%d)",
						fn, (int) MaxAllocSize),
				 errdetail("The %lld elements of the result need %zu bytes.",
						   (long long) n, nbytes),
				 errhint("Use the set-returning form, which returns one row per element, or split the input.")));

	result = (ArrayType *) palloc_extended(nbytes + (Size) spare * elemsize, MCXT_ALLOC_HUGE);
	gs_prefer_huge_pages(result, nbytes + (Size) spare * elemsize);
	SET_VARSIZE(result, nbytes);
	result->ndim = 1;
	result->dataoffset = 0;		/* no NULL bitmap */
	result->elemtype = elemtype;
	ARR_DIMS(result)[0] = (int) n;
	ARR_LBOUND(result)[0] = lbound;
	return result;
}

/*
 * gs_array_truncate -- see array_input.h.  Shrinking a huge allocation is a
 * realloc of its block, which glibc does in place (mremap).
 */
ArrayType *
gs_array_truncate(ArrayType *array, int64 n)
{
	int			elemsize = get_typlen(ARR_ELEMTYPE(array));
	Size		nbytes = ARR_OVERHEAD_NONULLS(1) + (Size) n * elemsize;

	Assert(n > 0 && n <= ARR_DIMS(array)[0] && !ARR_HASNULL(array));
	ARR_DIMS(array)[0] = (int) n;
	if (GetMemoryChunkSpace(array) > nbytes + GS_TRIM_BYTES)
		array = repalloc_huge(array, nbytes);
	SET_VARSIZE(array, nbytes);
	return array;
}

/* the size of a transparent huge page on x86-64 and arm64 (4 kB base pages) */
#define HUGE_PAGE_BYTES		((Size) 2 << 20)

/* gs_prefer_huge_pages -- see array_input.h; errors are ignored (a hint only) */
void
gs_prefer_huge_pages(void *p, Size bytes)
{
#ifdef MADV_HUGEPAGE
	uintptr_t	start = TYPEALIGN(HUGE_PAGE_BYTES, (uintptr_t) p);
	uintptr_t	end = TYPEALIGN_DOWN(HUGE_PAGE_BYTES, (uintptr_t) p + bytes);

	if (bytes >= 2 * HUGE_PAGE_BYTES && end > start)
		(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#endif
}
