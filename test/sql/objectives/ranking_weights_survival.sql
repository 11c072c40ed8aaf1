-- Ranking and survival with weights, bounds and the other options:
--  * ranking with a weight column: one weight per query group (XGBoost's
--    rule), the group's LambdaMART gradients scaled by w_g * G / sum(w),
--    the ranking metrics weighted by group; two weights in one group is an
--    error naming the column, the group and the weights;
--  * survival:aft and survival:cox with a validation_relation (aft reads the
--    relation's upper bounds, early stopping on aft-nloglik) and with
--    init_model (the continued training reads the bounds of the current
--    rows; 10 + 10 rounds are the 20-round model);
--  * gbdt_evaluate of a survival:aft model: aft-nloglik and
--    interval-regression-accuracy from the model's label_upper_bound_column.
BEGIN;
SELECT plan(29);

-- ---- ranking with weights ----
-- 40 queries x 12 documents, queries interleaved; weights per query from
-- its id (w), the same x 4 (w4), all 2 (w_same); wbad differs in one row.
CREATE TEMP TABLE rw AS
SELECT i AS id, i % 40 AS qid, f0, f1, f2,
       least(4, greatest(0, floor(2.0 * f0 + f1 + 0.8 * noise)))::float8 AS rel,
       1 + (i % 40) % 3 AS w, 4 * (1 + (i % 40) % 3) AS w4, 2.0::float8 AS w_same,
       CASE WHEN i = 125 THEN 9 ELSE 1 + (i % 40) % 3 END AS wbad
FROM (SELECT i, ((i * 7919) % 1000) / 400.0 AS f0, ((i * 104729) % 997) / 500.0 AS f1,
             ((i * 31337) % 991) / 991.0 AS f2, ((i * 65537) % 983) / 983.0 - 0.5 AS noise
      FROM generate_series(0, 479) i) s;

CREATE TEMP TABLE rwm AS
SELECT 'none' AS k, gbdt_train('rw', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                               '{"group_column": "qid", "num_round": 12, "max_depth": 3}') AS m
UNION ALL
SELECT 'w', gbdt_train('rw', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                       '{"group_column": "qid", "num_round": 12, "max_depth": 3, "weight_column": "w"}')
UNION ALL
SELECT 'w4', gbdt_train('rw', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                        '{"group_column": "qid", "num_round": 12, "max_depth": 3, "weight_column": "w4"}')
UNION ALL
SELECT 'same', gbdt_train('rw', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                          '{"group_column": "qid", "num_round": 12, "max_depth": 3, "weight_column": "w_same"}')
UNION ALL
SELECT 'w6', gbdt_train('rw', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                        '{"group_column": "qid", "num_round": 6, "max_depth": 3, "weight_column": "w"}')
UNION ALL
SELECT 'pairwise', gbdt_train('rw', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:pairwise',
                              '{"group_column": "qid", "num_round": 12, "max_depth": 3, "weight_column": "w"}');

SELECT cmp_ok((SELECT count(*)::int FROM rwm a, rwm b, rw r WHERE a.k = 'none' AND b.k = 'w'
                 AND gbdt_predict(a.m, ARRAY[f0, f1, f2]) <> gbdt_predict(b.m, ARRAY[f0, f1, f2])), '>', 0,
              'rank:ndcg with group weights trains another model than without');
SELECT is((SELECT count(*)::int FROM rwm a, rwm b, rw r WHERE a.k = 'none' AND b.k = 'same'
             AND gbdt_predict(a.m, ARRAY[f0, f1, f2]) IS DISTINCT FROM gbdt_predict(b.m, ARRAY[f0, f1, f2])), 0,
          'equal group weights predict exactly as no weights (w_g * G / sum(w) = 1)');
SELECT is((SELECT count(*)::int FROM rwm a, rwm b, rw r WHERE a.k = 'w' AND b.k = 'w4'
             AND gbdt_predict(a.m, ARRAY[f0, f1, f2]) IS DISTINCT FROM gbdt_predict(b.m, ARRAY[f0, f1, f2])), 0,
          'weights scaled by 4 predict exactly as the weights (normalized by their mean)');
SELECT cmp_ok((SELECT count(*)::int FROM rwm a, rwm b, rw r WHERE a.k = 'pairwise' AND b.k = 'w'
                 AND gbdt_predict(a.m, ARRAY[f0, f1, f2]) <> gbdt_predict(b.m, ARRAY[f0, f1, f2])), '>', 0,
              'rank:pairwise takes group weights too');
SELECT is((SELECT gbdt_model_info(m)->>'eval_metric' FROM rwm WHERE k = 'w'), 'ndcg@32',
          'weighted ranking keeps the default metric');
SELECT throws_like($$SELECT gbdt_train('rw', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                                       '{"group_column": "qid", "num_round": 2, "weight_column": "wbad"}')$$,
                   '%weight column "wbad" gives query group qid = ''5'' two weights, 3 and 9%',
                   'two weights in one query group: the column, the group and both weights are named');
-- Continued training with weights: 6 + 6 rounds are the 12-round trees.
SELECT is((SELECT gbdt_export(gbdt_train('rw', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                  '{"group_column": "qid", "num_round": 6, "max_depth": 3, "weight_column": "w"}', m))
                  ->'learner'->'gradient_booster'->'model'->'trees' FROM rwm WHERE k = 'w6'),
          (SELECT gbdt_export(m)->'learner'->'gradient_booster'->'model'->'trees' FROM rwm WHERE k = 'w'),
          'weighted ranking: 6 rounds continued by 6 are the 12-round trees');
SELECT throws_like($$SELECT gbdt_train('rw', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                                       '{"group_column": "qid", "num_round": 2, "weight_column": "wbad"}',
                                       (SELECT m FROM rwm WHERE k = 'w6'))$$,
                   '%weight column "wbad" gives query group qid = ''5'' two weights, 3 and 9%',
                   'continued training checks the group weights too');
-- The weighted validation metric: one value per round, on whole groups.
SELECT is((SELECT jsonb_array_length(gbdt_model_info(gbdt_train('rw', 'rel', ARRAY['f0', 'f1', 'f2'], 'rank:ndcg',
                  '{"group_column": "qid", "num_round": 5, "weight_column": "w", "validation_fraction": 0.25,
                    "eval_metric": "map@5"}'))->'validation_history')), 5,
          'weighted ranking with a validation split: map@5 per round');
SELECT is((SELECT count(*)::int FROM rwm, rw r WHERE k = 'w'
             AND abs(gbdt_predict(gbdt_import(gbdt_export(m)), ARRAY[f0, f1, f2]) - gbdt_predict(m, ARRAY[f0, f1, f2])) > 1e-6), 0,
          'weighted ranking model: export -> import keeps every prediction');

-- ---- survival: validation_relation and init_model ----
-- sv as in objectives/survival.sql: right-, interval- and left-censored rows.
CREATE TEMP TABLE sv AS
SELECT id, x1, x2, t,
       CASE WHEN cens THEN -round((0.8 * t)::numeric, 3)::float8 ELSE t END AS tcox,
       CASE WHEN id % 17 = 0 THEN 0 WHEN id % 10 = 0 THEN round((0.7 * t)::numeric, 3)::float8
            WHEN cens THEN round((0.8 * t)::numeric, 3)::float8 ELSE t END AS lo,
       CASE WHEN id % 17 = 0 THEN t WHEN id % 10 = 0 THEN round((1.3 * t)::numeric, 3)::float8
            WHEN cens THEN NULL ELSE t END AS hi
FROM (SELECT i AS id, ((i * 37) % 100) / 10.0 AS x1, ((i * 53) % 97) / 9.7 AS x2,
             round((50.0 * exp(-0.25 * (((i * 37) % 100) / 10.0)) * (0.6 + ((i * 71) % 89) / 111.0))::numeric, 3)::float8 AS t,
             i % 3 = 0 AS cens
      FROM generate_series(1, 400) i) s;
CREATE TEMP TABLE sv_tr AS SELECT * FROM sv WHERE id % 4 <> 0;
CREATE TEMP TABLE sv_va AS SELECT * FROM sv WHERE id % 4 = 0;
CREATE TEMP TABLE sv_va_nohi AS SELECT id, x1, x2, lo FROM sv_va;
CREATE TEMP TABLE sv_va_bad AS SELECT id, x1, x2, lo, CASE WHEN id = 40 THEN lo / 2 ELSE hi END AS hi FROM sv_va;
CREATE TEMP TABLE sv_tr_nohi AS SELECT id, x1, x2, lo FROM sv_tr;

CREATE TEMP TABLE svm AS
SELECT 'aft_val' AS k, gbdt_train('sv_tr', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
       '{"num_round": 10, "max_depth": 3, "label_upper_bound_column": "hi", "validation_relation": "sv_va"}') AS m
UNION ALL
SELECT 'aft_es', gbdt_train('sv_tr', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
       '{"num_round": 200, "max_depth": 3, "eta": 0.8, "label_upper_bound_column": "hi", "validation_relation": "sv_va",
         "early_stopping_rounds": 3}')
UNION ALL
SELECT 'aft10', gbdt_train('sv_tr', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
       '{"num_round": 10, "max_depth": 3, "label_upper_bound_column": "hi", "aft_loss_distribution": "logistic"}')
UNION ALL
SELECT 'aft20', gbdt_train('sv_tr', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
       '{"num_round": 20, "max_depth": 3, "label_upper_bound_column": "hi", "aft_loss_distribution": "logistic"}')
UNION ALL
SELECT 'cox10', gbdt_train('sv_tr', 'tcox', ARRAY['x1', 'x2'], 'survival:cox', '{"num_round": 10, "max_depth": 3}')
UNION ALL
SELECT 'cox20', gbdt_train('sv_tr', 'tcox', ARRAY['x1', 'x2'], 'survival:cox', '{"num_round": 20, "max_depth": 3}')
UNION ALL
SELECT 'cox_val', gbdt_train('sv_tr', 'tcox', ARRAY['x1', 'x2'], 'survival:cox',
       '{"num_round": 10, "max_depth": 3, "validation_relation": "sv_va"}');

SELECT is((SELECT jsonb_array_length(gbdt_model_info(m)->'validation_history') FROM svm WHERE k = 'aft_val'), 10,
          'survival:aft with a validation_relation: aft-nloglik per round');
SELECT is((SELECT (gbdt_model_info(m)->>'rows_validation')::int FROM svm WHERE k = 'aft_val'), 100,
          'survival:aft: the validation relation''s 100 rows');
SELECT is((SELECT (gbdt_model_info(m)->'validation_history'->>9)::float8 FROM svm WHERE k = 'aft_val'),
          (SELECT (gbdt_evaluate(m, 'sv_va', 'lo')->>'aft-nloglik')::float8 FROM svm WHERE k = 'aft_val'),
          'the last validation aft-nloglik is gbdt_evaluate''s on the validation relation');
SELECT ok((SELECT (gbdt_model_info(m)->>'best_iteration')::int + 1 + 3 = jsonb_array_length(gbdt_model_info(m)->'validation_history')
              AND (gbdt_model_info(m)->>'best_iteration')::int + 1 = (gbdt_model_info(m)->>'rounds')::int
              AND (gbdt_model_info(m)->>'rounds')::int < 200 FROM svm WHERE k = 'aft_es'),
          'survival:aft: early stopping on aft-nloglik of the validation relation');
SELECT throws_like($$SELECT gbdt_train('sv_tr', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
                     '{"num_round": 2, "label_upper_bound_column": "hi", "validation_relation": "sv_va_nohi"}')$$,
                   '%label_upper_bound_column "hi" of the training does not exist in validation_relation "sv_va_nohi"%',
                   'a validation relation without the upper-bound column: the column is named');
SELECT throws_like($$SELECT gbdt_train('sv_tr', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
                     '{"num_round": 2, "label_upper_bound_column": "hi", "validation_relation": "sv_va_bad"}')$$,
                   '%validation_relation: label_upper_bound_column "hi" has value % below the lower bound %',
                   'the validation relation''s bounds are checked as the training''s');
SELECT is((SELECT jsonb_array_length(gbdt_model_info(m)->'validation_history') FROM svm WHERE k = 'cox_val'), 10,
          'survival:cox with a validation_relation: cox-nloglik per round');
SELECT is((SELECT (gbdt_model_info(m)->'validation_history'->>9)::float8 FROM svm WHERE k = 'cox_val'),
          (SELECT (gbdt_evaluate(m, 'sv_va', 'tcox')->>'cox-nloglik')::float8 FROM svm WHERE k = 'cox_val'),
          'survival:cox: the last validation cox-nloglik is gbdt_evaluate''s');

-- init_model: 10 + 10 rounds are the 20-round model.
CREATE TEMP TABLE svc AS
SELECT gbdt_train('sv_tr', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
                  '{"num_round": 10, "max_depth": 3, "label_upper_bound_column": "hi", "aft_loss_distribution": "logistic"}',
                  (SELECT m FROM svm WHERE k = 'aft10')) AS aft,
       gbdt_train('sv_tr', 'lo', ARRAY['x1', 'x2'], 'survival:aft', '{"num_round": 10, "max_depth": 3}',
                  (SELECT m FROM svm WHERE k = 'aft10')) AS aft_inherit,
       gbdt_train('sv_tr', 'tcox', ARRAY['x1', 'x2'], 'survival:cox', '{"num_round": 10, "max_depth": 3}',
                  (SELECT m FROM svm WHERE k = 'cox10')) AS cox;
SELECT is((SELECT gbdt_export(aft)->'learner'->'gradient_booster'->'model'->'trees' FROM svc),
          (SELECT gbdt_export(m)->'learner'->'gradient_booster'->'model'->'trees' FROM svm WHERE k = 'aft20'),
          'survival:aft: 10 rounds continued by 10 are the 20-round trees');
SELECT is((SELECT gbdt_export(aft_inherit)->'learner'->'gradient_booster'->'model'->'trees' FROM svc),
          (SELECT gbdt_export(m)->'learner'->'gradient_booster'->'model'->'trees' FROM svm WHERE k = 'aft20'),
          'survival:aft init_model: the bound column and the distribution carry over when not given');
SELECT is((SELECT gbdt_model_info(aft_inherit)->'params'->>'label_upper_bound_column' FROM svc), 'hi',
          'the continued model records the bound column');
SELECT is((SELECT gbdt_export(cox)->'learner'->'gradient_booster'->'model'->'trees' FROM svc),
          (SELECT gbdt_export(m)->'learner'->'gradient_booster'->'model'->'trees' FROM svm WHERE k = 'cox20'),
          'survival:cox: 10 rounds continued by 10 are the 20-round trees');
SELECT throws_like($$SELECT gbdt_train('sv_tr_nohi', 'lo', ARRAY['x1', 'x2'], 'survival:aft', '{"num_round": 2}',
                                       (SELECT m FROM svm WHERE k = 'aft10'))$$,
                   '%label_upper_bound_column "hi" is not a column of relation "sv_tr_nohi"%',
                   'continuing survival:aft on rows without the bound column: the column is named');
SELECT is((SELECT jsonb_array_length(gbdt_model_info(gbdt_train('sv_tr', 'lo', ARRAY['x1', 'x2'], 'survival:aft',
                  '{"num_round": 3, "validation_relation": "sv_va"}', m))->'validation_history') FROM svm WHERE k = 'aft10'),
          13, 'survival:aft init_model with a validation relation: the history covers all 13 rounds');

-- ---- gbdt_evaluate of survival models ----
SELECT ok((SELECT gbdt_evaluate(m, 'sv_va', 'lo') ?& ARRAY['aft-nloglik', 'interval-regression-accuracy']
           FROM svm WHERE k = 'aft_val'),
          'gbdt_evaluate of survival:aft: aft-nloglik and interval-regression-accuracy');
SELECT is((SELECT (gbdt_evaluate(m, 'sv_va', 'lo')->>'interval-regression-accuracy')::float8 FROM svm WHERE k = 'aft_val'),
          (SELECT avg((v.lo <= gbdt_predict(m, ARRAY[v.x1, v.x2]) AND gbdt_predict(m, ARRAY[v.x1, v.x2]) <= coalesce(v.hi, 'Infinity'))::int)::float8
           FROM svm, sv_va v WHERE k = 'aft_val'),
          'interval-regression-accuracy: the share of rows whose predicted time lies in [lower, upper]');
SELECT cmp_ok((SELECT (gbdt_evaluate(m, 'sv_va', 'lo')->>'aft-nloglik')::float8 FROM svm WHERE k = 'aft20'), '<>',
              (SELECT (gbdt_evaluate(m, 'sv_va', 'lo')->>'aft-nloglik')::float8 FROM svm WHERE k = 'aft10'),
              'aft-nloglik follows the model');
SELECT throws_like($$SELECT gbdt_evaluate(m, 'sv_va_nohi', 'lo') FROM svm WHERE k = 'aft_val'$$,
                   '%label_upper_bound_column "hi" of the survival:aft model is not a column of relation "sv_va_nohi"%',
                   'gbdt_evaluate of survival:aft on a relation without the bound column: the column is named');
SELECT ok((SELECT NOT (gbdt_evaluate(m, 'sv_va', 'tcox') ? 'rmse') AND gbdt_evaluate(m, 'sv_va', 'tcox') ? 'cox-nloglik'
           FROM svm WHERE k = 'cox_val'),
          'gbdt_evaluate of survival:cox: cox-nloglik (its predictions are hazard ratios, not times)');

SELECT * FROM finish();
ROLLBACK;
