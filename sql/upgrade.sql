-- Versions: installing 1.0 and updating gives exactly the objects of a
-- fresh install of the current version (functions with their properties,
-- aggregates, comments, privileges).  Runs last: it drops the extension.

-- every member of the extension with what defines it, one row each
CREATE FUNCTION pg_temp.gpuscan_objects()
RETURNS TABLE(object text, definition text)
LANGUAGE sql AS $$
  SELECT pg_describe_object(d.classid, d.objid, 0),
         concat_ws(' | ',
           (SELECT concat_ws(' ', p.prokind, p.prorettype::regtype, pg_get_function_arguments(p.oid),
                             p.prosrc, p.probin, p.provolatile, p.proparallel, p.proisstrict,
                             p.proretset, p.prosupport, p.prorows, p.procost, p.proacl)
              FROM pg_proc p WHERE d.classid = 'pg_proc'::regclass AND p.oid = d.objid),
           (SELECT concat_ws(' ', a.aggkind, a.aggtransfn, a.aggfinalfn, a.aggcombinefn,
                             a.aggserialfn, a.aggdeserialfn, a.aggtranstype::regtype,
                             a.agginitval, a.aggfinalmodify)
              FROM pg_aggregate a WHERE d.classid = 'pg_proc'::regclass AND a.aggfnoid = d.objid),
           obj_description(d.objid, d.classid::regclass::name))
  FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
  WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'gpuscan'
$$;

SELECT extversion FROM pg_extension WHERE extname = 'gpuscan';
CREATE TEMP TABLE fresh AS SELECT * FROM pg_temp.gpuscan_objects();
-- the objects, types apart: which of a composite type's parts (its row
-- type, its array type) count as members differs between server versions
SELECT count(*) FILTER (WHERE object !~ '^(composite )?type ') AS objects,
       count(*) FILTER (WHERE object ~ '^(composite )?type gpu_csr$') > 0 AS has_gpu_csr
FROM fresh;

DROP EXTENSION gpuscan CASCADE;
CREATE EXTENSION gpuscan VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'gpuscan';
-- the current library under the old objects: gpuscan_stats() had fewer
-- columns; an error that says what to do, not wrong rows
SELECT count(*) FROM gpuscan_stats();
-- gpuscan_device_memory(), dropped in 1.2 (sessions hold no device memory),
-- says so under the old objects
SELECT * FROM gpuscan_device_memory();
ALTER EXTENSION gpuscan UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'gpuscan';
CREATE TEMP TABLE updated AS SELECT * FROM pg_temp.gpuscan_objects();

-- the differences, both ways: none
(SELECT 'only fresh' AS side, * FROM fresh EXCEPT SELECT 'only fresh', * FROM updated)
UNION ALL
(SELECT 'only updated', * FROM updated EXCEPT SELECT 'only updated', * FROM fresh)
ORDER BY 1, 2;

-- the updated extension works
SELECT gpu_sum(ARRAY[1e16, 1, -1e16]::float8[]);
SELECT gpu_sum(x) FROM generate_series(1, 100) x;
