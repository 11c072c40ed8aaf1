-- Identical training rows (same bins, label, weight, initial
-- margin) are trained once with their count (row_dedup, on by default).
-- The model is the same, byte for byte, as training on every row; the
-- parameter turns it off; with subsample < 1 it does not apply.
BEGIN;
SELECT plan(9);
\ir ../lib/psql_lines.sql

-- 6000 rows of about 400 distinct ones: few levels per column, NULLs, a
-- text column, a weight with 3 values.
CREATE TEMP TABLE rd54 AS
SELECT i, (i * 7) % 5 AS a, ((i * 13) % 11)::float8 / 2 AS b,
       CASE WHEN i % 9 = 0 THEN NULL ELSE (i * 3) % 4 END AS c,
       (ARRAY['red', 'green', 'blue'])[1 + (i * 5) % 3] AS colour,
       ((i * 7) % 5 + (i * 3) % 4 + (i / 3) % 2 > 4)::int AS y,
       ((i * 7) % 5 * 0.5 + ((i * 13) % 11) % 3 - (i / 7) % 2)::float8 AS r,
       ((i * 7) % 5 + (i / 5) % 2) % 3 AS k,
       1 + (i * 11) % 3 AS w
FROM generate_series(1, 6000) i;

CREATE TEMP TABLE m54 AS
SELECT name, gbdt_train('rd54', target, ARRAY['a', 'b', 'c', 'colour'], obj,
                        p || jsonb_build_object('row_dedup', dd)) AS m, dd
FROM (VALUES ('binary', 'y', 'binary:logistic',
              '{"num_round": 15, "eval_metric": "logloss,auc", "validation_fraction": 0.2}'::jsonb),
             ('weighted', 'r', 'reg:squarederror', '{"num_round": 15, "weight_column": "w", "nthread": 2}'::jsonb),
             ('multiclass', 'k', 'multi:softprob', '{"num_round": 8}'::jsonb),
             ('sampled', 'y', 'binary:logistic', '{"num_round": 8, "subsample": 0.7, "seed": 3}'::jsonb)) AS c(name, target, obj, p),
     (VALUES (true), (false)) AS d(dd);

SELECT is((SELECT m::text FROM m54 WHERE name = x.name AND dd),
          (SELECT m::text FROM m54 WHERE name = x.name AND NOT dd),
          format('%s: the same model bytes with and without row_dedup', x.name))
FROM (VALUES ('binary'), ('weighted'), ('multiclass'), ('sampled')) AS x(name);

-- The default is on: the same bytes as row_dedup true.
SELECT is(gbdt_train('rd54', 'k', ARRAY['a', 'b', 'c', 'colour'], 'multi:softprob', '{"num_round": 8}')::text,
          (SELECT m::text FROM m54 WHERE name = 'multiclass' AND dd), 'row_dedup is on by default');

-- Not recorded among the model's parameters (how to train, not what).
SELECT ok(NOT (gbdt_model_info((SELECT m FROM m54 WHERE name = 'binary' AND NOT dd))::text
               LIKE '%row_dedup%'), 'row_dedup is not recorded in the model');

-- verbose says when it applies.
CREATE TEMP TABLE out54 AS
SELECT * FROM pg_temp.psql_lines(
  'CREATE TEMP TABLE v54 AS SELECT i % 5 AS a, (i % 7)::float8 AS b, (i % 3 = 0)::int AS y FROM generate_series(1, 3000) i',
  'SELECT 1 FROM (SELECT gbdt_train(''v54'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 2, "verbose": true}'')) s',
  'SELECT 2 FROM (SELECT gbdt_train(''v54'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 2, "verbose": true, "row_dedup": false}'')) s',
  'SELECT 3 FROM (SELECT gbdt_train(''v54'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 2, "verbose": true, "subsample": 0.5}'')) s');
SELECT is((SELECT count(*)::int FROM out54 WHERE line LIKE '%NOTICE:%training on 70 distinct rows of 3000'),
          1, 'verbose: a NOTICE gives the distinct rows trained on');
SELECT is((SELECT count(*)::int FROM out54 WHERE line LIKE '%distinct rows%'),
          1, 'no such NOTICE with row_dedup false or subsample < 1');

SELECT throws_like($$SELECT gbdt_train('rd54', 'y', ARRAY['a'], NULL, '{"row_dedup": "sometimes"}')$$,
                   '%parameter "row_dedup" must be a boolean (true or false), got "sometimes"%',
                   'row_dedup must be a boolean');

SELECT * FROM finish();
ROLLBACK;
