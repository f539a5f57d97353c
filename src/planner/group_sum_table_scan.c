/*-------------------------------------------------------------------------
 *
 * group_sum_table_scan.c
 *	  A plan node that computes gpu_sum aggregates per group in one pass
 *	  over a table: GpuscanGroupSum.
 *
 * For
 *
 *		SELECT g, gpu_sum(x) FROM t GROUP BY g;
 *
 * PostgreSQL's hash aggregation calls the transition function through fmgr
 * for every row and every aggregate, which costs more than the exact
 * addition itself.  The node reads the table with the table AM, looks the
 * row's group up in a TupleHashTable (execGrouping.c, PostgreSQL's own
 * grouping hash table, with the grouping columns' own hash and equality
 * functions) and adds the values straight into the group's exact sums
 * (group_sum.h).  It returns one row per group holding the gpu_sum
 * aggregates' partial states, and a Finalize HashAggregate above it
 * combines and rounds them:
 *
 *		Finalize HashAggregate
 *		  ->  Custom Scan (GpuscanGroupSum)
 *
 * in parallel plans with a Gather between, each worker scanning its share
 * of the table.  When its groups outgrow hash_mem (work_mem times
 * hash_mem_multiplier), the node returns the groups it has, empties its
 * table and goes on; the Finalize step combines a group's several partial
 * states exactly, so memory stays bounded and the result is the same bits.
 * The path is offered only where the planner's estimate of the groups fits
 * hash_mem, so that this stays the exception.
 *
 * It is offered under the conditions of the GpuscanSum scan (sum_table_scan.c:
 * one plain table, no WHERE clause, every aggregate a plain gpu_sum over a
 * column), with every GROUP BY item a hashable column of that table, and
 * no other column outside the aggregates.  A HAVING clause over the
 * grouping columns and gpu_sum aggregates is evaluated by the Finalize
 * step.
 *
 * On a Citus worker, the shard query of a distributed GROUP BY over a
 * column that is not the distribution column reads
 *
 *		SELECT g, worker_partial_agg('gpu_sum(double precision)'::regprocedure, x)
 *		FROM shard GROUP BY g
 *
 * and the node computes it alone, returning each group's partial state as
 * Citus's aggregate would (its text).  A group may then come back more
 * than once, if the node's table outgrew hash_mem; the coordinator groups
 * the shards' rows again and combines them (coord_combine_agg), as it does
 * for the same group from several shards.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "catalog/pg_type.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#else
#include "commands/explain.h"
#endif
#include "executor/executor.h"
#include "executor/nodeAgg.h"
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
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/selfuncs.h"

#include "client/service_call.h"
#include "dispatch/dispatch.h"
#include "dispatch/stats.h"
#include "functions/group_sum.h"
#include "functions/sum_agg.h"
#include "planner/heap_blocks.h"
#include "planner/pages_to_gpu.h"
#include "planner/sum_table_scan.h"

#define GROUP_SUM_SCAN_NAME	"GpuscanGroupSum"

/* the planner's processed GROUP BY list (PostgreSQL 16 keeps it apart) */
#if PG_VERSION_NUM >= 160000
#define GROUP_CLAUSE(root)	((root)->processed_groupClause)
#else
#define GROUP_CLAUSE(root)	((root)->parse->groupClause)
#endif

/* what a plan's custom_private holds, in this order */
#define PRIVATE_NKEYS		0	/* Integer: grouping columns, first in custom_scan_tlist */
#define PRIVATE_EQOPS		1	/* OID list: their equality operators */
#define PRIVATE_NGROUPS		2	/* Integer: the planner's estimate of the groups */

/*
 * pages a session reads itself a millisecond, tuple by tuple into its
 * groups (GROUP BY g100 on the CPU path: 540,541 pages in 1412 ms over 9
 * processes on the H200 host of
 * bench/results/rows-groups-nvidia-h200-2026-11-29.md): what waiting in
 * the GPU's queue is weighed against under auto
 */
#define GROUP_SESSION_PAGES_PER_MS	43.0

typedef struct GroupPages GroupPages;

typedef struct GroupSumScanState
{
	SumScanBase base;
	int			nkeys;			/* grouping columns */
	AttrNumber *key_attnos;		/* their columns in the table */
	int			nsums;
	SumColumn  *cols;			/* the sums, after the keys in custom_scan_tlist */
	long		nbuckets;		/* initial size of the hash table */
	Size		mem_limit;		/* bytes the groups may take before they are returned */
	AttrNumber	natts;			/* table columns to deform */

	TupleHashTable groups;
	MemoryContext groups_cxt;	/* the groups: keys, sums */
	MemoryContext buckets_cxt;	/* the hash table's buckets */
	MemoryContext hash_cxt;		/* scratch for hashing, reset per row */
	TupleTableSlot *key_slot;	/* the grouping columns of a table row */
	TupleTableSlot *group_slot; /* a group's key tuple, when returned */
	TupleTableSlot *table_slot;
	TableScanDesc scan;			/* open while the table is being read */
	TupleHashIterator iter;
	bool		returning;		/* returning the groups (iter is valid) */
	bool		scan_done;		/* the table is read to its end */
	int64		batches;		/* times the groups were returned */
	bool		path_chosen;	/* whether gpu (below) was decided */
	GroupPages *gpu;			/* the GPU service reads the pages, or NULL */
} GroupSumScanState;

