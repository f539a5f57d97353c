/*-------------------------------------------------------------------------
 *
 * array_input.h
 *	  Array arguments opened and checked, and new result arrays
 *	  (array_input.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_ARRAY_INPUT_H
#define GPUSCAN_ARRAY_INPUT_H

#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

typedef struct GsArrayInput
{
	ArrayType  *array;
	const char *fn;				/* SQL function name, for messages */
	const char *argname;		/* argument name, for messages */
	Oid			elemtype;
	int			elemsize;
	int64		nelems;
	const char *data;			/* ARR_DATA_PTR */
	bits8	   *nulls;			/* NULL bitmap, or NULL if none */
} GsArrayInput;

/*
 * Check that `array` is one-dimensional (or empty) with elements of type
 * `elemtype`, and describe it in *in.  NULL elements are found by
 * gs_array_check_nulls, chunk by chunk.
 */
extern void gs_array_open(GsArrayInput *in, ArrayType *array, Oid elemtype,
						  const char *fn, const char *argname);

/* ERROR if any of the elements [start, start + count) is NULL. */
extern void gs_array_check_nulls(const GsArrayInput *in, int64 start, int64 count);

/*
 * A new one-dimensional array result of n > 0 elements of elemsize bytes
 * (no NULLs, first subscript lbound), its data left for the caller to
 * fill in place, with room for `spare` more elements after them; an ERROR
 * from `fn` if it would exceed the 1 GB limit of a value.
 */
extern ArrayType *gs_new_array(Oid elemtype, int elemsize, int64 n, int lbound, int spare,
							   const char *fn);

/*
 * Cut an array made by gs_new_array to its first n elements (0 < n <= its
 * length), giving back the memory past them where that is more than
 * GS_TRIM_BYTES; returns the array, which may have moved.
 */
#define GS_TRIM_BYTES	((Size) 1 << 20)
extern ArrayType *gs_array_truncate(ArrayType *array, int64 n);

/*
 * Ask for huge pages under the `bytes` of fresh, untouched memory at p
 * (a large result): its first touch then takes one page fault per 2 MB
 * rather than per 4 kB.  Does nothing for small sizes or where the system
 * offers no transparent huge pages.
 */
extern void gs_prefer_huge_pages(void *p, Size bytes);

/* gs_float_size -- bytes of one element of FLOAT8OID or FLOAT4OID */
static inline int
gs_float_size(Oid elemtype)
{
	return (elemtype == FLOAT8OID) ? sizeof(double) : sizeof(float);
}

#endif							/* GPUSCAN_ARRAY_INPUT_H */
