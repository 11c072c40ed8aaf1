-- gbdt_evaluate's threshold, precision / recall / f1, aucpr, brier,
-- multiclass f1_macro / f1_micro and regression r2 / mape /
-- explained_variance: each checked against the same quantity computed here
-- in SQL from gbdt_predict (sklearn's definitions: zero_division = 0,
-- average precision as a step sum over distinct scores).
BEGIN;
SELECT plan(23);

CREATE TEMP TABLE mb AS
SELECT i AS id, ((i * 7919) % 1000) / 1000.0 AS a, ((i * 104729) % 997) / 997.0 AS b,
       CASE WHEN ((i * 7919) % 1000) / 1000.0 + ((i * 65537) % 983) / 983.0 > 1
            THEN 'yes' ELSE 'no' END AS lab,
       (((i * 7919) % 1000) / 1000.0 * 3 + ((i * 65537) % 983) / 983.0)::float8 AS yr,
       CASE WHEN i % 50 = 0 THEN 0 ELSE (((i * 7919) % 1000) / 1000.0 * 3 + 1)::float8 END AS yz,
       CASE WHEN ((i * 7919) % 1000) < 300 THEN 'low'
            WHEN ((i * 65537) % 983) < 500 THEN 'mid' ELSE 'high' END AS c3
FROM generate_series(1, 600) i;

CREATE TEMP TABLE mm AS
SELECT gbdt_train('mb', 'lab', ARRAY['a', 'b'], 'binary:logistic', '{"num_round": 6, "max_depth": 2}') AS bin,
       gbdt_train('mb', 'yr', ARRAY['a', 'b'], 'reg:squarederror', '{"num_round": 6, "max_depth": 2}') AS reg,
       gbdt_train('mb', 'yz', ARRAY['a', 'b'], 'reg:squarederror', '{"num_round": 6, "max_depth": 2}') AS regz,
       gbdt_train('mb', 'c3', ARRAY['a', 'b'], 'multi:softprob', '{"num_round": 6, "max_depth": 2}') AS multi;

CREATE TEMP TABLE mp AS
-- the engine reads labels as float4: the expected values use the same.
SELECT id, (lab = 'yes')::int AS y, gbdt_predict(bin, ARRAY[a, b]) AS p, yr::real::float8 AS yr,
       yz::real::float8 AS yz,
       gbdt_predict(reg, ARRAY[a, b]) AS pr, gbdt_predict(regz, ARRAY[a, b]) AS pz
FROM mb, mm;

-- precision / recall / f1 at a threshold, as sklearn with zero_division = 0.
CREATE FUNCTION pg_temp.prf(t float8) RETURNS TABLE(pr float8, re float8, f1 float8, acc float8)
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
  SELECT CASE WHEN tp + fp > 0 THEN tp / (tp + fp) ELSE 0 END,
         CASE WHEN tp + fn > 0 THEN tp / (tp + fn) ELSE 0 END,
         CASE WHEN tp > 0 THEN 2 * tp / (2 * tp + fp + fn) ELSE 0 END,
         1 - (fp + fn) / (tp + fp + fn + tn)
  FROM (SELECT count(*) FILTER (WHERE p > t AND y = 1)::float8 AS tp,
               count(*) FILTER (WHERE p > t AND y = 0)::float8 AS fp,
               count(*) FILTER (WHERE p <= t AND y = 1)::float8 AS fn,
               count(*) FILTER (WHERE p <= t AND y = 0)::float8 AS tn FROM pg_temp.mp) c $$;

CREATE TEMP TABLE ev AS
SELECT gbdt_evaluate(bin, 'mb', 'lab') AS e05, gbdt_evaluate(bin, 'mb', 'lab', 0.3) AS e03,
       gbdt_evaluate(bin, 'mb', 'lab', 1.0) AS e10, gbdt_evaluate(reg, 'mb', 'yr') AS er,
       gbdt_evaluate(regz, 'mb', 'yz') AS ez, gbdt_evaluate(multi, 'mb', 'c3') AS em
FROM mm;

SELECT ok(abs((e05->>'precision')::float8 - pr) < 1e-12 AND abs((e05->>'recall')::float8 - re) < 1e-12
          AND abs((e05->>'f1')::float8 - f1) < 1e-12, 'precision, recall, f1 at the default threshold 0.5')
FROM ev, pg_temp.prf(0.5);
SELECT ok(abs((e03->>'precision')::float8 - pr) < 1e-12 AND abs((e03->>'recall')::float8 - re) < 1e-12
          AND abs((e03->>'f1')::float8 - f1) < 1e-12, 'precision, recall, f1 at threshold 0.3')
FROM ev, pg_temp.prf(0.3);
SELECT ok(abs((e03->>'accuracy')::float8 - acc) < 1e-12, 'accuracy follows the threshold')
FROM ev, pg_temp.prf(0.3);
SELECT ok((e03->>'precision')::float8 <> (e05->>'precision')::float8, 'the threshold changes precision') FROM ev;
SELECT is((e10->>'precision')::float8, 0::float8, 'threshold 1: nothing predicted positive, precision 0 (zero_division)') FROM ev;
SELECT is((e10->>'f1')::float8, 0::float8, 'threshold 1: f1 0') FROM ev;
SELECT is(e05->>'auc', e03->>'auc', 'auc does not depend on the threshold') FROM ev;

