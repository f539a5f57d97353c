/*-------------------------------------------------------------------------
 *
 * csr_table_scan.c
 *	  A plan node that computes a whole-table gpu_csr_agg in one pass:
 *	  "GpuscanCsr".
 *
 * The aggregate gpu_csr_agg(row, col, value) (csr_agg.c) costs per row what
 * any aggregate costs: the executor evaluates the arguments (casts of
 * integer columns to bigint included) and calls the transition function
 * through fmgr, which over 2^26 triples took longer than the whole
 * SELECT count(*).  For the common query
 *
 *		SELECT gpu_csr_agg(r, c, v) FROM t;		-- or (gpu_csr_agg(...)).field
 *
 * the planner hook of the sum scans (sum_table_scan.c) offers this node, which
 * reads the table with the table AM and adds each row's columns to the
 * aggregate's own state (csr_state.h), with the same checks and errors in
 * the same order, then builds the same gpu_csr.  It is offered only where
 * it computes exactly what the aggregate would: one plain table, no WHERE
 * clause or row-level security qualifications, no GROUP BY or HAVING, and
 * the query's only aggregate one gpu_csr_agg (the same, wherever it
 * appears) without FILTER, DISTINCT or ORDER BY, whose row and column are
 * columns of the table of type bigint, integer or smallint, whose value is
 * a double precision or real column, and whose sizes, in the five-argument
 * form, are constants.  It runs serially; gpuscan.enable_sum_scan = off
 * turns it off with the sum scans.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/tlist.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "functions/csr_state.h"
#include "dispatch/dispatch.h"
#include "planner/sum_table_scan.h"

#define CSR_SCAN_NAME		"GpuscanCsr"

/* The node's state: which columns feed the triples, and the constant sizes */
typedef struct CsrScanState
{
	CustomScanState css;
	AttrNumber	attno[3];		/* row, column, value */
	Oid			type[3];		/* their columns' types */
	bool		sized;			/* the five-argument form ... */
	bool		size_null[2];	/* ... with these nrows and ncols */
	int32		size[2];
	Oid			result_type;	/* gpu_csr */
	bool		done;
} CsrScanState;

static Plan *plan_csr_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
						   List *tlist, List *clauses, List *custom_plans);
static Node *create_csr_scan_state(CustomScan *cscan);
static void begin_csr_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_csr_scan(CustomScanState *node);
static void end_csr_scan(CustomScanState *node);
static void rescan_csr_scan(CustomScanState *node);

static const CustomPathMethods csr_path_methods = {
	.CustomName = CSR_SCAN_NAME,
	.PlanCustomPath = plan_csr_scan,
};

static const CustomScanMethods csr_scan_methods = {
	.CustomName = CSR_SCAN_NAME,
	.CreateCustomScanState = create_csr_scan_state,
};

static const CustomExecMethods csr_exec_methods = {
	.CustomName = CSR_SCAN_NAME,
	.BeginCustomScan = begin_csr_scan,
	.ExecCustomScan = exec_csr_scan,
	.EndCustomScan = end_csr_scan,
	.ReScanCustomScan = rescan_csr_scan,
};

/* ---- planning ---- */

/* is_gpu_csr_agg -- whether aggfnoid is gpu_csr_agg (three or five arguments) */
static bool
is_gpu_csr_agg(Oid aggfnoid)
{
	HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	Form_pg_aggregate agg;
	bool		ours;

	if (!HeapTupleIsValid(tup))
		return false;
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	ours = agg->aggkind == AGGKIND_NORMAL && !agg->aggfinalextra &&
		gs_is_our_c_function(agg->aggtransfn, "gpu_csr_agg_trans") &&
		gs_is_our_c_function(agg->aggfinalfn, "gpu_csr_agg_final");
	ReleaseSysCache(tup);
	return ours;
}

/*
 * table_column -- the column of table relid that expr reads, with any cast
 * of an integer column to bigint (or of real to double precision) taken
 * off; NULL for anything else
 */
static Var *
table_column(Expr *expr, Index relid)
{
	Var		   *var;

	if (IsA(expr, FuncExpr) && list_length(((FuncExpr *) expr)->args) == 1)
	{
		Oid			f = ((FuncExpr *) expr)->funcid;

		if (f != F_INT8_INT4 && f != F_INT8_INT2 && f != F_FLOAT8_FLOAT4)
			return NULL;
		expr = linitial(((FuncExpr *) expr)->args);
	}
	if (!IsA(expr, Var))
		return NULL;
	var = (Var *) expr;
	if (var->varno != (int) relid || var->varlevelsup != 0 || var->varattno <= 0)
		return NULL;
	return var;
}

