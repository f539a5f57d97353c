/*-------------------------------------------------------------------------
 *
 * sum_table_scan.c
 *	  A plan node that computes whole-table gpu_sum aggregates in one pass.
 *
 * The gpu_sum aggregate (sum_agg.c) costs what any aggregate costs per row:
 * the executor evaluates the argument and calls the transition function
 * through fmgr, and that overhead, not the exact sum, dominates.  For the
 * common query
 *
 *		SELECT gpu_sum(x), gpu_sum(y) FROM t;
 *
 * a planner hook offers a custom scan, "GpuscanSum", that reads the table
 * with the table AM and feeds the column values straight into the exact
 * accumulators in chunks (gs_sum_into, on the CPU or the GPU by the dispatch
 * rules).  In parallel plans it runs as a parallel-aware partial scan under
 * Gather and a Finalize Aggregate, each worker producing the aggregate's own
 * partial state.  The result is the same bits as the aggregate's, since
 * both are the correctly rounded exact sum.
 *
 * The path is offered only where it computes exactly what the aggregate
 * would: one plain table (no inheritance, no TABLESAMPLE), no WHERE clause
 * or row-level security qualifications, no GROUP BY, grouping sets or
 * HAVING, and every aggregate in the query a gpu_sum over a column of the
 * table, without FILTER, DISTINCT or ORDER BY.  Queries with GROUP BY get
 * the GpuscanGroupSum scan under the same conditions (group_sum_table_scan.c), and
 * a whole-table gpu_csr_agg the GpuscanCsr scan (csr_table_scan.c).
 * Everything else plans as before.  gpuscan.enable_sum_scan = off turns
 * both off.  The hook exists once
 * the library is loaded; the transition functions' planner support function
 * (sum_agg.c) makes the planner load it while it plans an aggregate query,
 * so a session's first gpu_sum query gets the scan too.
 *
 * On a Citus worker the shard query of a distributed gpu_sum reads
 *
 *		SELECT worker_partial_agg('gpu_sum(double precision)'::regprocedure, x) FROM shard
 *
 * (Citus's aggregate that runs gpu_sum's transition function row by row and
 * returns the state's text).  The node computes that too, serially, and
 * returns the same text: the partial state of the exact sum as byteaout
 * prints it.  There the planner hook must be in place before the first
 * shard query is planned, so the workers preload the library
 * (shared_preload_libraries).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_language.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#else
#include "commands/explain.h"
#endif
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "client/service_call.h"
#include "dispatch/dispatch.h"
#include "dispatch/stats.h"
#include "functions/sum.h"
#include "functions/sum_agg.h"
#include "planner/heap_blocks.h"
#include "planner/pages_to_gpu.h"
#include "planner/sum_table_scan.h"

#define SUM_SCAN_NAME		"GpuscanSum"

/* values buffered per sum before they go to gs_sum_into */
#define SCAN_CHUNK_ELEMS	(1 << 16)
#define SCAN_GPU_CHUNK_ELEMS (1 << 20)

bool		gpuscan_enable_sum_scan = true;

static create_upper_paths_hook_type prev_upper_paths_hook = NULL;

typedef struct SumScanState
{
	SumScanBase base;
	int			nsums;
	SumColumn  *cols;			/* from custom_scan_tlist */
	bool		partial;		/* produce partial states, not sums */
	bool		done;			/* the one row has been returned */
} SumScanState;

static Plan *plan_sum_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
						   List *tlist, List *clauses, List *custom_plans);
