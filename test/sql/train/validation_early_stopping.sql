-- Validation and early stopping: validation_fraction (deterministic split by
-- seed), early_stopping_rounds (the model keeps the best iteration),
-- eval_metric (every supported metric, defaults per objective), the history
-- in gbdt_model_info, and the registry's use of the kept iteration's value.
BEGIN;
SELECT plan(36);

CREATE VIEW v_pois AS SELECT floor(abs(label))::float8 AS label, f0, f1, f2, f3, f4, f5 FROM reg_train;

CREATE TEMP TABLE vm AS
SELECT metric, obj, gbdt_train(rel, 'label', NULL, obj,
                               jsonb_build_object('num_round', 6, 'max_depth', 3, 'validation_fraction', 0.25,
                                                  'eval_metric', metric)) AS m
FROM (VALUES ('rmse', 'reg_train', 'reg:squarederror'), ('mae', 'reg_train', 'reg:squarederror'),
             ('logloss', 'higgs_train', 'binary:logistic'), ('auc', 'higgs_train', 'binary:logistic'),
             ('error', 'higgs_train', 'binary:logistic'),
             ('mlogloss', 'multi_train', 'multi:softprob'), ('merror', 'multi_train', 'multi:softprob'),
             ('poisson-nloglik', 'v_pois', 'count:poisson')) v(metric, rel, obj);

-- ---- every metric: recorded, one value per round, plausible range ----
SELECT is((SELECT array_agg(metric ORDER BY metric) FROM vm WHERE gbdt_model_info(m)->>'eval_metric' = metric),
          ARRAY['auc', 'error', 'logloss', 'mae', 'merror', 'mlogloss', 'poisson-nloglik', 'rmse'],
          'eval_metric recorded for each of the 8 metrics');
SELECT is((SELECT count(*)::int FROM vm WHERE jsonb_array_length(gbdt_model_info(m)->'validation_history') = 6), 8,
          'validation history: one value per round');
SELECT is((SELECT count(*)::int FROM vm, jsonb_array_elements(gbdt_model_info(m)->'validation_history') h
           WHERE jsonb_typeof(h) <> 'number'), 0, 'history values are numbers');
SELECT is((SELECT count(*)::int FROM vm, jsonb_array_elements_text(gbdt_model_info(m)->'validation_history') h
           WHERE metric IN ('auc', 'error', 'merror') AND NOT (h::float8 BETWEEN 0 AND 1)), 0,
          'auc, error, merror lie in [0, 1]');
SELECT cmp_ok((SELECT (gbdt_model_info(m)->'validation_history'->>5)::float8 FROM vm WHERE metric = 'auc'), '>', 0.65::float8,
              'higgs validation AUC well above chance');
SELECT cmp_ok((SELECT (gbdt_model_info(m)->'validation_history'->>5)::float8 FROM vm WHERE metric = 'rmse'), '<',
              (SELECT (gbdt_model_info(m)->'validation_history'->>0)::float8 FROM vm WHERE metric = 'rmse'),
              'validation rmse falls over the rounds');
SELECT cmp_ok((SELECT (gbdt_model_info(m)->'validation_history'->>5)::float8 FROM vm WHERE metric = 'mlogloss'), '<',
              ln(5)::float8, 'validation mlogloss below chance (ln 5)');
SELECT is((SELECT count(*)::int FROM vm WHERE gbdt_model_info(m)->'best_iteration' <> 'null'::jsonb), 0,
          'no best_iteration without early stopping');
SELECT is((SELECT count(*)::int FROM vm WHERE (gbdt_model_info(m)->>'rounds')::int <> 6), 0,
          'without early stopping every round is kept');

-- Defaults per objective.
CREATE TEMP TABLE dm AS
SELECT obj, gbdt_train(rel, 'label', NULL, obj, '{"num_round": 2, "validation_fraction": 0.2}') AS m
FROM (VALUES ('reg_train', 'reg:squarederror'), ('higgs_train', 'binary:logistic'),
             ('multi_train', 'multi:softprob'), ('v_pois', 'count:poisson')) v(rel, obj);
SELECT is((SELECT jsonb_object_agg(obj, gbdt_model_info(m)->>'eval_metric') FROM dm),
          '{"reg:squarederror": "rmse", "binary:logistic": "logloss", "multi:softprob": "mlogloss",
            "count:poisson": "poisson-nloglik"}'::jsonb, 'default eval_metric per objective (as XGBoost)');