/*
 * The table read by pages for the GPU service (up to GS_HEAP_MAX_KEYS
 * integer grouping columns, one sum): the blocks, their page source
 * (pages_to_gpu.h), the walker's layouts and the groups the GPU answers
 */
struct GroupPages
{
	GroupSumScanState *state;
	GsHeapBlocks blocks;		/* layouts[0]: the summed column's */
	GsPagesToGpu *pages;
	gs_heap_layout key_layouts[GS_HEAP_MAX_KEYS];
	Oid			key_types[GS_HEAP_MAX_KEYS];
	uint32		capacity;		/* the GPU's table of groups */
	GsGroupOut *out;			/* a call's groups */
	bool		gpu_off;		/* the rest read here: the GPU could not take it */
};

static Plan *plan_group_sum_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
								 List *tlist, List *clauses, List *custom_plans);
static Node *create_group_sum_scan_state(CustomScan *cscan);
static void begin_group_sum_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_group_sum_scan(CustomScanState *node);
static void end_group_sum_scan(CustomScanState *node);
static void rescan_group_sum_scan(CustomScanState *node);
static void explain_group_sum_scan(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomPathMethods group_sum_path_methods = {
	.CustomName = GROUP_SUM_SCAN_NAME,
	.PlanCustomPath = plan_group_sum_scan,
};

static const CustomScanMethods group_sum_scan_methods = {
	.CustomName = GROUP_SUM_SCAN_NAME,
	.CreateCustomScanState = create_group_sum_scan_state,
};

static const CustomExecMethods group_sum_exec_methods = {
	.CustomName = GROUP_SUM_SCAN_NAME,
	.BeginCustomScan = begin_group_sum_scan,
	.ExecCustomScan = exec_group_sum_scan,
	.EndCustomScan = end_group_sum_scan,
	.ReScanCustomScan = rescan_group_sum_scan,
	.EstimateDSMCustomScan = gs_sum_scan_estimate_dsm,
	.InitializeDSMCustomScan = gs_sum_scan_initialize_dsm,
	.ReInitializeDSMCustomScan = gs_sum_scan_reinitialize_dsm,
	.InitializeWorkerCustomScan = gs_sum_scan_initialize_worker,
	.ShutdownCustomScan = gs_sum_scan_shutdown,
	.ExplainCustomScan = explain_group_sum_scan,
};

/* ---- planning ---- */

/*
 * group_columns -- the grouping columns of the query as Vars of the table
 * relid, with their SortGroupClauses; false unless every GROUP BY item is a
 * hashable column of that table
 */
static bool
group_columns(PlannerInfo *root, Index relid, List **vars, List **clauses)
{
	List	   *group_clause = GROUP_CLAUSE(root);
	ListCell   *lc;

	*vars = NIL;
	*clauses = NIL;
	if (group_clause == NIL || !grouping_is_hashable(group_clause))
		return false;
	foreach(lc, group_clause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Var		   *var = (Var *) get_sortgroupclause_expr(sgc, root->parse->targetList);

		if (!IsA(var, Var) || var->varno != (int) relid || var->varlevelsup != 0 ||
			var->varattno <= 0)
			return false;
		*vars = lappend(*vars, var);
		*clauses = lappend(*clauses, sgc);
	}
	return true;
}

/*
 * group_entry_bytes -- memory of one group in the node's hash table, as
 * hash aggregation estimates its own (hash_agg_entry_size)
 */
static Size
group_entry_bytes(List *vars, int nsums)
{
	Size		width = 0;
	ListCell   *lc;

	foreach(lc, vars)
		width += get_typavgwidth(lfirst_node(Var, lc)->vartype, lfirst_node(Var, lc)->vartypmod);
	return hash_agg_entry_size(0, width, nsums * sizeof(GroupSum));
}

/*
 * group_sum_path -- a CustomPath of the node over input_rel, returning
 * `target` (the grouping columns, then the sums) for about ngroups groups
 */
static CustomPath *
group_sum_path(RelOptInfo *parent, RelOptInfo *input_rel, PathTarget *target, Path *scan_path,
			   List *vars, List *clauses, int nsums, double ngroups, bool parallel)
{
	CustomPath *cpath = makeNode(CustomPath);
	Cost		per_row = cpu_operator_cost * (list_length(vars) +
											   SUM_SCAN_ROW_COST_FRACTION * nsums);
	List	   *eqops = NIL;
	ListCell   *lc;

	foreach(lc, clauses)
		eqops = lappend_oid(eqops, lfirst_node(SortGroupClause, lc)->eqop);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = parent;
	cpath->path.pathtarget = target;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = parallel;
	cpath->path.parallel_safe = parallel;
	cpath->path.parallel_workers = parallel ? scan_path->parallel_workers : 0;
	cpath->path.rows = ngroups;
#if PG_VERSION_NUM >= 180000
	cpath->path.disabled_nodes = scan_path->disabled_nodes;
#endif
	cpath->path.startup_cost = scan_path->total_cost + per_row * scan_path->rows +
		target->cost.startup;
	cpath->path.total_cost = cpath->path.startup_cost +
		(cpu_tuple_cost + target->cost.per_tuple) * ngroups;
	cpath->path.pathkeys = NIL;
	cpath->flags = 0;
	cpath->custom_paths = NIL;
	cpath->custom_private = list_make4(vars, eqops, makeInteger((int) Min(ngroups, INT_MAX)),
									   makeInteger((int) input_rel->relid));
	cpath->methods = &group_sum_path_methods;
	return cpath;
}

/*
 * partial_group_target -- what the node returns under a Finalize step: the
 * grouping columns (with their GROUP BY references) and each aggregate's
 * partial form
 */
static PathTarget *
partial_group_target(PlannerInfo *root, List *vars, List *clauses, List *aggrefs)
{
	PathTarget *target = create_empty_pathtarget();
	ListCell   *lv,
			   *lc;

	forboth(lv, vars, lc, clauses)
		add_column_to_pathtarget(target, (Expr *) lfirst(lv),
								 lfirst_node(SortGroupClause, lc)->tleSortGroupRef);
	foreach(lc, aggrefs)
	{
		Aggref	   *partial = copyObject(lfirst_node(Aggref, lc));

		mark_partial_aggref(partial, AGGSPLIT_INITIAL_SERIAL);
		add_column_to_pathtarget(target, (Expr *) partial, 0);
	}
	return set_pathtarget_cost_width(root, target);
}

/* finalize_path -- a Finalize HashAggregate over `input`, into output_rel */
static Path *
finalize_path(PlannerInfo *root, RelOptInfo *output_rel, Path *input, double ngroups)
{
	AggClauseCosts final_costs;

	MemSet(&final_costs, 0, sizeof(final_costs));
	get_agg_clause_costs(root, AGGSPLIT_FINAL_DESERIAL, &final_costs);
	return (Path *) create_agg_path(root, output_rel, input, output_rel->reltarget, AGG_HASHED,
									AGGSPLIT_FINAL_DESERIAL, GROUP_CLAUSE(root),
									(List *) root->parse->havingQual, &final_costs, ngroups);
}

/*
 * gs_add_group_sum_paths -- see sum_table_scan.h: where the query is a GROUP BY
 * the node computes (see the file header), add Finalize HashAggregate over
 * the node, and over Gather over its parallel form; on a Citus worker, the
 * node alone
 */
void
gs_add_group_sum_paths(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel)
{
	AggrefSearch search;
	List	   *vars;
	List	   *clauses;
	int			nsums;
	double		ngroups;
	Path	   *seq;
	RelOptInfo *partial_rel;
	PathTarget *partial_target;

	if (!group_columns(root, input_rel->relid, &vars, &clauses))
		return;
	memset(&search, 0, sizeof(search));
	search.relid = input_rel->relid;
	search.group_vars = vars;
	search.ok = true;
	(void) gs_collect_sums((Node *) output_rel->reltarget->exprs, &search);
	(void) gs_collect_sums(root->parse->havingQual, &search);
	if (!search.ok || search.aggrefs == NIL)
		return;
	nsums = list_length(search.aggrefs);

	ngroups = estimate_num_groups(root, vars, input_rel->rows, NULL, NULL);
	if (ngroups * group_entry_bytes(vars, nsums) > (double) get_hash_memory_limit())
		return;

	seq = create_seqscan_path(root, input_rel, NULL, 0);
	if (search.citus)
	{
		/* worker_partial_agg: the node returns Citus's partial states itself */
		if (!search.plain && root->parse->havingQual == NULL)
			add_path(output_rel, (Path *) group_sum_path(output_rel, input_rel,
														 output_rel->reltarget, seq, vars,
														 clauses, nsums, ngroups, false));
		return;
	}

	partial_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG, input_rel->relids);
	partial_target = partial_group_target(root, vars, clauses, search.aggrefs);
	add_path(output_rel,
			 finalize_path(root, output_rel,
						   (Path *) group_sum_path(partial_rel, input_rel, partial_target, seq,
												   vars, clauses, nsums, ngroups, false),
						   ngroups));

	/* parallel: Finalize HashAggregate <- Gather <- the node in each process */
	if (output_rel->consider_parallel && input_rel->consider_parallel &&
		input_rel->partial_pathlist != NIL)
	{
		int			workers = ((Path *) linitial(input_rel->partial_pathlist))->parallel_workers;
		Path	   *node;
		double		rows;

		if (workers <= 0)
			return;
		seq = create_seqscan_path(root, input_rel, NULL, workers);
		node = (Path *) group_sum_path(partial_rel, input_rel, partial_target, seq, vars,
									   clauses, nsums, ngroups, true);
		rows = ngroups * (workers + 1);
		add_path(output_rel,
				 finalize_path(root, output_rel,
							   (Path *) create_gather_path(root, partial_rel, node,
														   partial_target, NULL, &rows),
							   ngroups));
	}
}