static Node *create_sum_scan_state(CustomScan *cscan);
static void begin_sum_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_sum_scan(CustomScanState *node);
static void end_sum_scan(CustomScanState *node);
static void rescan_sum_scan(CustomScanState *node);
static void explain_sum_scan(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomPathMethods sum_path_methods = {
	.CustomName = SUM_SCAN_NAME,
	.PlanCustomPath = plan_sum_scan,
};

static const CustomScanMethods sum_scan_methods = {
	.CustomName = SUM_SCAN_NAME,
	.CreateCustomScanState = create_sum_scan_state,
};

static const CustomExecMethods sum_exec_methods = {
	.CustomName = SUM_SCAN_NAME,
	.BeginCustomScan = begin_sum_scan,
	.ExecCustomScan = exec_sum_scan,
	.EndCustomScan = end_sum_scan,
	.ReScanCustomScan = rescan_sum_scan,
	.EstimateDSMCustomScan = gs_sum_scan_estimate_dsm,
	.InitializeDSMCustomScan = gs_sum_scan_initialize_dsm,
	.ReInitializeDSMCustomScan = gs_sum_scan_reinitialize_dsm,
	.InitializeWorkerCustomScan = gs_sum_scan_initialize_worker,
	.ShutdownCustomScan = gs_sum_scan_shutdown,
	.ExplainCustomScan = explain_sum_scan,
};

/* ---- planning ---- */

/* gs_is_our_c_function -- see sum_table_scan.h */
bool
gs_is_our_c_function(Oid fnoid, const char *symbol)
{
	HeapTuple	tup;
	bool		ours = false;

	if (!OidIsValid(fnoid))
		return false;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fnoid));
	if (!HeapTupleIsValid(tup))
		return false;
	if (((Form_pg_proc) GETSTRUCT(tup))->prolang == ClanguageId)
	{
		bool		isnull_src,
					isnull_bin;
		Datum		src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull_src);
		Datum		bin = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &isnull_bin);

		if (!isnull_src && !isnull_bin)
		{
			char	   *s = TextDatumGetCString(src);
			char	   *b = TextDatumGetCString(bin);
			size_t		len = strlen(b);

			ours = strcmp(s, symbol) == 0 &&
				len >= strlen("gpuscan") && strcmp(b + len - strlen("gpuscan"), "gpuscan") == 0;
		}
	}
	ReleaseSysCache(tup);
	return ours;
}

/*
 * gpu_sum_kind -- 8 if aggfnoid is gpu_sum(double precision), 4 if it is
 * gpu_sum(real), else 0
 */
static int
gpu_sum_kind(Oid aggfnoid)
{
	HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	Form_pg_aggregate agg;
	bool		initnull;
	int			kind = 0;

	if (!HeapTupleIsValid(tup))
		return 0;
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	(void) SysCacheGetAttr(AGGFNOID, tup, Anum_pg_aggregate_agginitval, &initnull);
	if (agg->aggkind == AGGKIND_NORMAL && initnull && agg->aggtranstype == BYTEAOID &&
		!agg->aggfinalextra && !OidIsValid(agg->aggserialfn) &&
		gs_is_our_c_function(agg->aggfinalfn, "gpu_sum_final") &&
		gs_is_our_c_function(agg->aggcombinefn, "gpu_sum_combine"))
	{
		if (gs_is_our_c_function(agg->aggtransfn, "gpu_sum_float8_accum"))
			kind = 8;
		else if (gs_is_our_c_function(agg->aggtransfn, "gpu_sum_float4_accum"))
			kind = 4;
	}
	ReleaseSysCache(tup);
	return kind;
}

/*
 * is_citus_partial_agg -- whether aggfnoid is Citus's
 * pg_catalog.worker_partial_agg(oid, anyelement)
 */
static bool
is_citus_partial_agg(Oid aggfnoid)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(aggfnoid));
	Form_pg_proc proc;
	bool		match;

	if (!HeapTupleIsValid(tup))
		return false;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	match = proc->prokind == PROKIND_AGGREGATE && proc->pronamespace == PG_CATALOG_NAMESPACE &&
		proc->pronargs == 2 && proc->proargtypes.values[0] == OIDOID &&
		strcmp(NameStr(proc->proname), "worker_partial_agg") == 0;
	ReleaseSysCache(tup);
	return match;
}

/* aggref_column -- the Var a gpu_sum Aggref of the node sums: its last argument */
static Var *
aggref_column(Aggref *aggref)
{
	return (Var *) llast_node(TargetEntry, aggref->args)->expr;
}

/*
 * node_sum_kind -- whether the node can compute aggref over table relid: 1
 * for gpu_sum over a column, 2 for Citus's worker_partial_agg of gpu_sum
 * over a column, 0 otherwise (a FILTER, DISTINCT, ORDER BY, an expression
 * argument, another aggregate)
 */
static int
node_sum_kind(Aggref *aggref, Index relid)
{
	Var		   *var;
	Oid			gpu_sum_oid = aggref->aggfnoid;
	int			nargs = 1;
	int			kind;

	if (aggref->aggsplit != AGGSPLIT_SIMPLE || aggref->agglevelsup != 0 ||
		aggref->aggkind != AGGKIND_NORMAL || aggref->aggfilter != NULL ||
		aggref->aggdistinct != NIL || aggref->aggorder != NIL ||
		aggref->aggdirectargs != NIL || aggref->aggstar || aggref->aggvariadic)
		return 0;
	if (list_length(aggref->args) == 2 && is_citus_partial_agg(aggref->aggfnoid))
	{
		Const	   *agg = (Const *) linitial_node(TargetEntry, aggref->args)->expr;

		if (!IsA(agg, Const) || agg->consttype != OIDOID || agg->constisnull)
			return 0;
		gpu_sum_oid = DatumGetObjectId(agg->constvalue);
		nargs = 2;
	}
	if (list_length(aggref->args) != nargs)
		return 0;
	var = aggref_column(aggref);
	if (!IsA(var, Var) || var->varno != (int) relid || var->varlevelsup != 0 ||
		var->varattno <= 0)
		return 0;
	kind = gpu_sum_kind(gpu_sum_oid);
	if ((kind == 8 && var->vartype == FLOAT8OID) || (kind == 4 && var->vartype == FLOAT4OID))
		return nargs;
	return 0;
}

