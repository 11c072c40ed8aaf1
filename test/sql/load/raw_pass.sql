-- A plain table of plain numbers (bool columns are categorical, read by
-- the row path), analyzed, is read in one raw pass
-- (relation_reader.h table_pass_raw): the backend copies each tuple's bytes
-- and a worker decodes batches of them into the float columns.  Whatever
-- the layout (NULLs, NaN, every plain type, weights, a column added after
-- rows were written, a dropped column, more rows than a batch), the model
-- is the one trained through a view (the query path) byte for byte, at
-- nthread 1 and 2; its errors are the row path's, for the first bad row.
BEGIN;
SELECT plan(19);

CREATE TEMP TABLE t64 AS
SELECT i AS id,
       CASE WHEN i % 17 = 0 THEN NULL WHEN i % 23 = 0 THEN 'NaN'::float8 ELSE sin(i) * 3 END AS a,
       (cos(i * 0.7) * 100)::float4 AS b,
       (i % 300 - 150)::int2 AS c,
       (i % 41)::int4 AS c4,
       CASE WHEN i % 29 = 0 THEN NULL ELSE (i::int8 * 2654435761) % 1000003 END AS d,
       CASE WHEN i % 31 = 0 THEN NULL ELSE i % 3 = 0 END AS e,
       (i % 5)::float8 / 2 AS w,
       CASE WHEN i % 101 = 0 THEN NULL WHEN i % 103 = 0 THEN 'NaN'::float8
            ELSE sin(i) * 3 + (i % 300) / 100.0 + (i % 3) END AS y,
       (sin(i) + (i % 300) / 150.0 > 1)::int AS yb
FROM generate_series(1, 40000) i;
ANALYZE t64;
CREATE TEMP VIEW v64 AS SELECT * FROM t64;

CREATE TEMP TABLE m64 AS
SELECT r, nt, gbdt_train(r, 'y', ARRAY['a', 'b', 'c', 'c4', 'd'], 'reg:squarederror',
                         format('{"num_round": 8, "max_depth": 4, "nthread": %s, "weight_column": "w"}', nt)::jsonb)::text AS m
FROM (VALUES ('t64'), ('v64')) AS r(r), (VALUES (1), (2)) AS n(nt);

SELECT is((SELECT m FROM m64 WHERE r = 't64' AND nt = 2), (SELECT m FROM m64 WHERE r = 'v64' AND nt = 2),
          'every plain type, NULL and NaN values and targets, weights: the model trained through a view');
SELECT is((SELECT m FROM m64 WHERE r = 't64' AND nt = 1), (SELECT m FROM m64 WHERE r = 't64' AND nt = 2),
          'the same bytes at nthread 1 and 2');
SELECT is((SELECT gbdt_train('t64', 'yb', ARRAY['a', 'b', 'c', 'c4', 'd'], 'binary:logistic', '{"num_round": 6}')::text),
          (SELECT gbdt_train('v64', 'yb', ARRAY['a', 'b', 'c', 'c4', 'd'], 'binary:logistic', '{"num_round": 6}')::text),
          'binary target, no weights: the view''s model');

-- Never analyzed: one raw pass all the same (the rows estimated from the
-- first page and the pages).
CREATE TEMP TABLE u64 AS SELECT * FROM t64;
SELECT is((SELECT gbdt_train('u64', 'y', ARRAY['a', 'b', 'c', 'c4', 'd'], 'reg:squarederror',
                             '{"num_round": 6, "nthread": 2, "weight_column": "w"}')::text),
          (SELECT gbdt_train('v64', 'y', ARRAY['a', 'b', 'c', 'c4', 'd'], 'reg:squarederror',
                             '{"num_round": 6, "nthread": 2, "weight_column": "w"}')::text),
          'a table never analyzed: the view''s model');
-- Without the one pass: a counting pass, then every row in a raw pass
-- into floats of that count.
SET LOCAL gbdt.enable_one_pass_load = off;
SELECT is((SELECT gbdt_train('u64', 'y', ARRAY['a', 'b', 'c', 'c4', 'd'], 'reg:squarederror',
                             '{"num_round": 6, "nthread": 2, "weight_column": "w"}')::text),
          (SELECT gbdt_train('v64', 'y', ARRAY['a', 'b', 'c', 'c4', 'd'], 'reg:squarederror',
                             '{"num_round": 6, "nthread": 2, "weight_column": "w"}')::text),
          'gbdt.enable_one_pass_load off (a counting pass, a raw pass): the view''s model');
