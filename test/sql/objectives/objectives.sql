-- The objectives added in 0.2 (XGBoost's names and semantics): each trains on
-- a small table and predicts sensible values; label errors say what to pass;
-- bad objective parameters name the parameter and its range; several
-- eval metrics; gbdt_evaluate per objective; export/import keeps them.
BEGIN;
SELECT plan(34);

CREATE TABLE o_data AS
SELECT i AS id, x1, x2,
       (2 * x1 + sin(3 * x2) + 0.5 * (((i * 7919) % 1000) / 1000.0 - 0.5))::float8 AS y,
       (exp(0.6 * x1) * (0.5 + ((i * 104729) % 1000) / 1000.0))::float8 AS ypos,
       (x1 + 0.3 * x2 > 0)::int AS yb,
       (CASE WHEN x1 < -0.3 THEN 0 WHEN x1 < 0.3 THEN 1 ELSE 2 END)::int AS yc
FROM (SELECT i, (((i * 2654435761) % 1999) / 999.5 - 1)::float8 AS x1,
             (((i * 40503) % 1999) / 999.5 - 1)::float8 AS x2
      FROM generate_series(1, 1000) i) s;

CREATE TEMP TABLE om AS
SELECT obj, tgt, gbdt_train('o_data', tgt, ARRAY['x1', 'x2'], obj, p || '{"num_round": 40, "max_depth": 4}') AS m
FROM (VALUES ('reg:absoluteerror', 'y', '{}'::jsonb),
             ('reg:pseudohubererror', 'y', '{"huber_slope": 2}'),
             ('reg:quantileerror', 'y', '{"quantile_alpha": 0.9}'),
             ('reg:squaredlogerror', 'ypos', '{}'),
             ('reg:gamma', 'ypos', '{}'),
             ('reg:tweedie', 'ypos', '{"tweedie_variance_power": 1.3}'),
             ('binary:logitraw', 'yb', '{}'),
             ('binary:hinge', 'yb', '{}'),
             ('multi:softmax', 'yc', '{}')) v(obj, tgt, p);
INSERT INTO om
SELECT 'q0.5', 'y', gbdt_train('o_data', 'y', ARRAY['x1', 'x2'], 'reg:quantileerror',
                               '{"num_round": 40, "max_depth": 4, "quantile_alpha": 0.5}');
INSERT INTO om
SELECT 'spw' || w, 'yb', gbdt_train('o_data', 'yb', ARRAY['x1'], 'binary:logistic',
                                   jsonb_build_object('num_round', 10, 'scale_pos_weight', w))
FROM (VALUES (1), (5)) v(w);
-- Every prediction once (gbdt_predict per row), and each model through
-- export -> import.
CREATE TEMP TABLE op AS SELECT om.obj, d.*, gbdt_predict(om.m, d.*) AS p FROM om, o_data d;
CREATE TEMP TABLE oi AS SELECT obj, gbdt_import(gbdt_export(m)) AS m FROM om WHERE obj LIKE '%:%';

-- ---- each objective is recorded with its default metric ----
SELECT is((SELECT count(*)::int FROM om WHERE gbdt_model_info(m)->>'objective' = obj), 9,
          'all 9 new objectives train and keep their names');
SELECT is((SELECT jsonb_object_agg(obj, gbdt_model_info(m)->>'eval_metric') FROM om WHERE obj LIKE '%:%'),
          '{"reg:absoluteerror": "mae", "reg:pseudohubererror": "mphe", "reg:quantileerror": "quantile",
            "reg:squaredlogerror": "rmsle", "reg:gamma": "gamma-deviance", "reg:tweedie": "tweedie-nloglik@1.3",
            "binary:logitraw": "logloss", "binary:hinge": "error", "multi:softmax": "mlogloss"}'::jsonb,
          'default metric per objective (XGBoost''s)');
SELECT is((SELECT gbdt_model_info(m)->'params'->>'quantile_alpha' FROM om WHERE obj = 'reg:quantileerror'),
          '0.9', 'quantile_alpha recorded in the model''s params');