/*
 * is_group_var -- whether var is one of the grouping columns (a Var of the
 * same table and column)
 */
static bool
is_group_var(Var *var, List *group_vars)
{
	ListCell   *lc;

	foreach(lc, group_vars)
	{
		Var		   *g = lfirst_node(Var, lc);

		if (var->varno == g->varno && var->varattno == g->varattno && var->varlevelsup == 0)
			return true;
	}
	return false;
}

/*
 * gs_collect_sums -- walk a target expression and gather its Aggrefs; any
 * aggregate that is not a plain gpu_sum, and any Var outside an aggregate
 * that is not a grouping column (or anything like one), rules the path out
 */
bool
gs_collect_sums(Node *node, AggrefSearch *search)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		int			kind = node_sum_kind((Aggref *) node, search->relid);

		if (kind == 0)
		{
			search->ok = false;
			return true;
		}
		search->citus |= kind == 2;
		search->plain |= kind == 1;
		search->aggrefs = list_append_unique(search->aggrefs, node);
		return false;
	}
	if (IsA(node, Var) && is_group_var((Var *) node, search->group_vars))
		return false;
	if (IsA(node, Var) || IsA(node, PlaceHolderVar) || IsA(node, GroupingFunc) ||
		IsA(node, WindowFunc))
	{
		search->ok = false;
		return true;
	}
	return expression_tree_walker(node, gs_collect_sums, (void *) search);
}

/*
 * gs_sum_scan_table_ok -- whether the scans can read input_rel: one plain
 * table or materialized view, without inheritance, TABLESAMPLE, or any
 * qualification (WHERE clause or row-level security)
 */
bool
gs_sum_scan_table_ok(PlannerInfo *root, RelOptInfo *input_rel)
{
	RangeTblEntry *rte;

	if (input_rel->reloptkind != RELOPT_BASEREL || input_rel->rtekind != RTE_RELATION ||
		input_rel->baserestrictinfo != NIL || IS_DUMMY_REL(input_rel))
		return false;
	rte = planner_rt_fetch(input_rel->relid, root);
	return !rte->inh && rte->tablesample == NULL &&
		(rte->relkind == RELKIND_RELATION || rte->relkind == RELKIND_MATVIEW);
}

/* sum_scan_path -- a CustomPath of the node over the table `input_rel` */
static CustomPath *
sum_scan_path(RelOptInfo *parent, RelOptInfo *input_rel, PathTarget *target,
			  Path *scan_path, int nsums, bool partial)
{
	CustomPath *cpath = makeNode(CustomPath);
	Cost		per_row = SUM_SCAN_ROW_COST_FRACTION * cpu_operator_cost * nsums;

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = parent;
	cpath->path.pathtarget = target;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = partial;
	cpath->path.parallel_safe = partial;
	cpath->path.parallel_workers = partial ? scan_path->parallel_workers : 0;
	cpath->path.rows = 1;
#if PG_VERSION_NUM >= 180000
	/* a sequential scan in all but name: disabled where the scan it reads is */
	cpath->path.disabled_nodes = scan_path->disabled_nodes;
#endif
	cpath->path.startup_cost = scan_path->total_cost + per_row * scan_path->rows +
		target->cost.startup;
	cpath->path.total_cost = cpath->path.startup_cost + target->cost.per_tuple;
	cpath->path.pathkeys = NIL;
	cpath->flags = 0;
	cpath->custom_paths = NIL;
	cpath->custom_private = list_make2_int((int) input_rel->relid, partial ? 1 : 0);
	cpath->methods = &sum_path_methods;
	return cpath;
}

/*
 * add_sum_scan_paths -- the create_upper_paths_hook: where the query is a
 * whole-table gpu_sum (see the file header), add the node's serial path,
 * and a Finalize Aggregate over Gather over its partial path where the
 * table can be scanned in parallel; with GROUP BY, the GpuscanGroupSum
 * paths
 */
