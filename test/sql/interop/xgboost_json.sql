-- XGBoost JSON interop inside SQL: gbdt_export's schema, export -> import
-- round trips, feature names and types both ways, XGBoost's split semantics
-- (x < split_condition goes left, missing follows default_left), base_score,
-- and clear errors for what is not supported.  Parity with Python XGBoost
-- itself (both directions, 1e-6) is test/parity/interop.py, a step of
-- scripts/test.sh.
BEGIN;
SELECT plan(46);

CREATE TEMP TABLE xm AS
SELECT 'bin' AS k, gbdt_train('higgs_train', 'label', NULL, 'binary:logistic', '{"num_round": 8, "max_depth": 4}') AS m
UNION ALL
SELECT 'multi', gbdt_train('multi_train', 'label', NULL, 'multi:softprob', '{"num_round": 4, "max_depth": 3}')
UNION ALL
SELECT 'reg', gbdt_train('reg_train', 'label', NULL, 'reg:squarederror', '{"num_round": 10, "max_depth": 6}');
CREATE FUNCTION pg_temp.m(kind text) RETURNS gbdt_model LANGUAGE sql STABLE AS $$ SELECT m FROM xm WHERE k = kind $$;
CREATE FUNCTION pg_temp.x(kind text) RETURNS jsonb LANGUAGE sql STABLE AS $$ SELECT gbdt_export(m) FROM xm WHERE k = kind $$;
CREATE TEMP TABLE xb AS SELECT k, gbdt_import(gbdt_export(m)) AS m FROM xm;
CREATE FUNCTION pg_temp.back(kind text) RETURNS gbdt_model LANGUAGE sql STABLE AS $$ SELECT m FROM xb WHERE k = kind $$;

-- ---- the exported document ----
SELECT is(jsonb_typeof(pg_temp.x('bin')), 'object', 'gbdt_export returns a JSON object');
SELECT is(pg_temp.x('bin')->'learner'->'gradient_booster'->>'name', 'gbtree', 'booster gbtree');
SELECT is(pg_temp.x('bin')->'learner'->'objective'->>'name', 'binary:logistic', 'objective binary:logistic');
SELECT is(pg_temp.x('multi')->'learner'->'objective'->>'name', 'multi:softprob', 'objective multi:softprob');
SELECT is(pg_temp.x('multi')->'learner'->'learner_model_param'->>'num_class', '5', 'num_class 5');
SELECT is(jsonb_array_length(pg_temp.x('multi')->'learner'->'gradient_booster'->'model'->'trees'), 20,
          'multiclass: 4 rounds x 5 classes = 20 trees');
SELECT is(pg_temp.x('multi')->'learner'->'gradient_booster'->'model'->'tree_info',
          '[0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4]'::jsonb, 'tree_info: class of each tree');
SELECT is(pg_temp.x('bin')->'learner'->'learner_model_param'->>'num_feature', '28', 'num_feature');
SELECT is(pg_temp.x('bin')->'learner'->'feature_names',
          (SELECT jsonb_agg('f' || i ORDER BY i) FROM generate_series(0, 27) i), 'feature names exported');
SELECT ok(pg_temp.x('bin') ? 'version', 'version recorded');
SELECT is((SELECT count(*)::int FROM jsonb_array_elements(pg_temp.x('reg')->'learner'->'gradient_booster'->'model'->'trees') t,
                                     jsonb_array_elements(t->'split_conditions') c
           WHERE c::text !~ '[.eE]'), 0, 'every split condition is written as a float (XGBoost rejects integers there)');
SELECT ok(gbdt_export(pg_temp.m('bin'), 'xgboost-json') = pg_temp.x('bin'), 'format ''xgboost-json'' is the default');
SELECT is(gbdt_export(NULL::gbdt_model), NULL, 'NULL model: NULL');

-- ---- export -> import round trips score identically ----
SELECT is((SELECT count(*)::int FROM higgs_test t
           WHERE abs(gbdt_predict(pg_temp.back('bin'), t) - gbdt_predict(pg_temp.m('bin'), t)) > 1e-6),
          0, 'binary: re-imported model scores the test rows within 1e-6');
SELECT is((SELECT count(*)::int FROM multi_test t,
                  LATERAL (SELECT a.class, a.probability AS p1, b.probability AS p2
                           FROM gbdt_predict_proba(pg_temp.m('multi'), t) a
                           JOIN gbdt_predict_proba(pg_temp.back('multi'), t) b USING (class)) s
           WHERE abs(p1 - p2) > 1e-6),
          0, 'multiclass: re-imported class probabilities within 1e-6');
SELECT is((SELECT count(*)::int FROM reg_test t
           WHERE gbdt_predict(pg_temp.back('reg'), t) IS DISTINCT FROM gbdt_predict(pg_temp.m('reg'), t)),
          0, 'regression with missing values: re-imported predictions identical');
