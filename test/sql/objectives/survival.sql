-- Survival objectives (XGBoost 3.x names and semantics):
-- survival:cox (label = time, negative = right-censored; predictions are
-- hazard ratios exp(margin); metric cox-nloglik) and survival:aft (target =
-- lower bound, label_upper_bound_column = upper bound, NULL / +Infinity =
-- right-censored, lower 0 = left-censored; aft_loss_distribution and
-- aft_loss_distribution_scale; metrics aft-nloglik and
-- interval-regression-accuracy; predictions are times exp(margin)); the
-- XGBoost JSON export/import; gbdt_evaluate; and the errors.
BEGIN;
SELECT plan(42);

-- 400 patients: x1 raises the hazard (shorter times), x2 is noise; every
-- 3rd row is censored at 80% of its time; rows with id % 10 = 0 are
-- interval-censored in [0.7 t, 1.3 t], rows with id % 17 = 0 left-censored.
CREATE TEMP TABLE sv AS
SELECT id, x1, x2, t, cens,
       CASE WHEN cens THEN -round((0.8 * t)::numeric, 3)::float8 ELSE t END AS tcox,
       CASE WHEN id % 17 = 0 THEN 0 WHEN id % 10 = 0 THEN round((0.7 * t)::numeric, 3)::float8
            WHEN cens THEN round((0.8 * t)::numeric, 3)::float8 ELSE t END AS lo,
       CASE WHEN id % 17 = 0 THEN t WHEN id % 10 = 0 THEN round((1.3 * t)::numeric, 3)::float8
            WHEN cens THEN NULL ELSE t END AS hi,
       w
FROM (SELECT i AS id, ((i * 37) % 100) / 10.0 AS x1, ((i * 53) % 97) / 9.7 AS x2,
             round((50.0 * exp(-0.25 * (((i * 37) % 100) / 10.0)) * (0.6 + ((i * 71) % 89) / 111.0))::numeric, 3)::float8 AS t,
             i % 3 = 0 AS cens, 1 + (i % 4)::float8 AS w
      FROM generate_series(1, 400) i) s;
-- The same bounds with +Infinity instead of NULL.
CREATE TEMP TABLE sv_inf AS SELECT id, x1, x2, lo, coalesce(hi, 'Infinity'::float8) AS hi FROM sv;

CREATE TEMP TABLE sm AS
SELECT 'cox' AS k, gbdt_train('sv', 'tcox', ARRAY['x1', 'x2'], 'survival:cox',
                              '{"num_round": 20, "max_depth": 3}') AS m
UNION ALL
SELECT 'cox_t1', gbdt_train('sv', 'tcox', ARRAY['x1', 'x2'], 'survival:cox',
                            '{"num_round": 20, "max_depth": 3, "nthread": 1}')
UNION ALL
SELECT 'cox_w', gbdt_train('sv', 'tcox', ARRAY['x1', 'x2'], 'survival:cox',
                           '{"num_round": 20, "max_depth": 3, "weight_column": "w"}')
UNION ALL
SELECT 'aft', gbdt_train('sv', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
                         '{"num_round": 30, "max_depth": 3, "label_upper_bound_column": "hi"}')
UNION ALL
SELECT 'aft_inf', gbdt_train('sv_inf', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
                             '{"num_round": 30, "max_depth": 3, "label_upper_bound_column": "hi"}')
UNION ALL
SELECT 'aft_logistic', gbdt_train('sv', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
                                  '{"num_round": 30, "max_depth": 3, "label_upper_bound_column": "hi",
                                    "aft_loss_distribution": "logistic", "aft_loss_distribution_scale": 0.7}')
UNION ALL
SELECT 'aft_extreme', gbdt_train('sv', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
                                 '{"num_round": 30, "max_depth": 3, "label_upper_bound_column": "hi",
                                   "aft_loss_distribution": "extreme", "eta": 0.5}')
UNION ALL
SELECT 'aft_valid', gbdt_train('sv', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
                               '{"num_round": 10, "max_depth": 3, "label_upper_bound_column": "hi", "eta": 0.5,
                                 "validation_fraction": 0.25, "eval_metric": ["interval-regression-accuracy", "aft-nloglik"]}')
UNION ALL
SELECT 'aft_default_features', gbdt_train('sv_inf', 'lo', NULL, 'survival:aft',
                                          '{"num_round": 3, "label_upper_bound_column": "hi"}')