RESET gbdt.enable_one_pass_load;
-- An estimate far below the rows and a 3000-row cut sample: the one pass
-- gives up after the sample's rows, a sample pass reads the cut sample and
-- a raw pass bins every row.  ANALYZE saw 100 live rows among many deleted
-- ones (few rows per page), then the other rows were added.
CREATE TEMP TABLE g64 AS SELECT * FROM t64 WHERE id <= 100;
INSERT INTO g64 SELECT t64.* FROM t64, generate_series(1, 2) WHERE id > 100;
DELETE FROM g64 WHERE id > 100;
ANALYZE g64;
INSERT INTO g64 SELECT * FROM t64 WHERE id > 100;
SELECT cmp_ok((SELECT reltuples / relpages * pg_relation_size('g64') / current_setting('block_size')::int
               FROM pg_class WHERE oid = 'g64'::regclass)::float8 * 2, '<', (SELECT count(*) FROM g64)::float8,
              'the planner estimates g64 at under half its rows');
SELECT is((SELECT gbdt_train('g64', 'y', ARRAY['a', 'b', 'c', 'c4', 'd'], 'reg:squarederror',
                             '{"num_round": 6, "nthread": 2, "weight_column": "w", "bin_sample_rows": 3000}')::text),
          (SELECT gbdt_train('v64', 'y', ARRAY['a', 'b', 'c', 'c4', 'd'], 'reg:squarederror',
                             '{"num_round": 6, "nthread": 2, "weight_column": "w", "bin_sample_rows": 3000}')::text),
          'three passes (an estimate of 100 rows, a 3000-row cut sample): the view''s model');

-- A column added with a default after the rows were written: the old
-- tuples lack it (deformed by the backend), the new ones have it.
DROP VIEW v64;
ALTER TABLE t64 ADD COLUMN late float8 DEFAULT 1.5;
CREATE TEMP VIEW v64 AS SELECT * FROM t64;
INSERT INTO t64 (id, a, b, c, d, e, w, y, yb, late)
SELECT i, sin(i), i % 7, 1, i, true, 1, cos(i) + (i % 4), i % 2, (i % 9) / 3.0 FROM generate_series(40001, 43000) i;
ANALYZE t64;
SELECT is((SELECT gbdt_train('t64', 'y', ARRAY['a', 'late', 'b'], 'reg:squarederror', '{"num_round": 6, "nthread": 2}')::text),
          (SELECT gbdt_train('v64', 'y', ARRAY['a', 'late', 'b'], 'reg:squarederror', '{"num_round": 6, "nthread": 2}')::text),
          'a column added after rows were written (its default in the old rows): the view''s model');
SELECT is((gbdt_model_info(gbdt_train('t64', 'y', ARRAY['late'], 'reg:squarederror', '{"num_round": 2}'))->>'rows_used')::int,
          (SELECT count(*)::int FROM t64 WHERE y IS NOT NULL AND y <> 'NaN'),
          'every row with a target is used');
-- The target among the added columns, read in passes: the counting and the
-- sample's pass read it from the tuple (heap_getattr), the old tuples' default
-- included.
SET LOCAL gbdt.enable_one_pass_load = off;
SELECT is((SELECT gbdt_train('t64', 'late', ARRAY['a', 'b'], 'reg:squarederror', '{"num_round": 4, "bin_sample_rows": 5000}')::text),
          (SELECT gbdt_train('v64', 'late', ARRAY['a', 'b'], 'reg:squarederror', '{"num_round": 4, "bin_sample_rows": 5000}')::text),
          'an added column as the target, in three passes: the view''s model');
RESET gbdt.enable_one_pass_load;
-- The backend decodes the rows of each batch it fills while the worker
-- takes the one before, as far as timing lets it; gbdt.debug_loader_help
-- makes it decode every row of every batch (the old tuples without the
-- added column among them, converted at copy time), in one pass and in
-- three.
SET LOCAL gbdt.debug_loader_help = on;
SELECT is((SELECT gbdt_train('t64', 'y', ARRAY['a', 'late', 'b', 'c4', 'd'], 'reg:squarederror', '{"num_round": 4, "nthread": 2, "weight_column": "w"}')::text),
          (SELECT gbdt_train('v64', 'y', ARRAY['a', 'late', 'b', 'c4', 'd'], 'reg:squarederror', '{"num_round": 4, "nthread": 2, "weight_column": "w"}')::text),
          'every row decoded by the backend (gbdt.debug_loader_help), one pass: the view''s model');
