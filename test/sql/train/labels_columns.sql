-- Labels and columns: text/enum/bool targets are classes by name,
-- numeric labels of a classification objective are mapped to their distinct
-- values, one NOTICE tells the objective and the features, the weight
-- column, date/time columns as features, and the errors of each.
BEGIN;
SELECT plan(49);

\ir ../lib/psql_lines.sql

CREATE TYPE mood46 AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE l46 (id serial PRIMARY KEY, x1 float8, x2 int, d date, ts timestamptz, iv interval,
                  txt text, m mood46, b bool, r int, r10 int, w float8, note text);
INSERT INTO l46 (x1, x2, d, ts, iv, txt, m, b, r, r10, w, note)
SELECT i % 17 * 0.5, i % 5, date '2020-01-01' + i % 30,
       timestamptz '2020-01-01 00:00+00' + (i % 40) * interval '1 hour', (i % 9) * interval '1 day',
       CASE WHEN i % 17 < 8 THEN '<=50K' ELSE '>50K' END,
       (ARRAY['happy', 'sad', 'ok']::mood46[])[1 + i % 5 % 3], i % 17 >= 8, 1 + i % 5, 10 * (i % 5),
       1 + i % 3, 'n' || i
FROM generate_series(1, 600) i;
CREATE TEMP TABLE m46 (k text PRIMARY KEY, m gbdt_model);
INSERT INTO m46 VALUES
  ('txt', gbdt_train('l46', 'txt', NULL, NULL, '{"num_round": 10}')),
  ('enum', gbdt_train('l46', 'm', ARRAY['x2'], NULL, '{"num_round": 5}')),
  ('bool', gbdt_train('l46', 'b', ARRAY['x1'], NULL, '{"num_round": 5}')),
  ('r', gbdt_train('l46', 'r', ARRAY['x2'], 'multi:softprob', '{"num_round": 5}')),
  ('r10', gbdt_train('l46', 'r10', ARRAY['x2'], 'multi:softprob', '{"num_round": 5}')),
  ('r10bin', gbdt_train('l46', 'b', ARRAY['x1'], NULL, '{"num_round": 5, "weight_column": "w"}')),
  ('dates', gbdt_train('l46', 'x1', ARRAY['d', 'ts', 'iv'], NULL, '{"num_round": 20}'));
CREATE FUNCTION pg_temp.m(text) RETURNS gbdt_model LANGUAGE sql AS $$ SELECT m FROM m46 WHERE k = $1 $$;

-- Text labels.
SELECT is(gbdt_model_info(pg_temp.m('txt'))->>'objective', 'binary:logistic', 'text target with 2 values: binary:logistic');
SELECT is(gbdt_model_info(pg_temp.m('txt'))->'class_names', '["<=50K", ">50K"]'::jsonb, 'text target: class names in sorted order');
SELECT ok((SELECT avg((gbdt_predict_class(pg_temp.m('txt'), l) = l.txt)::int) FROM l46 l) > 0.95, 'gbdt_predict_class returns the text label');
SELECT is((SELECT array_agg(class_name ORDER BY class) FROM l46 l, gbdt_predict_proba(pg_temp.m('txt'), l) WHERE l.id = 1),
          ARRAY['<=50K', '>50K'], 'gbdt_predict_proba names the classes');
SELECT ok((SELECT bool_and(abs(gbdt_predict(pg_temp.m('txt'), l) - p.probability) < 1e-12)
           FROM l46 l, gbdt_predict_proba(pg_temp.m('txt'), l) p WHERE p.class_name = '>50K'),
          'binary: gbdt_predict is P(second class)');
SELECT is(gbdt_model_info(pg_temp.m('enum'))->'class_names', '["sad", "ok", "happy"]'::jsonb, 'enum target: classes in declaration order');
SELECT is(gbdt_model_info(pg_temp.m('enum'))->>'objective', 'multi:softprob', 'enum target with 3 values: multi:softprob');
SELECT is(gbdt_model_info(pg_temp.m('bool'))->'class_names', '["false", "true"]'::jsonb, 'bool target: class names false, true');
SELECT ok((SELECT avg((gbdt_predict_class(pg_temp.m('bool'), l) = l.b::text)::int) FROM l46 l) > 0.95, 'bool: predicted class names');

