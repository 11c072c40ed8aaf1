-- Accuracy parity with XGBoost.  scripts/test.sh runs
-- test/parity/reference.py first: it splits each dataset (rows whose 1-based
-- line number is a multiple of 5 are the test part), trains XGBoost 3.x
-- (tree_method=hist) with the same parameters and stores its test metrics in
-- parity_reference.  Here gbdt trains on the same *_train tables, scores the
-- *_test tables, and the metrics are computed in SQL, independently of the
-- engine's metric code (and compared with gbdt_evaluate as well).
BEGIN;
SELECT plan(12);

CREATE TEMP TABLE pm AS
SELECT 'higgs' AS d, gbdt_train('higgs_train', 'label', NULL, 'binary:logistic',
                                '{"eta": 0.1, "max_depth": 6, "num_round": 100, "max_bin": 256}') AS m
UNION ALL
SELECT 'multi', gbdt_train('multi_train', 'label', NULL, 'multi:softprob',
                           '{"eta": 0.1, "max_depth": 6, "num_round": 100, "max_bin": 256, "num_class": 5}')
UNION ALL
SELECT 'reg', gbdt_train('reg_train', 'label', NULL, 'reg:squarederror',
                         '{"eta": 0.1, "max_depth": 6, "num_round": 100, "max_bin": 256}');
CREATE FUNCTION pg_temp.m(ds text) RETURNS gbdt_model LANGUAGE sql STABLE AS $$ SELECT m FROM pm WHERE d = ds $$;
CREATE FUNCTION pg_temp.ref(ds text, metric_ text) RETURNS float8 LANGUAGE sql STABLE AS
  $$ SELECT value FROM parity_reference WHERE dataset = ds AND metric = metric_ $$;

-- Predictions on the test parts: batch path, checked against the scalar path.
CREATE TEMP TABLE pred AS
SELECT 'higgs' AS d, t.id, t.label, p.prediction AS p
FROM higgs_test t JOIN gbdt_predict_table(pg_temp.m('higgs'), 'higgs_test', 'id') p ON p.key = t.id::text
UNION ALL
SELECT 'multi', t.id, t.label, p.prediction
FROM multi_test t JOIN gbdt_predict_table(pg_temp.m('multi'), 'multi_test', 'id') p ON p.key = t.id::text
UNION ALL
SELECT 'reg', t.id, t.label, p.prediction
FROM reg_test t JOIN gbdt_predict_table(pg_temp.m('reg'), 'reg_test', 'id') p ON p.key = t.id::text;

SELECT is((SELECT count(*)::int FROM pred), (SELECT (SELECT count(*) FROM higgs_test) + (SELECT count(*) FROM multi_test)
                                                    + (SELECT count(*) FROM reg_test))::int,
          'every test row has a prediction');
SELECT is((SELECT count(*)::int FROM pred JOIN higgs_test t USING (id) WHERE d = 'higgs' AND p IS DISTINCT FROM gbdt_predict(pg_temp.m('higgs'), t)),
          0, 'higgs: gbdt_predict_table = gbdt_predict');

-- AUC by the rank-sum (Mann-Whitney) formula with average ranks for ties.
CREATE TEMP TABLE figures AS
WITH r AS (
  SELECT label, rank() OVER (ORDER BY p) + (count(*) OVER (PARTITION BY p) - 1) / 2.0 AS rk
  FROM pred WHERE d = 'higgs'
)
SELECT 'higgs' AS d, 'auc' AS metric,
       ((sum(rk) FILTER (WHERE label = 1)) - count(*) FILTER (WHERE label = 1) * (count(*) FILTER (WHERE label = 1) + 1) / 2.0)
       / (count(*) FILTER (WHERE label = 1) * count(*) FILTER (WHERE label = 0)) AS value
FROM r
UNION ALL
SELECT 'multi', 'accuracy', avg((p = label)::int) FROM pred WHERE d = 'multi'
UNION ALL
SELECT 'reg', 'rmse', sqrt(avg((p - label) ^ 2)) FROM pred WHERE d = 'reg';

