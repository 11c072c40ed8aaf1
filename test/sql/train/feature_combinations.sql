-- Combinations that were once refused: categorical (text,
-- enum, bool) and array features in one training (every loader path: the
-- direct scan in one, two and three passes, a view through SPI); continued
-- training (init_model) with categorical features (the rows read through
-- the init model's dictionaries and cuts, a category it has not seen
-- scored as unseen, its dictionaries kept), with a text target (its class
-- names; another label is an error naming it), with a weight column and
-- with a group column (rank:ndcg): 10 rounds continued by 10 are the
-- 20-round model, tree for tree.
BEGIN;
SELECT plan(30);

CREATE TYPE size50 AS ENUM ('small', 'medium', 'large');
CREATE TABLE c50 (id serial PRIMARY KEY, colour text, size size50, flag bool, x float8, w float8,
                  qid int, label text, y float8, rel int, emb float8[]);
INSERT INTO c50 (colour, size, flag, x, w, qid, label, y, rel, emb)
SELECT (ARRAY['red', 'green', 'blue', 'cyan', 'pink'])[1 + i % 5],
       (ARRAY['small', 'medium', 'large'])[1 + i % 3]::size50, i % 4 = 0,
       (i % 13) * 0.25, 1 + i % 3, i % 30,
       CASE WHEN i % 5 IN (0, 3) OR i % 7 = 0 THEN 'yes' ELSE 'no' END,
       CASE WHEN i % 5 IN (0, 3) THEN 10.0 ELSE 0.0 END + (i % 13) * 0.1 + (i % 7) * 0.3
         + CASE WHEN i % 3 = 2 THEN 2.0 ELSE 0.0 END + CASE WHEN i % 4 = 0 THEN 1.5 ELSE 0.0 END,
       CASE WHEN i % 5 IN (0, 3) THEN 2 ELSE i % 2 END + CASE WHEN i % 7 = 0 THEN 1 ELSE 0 END,
       ARRAY[i % 7, i % 3]::float8[]
FROM generate_series(1, 600) i;
CREATE VIEW c50_view AS SELECT * FROM c50;

-- Trees of a model as rows (exact values), for tree-for-tree comparisons.
CREATE FUNCTION pg_temp.tree_diff(a gbdt_model, b gbdt_model) RETURNS int LANGUAGE sql AS $$
  SELECT count(*)::int FROM ((SELECT * FROM gbdt_trees(a) EXCEPT ALL SELECT * FROM gbdt_trees(b))
                             UNION ALL
                             (SELECT * FROM gbdt_trees(b) EXCEPT ALL SELECT * FROM gbdt_trees(a))) d $$;

CREATE TEMP TABLE m50 (k text PRIMARY KEY, m gbdt_model);
-- The direct scan in passes (count, then every row; with a cut sample,
-- count, sample, bin), not in the one pass the planner's estimate allows.
SET LOCAL gbdt.enable_one_pass_load = off;
INSERT INTO m50 VALUES
  ('mixed', gbdt_train('c50', 'y', ARRAY['colour', 'size', 'flag', 'emb', 'x'], NULL,
                       '{"num_round": 30, "max_depth": 4}')),
  ('mixed3', gbdt_train('c50', 'y', ARRAY['colour', 'emb', 'size', 'x'], NULL,
                        '{"num_round": 5, "bin_sample_rows": 200}')),
  ('mixed3v', gbdt_train('c50_view', 'y', ARRAY['colour', 'emb', 'size', 'x'], NULL,
                         '{"num_round": 5, "bin_sample_rows": 200}')),
  ('mixedv', gbdt_train('c50_view', 'y', ARRAY['colour', 'size', 'flag', 'emb', 'x'], NULL,
                        '{"num_round": 30, "max_depth": 4}'));
RESET gbdt.enable_one_pass_load;
INSERT INTO m50 VALUES
  ('mixed1', gbdt_train('c50', 'y', ARRAY['colour', 'size', 'flag', 'emb', 'x'], NULL,
                        '{"num_round": 30, "max_depth": 4}'));
CREATE FUNCTION pg_temp.m(text) RETURNS gbdt_model LANGUAGE sql AS $$ SELECT m FROM m50 WHERE k = $1 $$;

-- ---- 1. categorical and array features in one training ----
SELECT is((SELECT string_agg(f->>'name' || ':' || (f->>'type'), ' ' ORDER BY o)
           FROM jsonb_array_elements(gbdt_model_info(pg_temp.m('mixed'))->'features') WITH ORDINALITY a(f, o)),
          'colour:categorical size:categorical flag:categorical emb[1]:float emb[2]:float x:float',
          'text, enum and bool columns are categorical next to an array column''s elements');
SELECT ok((SELECT max(abs(gbdt_predict(pg_temp.m('mixed'), c) - c.y)) FROM c50 c) < 0.3,
          'categories and array elements both learned (regression fits every row)');
