-- gbdt_evaluate(model, relation, target, group_column,
-- weight_column): ranking metrics weighted by the query groups' weights, as
-- XGBoost (one weight per group, every row of the group carrying it):
-- sum(w_g * metric_g) / sum(w_g), where an ndcg group without relevant
-- documents adds 1 unweighted (XGBoost 3.x's EvalNDCG) but its weight still
-- counts in sum(w).  The expected values are computed here in SQL.
BEGIN;
SELECT plan(15);

-- 30 queries x 10 documents, interleaved; query 7 has no relevant document.
CREATE TEMP TABLE ew AS
SELECT i AS id, i % 30 AS qid, f0, f1,
       CASE WHEN i % 30 = 7 THEN 0
            ELSE least(3, greatest(0, floor(0.8 * f0 + 0.5 * f1 + 3 * noise))) END::float8 AS rel,
       (1 + (i % 30) % 4)::float8 AS w, (5 * (1 + (i % 30) % 4))::float8 AS w5, 2.5::float8 AS w_same,
       CASE WHEN i = 47 THEN 9 ELSE 1 + (i % 30) % 4 END::float8 AS wbad,
       CASE WHEN i = 47 THEN NULL ELSE 1 END::float8 AS wnull,
       CASE WHEN i % 30 = 3 THEN -1 ELSE 1 END::float8 AS wneg,
       'heavy'::text AS wtext
FROM (SELECT i, ((i * 7919) % 1000) / 400.0 AS f0, ((i * 104729) % 997) / 500.0 AS f1,
             ((i * 65537) % 983) / 983.0 - 0.5 AS noise
      FROM generate_series(0, 299) i) s;

CREATE TEMP TABLE ewm AS
SELECT gbdt_train('ew', 'rel', ARRAY['f0', 'f1'], 'rank:ndcg',
                  '{"group_column": "qid", "num_round": 2, "max_depth": 2, "eval_metric": "ndcg@3"}') AS m;

-- Per group: its weight, ndcg@3 (exponential gain; predictions descending,
-- ties in row order) and whether it has a relevant document.
CREATE TEMP TABLE ew_groups AS
WITH p AS (SELECT e.*, gbdt_predict(m, ARRAY[f0, f1]) AS pr FROM ew e, ewm),
     r AS (SELECT qid, w, rel,
                  row_number() OVER (PARTITION BY qid ORDER BY pr DESC, id) AS rk,
                  row_number() OVER (PARTITION BY qid ORDER BY rel DESC) AS ik
           FROM p)
SELECT qid, max(w) AS w,
       sum(CASE WHEN rk <= 3 THEN (2 ^ rel - 1) / log(2, rk + 1) ELSE 0 END) AS dcg,
       sum(CASE WHEN ik <= 3 THEN (2 ^ rel - 1) / log(2, ik + 1) ELSE 0 END) AS idcg
FROM r GROUP BY qid;

CREATE TEMP TABLE ew_eval AS
SELECT gbdt_evaluate(m, 'ew', 'rel', 'qid') AS plain,
       gbdt_evaluate(m, 'ew', 'rel', 'qid', 'w') AS weighted,
       gbdt_evaluate(m, 'ew', 'rel', 'qid', 'w5') AS weighted5,
       gbdt_evaluate(m, 'ew', 'rel', 'qid', 'w_same') AS same
FROM ewm;

SELECT ok((SELECT abs((weighted->>'ndcg@3')::float8 -
                      (SELECT sum(CASE WHEN idcg > 0 THEN w * dcg / idcg ELSE 1 END) / sum(w) FROM ew_groups))
                  < 1e-9 FROM ew_eval),
          'weighted ndcg@3 = sum(w_g * ndcg_g) / sum(w_g), the group without relevant documents adding 1 unweighted');
SELECT ok((SELECT abs((plain->>'ndcg@3')::float8 -
                      (SELECT avg(CASE WHEN idcg > 0 THEN dcg / idcg ELSE 1 END) FROM ew_groups))
                  < 1e-9 FROM ew_eval),
          'without a weight column ndcg@3 is the plain mean over groups');
SELECT ok((SELECT abs((weighted->>'ndcg@3')::float8 - (plain->>'ndcg@3')::float8) > 1e-4 FROM ew_eval),
          'the weights change ndcg@3');
SELECT is((SELECT format('%s rows, %s groups', weighted->>'rows', weighted->>'groups') FROM ew_eval),
          '300 rows, 30 groups', 'weighted: every row and group read');
SELECT ok((SELECT bool_and(abs((weighted->>k)::float8 - (weighted5->>k)::float8) < 1e-12)
           FROM ew_eval, unnest(ARRAY['map', 'map@10', 'pre@5', 'pre@10']) k),
          'weights scaled by 5 give the same map and pre (normalized by sum(w))');
SELECT ok((SELECT bool_and(abs((same->>k)::float8 - (plain->>k)::float8) < 1e-12)
           FROM ew_eval, unnest(ARRAY['map', 'map@10', 'pre@5', 'pre@10']) k),
          'equal weights give the unweighted map and pre');
-- XGBoost's ndcg is not scale-free: the empty group adds 1 whatever its weight.
SELECT ok((SELECT abs((same->>'ndcg@3')::float8 -
                      (SELECT (sum(CASE WHEN idcg > 0 THEN 2.5 * dcg / idcg ELSE 1 END)) / (2.5 * count(*))
                       FROM ew_groups)) < 1e-9 FROM ew_eval),
          'equal weights 2.5: ndcg@3 = (2.5 * sum(ndcg_g) + 1) / (2.5 * groups), as XGBoost');
SELECT ok((SELECT (weighted->>'map@10')::float8 <> (plain->>'map@10')::float8 FROM ew_eval),
          'map@10 is weighted too');
SELECT is((SELECT gbdt_evaluate(m, 'ew', 'rel', 'qid', NULL) FROM ewm), NULL,
          'a NULL weight_column gives NULL (STRICT)');

-- ---- errors ----
SELECT throws_like($$SELECT gbdt_evaluate(m, 'ew', 'rel', 'qid', 'wbad') FROM ewm$$,
                   '%weight column "wbad" gives query group qid = ''17'' two weights, 2 and 9%',
                   'two weights in one query group: the column, the group and both weights are named');
SELECT throws_like($$SELECT gbdt_evaluate(m, 'ew', 'rel', 'qid', 'wnull') FROM ewm$$,
                   '%weight column "wnull" contains NULL%', 'a NULL weight is an error');
SELECT throws_like($$SELECT gbdt_evaluate(m, 'ew', 'rel', 'qid', 'wneg') FROM ewm$$,
                   '%weight column "wneg" contains -1: weights must be finite and >= 0%',
                   'a negative weight is an error naming the value');
SELECT throws_like($$SELECT gbdt_evaluate(m, 'ew', 'rel', 'qid', 'nosuch') FROM ewm$$,
                   '%nosuch%', 'an unknown weight column is an error naming it');
SELECT throws_like($$SELECT gbdt_evaluate(m, 'ew', 'rel', 'qid', 'wtext') FROM ewm$$,
                   '%weight column "wtext" has unsupported type text%', 'a text weight column is an error');
SELECT throws_like($$SELECT gbdt_evaluate(m, 'ew', 'rel', 'qid', 'rel') FROM ewm$$,
                   '%weight_column "rel" is the target%', 'the target as weight column is an error');

SELECT * FROM finish();
ROLLBACK;