/*
 * plan_group_sum_scan -- the CustomScan: a scan of the table whose scan
 * tuple (custom_scan_tlist) is the grouping columns, then one Aggref per
 * sum, which the target list references
 */
static Plan *
plan_group_sum_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *vars = (List *) linitial(best_path->custom_private);
	List	   *scan_tlist = NIL;
	ListCell   *lc;

	foreach(lc, vars)
		scan_tlist = lappend(scan_tlist, makeTargetEntry((Expr *) copyObject(lfirst(lc)),
														 list_length(scan_tlist) + 1, NULL, false));
	foreach(lc, best_path->path.pathtarget->exprs)
	{
		List	   *found = pull_var_clause((Node *) lfirst(lc), PVC_INCLUDE_AGGREGATES);
		ListCell   *la;

		foreach(la, found)
		{
			if (IsA(lfirst(la), Var))
				continue;		/* a grouping column, there already */
			if (!IsA(lfirst(la), Aggref))
				elog(ERROR, "gpuscan: unexpected node in a %s target", GROUP_SUM_SCAN_NAME);
			if (!tlist_member((Expr *) lfirst(la), scan_tlist))
				scan_tlist = lappend(scan_tlist,
									 makeTargetEntry((Expr *) lfirst(la),
													 list_length(scan_tlist) + 1, NULL, false));
		}
	}

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = (Index) intVal(lfourth(best_path->custom_private));
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = NIL;
	cscan->custom_private = list_make3(makeInteger(list_length(vars)),
									   lsecond(best_path->custom_private),
									   lthird(best_path->custom_private));
	cscan->custom_scan_tlist = scan_tlist;
	cscan->methods = &group_sum_scan_methods;
	return &cscan->scan.plan;
}