-- Numeric labels of a classification objective: the distinct values.
SELECT is(gbdt_model_info(pg_temp.m('r'))->'classes', '[1, 2, 3, 4, 5]'::jsonb, 'labels 1..5: 5 classes with their values');
SELECT is((gbdt_model_info(pg_temp.m('r10'))->>'num_class')::int, 5, 'labels 0/10/20/30/40: 5 classes');
SELECT ok((SELECT bool_and(gbdt_predict(pg_temp.m('r10'), l) IN (0, 10, 20, 30, 40)) FROM l46 l), 'multiclass predictions are label values');
SELECT ok((SELECT avg((gbdt_predict(pg_temp.m('r'), l) = l.r)::int) FROM l46 l) > 0.99, 'labels 1..5 learned (x2 determines r)');
SELECT is((SELECT array_agg(class_name ORDER BY class) FROM l46 l, gbdt_predict_proba(pg_temp.m('r10'), l) WHERE l.id = 1),
          ARRAY['0', '10', '20', '30', '40'], 'numeric classes: class_name is the value');
SELECT is(gbdt_model_info(pg_temp.m('r'))->'class_names', NULL, 'numeric labels store no class names');

-- Errors about labels.
SELECT throws_like($$SELECT gbdt_train('l46', 'txt', ARRAY['x1'], 'reg:squarederror')$$,
                   '%target column "txt" is text: objective reg:squarederror needs a numeric target%', 'text target on a regression objective');
SELECT throws_like($$SELECT gbdt_train('l46', 'm', ARRAY['x1'], 'binary:logistic')$$,
                   '%target column "m" has 3 distinct values%binary:logistic needs exactly 2%', 'binary:logistic with 3 text classes');
SELECT throws_like($$SELECT gbdt_train('l46', 'txt', ARRAY['x1'], 'multi:softprob', '{"num_class": 3}')$$,
                   '%"num_class" = 3 but target column "txt" has 2 distinct values%', 'num_class disagreeing with the text classes');
CREATE TEMP TABLE one46 AS SELECT x1, 'a'::text AS t FROM l46;
SELECT throws_like($$SELECT gbdt_train('one46', 't')$$, '%target column "t" has the single value ''a''%', 'a single class is an error');
SELECT throws_like($$SELECT gbdt_predict_class(pg_temp.m('dates'), l) FROM l46 l$$, '%the model is not a classifier%', 'gbdt_predict_class on a regression');

-- Weights.
SELECT is(gbdt_model_info(pg_temp.m('r10bin'))->'params'->>'weight_column', 'w', 'weight_column is kept in the model''s params');
SELECT ok(NOT (gbdt_model_info(gbdt_train('l46', 'r', NULL, NULL, '{"num_round": 1, "weight_column": "w"}'))->'features' @> '[{"name": "w"}]'),
          'the weight column is not a default feature');
SELECT throws_like($$SELECT gbdt_train('l46', 'r', ARRAY['x1', 'w'], NULL, '{"weight_column": "w"}')$$,
                   '%column "w" is the weight column and cannot also be a feature%', 'weight column listed as a feature');
CREATE TEMP TABLE wneg AS SELECT x1, r, CASE WHEN id = 7 THEN -2 ELSE w END AS w FROM l46;
SELECT throws_like($$SELECT gbdt_train('wneg', 'r', ARRAY['x1'], NULL, '{"weight_column": "w"}')$$,
                   '%weight column "w" contains -2: weights must be finite and >= 0%', 'negative weight');
CREATE TEMP TABLE wnull AS SELECT x1, r, CASE WHEN id = 7 THEN NULL ELSE w END AS w FROM l46;
SELECT throws_like($$SELECT gbdt_train('wnull', 'r', ARRAY['x1'], NULL, '{"weight_column": "w"}')$$,
                   '%weight column "w" contains NULL%', 'NULL weight');
CREATE TEMP TABLE wnan AS SELECT x1, r, CASE WHEN id = 7 THEN 'NaN'::float8 ELSE w END AS w FROM l46;
SELECT throws_like($$SELECT gbdt_train('wnan', 'r', ARRAY['x1'], NULL, '{"weight_column": "w"}')$$,
                   '%weight column "w" contains NaN: weights must be finite and >= 0%', 'NaN weight');
CREATE TEMP TABLE wzero AS SELECT x1, r, 0::float8 AS w FROM l46;
SELECT throws_like($$SELECT gbdt_train('wzero', 'r', ARRAY['x1'], NULL, '{"weight_column": "w"}')$$,
                   '%weight column "w" is 0 on every row%', 'all-zero weights');