static void
add_sum_scan_paths(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
				   RelOptInfo *output_rel, void *extra)
{
	Query	   *parse = root->parse;
	AggrefSearch search;
	ListCell   *lc;
	Path	   *seq;

	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);

	if (stage != UPPERREL_GROUP_AGG || !gpuscan_enable_sum_scan)
		return;
	if (parse->groupingSets != NIL || parse->hasTargetSRFs ||
		!gs_sum_scan_table_ok(root, input_rel))
		return;
	if (parse->groupClause != NIL)
	{
		gs_add_group_sum_paths(root, input_rel, output_rel);
		return;
	}
	if (parse->havingQual != NULL)
		return;
	if (gs_add_csr_scan_path(root, input_rel, output_rel))
		return;

	memset(&search, 0, sizeof(search));
	search.relid = input_rel->relid;
	search.ok = true;
	(void) gs_collect_sums((Node *) output_rel->reltarget->exprs, &search);
	if (!search.ok || search.aggrefs == NIL)
		return;

	/* serial: the node alone */
	seq = create_seqscan_path(root, input_rel, NULL, 0);
	add_path(output_rel, (Path *) sum_scan_path(output_rel, input_rel, output_rel->reltarget,
												seq, list_length(search.aggrefs), false));

	/*
	 * parallel: Finalize Aggregate <- Gather <- the node, partial (not for
	 * worker_partial_agg, which has no combine function)
	 */
	if (!search.citus && output_rel->consider_parallel && input_rel->consider_parallel &&
		input_rel->partial_pathlist != NIL)
	{
		int			workers = ((Path *) linitial(input_rel->partial_pathlist))->parallel_workers;
		RelOptInfo *partial_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG,
												  input_rel->relids);
		PathTarget *partial_target = create_empty_pathtarget();
		AggClauseCosts final_costs;
		CustomPath *cpath;
		Path	   *gather;
		double		rows;

		if (workers <= 0)
			return;
		foreach(lc, search.aggrefs)
		{
			Aggref	   *partial = copyObject(lfirst_node(Aggref, lc));

			mark_partial_aggref(partial, AGGSPLIT_INITIAL_SERIAL);
			add_column_to_pathtarget(partial_target, (Expr *) partial, 0);
		}
		partial_target = set_pathtarget_cost_width(root, partial_target);
		seq = create_seqscan_path(root, input_rel, NULL, workers);
		cpath = sum_scan_path(partial_rel, input_rel, partial_target, seq,
							  list_length(search.aggrefs), true);
		rows = cpath->path.rows * workers;
		gather = (Path *) create_gather_path(root, partial_rel, (Path *) cpath,
											 partial_target, NULL, &rows);
		MemSet(&final_costs, 0, sizeof(final_costs));
		get_agg_clause_costs(root, AGGSPLIT_FINAL_DESERIAL, &final_costs);
		add_path(output_rel, (Path *) create_agg_path(root, output_rel, gather,
													  output_rel->reltarget, AGG_PLAIN,
													  AGGSPLIT_FINAL_DESERIAL, NIL, NIL,
													  &final_costs, 1));
	}
}

/*
 * plan_sum_scan -- the CustomScan: a scan of the table whose scan tuple is
 * the list of sums (custom_scan_tlist, one Aggref each), which the target
 * list then references
 */
static Plan *
plan_sum_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *scan_tlist = NIL;
	ListCell   *lc;

	foreach(lc, best_path->path.pathtarget->exprs)
	{
		List	   *aggrefs = pull_var_clause((Node *) lfirst(lc), PVC_INCLUDE_AGGREGATES);
		ListCell   *la;

		foreach(la, aggrefs)
		{
			if (!IsA(lfirst(la), Aggref))
				elog(ERROR, "gpuscan: unexpected node in a %s target", SUM_SCAN_NAME);
			if (!tlist_member((Expr *) lfirst(la), scan_tlist))
				scan_tlist = lappend(scan_tlist,
									 makeTargetEntry((Expr *) lfirst(la),
													 list_length(scan_tlist) + 1,
													 NULL, false));
		}
	}

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = (Index) linitial_int(best_path->custom_private);
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = NIL;
	cscan->custom_private = list_make1_int(lsecond_int(best_path->custom_private));
	cscan->custom_scan_tlist = scan_tlist;
	cscan->methods = &sum_scan_methods;
	return &cscan->scan.plan;
}

/* ---- execution ---- */

/* gs_sum_column -- the SumColumn of a gpu_sum Aggref of a scan's plan */
SumColumn
gs_sum_column(Aggref *aggref)
{
	Var		   *var = castNode(Var, aggref_column(aggref));
	SumColumn	col;

	col.attno = var->varattno;
	col.is_float4 = var->vartype == FLOAT4OID;
	col.citus_text = list_length(aggref->args) == 2;
	return col;
}