CREATE FUNCTION pg_temp.fig(ds text, metric_ text) RETURNS float8 LANGUAGE sql STABLE AS
  $$ SELECT value::float8 FROM figures WHERE d = ds AND metric = metric_ $$;

SELECT diag(format('parity %-6s %-9s gbdt %s   xgboost %s   diff %s', d, metric,
                   round(value::numeric, 6), round(pg_temp.ref(d, metric)::numeric, 6),
                   round((value - pg_temp.ref(d, metric))::numeric, 6)))
FROM figures ORDER BY d;
SELECT diag(format('parity %-6s mean |gbdt - xgboost| prediction %s, max %s', x.dataset,
                   round(avg(abs(p.p - x.prediction))::numeric, 6), round(max(abs(p.p - x.prediction))::numeric, 6)))
FROM pred p JOIN parity_predictions x ON x.dataset = p.d AND x.id = p.id
WHERE p.d <> 'multi' GROUP BY x.dataset ORDER BY x.dataset;
SELECT diag(format('parity multi  class agreement gbdt vs xgboost %s',
                   round(avg((p.p = x.prediction)::int)::numeric, 4)))
FROM pred p JOIN parity_predictions x ON x.dataset = p.d AND x.id = p.id WHERE p.d = 'multi';

SELECT ok(pg_temp.ref('higgs', 'auc') IS NOT NULL AND pg_temp.ref('multi', 'accuracy') IS NOT NULL
          AND pg_temp.ref('reg', 'rmse') IS NOT NULL, 'XGBoost reference figures are loaded');
SELECT cmp_ok(abs(pg_temp.fig('higgs', 'auc') - pg_temp.ref('higgs', 'auc')), '<=', 0.005::float8,
              'higgs: |AUC(gbdt) - AUC(xgboost)| <= 0.005');
SELECT cmp_ok(abs(pg_temp.fig('multi', 'accuracy') - pg_temp.ref('multi', 'accuracy')), '<=', 0.01::float8,
              'multiclass: |accuracy(gbdt) - accuracy(xgboost)| <= 0.01');
SELECT cmp_ok(abs(pg_temp.fig('reg', 'rmse') / pg_temp.ref('reg', 'rmse') - 1), '<=', 0.02::float8,
              'regression: RMSE(gbdt) within 2% of RMSE(xgboost)');
SELECT cmp_ok(pg_temp.fig('higgs', 'auc'), '>', 0.7::float8, 'higgs: AUC well above chance');

-- gbdt_evaluate agrees with the SQL computation.
SELECT cmp_ok(abs((gbdt_evaluate(pg_temp.m('higgs'), 'higgs_test', 'label')->>'auc')::float8 - pg_temp.fig('higgs', 'auc')),
              '<', 1e-9::float8, 'gbdt_evaluate auc = SQL rank-sum AUC');
SELECT cmp_ok(abs((gbdt_evaluate(pg_temp.m('multi'), 'multi_test', 'label')->>'accuracy')::float8 - pg_temp.fig('multi', 'accuracy')),
              '<', 1e-9::float8, 'gbdt_evaluate accuracy = SQL accuracy');
SELECT cmp_ok(abs((gbdt_evaluate(pg_temp.m('reg'), 'reg_test', 'label')->>'rmse')::float8 - pg_temp.fig('reg', 'rmse')),
              '<', 1e-6::float8, 'gbdt_evaluate rmse = SQL RMSE');
SELECT is((gbdt_evaluate(pg_temp.m('higgs'), 'higgs_test', 'label')->>'rows')::int, (SELECT count(*)::int FROM higgs_test),
          'gbdt_evaluate rows');
SELECT cmp_ok(abs((gbdt_evaluate(pg_temp.m('higgs'), 'higgs_test', 'label')->>'logloss')::float8 - pg_temp.ref('higgs', 'logloss')),
              '<=', 0.01::float8, 'higgs: |logloss(gbdt) - logloss(xgboost)| <= 0.01');

SELECT * FROM finish();
ROLLBACK;
