-- Cross-feature gaps found by the combination sweep ("no input may
-- crash the server"; test/unit/test_feature_combinations.cpp):
--  * a ranking objective with a validation_relation: the validation rows'
--    query groups come from the relation's column named as group_column
--    (before, the rows had no groups and the ranking metric read a null
--    group array: the backend crashed); the relation without that column
--    is an error naming it;
--  * the same with init_model: the init model's rounds are scored on the
--    validation rows with the ranking metric (one value per round of the
--    whole model).
BEGIN;
SELECT plan(7);

-- 30 queries x 12 documents for training, 10 x 12 for validation.
CREATE TEMP TABLE rk AS
SELECT i AS id, i % 40 AS qid, f0, f1,
       least(4, greatest(0, floor(2.0 * f0 + f1 + 0.8 * noise)))::float8 AS rel
FROM (SELECT i, ((i * 7919) % 1000) / 400.0 AS f0, ((i * 104729) % 997) / 500.0 AS f1,
             ((i * 65537) % 983) / 983.0 - 0.5 AS noise
      FROM generate_series(0, 479) i) s;
CREATE TEMP TABLE rk_tr AS SELECT * FROM rk WHERE qid < 30;
CREATE TEMP TABLE rk_va AS SELECT * FROM rk WHERE qid >= 30;
CREATE TEMP TABLE rk_va_noqid AS SELECT id, f0, f1, rel FROM rk_va;

CREATE TEMP TABLE rkm AS
SELECT gbdt_train('rk_tr', 'rel', ARRAY['f0', 'f1'], 'rank:ndcg',
                  '{"group_column": "qid", "num_round": 6, "max_depth": 3, "validation_relation": "rk_va"}') AS m,
       gbdt_train('rk_tr', 'rel', ARRAY['f0', 'f1'], 'rank:ndcg',
                  '{"group_column": "qid", "num_round": 4, "max_depth": 3}') AS m4;

SELECT is((SELECT jsonb_array_length(gbdt_model_info(m)->'validation_history') FROM rkm), 6,
          'rank:ndcg with a validation_relation: ndcg@32 per round');
SELECT is((SELECT (gbdt_model_info(m)->>'rows_validation')::int FROM rkm), 120,
          'rank:ndcg: the validation relation''s 120 rows');
SELECT ok((SELECT abs((gbdt_model_info(m)->'validation_history'->>5)::float8
                      - (gbdt_evaluate(m, 'rk_va', 'rel', 'qid')->>'ndcg@32')::float8) < 1e-6 FROM rkm),
          'the last validation ndcg@32 is gbdt_evaluate''s per query group of the relation');
SELECT throws_like($$SELECT gbdt_train('rk_tr', 'rel', ARRAY['f0', 'f1'], 'rank:ndcg',
                     '{"group_column": "qid", "num_round": 2, "validation_relation": "rk_va_noqid"}')$$,
                   '%group_column "qid" of the training does not exist in validation_relation "rk_va_noqid"%',
                   'a validation_relation without the group column: an error naming it');

-- Continued training: 4 rounds of the init model, 3 more; the history
-- covers the 7 rounds, the init model's scored per query group.
CREATE TEMP TABLE rkc AS
SELECT gbdt_train('rk_tr', 'rel', ARRAY['f0', 'f1'], 'rank:ndcg',
                  '{"group_column": "qid", "num_round": 3, "max_depth": 3, "validation_relation": "rk_va"}',
                  init_model => m4) AS c
FROM rkm;
SELECT is((SELECT (gbdt_model_info(c)->>'rounds')::int FROM rkc), 7, 'init_model 4 rounds + 3: 7 rounds');
SELECT is((SELECT jsonb_array_length(gbdt_model_info(c)->'validation_history') FROM rkc), 7,
          'continued ranking training: one validation ndcg per round of the whole model');
SELECT ok((SELECT abs((gbdt_model_info(c)->'validation_history'->>6)::float8
                      - (gbdt_evaluate(c, 'rk_va', 'rel', 'qid')->>'ndcg@32')::float8) < 1e-6 FROM rkc),
          'continued training: the last validation ndcg@32 is gbdt_evaluate''s');

SELECT * FROM finish();
ROLLBACK;