SELECT ok((SELECT count(*) FROM gbdt_trees(pg_temp.m('mixed')) WHERE categories IS NOT NULL) > 0
          AND (SELECT count(*) FROM gbdt_trees(pg_temp.m('mixed')) WHERE feature LIKE 'emb[%') > 0,
          'the trees split on categories and on array elements');
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('mixed'), 'c50', 'id') p
           JOIN c50 c ON c.id::text = p.key
           WHERE p.prediction IS DISTINCT FROM gbdt_predict(pg_temp.m('mixed'), c)), 0,
          'gbdt_predict_table reads the categories and the array as gbdt_predict does');
SELECT ok((gbdt_evaluate(pg_temp.m('mixed'), 'c50', 'y')->>'rmse')::float8 < 0.2,
          'gbdt_evaluate reads both');
SELECT is(pg_temp.tree_diff(pg_temp.m('mixed'), pg_temp.m('mixedv')), 0,
          'a view (read through SPI) trains the same trees as the table (direct scan)');
SELECT is(pg_temp.tree_diff(pg_temp.m('mixed1'), pg_temp.m('mixedv')), 0,
          'the table read in one pass (its planner estimate) trains the same trees');
SELECT is(pg_temp.tree_diff(pg_temp.m('mixed3'), pg_temp.m('mixed3v')), 0,
          'cuts from a sample (three passes over the table) give the view''s trees too');
SELECT is((SELECT count(*)::int FROM c50 c WHERE gbdt_predict(pg_temp.m('mixed3'), c)
                                             IS DISTINCT FROM gbdt_predict(pg_temp.m('mixed3v'), c)), 0,
          'three-pass load with categories and arrays: predictions as the SPI load');
SELECT throws_like($$SELECT gbdt_train('c50', 'y', ARRAY['colour', 'emb'], NULL,
                                       '{"num_round": 1, "max_categories": 3}')$$,
                   '%"colour" has 5 distinct values%',
                   'category limit still checked with an array column (names the column and count)');

-- ---- 2. init_model with categorical features ----
CREATE TEMP TABLE cm50 AS
SELECT gbdt_train('c50', 'y', ARRAY['colour', 'size', 'flag', 'emb', 'x'], NULL,
                  '{"num_round": 10, "max_depth": 3, "subsample": 0.8, "seed": 5}') AS m10,
       gbdt_train('c50', 'y', ARRAY['colour', 'size', 'flag', 'emb', 'x'], NULL,
                  '{"num_round": 20, "max_depth": 3, "subsample": 0.8, "seed": 5}') AS m20;
ALTER TABLE cm50 ADD COLUMN c20 gbdt_model;
UPDATE cm50 SET c20 = gbdt_train('c50', 'y', NULL, NULL,
                                 '{"num_round": 10, "max_depth": 3, "subsample": 0.8, "seed": 5}',
                                 init_model => m10);
SELECT is((SELECT (gbdt_model_info(c20)->>'rounds')::int FROM cm50), 20,
          'categorical init_model continued by 10 rounds: 20 rounds');
SELECT is((SELECT pg_temp.tree_diff(c20, m20) FROM cm50), 0,
          'categorical features: 10 + 10 rounds are the 20-round trees (same rows, init cuts and dictionaries)');
SELECT is((SELECT count(*)::int FROM cm50, c50 c WHERE gbdt_predict(c20, c) IS DISTINCT FROM gbdt_predict(m20, c)), 0,
          'categorical features: 10 + 10 rounds predict exactly as 20');
-- Rows with a colour the init model has not seen: scored as unseen; the
-- dictionaries stay the init model's.
CREATE TABLE c50_new AS SELECT * FROM c50;
UPDATE c50_new SET colour = 'violet', y = y + 5 WHERE id % 10 = 1;
CREATE TEMP TABLE cn50 AS
SELECT gbdt_train('c50_new', 'y', NULL, NULL, '{"num_round": 5, "max_depth": 3}', init_model => m10) AS m
FROM cm50;
SELECT is((SELECT gbdt_model_info(m)->'features'->0->>'categories' FROM cn50), '5',
          'a category the init model has not seen does not enter the dictionary');
SELECT ok((SELECT bool_and(gbdt_predict(n.m, c) IS NOT NULL) FROM cn50 n, c50_new c),
          'the continued model scores every row, the unseen colour too');
SELECT ok((SELECT avg(abs(gbdt_predict(n.m, c) - c.y)) < avg(abs(gbdt_predict(i.m10, c) - c.y))
           FROM cn50 n, cm50 i, c50_new c),
          'the added rounds learn from the new rows');
SELECT throws_like($$SELECT gbdt_train('c50', 'y', ARRAY['colour', 'size', 'flag', 'emb', 'x'], NULL,
                                       '{"num_round": 1, "categorical_features": ["x"]}', m10) FROM cm50$$,
                   '%"categorical_features" names "x", which is not a categorical feature of init_model%',
                   'categorical_features with init_model: only its categorical features');
CREATE TABLE c50_num AS SELECT id, 7.0::float8 AS colour, size, flag, emb, x, y FROM c50;
SELECT throws_like($$SELECT gbdt_train('c50_num', 'y', NULL, NULL, '{"num_round": 1}', m10) FROM cm50$$,
                   '%column "colour" has type double precision, but init_model''s feature "colour" is categorical%',
                   'a numeric column for a categorical feature of init_model is named');