-- ---- the split: deterministic by seed, about the asked fraction ----
SELECT is((SELECT (gbdt_model_info(m)->>'rows_used')::int + (gbdt_model_info(m)->>'rows_validation')::int
           FROM vm WHERE metric = 'rmse'), (SELECT count(*)::int FROM reg_train), 'rows used + validation = all rows');
SELECT cmp_ok((SELECT abs((gbdt_model_info(m)->>'rows_validation')::float8 / (SELECT count(*) FROM reg_train) - 0.25)
               FROM vm WHERE metric = 'rmse'), '<', 0.02::float8, 'validation part about 25% of the rows');
SELECT is((SELECT m::text FROM vm WHERE metric = 'rmse'),
          gbdt_train('reg_train', 'label', NULL, 'reg:squarederror',
                     '{"num_round": 6, "max_depth": 3, "validation_fraction": 0.25, "eval_metric": "rmse"}')::text,
          'same seed: byte-identical model (same split)');
SELECT isnt((SELECT gbdt_model_info(m)->'validation_history' FROM vm WHERE metric = 'rmse'),
            gbdt_model_info(gbdt_train('reg_train', 'label', NULL, 'reg:squarederror',
                            '{"num_round": 6, "max_depth": 3, "validation_fraction": 0.25, "eval_metric": "rmse", "seed": 11}'))
              ->'validation_history',
            'another seed: another split');
SELECT is((SELECT gbdt_model_info(m)->'validation_history' FROM vm WHERE metric = 'rmse'),
          gbdt_model_info(gbdt_train('reg_train', 'label', NULL, 'reg:squarederror',
                          '{"num_round": 6, "max_depth": 3, "validation_fraction": 0.25, "eval_metric": "rmse", "nthread": 1}'))
            ->'validation_history',
          'history independent of the thread count');

-- ---- early stopping keeps the best iteration ----
CREATE TEMP TABLE es AS
SELECT 'rmse' AS k, gbdt_train('reg_train', 'label', NULL, 'reg:squarederror',
                               '{"num_round": 500, "eta": 0.5, "max_depth": 6, "validation_fraction": 0.2,
                                 "early_stopping_rounds": 4, "seed": 5}') AS m
UNION ALL
SELECT 'auc', gbdt_train('higgs_train', 'label', NULL, 'binary:logistic',
                         '{"num_round": 500, "eta": 0.6, "max_depth": 6, "validation_fraction": 0.3,
                           "early_stopping_rounds": 3, "eval_metric": "auc", "seed": 5}');
CREATE FUNCTION pg_temp.ei(kind text) RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT gbdt_model_info(m) FROM es WHERE k = kind $$;
CREATE FUNCTION pg_temp.hist(kind text) RETURNS float8[] LANGUAGE sql STABLE AS
  $$ SELECT array_agg(h::float8 ORDER BY i) FROM jsonb_array_elements_text(pg_temp.ei(kind)->'validation_history')
     WITH ORDINALITY AS t(h, i) $$;

SELECT cmp_ok(array_length(pg_temp.hist('rmse'), 1), '<', 500, 'rmse: training stopped early');
SELECT ok(pg_temp.ei('rmse')->>'best_iteration' IS NOT NULL, 'rmse: best_iteration recorded');
SELECT is((pg_temp.ei('rmse')->>'rounds')::int, (pg_temp.ei('rmse')->>'best_iteration')::int + 1,
          'rmse: the model keeps rounds 0..best_iteration');
SELECT is(array_length(pg_temp.hist('rmse'), 1), (pg_temp.ei('rmse')->>'best_iteration')::int + 1 + 4,
          'rmse: stopped early_stopping_rounds after the best round');
SELECT is((pg_temp.hist('rmse'))[(pg_temp.ei('rmse')->>'best_iteration')::int + 1],
          (SELECT min(h) FROM unnest(pg_temp.hist('rmse')) h), 'rmse: best iteration has the lowest validation rmse');
SELECT is((SELECT count(*)::int FROM unnest((pg_temp.hist('rmse'))[(pg_temp.ei('rmse')->>'best_iteration')::int + 2:]) h
           WHERE h < (pg_temp.hist('rmse'))[(pg_temp.ei('rmse')->>'best_iteration')::int + 1]), 0,
          'rmse: no later round improved');