SELECT is((SELECT count(*)::int FROM reg_test t JOIN gbdt_predict_table(pg_temp.back('reg'), 'reg_test', 'id') p
             ON p.key = t.id::text
           WHERE p.prediction IS DISTINCT FROM gbdt_predict(pg_temp.m('reg'), t)),
          0, 'regression: re-imported model through gbdt_predict_table (batch path) identical');
SELECT is((SELECT count(*)::int FROM higgs_test t JOIN gbdt_predict_table(pg_temp.back('bin'), 'higgs_test', 'id') p
             ON p.key = t.id::text
           WHERE abs(p.prediction - gbdt_predict(pg_temp.back('bin'), t)) > 1e-12),
          0, 'binary: batch and row scoring of the re-imported model agree');
SELECT is(gbdt_model_info(pg_temp.back('multi'))->'classes', '[0, 1, 2, 3, 4]'::jsonb, 'multiclass classes after import');
SELECT is((gbdt_model_info(pg_temp.back('reg'))->>'trees')::int, 10, 'tree count after import');

-- ---- feature names and types travel both ways ----
CREATE TABLE named_src AS
SELECT (i % 7)::float8 AS "Target", sin(i)::float8 AS "Col A", (i % 13)::int AS "b-2", (i % 3 = 0) AS "flag ü"
FROM generate_series(1, 400) i;
CREATE TEMP TABLE nm AS SELECT gbdt_train('named_src', 'Target', NULL, 'reg:squarederror', '{"num_round": 5}') AS m;
ALTER TABLE nm ADD COLUMN back gbdt_model;
UPDATE nm SET back = gbdt_import(gbdt_export(m));
SELECT is((SELECT gbdt_export(m)->'learner'->'feature_names' FROM nm), '["Col A", "b-2", "flag ü"]'::jsonb,
          'exported feature names are the column names');
SELECT is((SELECT gbdt_export(m)->'learner'->'feature_types' FROM nm), '["float", "int", "c"]'::jsonb,
          'exported feature types: float, int, categorical (a boolean column)');
SELECT is((SELECT gbdt_model_info(gbdt_import(gbdt_export(m)))->'features' FROM nm),
          (SELECT gbdt_model_info(m)->'features' FROM nm), 'imported names and types equal the original''s');
SELECT is((SELECT count(*)::int FROM named_src t, nm
           WHERE gbdt_predict(nm.back, t) IS DISTINCT FROM gbdt_predict(nm.m, t)),
          0, 'imported model scores rows by column name');

-- ---- hand-written XGBoost documents: split semantics, base_score ----
-- A stump on feature "a": a < 0.5 -> -0.25, else 0.75; missing goes left.
CREATE FUNCTION pg_temp.doc(objective text, base_score text, split_type int DEFAULT 0,
                            booster text DEFAULT 'gbtree', num_target int DEFAULT 1, num_class int DEFAULT 0)
RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT format($j${"learner": {"attributes": {}, "feature_names": ["a"], "feature_types": ["float"],
    "gradient_booster": {"model": {"gbtree_model_param": {"num_parallel_tree": "1", "num_trees": "1"},
      "iteration_indptr": [0, 1], "tree_info": [0],
      "trees": [{"base_weights": [0.1, -0.25, 0.75], "categories": [], "categories_nodes": [],
                 "categories_segments": [], "categories_sizes": [], "default_left": [1, 0, 0], "id": 0,
                 "left_children": [1, -1, -1], "loss_changes": [1.5, 0.0, 0.0], "parents": [2147483647, 0, 0],
                 "right_children": [2, -1, -1], "split_conditions": [0.5, -0.25, 0.75], "split_indices": [0, 0, 0],
                 "split_type": [%s, 0, 0], "sum_hessian": [4.0, 2.0, 2.0],
                 "tree_param": {"num_deleted": "0", "num_feature": "1", "num_nodes": "3", "size_leaf_vector": "1"}}]},
      "name": %s},
    "learner_model_param": {"base_score": %s, "boost_from_average": "1", "num_class": "%s", "num_feature": "1",
                            "num_target": "%s"},
    "objective": {"name": %s, "reg_loss_param": {"scale_pos_weight": "1"}}}, "version": [3, 2, 0]}$j$,
    split_type, to_jsonb(booster), to_jsonb(base_score), num_class, num_target, to_jsonb(objective))::jsonb
