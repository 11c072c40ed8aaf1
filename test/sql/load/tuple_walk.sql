-- A plain table whose columns read are numbers, numerics and
-- text categories, behind or among attributes of variable width (text,
-- numeric, jsonb, a dropped text column), is read in the walked pass
-- (relation_reader.h table_pass_raw, tuple_walk.h): the backend copies
-- whole tuples and the worker walks their attributes, converting numbers
-- and inline numerics and dates and times, and looking up text, char(n),
-- boolean and integer categories.  What the
-- walk leaves (compressed and out-of-line values, NaN and 17-digit
-- numerics, tuples written before the table gained a column with a
-- default, an infinity, a value too long for a category) the backend
-- converts in row order.  Whatever the values, the model is the one
-- trained through a view (the query path) and with gbdt.enable_tuple_walk
-- off (the deformed pass) byte for byte, at nthread 1 and 2; its errors
-- are the row path's.
BEGIN;
SELECT plan(28);

CREATE TEMP TABLE t66 AS
SELECT i AS id,
       'row ' || i AS name,                                          -- text, not read
       ('{"k": ' || i || '}')::jsonb AS doc,                       -- jsonb, not read
       CASE WHEN i % 37 = 0 THEN NULL ELSE (ARRAY['red', 'blue', 'green', 'teal', 'x'])[1 + (i * 7) % 5] END AS color,
       (i % 7)::int2 AS small,
       CASE WHEN i % 29 = 0 THEN NULL WHEN i % 31 = 0 THEN 'NaN'::numeric
            WHEN i % 41 = 0 THEN 1.2345678901234567891::numeric     -- 20 digits: printed and parsed
            ELSE (i % 97)::numeric / 7 END AS num,
       -- 2,800 bytes of a repeated word every 500th row: stored compressed.
       CASE WHEN i % 500 = 0 THEN repeat('long', 700) || (i % 3) ELSE 'short' || (i % 3) END AS big,
       'pad' || (i % 5) AS gone,
       CASE WHEN i % 19 = 0 THEN NULL WHEN i % 23 = 0 THEN 'NaN'::float8 ELSE sin(i) END AS x,
       (i % 5)::float8 / 2 AS w,
       (i * 2654435761 % 1000)::int8 AS n8,
       CASE WHEN i % 3 = 0 THEN true ELSE false END AS b
FROM generate_series(1, 40000) i;
ALTER TABLE t66 DROP COLUMN gone;
ALTER TABLE t66 ADD COLUMN y float8, ADD COLUMN yb int;
UPDATE t66 SET y = CASE WHEN id % 101 = 0 THEN NULL ELSE
                   CASE color WHEN 'red' THEN 0 WHEN 'blue' THEN 2 WHEN 'green' THEN 5 ELSE 1 END
                   + coalesce(x, 0) + coalesce(num, 0) / 10 + (id % 300) / 100.0 END,
               yb = (CASE color WHEN 'blue' THEN 1 ELSE 0 END + coalesce(x, 0) > 0.5)::int;
ANALYZE t66;
CREATE TEMP VIEW v66 AS SELECT * FROM t66;

CREATE FUNCTION pg_temp.m(r text, nt int, extra text DEFAULT '') RETURNS text LANGUAGE sql AS $$
  SELECT gbdt_train(r, 'y', ARRAY['color', 'small', 'num', 'big', 'x', 'n8'], 'reg:squarederror',
                    format('{"num_round": 8, "max_depth": 4, "nthread": %s, "weight_column": "w"%s}', nt, extra)::jsonb)::text $$;
