-- Learning to rank: rank:ndcg, rank:pairwise, rank:map with a
-- query-group column (group_column, integer or text, rows of a group not
-- contiguous), the ranking metrics (ndcg@k, map@k, pre@k) in training and
-- in gbdt_evaluate(model, relation, target, group_column), whole groups in
-- the validation split, determinism over nthread, XGBoost JSON
-- export/import, and the errors.
BEGIN;
SELECT plan(36);

-- 60 queries x 15 documents; relevance 0..4 from f0, f1 plus noise; rows
-- stored with the queries interleaved (row i belongs to query i % 60).
CREATE TEMP TABLE rk AS
SELECT i AS id, i % 60 AS qid, 'query-' || (i % 60) AS qtext, f0, f1, f2,
       least(4, greatest(0, floor(2.0 * f0 + f1 + 0.8 * noise)))::float8 AS rel
FROM (SELECT i, ((i * 7919) % 1000) / 400.0 AS f0, ((i * 104729) % 997) / 500.0 AS f1,
             ((i * 31337) % 991) / 991.0 AS f2, ((i * 65537) % 983) / 983.0 - 0.5 AS noise
      FROM generate_series(0, 899) i) s
ORDER BY i;
CREATE TEMP TABLE rk_bin AS SELECT id, qid, f0, f1, f2, (rel >= 3)::int::float8 AS rel FROM rk;
-- The same rows with the queries contiguous.
CREATE TEMP TABLE rk_sorted AS SELECT * FROM rk ORDER BY qid, id;

CREATE TEMP TABLE rm AS
SELECT 'ndcg_int' AS k, gbdt_train('rk', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                                   '{"group_column": "qid", "num_round": 20, "max_depth": 4}') AS m
UNION ALL
SELECT 'ndcg_text', gbdt_train('rk', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                               '{"group_column": "qtext", "num_round": 20, "max_depth": 4}')
UNION ALL
SELECT 'ndcg_sorted', gbdt_train('rk_sorted', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                                 '{"group_column": "qid", "num_round": 20, "max_depth": 4}')
UNION ALL
SELECT 'ndcg_1round', gbdt_train('rk', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                                 '{"group_column": "qid", "num_round": 1, "max_depth": 1}')
UNION ALL
SELECT 'pairwise', gbdt_train('rk', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:pairwise',
                              '{"group_column": "qid", "num_round": 20, "max_depth": 4}')
UNION ALL
SELECT 'map', gbdt_train('rk_bin', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:map',
                         '{"group_column": "qid", "num_round": 20, "max_depth": 4}')
UNION ALL
SELECT 'default_obj', gbdt_train('rk_bin', 'rel', NULL, NULL, '{"group_column": "qid", "num_round": 5}')
UNION ALL
SELECT 'mean_t1', gbdt_train('rk', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                             '{"group_column": "qid", "num_round": 8, "lambdarank_pair_method": "mean",
                               "lambdarank_num_pair_per_sample": 4, "nthread": 1, "seed": 3}')
UNION ALL
SELECT 'mean_t2', gbdt_train('rk', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                             '{"group_column": "qid", "num_round": 8, "lambdarank_pair_method": "mean",
                               "lambdarank_num_pair_per_sample": 4, "nthread": 2, "seed": 3}')
UNION ALL
SELECT 'valid', gbdt_train('rk', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                           '{"group_column": "qid", "num_round": 10, "validation_fraction": 0.3,
                             "eval_metric": "ndcg@5", "seed": 5}')
UNION ALL
SELECT 'early', gbdt_train('rk', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                           '{"group_column": "qid", "num_round": 60, "validation_fraction": 0.3,
                             "early_stopping_rounds": 3, "eta": 1, "seed": 5}');

-- ---- objectives, defaults, recorded parameters ----
SELECT is((SELECT gbdt_model_info(m)->>'objective' FROM rm WHERE k = 'ndcg_int'), 'rank:ndcg', 'rank:ndcg trains');
SELECT is((SELECT gbdt_model_info(m)->>'eval_metric' FROM rm WHERE k = 'ndcg_int'), 'ndcg@32',
          'rank:ndcg default metric: ndcg@32 (XGBoost: truncation of topk)');
SELECT is((SELECT gbdt_model_info(m)->'params'->>'group_column' FROM rm WHERE k = 'ndcg_int'), 'qid',
          'group_column recorded in the params');
SELECT is((SELECT gbdt_model_info(m)->'params'->>'lambdarank_pair_method' FROM rm WHERE k = 'ndcg_int'), 'topk',
          'lambdarank_pair_method defaults to topk');
