-- gbdt_predict_proba_table equals gbdt_predict_proba row by row;
-- gbdt_predict_table's output argument: 'class' equals gbdt_predict_class,
-- 'value' the three-argument form's prediction; bad outputs are errors.
BEGIN;
SELECT plan(14);

CREATE TEMP TABLE pb AS
SELECT i AS id, ((i * 7919) % 1000) / 1000.0 AS a, ((i * 104729) % 997) / 997.0 AS b,
       CASE WHEN ((i * 7919) % 1000) / 1000.0 + ((i * 65537) % 983) / 983.0 > 1
            THEN 'yes' ELSE 'no' END AS lab,
       CASE WHEN ((i * 7919) % 1000) < 300 THEN 'low'
            WHEN ((i * 65537) % 983) < 500 THEN 'mid' ELSE 'high' END AS c3,
       (((i * 7919) % 1000) / 1000.0 * 3 + ((i * 65537) % 983) / 983.0)::float8 AS yr
FROM generate_series(1, 700) i;

CREATE TEMP TABLE pm AS
SELECT gbdt_train('pb', 'lab', ARRAY['a', 'b'], 'binary:logistic', '{"num_round": 6, "max_depth": 2}') AS bin,
       gbdt_train('pb', 'lab', ARRAY['a', 'b'], 'binary:logitraw', '{"num_round": 6, "max_depth": 2}') AS raw,
       gbdt_train('pb', 'c3', ARRAY['a', 'b'], 'multi:softprob', '{"num_round": 6, "max_depth": 2}') AS multi,
       gbdt_train('pb', 'yr', ARRAY['a', 'b'], 'reg:squarederror', '{"num_round": 3}') AS reg;

SELECT is((SELECT count(*) FROM pm, gbdt_predict_proba_table(bin, 'pb', 'id')), 1400::bigint, 'binary: two rows per row');
SELECT is_empty($$
  (SELECT t.key, t.class, t.probability FROM pm, gbdt_predict_proba_table(bin, 'pb', 'id') t
   EXCEPT SELECT p.id::text, q.class_name, q.probability FROM pb p, pm, gbdt_predict_proba(bin, p) q)
  UNION ALL
  (SELECT p.id::text, q.class_name, q.probability FROM pb p, pm, gbdt_predict_proba(bin, p) q
   EXCEPT SELECT t.key, t.class, t.probability FROM pm, gbdt_predict_proba_table(bin, 'pb', 'id') t)$$,
  'binary: gbdt_predict_proba_table = gbdt_predict_proba row by row (same bits)');
SELECT is((SELECT count(*) FROM pm, gbdt_predict_proba_table(multi, 'pb', 'id')), 2100::bigint, 'multiclass: one row per row and class');
SELECT is_empty($$
  (SELECT t.key, t.class, t.probability FROM pm, gbdt_predict_proba_table(multi, 'pb', 'id') t
   EXCEPT SELECT p.id::text, q.class_name, q.probability FROM pb p, pm, gbdt_predict_proba(multi, p) q)
  UNION ALL
  (SELECT p.id::text, q.class_name, q.probability FROM pb p, pm, gbdt_predict_proba(multi, p) q
   EXCEPT SELECT t.key, t.class, t.probability FROM pm, gbdt_predict_proba_table(multi, 'pb', 'id') t)$$,
  'multiclass: gbdt_predict_proba_table = gbdt_predict_proba row by row');
SELECT is_empty($$SELECT key FROM pm, gbdt_predict_proba_table(multi, 'pb', 'id') GROUP BY key
                  HAVING abs(sum(probability) - 1) > 1e-12$$, 'each row''s probabilities sum to 1');
-- through a view (the reader path rather than the direct heap scan)
CREATE TEMP VIEW pv AS SELECT * FROM pb WHERE id <= 100;
SELECT is((SELECT count(*) FROM pm, gbdt_predict_proba_table(multi, 'pv', 'id')), 300::bigint, 'a view is read too');

-- output => 'class' / 'value'
SELECT is_empty($$SELECT t.key FROM pm, gbdt_predict_table(multi, 'pb', 'id', output => 'class') t
                  JOIN pb p ON p.id::text = t.key WHERE t.prediction IS DISTINCT FROM gbdt_predict_class(pm.multi, p)$$,
                'multiclass output class = gbdt_predict_class');
SELECT is_empty($$SELECT t.key FROM pm, gbdt_predict_table(bin, 'pb', 'id', 'class') t
                  JOIN pb p ON p.id::text = t.key WHERE t.prediction IS DISTINCT FROM gbdt_predict_class(pm.bin, p)$$,
                'binary output class = gbdt_predict_class');
SELECT is_empty($$SELECT t.key FROM pm, gbdt_predict_table(raw, 'pb', 'id', 'class') t
                  JOIN pb p ON p.id::text = t.key WHERE t.prediction IS DISTINCT FROM gbdt_predict_class(pm.raw, p)$$,
                'binary:logitraw output class = gbdt_predict_class');
SELECT ok((SELECT count(DISTINCT prediction) FROM pm, gbdt_predict_table(multi, 'pb', 'id', 'class')) > 1
          AND (SELECT bool_and(prediction IN ('low', 'mid', 'high')) FROM pm, gbdt_predict_table(multi, 'pb', 'id', 'class')),
          'class names, not class indices');
SELECT is_empty($$SELECT v.key FROM pm, gbdt_predict_table(reg, 'pb', 'id', 'value') v
                  JOIN gbdt_predict_table((SELECT reg FROM pm), 'pb', 'id') f ON f.key = v.key
                  WHERE v.prediction::float8 <> f.prediction$$, 'output value = the three-argument prediction');

-- bad input
SELECT throws_like($$SELECT * FROM pm, gbdt_predict_table(reg, 'pb', 'id', output => 'class')$$,
  '%output "class" needs a classification model, not objective reg:squarederror%', 'output class on a regression model');
SELECT throws_like($$SELECT * FROM pm, gbdt_predict_table(bin, 'pb', 'id', output => 'label')$$,
  '%output "label" is not one of value, class%', 'an unknown output');
SELECT throws_like($$SELECT * FROM pm, gbdt_predict_proba_table(reg, 'pb', 'id')$$,
  '%gbdt_predict_proba_table: the model is not a classifier (objective reg:squarederror)%', 'probabilities of a regression model');

SELECT * FROM finish();
ROLLBACK;
