-- Training for each objective, objective inference, the scoring functions
-- agree with each other, NULL labels and NULL features.
BEGIN;
SELECT plan(39);

CREATE TEMP TABLE small AS
SELECT i AS id,
       sin(i)::float8 AS x1,
       cos(i * 0.7)::real AS x2,
       (i % 10)::int AS x3,
       (i % 3 = 0) AS x4,
       round((i * 0.37)::numeric % 5, 2) AS x5,
       (i % 4)::smallint AS x6,
       (i * 7 % 11)::bigint AS x7,
       sin(i) + 0.5 * cos(i * 0.7) + (i % 3 = 0)::int * 0.3 AS y_reg,
       sin(i) + 0.2 * cos(i * 0.7) > 0 AS y_bool,
       (sin(i) + 0.2 * cos(i * 0.7) > 0)::int AS y_int,
       (sin(i) + 0.2 * cos(i * 0.7) > 0)::int::float8 AS y_f01,
       width_bucket(sin(i) + 0.4 * cos(i * 0.7), -1.0, 1.0, 3) - 1 AS y_multi_raw,
       floor(abs(sin(i)) * 4 + (i % 2))::int AS y_count,
       'row ' || i AS note
FROM generate_series(1, 600) i;
UPDATE small SET y_multi_raw = least(greatest(y_multi_raw, 0), 2);
ALTER TABLE small RENAME y_multi_raw TO y_multi;

CREATE TEMP TABLE models AS
SELECT 'reg' AS k, gbdt_train('small', 'y_reg', ARRAY['x1','x2','x3','x4','x5','x6','x7'], NULL, '{"num_round": 20}') AS m
UNION ALL SELECT 'bool', gbdt_train('small', 'y_bool', ARRAY['x1','x2','x3','x4','x5','x6','x7'], NULL, '{"num_round": 20}')
UNION ALL SELECT 'int01', gbdt_train('small', 'y_int', ARRAY['x1','x2','x3','x4','x5','x6','x7'], NULL, '{"num_round": 20}')
UNION ALL SELECT 'f01', gbdt_train('small', 'y_f01', ARRAY['x1','x2','x3','x4','x5','x6','x7'], NULL, '{"num_round": 20}')
UNION ALL SELECT 'multi', gbdt_train('small', 'y_multi', ARRAY['x1','x2','x3','x4','x5','x6','x7'], 'multi:softprob', '{"num_round": 20}')
UNION ALL SELECT 'poisson', gbdt_train('small', 'y_count', ARRAY['x1','x2','x3','x4','x5','x6','x7'], 'count:poisson', '{"num_round": 20}')
UNION ALL SELECT 'multi_param', gbdt_train('small', 'y_multi', ARRAY['x1','x2'], NULL, '{"objective": "multi:softprob", "num_class": 4, "num_round": 3}');
CREATE FUNCTION pg_temp.m(kind text) RETURNS gbdt_model LANGUAGE sql STABLE AS
  $$ SELECT m FROM models WHERE k = kind $$;

-- Objectives: given and inferred.
SELECT is(gbdt_model_info(pg_temp.m('reg'))->>'objective', 'reg:squarederror', 'float target -> reg:squarederror');
SELECT is(gbdt_model_info(pg_temp.m('bool'))->>'objective', 'binary:logistic', 'boolean target -> binary:logistic');
SELECT is(gbdt_model_info(pg_temp.m('int01'))->>'objective', 'binary:logistic', 'integer target with values {0,1} -> binary:logistic');
SELECT is(gbdt_model_info(pg_temp.m('f01'))->>'objective', 'binary:logistic', 'float target with values {0,1} -> binary:logistic');
SELECT is(gbdt_model_info(gbdt_train('small', 'y_multi', ARRAY['x1'], NULL, '{"num_round": 2}'))->>'objective',
          'reg:squarederror', 'integer target with values {0,1,2} -> reg:squarederror (multiclass must be asked for)');
