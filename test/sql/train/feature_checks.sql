-- What the default feature list takes, and the checks of the features and
-- the target: a text column that determines the target gets a WARNING, a
-- column unique per row (text, or an integer key by name or by numbering
-- the rows) is left out of the default list with the reason in the NOTICE
-- (a WARNING when named in features), a view passes its table's serial key
-- through, a classification target with one value is an error, feature
-- arrays must start at subscript 1, and the messages say true counts.
BEGIN;
SELECT plan(26);

\ir ../lib/psql_lines.sql

-- ---- the default feature list (a second session prints the NOTICE and WARNINGs) ----
-- c60: status is the label as text, email is unique, cust_no numbers the
-- rows, region and age are features (both labels in every value).
CREATE TEMP TABLE out60 AS
SELECT * FROM pg_temp.psql_lines(
  'CREATE TEMP TABLE c60 AS SELECT i AS cust_no, ''user'' || i || ''@example.org'' AS email, i % 70 AS age, (i * 7919 % 1000) / 1000.0::float8 AS spend, CASE WHEN i % 10 < 3 THEN ''churned'' ELSE ''active'' END AS status, (i % 10 < 3)::int AS churned, (ARRAY[''north'', ''south'', ''east''])[1 + i % 3] AS region FROM generate_series(1, 2000) i',
  'SELECT 1 FROM (SELECT gbdt_train(''c60'', ''churned'', NULL, NULL, ''{"num_round": 2}'')) s',
  'SELECT gbdt_model_info(gbdt_train(''c60'', ''churned'', ARRAY[''email'', ''cust_no'', ''age''], NULL, ''{"num_round": 2}''))->''features''');
SELECT is((SELECT count(*)::int FROM out60 WHERE line = 'WARNING:  gbdt_train: categorical feature column that determines the target "churned": status (each of its 2 values has a single target value on all of its 2000 rows)'),
          1, 'a text column that determines the target gets a WARNING naming it');
SELECT is((SELECT count(*)::int FROM out60 WHERE line = '4 features: age, spend, status (categorical), region (categorical)'),
          1, 'the default list leaves the identifiers out');
SELECT is((SELECT count(*)::int FROM out60 WHERE line = 'left out: cust_no (numbers the rows: 2000 distinct values from 1 to 2000 in 2000 rows), email (unique per row: 2000 distinct values in 2000 rows)'),
          1, 'NOTICE: a unique text column and an integer column numbering the rows, left out with the reason');
SELECT is((SELECT count(*)::int FROM out60 WHERE line = 'WARNING:  gbdt_train: feature columns with a different value on nearly every row: email (unique per row: 2000 distinct values in 2000 rows), cust_no (numbers the rows: 2000 distinct values from 1 to 2000 in 2000 rows)'),
          1, 'identifiers named in features are kept, with a WARNING naming them');
SELECT is((SELECT count(*)::int FROM out60 WHERE line = '[{"name": "email", "type": "categorical", "categories": 2000}, {"name": "cust_no", "type": "int"}, {"name": "age", "type": "int"}]'),
          1, 'an explicit feature list is never dropped from');
SELECT is((SELECT count(*)::int FROM out60 WHERE line LIKE '%region%determines%' OR line LIKE '%age (%'),
          0, 'columns with both labels in their values are not named');

-- Integer columns: a key by name (id, *_id) that is unique is left out; a
-- unique measurement that does not number the rows stays.
CREATE TEMP TABLE out60b AS
SELECT * FROM pg_temp.psql_lines(
  'CREATE TEMP TABLE k60 AS SELECT i * 37 AS id, i * 101 AS customer_id, i * i AS area, (i * 7919 % 1000)::float8 AS x, (i % 5)::float8 AS y FROM generate_series(1, 500) i',
  'SELECT 1 FROM (SELECT gbdt_train(''k60'', ''y'', NULL, NULL, ''{"num_round": 2}'')) s',
  'CREATE TEMP TABLE small60 AS SELECT i AS id, i::float8 AS x, (i % 2)::float8 AS y FROM generate_series(1, 50) i',
  'SELECT 1 FROM (SELECT gbdt_train(''small60'', ''y'', NULL, NULL, ''{"num_round": 2}'')) s');