/* ---- execution ---- */

/* create_group_sum_scan_state -- the node's state; keys and sums from the plan */
static Node *
create_group_sum_scan_state(CustomScan *cscan)
{
	GroupSumScanState *state = (GroupSumScanState *) newNode(sizeof(GroupSumScanState),
															 T_CustomScanState);
	ListCell   *lc;
	int			i = 0;

	state->base.css.methods = &group_sum_exec_methods;
	state->nkeys = intVal(list_nth(cscan->custom_private, PRIVATE_NKEYS));
	state->nsums = list_length(cscan->custom_scan_tlist) - state->nkeys;
	state->nbuckets = Max(intVal(list_nth(cscan->custom_private, PRIVATE_NGROUPS)), 256);
	state->key_attnos = palloc(sizeof(AttrNumber) * state->nkeys);
	state->cols = palloc(sizeof(SumColumn) * state->nsums);
	foreach(lc, cscan->custom_scan_tlist)
	{
		Expr	   *expr = lfirst_node(TargetEntry, lc)->expr;

		if (i < state->nkeys)
			state->key_attnos[i] = castNode(Var, expr)->varattno;
		else
			state->cols[i - state->nkeys] = gs_sum_column(castNode(Aggref, expr));
		state->natts = Max(state->natts, i < state->nkeys ? state->key_attnos[i] :
						   state->cols[i - state->nkeys].attno);
		i++;
	}
	return (Node *) state;
}

/*
 * begin_group_sum_scan -- the hash table of groups (keyed by the grouping
 * columns, with their hash and equality functions and collations) and the
 * slots; the table itself is opened on the first row asked for
 */