/* create_sum_scan_state -- the node's state; the sums' columns from the plan */
static Node *
create_sum_scan_state(CustomScan *cscan)
{
	SumScanState *state = (SumScanState *) newNode(sizeof(SumScanState), T_CustomScanState);
	ListCell   *lc;
	int			i = 0;

	state->base.css.methods = &sum_exec_methods;
	state->partial = linitial_int(cscan->custom_private) != 0;
	state->nsums = list_length(cscan->custom_scan_tlist);
	state->cols = palloc(sizeof(SumColumn) * state->nsums);
	foreach(lc, cscan->custom_scan_tlist)
		state->cols[i++] = gs_sum_column(castNode(Aggref, lfirst_node(TargetEntry, lc)->expr));
	return (Node *) state;
}

/*
 * begin_sum_scan -- nothing to do: ExecInitCustomScan opened the table, and
 * the state starts zeroed (not done, no shared scan)
 */
static void
begin_sum_scan(CustomScanState *node, EState *estate, int eflags)
{
}

/* add_buffered -- column i's buffered values added into its accumulator and count */
static void
add_buffered(double **bufs, int *nbuf, gs_exact_acc *accs, int64 *counts, int i)
{
	if (nbuf[i] > 0)
		gs_sum_into(&accs[i], bufs[i], nbuf[i], FLOAT8OID, NULL, "gpu_sum aggregate");
	counts[i] += nbuf[i];
	nbuf[i] = 0;
}

/*
 * sum_blocks -- sum_table over a heap table's blocks (heap_blocks.h): each
 * block's values appended to the columns' buffers, a full chunk added
 * into its accumulator, an interrupt check after each block; false,
 * nothing read, where the table cannot be read by blocks
 */
static bool
sum_blocks(SumScanState *state, double **bufs, int *nbuf, int chunk, gs_exact_acc *accs,
		   int64 *counts)
{
	Relation	rel = state->base.css.ss.ss_currentRelation;
	GsHeapBlocks blocks;
	AttrNumber	attnos[GS_HEAP_BLOCKS_MAX_COLS];
	bool		is_float4[GS_HEAP_BLOCKS_MAX_COLS];
	double	   *vals[GS_HEAP_BLOCKS_MAX_COLS];
	int			nvals[GS_HEAP_BLOCKS_MAX_COLS];
	int			nsums = state->nsums;
	int			i;

	if (nsums > GS_HEAP_BLOCKS_MAX_COLS)
		return false;
	for (i = 0; i < nsums; i++)
	{
		attnos[i] = state->cols[i].attno;
		is_float4[i] = state->cols[i].is_float4;
	}
	if (!gs_heap_blocks_begin(&blocks, rel, state->base.css.ss.ps.state->es_snapshot,
							  state->base.pscan, nsums, attnos, is_float4))
		return false;
	for (;;)
	{
		for (i = 0; i < nsums; i++)
			vals[i] = bufs[i] + nbuf[i];
		if (!gs_heap_blocks_next(&blocks, vals, nvals))
			break;
		for (i = 0; i < nsums; i++)
		{
			nbuf[i] += nvals[i];
			if (nbuf[i] >= chunk)
				add_buffered(bufs, nbuf, accs, counts, i);
		}
		CHECK_FOR_INTERRUPTS();
	}
	gs_sum_scan_count_pages(&state->base, blocks.pages_whole, blocks.pages_checked, 0);
	gs_heap_blocks_end(&blocks);
	return true;
}

/*
 * Where sum_blocks_gpu's pages read here go: the scan's buffers, a full
 * chunk of one added into its accumulator
 */
typedef struct PageValues
{
	SumScanState *state;
	double	  **bufs;
	int		   *nbuf;
	int			chunk;
	gs_exact_acc *accs;
	int64	   *counts;
} PageValues;

/* page_values_at -- GsPagesToGpu's values_at: the end of each column's buffer */
static void
page_values_at(void *arg, double **vals)
{
	PageValues *v = (PageValues *) arg;

	for (int i = 0; i < v->state->nsums; i++)
		vals[i] = v->bufs[i] + v->nbuf[i];
}

/* page_values_read -- GsPagesToGpu's values_read: a page's values kept, a full chunk summed */
static void
page_values_read(void *arg, const int *nvals)
{
	PageValues *v = (PageValues *) arg;

	for (int i = 0; i < v->state->nsums; i++)
	{
		v->nbuf[i] += nvals[i];
		if (v->nbuf[i] >= v->chunk)
			add_buffered(v->bufs, v->nbuf, v->accs, v->counts, i);
	}
}

