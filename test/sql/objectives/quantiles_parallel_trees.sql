-- several quantiles in one reg:quantileerror model (a
-- quantile_alpha list: one output per alpha, gbdt_predict_quantiles, the
-- quantile metric over every output, export/import with num_target), and
-- num_parallel_tree, XGBoost's boosted random forests: per
-- round and output group num_parallel_tree trees grown on the same
-- gradients, each with its own row/column sample, leaves scaled by
-- eta / num_parallel_tree and summed.  Rounds (not trees) are what
-- gbdt_model_info, early stopping and init_model count; the stored model,
-- gbdt_export (num_parallel_tree, iteration_indptr) and gbdt_import keep it.
BEGIN;
SELECT plan(41);

CREATE TABLE pt_data AS
SELECT i AS id, x1, x2, x3, x4,
       x1 + 0.8 * sin(6 * x1) - x2 + x1 * x3 + 0.5 * x4 AS y,
       (CASE WHEN x1 + x2 < -0.4 THEN 0 WHEN x1 + x2 < 0.4 THEN 1 ELSE 2 END) AS c
FROM (SELECT i, ((i * 37) % 1000) / 500.0 - 1 AS x1, ((i * 91) % 997) / 498.5 - 1 AS x2,
             ((i * 53) % 991) / 495.5 - 1 AS x3, ((i * 29) % 983) / 491.5 - 1 AS x4
      FROM generate_series(1, 2000) i) s;

CREATE TABLE pt_m AS
SELECT 'rf' AS k, gbdt_train('pt_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], 'reg:squarederror',
                             '{"num_round": 5, "num_parallel_tree": 4, "eta": 1, "subsample": 0.7,
                               "colsample_bynode": 0.5, "max_depth": 4}') AS m
UNION ALL
SELECT 'one', gbdt_train('pt_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], 'reg:squarederror',
                         '{"num_round": 5, "eta": 1, "subsample": 0.7, "colsample_bynode": 0.5, "max_depth": 4}');

SELECT is((SELECT (gbdt_model_info(m)->>'rounds')::int FROM pt_m WHERE k = 'rf'), 5,
          'a forest of 5 rounds counts 5 rounds');
SELECT is((SELECT (gbdt_model_info(m)->>'trees')::int FROM pt_m WHERE k = 'rf'), 20,
          'num_parallel_tree 4: 4 trees per round');
SELECT is((SELECT (gbdt_model_info(m)->>'num_parallel_tree')::int FROM pt_m WHERE k = 'rf'), 4,
          'gbdt_model_info reports num_parallel_tree');
SELECT is((SELECT gbdt_model_info(m)->'params'->>'num_parallel_tree' FROM pt_m WHERE k = 'rf'), '4',
          'num_parallel_tree recorded in the model''s params');
SELECT is((SELECT gbdt_model_info(m)->'params'->>'num_parallel_tree' FROM pt_m WHERE k = 'one'), NULL,
          'one tree per round records nothing (models as before)');
-- Each tree of a round has its own sample: the round's trees differ.
SELECT cmp_ok((SELECT count(DISTINCT s) FROM (
                 SELECT tree, string_agg(coalesce(feature, '') || ':' || coalesce(leaf_value::text, ''), ',' ORDER BY node) AS s
                 FROM gbdt_trees((SELECT m FROM pt_m WHERE k = 'rf')) WHERE tree < 4 GROUP BY tree) t),
              '>', 1::bigint, 'the 4 trees of round 1 are grown on different samples');
-- The leaves are scaled by eta / num_parallel_tree: a forest's leaves are
-- smaller than one tree's of the same eta.
SELECT cmp_ok((SELECT max(abs(leaf_value)) FROM gbdt_trees((SELECT m FROM pt_m WHERE k = 'rf')) WHERE tree < 4),
              '<', (SELECT max(abs(leaf_value)) FROM gbdt_trees((SELECT m FROM pt_m WHERE k = 'one')) WHERE tree = 0),
              'leaves scaled by eta / num_parallel_tree');
SELECT cmp_ok((SELECT (gbdt_evaluate(m, 'pt_data', 'y')->>'rmse')::float8 FROM pt_m WHERE k = 'rf'),
              '<', (SELECT stddev_pop(y) FROM pt_data) * 0.6, 'the forest fits (rmse well below the labels'' spread)');

