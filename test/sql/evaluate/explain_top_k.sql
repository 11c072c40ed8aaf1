-- gbdt_explain_table's top_k: per (row, class) the k features of largest
-- |contribution| and the bias, the rows gbdt_explain(model, row, top_k)
-- gives; NULL top_k = the three-argument form; a negative top_k is an error.
BEGIN;
SELECT plan(9);

CREATE TEMP TABLE xb AS
SELECT i AS id, ((i * 7919) % 1000) / 1000.0 AS a, ((i * 104729) % 997) / 997.0 AS b,
       ((i * 65537) % 983) / 983.0 AS c,
       CASE WHEN ((i * 7919) % 1000) / 1000.0 + ((i * 65537) % 983) / 983.0 > 1
            THEN 'yes' ELSE 'no' END AS lab,
       CASE WHEN ((i * 7919) % 1000) < 300 THEN 'low'
            WHEN ((i * 65537) % 983) < 500 THEN 'mid' ELSE 'high' END AS c3
FROM generate_series(1, 200) i;
CREATE TEMP TABLE xm AS
SELECT gbdt_train('xb', 'lab', ARRAY['a', 'b', 'c'], 'binary:logistic', '{"num_round": 5, "max_depth": 3}') AS bin,
       gbdt_train('xb', 'c3', ARRAY['a', 'b', 'c'], 'multi:softprob', '{"num_round": 5, "max_depth": 3}') AS multi;

SELECT is((SELECT count(*) FROM xm, gbdt_explain_table(bin, 'xb', 'id', 1)), 400::bigint, 'top_k 1: one feature and the bias per row');
SELECT is((SELECT count(*) FROM xm, gbdt_explain_table(multi, 'xb', 'id', 2)), 1800::bigint, 'multiclass top_k 2: 3 rows per row and class');
SELECT is_empty($$
  (SELECT t.key, t.feature, t.contribution, t.class FROM xm, gbdt_explain_table(bin, 'xb', 'id', 2) t
   EXCEPT SELECT x.id::text, e.feature, e.contribution, e.class FROM xb x, xm, gbdt_explain(bin, x, 2) e)
  UNION ALL
  (SELECT x.id::text, e.feature, e.contribution, e.class FROM xb x, xm, gbdt_explain(bin, x, 2) e
   EXCEPT SELECT t.key, t.feature, t.contribution, t.class FROM xm, gbdt_explain_table(bin, 'xb', 'id', 2) t)$$,
  'top_k 2 = gbdt_explain(model, row, 2) for every row');
SELECT is_empty($$
  (SELECT t.key, t.feature, t.contribution, t.class FROM xm, gbdt_explain_table(multi, 'xb', 'id', 1) t
   EXCEPT SELECT x.id::text, e.feature, e.contribution, e.class FROM xb x, xm, gbdt_explain(multi, x, 1) e)
  UNION ALL
  (SELECT x.id::text, e.feature, e.contribution, e.class FROM xb x, xm, gbdt_explain(multi, x, 1) e
   EXCEPT SELECT t.key, t.feature, t.contribution, t.class FROM xm, gbdt_explain_table(multi, 'xb', 'id', 1) t)$$,
  'multiclass top_k 1 = gbdt_explain(model, row, 1)');
SELECT is_empty($$SELECT t.key FROM xm, gbdt_explain_table(bin, 'xb', 'id', 1) t
                  JOIN gbdt_explain_table((SELECT bin FROM xm), 'xb', 'id') f ON f.key = t.key AND f.feature <> 'bias'
                  WHERE t.feature <> 'bias' GROUP BY t.key, t.contribution
                  HAVING abs(t.contribution) < max(abs(f.contribution))$$,
                'the top feature has the largest |contribution| of the row');
SELECT is((SELECT count(*) FROM xm, gbdt_explain_table(bin, 'xb', 'id', 0) WHERE feature = 'bias'), 200::bigint, 'top_k 0: the bias only');
SELECT results_eq($$SELECT t.* FROM xm, gbdt_explain_table(bin, 'xb', 'id', NULL) t$$,
                  $$SELECT t.* FROM xm, gbdt_explain_table(bin, 'xb', 'id') t$$, 'top_k NULL = every feature, in the same order');
SELECT is((SELECT count(*) FROM xm, gbdt_explain_table(bin, 'xb', 'id', 10)), 800::bigint, 'top_k above the features: all of them');
SELECT throws_like($$SELECT * FROM xm, gbdt_explain_table(bin, 'xb', 'id', -1)$$, '%top_k must be at least 0, got -1%', 'a negative top_k');

SELECT * FROM finish();
ROLLBACK;
