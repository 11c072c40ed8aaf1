-- A categorical column with more than 254 levels gets one bin per
-- category (a 2-byte bin matrix), so two rare categories that the earlier
-- "other" bin merged are told apart; training, gbdt_predict,
-- gbdt_predict_table, gbdt_evaluate, gbdt_trees.categories, validation rows,
-- init_model and XGBoost export on a 600-level text column; the limit error
-- names the column, its count and the limit.
BEGIN;
SELECT plan(14);

-- 600 equally frequent levels; item300 carries +3, item301 -3.
CREATE TABLE c51 AS
SELECT i AS id,
       'item' || lpad((i % 600)::text, 3, '0') AS item,
       ((i * 7919) % 1000) / 1000.0 AS x
FROM generate_series(1, 24000) i;
ALTER TABLE c51 ADD COLUMN y float8;
UPDATE c51 SET y = CASE item WHEN 'item300' THEN 3 WHEN 'item301' THEN -3 ELSE 0 END + 0.1 * x;

CREATE TABLE m51 (name text, m gbdt_model);
SELECT lives_ok($$INSERT INTO m51 SELECT 'wide', gbdt_train('c51', 'y', ARRAY['item', 'x'], NULL,
                   '{"num_round": 6, "max_depth": 3, "device": "cpu"}')$$,
                'a 600-level text column trains');
CREATE FUNCTION pg_temp.m(text) RETURNS gbdt_model LANGUAGE sql AS $$SELECT m FROM m51 WHERE name = $1$$;

SELECT is((gbdt_model_info(pg_temp.m('wide'))->'features'->0->>'categories')::int, 600,
          'gbdt_model_info: 600 categories');
SELECT ok((SELECT count(*) > 0 FROM gbdt_trees(pg_temp.m('wide'))
           WHERE categories IS NOT NULL AND (('item300' = ANY(categories)) <> ('item301' = ANY(categories)))),
          'gbdt_trees: a categorical split separates item300 from item301 (one bin per category)');
SELECT ok((SELECT max(cardinality(categories)) FROM gbdt_trees(pg_temp.m('wide'))) >= 1
          AND (SELECT bool_and(c LIKE 'item%') FROM gbdt_trees(pg_temp.m('wide')), unnest(categories) c),
          'gbdt_trees: the categories are the column''s values');
SELECT ok(gbdt_predict(pg_temp.m('wide'), r) > 1.5, 'gbdt_predict: item300 scores high')
FROM (SELECT 'item300'::text AS item, 0.5::float8 AS x) r;
SELECT ok(gbdt_predict(pg_temp.m('wide'), r) < -1.5, 'gbdt_predict: item301 scores low')
FROM (SELECT 'item301'::text AS item, 0.5::float8 AS x) r;
SELECT is((SELECT count(*)::int FROM c51 c JOIN gbdt_predict_table(pg_temp.m('wide'), 'c51', 'id') p ON p.key = c.id::text
           WHERE p.prediction IS DISTINCT FROM gbdt_predict(pg_temp.m('wide'), c)), 0,
          'gbdt_predict_table equals gbdt_predict on every row');
SELECT cmp_ok((gbdt_evaluate(pg_temp.m('wide'), 'c51', 'y')->>'rmse')::float8, '<', 0.3::float8,
              'gbdt_evaluate: the rare categories are learned');

-- Validation rows (split off and binned with 2-byte entries) and init_model.
SELECT ok((SELECT (gbdt_model_info(m)->'validation_history'->>5)::float8 < 0.5
           FROM (SELECT gbdt_train('c51', 'y', ARRAY['item', 'x'], NULL,
                   '{"num_round": 6, "max_depth": 3, "validation_fraction": 0.2, "device": "cpu"}') AS m) s),
          'validation_fraction with a 600-level column');
SELECT ok((SELECT abs((gbdt_model_info(m)->'validation_history'->>1)::float8
                      - (gbdt_evaluate(m, 'c51', 'y')->>'rmse')::float8) < 1e-5
           FROM (SELECT gbdt_train('c51', 'y', ARRAY['item', 'x'], NULL,
                   '{"num_round": 2, "max_depth": 3, "validation_relation": "c51", "device": "cpu"}') AS m) s),
          'validation_relation with a 600-level column equals gbdt_evaluate');
SELECT is((SELECT (gbdt_model_info(gbdt_train('c51', 'y', ARRAY['item', 'x'], NULL, '{"num_round": 2, "device": "cpu"}',
                                              pg_temp.m('wide')))->>'rounds')::int), 8,
          'init_model continues a 600-level model');

-- XGBoost export: a categorical feature and categorical splits.
SELECT is(gbdt_export(pg_temp.m('wide'))->'learner'->'feature_types'->>0, 'c', 'gbdt_export: feature type c');
SELECT ok((SELECT sum(jsonb_array_length(t->'categories_nodes')) > 0
           FROM jsonb_array_elements(gbdt_export(pg_temp.m('wide'))->'learner'->'gradient_booster'->'model'->'trees') t),
          'gbdt_export: categorical splits');

-- The limit.
SELECT throws_ok($$SELECT gbdt_train('c51', 'y', ARRAY['item', 'x'], NULL, '{"max_categories": 599}')$$,
                 '54000', 'categorical column "item" has 600 distinct values, more than the limit of 599 (max_categories)',
                 'more categories than max_categories: the error names the column, its count and the limit');

SELECT * FROM finish();
ROLLBACK;
