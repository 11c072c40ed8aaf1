-- Inputs that reach the training through user-defined casts and odd array
-- rows.
--  * A class label is the text of the target's value, (target)::text: a
--    user-defined cast of an enum to text may return NULL for a value that
--    is not NULL; an error naming the column, not a crash of the backend.
--    Nor may it give two values one text: two classes of one name.
--  * The length of an array feature column is that of its first non-empty
--    array: an empty array in the first row must not make the column look
--    empty (left out of the default features) while later rows hold values.
--  * A partition's identity column is an identifier like its parent's: the
--    default features leave it out (its sequence belongs to the parent).
--  * The reader's and the label query's casts name pg_catalog.text: a
--    schema listed before pg_catalog in the caller's search path may hold a
--    domain named text, whose CHECK would run its author's code with the
--    caller's rights (a superuser's).
BEGIN;
SELECT plan(10);

CREATE TYPE pg_temp.cl_label AS ENUM ('a', 'b', 'c');
CREATE TEMP TABLE cl AS
SELECT i, (ARRAY['a', 'b', 'c']::pg_temp.cl_label[])[1 + i % 3] AS y, (i % 7)::float8 AS x
FROM generate_series(1, 300) i;
SELECT lives_ok($$SELECT gbdt_train('cl', 'y', ARRAY['x'], NULL, '{"num_round": 2}')$$,
                'an enum target trains through the I/O conversion to text');
-- From here on the enum's cast to text is a function that returns NULL for 'b'.
CREATE FUNCTION pg_temp.cl_label_text(pg_temp.cl_label) RETURNS text
  LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN $1 = 'b' THEN NULL ELSE 'label ' || ($1 < 'b')::text END $$;
CREATE CAST (pg_temp.cl_label AS text) WITH FUNCTION pg_temp.cl_label_text(pg_temp.cl_label);
SELECT throws_ok($$SELECT gbdt_train('cl', 'y', ARRAY['x'], NULL, '{"num_round": 2}')$$,
                 '22004', 'target column "y" has a value whose cast to text is NULL',
                 'a cast to text returning NULL: an error naming the target, not a crash');
SELECT throws_ok($$SELECT gbdt_train('cl', 'y', ARRAY['x'], 'multi:softprob', '{"num_round": 2}')$$,
                 '22004', 'target column "y" has a value whose cast to text is NULL',
                 'the same with the objective given');
SELECT lives_ok($$SELECT gbdt_train('cl', 'i', ARRAY['x'], 'reg:squarederror', '{"num_round": 2}')$$,
                'the backend is still alive');

CREATE TYPE pg_temp.cl_label2 AS ENUM ('a', 'b', 'c');
CREATE FUNCTION pg_temp.cl_label2_text(pg_temp.cl_label2) RETURNS text
  LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN $1 = 'c' THEN 'a' WHEN $1 = 'b' THEN 'b' ELSE 'a' END $$;
CREATE CAST (pg_temp.cl_label2 AS text) WITH FUNCTION pg_temp.cl_label2_text(pg_temp.cl_label2);
CREATE TEMP TABLE cl2 AS
SELECT i, (ARRAY['a', 'b', 'c']::pg_temp.cl_label2[])[1 + i % 3] AS y, (i % 7)::float8 AS x
FROM generate_series(1, 300) i;
SELECT throws_ok($$SELECT gbdt_train('cl2', 'y', ARRAY['x'], NULL, '{"num_round": 2}')$$,
                 '22023', 'target column "y" has distinct values whose text is the same, ''a''',
                 'two values cast to one text: refused, not two classes named ''a''');

CREATE TEMP TABLE ea AS
SELECT i, (i % 2)::float8 AS y,
       CASE WHEN i = 1 THEN '{}'::float8[] ELSE ARRAY[i % 5, i % 3]::float8[] END AS emb
FROM generate_series(1, 200) i;
SELECT throws_ok($$SELECT gbdt_train('ea', 'y', NULL, NULL, '{"num_round": 2}')$$,
                 '2202E', 'array column "emb" has a row of length 0, expected 2 (the length of its first non-empty row)',
                 'an empty first array: the column is read with the length of its later rows, and the empty row refused');
CREATE TEMP TABLE ea2 AS
SELECT i, (i % 2)::float8 AS y, (i % 3)::float8 AS x,
       CASE WHEN i % 2 = 0 THEN '{}'::float8[] END AS emb
FROM generate_series(1, 200) i;
SELECT is(gbdt_model_info(gbdt_train('ea2', 'y', NULL, NULL, '{"num_round": 2}'))->'features',
          '[{"name": "x", "type": "float"}]'::jsonb, 'a column of only NULL and empty arrays is still left out');

CREATE TEMP TABLE cl_part (i int GENERATED ALWAYS AS IDENTITY, y float8, x float8)
  PARTITION BY RANGE (x);
CREATE TEMP TABLE cl_part_low PARTITION OF cl_part FOR VALUES FROM (0) TO (3);
CREATE TEMP TABLE cl_part_high PARTITION OF cl_part FOR VALUES FROM (3) TO (100);
INSERT INTO cl_part (y, x) SELECT g % 2, g % 7 FROM generate_series(0, 500) g;
CREATE TEMP VIEW cl_part_view AS SELECT i AS key, y, x FROM cl_part_low;
SELECT is(gbdt_model_info(gbdt_train('cl_part_low', 'y', NULL, NULL, '{"num_round": 1}'))->'features',
          '[{"name": "x", "type": "float"}]'::jsonb,
          'a partition''s identity column is left out of the default features');
SELECT is(gbdt_model_info(gbdt_train('cl_part_view', 'y', NULL, NULL, '{"num_round": 1}'))->'features',
          '[{"name": "x", "type": "float"}]'::jsonb,
          'so is the column of a view returning it');

CREATE ROLE gbdt_cl_mallory NOLOGIN;
CREATE SCHEMA gbdt_cl AUTHORIZATION gbdt_cl_mallory;
SET LOCAL ROLE gbdt_cl_mallory;
CREATE SEQUENCE gbdt_cl.calls;
CREATE FUNCTION gbdt_cl.planted(pg_catalog.text) RETURNS bool LANGUAGE sql
  AS $$ SELECT pg_catalog.nextval('gbdt_cl.calls') > 0 $$;
CREATE DOMAIN gbdt_cl.text AS pg_catalog.text CHECK (gbdt_cl.planted(VALUE));
-- An inheritance parent: the rows are read through the SQL query.
CREATE TABLE gbdt_cl.t AS
SELECT i, (i % 2)::float8 AS y, CASE WHEN i % 2 = 0 THEN 'p' ELSE 'n' END AS lab,
       (i % 3)::pg_catalog.text AS c, (i % 7)::float8 AS x
FROM generate_series(1, 200) i;
CREATE TABLE gbdt_cl.t_child () INHERITS (gbdt_cl.t);
RESET ROLE;
SET LOCAL search_path = gbdt_cl, pg_catalog, public;
SELECT public.gbdt_train('gbdt_cl.t', 'lab', ARRAY['x', 'c'], NULL, '{"num_round": 1}') IS NOT NULL;
SELECT public.gbdt_train('gbdt_cl.t', 'y', ARRAY['x'], 'rank:ndcg', '{"num_round": 1, "group_column": "c"}') IS NOT NULL;
RESET search_path;
SELECT is((SELECT is_called FROM gbdt_cl.calls), false,
          'a superuser''s training never casts to a domain named text planted before pg_catalog');

SELECT * FROM finish();
ROLLBACK;