static void
begin_group_sum_scan(CustomScanState *node, EState *estate, int eflags)
{
	GroupSumScanState *state = (GroupSumScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *eqop_list = (List *) list_nth(cscan->custom_private, PRIVATE_EQOPS);
	TupleDesc	key_desc = CreateTemplateTupleDesc(state->nkeys);
	AttrNumber *key_cols = palloc(sizeof(AttrNumber) * state->nkeys);
	Oid		   *eqops = palloc(sizeof(Oid) * state->nkeys);
	Oid		   *collations = palloc(sizeof(Oid) * state->nkeys);
	Oid		   *eqfuncs;
	FmgrInfo   *hashfuncs;
	ListCell   *lc;
	int			k = 0;

	foreach(lc, cscan->custom_scan_tlist)
	{
		Var		   *var = (Var *) lfirst_node(TargetEntry, lc)->expr;

		if (k == state->nkeys)
			break;
		TupleDescInitEntry(key_desc, k + 1, NULL, var->vartype, var->vartypmod, 0);
		TupleDescInitEntryCollation(key_desc, k + 1, var->varcollid);
		key_cols[k] = k + 1;
		eqops[k] = list_nth_oid(eqop_list, k);
		collations[k] = var->varcollid;
		k++;
	}
	execTuplesHashPrepare(state->nkeys, eqops, &eqfuncs, &hashfuncs);

	state->groups_cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuscanGroupSum groups",
											  ALLOCSET_DEFAULT_SIZES);
	state->buckets_cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuscanGroupSum buckets",
											   ALLOCSET_DEFAULT_SIZES);
	state->hash_cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuscanGroupSum hashing",
											ALLOCSET_SMALL_SIZES);
	state->mem_limit = get_hash_memory_limit();
#if PG_VERSION_NUM >= 180000
	state->groups = BuildTupleHashTable(&node->ss.ps, key_desc, &TTSOpsMinimalTuple,
										state->nkeys, key_cols, eqfuncs, hashfuncs, collations,
										state->nbuckets, state->nsums * sizeof(GroupSum),
										state->buckets_cxt, state->groups_cxt, state->hash_cxt,
										true);
#else
	state->groups = BuildTupleHashTableExt(&node->ss.ps, key_desc, state->nkeys, key_cols,
										   eqfuncs, hashfuncs, collations, state->nbuckets,
										   state->nsums * sizeof(GroupSum), state->buckets_cxt,
										   state->groups_cxt, state->hash_cxt, true);
#endif
	state->key_slot = MakeSingleTupleTableSlot(key_desc, &TTSOpsMinimalTuple);
	state->group_slot = MakeSingleTupleTableSlot(key_desc, &TTSOpsMinimalTuple);
	state->table_slot = table_slot_create(node->ss.ss_currentRelation, NULL);
}

/*
 * group_sums -- the sums of a group's hash table entry; a new entry's are
 * set up empty (before PostgreSQL 18 the caller allocates that space)
 */
static GroupSum *
group_sums(GroupSumScanState *state, TupleHashEntry entry, bool isnew)
{
	GroupSum   *sums;
	int			i;

#if PG_VERSION_NUM >= 180000
	sums = TupleHashEntryGetAdditional(state->groups, entry);
#else
	if (isnew)
		entry->additional = MemoryContextAlloc(state->groups_cxt,
											   state->nsums * sizeof(GroupSum));
	sums = entry->additional;
#endif
	if (isnew)
		for (i = 0; i < state->nsums; i++)
			group_sum_init(&sums[i]);
	return sums;
}

/* groups_full -- whether the groups take more memory than hash_mem allows */
static bool
groups_full(GroupSumScanState *state)
{
	return MemoryContextMemAllocated(state->groups_cxt, true) +
		MemoryContextMemAllocated(state->buckets_cxt, true) > state->mem_limit;
}

/*
 * group_of_key -- the sums of the group whose keys key_slot holds (cleared
 * and filled by the caller), the group made where it is new (*isnew)
 */
static GroupSum *
group_of_key(GroupSumScanState *state, bool *isnew)
{
	TupleHashEntry entry;

	ExecStoreVirtualTuple(state->key_slot);
	entry = LookupTupleHashEntry(state->groups, state->key_slot, isnew, NULL);
	MemoryContextReset(state->hash_cxt);
	return group_sums(state, entry, *isnew);
}

/*
 * read_rows -- read the table on from where it stopped, adding each row's
 * values into its group's sums, until the table ends (scan_done) or the
 * groups outgrow hash_mem
 */
static void
read_rows(GroupSumScanState *state)
{
	TupleTableSlot *row = state->table_slot;
	TupleTableSlot *key = state->key_slot;
	uint32		rows = 0;

	if (state->scan == NULL)
		state->scan = gs_sum_scan_begin(&state->base);
	while (table_scan_getnextslot(state->scan, ForwardScanDirection, row))
	{
		GroupSum   *sums;
		bool		isnew;
		int			k,
					i;

		/* per-group sums run on the CPU, but gpuscan.device = gpu needs a GPU */
		if (rows == 0)
			gs_require_forced_gpu("gpu_sum");
		slot_getsomeattrs(row, state->natts);
		ExecClearTuple(key);
		for (k = 0; k < state->nkeys; k++)
		{
			key->tts_values[k] = row->tts_values[state->key_attnos[k] - 1];
			key->tts_isnull[k] = row->tts_isnull[state->key_attnos[k] - 1];
		}
		sums = group_of_key(state, &isnew);
		for (i = 0; i < state->nsums; i++)
		{
			int			a = state->cols[i].attno - 1;

			if (row->tts_isnull[a])
				continue;
			group_sum_add(&sums[i], state->cols[i].is_float4 ?
						  (double) DatumGetFloat4(row->tts_values[a]) :
						  DatumGetFloat8(row->tts_values[a]), state->groups_cxt);
		}
		if (++rows % SUM_SCAN_CHECK_ROWS == 0)
			CHECK_FOR_INTERRUPTS();
		if (isnew && groups_full(state))
			return;
	}
	table_endscan(state->scan);
	state->scan = NULL;
	state->scan_done = true;
}