SET LOCAL gbdt.enable_one_pass_load = off;
SELECT is((SELECT gbdt_train('t64', 'y', ARRAY['a', 'late', 'b', 'c4', 'd'], 'reg:squarederror', '{"num_round": 4, "nthread": 2, "weight_column": "w", "bin_sample_rows": 5000}')::text),
          (SELECT gbdt_train('v64', 'y', ARRAY['a', 'late', 'b', 'c4', 'd'], 'reg:squarederror', '{"num_round": 4, "nthread": 2, "weight_column": "w", "bin_sample_rows": 5000}')::text),
          'every row decoded by the backend, three passes: the view''s model');
RESET gbdt.enable_one_pass_load;
RESET gbdt.debug_loader_help;

-- A dropped column before the ones read.
DROP VIEW v64;
ALTER TABLE t64 DROP COLUMN c;
CREATE TEMP VIEW v64 AS SELECT * FROM t64;
SELECT is((SELECT gbdt_train('t64', 'y', ARRAY['a', 'b', 'd', 'late'], 'reg:squarederror',
                             '{"num_round": 6, "nthread": 2, "weight_column": "w"}')::text),
          (SELECT gbdt_train('v64', 'y', ARRAY['a', 'b', 'd', 'late'], 'reg:squarederror',
                             '{"num_round": 6, "nthread": 2, "weight_column": "w"}')::text),
          'a dropped column before the columns read: the view''s model');

-- A text column before the features: no raw layout, the row path.
CREATE TEMP TABLE s64 AS SELECT 'row ' || id AS name, a, b, y FROM t64;
ANALYZE s64;
SELECT is((SELECT gbdt_train('s64', 'y', ARRAY['a', 'b'], 'reg:squarederror', '{"num_round": 5}')::text),
          (SELECT gbdt_train('v64', 'y', ARRAY['a', 'b'], 'reg:squarederror', '{"num_round": 5}')::text),
          'a text column before the features (the row path): the same model');

-- Errors, far past the first batch: the row path's messages.
UPDATE t64 SET b = 'Infinity' WHERE id = 35000;
SELECT throws_like($$SELECT gbdt_train('t64', 'y', ARRAY['a', 'b'], 'reg:squarederror', '{"nthread": 2}')$$,
                   '%column "b" contains infinity%', 'an infinite feature: an error naming the column');
UPDATE t64 SET b = 1, a = 1e39 WHERE id = 35000;
SELECT throws_like($$SELECT gbdt_train('t64', 'y', ARRAY['a', 'b'], 'reg:squarederror', '{"nthread": 2}')$$,
                   '%column "a" contains a value out of range for single precision%',
                   'a float8 beyond the float4 range: an error naming the column');
UPDATE t64 SET a = 1 WHERE id = 35000;
UPDATE t64 SET y = '-Infinity' WHERE id = 36001;
SELECT throws_like($$SELECT gbdt_train('t64', 'y', ARRAY['a', 'b'], 'reg:squarederror', '{"nthread": 2}')$$,
                   '%target column "y" contains infinity%', 'an infinite target: an error naming the target');
UPDATE t64 SET y = 1, w = -2 WHERE id = 36001;
SELECT throws_like($$SELECT gbdt_train('t64', 'y', ARRAY['a', 'b'], 'reg:squarederror', '{"nthread": 2, "weight_column": "w"}')$$,
                   '%weight column "w" contains -2%', 'a negative weight: the weight error');
UPDATE t64 SET w = NULL WHERE id = 36001;
SELECT throws_like($$SELECT gbdt_train('t64', 'y', ARRAY['a', 'b'], 'reg:squarederror', '{"nthread": 1, "weight_column": "w"}')$$,
                   '%weight column "w" contains NULL%', 'a NULL weight: the weight error');

SELECT * FROM finish();
ROLLBACK;
