/*-------------------------------------------------------------------------
 *
 * pagerank.h
 *	  PageRank by power iteration over an out-link CSR graph (pagerank.c),
 *	  for gpu_pagerank over arrays and gpu_pagerank_edges over a query.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_PAGERANK_H
#define GPUSCAN_PAGERANK_H

#include "functions/spmv.h"

/*
 * ERROR (SQLSTATE 22023, naming `fn`) unless damping is in [0, 1),
 * tolerance >= 0 and max_iterations >= 1.
 */
extern void gs_pagerank_check_parameters(double damping, double tolerance,
										 int32 max_iterations, const char *fn);

/*
 * The ranks of the out->nrows > 0 nodes of a checked graph into rank[],
 * on the path gs_use_gpu chooses for `fn` (the same bits on either), from
 * 1/n each until the L1 change is at most tolerance or max_iterations;
 * returns the iterations done.
 */
extern int	gs_pagerank(const GsCsr *out, double damping, double tolerance,
						int32 max_iterations, double *rank, const char *fn);

#endif							/* GPUSCAN_PAGERANK_H */