UNION ALL
SELECT 'cox_10', gbdt_train('sv', 'tcox', ARRAY['x1', 'x2'], 'survival:cox', '{"num_round": 10, "max_depth": 3}')
UNION ALL
SELECT 'cox_1', gbdt_train('sv', 'tcox', ARRAY['x1', 'x2'], 'survival:cox', '{"num_round": 1, "max_depth": 1}')
UNION ALL
SELECT 'cox_valid', gbdt_train('sv', 'tcox', ARRAY['x1', 'x2'], 'survival:cox',
                               '{"num_round": 10, "validation_fraction": 0.25, "early_stopping_rounds": 3, "eta": 0.5}');

CREATE TEMP TABLE sp AS
SELECT k, id, x1, gbdt_predict(m, ARRAY[x1, x2]) AS p FROM sm, sv WHERE k <> 'aft_default_features';

-- ---- survival:cox ----
SELECT is((SELECT gbdt_model_info(m)->>'objective' FROM sm WHERE k = 'cox'), 'survival:cox', 'cox: objective');
SELECT is((SELECT gbdt_model_info(m)->>'eval_metric' FROM sm WHERE k = 'cox'), 'cox-nloglik',
          'cox: default metric cox-nloglik');
SELECT is((SELECT count(*)::int FROM sp WHERE k = 'cox' AND NOT p > 0), 0, 'cox predicts hazard ratios > 0');
SELECT cmp_ok((SELECT avg(p) FROM sp WHERE k = 'cox' AND x1 >= 7), '>', (SELECT 2 * avg(p) FROM sp WHERE k = 'cox' AND x1 < 3),
              'cox: a larger x1 (shorter times) has a larger hazard');
SELECT cmp_ok((SELECT abs((gbdt_model_info(m)->>'base_score')::float8 - 1) FROM sm WHERE k = 'cox'), '<', 0.05::float8,
              'cox: base_score is the one-step intercept (~1, hazard ratio of margin ~0) as XGBoost 3.x');
SELECT is((SELECT gbdt_model_send(a.m) = gbdt_model_send(b.m) FROM sm a, sm b WHERE a.k = 'cox' AND b.k = 'cox_t1'),
          true, 'cox: the same model with nthread 1 and all threads');
SELECT isnt((SELECT gbdt_model_send(a.m) = gbdt_model_send(b.m) FROM sm a, sm b WHERE a.k = 'cox' AND b.k = 'cox_w'),
            true, 'cox: a weight column changes the model');
SELECT ok((SELECT (gbdt_evaluate(m, 'sv', 'tcox')->>'cox-nloglik')::float8 > 0 FROM sm WHERE k = 'cox'),
          'gbdt_evaluate of survival:cox reports cox-nloglik');
SELECT cmp_ok((SELECT (gbdt_evaluate(m, 'sv', 'tcox')->>'cox-nloglik')::float8 FROM sm WHERE k = 'cox'), '<',
              (SELECT (gbdt_evaluate(m, 'sv', 'tcox')->>'cox-nloglik')::float8 - 0.1 FROM sm WHERE k = 'cox_1'),
              'cox: 20 rounds fit the partial likelihood better than one stump');
SELECT ok((SELECT (gbdt_model_info(m)->>'best_iteration') IS NOT NULL FROM sm WHERE k = 'cox_valid'),
          'cox: early stopping on cox-nloglik');

CREATE TEMP TABLE sc AS
SELECT gbdt_train('sv', 'tcox', ARRAY['x1', 'x2'], 'survival:cox', '{"num_round": 10, "max_depth": 3}',
                  (SELECT m FROM sm WHERE k = 'cox_10')) AS m;
SELECT is((SELECT max(abs(gbdt_predict(sc.m, ARRAY[x1, x2]) - gbdt_predict(a.m, ARRAY[x1, x2])))
           FROM sc, sm a, sv WHERE a.k = 'cox'), 0::float8,
          'cox: 10 rounds continued from a 10-round model (init_model) predict as 20 rounds');

-- ---- survival:aft ----
SELECT is((SELECT gbdt_model_info(m)->>'eval_metric' FROM sm WHERE k = 'aft'), 'aft-nloglik',
          'aft: default metric aft-nloglik');
SELECT is((SELECT (gbdt_model_info(m)->'params') - ARRAY['eta', 'seed', 'alpha', 'gamma', 'lambda', 'max_bin', 'max_depth',
                  'num_round', 'subsample', 'max_delta_step', 'colsample_bytree', 'min_child_weight']
           FROM sm WHERE k = 'aft'),
          '{"objective": "survival:aft", "aft_loss_distribution": "normal", "label_upper_bound_column": "hi",
            "aft_loss_distribution_scale": 1}'::jsonb,
          'aft: the parameters are recorded');