-- The stored model (text form) keeps num_parallel_tree.
SELECT is((SELECT (gbdt_model_info(m::text::gbdt_model)->>'num_parallel_tree')::int FROM pt_m WHERE k = 'rf'), 4,
          'the stored model keeps num_parallel_tree');

-- XGBoost JSON: num_parallel_tree, iteration_indptr by rounds, import back.
SELECT is((SELECT gbdt_export(m)->'learner'->'gradient_booster'->'model'->'gbtree_model_param'->>'num_parallel_tree'
           FROM pt_m WHERE k = 'rf'), '4', 'gbdt_export writes num_parallel_tree');
SELECT is((SELECT gbdt_export(m)->'learner'->'gradient_booster'->'model'->'iteration_indptr' FROM pt_m WHERE k = 'rf'),
          '[0, 4, 8, 12, 16, 20]'::jsonb, 'gbdt_export: iteration_indptr counts rounds of 4 trees');
CREATE TABLE pt_imp AS SELECT gbdt_import(gbdt_export(m)) AS m FROM pt_m WHERE k = 'rf';
SELECT is((SELECT (gbdt_model_info(m)->>'rounds')::int FROM pt_imp), 5, 'gbdt_import: 5 rounds of 4 trees');
SELECT is((SELECT count(*) FROM pt_data d
           WHERE abs(gbdt_predict((SELECT m FROM pt_imp), d) - gbdt_predict((SELECT m FROM pt_m WHERE k = 'rf'), d)) > 1e-6),
          0::bigint, 'export -> import predicts every row within 1e-6');

-- Continued training: 3 + 2 rounds == 5 at once.
CREATE TABLE pt_cont AS
SELECT gbdt_train('pt_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], 'reg:squarederror',
                  '{"num_round": 2, "num_parallel_tree": 4, "eta": 1, "subsample": 0.7,
                    "colsample_bynode": 0.5, "max_depth": 4}',
                  gbdt_train('pt_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], 'reg:squarederror',
                             '{"num_round": 3, "num_parallel_tree": 4, "eta": 1, "subsample": 0.7,
                               "colsample_bynode": 0.5, "max_depth": 4}')) AS m;
SELECT is((SELECT (gbdt_model_info(m)->>'rounds')::int FROM pt_cont), 5, 'init_model: 3 + 2 rounds = 5 rounds');
SELECT is((SELECT count(*) FROM pt_data d
           WHERE gbdt_predict((SELECT m FROM pt_cont), d) <> gbdt_predict((SELECT m FROM pt_m WHERE k = 'rf'), d)),
          0::bigint, 'init_model: 3 + 2 rounds predict as 5 rounds at once');
SELECT throws_like($$SELECT gbdt_train('pt_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], NULL, '{"num_round": 1, "num_parallel_tree": 2}',
                                       (SELECT m FROM pt_m WHERE k = 'rf'))$$,
                   '%parameter "num_parallel_tree" = 2 differs from init_model''s 4%', 'init_model with another num_parallel_tree');

-- Multiclass: num_class * num_parallel_tree trees per round.
SELECT is((SELECT gbdt_model_info(gbdt_train('pt_data', 'c', ARRAY['x1', 'x2', 'x3', 'x4'], 'multi:softprob',
                                              '{"num_round": 3, "num_parallel_tree": 2, "subsample": 0.8}'))->>'trees')::int,
          18, 'multiclass: 3 classes x 2 parallel trees x 3 rounds');

-- Early stopping counts rounds: the kept trees are whole rounds.
CREATE TABLE pt_es AS
SELECT gbdt_train('pt_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], 'reg:squarederror',
                  '{"num_round": 300, "num_parallel_tree": 3, "eta": 0.5, "subsample": 0.6, "max_depth": 3,
                    "validation_fraction": 0.25, "early_stopping_rounds": 2}') AS m;
SELECT is((SELECT (gbdt_model_info(m)->>'trees')::int FROM pt_es),
          (SELECT 3 * ((gbdt_model_info(m)->>'best_iteration')::int + 1) FROM pt_es),
          'early stopping keeps (best_iteration + 1) rounds of 3 trees');

