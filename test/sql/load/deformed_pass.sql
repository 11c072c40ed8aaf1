-- A plain table whose tuples cannot be copied raw (categorical
-- text, varchar, char, enum, boolean and integer columns, numeric and date
-- columns) is read in one pass shared by two threads
-- (relation_reader.h table_pass_raw, deformed): the backend deforms each
-- tuple, converts its numbers and copies its categorical values' text, and
-- a worker looks the values up in the dictionaries and stores the rows.
-- Whatever the values (NULLs, compressed text, many batches, one pass or
-- three), the model is the one trained through a view (the query path)
-- byte for byte, at nthread 1 and 2; its errors are the row path's, for the
-- first bad row and, within a row, for the first bad column.
BEGIN;
SELECT plan(21);

CREATE TYPE mood65 AS ENUM ('sad', 'ok', 'happy');
CREATE TEMP TABLE t65 AS
SELECT i AS id,
       CASE WHEN i % 37 = 0 THEN NULL ELSE (ARRAY['red', 'blue', 'green', 'teal', 'x'])[1 + (i * 7) % 5] END AS color,
       ('v' || (i * 13) % 300)::varchar(8) AS v,
       (ARRAY['x', 'yy', 'zzz'])[1 + i % 3]::char(4) AS ch,
       (ARRAY['sad', 'ok', 'happy'])[1 + (i / 3) % 3]::mood65 AS m,
       CASE WHEN i % 13 = 0 THEN NULL ELSE i % 4 = 0 END AS b,
       (i % 11) AS zip,
       -- 2,800 bytes of a repeated word every 500th row: stored compressed.
       CASE WHEN i % 500 = 0 THEN repeat('long', 700) || (i % 3) ELSE 'short' || (i % 3) END AS big,
       (i % 97)::numeric / 7 AS num,
       date '2020-01-01' + (i % 400) AS d,
       CASE WHEN i % 19 = 0 THEN NULL WHEN i % 23 = 0 THEN 'NaN'::float8 ELSE sin(i) END AS x,
       'k' || i AS tag,
       (i % 5)::float8 / 2 AS w
FROM generate_series(1, 40000) i;
ALTER TABLE t65 ADD COLUMN y float8, ADD COLUMN yb int;
UPDATE t65 SET y = CASE WHEN id % 101 = 0 THEN NULL WHEN id % 103 = 0 THEN 'NaN'::float8 ELSE
                   CASE color WHEN 'red' THEN 0 WHEN 'blue' THEN 2 WHEN 'green' THEN 5 ELSE 1 END
                   + CASE m WHEN 'happy' THEN 1 ELSE 0 END + coalesce(x, 0) + (id % 300) / 100.0 END,
               yb = (CASE color WHEN 'blue' THEN 1 ELSE 0 END + coalesce(x, 0) > 0.5)::int;
ANALYZE t65;
CREATE TEMP VIEW v65 AS SELECT * FROM t65;

CREATE FUNCTION pg_temp.m(r text, nt int, extra text DEFAULT '') RETURNS text LANGUAGE sql AS $$
  SELECT gbdt_train(r, 'y', ARRAY['color', 'v', 'ch', 'm', 'b', 'zip', 'big', 'num', 'd', 'x'], 'reg:squarederror',
                    format('{"num_round": 8, "max_depth": 4, "nthread": %s, "weight_column": "w", '
                           '"categorical_features": ["zip"]%s}', nt, extra)::jsonb)::text $$;

SELECT is(pg_temp.m('t65', 2), pg_temp.m('v65', 2),
          'every categorical type, numeric and date columns, NULL, NaN, compressed text, weights: the view''s model');
SELECT is(pg_temp.m('t65', 1), pg_temp.m('t65', 2), 'the same bytes at nthread 1 and 2');
SELECT is((gbdt_model_info(pg_temp.m('t65', 2)::gbdt_model)->'features'->6->>'categories')::int, 6,
          'the compressed values are categories of their own');