/*
 * sum_blocks_gpu -- sum_blocks where the GPU service sums a column: its
 * all-visible pages are read and summed on the GPU, in place in shared
 * buffers where the service mapped them (else copied into the staging
 * area), calls of up to GS_PAGES_CALL_MAX pages (pages_to_gpu.h);
 * the other pages are read here.  A call the service cannot finish, or
 * whose pages its walker refuses, has its pages read here instead, and
 * the rest of the scan runs here where no GPU takes a call (none is ready,
 * or under auto its queue would take longer than the cost model's figure
 * for the call: the page walker here is within a few times the GPU's
 * speed, so that a busy GPU service leaves the rest to the session; the
 * GROUP BY scan, slower here, weighs its own rate).  False, nothing read,
 * where the table cannot be read by blocks.
 */
static bool
sum_blocks_gpu(SumScanState *state, double **bufs, int *nbuf, int chunk, gs_exact_acc *accs,
			   int64 *counts)
{
	Relation	rel = state->base.css.ss.ss_currentRelation;
	AttrNumber	attno = state->cols[0].attno;
	bool		is_float4 = state->cols[0].is_float4;
	PageValues	v = {state, bufs, nbuf, chunk, accs, counts};
	GsHeapBlocks blocks;
	GsPagesToGpu *p;
	int			called = 1;

	if (!gs_heap_blocks_begin(&blocks, rel, state->base.css.ss.ps.state->es_snapshot,
							  state->base.pscan, 1, &attno, &is_float4))
		return false;
	p = gs_pages_to_gpu_begin(&blocks, page_values_at, page_values_read, &v);
	while (!p->ended && called >= 0)
	{
		gs_exact_acc part;
		int64		part_n = 0;
		int64		on_gpu;
		GsTimer		timer;

		gs_acc_zero(&part);
		gs_timer_start(&timer);
		called = gs_service_heap_sum(&part, &part_n, gs_pages_to_gpu_start_call(p),
									 gs_pages_to_gpu_fill, p, &blocks.layouts[0], 0,
									 "gpu_sum aggregate");
		on_gpu = gs_pages_to_gpu_end_call(p, called == 1);
		if (called == 1)
		{
			gs_acc_merge(&accs[0], &part);
			counts[0] += part_n;
			gs_stats_record("gpu_sum aggregate", true, part_n,
							on_gpu * (int64) GS_HEAP_PAGE_SIZE, &timer);
		}
	}
	/* no GPU takes the calls: the rest here */
	(void) gs_pages_to_gpu_read_here(p, PG_INT64_MAX, NULL);
	gs_sum_scan_count_pages(&state->base, blocks.pages_whole, blocks.pages_checked, p->on_gpu);
	gs_heap_blocks_end(&blocks);
	pfree(p);
	return true;
}

/*
 * gpu_reads_pages -- whether sum_table sends the table's pages to the GPU
 * service: one summed column, the GPU in the service, and the dispatch
 * choosing it for the table's size (a page counted as the doubles its
 * bytes hold)
 */
static bool
gpu_reads_pages(SumScanState *state)
{
	Relation	rel = state->base.css.ss.ss_currentRelation;
	BlockNumber nblocks = state->base.pscan ?
		((ParallelBlockTableScanDesc) state->base.pscan)->phs_nblocks :
		RelationGetNumberOfBlocks(rel);

	bool		on_gpu;

	if (state->nsums != 1 || gpuscan_device_mode == GPUSCAN_DEVICE_CPU)
		return false;
	on_gpu = gs_use_gpu("gpu_sum aggregate", GS_WORK_SUM,
						(int64) nblocks * (GS_HEAP_PAGE_SIZE / sizeof(double)), sizeof(double));
	/* the model learns from array sums, not from this */
	gs_dispatch_not_measured();
	return on_gpu;
}

/*
 * sum_rows -- sum_table through the table AM, row by row (any table AM):
 * each row's values appended to the columns' buffers, a full chunk added
 * into its accumulator
 */