SELECT is((SELECT count(*)::int FROM out60b WHERE line = 'left out: id (an identifier: 500 distinct values in 500 rows), customer_id (an identifier: 500 distinct values in 500 rows)'),
          1, 'unique integer columns named as keys are left out');
SELECT is((SELECT count(*)::int FROM out60b WHERE line = '2 features: area, x'), 1,
          'a unique integer column that is not a key by name or numbering stays');
SELECT is((SELECT count(*)::int FROM out60b WHERE line = '2 features: id, x'), 1,
          'fewer than 100 rows say nothing about identifiers: the column stays');

-- Views: the serial key of the table under a view (or under a view of a
-- view, renamed) is left out as it is from the table; an id column of a
-- view over a table without a sequence is left out by name and uniqueness.
CREATE TEMP TABLE out60v AS
SELECT * FROM pg_temp.psql_lines(
  'CREATE TEMP TABLE s60 (id serial, x float8, y float8)',
  'INSERT INTO s60 (x, y) SELECT i % 13, i % 7 FROM generate_series(1, 300) i',
  'CREATE TEMP VIEW s60v AS SELECT id, x, y FROM s60',
  'CREATE TEMP VIEW s60vv AS SELECT id AS row_key, x, y FROM s60v',
  'CREATE TEMP VIEW p60v AS SELECT i * 3 AS id, (i % 13)::float8 AS x, (i % 7)::float8 AS y FROM generate_series(1, 300) i',
  'SELECT 1 FROM (SELECT gbdt_train(''s60v'', ''y'', NULL, NULL, ''{"num_round": 2}'')) s',
  'SELECT 1 FROM (SELECT gbdt_train(''s60vv'', ''y'', NULL, NULL, ''{"num_round": 2}'')) s',
  'SELECT 1 FROM (SELECT gbdt_train(''p60v'', ''y'', NULL, NULL, ''{"num_round": 2}'')) s');
SELECT is((SELECT count(*)::int FROM out60v WHERE line LIKE 'left out: id (serial key of pg_temp_%.s60)'), 1,
          'a view passes its table''s serial key through: left out');
SELECT is((SELECT count(*)::int FROM out60v WHERE line LIKE 'left out: row_key (serial key of pg_temp_%.s60)'), 1,
          'a view of a view, the key renamed: left out');
SELECT is((SELECT count(*)::int FROM out60v WHERE line = 'left out: id (an identifier: 300 distinct values in 300 rows)'), 1,
          'an id column of a view: left out by name and uniqueness');
SELECT is((SELECT count(*)::int FROM out60v WHERE line = '1 feature: x'), 3, 'each view trains on x alone');

-- ---- one-class targets ----
CREATE TABLE one60 AS SELECT (i % 17)::float8 AS x, 0 AS y, true AS b, 2 AS k, 'yes'::text AS t
FROM generate_series(1, 200) i;
SELECT throws_ok($$SELECT gbdt_train('one60', 'y', ARRAY['x'])$$, '22023',
                 'target column "y" has the single value 0 on every row: binary:logistic needs at least 2 classes',
                 'labels all 0 (binary:logistic inferred): an error naming the target and the value');
SELECT throws_ok($$SELECT gbdt_train('one60', 'y', ARRAY['x'], 'binary:logistic')$$, '22023',
                 'target column "y" has the single value 0 on every row: binary:logistic needs at least 2 classes',
                 'binary:logistic given, one class: an error');
SELECT throws_ok($$SELECT gbdt_train('one60', 'b', ARRAY['x'])$$, '22023',
                 'target column "b" has the single value true on every row: binary:logistic needs at least 2 classes',
                 'a boolean target that is always true: an error');
