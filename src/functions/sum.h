/*-------------------------------------------------------------------------
 *
 * sum.h
 *	  The exact sum of an array of values on the chosen path (sum.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SUM_H
#define GPUSCAN_SUM_H

#include "postgres.h"

#include "pg/array_input.h"
#include "gpuscan_exact.h"

/*
 * Add the exact sum of n values of type elemtype (FLOAT8OID or FLOAT4OID)
 * into *acc, on the path gs_use_gpu chooses for `fn`, in chunks with
 * interrupt checks between them.  If `in` is not NULL, its NULLs are
 * checked chunk by chunk as the values are consumed.
 */
extern void gs_sum_into(gs_exact_acc *acc, const void *values, int64 n,
						Oid elemtype, const GsArrayInput *in, const char *fn);

#endif							/* GPUSCAN_SUM_H */
