-- Bad input: each case is an error with a message that says what is wrong.
BEGIN;
SELECT plan(32);

CREATE TABLE e_data AS
SELECT i AS id, sin(i)::float8 AS x1, (i % 5)::int AS x2, 'txt' || i AS note,
       (sin(i) > 0)::int AS y, sin(i) * 2 AS yr
FROM generate_series(1, 200) i;
CREATE TEMP TABLE em AS SELECT gbdt_train('e_data', 'y', ARRAY['x1', 'x2'], NULL, '{"num_round": 3}') AS m;

-- Parameters.
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'], NULL, '{"foo": 1}')$$,
                   'unknown parameter "foo"', 'unknown parameter');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'], NULL, '{"max_depth": 0}')$$,
                   '%parameter "max_depth" = 0 is out of range: must be an integer in [1, 16]%', 'max_depth out of range');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'], NULL, '{"eta": 1.5}')$$,
                   '%parameter "eta" = 1.5 is out of range: must be in (0, 1]%', 'eta out of range');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'], NULL, '{"max_bin": 1000}')$$,
                   '%parameter "max_bin" = 1000 is out of range%', 'max_bin out of range');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'], NULL, '{"num_round": 0}')$$,
                   '%parameter "num_round" = 0 is out of range%', 'num_round out of range');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'], NULL, '{"subsample": 0}')$$,
                   '%parameter "subsample" = 0 is out of range%', 'subsample out of range');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'], NULL, '{"nthread": 5000}')$$,
                   '%parameter "nthread" = 5000 is out of range%', 'nthread out of range');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'], NULL, '{"eta": "fast"}')$$,
                   '%parameter "eta"%', 'non-numeric value names the parameter');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'], NULL, '[1, 2]')$$,
                   '%params must be a JSON object%', 'params must be a JSON object (array)');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'], NULL, '"eta"')$$,
                   '%params must be a JSON object%', 'params must be a JSON object (string)');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'], 'rank:nosuch')$$,
                   '%"objective"%rank:nosuch%', 'unsupported objective');

-- Columns.
SELECT throws_like($$SELECT gbdt_train('e_data', 'nope')$$,
                   '%column "nope" of relation "e_data" does not exist%', 'unknown target column');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1', 'nope'])$$,
                   '%column "nope" of relation "e_data" does not exist%', 'unknown feature column');
CREATE TEMP VIEW e_point AS SELECT x1, point(x1, x1) AS pt, y FROM e_data;
SELECT throws_like($$SELECT gbdt_train('e_point', 'y', ARRAY['x1', 'pt'])$$,
                   '%column "pt" has unsupported type point%', 'unsupported feature type named explicitly');
SELECT throws_like($$SELECT gbdt_train('e_data', 'note', ARRAY['x1'], 'reg:squarederror')$$,
                   '%target column "note" is text: objective reg:squarederror needs a numeric target%', 'text target on a regression objective');
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1', 'y'])$$,
                   '%column "y" is the target%', 'target listed as a feature');
SELECT throws_like($$SELECT gbdt_train('no_such_table', 'y')$$,
                   '%relation "no_such_table" does not exist%', 'unknown relation');

-- Data.
CREATE TEMP TABLE e_empty (x1 float8, y float8);
SELECT throws_like($$SELECT gbdt_train('e_empty', 'y')$$, '%has no rows%', 'empty relation');
CREATE TEMP TABLE e_nolabel AS SELECT x1, NULL::float8 AS y FROM e_data;
SELECT throws_like($$SELECT gbdt_train('e_nolabel', 'y')$$,
                   '%all values of target column "y" are NULL%', 'all labels NULL');
CREATE TEMP TABLE e_label2 AS SELECT x1, CASE WHEN id = 7 THEN 2 ELSE y END AS y FROM e_data;
SELECT throws_like($$SELECT gbdt_train('e_label2', 'y', NULL, 'binary:logistic')$$,
                   '%target column "y" has value 2%binary:logistic needs labels 0 or 1%', 'binary:logistic with label 2');
CREATE TEMP TABLE e_inf AS SELECT CASE WHEN id = 9 THEN 'Infinity'::float8 ELSE x1 END AS x1, y FROM e_data;
SELECT throws_like($$SELECT gbdt_train('e_inf', 'y')$$, '%column "x1" contains infinity%', '+Infinity in a feature names the column');
CREATE TEMP TABLE e_ninf AS SELECT x1, CASE WHEN id = 9 THEN '-Infinity'::numeric ELSE x2 END AS x2n, y FROM e_data;
SELECT throws_like($$SELECT gbdt_train('e_ninf', 'y')$$, '%column "x2n" contains infinity%', '-Infinity (numeric) in a feature names the column');
CREATE TEMP TABLE e_yinf AS SELECT x1, CASE WHEN id = 9 THEN 'Infinity'::float8 ELSE yr END AS yr FROM e_data;
SELECT throws_like($$SELECT gbdt_train('e_yinf', 'yr')$$, '%column "yr" contains infinity%', 'Infinity in the target names the column');

-- Model text.
SELECT throws_matching($$SELECT gbdt_predict('gbdt1:AAAA'::gbdt_model, ARRAY[1.0]::float8[])$$,
                       'gbdt|corrupt|model', 'corrupt model text');

-- Model / row mismatch.
CREATE TEMP TABLE e_rows AS SELECT id, x1 FROM e_data;  -- lacks x2
SELECT throws_like($$SELECT gbdt_predict(m, r) FROM em, e_rows r$$, '%"x2"%', 'row lacking a feature: error names it');
SELECT throws_like($$SELECT * FROM gbdt_predict_proba((SELECT m FROM em), (SELECT r FROM e_rows r LIMIT 1))$$,
                   '%"x2"%', 'predict_proba with a row lacking a feature');
SELECT throws_like($$SELECT * FROM gbdt_predict_table((SELECT m FROM em), 'e_rows', 'id')$$,
                   '%"x2"%', 'predict_table on a relation lacking a feature');
SELECT throws_like($$SELECT gbdt_predict(m, ARRAY[1.0]::float8[]) FROM em$$, '%2%', 'float8[] of the wrong length');
SELECT throws_like($$SELECT gbdt_evaluate(m, 'e_data', 'nope') FROM em$$, '%"nope"%', 'evaluate with an unknown target');
SELECT throws_like($$SELECT * FROM gbdt_predict_table((SELECT m FROM em), 'e_data', 'nope')$$, '%"nope"%',
                   'predict_table with an unknown key column');

-- A relation the caller may not read.
CREATE ROLE gbdt_test_noaccess NOLOGIN;
GRANT USAGE ON SCHEMA public TO gbdt_test_noaccess;
SET LOCAL ROLE gbdt_test_noaccess;
SELECT throws_like($$SELECT gbdt_train('e_data', 'y', ARRAY['x1'])$$, '%permission denied%', 'training needs SELECT on the relation');
RESET ROLE;
GRANT SELECT ON em TO gbdt_test_noaccess;
SET LOCAL ROLE gbdt_test_noaccess;
SELECT throws_like($$SELECT * FROM gbdt_predict_table((SELECT m FROM em), 'e_data', 'id')$$, '%permission denied%',
                   'predict_table needs SELECT on the relation');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