-- ---- 3. init_model with a text target, weights, a group column ----
CREATE TEMP TABLE tm50 AS
SELECT gbdt_train('c50', 'label', ARRAY['colour', 'x', 'emb'], NULL, '{"num_round": 10, "max_depth": 3}') AS m10,
       gbdt_train('c50', 'label', ARRAY['colour', 'x', 'emb'], NULL, '{"num_round": 20, "max_depth": 3}') AS m20,
       gbdt_train('c50', 'y', ARRAY['colour', 'x'], NULL, '{"num_round": 10, "weight_column": "w"}') AS w10,
       gbdt_train('c50', 'y', ARRAY['colour', 'x'], NULL, '{"num_round": 20, "weight_column": "w"}') AS w20,
       gbdt_train('c50', 'rel', ARRAY['colour', 'x'], 'rank:ndcg', '{"group_column": "qid", "num_round": 10}') AS r10,
       gbdt_train('c50', 'rel', ARRAY['colour', 'x'], 'rank:ndcg', '{"group_column": "qid", "num_round": 20}') AS r20;
ALTER TABLE tm50 ADD COLUMN c20 gbdt_model, ADD COLUMN cw20 gbdt_model, ADD COLUMN cr20 gbdt_model;
UPDATE tm50 SET c20 = gbdt_train('c50', 'label', NULL, NULL, '{"num_round": 10, "max_depth": 3}', init_model => m10),
                cw20 = gbdt_train('c50', 'y', NULL, NULL, '{"num_round": 10, "weight_column": "w"}', init_model => w10),
                cr20 = gbdt_train('c50', 'rel', NULL, 'rank:ndcg', '{"group_column": "qid", "num_round": 10}', init_model => r10);
SELECT is((SELECT pg_temp.tree_diff(c20, m20) FROM tm50), 0,
          'text target: 10 + 10 rounds are the 20-round trees');
SELECT is((SELECT gbdt_model_info(c20)->'class_names' FROM tm50), '["no", "yes"]'::jsonb,
          'text target continued: the class names are the init model''s');
SELECT is((SELECT count(*)::int FROM tm50, c50 c WHERE gbdt_predict(c20, c) IS DISTINCT FROM gbdt_predict(m20, c)), 0,
          'text target: 10 + 10 rounds predict exactly as 20');
CREATE TABLE c50_maybe AS SELECT * FROM c50;
UPDATE c50_maybe SET label = 'maybe' WHERE id = 7;
SELECT throws_like($$SELECT gbdt_train('c50_maybe', 'label', NULL, NULL, '{"num_round": 1}', m10) FROM tm50$$,
                   '%target column "label" has value ''maybe'', which is not a class of the model%',
                   'a label that is not a class of init_model is named');
SELECT throws_like($$SELECT gbdt_train('c50', 'label', NULL, NULL, '{"num_round": 1}', w10) FROM tm50$$,
                   '%target column "label" is a class label (text), but init_model (objective reg:squarederror) was trained on a numeric target%',
                   'a text target for an init model trained on numbers is refused');
SELECT throws_like($$SELECT gbdt_train('c50', 'rel', NULL, NULL, '{"num_round": 1}', m10) FROM tm50$$,
                   '%target column "rel" is not a class label, but init_model was trained on the classes ''no'', ''yes''%',
                   'a numeric target for an init model trained on class names is refused');
SELECT is((SELECT pg_temp.tree_diff(cw20, w20) FROM tm50), 0,
          'weight_column: 10 + 10 rounds are the 20-round trees');
SELECT ok((SELECT pg_temp.tree_diff(cw20, gbdt_train('c50', 'y', NULL, NULL, '{"num_round": 10}', init_model => w10)) FROM tm50) > 0,
          'the weights are used by the continued rounds (unweighted rounds differ)');
UPDATE c50_maybe SET w = NULL WHERE id = 9;
SELECT throws_like($$SELECT gbdt_train('c50_maybe', 'y', NULL, NULL, '{"num_round": 1, "weight_column": "w"}', w10) FROM tm50$$,
                   '%weight column "w" contains NULL%', 'continued training: a NULL weight is named');
SELECT is((SELECT pg_temp.tree_diff(cr20, r20) FROM tm50), 0,
          'rank:ndcg with group_column: 10 + 10 rounds are the 20-round trees');
SELECT is((SELECT gbdt_evaluate(cr20, 'c50', 'rel', 'qid') = gbdt_evaluate(r20, 'c50', 'rel', 'qid') FROM tm50), true,
          'rank:ndcg continued: the same NDCG as 20 rounds at once');
SELECT is((SELECT pg_temp.tree_diff(
                      gbdt_train('c50', 'rel', NULL, 'rank:ndcg', '{"num_round": 1}', r10),
                      gbdt_train('c50', 'rel', NULL, 'rank:ndcg', '{"num_round": 1, "group_column": "qid"}', r10))
           FROM tm50), 0,
          'continuing a ranking model without group_column takes the init model''s');

SELECT * FROM finish();
ROLLBACK;
