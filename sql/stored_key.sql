-- The identity of a stored array (src/ipc/stored_array.h), which the GPU
-- service's device cache is to be keyed and checked by: an unchanged value
-- keeps its key, and every change that gives a column a new value, or
-- rewrites it, gives a new key.  Keys are compared within the run (their
-- ids differ from run to run).

CREATE FUNCTION pg_temp.stored_key(anyelement) RETURNS text
AS '$libdir/gpuscan', 'gs_debug_stored_key' LANGUAGE C STRICT;

CREATE TABLE sk (id integer, a double precision[]);
ALTER TABLE sk ALTER COLUMN a SET STORAGE EXTERNAL;	-- out of line, not compressed
CREATE TEMP TABLE keys (step integer, what text, k text);
CREATE FUNCTION pg_temp.note(step integer, what text) RETURNS void LANGUAGE sql AS $$
  INSERT INTO keys SELECT step, what, pg_temp.stored_key(a) FROM sk WHERE id = 1
$$;

INSERT INTO sk SELECT 1, array_agg(i::float8) FROM generate_series(1, 10000) i;
SELECT pg_temp.note(1, 'inserted');
SELECT pg_temp.note(2, 'read again');
UPDATE sk SET id = 1;
SELECT pg_temp.note(3, 'another column updated');
UPDATE sk SET a = a || 0::float8;
SELECT pg_temp.note(4, 'the value updated');
BEGIN;
UPDATE sk SET a = a || 1::float8;
SELECT pg_temp.stored_key(a) AS k5 FROM sk WHERE id = 1 \gset
ROLLBACK;
INSERT INTO keys VALUES (5, 'updated, seen in the updating transaction', :'k5');
SELECT pg_temp.note(6, 'after the update rolled back');
BEGIN;
SAVEPOINT s;
UPDATE sk SET a = a || 2::float8;
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT pg_temp.note(7, 'after a subtransaction rolled back');
DELETE FROM sk;
INSERT INTO sk SELECT 1, array_agg(i::float8) || 0::float8 FROM generate_series(1, 10000) i;
SELECT pg_temp.note(8, 'deleted, the same value inserted again');
VACUUM FULL sk;
SELECT pg_temp.note(9, 'VACUUM FULL');
CREATE INDEX sk_id ON sk (id);
CLUSTER sk USING sk_id;
SELECT pg_temp.note(10, 'CLUSTER');
TRUNCATE sk;
INSERT INTO sk SELECT 1, array_agg(i::float8) || 0::float8 FROM generate_series(1, 10000) i;
SELECT pg_temp.note(11, 'TRUNCATE, the same value inserted again');
ALTER TABLE sk ALTER COLUMN a TYPE real[];
SELECT pg_temp.note(12, 'ALTER COLUMN ... TYPE');
DROP TABLE sk;
CREATE TABLE sk (id integer, a double precision[]);
ALTER TABLE sk ALTER COLUMN a SET STORAGE EXTERNAL;
INSERT INTO sk SELECT 1, array_agg(i::float8) || 0::float8 FROM generate_series(1, 10000) i;
SELECT pg_temp.note(13, 'DROP TABLE, CREATE TABLE, the same value inserted');

-- every step has a key; a step shares its key with an earlier one only
-- where the column still holds the same stored value
SELECT step, what, k IS NOT NULL AS has_key,
       (SELECT string_agg(e.step::text, ',' ORDER BY e.step) FROM keys e
        WHERE e.step < keys.step AND e.k = keys.k) AS same_key_as
FROM keys ORDER BY step;

-- values that are not stored out of line have no key
SELECT pg_temp.stored_key('{1,2,3}'::float8[]) IS NULL AS literal,
       pg_temp.stored_key(array_fill(1::float8, ARRAY[100000])) IS NULL AS computed,
       pg_temp.stored_key(42) IS NULL AS not_varlena;
INSERT INTO sk VALUES (2, '{1,2,3}');
SELECT pg_temp.stored_key(a) IS NULL AS small_stored FROM sk WHERE id = 2;

DROP TABLE sk;