-- Errors name the parameter and the allowed range.
SELECT throws_like($$SELECT gbdt_train('pt_data', 'y', ARRAY['x1'], NULL, '{"num_parallel_tree": 0}')$$,
                   '%parameter "num_parallel_tree" = 0 is out of range: must be an integer in [1, 1000]%', 'num_parallel_tree 0');
SELECT throws_like($$SELECT gbdt_train('pt_data', 'y', ARRAY['x1'], NULL, '{"num_parallel_tree": 1001}')$$,
                   '%parameter "num_parallel_tree" = 1001 is out of range: must be an integer in [1, 1000]%', 'num_parallel_tree 1001');
SELECT throws_like($$SELECT gbdt_train('pt_data', 'y', ARRAY['x1'], NULL, '{"num_parallel_tree": 2.5}')$$,
                   '%parameter "num_parallel_tree" must be an integer%', 'num_parallel_tree 2.5');
-- An imported model whose trees are not whole rounds is refused.
SELECT throws_like($$SELECT gbdt_import(jsonb_set(gbdt_export(m), '{learner,gradient_booster,model,gbtree_model_param,num_parallel_tree}', '"3"'))
                     FROM pt_m WHERE k = 'rf'$$,
                   '%not whole rounds of num_parallel_tree 3%', 'gbdt_import: trees must be whole rounds');

-- ---- several quantiles ----
CREATE TABLE mq_m AS
SELECT 'list' AS k, gbdt_train('pt_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], 'reg:quantileerror',
                               '{"num_round": 20, "quantile_alpha": [0.1, 0.5, 0.9], "max_depth": 4}') AS m
UNION ALL
SELECT 'text', gbdt_train('pt_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], 'reg:quantileerror',
                          '{"num_round": 20, "quantile_alpha": "[0.1, 0.5, 0.9]", "max_depth": 4}')
UNION ALL
SELECT 'median', gbdt_train('pt_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], 'reg:quantileerror',
                            '{"num_round": 20, "quantile_alpha": 0.5, "max_depth": 4}');
CREATE TABLE mq_p AS
SELECT d.id, d.y, gbdt_predict_quantiles((SELECT m FROM mq_m WHERE k = 'list'), d) AS q,
       gbdt_predict((SELECT m FROM mq_m WHERE k = 'median'), d) AS med
FROM pt_data d;

SELECT is((SELECT (gbdt_model_info(m)->>'trees')::int FROM mq_m WHERE k = 'list'), 60,
          'three quantiles: one tree per quantile per round');
SELECT is((SELECT gbdt_model_info(m)->'params'->>'quantile_alpha' FROM mq_m WHERE k = 'list'), '[0.10000000000000001,0.5,0.90000000000000002]',
          'the model records its quantiles');
SELECT is((SELECT m::text FROM mq_m WHERE k = 'text'), (SELECT m::text FROM mq_m WHERE k = 'list'),
          'XGBoost''s string form of the list trains the same model');
SELECT is((SELECT count(*) FROM mq_p WHERE array_length(q, 1) = 3), 2000::bigint,
          'gbdt_predict_quantiles: one value per quantile');
SELECT is((SELECT count(*) FROM mq_p WHERE q[2] <> med), 0::bigint,
          'the 0.5 output is the model of quantile_alpha 0.5 alone');
SELECT cmp_ok((SELECT abs(avg((y <= q[1])::int) - 0.1) + abs(avg((y <= q[3])::int) - 0.9) FROM mq_p),
              '<', 0.08::numeric, 'the outputs cover their quantiles (0.1 and 0.9)');
SELECT throws_like($$SELECT gbdt_predict((SELECT m FROM mq_m WHERE k = 'list'), d) FROM pt_data d LIMIT 1$$,
                   '%predicts 3 quantiles%use gbdt_predict_quantiles%', 'gbdt_predict points at gbdt_predict_quantiles');
SELECT is((SELECT count(*) FROM pt_data d
           WHERE gbdt_predict_quantiles((SELECT m FROM mq_m WHERE k = 'median'), d) <> ARRAY[gbdt_predict((SELECT m FROM mq_m WHERE k = 'median'), d)]),
          0::bigint, 'one quantile: gbdt_predict_quantiles is gbdt_predict in an array');
SELECT throws_like($$SELECT gbdt_predict_quantiles((SELECT m FROM pt_m WHERE k = 'rf'), d) FROM pt_data d LIMIT 1$$,
                   '%gbdt_predict_quantiles needs a reg:quantileerror model%', 'gbdt_predict_quantiles on another objective');