SELECT throws_like($$SELECT gbdt_train('l46', 'r', ARRAY['x1'], NULL, '{"weight_column": "nope"}')$$,
                   '%column "nope" of relation "l46" does not exist%', 'unknown weight column');
-- The weights reach the engine (XGBoost's semantics): a row of weight 0 is
-- as if it were not there, in the trees, the intercept and the metrics.
CREATE TEMP TABLE w46 AS SELECT id, x1, x2, r, (id % 2)::float8 AS w0, w FROM l46;
CREATE TEMP TABLE w46half AS SELECT id, x1, x2, r FROM w46 WHERE w0 = 1;
INSERT INTO m46 VALUES
  ('w0', gbdt_train('w46', 'r', ARRAY['x1', 'x2'], 'reg:squarederror', '{"num_round": 10, "weight_column": "w0"}')),
  ('half', gbdt_train('w46half', 'r', ARRAY['x1', 'x2'], 'reg:squarederror', '{"num_round": 10}')),
  ('unw', gbdt_train('w46', 'r', ARRAY['x1', 'x2'], 'reg:squarederror', '{"num_round": 10}')),
  ('w13', gbdt_train('w46', 'r', ARRAY['x1', 'x2'], 'reg:squarederror', '{"num_round": 10, "weight_column": "w"}'));
SELECT ok((SELECT max(abs(gbdt_predict(pg_temp.m('w0'), t) - gbdt_predict(pg_temp.m('half'), t))) FROM w46 t) < 1e-5,
          'weight 0 on half the rows: the model trained without those rows');
SELECT ok((SELECT max(abs(gbdt_predict(pg_temp.m('w13'), t) - gbdt_predict(pg_temp.m('unw'), t))) FROM w46 t) > 1e-3,
          'weights 1..3 change the predictions');
SELECT ok(abs((gbdt_model_info(pg_temp.m('w0'))->>'base_score')::float8 - (SELECT avg(r) FROM w46half)) < 1e-5,
          'the intercept is the weighted label mean');
SELECT ok(abs((gbdt_model_info(pg_temp.m('w0'))->>'train_metric')::float8
              - (gbdt_model_info(pg_temp.m('half'))->>'train_metric')::float8) < 1e-5,
          'the training metric leaves out rows of weight 0');
SELECT ok(abs((gbdt_model_info(pg_temp.m('w13'))->>'train_metric')::float8
              - (SELECT sqrt(sum(w * (gbdt_predict(pg_temp.m('w13'), t) - r) ^ 2) / sum(w)) FROM w46 t)) < 1e-4,
          'the training rmse is weighted (XGBoost''s weighted metrics)');

-- Date and time columns: days since 1970-01-01.
SELECT is(gbdt_model_info(pg_temp.m('dates'))->'features', '[{"name": "d", "type": "float"}, {"name": "ts", "type": "float"}, {"name": "iv", "type": "float"}]'::jsonb,
          'date, timestamptz and interval columns are features');
CREATE TEMP TABLE dd AS SELECT date '1970-01-01' + i AS d, (i >= 50)::int AS y FROM generate_series(0, 99) i;
SELECT is((SELECT (gbdt_trees(gbdt_train('dd', 'y', NULL, NULL, '{"num_round": 1, "max_depth": 1}'))).threshold LIMIT 1), 50::float8,
          'a date splits at days since 1970-01-01');
CREATE TEMP TABLE dinf AS SELECT CASE WHEN id = 3 THEN 'infinity'::date ELSE d END AS d, x1 FROM l46;
SELECT throws_like($$SELECT gbdt_train('dinf', 'x1')$$, '%column "d" contains an infinite date%', 'infinite date');
SELECT ok((SELECT count(DISTINCT gbdt_predict(pg_temp.m('dates'), l)) FROM l46 l) > 5, 'scoring reads date/time columns the same way');

-- Array columns: one feature per element, name[i].
CREATE TEMP TABLE a46 AS
SELECT i AS k, ARRAY[i % 7, i % 3, (i % 5) * 0.5]::float8[] AS emb, ARRAY[i % 2]::int[] AS ia,
       (i % 7) + (i % 3) AS y
FROM generate_series(1, 300) i;
UPDATE a46 SET emb = NULL WHERE k = 5;
INSERT INTO m46 VALUES ('arr', gbdt_train('a46', 'y', ARRAY['emb', 'ia'], NULL, '{"num_round": 50}'));
SELECT is(gbdt_model_info(pg_temp.m('arr'))->'features',
          '[{"name": "emb[1]", "type": "float"}, {"name": "emb[2]", "type": "float"}, {"name": "emb[3]", "type": "float"}, {"name": "ia[1]", "type": "int"}]'::jsonb,
          'float8[] and int[] columns expand to one feature per element');
SELECT ok((SELECT max(abs(gbdt_predict(pg_temp.m('arr'), a) - a.y)) FROM a46 a WHERE emb IS NOT NULL) < 0.01,
          'gbdt_predict(model, row) expands the array column the same way');
SELECT is((SELECT gbdt_predict(pg_temp.m('arr'), a) FROM a46 a WHERE k = 5),
          gbdt_predict(pg_temp.m('arr'), ARRAY[NULL, NULL, NULL, 1]::float8[]), 'a NULL array is missing values');
SELECT throws_like($$SELECT gbdt_predict(pg_temp.m('arr'), s) FROM (SELECT ARRAY[1, 2]::float8[] AS emb, ARRAY[1] AS ia) s$$,
                   '%array column "emb" has a row of length 2, expected 3%', 'scoring: an array of another length');
CREATE TEMP TABLE a46bad AS SELECT * FROM a46;
INSERT INTO a46bad VALUES (1000, ARRAY[1, 2]::float8[], ARRAY[1], 3);
SELECT throws_like($$SELECT gbdt_train('a46bad', 'y', ARRAY['emb'])$$,
                   '%array column "emb" has a row of length 2, expected 3 (the length of its first non-empty row)%', 'arrays of unequal length');

-- The NOTICE (a second session: it prints it).
CREATE TEMP TABLE out46 AS
SELECT * FROM pg_temp.psql_lines(
  'CREATE TEMP TABLE n46 (id serial PRIMARY KEY, k int GENERATED ALWAYS AS IDENTITY, x float8, pt point, note text, c int, rating int, rcopy int)',
  'INSERT INTO n46 (x, pt, note, c, rating, rcopy) SELECT i % 7, point(i, i), ''a'', 3, 1 + i % 5, CASE WHEN i = 50 THEN 0 ELSE 1 + i % 5 END FROM generate_series(1, 200) i',
  'SELECT 1 FROM (SELECT gbdt_train(''n46'', ''rating'', NULL, NULL, ''{"num_round": 1}'')) s',
  'SELECT gbdt_model_info(gbdt_train(''n46'', ''rating'', ARRAY[''x'', ''c''], NULL, ''{"num_round": 1}''))->''features''');
SELECT is((SELECT count(*)::int FROM out46 WHERE line LIKE '%NOTICE:  gbdt_train: objective reg:squarederror: target "rating" is numeric with 5 distinct integer values 1..5; pass objective => ''multi:softprob'' to classify'),
          2, 'NOTICE: the objective and why');
SELECT is((SELECT count(*)::int FROM out46 WHERE line = '2 features: x, rcopy'), 1, 'NOTICE: the features taken');
SELECT is((SELECT count(*)::int FROM out46 WHERE line = 'left out: id (serial key), k (identity column), pt (type point), note (constant), c (constant)'), 1,
          'NOTICE: serial and identity keys, unsupported and constant columns (a constant text column is categorical) left out, with the reason');
SELECT is((SELECT count(*)::int FROM out46 WHERE line LIKE '%NOTICE:%'), 2, 'one NOTICE per training');
SELECT is((SELECT count(*)::int FROM out46 WHERE line = 'WARNING:  gbdt_train: feature column nearly equal to the target "rating": rcopy (equal to the target on 99.5% of the rows)'), 1,
          'a column that nearly copies the target is named in a WARNING');
SELECT is((SELECT count(*)::int FROM out46 WHERE line = '[{"name": "x", "type": "float"}, {"name": "c", "type": "int"}]'), 1,
          'an explicit feature list keeps a constant column');

-- Nothing left behind after an error: the session trains as before.
SELECT lives_ok($$SELECT gbdt_train('l46', 'txt', ARRAY['x1'], NULL, '{"num_round": 2}')$$, 'training after the errors');

SELECT * FROM finish();
ROLLBACK;