$$;
CREATE TEMP TABLE stump AS SELECT gbdt_import(pg_temp.doc('reg:squarederror', '[5E-1]')) AS m;
SELECT is((SELECT gbdt_predict(m, ARRAY[0.4]::float8[]) FROM stump), 0.25::float8, 'x < split_condition goes left');
SELECT is((SELECT gbdt_predict(m, ARRAY[0.5]::float8[]) FROM stump), 1.25::float8, 'x = split_condition goes right');
SELECT is((SELECT gbdt_predict(m, ARRAY[0.6]::float8[]) FROM stump), 1.25::float8, 'x > split_condition goes right');
SELECT is((SELECT gbdt_predict(m, ARRAY['NaN']::float8[]) FROM stump), 0.25::float8, 'missing follows default_left');
SELECT is((SELECT gbdt_predict(m, ARRAY[-1e30]::float8[]) FROM stump), 0.25::float8, 'very small value goes left');
SELECT is((SELECT gbdt_predict(gbdt_import(pg_temp.doc('reg:squarederror', '0.5')), ARRAY[0.6]::float8[])),
          1.25::float8, 'scalar base_score form (XGBoost < 3)');
SELECT is((SELECT gbdt_model_info(m)->'features'->0->>'name' FROM stump), 'a', 'feature name from the document');
SELECT cmp_ok((SELECT abs(gbdt_predict(gbdt_import(pg_temp.doc('binary:logistic', '[2.5E-1]')), ARRAY[0.6]::float8[])
                          - 1 / (1 + exp(-(ln(0.25 / 0.75) + 0.75))))),
              '<', 1e-7::float8, 'binary: base_score is a probability, margin = logit(base_score)');
SELECT cmp_ok((SELECT abs(gbdt_predict(gbdt_import(pg_temp.doc('count:poisson', '[2E0]')), ARRAY[0.4]::float8[])
                          - exp(ln(2) - 0.25))),
              '<', 1e-6::float8, 'poisson: margin = log(base_score)');
SELECT is((SELECT (gbdt_export(m)->'learner'->'gradient_booster'->'model'->'trees'->0->'split_conditions')
           FROM stump), '[0.5, -0.25, 0.75]'::jsonb, 'split conditions and leaf values export unchanged');

-- ---- unsupported and malformed documents ----
SELECT throws_ok($$SELECT gbdt_import(pg_temp.doc('reg:squarederror', '0.5', 0, 'gblinear'))$$, '0A000',
                 'XGBoost model not supported: booster "gblinear" (only gbtree)', 'gblinear is not supported');
SELECT throws_ok($$SELECT gbdt_import(pg_temp.doc('reg:squarederror', '0.5', 0, 'dart'))$$, '0A000',
                 'XGBoost model not supported: booster "dart" (only gbtree)', 'dart is not supported');
SELECT throws_like($$SELECT gbdt_import(pg_temp.doc('reg:logistic', '0.5'))$$,
                   'XGBoost model not supported: objective "reg:logistic"%', 'other objectives are not supported');
SELECT throws_like($$SELECT gbdt_import(pg_temp.doc('reg:squarederror', '0.5', 1))$$,
                   '%splits feature "a" by categories, but its feature type is not "c"%',
                   'a categorical split on a feature not typed "c"');
SELECT throws_ok($$SELECT gbdt_import(pg_temp.doc('reg:squarederror', '0.5', 0, 'gbtree', 2))$$, '0A000',
                 'XGBoost model not supported: multi-target models (num_target > 1)', 'multi-target is not supported');
SELECT throws_ok($$SELECT gbdt_import('{"version": [3, 0, 0]}')$$, '22023',
                 'invalid XGBoost JSON model: missing "learner" in the model', 'missing learner');
SELECT throws_ok($$SELECT gbdt_import('[1, 2]')$$, '22023',
                 'invalid XGBoost JSON model: the top level is not an object', 'not an object');
SELECT throws_like($$SELECT gbdt_import(replace(pg_temp.doc('reg:squarederror', '0.5')::text,
                                                '"right_children": [2, -1, -1]', '"right_children": [7, -1, -1]')::jsonb)$$,
                   'invalid XGBoost JSON model: tree 0: child index out of range%', 'child index out of range');
SELECT throws_like($$SELECT gbdt_import(replace(pg_temp.doc('reg:squarederror', '0.5')::text,
                                                '"split_indices": [0, 0, 0]', '"split_indices": [3, 0, 0]')::jsonb)$$,
                   'invalid XGBoost JSON model: tree 0: split feature 3 out of range%', 'feature index out of range');
SELECT throws_like($$SELECT gbdt_import(pg_temp.doc('binary:logistic', '[1.5E0]'))$$,
                   '%base_score must be in (0, 1) for binary:logistic%', 'binary base_score outside (0, 1)');
SELECT throws_ok($$SELECT gbdt_import(pg_temp.doc('reg:squarederror', '0.5'), 'onnx')$$, '22023',
                 'model format "onnx" is not supported', 'unknown import format');
SELECT throws_ok($$SELECT gbdt_export(pg_temp.m('bin'), 'pmml')$$, '22023',
                 'model format "pmml" is not supported', 'unknown export format');

SELECT * FROM finish();
ROLLBACK;