-- ---- predictions ----
SELECT cmp_ok((SELECT avg((q.p > m5.p)::int) FROM op q JOIN op m5 USING (id)
               WHERE q.obj = 'reg:quantileerror' AND m5.obj = 'q0.5'), '>', 0.9::numeric,
              'quantile 0.9 predictions above the 0.5 ones on most rows');
SELECT cmp_ok((SELECT avg((y <= p)::int) FROM op WHERE obj = 'reg:quantileerror'), '>', 0.8::numeric,
              'quantile 0.9 covers most labels');
SELECT is((SELECT count(*)::int FROM op WHERE obj = 'binary:hinge' AND p NOT IN (0, 1)), 0, 'hinge predicts 0/1');
SELECT cmp_ok((SELECT avg((p = yb)::int) FROM op WHERE obj = 'binary:hinge'), '>', 0.9::numeric,
              'hinge learns the classes');
SELECT cmp_ok((SELECT count(*)::int FROM op WHERE obj = 'binary:logitraw' AND p < 0), '>', 0,
              'logitraw predicts margins (negative ones too)');
SELECT cmp_ok((SELECT avg(((p > 0)::int = yb)::int) FROM op WHERE obj = 'binary:logitraw'), '>', 0.9::numeric,
              'logitraw margin sign is the class');
SELECT is((SELECT count(*)::int FROM op WHERE obj = 'multi:softmax' AND p NOT IN (0, 1, 2)), 0,
          'softmax returns classes');
SELECT cmp_ok((SELECT avg((p = yc)::int) FROM op WHERE obj = 'multi:softmax'), '>', 0.9::numeric,
              'softmax learns the classes');
SELECT is((SELECT round(sum(probability)::numeric, 9) FROM om s, LATERAL gbdt_predict_proba(s.m, (SELECT d FROM o_data d WHERE id = 5)) p
           WHERE s.obj = 'multi:softmax'), 1.000000000, 'softmax keeps predict_proba');
SELECT is((SELECT count(*)::int FROM op WHERE obj IN ('reg:gamma', 'reg:tweedie') AND NOT p > 0), 0,
          'gamma and tweedie predict positive means');
SELECT cmp_ok((SELECT corr(p, ypos) FROM op WHERE obj = 'reg:gamma'), '>', 0.5::float8, 'gamma follows the target');
SELECT cmp_ok((SELECT avg(abs(p - y)) FROM op WHERE obj = 'reg:absoluteerror'),
              '<', (SELECT avg(abs(d.y - med)) FROM o_data d,
                    (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY y) med FROM o_data) x) * 0.6,
              'absoluteerror beats the median');
SELECT cmp_ok((SELECT avg(abs(p - y)) FROM op WHERE obj = 'reg:pseudohubererror'), '<', 0.5::float8,
              'pseudohuber fits');
SELECT cmp_ok((SELECT corr(p, ypos) FROM op WHERE obj = 'reg:squaredlogerror'), '>', 0.5::float8,
              'squaredlogerror follows the target');

-- ---- gbdt_evaluate per objective ----
SELECT ok((SELECT (gbdt_evaluate(m, 'o_data', 'ypos') ? 'gamma-deviance') FROM om WHERE obj = 'reg:gamma'),
          'gbdt_evaluate of reg:gamma reports gamma-deviance');
SELECT ok((SELECT (gbdt_evaluate(m, 'o_data', 'yb')->>'accuracy')::float8 > 0.9 FROM om WHERE obj = 'binary:hinge'),
          'gbdt_evaluate of binary:hinge: accuracy');
SELECT ok((SELECT (gbdt_evaluate(m, 'o_data', 'yc')->>'accuracy')::float8 > 0.9 FROM om WHERE obj = 'multi:softmax'),
          'gbdt_evaluate of multi:softmax: accuracy');

-- ---- several eval metrics ----
SELECT is((SELECT gbdt_model_info(gbdt_train('o_data', 'y', ARRAY['x1', 'x2'], 'reg:squarederror',
                  '{"num_round": 5, "validation_fraction": 0.2, "eval_metric": ["mae", "rmse"]}'))->>'eval_metric'),
          'mae,rmse', 'eval_metric as a JSON array');