/* node_takes -- whether the node can compute aggref over table relid */
static bool
node_takes(Aggref *aggref, Index relid)
{
	int			nargs = list_length(aggref->args);
	int			i;

	if (aggref->aggsplit != AGGSPLIT_SIMPLE || aggref->agglevelsup != 0 ||
		aggref->aggkind != AGGKIND_NORMAL || aggref->aggfilter != NULL ||
		aggref->aggdistinct != NIL || aggref->aggorder != NIL ||
		aggref->aggdirectargs != NIL || aggref->aggstar || aggref->aggvariadic ||
		(nargs != 3 && nargs != 5) || !is_gpu_csr_agg(aggref->aggfnoid))
		return false;
	for (i = 0; i < nargs; i++)
	{
		Expr	   *arg = list_nth_node(TargetEntry, aggref->args, i)->expr;
		Var		   *var;

		if (i >= 3)
		{
			if (!IsA(arg, Const) || ((Const *) arg)->consttype != INT4OID)
				return false;
			continue;
		}
		if ((var = table_column(arg, relid)) == NULL)
			return false;
		if (i < 2 && var->vartype != INT8OID && var->vartype != INT4OID &&
			var->vartype != INT2OID)
			return false;
		if (i == 2 && var->vartype != FLOAT8OID && var->vartype != FLOAT4OID)
			return false;
	}
	return true;
}

/*
 * the_aggref -- the one gpu_csr_agg the target list computes, wherever it
 * appears in it; NULL where there is another aggregate, a column outside
 * it, or none
 */
static Aggref *
the_aggref(List *exprs, Index relid)
{
	List	   *found = pull_var_clause((Node *) exprs, PVC_INCLUDE_AGGREGATES);
	Aggref	   *aggref = NULL;
	ListCell   *lc;

	foreach(lc, found)
	{
		if (!IsA(lfirst(lc), Aggref))
			return NULL;
		if (aggref == NULL)
			aggref = lfirst_node(Aggref, lc);
		else if (!equal(aggref, lfirst(lc)))
			return NULL;
	}
	return aggref != NULL && node_takes(aggref, relid) ? aggref : NULL;
}

/* gs_add_csr_scan_path -- see sum_table_scan.h */
bool
gs_add_csr_scan_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel)
{
	CustomPath *cpath;
	Path	   *seq;
	PathTarget *target = output_rel->reltarget;

	if (the_aggref(target->exprs, input_rel->relid) == NULL)
		return false;
	seq = create_seqscan_path(root, input_rel, NULL, 0);
	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = output_rel;
	cpath->path.pathtarget = target;
	cpath->path.rows = 1;
#if PG_VERSION_NUM >= 180000
	cpath->path.disabled_nodes = seq->disabled_nodes;
#endif
	cpath->path.startup_cost = seq->total_cost +
		SUM_SCAN_ROW_COST_FRACTION * cpu_operator_cost * 3 * seq->rows + target->cost.startup;
	cpath->path.total_cost = cpath->path.startup_cost + target->cost.per_tuple;
	cpath->custom_private = list_make1_int((int) input_rel->relid);
	cpath->methods = &csr_path_methods;
	add_path(output_rel, (Path *) cpath);
	return true;
}

/*
 * plan_csr_scan -- the CustomScan: a scan of the table whose scan tuple is
 * the aggregate (custom_scan_tlist), which the target list references
 */
static Plan *
plan_csr_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	Index		relid = (Index) linitial_int(best_path->custom_private);
	Aggref	   *aggref = the_aggref(best_path->path.pathtarget->exprs, relid);

	if (aggref == NULL)
		elog(ERROR, "gpuscan: unexpected %s target", CSR_SCAN_NAME);
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = relid;
	cscan->flags = best_path->flags;
	cscan->custom_scan_tlist = list_make1(makeTargetEntry((Expr *) aggref, 1, NULL, false));
	cscan->methods = &csr_scan_methods;
	return &cscan->scan.plan;
}

/* ---- execution ---- */