static void
sum_rows(SumScanState *state, double **bufs, int *nbuf, int chunk, gs_exact_acc *accs,
		 int64 *counts)
{
	Relation	rel = state->base.css.ss.ss_currentRelation;
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	TableScanDesc scan = gs_sum_scan_begin(&state->base);
	int			nsums = state->nsums;
	AttrNumber	natts = 0;
	uint32		rows = 0;
	int			i;

	for (i = 0; i < nsums; i++)
		natts = Max(natts, state->cols[i].attno);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		slot_getsomeattrs(slot, natts);
		for (i = 0; i < nsums; i++)
		{
			int			a = state->cols[i].attno - 1;

			if (slot->tts_isnull[a])
				continue;
			bufs[i][nbuf[i]++] = state->cols[i].is_float4 ?
				(double) DatumGetFloat4(slot->tts_values[a]) :
				DatumGetFloat8(slot->tts_values[a]);
			if (nbuf[i] == chunk)
				add_buffered(bufs, nbuf, accs, counts, i);
		}
		if (++rows % SUM_SCAN_CHECK_ROWS == 0)
			CHECK_FOR_INTERRUPTS();
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
}

/*
 * sum_table -- scan the table once, adding each column's non-NULL values
 * into its accumulator in chunks; counts[i] is how many there were.  A
 * heap table is read by blocks (sum_blocks), another through its AM.
 */
static void
sum_table(SumScanState *state, gs_exact_acc *accs, int64 *counts)
{
	int			nsums = state->nsums;
	int			chunk = gpuscan_device_mode == GPUSCAN_DEVICE_GPU ?
		SCAN_GPU_CHUNK_ELEMS : SCAN_CHUNK_ELEMS;
	double	  **bufs = palloc(sizeof(double *) * nsums);
	int		   *nbuf = palloc0(sizeof(int) * nsums);
	int			i;

	for (i = 0; i < nsums; i++)
	{
		/* room for a chunk and one more page's values (sum_blocks) */
		bufs[i] = palloc(sizeof(double) * (chunk + MaxHeapTuplesPerPage));
		gs_acc_zero(&accs[i]);
		counts[i] = 0;
	}

	if (!(gpu_reads_pages(state) && sum_blocks_gpu(state, bufs, nbuf, chunk, accs, counts)) &&
		!sum_blocks(state, bufs, nbuf, chunk, accs, counts))
		sum_rows(state, bufs, nbuf, chunk, accs, counts);

	for (i = 0; i < nsums; i++)
	{
		add_buffered(bufs, nbuf, accs, counts, i);
		pfree(bufs[i]);
	}
	pfree(bufs);
	pfree(nbuf);
}

/*
 * exec_sum_scan -- the node's only row: each sum rounded (or, for a partial
 * scan, the aggregate's partial state), NULL where no row had a value
 */
static TupleTableSlot *
exec_sum_scan(CustomScanState *node)
{
	SumScanState *state = (SumScanState *) node;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	gs_exact_acc *accs;
	int64	   *counts;
	int			i;

	if (state->done)
		return NULL;
	state->done = true;

	accs = palloc(sizeof(gs_exact_acc) * state->nsums);
	counts = palloc(sizeof(int64) * state->nsums);
	sum_table(state, accs, counts);

	ExecClearTuple(slot);
	for (i = 0; i < state->nsums; i++)
	{
		slot->tts_isnull[i] = counts[i] == 0;
		if (counts[i] == 0)
			slot->tts_values[i] = (Datum) 0;
		else if (state->cols[i].citus_text)
			slot->tts_values[i] = DirectFunctionCall1(byteaout, gs_sum_state_from_acc(&accs[i]));
		else if (state->partial)
			slot->tts_values[i] = gs_sum_state_from_acc(&accs[i]);
		else
			slot->tts_values[i] = Float8GetDatum(gs_acc_round(&accs[i]));
	}
	ExecStoreVirtualTuple(slot);
	pfree(accs);
	pfree(counts);
	return gs_scan_row(node, slot);
}

/* gs_scan_row -- see sum_table_scan.h */
TupleTableSlot *
gs_scan_row(CustomScanState *node, TupleTableSlot *slot)
{
	ExprContext *econtext = node->ss.ps.ps_ExprContext;

	if (node->ss.ps.ps_ProjInfo == NULL)
		return slot;
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	return ExecProject(node->ss.ps.ps_ProjInfo);
}

/* end_sum_scan -- nothing to free: the scan ends within exec_sum_scan */
static void
end_sum_scan(CustomScanState *node)
{
}

/* rescan_sum_scan -- scan again on the next call */
static void
rescan_sum_scan(CustomScanState *node)
{
	((SumScanState *) node)->done = false;
}

/* gs_sum_scan_begin -- see sum_table_scan.h */
TableScanDesc
gs_sum_scan_begin(SumScanBase *base)
{
	Relation	rel = base->css.ss.ss_currentRelation;

	if (base->pscan != NULL)
		return table_beginscan_parallel(rel, base->pscan);
	return table_beginscan(rel, base->css.ss.ps.state->es_snapshot, 0, NULL);
}