SELECT is((SELECT jsonb_array_length(gbdt_model_info(gbdt_train('o_data', 'y', ARRAY['x1', 'x2'], 'reg:squarederror',
                  '{"num_round": 5, "validation_fraction": 0.2, "eval_metric": "mae,rmse,mape"}'))->'validation_history')),
          15, 'three metrics: three values per round');

-- ---- label errors name the column and say what to pass ----
SELECT throws_like($$SELECT gbdt_train('o_data', 'y', ARRAY['x1', 'x2'], 'reg:gamma')$$,
                   '%target column "y" has value -%: reg:gamma needs labels > 0; for labels that can be 0 use reg:tweedie or count:poisson%',
                   'gamma with a negative label');
SELECT throws_like($$SELECT gbdt_train('o_data', 'y', ARRAY['x1', 'x2'], 'reg:tweedie')$$,
                   '%target column "y" has value -%: reg:tweedie needs labels >= 0%', 'tweedie with a negative label');
SELECT throws_like($$SELECT gbdt_train('o_data', 'yc', ARRAY['x1', 'x2'], 'binary:hinge')$$,
                   '%target column "yc" has value 2: binary:hinge needs labels 0 or 1%', 'hinge with label 2');
SELECT throws_like($$SELECT gbdt_train((SELECT 'o_data'::regclass), 'y', ARRAY['x1', 'x2'], 'reg:squaredlogerror', '{"base_score": 0.5}')$$,
                   '%target column "y" has value -%: reg:squaredlogerror needs labels > -1%', 'squaredlog with a label <= -1');

-- ---- bad objective parameters name the parameter and its range ----
SELECT throws_like($$SELECT gbdt_train('o_data', 'y', ARRAY['x1'], 'reg:pseudohubererror', '{"huber_slope": 0}')$$,
                   '%parameter "huber_slope" = 0 is out of range: must be > 0%', 'huber_slope 0');
SELECT throws_like($$SELECT gbdt_train('o_data', 'y', ARRAY['x1'], 'reg:quantileerror', '{"quantile_alpha": 1.5}')$$,
                   '%parameter "quantile_alpha" = 1.5 is out of range: must be in (0, 1)%', 'quantile_alpha 1.5');
SELECT throws_like($$SELECT gbdt_train('o_data', 'ypos', ARRAY['x1'], 'reg:tweedie', '{"tweedie_variance_power": 2}')$$,
                   '%parameter "tweedie_variance_power" = 2 is out of range: must be in [1, 2)%', 'tweedie_variance_power 2');
SELECT throws_like($$SELECT gbdt_train('o_data', 'yb', ARRAY['x1'], 'binary:logistic', '{"scale_pos_weight": 0}')$$,
                   '%parameter "scale_pos_weight" = 0 is out of range: must be > 0%', 'scale_pos_weight 0');
SELECT throws_like($$SELECT gbdt_train('o_data', 'y', ARRAY['x1'], NULL, '{"eval_metric": ["rmse", "nope"]}')$$,
                   '%parameter "eval_metric" = "nope" is not supported%', 'unknown metric in a list');
SELECT throws_like($$SELECT gbdt_train('o_data', 'ypos', ARRAY['x1'], 'reg:gamma', '{"base_score": -1}')$$,
                   '%parameter "base_score" = -1 is out of range: must be > 0 for reg:gamma%', 'base_score of a log-link objective');

-- ---- scale_pos_weight moves predictions up ----
SELECT cmp_ok((SELECT avg(p) FROM op WHERE obj = 'spw5'), '>', (SELECT avg(p) FROM op WHERE obj = 'spw1'),
              'scale_pos_weight raises P(1)');

-- ---- export/import ----
SELECT is((SELECT count(*)::int FROM oi JOIN op USING (obj)
           WHERE abs(gbdt_predict(oi.m, op.*) - op.p) > 1e-6 * (1 + abs(op.p))),
          0, 'export -> import keeps every prediction of every new objective');

SELECT * FROM finish();
ROLLBACK;