SELECT is((SELECT gbdt_train('t65', 'yb', ARRAY['color', 'v', 'x'], 'binary:logistic', '{"num_round": 6, "nthread": 2}')::text),
          (SELECT gbdt_train('v65', 'yb', ARRAY['color', 'v', 'x'], 'binary:logistic', '{"num_round": 6, "nthread": 2}')::text),
          'binary target, no weights: the view''s model');

-- Never analyzed: one pass all the same (the rows estimated from the
-- first page and the pages).
CREATE TEMP TABLE u65 AS SELECT * FROM t65;
SELECT is(pg_temp.m('u65', 2), pg_temp.m('v65', 2), 'a table never analyzed: the view''s model');
-- Without the one pass: a counting pass (which also counts the
-- categories), then every row in a deformed pass with the final codes.
SET LOCAL gbdt.enable_one_pass_load = off;
SELECT is(pg_temp.m('u65', 2), pg_temp.m('v65', 2),
          'gbdt.enable_one_pass_load off (a counting pass, a deformed pass): the view''s model');
RESET gbdt.enable_one_pass_load;
-- An estimate far below the rows and a 3000-row cut sample: a counting
-- pass, a sample pass, and a deformed pass binning every row.  ANALYZE saw
-- 100 live rows among many deleted ones, then the other rows were added.
CREATE TEMP TABLE g65 AS SELECT * FROM t65 WHERE id <= 100;
INSERT INTO g65 SELECT t65.* FROM t65, generate_series(1, 2) WHERE id > 100;
DELETE FROM g65 WHERE id > 100;
ANALYZE g65;
INSERT INTO g65 SELECT * FROM t65 WHERE id > 100;
SELECT cmp_ok((SELECT reltuples / relpages * pg_relation_size('g65') / current_setting('block_size')::int
               FROM pg_class WHERE oid = 'g65'::regclass)::float8 * 2, '<', (SELECT count(*) FROM g65)::float8,
              'the planner estimates g65 at under half its rows');
CREATE TEMP VIEW gv65 AS SELECT * FROM g65;
SELECT is(pg_temp.m('g65', 2, ', "bin_sample_rows": 3000'), pg_temp.m('gv65', 2, ', "bin_sample_rows": 3000'),
          'three passes (an estimate of 100 rows, a 3000-row cut sample): the view''s model');

-- More distinct values than the dictionary takes before its count
-- (2 * max_categories + 1000): the row path's error.
SELECT throws_ok($$SELECT gbdt_train('t65', 'y', ARRAY['tag', 'x'], NULL, '{"max_categories": 5, "nthread": 2}')$$,
                 '54000', 'categorical column "tag" has at least 1011 distinct values (the read stopped counting there), more than the limit of 5 (max_categories)',
                 'too many distinct values: the error of the view');
SELECT throws_ok($$SELECT gbdt_train('v65', 'y', ARRAY['tag', 'x'], NULL, '{"max_categories": 5, "nthread": 2}')$$,
                 '54000', 'categorical column "tag" has at least 1011 distinct values (the read stopped counting there), more than the limit of 5 (max_categories)',
                 'the view''s error, for comparison');