SELECT is((SELECT gbdt_model_info(m)->>'objective' FROM rm WHERE k = 'pairwise'), 'rank:pairwise', 'rank:pairwise trains');
SELECT is((SELECT gbdt_model_info(m)->>'eval_metric' FROM rm WHERE k = 'map'), 'map@32', 'rank:map trains, default metric map@32');
SELECT is((SELECT gbdt_model_info(m)->>'objective' FROM rm WHERE k = 'default_obj'), 'rank:ndcg',
          'group_column without an objective: rank:ndcg');
SELECT is((SELECT jsonb_array_length(gbdt_model_info(m)->'features') FROM rm WHERE k = 'default_obj'), 3,
          'default features leave out the group column and the unique id (f0, f1, f2; not qid, id)');
SELECT is((SELECT gbdt_model_info(m)->>'eval_metric' FROM rm WHERE k = 'mean_t1'), 'ndcg',
          'mean pair method: default metric ndcg (no truncation)');
SELECT is((SELECT (gbdt_model_info(m)->>'base_score')::float8 FROM rm WHERE k = 'ndcg_int'), 0::float8,
          'ranking intercept 0');

-- ---- quality and grouping ----
SELECT cmp_ok((SELECT (gbdt_evaluate(m, 'rk', 'rel', 'qid')->>'ndcg@10')::float8 FROM rm WHERE k = 'ndcg_int'), '>',
              (SELECT (gbdt_evaluate(m, 'rk', 'rel', 'qid')->>'ndcg@10')::float8 FROM rm WHERE k = 'ndcg_1round') + 0.02,
              '20 rounds rank better than 1 (ndcg@10)');
SELECT cmp_ok((SELECT (gbdt_evaluate(m, 'rk', 'rel', 'qid')->>'ndcg@10')::float8 FROM rm WHERE k = 'ndcg_int'), '>', 0.9::float8,
              'training NDCG@10 above 0.9');
SELECT is((SELECT count(*)::int FROM rk, rm a, rm b WHERE a.k = 'ndcg_int' AND b.k = 'ndcg_text'
           AND gbdt_predict(a.m, rk) <> gbdt_predict(b.m, rk)), 0,
          'a text group column gives the same model as the integer one');
SELECT is((SELECT count(*)::int FROM rk, rm a, rm b WHERE a.k = 'ndcg_int' AND b.k = 'ndcg_sorted'
           AND abs(gbdt_predict(a.m, rk) - gbdt_predict(b.m, rk)) > 1e-6), 0,
          'interleaved rows are grouped by value: same model as with contiguous queries');
SELECT is((SELECT (gbdt_evaluate(m, 'rk', 'rel', 'qid')->>'groups')::int FROM rm WHERE k = 'ndcg_int'), 60,
          'gbdt_evaluate groups the interleaved rows into the 60 queries');
-- NDCG@10 computed here from gbdt_predict equals gbdt_evaluate's.
SELECT ok(abs((WITH p AS (SELECT qid, rel, gbdt_predict(m, rk) AS s, id FROM rk, rm WHERE k = 'ndcg_int'),
                    r AS (SELECT qid, rel, row_number() OVER (PARTITION BY qid ORDER BY s DESC, id) AS pos,
                                 row_number() OVER (PARTITION BY qid ORDER BY rel DESC) AS ipos FROM p),
                    g AS (SELECT qid,
                                 sum(CASE WHEN pos <= 10 THEN (2 ^ rel - 1) / log(2, pos + 1) ELSE 0 END) AS dcg,
                                 sum(CASE WHEN ipos <= 10 THEN (2 ^ rel - 1) / log(2, ipos + 1) ELSE 0 END) AS idcg
                          FROM r GROUP BY qid)
               SELECT avg(CASE WHEN idcg > 0 THEN dcg / idcg ELSE 1 END) FROM g)
              - (SELECT (gbdt_evaluate(m, 'rk', 'rel', 'qid')->>'ndcg@10')::float8 FROM rm WHERE k = 'ndcg_int')) < 1e-9,
          'gbdt_evaluate ndcg@10 equals NDCG@10 computed in SQL');
SELECT ok((SELECT (e->>'map')::float8 BETWEEN 0 AND 1 AND (e->>'pre@5')::float8 BETWEEN 0 AND 1 AND e ? 'ndcg@32'
           FROM (SELECT gbdt_evaluate(m, 'rk', 'rel', 'qid') AS e FROM rm WHERE k = 'ndcg_int') x),
          'gbdt_evaluate reports map, pre@k and the model''s own metric');
SELECT cmp_ok((SELECT (gbdt_evaluate(m, 'rk_bin', 'rel', 'qid')->>'map')::float8 FROM rm WHERE k = 'map'), '>', 0.8::float8,
              'rank:map: training MAP above 0.8');
SELECT cmp_ok((SELECT (gbdt_model_info(m)->>'train_metric')::float8 FROM rm WHERE k = 'pairwise'), '>', 0.85::float8,
              'rank:pairwise: training ndcg@32 above 0.85');