SELECT cmp_ok(array_length(pg_temp.hist('auc'), 1), '<', 500, 'auc: training stopped early');
SELECT is((pg_temp.hist('auc'))[(pg_temp.ei('auc')->>'best_iteration')::int + 1],
          (SELECT max(h) FROM unnest(pg_temp.hist('auc')) h), 'auc: best iteration has the highest AUC (higher is better)');
SELECT is((pg_temp.ei('auc')->>'rounds')::int, (pg_temp.ei('auc')->>'best_iteration')::int + 1,
          'auc: the model keeps rounds 0..best_iteration');
-- The early-stopped model = the same training run for best_iteration + 1 rounds.
CREATE TEMP TABLE es_fixed AS
SELECT gbdt_train('reg_train', 'label', NULL, 'reg:squarederror',
                  jsonb_build_object('num_round', (pg_temp.ei('rmse')->>'best_iteration')::int + 1, 'eta', 0.5,
                                     'max_depth', 6, 'validation_fraction', 0.2, 'seed', 5)) AS m;
SELECT is((SELECT count(*)::int FROM reg_test t, es, es_fixed f
           WHERE es.k = 'rmse' AND gbdt_predict(es.m, t) IS DISTINCT FROM gbdt_predict(f.m, t)), 0,
          'early-stopped model scores like a model trained for best_iteration + 1 rounds');
SELECT is((SELECT gbdt_export(m)->'learner'->'attributes'->>'best_iteration' FROM es WHERE k = 'rmse'),
          pg_temp.ei('rmse')->>'best_iteration', 'XGBoost export carries best_iteration');
SELECT is((SELECT jsonb_array_length(gbdt_export(m)->'learner'->'gradient_booster'->'model'->'trees') FROM es WHERE k = 'rmse'),
          (pg_temp.ei('rmse')->>'rounds')::int, 'XGBoost export holds the kept trees only');

-- ---- the registry compares the kept iteration's value ----
SELECT is(gbdt_save('es_model', (SELECT m FROM es WHERE k = 'rmse'), NULL, 'if_better'), 1, 'early-stopped model saved');
SELECT is((SELECT (metrics->>'validation')::float8 FROM gbdt_models WHERE name = 'es_model'),
          (SELECT min(h) FROM unnest(pg_temp.hist('rmse')) h), 'registry metric = validation value of the best iteration');
SELECT is((SELECT (metrics->>'best_iteration')::int FROM gbdt_models WHERE name = 'es_model'),
          (pg_temp.ei('rmse')->>'best_iteration')::int, 'registry metrics record best_iteration');

-- ---- errors ----
SELECT throws_ok($$SELECT gbdt_train('reg_train', 'label', NULL, NULL, '{"early_stopping_rounds": 3}')$$, '22023',
                 'parameter "early_stopping_rounds" needs validation_fraction > 0 or a validation_relation', 'early stopping needs a validation part');
SELECT throws_like($$SELECT gbdt_train('reg_train', 'label', NULL, NULL, '{"validation_fraction": 1.5}')$$,
                   '%parameter "validation_fraction" = 1.5 is out of range: must be in [0, 1)%', 'validation_fraction range');
SELECT throws_like($$SELECT gbdt_train('reg_train', 'label', NULL, NULL, '{"eval_metric": "foo", "validation_fraction": 0.2}')$$,
                   '%parameter "eval_metric" = "foo" is not supported: must be one of rmse, mae, logloss, auc, aucpr, error, error@t, mlogloss, merror, poisson-nloglik, %, ndcg, ndcg@k, map, map@k, pre, pre@k%',
                   'unknown eval_metric');
SELECT throws_like($$SELECT gbdt_train('higgs_train', 'label', NULL, 'binary:logistic', '{"eval_metric": "mlogloss", "validation_fraction": 0.2}')$$,
                   '%parameter "eval_metric" = "mlogloss" needs objective multi:softprob%', 'multiclass metric on a binary model');
SELECT throws_like($$SELECT gbdt_train('multi_train', 'label', NULL, 'multi:softprob', '{"eval_metric": "auc", "validation_fraction": 0.2, "num_class": 5}')$$,
                   '%parameter "eval_metric" = "auc" is for binary objectives%', 'binary metric on a multiclass model');
SELECT throws_like($$SELECT gbdt_train('reg_train', 'label', NULL, NULL, '{"early_stopping_rounds": -1, "validation_fraction": 0.2}')$$,
                   '%parameter "early_stopping_rounds" = -1 is out of range%', 'early_stopping_rounds range');

SELECT * FROM finish();
ROLLBACK;
