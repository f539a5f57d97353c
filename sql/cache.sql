-- The GPU service's device cache of stored arrays: every call answers for
-- the value it was given, whatever happened to the stored value between
-- calls.  With the service and a GPU (the GPU pass with gpuscan preloaded)
-- these calls go through the cache: the first loads a value, the next
-- hit it, and a changed value is a new key.  Elsewhere they run on the CPU;
-- the answers are the same.  (test/service_check.sh shows the hits.)

CREATE TABLE ct (id integer, a double precision[]);
ALTER TABLE ct ALTER COLUMN a SET STORAGE EXTERNAL;	-- out of line, not compressed
INSERT INTO ct SELECT 1, array_agg(i::float8) FROM generate_series(1, 50000) i;
INSERT INTO ct SELECT 2, array_agg(i * 0.5::float8) FROM generate_series(1, 50000) i;
SELECT pg_column_size(a) > 100000 AS out_of_line FROM ct ORDER BY id;

-- twice each: a load, then a hit
SELECT id, gpu_sum(a) FROM ct ORDER BY id;
SELECT id, gpu_sum(a) FROM ct ORDER BY id;

-- the value updated
UPDATE ct SET a = a || 1000000::float8 WHERE id = 1;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- another column updated: the same value
ALTER TABLE ct ADD COLUMN note text;
UPDATE ct SET note = 'x' WHERE id = 1;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- an update rolled back
BEGIN;
UPDATE ct SET a = a || 2000000::float8 WHERE id = 1;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
ROLLBACK;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- a subtransaction rolled back
BEGIN;
SAVEPOINT s;
UPDATE ct SET a = a || 3000000::float8 WHERE id = 1;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
ROLLBACK TO SAVEPOINT s;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
COMMIT;

-- deleted and inserted again: another value, then the same value again
DELETE FROM ct WHERE id = 1;
INSERT INTO ct (id, a) SELECT 1, array_agg(-i::float8) FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
DELETE FROM ct WHERE id = 1;
INSERT INTO ct (id, a) SELECT 1, array_agg(i::float8) FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- rewritten: VACUUM FULL, CLUSTER
VACUUM FULL ct;
SELECT id, gpu_sum(a) FROM ct ORDER BY id;
CREATE INDEX ct_id ON ct (id);
CLUSTER ct USING ct_id;
SELECT id, gpu_sum(a) FROM ct ORDER BY id;

-- emptied and filled again
TRUNCATE ct;
INSERT INTO ct (id, a) SELECT 1, array_agg(i * 2::float8) FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- the column's type changed: real[]
ALTER TABLE ct ALTER COLUMN a TYPE real[] USING array_append(a::real[], 0.5::real);
SELECT gpu_sum(a) FROM ct WHERE id = 1;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- dropped and created again with other values
DROP TABLE ct;
CREATE TABLE ct (id integer, a double precision[]);
ALTER TABLE ct ALTER COLUMN a SET STORAGE EXTERNAL;
INSERT INTO ct SELECT 1, array_agg(i * 3::float8) FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- stored compressed, out of line
CREATE TABLE ct_compressed (a double precision[]);
INSERT INTO ct_compressed SELECT array_agg(1::float8) FROM generate_series(1, 200000);
SELECT pg_column_size(a) < 200000 * 8 AS compressed FROM ct_compressed;
SELECT gpu_sum(a) FROM ct_compressed;
SELECT gpu_sum(a) FROM ct_compressed;

-- a stored array with a NULL: the function's own error, every time
CREATE TABLE ct_null (a double precision[]);
ALTER TABLE ct_null ALTER COLUMN a SET STORAGE EXTERNAL;
INSERT INTO ct_null SELECT array_agg(CASE WHEN i = 40000 THEN NULL ELSE i::float8 END)
FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct_null;
SELECT gpu_sum(a) FROM ct_null;

-- another database with a table of the same name and other values
SELECT current_database() AS cache_test_db \gset
CREATE DATABASE gpuscan_cache_other;
\c gpuscan_cache_other
CREATE EXTENSION gpuscan;
CREATE TABLE ct (id integer, a double precision[]);
ALTER TABLE ct ALTER COLUMN a SET STORAGE EXTERNAL;
INSERT INTO ct SELECT 1, array_agg(i * 5::float8) FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
\c :cache_test_db
SELECT gpu_sum(a) FROM ct WHERE id = 1;
DROP DATABASE gpuscan_cache_other;

-- the view and the reset are for monitoring roles and superusers
CREATE ROLE gpuscan_cache_user;
SET ROLE gpuscan_cache_user;
SELECT count(*) FROM gpuscan_cache;
SELECT gpuscan_cache_reset();
RESET ROLE;
DROP ROLE gpuscan_cache_user;
SELECT count(*) >= 0 AS readable FROM gpuscan_cache;

DROP TABLE ct, ct_compressed, ct_null;
