/*-------------------------------------------------------------------------
 *
 * sum_table_scan.h
 *	  What the two scans that compute gpu_sum aggregates share: GpuscanSum
 *	  (whole-table sums, sum_table_scan.c) and GpuscanGroupSum (sums per group,
 *	  group_sum_table_scan.c); and the hook's entry to the GpuscanCsr scan
 *	  (csr_table_scan.c).  Which aggregates they can compute, and the
 *	  parallel table scan under both.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SUM_SCAN_H
#define GPUSCAN_SUM_SCAN_H

#include "access/parallel.h"
#include "access/relscan.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "nodes/primnodes.h"
#include "port/atomics.h"

/*
 * The planner's fraction of cpu_operator_cost per row and sum: the scans
 * do one load and one addition per value where an aggregate calls a
 * function (cpu_operator_cost) and evaluates its argument.
 */
#define SUM_SCAN_ROW_COST_FRACTION	0.25

/* rows between interrupt checks */
#define SUM_SCAN_CHECK_ROWS		4096

/* One sum of a scan: the column it reads, and what it returns */
typedef struct SumColumn
{
	AttrNumber	attno;
	bool		is_float4;
	bool		citus_text;		/* the partial state as text (worker_partial_agg) */
} SumColumn;

/* The aggregates of a query, as gs_collect_sums finds them */
typedef struct AggrefSearch
{
	Index		relid;			/* the table's range table index */
	List	   *group_vars;		/* Vars that may appear outside aggregates */
	List	   *aggrefs;		/* distinct gpu_sum Aggrefs found */
	bool		citus;			/* some are Citus's worker_partial_agg of gpu_sum */
	bool		plain;			/* some are gpu_sum itself */
	bool		ok;				/* false once anything else is found */
} AggrefSearch;

/*
 * How the scans' processes read the table's pages, added up in a parallel
 * plan's shared memory for EXPLAIN ANALYZE (heap_blocks.h)
 */
typedef struct SumScanPages
{
	pg_atomic_uint64 whole;		/* all-visible pages read whole */
	pg_atomic_uint64 checked;	/* pages read tuple by tuple */
	pg_atomic_uint64 gpu;		/* of the whole ones, those the GPU read */
} SumScanPages;

/* The state both scans start with: the node's, and the shared table scan */
typedef struct SumScanBase
{
	CustomScanState css;
	ParallelTableScanDesc pscan;	/* shared scan, in parallel plans */
	SumScanPages *shared_pages; /* before pscan in the node's shared memory */
	uint64		pages_whole;	/* this process's, then all processes' at shutdown */
	uint64		pages_checked;
	uint64		pages_gpu;
} SumScanBase;

/*
 * Gather the aggregates of `node` into search: false as soon as one is not
 * a gpu_sum the scans compute, or a Var outside them is not in
 * search->group_vars (search->ok is false then).
 */
extern bool gs_collect_sums(Node *node, AggrefSearch *search);

/* Whether the table of input_rel is one the scans read: a plain table, all of it */
extern bool gs_sum_scan_table_ok(PlannerInfo *root, RelOptInfo *input_rel);

/* The SumColumn of a gpu_sum (or worker_partial_agg of gpu_sum) Aggref */
extern SumColumn gs_sum_column(Aggref *aggref);

/* A scan node's one row: slot, projected by the node's target list where it has one */
extern TupleTableSlot *gs_scan_row(CustomScanState *node, TupleTableSlot *slot);

/* The scan of the node's table: the shared scan in parallel plans */
extern TableScanDesc gs_sum_scan_begin(SumScanBase *base);

/* Parallel-scan methods of both nodes (CustomExecMethods) */
extern Size gs_sum_scan_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
extern void gs_sum_scan_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
									   void *coordinate);
/* Add a process's page counts (shared in parallel plans) */
extern void gs_sum_scan_count_pages(SumScanBase *base, uint64 whole, uint64 checked, uint64 gpu);

/* Keep the page counts of all processes before the shared memory goes (ShutdownCustomScan) */
extern void gs_sum_scan_shutdown(CustomScanState *node);

/* With EXPLAIN ANALYZE, how the table's pages were read (where the scan read pages) */
struct ExplainState;
extern void gs_sum_scan_explain_pages(SumScanBase *base, struct ExplainState *es);

extern void gs_sum_scan_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
										 void *coordinate);
extern void gs_sum_scan_initialize_worker(CustomScanState *node, shm_toc *toc,
										  void *coordinate);

/* GROUP BY: add the GpuscanGroupSum paths to output_rel (group_sum_table_scan.c) */
extern void gs_add_group_sum_paths(PlannerInfo *root, RelOptInfo *input_rel,
								   RelOptInfo *output_rel);

/* Register the GpuscanGroupSum scan's methods */
extern void gs_group_sum_scan_register(void);

/*
 * Whether fnoid is the C function `symbol` of this library (so that an
 * aggregate built from look-alike SQL functions is never mistaken for ours)
 */
extern bool gs_is_our_c_function(Oid fnoid, const char *symbol);

/*
 * A whole-table gpu_csr_agg: add the GpuscanCsr path to output_rel where the
 * query is one it computes (csr_table_scan.c); whether it did
 */
extern bool gs_add_csr_scan_path(PlannerInfo *root, RelOptInfo *input_rel,
								 RelOptInfo *output_rel);

/* Register the GpuscanCsr scan's methods */
extern void gs_csr_scan_register(void);

extern bool gpuscan_enable_sum_scan;

/* Define gpuscan.enable_sum_scan, register the scan, install the planner hook. */
extern void gs_sum_scan_init(void);

#endif							/* GPUSCAN_SUM_SCAN_H */
