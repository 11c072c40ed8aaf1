-- gbdt_roc_curve, gbdt_confusion_matrix and gbdt_calibration: the ROC
-- curve's trapezoid area is gbdt_evaluate's AUC, its points are the counts
-- at each distinct prediction, the confusion matrix sums to the rows and
-- matches the predictions at the threshold, calibration bins match SQL.
BEGIN;
SELECT plan(21);

CREATE TEMP TABLE cb AS
SELECT i AS id, ((i * 7919) % 1000) / 1000.0 AS a, ((i * 104729) % 997) / 997.0 AS b,
       CASE WHEN ((i * 7919) % 1000) / 1000.0 + ((i * 65537) % 983) / 983.0 > 1
            THEN 'yes' ELSE 'no' END AS lab,
       CASE WHEN ((i * 7919) % 1000) < 300 THEN 'low'
            WHEN ((i * 65537) % 983) < 500 THEN 'mid' ELSE 'high' END AS c3,
       (((i * 7919) % 1000) / 1000.0 * 3 + ((i * 65537) % 983) / 983.0)::float8 AS yr,
       CASE WHEN i % 97 = 0 THEN NULL ELSE 1 END AS maybe
FROM generate_series(1, 600) i;
CREATE TEMP TABLE cb_one AS SELECT * FROM cb WHERE lab = 'yes';

CREATE TEMP TABLE cm AS
SELECT gbdt_train('cb', 'lab', ARRAY['a', 'b'], 'binary:logistic', '{"num_round": 6, "max_depth": 2}') AS bin,
       gbdt_train('cb', 'lab', ARRAY['a', 'b'], 'binary:logitraw', '{"num_round": 6, "max_depth": 2}') AS raw,
       gbdt_train('cb', 'c3', ARRAY['a', 'b'], 'multi:softprob', '{"num_round": 6, "max_depth": 2}') AS multi,
       gbdt_train('cb', 'yr', ARRAY['a', 'b'], 'reg:squarederror', '{"num_round": 3}') AS reg;
CREATE TEMP TABLE cp AS
SELECT id, lab, (lab = 'yes')::int AS y, gbdt_predict(bin, ARRAY[a, b]) AS p FROM cb, cm;

CREATE TEMP TABLE roc AS SELECT r.* FROM cm, gbdt_roc_curve(bin, 'cb', 'lab') r;

SELECT is((SELECT count(*) FROM roc), (SELECT count(DISTINCT p) + 1 FROM cp), 'one point per distinct prediction and one at +Infinity');
SELECT is((SELECT threshold FROM roc ORDER BY threshold DESC LIMIT 1), 'Infinity'::float8, 'the first point is at +Infinity');
SELECT ok((SELECT tpr = 0 AND fpr = 0 AND "precision" = 1 FROM roc WHERE threshold = 'Infinity'), 'the first point is (0, 0), precision 1');
SELECT ok((SELECT tpr = 1 AND fpr = 1 FROM roc ORDER BY threshold LIMIT 1), 'the last point is (1, 1)');
SELECT ok(abs(area - (gbdt_evaluate(bin, 'cb', 'lab')->>'auc')::float8) < 1e-12, 'trapezoid area of the ROC curve = auc')
FROM cm, (SELECT sum((fpr - lf) * (tpr + lt) / 2) AS area
          FROM (SELECT fpr, tpr, lag(fpr) OVER w AS lf, lag(tpr) OVER w AS lt
                FROM roc WINDOW w AS (ORDER BY threshold DESC)) s WHERE lf IS NOT NULL) q;
SELECT is_empty($$
  SELECT r.threshold FROM roc r,
    LATERAL (SELECT count(*) FILTER (WHERE p >= r.threshold AND y = 1)::float8 / sum(y) AS tpr,
                    count(*) FILTER (WHERE p >= r.threshold AND y = 0)::float8 / sum(1 - y) AS fpr,
                    count(*) FILTER (WHERE p >= r.threshold AND y = 1)::float8
                      / nullif(count(*) FILTER (WHERE p >= r.threshold), 0) AS pr FROM cp) c
  WHERE r.threshold < 'Infinity' AND (r.tpr <> c.tpr OR r.fpr <> c.fpr OR r.recall <> c.tpr OR r."precision" <> c.pr)$$,
  'every point counts the rows with p >= threshold');
SELECT ok(abs(area - (gbdt_evaluate(raw, 'cb', 'lab')->>'auc')::float8) < 1e-12, 'binary:logitraw: the curve of its probabilities')
FROM cm, (SELECT sum((fpr - lf) * (tpr + lt) / 2) AS area
          FROM (SELECT fpr, tpr, lag(fpr) OVER w AS lf, lag(tpr) OVER w AS lt
                FROM gbdt_roc_curve((SELECT raw FROM cm), 'cb', 'lab') WINDOW w AS (ORDER BY threshold DESC)) s
          WHERE lf IS NOT NULL) q;