/*
 * next_group -- the scan tuple of the next group: its keys, then each
 * sum's partial state (NULL where the group had no value), as Citus's text
 * for worker_partial_agg; NULL when every group has been returned
 */
static TupleTableSlot *
next_group(GroupSumScanState *state)
{
	TupleTableSlot *slot = state->base.css.ss.ss_ScanTupleSlot;
	ExprContext *econtext = state->base.css.ss.ps.ps_ExprContext;
	TupleHashEntry entry = ScanTupleHashTable(state->groups, &state->iter);
	MemoryContext oldcxt;
	GroupSum   *sums;
	int			k,
				i;

	if (entry == NULL)
		return NULL;
	ResetExprContext(econtext);
	oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	ExecClearTuple(slot);
#if PG_VERSION_NUM >= 180000
	ExecStoreMinimalTuple(TupleHashEntryGetTuple(entry), state->group_slot, false);
#else
	ExecStoreMinimalTuple(entry->firstTuple, state->group_slot, false);
#endif
	slot_getallattrs(state->group_slot);
	for (k = 0; k < state->nkeys; k++)
	{
		slot->tts_values[k] = state->group_slot->tts_values[k];
		slot->tts_isnull[k] = state->group_slot->tts_isnull[k];
	}
	sums = group_sums(state, entry, false);
	for (i = 0; i < state->nsums; i++)
	{
		gs_exact_acc acc;
		Datum		value = (Datum) 0;

		if (!group_sum_is_empty(&sums[i]))
		{
			group_sum_value(&sums[i], &acc);
			value = gs_sum_state_from_acc(&acc);
			if (state->cols[i].citus_text)
				value = DirectFunctionCall1(byteaout, value);
		}
		slot->tts_values[state->nkeys + i] = value;
		slot->tts_isnull[state->nkeys + i] = group_sum_is_empty(&sums[i]);
	}
	ExecStoreVirtualTuple(slot);
	MemoryContextSwitchTo(oldcxt);
	return slot;
}

/* forget_groups -- empty the hash table, for more rows or a rescan */
static void
forget_groups(GroupSumScanState *state)
{
	if (state->returning)
		TermTupleHashIterator(&state->iter);
	state->returning = false;
	ResetTupleHashTable(state->groups);
	MemoryContextReset(state->groups_cxt);
}

/* add_tuple -- GsHeapBlocks' tuple_fn: a tuple read here added into its group */
static void
add_tuple(void *arg, HeapTuple tuple)
{
	GroupPages *g = (GroupPages *) arg;
	GroupSumScanState *state = g->state;
	TupleDesc	desc = RelationGetDescr(state->base.css.ss.ss_currentRelation);
	TupleTableSlot *key = state->key_slot;
	GroupSum   *sums;
	bool		isnew,
				value_null;
	Datum		value;

	ExecClearTuple(key);
	for (int k = 0; k < state->nkeys; k++)
		key->tts_values[k] = heap_getattr(tuple, state->key_attnos[k], desc, &key->tts_isnull[k]);
	sums = group_of_key(state, &isnew);
	value = heap_getattr(tuple, state->cols[0].attno, desc, &value_null);
	if (!value_null)
		group_sum_add(&sums[0], state->cols[0].is_float4 ?
					  (double) DatumGetFloat4(value) : DatumGetFloat8(value), state->groups_cxt);
}

/*
 * int_key_datum -- a key of an int2, int4 or int8 column the GPU answered,
 * as a Datum; an ERROR where it is out of the column's range (the answer
 * comes from another process)
 */
static Datum
int_key_datum(Oid type, int64 key)
{
	if ((type == INT2OID && (key < PG_INT16_MIN || key > PG_INT16_MAX)) ||
		(type == INT4OID && (key < PG_INT32_MIN || key > PG_INT32_MAX)))
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("gpu_sum: the GPU service answered a group key out of its column's range")));
	return type == INT2OID ? Int16GetDatum((int16) key) :
		type == INT4OID ? Int32GetDatum((int32) key) : Int64GetDatum(key);
}

/*
 * add_gpu_groups -- the GPU's groups of a call merged into the hash table,
 * each key checked (int_key_datum), as are its NULL bits
 */