-- Errors far past the first batch, each in the row path's order: tables
-- written in id order with a long color (long_len bytes) in row long_id,
-- an infinite x in row inf_id and a weight of -2 in row neg_id.
CREATE FUNCTION pg_temp.e(long_id int, long_len int, inf_id int, neg_id int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DROP TABLE IF EXISTS e65;
  CREATE TEMP TABLE e65 AS
  SELECT id, CASE WHEN id = long_id THEN repeat('z', long_len) ELSE color END AS color,
         CASE WHEN id = inf_id THEN 'Infinity'::float8 ELSE x END AS x,
         CASE WHEN id = neg_id THEN -2 ELSE w END AS w, y
  FROM t65 ORDER BY id;
  ANALYZE e65;
END $$;
SELECT pg_temp.e(30000, 5000, 0, 0);
SELECT throws_ok($$SELECT gbdt_train('e65', 'y', ARRAY['color', 'x'], NULL, '{"nthread": 2}')$$,
                 '54000', 'categorical column "color" has a value of 5000 bytes, more than the limit of 4096 bytes for a category',
                 'a value too long for a category (stored compressed): the error naming the column');
SELECT throws_ok($$SELECT gbdt_train('e65', 'y', ARRAY['color', 'x'], NULL, '{"nthread": 1}')$$,
                 '54000', 'categorical column "color" has a value of 5000 bytes, more than the limit of 4096 bytes for a category',
                 'the same at nthread 1');
SELECT pg_temp.e(30000, 5000, 30000, 0);
SELECT throws_like($$SELECT gbdt_train('e65', 'y', ARRAY['color', 'x'], NULL, '{"nthread": 2}')$$,
                   '%column "color" has a value of 5000 bytes%',
                   'a row with a long value and then an infinity: the first column''s error');
SELECT throws_like($$SELECT gbdt_train('e65', 'y', ARRAY['x', 'color'], NULL, '{"nthread": 2}')$$,
                   '%column "x" contains infinity%',
                   'an infinity and then a long value: the first column''s error');
SELECT pg_temp.e(0, 0, 30000, 20000);
SELECT throws_like($$SELECT gbdt_train('e65', 'y', ARRAY['color', 'x'], NULL, '{"nthread": 2}')$$,
                   '%column "x" contains infinity%', 'an infinite feature: an error naming the column');
SELECT throws_like($$SELECT gbdt_train('e65', 'y', ARRAY['color', 'x'], NULL, '{"nthread": 2, "weight_column": "w"}')$$,
                   '%weight column "w" contains -2%', 'a negative weight before the infinity: the weight error');
SELECT pg_temp.e(0, 0, 20000, 30000);
SELECT throws_like($$SELECT gbdt_train('e65', 'y', ARRAY['color', 'x'], NULL, '{"nthread": 2, "weight_column": "w"}')$$,
                   '%column "x" contains infinity%', 'the infinity before a negative weight: the infinity error');
SELECT pg_temp.e(20000, 4097, 0, 30000);
SELECT throws_like($$SELECT gbdt_train('e65', 'y', ARRAY['color', 'x'], NULL, '{"nthread": 2, "weight_column": "w"}')$$,
                   '%column "color" has a value of 4097 bytes%', 'a long value before a negative weight: the long value''s error');
SELECT pg_temp.e(30000, 4097, 0, 20000);
SELECT throws_like($$SELECT gbdt_train('e65', 'y', ARRAY['color', 'x'], NULL, '{"nthread": 2, "weight_column": "w"}')$$,
                   '%weight column "w" contains -2%', 'a negative weight before a long value: the weight error');

-- Values stored out of line, uncompressed (STORAGE EXTERNAL): read from
-- the TOAST table by the backend, their text handed to the worker.
CREATE TEMP TABLE x65 (id int, color text, x float8, y float8);
ALTER TABLE x65 ALTER COLUMN color SET STORAGE EXTERNAL;
INSERT INTO x65 SELECT id, CASE WHEN id % 700 = 0 THEN repeat(md5(id::text), 90) || (id % 2) ELSE color END, x, y
FROM t65 ORDER BY id;
ANALYZE x65;
CREATE TEMP VIEW xv65 AS SELECT * FROM x65;
SELECT is((SELECT gbdt_train('x65', 'y', ARRAY['color', 'x'], 'reg:squarederror', '{"num_round": 5, "nthread": 2}')::text),
          (SELECT gbdt_train('xv65', 'y', ARRAY['color', 'x'], 'reg:squarederror', '{"num_round": 5, "nthread": 2}')::text),
          'values of 2,881 bytes stored out of line: the view''s model');

-- A text column before numeric features: no raw layout, the deformed pass.
CREATE TEMP TABLE s65 AS SELECT 'row ' || id AS name, x, num, y FROM t65;
ANALYZE s65;
SELECT is((SELECT gbdt_train('s65', 'y', ARRAY['x', 'num'], 'reg:squarederror', '{"num_round": 5, "nthread": 2}')::text),
          (SELECT gbdt_train('v65', 'y', ARRAY['x', 'num'], 'reg:squarederror', '{"num_round": 5, "nthread": 2}')::text),
          'a text column before numeric features: the view''s model');

SELECT * FROM finish();
ROLLBACK;