SELECT throws_like($$SELECT * FROM gbdt_predict_table((SELECT m FROM mq_m WHERE k = 'list'), 'pt_data', 'id')$$,
                   '%gbdt_predict_table: the model predicts 3 quantiles%', 'gbdt_predict_table refuses several quantiles');
-- gbdt_evaluate: XGBoost's quantile metric, the pinball loss over rows and quantiles.
SELECT ok((SELECT abs((gbdt_evaluate(m, 'pt_data', 'y')->>'quantile')::float8 -
                      (SELECT avg(l) FROM (SELECT CASE WHEN y - q[i] >= 0 THEN a * (y - q[i]) ELSE (a - 1) * (y - q[i]) END AS l
                                          FROM mq_p, LATERAL (VALUES (1, 0.1), (2, 0.5), (3, 0.9)) v(i, a)) t)) < 1e-9
           FROM mq_m WHERE k = 'list'), 'gbdt_evaluate reports the quantile metric over every quantile');
-- XGBoost JSON: num_target, a base_score per quantile, the alpha list; import back.
SELECT is((SELECT gbdt_export(m)->'learner'->'learner_model_param'->>'num_target' FROM mq_m WHERE k = 'list'), '3',
          'gbdt_export: num_target 3');
SELECT is((SELECT gbdt_export(m)->'learner'->'objective'->'quantile_loss_param'->>'quantile_alpha' FROM mq_m WHERE k = 'list'),
          '[0.1,0.5,0.9]', 'gbdt_export: the quantile_alpha list');
SELECT is((SELECT count(*) FROM pt_data d
           WHERE (SELECT bool_or(abs(a - b) > 1e-6) FROM unnest(
                    gbdt_predict_quantiles((SELECT gbdt_import(gbdt_export(m)) FROM mq_m WHERE k = 'list'), d),
                    gbdt_predict_quantiles((SELECT m FROM mq_m WHERE k = 'list'), d)) u(a, b))),
          0::bigint, 'export -> import: every quantile of every row within 1e-6');
-- Continued training keeps the quantiles: 10 + 10 == 20.
SELECT is((SELECT count(*) FROM pt_data d, (SELECT gbdt_train('pt_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], NULL, '{"num_round": 10, "max_depth": 4}',
                             gbdt_train('pt_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], 'reg:quantileerror',
                                        '{"num_round": 10, "quantile_alpha": [0.1, 0.5, 0.9], "max_depth": 4}')) AS m) c
           WHERE gbdt_predict_quantiles(c.m, d) <> gbdt_predict_quantiles((SELECT m FROM mq_m WHERE k = 'list'), d)),
          0::bigint, 'init_model: 10 + 10 rounds of three quantiles predict as 20 at once');
-- Errors name the parameter.
SELECT throws_like($$SELECT gbdt_train('pt_data', 'y', ARRAY['x1'], 'reg:squarederror', '{"quantile_alpha": [0.1, 0.9]}')$$,
                   '%parameter "quantile_alpha" lists 2 quantiles: several quantiles need objective reg:quantileerror%',
                   'a quantile list needs reg:quantileerror');
SELECT throws_like($$SELECT gbdt_train('pt_data', 'y', ARRAY['x1'], 'reg:quantileerror', '{"quantile_alpha": [0.1, 0.9], "eval_metric": "rmse"}')$$,
                   '%parameter "eval_metric" = "rmse" is not supported with 2 quantiles%', 'several quantiles: eval_metric quantile only');
SELECT throws_like($$SELECT gbdt_train('pt_data', 'y', ARRAY['x1'], 'reg:quantileerror', '{"quantile_alpha": [0.1, 1.5]}')$$,
                   '%parameter "quantile_alpha" = 1.5 is out of range: must be in (0, 1)%', 'a quantile out of range in the list');
SELECT throws_like($$SELECT gbdt_train('pt_data', 'y', ARRAY['x1'], 'reg:quantileerror', '{"quantile_alpha": []}')$$,
                   '%parameter "quantile_alpha" = [] is not a number or a non-empty JSON array of numbers%', 'an empty quantile list');

SELECT * FROM finish();
ROLLBACK;