SELECT is(gbdt_model_info(pg_temp.m('multi'))->>'objective', 'multi:softprob', 'multi:softprob as argument');
SELECT is((gbdt_model_info(pg_temp.m('multi'))->>'num_class')::int, 3, 'num_class inferred from the labels');
SELECT is(gbdt_model_info(pg_temp.m('multi_param'))->>'objective', 'multi:softprob', 'objective as parameter');
SELECT is((gbdt_model_info(pg_temp.m('multi_param'))->>'num_class')::int, 4, 'num_class as parameter');
SELECT is(gbdt_model_info(pg_temp.m('poisson'))->>'objective', 'count:poisson', 'count:poisson');
SELECT is(gbdt_model_info(gbdt_train('small', 'y_int', ARRAY['x1'], 'reg:squarederror', '{"num_round": 2}'))->>'objective',
          'reg:squarederror', 'explicit objective wins over inference');

-- Predictions.
SELECT ok((SELECT bool_and(p >= 0 AND p <= 1) FROM (SELECT gbdt_predict(pg_temp.m('bool'), s) AS p FROM small s) q),
          'binary predictions are probabilities in [0, 1]');
SELECT ok((SELECT bool_and(p > 0) FROM (SELECT gbdt_predict(pg_temp.m('poisson'), s) AS p FROM small s) q),
          'poisson predictions are positive');
SELECT ok((SELECT bool_and(p IN (0, 1, 2)) FROM (SELECT gbdt_predict(pg_temp.m('multi'), s) AS p FROM small s) q),
          'multiclass prediction is a class label');
SELECT cmp_ok((SELECT avg(((gbdt_predict(pg_temp.m('bool'), s) > 0.5) = y_bool)::int)::float8 FROM small s), '>', 0.9::float8,
              'binary model fits its training data');
SELECT cmp_ok((SELECT sqrt(avg((gbdt_predict(pg_temp.m('reg'), s) - y_reg) ^ 2)) / stddev_pop(y_reg) FROM small s), '<', 0.5::float8,
              'regression model fits its training data (rmse < 0.5 sd)');
SELECT cmp_ok((SELECT avg((gbdt_predict(pg_temp.m('multi'), s) = y_multi)::int)::float8 FROM small s), '>', 0.8::float8,
              'multiclass model fits its training data');
SELECT is((SELECT count(*)::int FROM small s
           WHERE gbdt_predict(pg_temp.m('bool'), s) IS DISTINCT FROM gbdt_predict(pg_temp.m('int01'), s)),
          0, 'bool and int {0,1} targets give the same model predictions');

-- gbdt_predict(record) = gbdt_predict(float8[]) (features in model order).
SELECT is((SELECT count(*)::int FROM small s
           WHERE gbdt_predict(pg_temp.m(k), s) IS DISTINCT FROM
                 gbdt_predict(pg_temp.m(k), ARRAY[x1, x2, x3, x4::int, x5, x6, x7]::float8[])),
          0, format('gbdt_predict(row) = gbdt_predict(float8[]) for %s', k))
FROM unnest(ARRAY['reg', 'bool', 'multi', 'poisson']) k;

-- gbdt_predict_table matches scalar gbdt_predict.
SELECT is((SELECT count(*)::int FROM small s
           FULL JOIN gbdt_predict_table(pg_temp.m(k), 'small', 'id') t ON t.key = s.id::text
           WHERE t.prediction IS DISTINCT FROM gbdt_predict(pg_temp.m(k), s)),
          0, format('gbdt_predict_table = gbdt_predict for every row (%s)', k))
FROM unnest(ARRAY['reg', 'bool', 'multi', 'poisson']) k;

-- gbdt_predict_proba.
SELECT is((SELECT count(*)::int FROM (
             SELECT s.id, sum(pp.probability) AS total, count(*) AS n
             FROM small s, gbdt_predict_proba(pg_temp.m('multi'), s) pp GROUP BY s.id) q
           WHERE abs(total - 1) > 1e-9 OR n <> 3),
          0, 'multiclass predict_proba: 3 classes summing to 1 on every row');