/* the shared page counters, then the shared table scan */
#define SHARED_SCAN_OFFSET	MAXALIGN(sizeof(SumScanPages))

/* gs_sum_scan_estimate_dsm -- room for the page counters and the shared table scan */
Size
gs_sum_scan_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return SHARED_SCAN_OFFSET + table_parallelscan_estimate(node->ss.ss_currentRelation,
															node->ss.ps.state->es_snapshot);
}

/* gs_sum_scan_initialize_dsm -- set up the page counters and the shared table scan (leader) */
void
gs_sum_scan_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	SumScanBase *base = (SumScanBase *) node;

	base->shared_pages = (SumScanPages *) coordinate;
	pg_atomic_init_u64(&base->shared_pages->whole, 0);
	pg_atomic_init_u64(&base->shared_pages->checked, 0);
	pg_atomic_init_u64(&base->shared_pages->gpu, 0);
	base->pscan = (ParallelTableScanDesc) ((char *) coordinate + SHARED_SCAN_OFFSET);
	table_parallelscan_initialize(node->ss.ss_currentRelation, base->pscan,
								  node->ss.ps.state->es_snapshot);
}

/* gs_sum_scan_reinitialize_dsm -- restart the shared scan for a rescan */
void
gs_sum_scan_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	table_parallelscan_reinitialize(node->ss.ss_currentRelation,
									((SumScanBase *) node)->pscan);
}

/* gs_sum_scan_initialize_worker -- attach to the page counters and the shared table scan (worker) */
void
gs_sum_scan_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	SumScanBase *base = (SumScanBase *) node;

	base->shared_pages = (SumScanPages *) coordinate;
	base->pscan = (ParallelTableScanDesc) ((char *) coordinate + SHARED_SCAN_OFFSET);
}

/* gs_sum_scan_count_pages -- see sum_table_scan.h */
void
gs_sum_scan_count_pages(SumScanBase *base, uint64 whole, uint64 checked, uint64 gpu)
{
	if (base->shared_pages)
	{
		pg_atomic_fetch_add_u64(&base->shared_pages->whole, whole);
		pg_atomic_fetch_add_u64(&base->shared_pages->checked, checked);
		pg_atomic_fetch_add_u64(&base->shared_pages->gpu, gpu);
	}
	else
	{
		base->pages_whole += whole;
		base->pages_checked += checked;
		base->pages_gpu += gpu;
	}
}

/*
 * gs_sum_scan_shutdown -- before a parallel plan's shared memory goes, the
 * leader keeps the page counts of all its processes for EXPLAIN ANALYZE
 */
void
gs_sum_scan_shutdown(CustomScanState *node)
{
	SumScanBase *base = (SumScanBase *) node;

	if (base->shared_pages && !IsParallelWorker())
	{
		base->pages_whole = pg_atomic_read_u64(&base->shared_pages->whole);
		base->pages_checked = pg_atomic_read_u64(&base->shared_pages->checked);
		base->pages_gpu = pg_atomic_read_u64(&base->shared_pages->gpu);
	}
	base->shared_pages = NULL;
}

/* gs_sum_scan_explain_pages -- see sum_table_scan.h */
void
gs_sum_scan_explain_pages(SumScanBase *base, ExplainState *es)
{
	/* only where the scan read pages (a heap table; not another table AM) */
	if (!es->analyze || base->pages_whole + base->pages_checked == 0)
		return;
	ExplainPropertyInteger("Pages Read Whole", NULL, (int64) base->pages_whole, es);
	ExplainPropertyInteger("Pages Read by Row", NULL, (int64) base->pages_checked, es);
	/* of the whole ones, those the GPU read (none on the CPU path) */
	if (base->pages_gpu > 0)
		ExplainPropertyInteger("Pages Read on GPU", NULL, (int64) base->pages_gpu, es);
}

/* explain_sum_scan -- with ANALYZE, how the table's pages were read */
static void
explain_sum_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	gs_sum_scan_explain_pages((SumScanBase *) node, es);
}

/* gs_sum_scan_init -- the setting, the node's methods and the planner hook */
void
gs_sum_scan_init(void)
{
	DefineCustomBoolVariable("gpuscan.enable_sum_scan",
							 "Lets the planner compute gpu_sum aggregates with the GpuscanSum and GpuscanGroupSum scans, and gpu_csr_agg with the GpuscanCsr scan.",
							 "The scans read the table and add the values without a transition "
							 "call per row; the result is the same.",
							 &gpuscan_enable_sum_scan,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	RegisterCustomScanMethods(&sum_scan_methods);
	gs_group_sum_scan_register();
	gs_csr_scan_register();
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = add_sum_scan_paths;
}
