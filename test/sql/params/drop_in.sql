-- Parameter dicts pasted from XGBoost and LightGBM train: XGBoost's inert
-- keys are accepted, LightGBM's names map to gbdt's (num_leaves grows
-- leaf-wise, is_unbalance weighs the positives by the class counts), and
-- what cannot be honoured is an error naming the key.  A misspelt key's
-- error suggests the known name in its first line.
BEGIN;
SELECT plan(23);

CREATE TABLE pdi AS
SELECT i AS id, sin(i)::float8 AS x1, cos(i * 0.3)::float8 AS x2, (i % 4)::int AS x3,
       (ARRAY['red', 'green', 'blue'])[1 + i % 3] AS colour,
       (sin(i) + 0.4 * cos(i * 0.3) > 0.9)::int AS y
FROM generate_series(1, 600) i;

-- A dict as xgboost.XGBClassifier(...).get_xgb_params() gives it (NaN as a
-- string: JSON has no NaN).
CREATE TEMP TABLE pm AS
SELECT 'xgb' AS k, gbdt_train('pdi', 'y', ARRAY['x1', 'x2', 'x3', 'colour'], NULL,
  '{"objective": "binary:logistic", "booster": "gbtree", "learning_rate": 0.1, "max_depth": 4,
    "n_estimators": 20, "subsample": 0.8, "colsample_bytree": 0.8, "min_child_weight": 1,
    "gamma": 0, "reg_alpha": 0, "reg_lambda": 1, "scale_pos_weight": 1, "tree_method": "hist",
    "enable_categorical": true, "validate_parameters": true, "disable_default_eval_metric": false,
    "missing": "NaN", "predictor": "auto", "n_jobs": 2, "random_state": 42, "verbosity": 0,
    "silent": false, "eval_metric": "logloss", "max_bin": 256}') AS m;
-- A dict of LightGBM's names.
INSERT INTO pm
SELECT 'lgb', gbdt_train('pdi', 'y', ARRAY['x1', 'x2', 'x3', 'colour'], NULL,
  '{"objective": "binary", "num_leaves": 15, "learning_rate": 0.1, "feature_fraction": 0.9, "bagging_fraction": 0.8,
    "bagging_freq": 1, "lambda_l1": 0.1, "lambda_l2": 1.0, "num_iterations": 20,
    "min_sum_hessian_in_leaf": 0.001, "max_depth": -1, "is_unbalance": true, "verbose": -1,
    "seed": 7}');
CREATE FUNCTION pg_temp.info(kind text) RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT gbdt_model_info(m) FROM pm WHERE k = kind $$;

SELECT is((pg_temp.info('xgb')->'params'->>'num_round')::int, 20, 'xgboost dict trains: n_estimators');
SELECT is((pg_temp.info('xgb')->'params'->>'eta')::float8, 0.1::float8, 'xgboost dict: learning_rate');
SELECT is((pg_temp.info('xgb')->'params'->>'seed')::int, 42, 'xgboost dict: random_state is the seed');
SELECT is((pg_temp.info('lgb')->'params'->>'num_round')::int, 20, 'lightgbm dict trains: num_iterations');
SELECT is(pg_temp.info('lgb')->'params'->>'objective', 'binary:logistic', 'LightGBM objective binary is binary:logistic');
SELECT is(pg_temp.info('lgb')->'params'->>'grow_policy', 'lossguide', 'num_leaves grows leaf-wise (lossguide)');
SELECT is((pg_temp.info('lgb')->'params'->>'max_leaves')::int, 15, 'num_leaves is max_leaves');
SELECT is((pg_temp.info('lgb')->'params'->>'max_depth')::int, 0, 'max_depth -1 is no depth limit');
SELECT is((pg_temp.info('lgb')->'params'->>'colsample_bytree')::float8, 0.9::float8, 'feature_fraction is colsample_bytree');
SELECT is((pg_temp.info('lgb')->'params'->>'subsample')::float8, 0.8::float8, 'bagging_fraction is subsample');
SELECT is((pg_temp.info('lgb')->'params'->>'lambda')::float8, 1.0::float8, 'lambda_l2 is lambda');
SELECT is((pg_temp.info('lgb')->'params'->>'alpha')::float8, 0.1::float8, 'lambda_l1 is alpha');
SELECT is((pg_temp.info('lgb')->'params'->>'scale_pos_weight')::float8,
          (SELECT count(*) FILTER (WHERE y = 0)::float8 / count(*) FILTER (WHERE y = 1) FROM pdi),
          'is_unbalance: scale_pos_weight = negatives / positives of the training rows');