CREATE FUNCTION pg_temp.off(r text, nt int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE m text;
BEGIN
  SET LOCAL gbdt.enable_tuple_walk = off;
  m := pg_temp.m(r, nt);
  RESET gbdt.enable_tuple_walk;
  RETURN m;
END $$;

SELECT is(pg_temp.m('t66', 2), pg_temp.m('v66', 2),
          'text, jsonb and dropped attributes before the features, NULL, NaN, 20-digit and compressed values: the view''s model');
SELECT is(pg_temp.m('t66', 1), pg_temp.m('t66', 2), 'the same bytes at nthread 1 and 2');
SELECT is(pg_temp.m('t66', 2), pg_temp.off('t66', 2), 'the same bytes as the deformed pass (gbdt.enable_tuple_walk off)');
SELECT is((gbdt_model_info(pg_temp.m('t66', 2)::gbdt_model)->'features'->3->>'categories')::int, 6,
          'the compressed values are categories of their own');
SELECT is((SELECT gbdt_train('t66', 'yb', ARRAY['color', 'num', 'x'], 'binary:logistic', '{"num_round": 6, "nthread": 2}')::text),
          (SELECT gbdt_train('v66', 'yb', ARRAY['color', 'num', 'x'], 'binary:logistic', '{"num_round": 6, "nthread": 2}')::text),
          'binary target, no weights: the view''s model');

-- Without a categorical column the backend walks rows too (from the end
-- of the batch it filled, while the worker takes the one before).
CREATE FUNCTION pg_temp.n(r text, nt int, extra text DEFAULT '') RETURNS text LANGUAGE sql AS $$
  SELECT gbdt_train(r, 'y', ARRAY['small', 'num', 'x', 'n8'], 'reg:squarederror',
                    format('{"num_round": 8, "max_depth": 4, "nthread": %s, "weight_column": "w"%s}', nt, extra)::jsonb)::text $$;
SELECT is(pg_temp.n('t66', 2), pg_temp.n('v66', 2), 'numbers and numerics only, two threads: the view''s model');
SELECT is(pg_temp.n('t66', 1), pg_temp.n('t66', 2), 'the same bytes at nthread 1 and 2');
-- gbdt.debug_loader_help: the backend walks every row it may of each batch
-- (up to a row the walk leaves: a compressed or out-of-line value, a NaN
-- numeric), whatever the worker does; in one pass and in three.
SET LOCAL gbdt.debug_loader_help = on;
SELECT is(pg_temp.n('t66', 2), pg_temp.n('v66', 2), 'every row it may walked by the backend (gbdt.debug_loader_help): the view''s model');
SET LOCAL gbdt.enable_one_pass_load = off;
SELECT is(pg_temp.n('t66', 2, ', "bin_sample_rows": 3000'), pg_temp.n('v66', 2, ', "bin_sample_rows": 3000'),
          'every row it may walked by the backend, three passes: the view''s model');
RESET gbdt.enable_one_pass_load;
RESET gbdt.debug_loader_help;

-- Without the one pass: a counting pass, then every row walked with the final codes.
CREATE TEMP TABLE u66 AS SELECT * FROM t66;
SET LOCAL gbdt.enable_one_pass_load = off;
SELECT is(pg_temp.m('u66', 2), pg_temp.m('v66', 2),
          'gbdt.enable_one_pass_load off (a counting pass, a walked pass): the view''s model');
RESET gbdt.enable_one_pass_load;

-- Boolean, char(n) and integer categories, dates, timestamps and
-- intervals are walked too (an enum is not: its text comes from a call).
CREATE TEMP TABLE k66 AS
SELECT id, name,
       CASE WHEN id % 13 = 0 THEN NULL ELSE id % 4 = 0 END AS b,
       (ARRAY['x', 'yy', 'zzz'])[1 + id % 3]::char(4) AS ch,
       (id % 11)::int2 AS zip,
       (id * 7 % 5)::int8 AS big8,
       CASE WHEN id = 77 THEN 'infinity'::date ELSE date '2020-01-01' + (id % 400) END AS d,
       timestamp '2021-03-04 05:06:07.891' + (id % 1000) * interval '37 minutes 11.5 seconds' AS ts,
       timestamptz '2021-03-04 05:06:07+02' + (id % 500) * interval '1 hour' AS tz,
       make_interval(months => id % 3, days => id % 40, secs => (id % 100) * 1.25) AS iv,
       x, y
FROM t66 ORDER BY id;
ANALYZE k66;
CREATE TEMP VIEW kv66 AS SELECT * FROM k66;
CREATE FUNCTION pg_temp.k(r text) RETURNS text LANGUAGE sql AS $$
  SELECT gbdt_train(r, 'y', ARRAY['b', 'ch', 'zip', 'big8', 'ts', 'tz', 'iv', 'x'], 'reg:squarederror',
                    '{"num_round": 6, "max_depth": 4, "nthread": 2, "categorical_features": ["zip", "big8"]}')::text $$;
SELECT is(pg_temp.k('k66'), pg_temp.k('kv66'),
          'boolean, char(4) and integer categories, timestamps and intervals: the view''s model');
SELECT throws_like($$SELECT gbdt_train('k66', 'y', ARRAY['b', 'd', 'x'], NULL, '{"nthread": 2}')$$,
                   '%column "d" contains an infinite date%', 'an infinite date: the row path''s error');

-- Tuples written before a column with a default was added hold fewer
-- attributes (the default is the catalog's): the backend deforms them,
-- the worker walks the others, in one batch.
CREATE TEMP TABLE a66 AS SELECT id, name, color, num, x, y FROM t66 ORDER BY id;
ALTER TABLE a66 ADD COLUMN z numeric DEFAULT 2.5;
UPDATE a66 SET z = (id % 9)::numeric / 4 WHERE id % 3 = 0;
ANALYZE a66;
CREATE TEMP VIEW av66 AS SELECT * FROM a66;
SELECT cmp_ok((SELECT count(*) FROM a66 WHERE z = 2.5), '>', 20000::bigint, 'most rows keep the added column''s default');
SELECT is((SELECT gbdt_train('a66', 'y', ARRAY['color', 'num', 'x', 'z'], 'reg:squarederror', '{"num_round": 6, "nthread": 2}')::text),
          (SELECT gbdt_train('av66', 'y', ARRAY['color', 'num', 'x', 'z'], 'reg:squarederror', '{"num_round": 6, "nthread": 2}')::text),
          'rows without the added column among walked ones: the view''s model');

-- Values stored out of line, uncompressed (STORAGE EXTERNAL), before and
-- among the features: the walk steps over the pointer, or leaves the row
-- to the backend, which reads the TOAST table.
CREATE TEMP TABLE x66 (id int, note text, color text, x float8, y float8);
ALTER TABLE x66 ALTER COLUMN note SET STORAGE EXTERNAL, ALTER COLUMN color SET STORAGE EXTERNAL;
INSERT INTO x66
SELECT id, CASE WHEN id % 300 = 0 THEN repeat(md5(id::text), 90) ELSE 'n' END,
       CASE WHEN id % 700 = 0 THEN repeat(md5(id::text), 90) || (id % 2) ELSE color END, x, y
FROM t66 ORDER BY id;
ANALYZE x66;
CREATE TEMP VIEW xv66 AS SELECT * FROM x66;
SELECT is((SELECT gbdt_train('x66', 'y', ARRAY['color', 'x'], 'reg:squarederror', '{"num_round": 5, "nthread": 2}')::text),
          (SELECT gbdt_train('xv66', 'y', ARRAY['color', 'x'], 'reg:squarederror', '{"num_round": 5, "nthread": 2}')::text),
          'values of 2,881 bytes stored out of line: the view''s model');

-- Errors far past the first batch, each in the row path's order: tables
-- written in id order with a long color (long_len bytes) in row long_id,
-- an infinite numeric in row inf_id and a weight of -2 in row neg_id.
CREATE FUNCTION pg_temp.e(long_id int, long_len int, inf_id int, neg_id int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DROP TABLE IF EXISTS e66;
  CREATE TEMP TABLE e66 AS
  SELECT id, name, CASE WHEN id = long_id THEN repeat('z', long_len) ELSE color END AS color,
         CASE WHEN id = inf_id THEN 'Infinity'::numeric ELSE num END AS num,
         CASE WHEN id = neg_id THEN -2 ELSE w END AS w, x, y
  FROM t66 ORDER BY id;
  ANALYZE e66;
END $$;
SELECT pg_temp.e(30000, 5000, 0, 0);
SELECT throws_ok($$SELECT gbdt_train('e66', 'y', ARRAY['color', 'x'], NULL, '{"nthread": 2}')$$,
                 '54000', 'categorical column "color" has a value of 5000 bytes, more than the limit of 4096 bytes for a category',
                 'a value too long for a category (stored compressed): the error naming the column');
SELECT pg_temp.e(30000, 4097, 0, 0);
SELECT throws_ok($$SELECT gbdt_train('e66', 'y', ARRAY['color', 'x'], NULL, '{"nthread": 1}')$$,
                 '54000', 'categorical column "color" has a value of 4097 bytes, more than the limit of 4096 bytes for a category',
                 'a value too long stored inline: the same at nthread 1');
SELECT pg_temp.e(30000, 4097, 30000, 0);
SELECT throws_like($$SELECT gbdt_train('e66', 'y', ARRAY['color', 'num'], NULL, '{"nthread": 2}')$$,
                   '%column "color" has a value of 4097 bytes%',
                   'a row with a long value and then an infinity: the first column''s error');
SELECT throws_like($$SELECT gbdt_train('e66', 'y', ARRAY['num', 'color'], NULL, '{"nthread": 2}')$$,
                   '%column "num" contains infinity%',
                   'an infinity and then a long value: the first column''s error');
SELECT pg_temp.e(0, 0, 30000, 20000);
SELECT throws_like($$SELECT gbdt_train('e66', 'y', ARRAY['color', 'num'], NULL, '{"nthread": 2, "weight_column": "w"}')$$,
                   '%weight column "w" contains -2%', 'a negative weight before the infinity: the weight error');
SELECT pg_temp.e(0, 0, 20000, 30000);
SELECT throws_like($$SELECT gbdt_train('e66', 'y', ARRAY['color', 'num'], NULL, '{"nthread": 2, "weight_column": "w"}')$$,
                   '%column "num" contains infinity%', 'the infinity before a negative weight: the infinity error');
SELECT throws_like($$SELECT gbdt_train('e66', 'y', ARRAY['x', 'num'], NULL, '{"nthread": 2, "weight_column": "w"}')$$,
                   '%column "num" contains infinity%', 'the same without a categorical column');
SELECT pg_temp.e(0, 0, 30000, 20000);
SELECT throws_like($$SELECT gbdt_train('e66', 'y', ARRAY['x', 'num'], NULL, '{"nthread": 2, "weight_column": "w"}')$$,
                   '%weight column "w" contains -2%', 'a negative weight before the infinity, no categorical column: the weight error');

-- Three passes (a 3000-row cut sample: its rows are picked from the
-- walked rows by their number among the rows with a target): the view's
-- model, and the view's error (the first bad row of the table, sampled or
-- not: every row is converted and its weight checked).
SET LOCAL gbdt.enable_one_pass_load = off;
SELECT is(pg_temp.n('t66', 2, ', "bin_sample_rows": 3000'), pg_temp.n('v66', 2, ', "bin_sample_rows": 3000'),
          'three passes, no categorical column: the view''s model');
SELECT is(pg_temp.m('t66', 2, ', "bin_sample_rows": 3000'), pg_temp.m('v66', 2, ', "bin_sample_rows": 3000'),
          'three passes with categorical columns: the view''s model');
SELECT throws_like($$SELECT gbdt_train('e66', 'y', ARRAY['x', 'num'], NULL, '{"nthread": 2, "weight_column": "w", "bin_sample_rows": 3000}')$$,
                   '%weight column "w" contains -2%', 'three passes, a negative weight before the infinity: the weight error');
SELECT pg_temp.e(0, 0, 20000, 30000);
SELECT throws_like($$SELECT gbdt_train('e66', 'y', ARRAY['x', 'num'], NULL, '{"nthread": 2, "weight_column": "w", "bin_sample_rows": 3000}')$$,
                   '%column "num" contains infinity%', 'three passes, the infinity before a negative weight: the infinity error');
RESET gbdt.enable_one_pass_load;

-- More distinct values than the dictionary takes before its count: the row path's error.
SELECT throws_ok($$SELECT gbdt_train('t66', 'y', ARRAY['name', 'x'], NULL, '{"max_categories": 5, "nthread": 2}')$$,
                 '54000', 'categorical column "name" has at least 1011 distinct values (the read stopped counting there), more than the limit of 5 (max_categories)',
                 'too many distinct values: the error of the view');

SELECT * FROM finish();
ROLLBACK;
