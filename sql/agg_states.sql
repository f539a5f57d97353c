-- Aggregate states from outside are untrusted.  Any role may build an
-- aggregate over gpu_sum's support functions (CREATE AGGREGATE pg_temp.*
-- needs no privilege) and hand them states it wrote itself: as an INITCOND,
-- or as rows of a combine function used as a transition function.  Every
-- such state is checked completely before use; a bad one is an ERROR with
-- SQLSTATE XX001 (data_corrupted), never a crash.  Run as a plain role.
CREATE ROLE regress_gpuscan_plain;
SET ROLE regress_gpuscan_plain;
SELECT rolsuper FROM pg_roles WHERE rolname = current_user;

-- the attack that crashed the server: a state of the old format in the
-- other byte order with a huge count, as an INITCOND
CREATE AGGREGATE pg_temp.initcond_sum(float8) (
  SFUNC = gpu_sum_float8_accum, STYPE = bytea, FINALFUNC = gpu_sum_final,
  INITCOND = '\x475353310000004000ffffff0000000000000000000000000000000000000000');
SELECT error_of('SELECT pg_temp.initcond_sum(x) FROM generate_series(1, 3) x');
DROP AGGREGATE pg_temp.initcond_sum(float8);

-- the same through the real aggregate's transition function
CREATE AGGREGATE pg_temp.initcond_sum(real) (
  SFUNC = gpu_sum_float4_accum, STYPE = bytea, FINALFUNC = gpu_sum_final,
  INITCOND = '\x4753533240000000');
SELECT error_of('SELECT pg_temp.initcond_sum(x::real) FROM generate_series(1, 3) x');
DROP AGGREGATE pg_temp.initcond_sum(real);

-- a valid INITCOND is a starting value: 1 + (1 + 2 + 3)
CREATE AGGREGATE pg_temp.initcond_sum(float8) (
  SFUNC = gpu_sum_float8_accum, STYPE = bytea, FINALFUNC = gpu_sum_final,
  INITCOND = '\x475353321021010000000400');
SELECT pg_temp.initcond_sum(x) FROM generate_series(1, 3) x;
SELECT pg_temp.initcond_sum(x) OVER (ORDER BY x ROWS UNBOUNDED PRECEDING)
FROM generate_series(1, 3) x;
DROP AGGREGATE pg_temp.initcond_sum(float8);

-- the combine function as a transition function over crafted states
CREATE AGGREGATE pg_temp.combine_states(bytea) (
  SFUNC = gpu_sum_combine, STYPE = bytea, FINALFUNC = gpu_sum_final);

-- The state of 1.0: magic "GSS2", flags 0x10 (a value other than -0),
-- lowest digit 33, one digit, digit 2^18 (1.0 = 2^1074 units of 2^-1074).
CREATE TEMP TABLE crafted(label text, state bytea);
INSERT INTO crafted VALUES
  ('old format, other byte order', '\x475353310000004000ffffff'),
  ('empty', '\x'),
  ('shorter than the header', '\x47535332102101'),
  ('three bytes', '\x475353'),
  ('another magic', '\x475353331021010000000400'),
  ('unknown flag', '\x475353325021010000000400'),
  ('nonzero reserved byte', '\x475353321021010100000400'),
  ('a digit missing', '\x475353321021020000000400'),
  ('a byte too many', '\x47535332102101000000040000'),
  ('digits past the top', '\x475353321043010000000400'),
  ('digits reaching past the top', '\x47535332104202000000040000000400'),
  ('zero lowest digit', '\x47535332102002000000000000000400'),
  ('zero highest digit', '\x47535332102102000000040000000000'),
  ('negative zero', '\x4753533230000000'),
  ('zero with a digit index', '\x4753533210050000');
-- each state alone (the final function reads it) and after a valid one
-- (the combine function reads it): the same error either way
SELECT label, error_of(format('SELECT pg_temp.combine_states(%L::bytea)', state)) AS error,
       error_of(format('SELECT pg_temp.combine_states(%L::bytea)', state)) =
       error_of(format(
         'SELECT pg_temp.combine_states(s) FROM (VALUES (%L::bytea), (%L::bytea)) v(s)',
         '\x475353321021010000000400', state)) AS same_when_combined
FROM crafted ORDER BY label;

-- valid states from outside are taken as they are: 1 + (-3) = -2, exactly
SELECT pg_temp.combine_states(s)
FROM (VALUES ('\x475353321021010000000400'::bytea),
             ('\x475353323021010000000c00'::bytea)) v(s);
-- the flags: NaN, +Infinity, -Infinity, only -0
SELECT pg_temp.combine_states(s)
FROM (VALUES ('\x4753533211000000'::bytea)) v(s);
SELECT pg_temp.combine_states(s)
FROM (VALUES ('\x4753533212000000'::bytea), ('\x4753533214000000'::bytea)) v(s);
SELECT pg_temp.combine_states(s)
FROM (VALUES ('\x4753533212000000'::bytea), ('\x475353321021010000000400'::bytea)) v(s);
SELECT float8send(pg_temp.combine_states(s))
FROM (VALUES ('\x4753533208000000'::bytea), ('\x4753533208000000'::bytea)) v(s);

-- The largest magnitude a state holds (67 digits of ones, about 2^1070):
-- infinite alone, exactly cancelled by its negative, and merged 100000
-- times without overflowing the accumulator.
CREATE TEMP TABLE extreme AS
SELECT decode('4753533210004300' || repeat('ffffffff', 67), 'hex') AS pos,
       decode('4753533230004300' || repeat('ffffffff', 67), 'hex') AS neg;
SELECT pg_temp.combine_states(pos) FROM extreme;
SELECT pg_temp.combine_states(neg) FROM extreme;
SELECT pg_temp.combine_states(s) FROM extreme, LATERAL (VALUES (pos), (neg)) v(s);
SELECT pg_temp.combine_states(pos) FROM extreme, generate_series(1, 100000);
SELECT pg_temp.combine_states(neg) FROM extreme, generate_series(1, 100000);

DROP AGGREGATE pg_temp.combine_states(bytea);
RESET ROLE;
DISCARD TEMP;
DROP ROLE regress_gpuscan_plain;