-- What gbdt cannot honour, and conflicts, name the keys.
SELECT throws_ok($$SELECT gbdt_train('pdi', 'y', ARRAY['x1'], NULL, '{"booster": "dart"}')$$, '22023',
                 'parameter "booster" = "dart" is not supported: only gbtree (dart and gblinear are not implemented)',
                 'booster dart refused');
SELECT throws_ok($$SELECT gbdt_train('pdi', 'y', ARRAY['x1'], NULL, '{"missing": 0}')$$, '22023',
                 'parameter "missing" = 0 is not supported: only NaN (NULL and NaN are the missing values; map another sentinel to NULL in a view)',
                 'missing 0 refused');
SELECT throws_ok($$SELECT gbdt_train('pdi', 'y', ARRAY['x1'], NULL, '{"max_dpeth": 3}')$$, '22023',
                 'unknown parameter "max_dpeth" (did you mean "max_depth"?)',
                 'a typo suggests the nearest name in the first line');
SELECT throws_ok($$SELECT gbdt_train('pdi', 'y', ARRAY['x1'], NULL, '{"subsample": 0.5, "bagging_fraction": 0.7}')$$, '22023',
                 'parameters "subsample" and "bagging_fraction" both set subsample: give only one of them',
                 'subsample and bagging_fraction with different values rejected');
SELECT lives_ok($$SELECT gbdt_train('pdi', 'y', ARRAY['x1'], NULL, '{"eta": 0.2, "learning_rate": 0.2, "num_round": 2}')$$,
                'eta and learning_rate with the same value accepted');
SELECT throws_ok($$SELECT gbdt_train('pdi', 'y', ARRAY['x1'], NULL, '{"is_unbalance": true, "scale_pos_weight": 2}')$$, '22023',
                 'parameters "is_unbalance" and "scale_pos_weight" both set the weight of the positive rows: give only one of them',
                 'is_unbalance with scale_pos_weight rejected');
SELECT throws_ok($$SELECT gbdt_train('pdi', 'x1', ARRAY['x2'], NULL, '{"is_unbalance": true, "num_round": 2}')$$, '22023',
                 'parameter "is_unbalance" needs a binary objective, got reg:squarederror',
                 'is_unbalance on a regression (objective inferred) rejected');
SELECT throws_like($$SELECT gbdt_train('pdi', 'y', ARRAY['x1'], NULL, '{"num_leaves": 8, "grow_policy": "depthwise"}')$$,
                   'parameters "num_leaves" and "grow_policy" = "depthwise" conflict%',
                   'num_leaves with grow_policy depthwise rejected');
SELECT throws_like($$SELECT gbdt_train('pdi', 'y', ARRAY['x1'], NULL, '{"min_child_samples": 2.5}')$$,
                   'parameter "min_child_samples" must be an integer%',
                   'min_child_samples (min_data_in_leaf) must be an integer');
SELECT throws_like($$SELECT gbdt_train('pdi', 'y', ARRAY['x1'], NULL, '{"tree_method": "exact"}')$$,
                   'parameter "tree_method" = "exact" is not supported%', 'tree_method exact refused');

SELECT * FROM finish();
ROLLBACK;