-- average precision: per distinct score (descending), the precision of the
-- rows at or above it times the gain in recall.
SELECT ok(abs((e05->>'aucpr')::float8 - ap) < 1e-12, 'aucpr is average precision over distinct scores')
FROM ev, (SELECT sum((tp - lag_tp) / pos * tp / (tp + fp)) AS ap
          FROM (SELECT p, tp, fp, coalesce(lag(tp) OVER (ORDER BY p DESC), 0) AS lag_tp,
                       (SELECT sum(y) FROM pg_temp.mp)::float8 AS pos
                FROM (SELECT DISTINCT p, sum(y) OVER w::float8 AS tp, sum(1 - y) OVER w::float8 AS fp
                      FROM pg_temp.mp WINDOW w AS (ORDER BY p DESC RANGE UNBOUNDED PRECEDING)) d) s) q;
SELECT ok(abs((e05->>'brier')::float8 - (SELECT avg((p - y) ^ 2) FROM pg_temp.mp)) < 1e-12, 'brier is mean (p - y)^2')
FROM ev;
SELECT ok(e05 ?& ARRAY['auc', 'logloss', 'accuracy'], 'the 0.2 binary metrics are still there') FROM ev;

-- regression, as sklearn's r2_score, explained_variance_score and
-- mean_absolute_percentage_error.
SELECT ok(abs((er->>'r2')::float8 - (1 - sum((yr - pr) ^ 2) / sum((yr - my) ^ 2))) < 1e-9, 'r2')
FROM ev, pg_temp.mp, (SELECT avg(yr) AS my FROM pg_temp.mp) m GROUP BY er;
SELECT ok(abs((er->>'explained_variance')::float8 - (1 - var_pop(yr - pr) / var_pop(yr))) < 1e-9, 'explained_variance')
FROM ev, pg_temp.mp GROUP BY er;
SELECT ok(abs((er->>'mape')::float8 - avg(abs(yr - pr) / abs(yr))) < 1e-9, 'mape without zero labels')
FROM ev, pg_temp.mp GROUP BY er;
SELECT ok(abs((ez->>'mape')::float8 / avg(abs(yz - pz) / greatest(abs(yz), 2.220446049250313e-16)) - 1) < 1e-9,
          'mape with zero labels divides by machine epsilon, as sklearn')
FROM ev, pg_temp.mp GROUP BY ez;
SELECT ok((ez->>'mape')::float8 > 1e10, 'a zero label makes mape huge (reported, not skipped)') FROM ev;
SELECT ok(er ?& ARRAY['rmse', 'mae'], 'the 0.2 regression metrics are still there') FROM ev;

-- multiclass F1 from the predicted classes (most probable).
CREATE TEMP TABLE mc AS
SELECT c3 AS act, (SELECT class_name FROM gbdt_predict_proba(multi, mb) ORDER BY probability DESC, class_name LIMIT 1) AS pred
FROM mb, mm;
SELECT ok(abs((em->>'f1_macro')::float8 - f) < 1e-12, 'f1_macro is the mean of the per-class F1')
FROM ev, (SELECT avg(2 * tp / (na + np)) AS f FROM (
  SELECT c, count(*) FILTER (WHERE act = c AND pred = c)::float8 AS tp,
            count(*) FILTER (WHERE act = c)::float8 AS na, count(*) FILTER (WHERE pred = c)::float8 AS np
  FROM pg_temp.mc, (SELECT DISTINCT act AS c FROM pg_temp.mc UNION SELECT pred FROM pg_temp.mc) k GROUP BY c) s) q;
SELECT is((em->>'f1_micro')::float8, (em->>'accuracy')::float8, 'f1_micro equals accuracy for single-label classes') FROM ev;

-- bad input
SELECT throws_like($$SELECT gbdt_evaluate(bin, 'mb', 'lab', 1.5) FROM mm$$, '%threshold 1.5 is outside [0, 1]%', 'threshold above 1');
SELECT throws_like($$SELECT gbdt_evaluate(bin, 'mb', 'lab', -0.1) FROM mm$$, '%threshold -0.1 is outside [0, 1]%', 'threshold below 0');
SELECT throws_like($$SELECT gbdt_evaluate(bin, 'mb', 'lab', 'NaN'::float8) FROM mm$$, '%threshold NaN is outside%', 'threshold NaN');

-- eval_metric aucpr: accepted, higher is better for early stopping.
CREATE TEMP TABLE mbv AS SELECT * FROM mb WHERE id % 4 = 0;
CREATE TEMP TABLE es AS
SELECT gbdt_model_info(gbdt_train('mb', 'lab', ARRAY['a', 'b'], 'binary:logistic',
         '{"num_round": 30, "eta": 0.5, "eval_metric": "aucpr", "early_stopping_rounds": 3,
           "validation_relation": "mbv"}')) AS i;
SELECT is(i->>'eval_metric', 'aucpr', 'eval_metric aucpr is accepted') FROM es;
SELECT is((i->'validation_history'->((i->>'best_iteration')::int))::float8,
          (SELECT max(v::float8) FROM jsonb_array_elements_text(i->'validation_history') v),
          'early stopping on aucpr keeps the round with the largest value') FROM es;

SELECT * FROM finish();
ROLLBACK;
