-- Citus tests of gpuscan: a role that is not a superuser.
-- Checks that a plain role, with nothing but SELECT on the tables, can run
-- the distributed gpu_sum aggregate (Citus checks EXECUTE on the
-- aggregate's support functions for the calling role, on the workers and
-- the coordinator), split and whole, with the superuser's results, and the
-- array functions; CREATE ROLE and GRANT reach the workers through Citus.
CREATE ROLE gpuscan_citus_plain LOGIN;
GRANT SELECT ON t_s32, t_local, arr, arr_local TO gpuscan_citus_plain;
SELECT success, result FROM run_command_on_workers(
  $$SELECT rolsuper::text || ' ' || has_table_privilege('gpuscan_citus_plain', 't_s32', 'SELECT')
    FROM pg_roles WHERE rolname = 'gpuscan_citus_plain'$$) ORDER BY nodeport;
CREATE TABLE su AS SELECT gpu_sum(x) AS x, gpu_sum(y) AS y FROM t_s32;
CREATE TABLE su_g AS SELECT g, gpu_sum(x) AS x FROM t_s32 GROUP BY g;
GRANT SELECT ON su, su_g TO gpuscan_citus_plain;
SELECT has_function_privilege('gpuscan_citus_plain', 'gpu_sum_combine(bytea, bytea)', 'EXECUTE') AS combine,
       has_function_privilege('gpuscan_citus_plain', 'gpu_sum_float8_accum(bytea, float8)', 'EXECUTE') AS accum,
       has_function_privilege('gpuscan_citus_plain', 'gpu_sum_final(bytea)', 'EXECUTE') AS final;

SET ROLE gpuscan_citus_plain;
SELECT current_user, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser;
SELECT same_float8(d.x, su.x) AS x_same, same_float8(d.y, su.y) AS y_same
FROM (SELECT gpu_sum(x) x, gpu_sum(y) y FROM t_s32) d, su;
SELECT count(*) AS groups, count(*) FILTER (WHERE NOT same_float8(d.x, su_g.x)) AS differ
FROM (SELECT g, gpu_sum(x) x FROM t_s32 GROUP BY g) d FULL JOIN su_g USING (g);
SELECT count(*) AS groups FROM (SELECT k, gpu_sum(x) FROM t_s32 GROUP BY k) q;
SELECT count(*) AS rows, count(*) FILTER (WHERE NOT same_float8(d.s, l.s)) AS differ
FROM (SELECT k, gpu_sum(a) s FROM arr) d FULL JOIN (SELECT k, gpu_sum(a) s FROM arr_local) l USING (k);
RESET ROLE;

-- the EXECUTE check is real: without EXECUTE on the combine function the
-- split aggregate fails for the role (so the support functions keep their
-- EXECUTE for PUBLIC), and works again once it is back
REVOKE EXECUTE ON FUNCTION gpu_sum_combine(bytea, bytea) FROM PUBLIC;
SET ROLE gpuscan_citus_plain;
SELECT error_of('SELECT gpu_sum(x) FROM t_s32');
RESET ROLE;
GRANT EXECUTE ON FUNCTION gpu_sum_combine(bytea, bytea) TO PUBLIC;
SET ROLE gpuscan_citus_plain;
SELECT error_of('SELECT gpu_sum(x) FROM t_s32');
RESET ROLE;

-- the same from a session of its own (its own connections to the workers)
\c - gpuscan_citus_plain
SELECT current_user;
SELECT count(*) AS groups, count(*) FILTER (WHERE NOT same_float8(d.x, su_g.x)) AS differ
FROM (SELECT g, gpu_sum(x) x FROM t_s32 GROUP BY g) d FULL JOIN su_g USING (g);