SELECT is((SELECT (gbdt_model_info(m)->>'base_score')::float8 FROM sm WHERE k = 'aft'), 0.5::float8,
          'aft: base_score 0.5 as XGBoost 3.x');
SELECT is((SELECT count(*)::int FROM sp WHERE k LIKE 'aft%' AND NOT p > 0), 0, 'aft predicts times > 0');
SELECT cmp_ok((SELECT avg(p) FROM sp WHERE k = 'aft' AND x1 < 3), '>', (SELECT 1.5 * avg(p) FROM sp WHERE k = 'aft' AND x1 >= 7),
              'aft: a larger x1 predicts shorter times');
SELECT is((SELECT count(*)::int FROM sp a JOIN sp b USING (id) WHERE a.k = 'aft' AND b.k = 'aft_inf' AND a.p <> b.p), 0,
          'aft: a NULL upper bound is +Infinity (right-censored)');
SELECT isnt((SELECT gbdt_model_send(a.m) = gbdt_model_send(b.m) FROM sm a, sm b WHERE a.k = 'aft' AND b.k = 'aft_logistic'),
            true, 'aft: the distribution changes the model');
SELECT is((SELECT gbdt_model_info(m)->'params'->>'aft_loss_distribution' FROM sm WHERE k = 'aft_extreme'), 'extreme',
          'aft: extreme distribution recorded');
SELECT is((SELECT jsonb_array_length(gbdt_model_info(m)->'validation_history') FROM sm WHERE k = 'aft_valid'), 20,
          'aft: two metrics per round on the validation rows');
SELECT is((SELECT count(*)::int FROM sm, jsonb_array_elements_text(gbdt_model_info(m)->'validation_history') WITH ORDINALITY v(x, i)
           WHERE k = 'aft_valid' AND i % 2 = 1 AND NOT (x::float8 BETWEEN 0 AND 1)), 0,
          'aft: interval-regression-accuracy is a share of the rows');
SELECT cmp_ok((SELECT (gbdt_model_info(m)->'validation_history'->>19)::float8 FROM sm WHERE k = 'aft_valid'), '<',
              (SELECT (gbdt_model_info(m)->'validation_history'->>1)::float8 FROM sm WHERE k = 'aft_valid'),
              'aft: validation aft-nloglik falls over the rounds');
SELECT is((SELECT array_agg(f->>'name' ORDER BY f->>'name') FROM sm, jsonb_array_elements(gbdt_model_info(m)->'features') f
           WHERE k = 'aft_default_features'),
          ARRAY['x1', 'x2'], 'aft: the upper-bound column (and the unique id) is not a feature');
SELECT ok((SELECT gbdt_evaluate(m, 'sv', 'lo') ? 'rmse' FROM sm WHERE k = 'aft'),
          'gbdt_evaluate of survival:aft: rmse of the predicted times against the target');

-- ---- XGBoost JSON ----
SELECT is((SELECT gbdt_export(m)->'learner'->'objective' FROM sm WHERE k = 'aft_logistic'),
          '{"name": "survival:aft", "aft_loss_param": {"aft_loss_distribution": "logistic",
            "aft_loss_distribution_scale": "0.699999988"}}'::jsonb,
          'export: the aft_loss_param of XGBoost');
SELECT is((SELECT gbdt_export(m)->'learner'->'objective' FROM sm WHERE k = 'cox'), '{"name": "survival:cox"}'::jsonb,
          'export: survival:cox');
SELECT is((SELECT count(*)::int FROM sm, sv
           WHERE k IN ('cox', 'aft', 'aft_logistic', 'aft_extreme')
             AND abs(gbdt_predict(gbdt_import(gbdt_export(m)), ARRAY[x1, x2]) - gbdt_predict(m, ARRAY[x1, x2]))
                 > 1e-6 * greatest(1, abs(gbdt_predict(m, ARRAY[x1, x2])))), 0,
          'export -> import keeps every prediction');
SELECT is((SELECT gbdt_model_info(gbdt_import(gbdt_export(m)))->'params'->>'aft_loss_distribution' FROM sm WHERE k = 'aft_logistic'),
          'logistic', 'import records aft_loss_distribution');

-- ---- errors name the column, the value and what is allowed ----
SELECT throws_like($$SELECT gbdt_train('sv', 'lo', ARRAY['x1', 'x2'], 'survival:cox')$$,
                   '%target column "lo" has value 0 in row %: survival:cox needs survival times != 0%',
                   'cox with a time of 0');