SELECT throws_ok($$SELECT gbdt_train('one60', 'k', ARRAY['x'], 'multi:softprob')$$, '22023',
                 'target column "k" has the single value 2 on every row: multi:softprob needs at least 2 classes',
                 'multi:softprob with a single class: an error');
SELECT throws_ok($$SELECT gbdt_train('one60', 't', ARRAY['x'])$$, '22023',
                 'target column "t" has the single value ''yes'': classification needs at least 2 distinct values',
                 'a text target with one class: an error');
SELECT lives_ok($$SELECT gbdt_train('one60', 'k', ARRAY['x'], 'reg:squarederror', '{"num_round": 2}')$$,
                'a regression on a constant target trains (as XGBoost does)');

-- ---- feature arrays: subscripts from 1 ----
CREATE TABLE arr60 AS SELECT ARRAY[(i % 7)::float8, (i % 5)::float8] AS emb, (i % 7 + i % 5)::float8 AS y
FROM generate_series(1, 100) i;
CREATE TEMP TABLE m60 AS SELECT gbdt_train('arr60', 'y', ARRAY['emb'], NULL, '{"num_round": 5}') AS m;
UPDATE arr60 SET emb = '[0:1]={3,4}'::float8[] WHERE y = 2;
SELECT throws_ok($$SELECT gbdt_train('arr60', 'y', ARRAY['emb'])$$, '2202E',
                 'array column "emb" has a row with subscripts 0..1: feature arrays must start at subscript 1',
                 'training: an array numbered from 0 is an error');
SELECT throws_ok($$SELECT gbdt_predict((SELECT m FROM m60), a) FROM arr60 a WHERE y = 2$$, '2202E',
                 'array column "emb" has a row with subscripts 0..1: feature arrays must start at subscript 1',
                 'scoring: an array numbered from 0 is the same error');
SELECT ok((SELECT gbdt_predict((SELECT m FROM m60), s) FROM (SELECT ('[0:1]={3,4}'::float8[])[:] AS emb) s) =
          (SELECT gbdt_predict((SELECT m FROM m60), s) FROM (SELECT ARRAY[3, 4]::float8[] AS emb) s),
          'a slice renumbers from 1 and scores as the plain array');

-- ---- messages ----
CREATE TABLE neg60 AS SELECT (i % 17)::float8 AS x, CASE WHEN i = 7 THEN -2 ELSE i % 4 END::float8 AS y
FROM generate_series(1, 100) i;
SELECT throws_ok($$SELECT gbdt_train('neg60', 'y', ARRAY['x'], 'count:poisson')$$, '22023',
                 'target column "y" has value -2: count:poisson needs labels >= 0 (counts)',
                 'count:poisson: a space before "(counts)"');
SELECT throws_ok($$SELECT gbdt_train('neg60', 'y', ARRAY['x'], 'reg:squaredlogerror')$$, '22023',
                 'target column "y" has value -2: reg:squaredlogerror needs labels > -1 (log1p of the label must exist); use reg:squarederror for other labels',
                 'reg:squaredlogerror: a space before its reason');
-- 3944 distinct values, max_categories 1000: the read stops at the
-- dictionary's cap (2 x 1000 + 1000 values) and says so.
CREATE TABLE cat60 AS SELECT 'v' || (i % 3944) AS c, (i % 11)::float8 AS x, (i % 2)::float8 AS y
FROM generate_series(1, 8000) i;
SELECT throws_ok($$SELECT gbdt_train('cat60', 'y', ARRAY['c', 'x'], NULL, '{"max_categories": 1000}')$$, '54000',
                 'categorical column "c" has at least 3001 distinct values (the read stopped counting there), more than the limit of 1000 (max_categories)',
                 'a column read past the cap: a true lower bound');
SELECT throws_ok($$SELECT gbdt_train('cat60', 'y', ARRAY['c', 'x'], NULL, '{"max_categories": 3000}')$$, '54000',
                 'categorical column "c" has 3944 distinct values, more than the limit of 3000 (max_categories)',
                 'a column counted whole: the exact count');

SELECT * FROM finish();
ROLLBACK;
