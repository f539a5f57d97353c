/*-------------------------------------------------------------------------
 *
 * sum_agg.h
 *	  The gpu_sum aggregates' states (sum_agg.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SUM_AGG_H
#define GPUSCAN_SUM_AGG_H

#include "postgres.h"

#include "gpuscan_exact.h"

/* A partial state of the gpu_sum aggregates holding acc. */
extern Datum gs_sum_state_from_acc(const gs_exact_acc *acc);

#endif							/* GPUSCAN_SUM_AGG_H */