static void
add_gpu_groups(GroupPages *g, int64 ngroups)
{
	GroupSumScanState *state = g->state;
	TupleTableSlot *key = state->key_slot;

	for (int64 i = 0; i < ngroups; i++)
	{
		const GsGroupOut *o = &g->out[i];
		GroupSum   *sums;
		bool		isnew;

		if ((o->null_keys >> state->nkeys) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("gpu_sum: the GPU service answered a group of a key it was not asked for")));
		ExecClearTuple(key);
		for (int k = 0; k < state->nkeys; k++)
		{
			key->tts_isnull[k] = (o->null_keys & (1u << k)) != 0;
			key->tts_values[k] = key->tts_isnull[k] ? (Datum) 0 :
				int_key_datum(g->key_types[k], o->key[k]);
		}
		sums = group_of_key(state, &isnew);
		if (o->count > 0)
			group_sum_merge(&sums[0], &o->acc, state->groups_cxt);
	}
}

/* groups_outgrown -- gs_pages_to_gpu_read_here's stop: the groups outgrew hash_mem */
static bool
groups_outgrown(void *arg)
{
	return groups_full(((GroupPages *) arg)->state);
}

/*
 * read_pages_gpu -- read_rows where the GPU service reads the pages: calls
 * of up to GS_PAGES_CALL_MAX all-visible pages whose groups the GPU sums
 * and answers, merged into the hash table; a call the service cannot
 * finish, whose pages its walker refuses or whose groups its table cannot
 * hold has its pages read here, and the rest too where the groups are too
 * many for the GPU's largest table.  Where no GPU takes a call (none is
 * ready, or under auto its queue is too long for the pages), the next
 * GS_HEAP_CHUNK_PAGES pages are read here before the next try.  Stops
 * when the groups outgrow hash_mem (between calls) or the table ends.
 */
static void
read_pages_gpu(GroupSumScanState *state)
{
	GroupPages *g = state->gpu;
	GsPagesToGpu *p = g->pages;

	while (!p->ended && !g->gpu_off)
	{
		int64		ngroups = 0;
		int64		on_gpu;
		GsTimer		timer;
		int			called;

		gs_timer_start(&timer);
		called = gs_service_heap_group_sum(g->out, &ngroups, g->capacity,
										   gs_pages_to_gpu_start_call(p), gs_pages_to_gpu_fill, p,
										   state->nkeys, g->key_layouts, &g->blocks.layouts[0],
										   GROUP_SESSION_PAGES_PER_MS, "gpu_sum");
		on_gpu = gs_pages_to_gpu_end_call(p, called == 1);
		if (called == 1)
		{
			add_gpu_groups(g, ngroups);
			gs_stats_record("gpu_sum", true, ngroups, on_gpu * (int64) GS_HEAP_PAGE_SIZE, &timer);
		}
		else if (called == 0 && g->capacity < GS_HEAP_MAX_GROUPS)
		{
			/* more groups than the table held (or a page refused): a larger one */
			g->capacity = Min(g->capacity * 4, GS_HEAP_MAX_GROUPS);
			pfree(g->out);
			g->out = palloc(sizeof(GsGroupOut) * (g->capacity / 2 + 1));
		}
		else if (called == 0)
			g->gpu_off = true;	/* too many groups for the GPU: the rest here */
		if (groups_full(state))
			return;
		if (called < 0 && !gs_pages_to_gpu_read_here(p, GS_HEAP_CHUNK_PAGES, groups_outgrown))
			return;
	}
	if (!gs_pages_to_gpu_read_here(p, PG_INT64_MAX, groups_outgrown))
		return;
	gs_sum_scan_count_pages(&state->base, g->blocks.pages_whole, g->blocks.pages_checked,
							p->on_gpu);
	gs_heap_blocks_end(&g->blocks);
	state->scan_done = true;
}

/*
 * gpu_group_pages -- the GPU path for this scan, or NULL: up to
 * GS_HEAP_MAX_KEYS grouping columns of int2, int4 or int8, one sum, a heap
 * table the walker reads, the GPU in the service and the dispatch
 * choosing it for the table's size
 */