SELECT is((SELECT count(*)::int FROM (
             SELECT s.id, sum(pp.probability) AS total, count(*) AS n
             FROM small s, gbdt_predict_proba(pg_temp.m('bool'), s) pp GROUP BY s.id) q
           WHERE abs(total - 1) > 1e-9 OR n <> 2),
          0, 'binary predict_proba: 2 classes summing to 1 on every row');
SELECT is((SELECT count(*)::int FROM small s
           WHERE abs((SELECT probability FROM gbdt_predict_proba(pg_temp.m('bool'), s) WHERE class = 1)
                     - gbdt_predict(pg_temp.m('bool'), s)) > 1e-12),
          0, 'binary: P(class 1) from predict_proba = gbdt_predict');
SELECT is((SELECT count(*)::int FROM small s
           WHERE (SELECT class FROM gbdt_predict_proba(pg_temp.m('multi'), s) ORDER BY probability DESC, class LIMIT 1)
                 <> gbdt_predict(pg_temp.m('multi'), s)),
          0, 'multiclass: gbdt_predict is the most probable class');
SELECT is((SELECT array_agg(class ORDER BY class) FROM small s, gbdt_predict_proba(pg_temp.m('multi'), s) WHERE s.id = 1),
          ARRAY[0, 1, 2]::float8[], 'predict_proba classes are the label values');

-- NULL labels are skipped and counted.
CREATE TEMP TABLE with_nulls AS
SELECT x1, x2, x3, CASE WHEN id % 10 = 0 THEN NULL ELSE y_reg END AS y FROM small;
SELECT lives_ok($$CREATE TEMP TABLE m_nulls AS SELECT gbdt_train('with_nulls', 'y', NULL, NULL, '{"num_round": 5}') AS m$$,
                'training with NULL labels works');
SELECT is((gbdt_model_info(m)->>'rows_skipped')::int, 60, 'rows_skipped counts the NULL labels') FROM m_nulls;
SELECT is((gbdt_model_info(m)->>'rows_used')::int, 540, 'rows_used counts the others') FROM m_nulls;

-- NULL (and NaN) features are missing values.
CREATE TEMP TABLE null_feats AS
SELECT CASE WHEN id % 4 = 0 THEN NULL ELSE x1 END AS x1,
       CASE WHEN id % 5 = 0 THEN 'NaN'::float8 ELSE x2 END AS x2,
       CASE WHEN id % 3 = 0 THEN NULL ELSE x4 END AS x4,
       y_bool AS y
FROM small;
SELECT lives_ok($$CREATE TEMP TABLE m_nf AS SELECT gbdt_train('null_feats', 'y', NULL, NULL, '{"num_round": 10}') AS m$$,
                'training with NULL and NaN features works');
SELECT is((SELECT count(*)::int FROM null_feats n, m_nf WHERE gbdt_predict(m_nf.m, n) IS NULL), 0,
          'rows with NULL features get a prediction');
SELECT is((SELECT gbdt_predict(m, ARRAY[NULL, NULL, NULL]::float8[]) = gbdt_predict(m, ARRAY['NaN', 'NaN', 'NaN']::float8[]) FROM m_nf),
          true, 'NULL and NaN are the same missing value in gbdt_predict(float8[])');

-- Default feature list: every column of a supported type except the target.
SELECT is((SELECT array_agg(f->>'name' ORDER BY ord) FROM m_nf, jsonb_array_elements(gbdt_model_info(m)->'features') WITH ORDINALITY a(f, ord)),
          ARRAY['x1', 'x2', 'x4'], 'default features: all columns but the target, in column order');
SELECT is(jsonb_array_length(gbdt_model_info(gbdt_train('small', 'y_reg', NULL, NULL, '{"num_round": 1}'))->'features'),
          12, 'default features: every numeric/bool column but the identifiers id and note (unique per row)');

SELECT * FROM finish();
ROLLBACK;
