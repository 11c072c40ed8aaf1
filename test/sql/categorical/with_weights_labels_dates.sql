-- Categorical features together with weights, ranking and validation: a text
-- feature is categorical while a text target is a class label, with a
-- weight column and date features; the training NOTICE marks categorical
-- features; a ranking group column next to a text feature; every scoring
-- function reads the categories; a validation_relation reads them through
-- the training's dictionaries (categorical/scoring_validation_arrays.sql has more); init_model and
-- array columns with categorical features work (train/feature_combinations.sql).
BEGIN;
SELECT plan(15);

\ir ../lib/psql_lines.sql

CREATE TABLE c47 (id serial PRIMARY KEY, colour text, d date, x float8, w float8, qid int,
                  label text, y float8, rel int, emb float8[]);
INSERT INTO c47 (colour, d, x, w, qid, label, y, rel, emb)
SELECT (ARRAY['red', 'green', 'blue', 'cyan', 'pink'])[1 + i % 5], date '2021-01-01' + i % 40,
       (i % 13) * 0.25, 1 + i % 2, i % 30,
       CASE WHEN i % 5 IN (0, 3) THEN 'yes' ELSE 'no' END,
       CASE WHEN i % 5 IN (0, 3) THEN 10.0 ELSE 0.0 END + (i % 13) * 0.1,
       CASE WHEN i % 5 IN (0, 3) THEN 2 ELSE i % 2 END,
       ARRAY[i % 7, i % 3]::float8[]
FROM generate_series(1, 600) i;
CREATE TEMP TABLE m47 (k text PRIMARY KEY, m gbdt_model);
INSERT INTO m47 VALUES
  ('cls', gbdt_train('c47', 'label', ARRAY['colour', 'd', 'x'], NULL,
                     '{"num_round": 10, "weight_column": "w"}')),
  ('reg', gbdt_train('c47', 'y', ARRAY['colour', 'd', 'x'], NULL, '{"num_round": 20}')),
  ('rank', gbdt_train('c47', 'rel', ARRAY['colour', 'x'], 'rank:ndcg',
                      '{"group_column": "qid", "num_round": 10}'));
CREATE FUNCTION pg_temp.m(text) RETURNS gbdt_model LANGUAGE sql AS $$ SELECT m FROM m47 WHERE k = $1 $$;

SELECT is(gbdt_model_info(pg_temp.m('cls'))->'features'->0->>'type', 'categorical',
          'text feature with a text target: the feature is categorical');
SELECT is(gbdt_model_info(pg_temp.m('cls'))->>'objective', 'binary:logistic',
          'text target with a categorical feature: a class label');
SELECT is(gbdt_model_info(pg_temp.m('cls'))->'features'->1->>'type', 'float',
          'date feature next to a categorical one');
SELECT ok((SELECT bool_and((gbdt_predict(pg_temp.m('cls'), c) > 0.5) = (label = 'yes'))
           FROM c47 c), 'the categorical split separates the classes (gbdt_predict)');
SELECT ok((SELECT max(abs(gbdt_predict(pg_temp.m('reg'), c) - c.y)) FROM c47 c) < 0.5,
          'regression on category + date + float');
SELECT ok((SELECT max(abs(p.prediction - gbdt_predict(pg_temp.m('reg'), c)))
           FROM gbdt_predict_table(pg_temp.m('reg'), 'c47', 'id') p JOIN c47 c ON c.id::text = p.key) < 1e-9,
          'gbdt_predict_table reads the categories and dates as gbdt_predict does');
SELECT ok((gbdt_evaluate(pg_temp.m('reg'), 'c47', 'y')->>'rmse')::float8 < 0.5,
          'gbdt_evaluate reads the categories');
SELECT is(gbdt_model_info(pg_temp.m('rank'))->'features'->0->>'type', 'categorical',
          'ranking with group_column and a categorical feature');
SELECT ok((gbdt_evaluate(pg_temp.m('rank'), 'c47', 'rel', 'qid')->>'ndcg@10')::float8 > 0.9,
          'gbdt_evaluate with group_column reads the categories');

-- both work now (train/feature_combinations.sql checks them in depth).
SELECT is((SELECT (gbdt_model_info(gbdt_train('c47', 'y', NULL, NULL, '{"num_round": 2}',
                                              pg_temp.m('reg')))->>'rounds')::int), 22,
          'init_model with categorical features continues');
SELECT is((SELECT jsonb_array_length(gbdt_model_info(gbdt_train('c47', 'y', ARRAY['colour', 'emb'], NULL,
                                                                 '{"num_round": 2}'))->'features')), 3,
          'categorical and array features in one training');
SELECT ok((SELECT abs((gbdt_model_info(m)->'validation_history'->>1)::float8
                      - (gbdt_evaluate(m, 'c47', 'y')->>'rmse')::float8) < 1e-5
           FROM (SELECT gbdt_train('c47', 'y', ARRAY['colour', 'x'], NULL,
                                   '{"num_round": 2, "validation_relation": "c47"}') AS m) s),
          'validation_relation with categorical features: read through the training''s dictionaries');

-- The NOTICE (a second session prints it).
CREATE TEMP TABLE out47 AS
SELECT * FROM pg_temp.psql_lines(
  'CREATE TEMP TABLE n47 (id serial PRIMARY KEY, colour text, tag text, x float8, y float8)',
  'INSERT INTO n47 (colour, tag, x, y) SELECT (ARRAY[''a'', ''b'', ''c''])[1 + i % 3], ''same'', i % 7, i % 3 FROM generate_series(1, 300) i',
  'SELECT 1 FROM (SELECT gbdt_train(''n47'', ''y'', NULL, ''reg:squarederror'', ''{"num_round": 1}'')) s');
SELECT is((SELECT count(*)::int FROM out47 WHERE line = '2 features: colour (categorical), x'), 1,
          'NOTICE: categorical features are taken, marked categorical');
SELECT is((SELECT count(*)::int FROM out47 WHERE line = 'left out: id (serial key), tag (constant)'), 1,
          'NOTICE: a constant categorical column is left out');
SELECT is((SELECT count(*)::int FROM out47 WHERE line LIKE '%WARNING:%nearly equal to the target%'), 0,
          'no near-target warning for category codes that happen to equal the target');

SELECT * FROM finish();
ROLLBACK;