static GroupPages *
gpu_group_pages(GroupSumScanState *state)
{
	Relation	rel = state->base.css.ss.ss_currentRelation;
	TupleDesc	desc = RelationGetDescr(rel);
	AttrNumber	attno;
	bool		is_float4;
	BlockNumber nblocks;
	GroupPages *g;
	bool		on_gpu;

	if (state->nkeys < 1 || state->nkeys > GS_HEAP_MAX_KEYS || state->nsums != 1 ||
		gpuscan_device_mode == GPUSCAN_DEVICE_CPU)
		return NULL;
	g = palloc0(sizeof(GroupPages));
	g->state = state;
	for (int k = 0; k < state->nkeys; k++)
	{
		g->key_types[k] = TupleDescAttr(desc, state->key_attnos[k] - 1)->atttypid;
		if (!gs_heap_int_layout_for(desc, state->key_attnos[k], &g->key_layouts[k]))
		{
			pfree(g);
			return NULL;
		}
	}
	nblocks = state->base.pscan ?
		((ParallelBlockTableScanDesc) state->base.pscan)->phs_nblocks :
		RelationGetNumberOfBlocks(rel);
	on_gpu = gs_use_gpu("gpu_sum", GS_WORK_SUM,
						(int64) nblocks * (GS_HEAP_PAGE_SIZE / sizeof(double)), sizeof(double));
	gs_dispatch_not_measured();
	attno = state->cols[0].attno;
	is_float4 = state->cols[0].is_float4;
	if (!on_gpu ||
		!gs_heap_blocks_begin(&g->blocks, rel, state->base.css.ss.ps.state->es_snapshot,
							  state->base.pscan, 1, &attno, &is_float4))
	{
		pfree(g);
		return NULL;
	}
	gs_heap_blocks_by_tuple(&g->blocks, add_tuple, g);
	g->pages = gs_pages_to_gpu_begin(&g->blocks, NULL, NULL, g);
	/* twice the planner's estimate of the groups: a table at most half full */
	g->capacity = 1024;
	while (g->capacity < GS_HEAP_MAX_GROUPS && g->capacity < 2 * (uint64) state->nbuckets)
		g->capacity *= 2;
	g->out = palloc(sizeof(GsGroupOut) * (g->capacity / 2 + 1));
	return g;
}

/*
 * exec_group_sum_scan -- the next group: read rows until the table ends or
 * the groups fill hash_mem, return the groups, and go on reading
 */
static TupleTableSlot *
exec_group_sum_scan(CustomScanState *node)
{
	GroupSumScanState *state = (GroupSumScanState *) node;

	for (;;)
	{
		if (state->returning)
		{
			TupleTableSlot *slot = next_group(state);

			if (slot != NULL)
			{
				if (node->ss.ps.ps_ProjInfo == NULL)
					return slot;
				node->ss.ps.ps_ExprContext->ecxt_scantuple = slot;
				return ExecProject(node->ss.ps.ps_ProjInfo);
			}
			forget_groups(state);
			if (state->scan_done)
				return NULL;
		}
		if (!state->path_chosen)
		{
			state->gpu = gpu_group_pages(state);
			state->path_chosen = true;
		}
		if (state->gpu)
			read_pages_gpu(state);
		else
			read_rows(state);
		InitTupleHashIterator(state->groups, &state->iter);
		state->returning = true;
		state->batches++;
	}
}

/* end_table_scan -- close the table scan, if it is open (a caller stopped early) */
static void
end_table_scan(GroupSumScanState *state)
{
	if (state->scan != NULL)
		table_endscan(state->scan);
	state->scan = NULL;
	if (state->gpu != NULL)
	{
		gs_pages_to_gpu_release(state->gpu->pages);
		if (!state->scan_done)
			gs_heap_blocks_end(&state->gpu->blocks);
		pfree(state->gpu->out);
		pfree(state->gpu->pages);
		pfree(state->gpu);
	}
	state->gpu = NULL;
	state->path_chosen = false;
}

/* end_group_sum_scan -- close the table scan and drop the slots */
static void
end_group_sum_scan(CustomScanState *node)
{
	GroupSumScanState *state = (GroupSumScanState *) node;

	end_table_scan(state);
	ExecDropSingleTupleTableSlot(state->key_slot);
	ExecDropSingleTupleTableSlot(state->group_slot);
	ExecDropSingleTupleTableSlot(state->table_slot);
}

/* rescan_group_sum_scan -- forget the groups and read the table again */
static void
rescan_group_sum_scan(CustomScanState *node)
{
	GroupSumScanState *state = (GroupSumScanState *) node;

	end_table_scan(state);
	forget_groups(state);
	state->scan_done = false;
	state->batches = 0;
}

/*
 * explain_group_sum_scan -- the grouping columns, and with ANALYZE how many
 * times the groups were returned (more than once where they outgrew
 * hash_mem)
 */
static void
explain_group_sum_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GroupSumScanState *state = (GroupSumScanState *) node;
	Oid			relid = RelationGetRelid(node->ss.ss_currentRelation);
	List	   *names = NIL;
	int			k;

	for (k = 0; k < state->nkeys; k++)
		names = lappend(names, get_attname(relid, state->key_attnos[k], false));
	ExplainPropertyList("Group Key", names, es);
	if (es->analyze)
		ExplainPropertyInteger("Batches", NULL, state->batches, es);
	gs_sum_scan_explain_pages(&state->base, es);
}

/* gs_group_sum_scan_register -- see sum_table_scan.h */
void
gs_group_sum_scan_register(void)
{
	RegisterCustomScanMethods(&group_sum_scan_methods);
}