SELECT throws_like($$SELECT gbdt_train('sv', 'lo', ARRAY['x1', 'x2'], 'survival:aft')$$,
                   '%survival:aft needs parameter "label_upper_bound_column"%the target "lo" is the lower bound%',
                   'aft without the upper-bound column');
SELECT throws_like($$SELECT gbdt_train('sv', 'lo', ARRAY['x1', 'x2'], 'survival:aft', '{"label_upper_bound_column": "nope"}')$$,
                   '%label_upper_bound_column "nope" is not a column of relation%', 'aft: unknown upper-bound column');
SELECT throws_like($$SELECT gbdt_train('sv', 'lo', ARRAY['x1', 'x2'], 'survival:aft', '{"label_upper_bound_column": "lo"}')$$,
                   '%label_upper_bound_column "lo" is the target column%', 'aft: the upper bound is the target');
SELECT throws_like($$SELECT gbdt_train('sv', 'lo', ARRAY['x1', 'x2'], 'survival:aft', '{"label_upper_bound_column": "x1"}')$$,
                   '%column "x1" is the label_upper_bound_column and cannot also be a feature%', 'aft: the upper bound is a feature');
SELECT throws_like($$SELECT gbdt_train((SELECT 'sv'::regclass), 'hi', ARRAY['x1', 'x2'], 'survival:aft', '{"label_upper_bound_column": "lo"}')$$,
                   '%label_upper_bound_column "lo" has value % in row %below the lower bound % of target column "hi"%',
                   'aft: an upper bound below the lower bound');
SELECT throws_like($$SELECT gbdt_train((SELECT 'sv'::regclass), 'tcox', ARRAY['x1', 'x2'], 'survival:aft', '{"label_upper_bound_column": "hi"}')$$,
                   '%target column "tcox" (the lower bound of survival:aft) has value -% in row %: lower bounds must be finite and >= 0%',
                   'aft: a negative lower bound');
SELECT throws_like($$SELECT gbdt_train('sv', 't', ARRAY['x1', 'x2'], 'reg:squarederror', '{"label_upper_bound_column": "hi"}')$$,
                   '%parameter "label_upper_bound_column" is only for objective survival:aft, not reg:squarederror%',
                   'an upper-bound column with another objective');
SELECT throws_like($$SELECT gbdt_train('sv', 'lo', ARRAY['x1'], 'survival:aft', '{"label_upper_bound_column": "hi", "aft_loss_distribution": "weibull"}')$$,
                   '%parameter "aft_loss_distribution" = "weibull" is not supported: must be normal, logistic or extreme%',
                   'unknown aft_loss_distribution');
SELECT throws_like($$SELECT gbdt_train('sv', 'lo', ARRAY['x1'], 'survival:aft', '{"label_upper_bound_column": "hi", "aft_loss_distribution_scale": 0}')$$,
                   '%parameter "aft_loss_distribution_scale" = 0 is out of range: must be > 0%',
                   'aft_loss_distribution_scale 0');
SELECT throws_like($$SELECT gbdt_train('sv', 't', ARRAY['x1'], 'reg:squarederror', '{"eval_metric": "cox-nloglik", "validation_fraction": 0.2}')$$,
                   '%parameter "eval_metric" = "cox-nloglik" needs objective survival:cox%', 'cox-nloglik with another objective');
SELECT throws_like($$SELECT gbdt_train('sv', 'tcox', ARRAY['x1'], 'survival:cox', '{"eval_metric": "interval-regression-accuracy", "validation_fraction": 0.2}')$$,
                   '%"interval-regression-accuracy" needs objective survival:aft%', 'an interval metric with survival:cox');
-- validation_relation and init_model: objectives/ranking_weights_survival.sql.
SELECT is((SELECT jsonb_array_length(gbdt_model_info(gbdt_train('sv', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
                  '{"label_upper_bound_column": "hi", "validation_relation": "sv", "num_round": 3}'))->'validation_history')),
          3, 'aft with a validation relation');
SELECT is((SELECT (gbdt_model_info(gbdt_train('sv', 'lo', ARRAY['x1', 'x2'], 'survival:aft', '{"label_upper_bound_column": "hi", "num_round": 2}', m))->>'rounds')::int
           - (gbdt_model_info(m)->>'rounds')::int FROM sm WHERE k = 'aft'),
          2, 'aft with an init_model');

SELECT * FROM finish();
ROLLBACK;