-- ---- determinism, validation by group, early stopping ----
SELECT is((SELECT gbdt_export(m)::text FROM rm WHERE k = 'mean_t1'), (SELECT gbdt_export(m)::text FROM rm WHERE k = 'mean_t2'),
          'mean pair sampling: same model with nthread 1 and 2');
SELECT ok((SELECT (gbdt_model_info(m)->>'rows_validation')::int % 15 = 0 AND (gbdt_model_info(m)->>'rows_validation')::int > 0
           FROM rm WHERE k = 'valid'), 'validation split keeps queries whole (a multiple of 15 rows)');
SELECT is((SELECT jsonb_array_length(gbdt_model_info(m)->'validation_history') FROM rm WHERE k = 'valid'), 10,
          'validation ndcg@5 recorded every round');
SELECT ok((SELECT (gbdt_model_info(m)->>'best_iteration')::int < 59 FROM rm WHERE k = 'early'),
          'early stopping on ndcg (higher is better) stops before the last round');

-- ---- export / import ----
SELECT is((SELECT gbdt_export(m)->'learner'->'objective'->>'name' FROM rm WHERE k = 'pairwise'), 'rank:pairwise',
          'gbdt_export writes the rank objective');
SELECT is((SELECT gbdt_export(m)->'learner'->'objective'->'lambdarank_param'->>'lambdarank_pair_method' FROM rm WHERE k = 'mean_t1'),
          'mean', 'gbdt_export writes lambdarank_param');
SELECT is((SELECT count(*)::int FROM rk, rm WHERE k = 'map'
           AND gbdt_predict(gbdt_import(gbdt_export(m)), rk) <> gbdt_predict(m, rk)), 0,
          'export -> import scores identically');

-- ---- errors ----
SELECT throws_like($$SELECT gbdt_train('rk', 'rel', NULL, 'rank:ndcg', '{"group_column": "query"}')$$,
                   '%group_column "query" is not a column of relation "rk"%', 'unknown group column is named');
CREATE TEMP TABLE rk_null AS SELECT * FROM rk;
UPDATE rk_null SET qid = NULL WHERE id = 17;
SELECT throws_like($$SELECT gbdt_train('rk_null', 'rel', ARRAY['f0'], 'rank:ndcg', '{"group_column": "qid"}')$$,
                   '%group_column "qid" is NULL%', 'NULL group value: error naming the column');
SELECT throws_like($$SELECT gbdt_train('rk', 'rel', ARRAY['f0'], 'reg:squarederror', '{"group_column": "qid"}')$$,
                   '%"group_column" is only for the ranking objectives%', 'group_column with a non-ranking objective');
SELECT throws_like($$SELECT gbdt_train('rk', 'rel', ARRAY['f0'], 'rank:pairwise', '{}')$$,
                   '%rank:pairwise needs query groups: pass group_column%', 'ranking objective without group_column');
SELECT throws_like($$SELECT gbdt_train('rk', 'rel', ARRAY['f0'], 'rank:map', '{"group_column": "qid"}')$$,
                   '%target column "rel" has value %rank:map needs binary relevance labels 0 or 1%',
                   'rank:map refuses graded labels');
SELECT throws_like($$SELECT gbdt_train('rk', 'rel', ARRAY['f0'], 'rank:ndcg', '{"group_column": "qid", "lambdarank_pair_method": "all"}')$$,
                   '%"lambdarank_pair_method" = "all" is not supported: must be topk or mean%', 'bad pair method named');
SELECT throws_like($$SELECT gbdt_train('rk', 'rel', ARRAY['f0'], 'rank:ndcg', '{"group_column": "qid", "lambdarank_num_pair_per_sample": 0}')$$,
                   '%"lambdarank_num_pair_per_sample" = 0 is out of range%', 'bad pair count named');
SELECT throws_like($$SELECT gbdt_train('rk', 'rel', ARRAY['f0'], 'reg:squarederror', '{"eval_metric": "ndcg@10"}')$$,
                   '%"eval_metric" = "ndcg@10" needs query groups%', 'ranking metric without groups');
SELECT throws_like($$SELECT gbdt_train('rk', 'rel', ARRAY['f0', 'qid'], 'rank:ndcg', '{"group_column": "qid"}')$$,
                   '%column "qid" is the group_column and cannot also be a feature%', 'group column listed as a feature');
SELECT throws_like($$SELECT gbdt_evaluate(m, 'rk', 'rel') FROM rm WHERE k = 'ndcg_int'$$,
                   '%evaluated per query group: pass group_column%', 'gbdt_evaluate of a ranking model asks for group_column');

SELECT * FROM finish();
ROLLBACK;