-- confusion matrix
SELECT results_eq($$SELECT actual, predicted, count FROM cm, gbdt_confusion_matrix(bin, 'cb', 'lab') ORDER BY 1, 2$$,
  $$SELECT a.lab, pr.lab, count(cp.id) FROM (VALUES ('no'), ('yes')) a(lab) CROSS JOIN (VALUES ('no'), ('yes')) pr(lab)
      LEFT JOIN cp ON cp.lab = a.lab AND (CASE WHEN cp.p > 0.5 THEN 'yes' ELSE 'no' END) = pr.lab
    GROUP BY 1, 2 ORDER BY 1, 2$$, 'binary confusion matrix at 0.5: class names, every pair');
SELECT results_eq($$SELECT actual, predicted, count FROM cm, gbdt_confusion_matrix(bin, 'cb', 'lab', threshold => 0.2) ORDER BY 1, 2$$,
  $$SELECT a.lab, pr.lab, count(cp.id) FROM (VALUES ('no'), ('yes')) a(lab) CROSS JOIN (VALUES ('no'), ('yes')) pr(lab)
      LEFT JOIN cp ON cp.lab = a.lab AND (CASE WHEN cp.p > 0.2 THEN 'yes' ELSE 'no' END) = pr.lab
    GROUP BY 1, 2 ORDER BY 1, 2$$, 'binary confusion matrix at threshold 0.2');
SELECT is((SELECT sum(count) FROM cm, gbdt_confusion_matrix(multi, 'cb', 'c3')), 600::numeric, 'multiclass confusion matrix sums to the rows');
SELECT is((SELECT count(*) FROM cm, gbdt_confusion_matrix(multi, 'cb', 'c3')), 9::bigint, 'multiclass: every pair of the 3 classes');
SELECT results_eq($$SELECT actual, predicted, count FROM cm, gbdt_confusion_matrix(multi, 'cb', 'c3') WHERE count > 0 ORDER BY 1, 2$$,
  $$SELECT c3, pred, count(*) FROM (SELECT c3, (SELECT class_name FROM gbdt_predict_proba(multi, cb) ORDER BY probability DESC LIMIT 1) AS pred
                                    FROM cb, cm) s GROUP BY 1, 2 ORDER BY 1, 2$$, 'multiclass: the most probable class');
SELECT is((SELECT sum(count) FROM cm, gbdt_confusion_matrix(bin, 'cb', 'lab')
           WHERE actual = predicted)::float8 / 600, (SELECT (gbdt_evaluate(bin, 'cb', 'lab')->>'accuracy')::float8 FROM cm),
          'the diagonal share is the accuracy');

-- calibration
SELECT results_eq($$SELECT g.bin, mean_predicted, observed_rate, count FROM cm, gbdt_calibration(cm.bin, 'cb', 'lab', 5) g ORDER BY g.bin$$,
  $$SELECT k, avg(p), avg(y::float8), count(*) FROM (SELECT least(floor(p * 5), 4)::int + 1 AS k, p, y FROM cp) s GROUP BY k ORDER BY k$$,
  'calibration with 5 bins = the SQL bins');
SELECT is((SELECT sum(count) FROM cm, gbdt_calibration(bin, 'cb', 'lab')), 600::numeric, 'calibration (10 bins by default) counts every row');

-- bad input
SELECT throws_like($$SELECT * FROM cm, gbdt_confusion_matrix(reg, 'cb', 'yr')$$, '%gbdt_confusion_matrix needs a classification model, not objective reg:squarederror%', 'a regression model in gbdt_confusion_matrix');
SELECT throws_like($$SELECT * FROM cm, gbdt_confusion_matrix(bin, 'cb', 'lab', 1.5)$$, '%threshold 1.5 is outside [0, 1]%', 'confusion matrix threshold above 1');
SELECT throws_like($$SELECT * FROM cm, gbdt_roc_curve(multi, 'cb', 'c3')$$, '%gbdt_roc_curve needs a binary classification model, not objective multi:softprob%', 'ROC curve of a multiclass model');
SELECT throws_like($$SELECT * FROM cm, gbdt_roc_curve(bin, 'cb_one', 'lab')$$, '%has no rows of class 0; the ROC curve is undefined%', 'ROC curve with one class');
SELECT throws_like($$SELECT * FROM cm, gbdt_calibration(bin, 'cb', 'lab', 0)$$, '%bins 0 is outside [1, 10000]%', 'calibration with 0 bins');
SELECT throws_like($$SELECT * FROM cm, gbdt_calibration(reg, 'cb', 'yr')$$, '%gbdt_calibration needs a binary classification model%', 'calibration of a regression model');

SELECT * FROM finish();
ROLLBACK;