/* create_csr_scan_state -- the node's state: the columns and sizes from the plan's Aggref */
static Node *
create_csr_scan_state(CustomScan *cscan)
{
	CsrScanState *state = (CsrScanState *) newNode(sizeof(CsrScanState), T_CustomScanState);
	Aggref	   *aggref = castNode(Aggref, linitial_node(TargetEntry, cscan->custom_scan_tlist)->expr);
	int			i;

	state->css.methods = &csr_exec_methods;
	state->result_type = aggref->aggtype;
	state->sized = list_length(aggref->args) == 5;
	for (i = 0; i < list_length(aggref->args); i++)
	{
		Expr	   *arg = list_nth_node(TargetEntry, aggref->args, i)->expr;

		if (i < 3)
		{
			Var		   *var = table_column(arg, cscan->scan.scanrelid);

			if (var == NULL)
				elog(ERROR, "gpuscan: unexpected %s argument", CSR_SCAN_NAME);
			state->attno[i] = var->varattno;
			state->type[i] = var->vartype;
		}
		else
		{
			state->size_null[i - 3] = castNode(Const, arg)->constisnull;
			state->size[i - 3] = state->size_null[i - 3] ? 0 :
				DatumGetInt32(castNode(Const, arg)->constvalue);
		}
	}
	return (Node *) state;
}

/* begin_csr_scan -- nothing to do: ExecInitCustomScan opened the table */
static void
begin_csr_scan(CustomScanState *node, EState *estate, int eflags)
{
}

/* column_int -- an integer column's value as bigint */
static inline int64
column_int(Datum d, Oid type)
{
	return type == INT8OID ? DatumGetInt64(d) :
		type == INT4OID ? (int64) DatumGetInt32(d) : (int64) DatumGetInt16(d);
}

/*
 * read_triples -- scan the table once, adding each row's triple to s: the
 * rows in the order the aggregate would get them, so that an error names
 * the same triple
 */
static void
read_triples(CsrScanState *state, CsrAggState *s)
{
	Relation	rel = state->css.ss.ss_currentRelation;
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	TableScanDesc scan = table_beginscan(rel, state->css.ss.ps.state->es_snapshot, 0, NULL);
	AttrNumber	natts = Max(Max(state->attno[0], state->attno[1]), state->attno[2]);
	CsrTriple	t;
	uint32		rows = 0;
	int			i;

	t.sized = state->sized;
	t.null[3] = state->size_null[0];
	t.null[4] = state->size_null[1];
	t.nrows = state->size[0];
	t.ncols = state->size[1];
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		/* as the aggregate at its first row: gpuscan.device = gpu needs a GPU */
		if (rows == 0)
			gs_require_forced_gpu("gpu_csr_agg");
		slot_getsomeattrs(slot, natts);
		for (i = 0; i < 3; i++)
			t.null[i] = slot->tts_isnull[state->attno[i] - 1];
		t.row = t.null[0] ? 0 : column_int(slot->tts_values[state->attno[0] - 1], state->type[0]);
		t.col = t.null[1] ? 0 : column_int(slot->tts_values[state->attno[1] - 1], state->type[1]);
		t.val = t.null[2] ? 0 : state->type[2] == FLOAT8OID ?
			DatumGetFloat8(slot->tts_values[state->attno[2] - 1]) :
			(double) DatumGetFloat4(slot->tts_values[state->attno[2] - 1]);
		gs_csr_state_add(s, &t);
		if (++rows % SUM_SCAN_CHECK_ROWS == 0)
			CHECK_FOR_INTERRUPTS();
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
}

/*
 * exec_csr_scan -- the node's only row: the gpu_csr of the table's triples,
 * NULL where it has no rows (as the aggregate's)
 */
static TupleTableSlot *
exec_csr_scan(CustomScanState *node)
{
	CsrScanState *state = (CsrScanState *) node;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	MemoryContext cxt;
	CsrAggState *s;
	int64		n;

	if (state->done)
		return NULL;
	state->done = true;

	cxt = AllocSetContextCreate(CurrentMemoryContext, CSR_SCAN_NAME, ALLOCSET_DEFAULT_SIZES);
	s = gs_csr_state_new(cxt);
	read_triples(state, s);
	n = gs_csr_state_count(s);

	ExecClearTuple(slot);
	slot->tts_isnull[0] = n == 0;
	slot->tts_values[0] = (Datum) 0;
	if (n > 0)
	{
		TupleDesc	desc = lookup_rowtype_tupdesc(state->result_type, -1);

		slot->tts_values[0] = gs_csr_state_result(s, desc);
		ReleaseTupleDesc(desc);
	}
	ExecStoreVirtualTuple(slot);
	MemoryContextDelete(cxt);
	return gs_scan_row(node, slot);
}

/* end_csr_scan -- nothing to free: the scan ends within exec_csr_scan */
static void
end_csr_scan(CustomScanState *node)
{
}

/* rescan_csr_scan -- scan again on the next call */
static void
rescan_csr_scan(CustomScanState *node)
{
	((CsrScanState *) node)->done = false;
}

/* gs_csr_scan_register -- see sum_table_scan.h */
void
gs_csr_scan_register(void)
{
	RegisterCustomScanMethods(&csr_scan_methods);
}
