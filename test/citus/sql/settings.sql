-- Citus tests of gpuscan: how gpuscan's settings reach the workers.
-- Checks, with gpuscan.device as the example, the value that a worker's
-- backend sees while it runs gpu_sum in a shard query (pushed down whole:
-- GROUP BY the distribution column), beside the coordinator's own:
--   SET in the coordinator's session               does not reach the workers
--   SET LOCAL with citus.propagate_set_commands = 'local' (in a transaction
--   block)                                         reaches them, for that transaction
--   SET (not LOCAL) with propagate_set_commands = 'local'   does not
--   ALTER DATABASE ... SET, ALTER ROLE ... SET     reach them (Citus propagates
--                                                  both; new sessions see them)
-- The default is auto.
CREATE FUNCTION device_seen() RETURNS TABLE (coordinator text, workers text)
LANGUAGE sql AS $$
  SELECT current_setting('gpuscan.device'), string_agg(DISTINCT s, ',')
  FROM (SELECT k, gpu_sum(x) AS gs, current_setting('gpuscan.device') AS s
        FROM t_s4 GROUP BY k) q
  WHERE gs IS NOT NULL
$$;
SELECT current_user AS superuser \gset
SELECT * FROM device_seen();

-- SET in the session: the coordinator only
SET gpuscan.device = cpu;
SELECT * FROM device_seen();
RESET gpuscan.device;

-- SET LOCAL, propagated with citus.propagate_set_commands = 'local'
BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL gpuscan.device = cpu;
SELECT * FROM device_seen();
COMMIT;
SELECT * FROM device_seen();
-- a plain SET in the same kind of transaction is not propagated
BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET gpuscan.device = cpu;
SELECT * FROM device_seen();
COMMIT;
RESET gpuscan.device;

-- ALTER DATABASE ... SET: propagated; a new session sees it everywhere
ALTER DATABASE :"DBNAME" SET gpuscan.device = cpu;
SELECT success, result FROM run_command_on_workers(
  $$SELECT current_setting('gpuscan.device', true)$$) ORDER BY nodeport;
\c
SELECT * FROM device_seen();
ALTER DATABASE :"DBNAME" RESET gpuscan.device;
\c
SELECT * FROM device_seen();

-- ALTER ROLE ... SET: propagated; that role's new sessions see it
CREATE ROLE gpuscan_citus_settings LOGIN;
GRANT SELECT ON t_s4 TO gpuscan_citus_settings;
ALTER ROLE gpuscan_citus_settings SET gpuscan.device = cpu;
SELECT success, result FROM run_command_on_workers(
  $$SELECT array_to_string(setconfig, ',') FROM pg_db_role_setting
    WHERE setrole = 'gpuscan_citus_settings'::regrole$$) ORDER BY nodeport;
\c - gpuscan_citus_settings
SELECT * FROM device_seen();
\c - :superuser
SELECT * FROM device_seen();
