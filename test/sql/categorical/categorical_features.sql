-- Categorical features, SQL side: text, varchar, char(n), enum
-- and boolean columns train as categorical features, integer columns when
-- named in categorical_features; the dictionary (codes by descending
-- frequency, ties by value) is in the model; the scoring functions look
-- values up in it (an unseen value gets code n, NULL is missing); the direct
-- heap scan and the SPI path build the same model; gbdt_trees shows the
-- categories of a categorical split; errors name the column at fault.
BEGIN;
SELECT plan(40);

CREATE TYPE mood45 AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE c45 AS
SELECT i AS id,
       CASE WHEN i % 50 = 0 THEN NULL WHEN i % 10 < 5 THEN 'red' WHEN i % 10 < 8 THEN 'blue' ELSE 'green' END AS color,
       (ARRAY['a', 'b', 'c'])[1 + (i / 7) % 3]::varchar(5) AS v,
       (ARRAY['x', 'yy'])[1 + i % 2]::char(3) AS ch,
       (ARRAY['sad', 'ok', 'happy'])[1 + i % 3]::mood45 AS m,
       (i % 5 = 0) AS b,
       (i % 10) AS zip,
       sin(i)::float8 AS x
FROM generate_series(1, 2000) i;
ALTER TABLE c45 ADD COLUMN y float8;
UPDATE c45 SET y = CASE color WHEN 'red' THEN 0 WHEN 'blue' THEN 2 WHEN 'green' THEN 5 ELSE 1 END
                   + CASE m WHEN 'happy' THEN 1 ELSE 0 END + x;
CREATE VIEW c45v AS SELECT * FROM c45;

CREATE TABLE m45 (name text, m gbdt_model);
SELECT lives_ok($$INSERT INTO m45 SELECT 'all', gbdt_train('c45', 'y', ARRAY['color', 'v', 'ch', 'm', 'b', 'zip', 'x'],
                   NULL, '{"num_round": 30, "categorical_features": ["zip"]}')$$,
                'text, varchar, char, enum and bool columns and an int column in categorical_features train');
CREATE FUNCTION pg_temp.m(text) RETURNS gbdt_model LANGUAGE sql AS $$SELECT m FROM m45 WHERE name = $1$$;

SELECT is((SELECT array_agg(f->>'type' ORDER BY o) FROM jsonb_array_elements(gbdt_model_info(pg_temp.m('all'))->'features') WITH ORDINALITY a(f, o)),
          ARRAY['categorical', 'categorical', 'categorical', 'categorical', 'categorical', 'categorical', 'float'],
          'gbdt_model_info: feature types');
SELECT is((SELECT array_agg((f->>'categories')::int ORDER BY o) FROM jsonb_array_elements(gbdt_model_info(pg_temp.m('all'))->'features') WITH ORDINALITY a(f, o)),
          ARRAY[3, 3, 2, 3, 2, 10, NULL], 'gbdt_model_info: category counts (NULL is no category)');
SELECT cmp_ok((gbdt_evaluate(pg_temp.m('all'), 'c45', 'y')->>'rmse')::float8, '<', 0.2::float8,
              'the categories are learned (rmse)');
SELECT is((gbdt_model_info(pg_temp.m('all'))->'params'->>'categorical_features'), 'zip',
          'categorical_features is recorded in the params');

-- The SPI path (a view) and the direct heap scan in three passes (cut sample;
-- gbdt.enable_one_pass_load off: not the one pass of a table the planner's
-- estimate puts within its bound) build the same model.
SELECT is((SELECT gbdt_train('c45v', 'y', ARRAY['color', 'v', 'ch', 'm', 'b', 'zip', 'x'], NULL,
                             '{"num_round": 30, "categorical_features": "zip"}')::text),
          pg_temp.m('all')::text, 'a view (SPI) gives the same model; comma-separated categorical_features');
SET LOCAL gbdt.enable_one_pass_load = off;
SELECT is((SELECT gbdt_train('c45v', 'y', ARRAY['color', 'm', 'x'], NULL, '{"num_round": 10, "bin_sample_rows": 300}')::text),
          (SELECT gbdt_train('c45', 'y', ARRAY['color', 'm', 'x'], NULL, '{"num_round": 10, "bin_sample_rows": 300}')::text),
          'three passes over the table (sampled cuts) give the view''s model');
RESET gbdt.enable_one_pass_load;

-- Dictionary: descending frequency, ties by value; read back from the exported encoder.
CREATE FUNCTION pg_temp.cats(gbdt_model, int) RETURNS text LANGUAGE sql AS $$
  SELECT convert_from(decode(string_agg(lpad(to_hex(v::int), 2, '0'), '' ORDER BY o), 'hex'), 'UTF8')
  FROM jsonb_array_elements_text(gbdt_export($1)->'learner'->'gradient_booster'->'model'->'cats'->'enc'->$2->'values')
       WITH ORDINALITY a(v, o)$$;
SELECT is(pg_temp.cats(pg_temp.m('all'), 0), 'redbluegreen', 'text dictionary: most frequent first, NULL not a category');
SELECT is(pg_temp.cats(pg_temp.m('all'), 2), 'xyy', 'char(3) values without padding; equal counts ordered by value');
SELECT is(pg_temp.cats(pg_temp.m('all'), 4), 'falsetrue', 'boolean categories are false/true');
SELECT is(pg_temp.cats(pg_temp.m('all'), 3), 'happyoksad', 'enum categories by label (happy and ok 667 rows each, sad 666)');

-- Scoring: each value's code, unseen values get code n, NULL is missing.
CREATE TABLE r45 AS SELECT 'blue'::text AS color, 'b'::varchar(5) AS v, 'x'::char(3) AS ch, 'ok'::mood45 AS m,
                           true AS b, 3 AS zip, 0.25::float8 AS x;
SELECT is(gbdt_predict(pg_temp.m('all'), r45), gbdt_predict(pg_temp.m('all'), ARRAY[1, 1, 0, 1, 1, 3, 0.25]::float8[]),
          'a row scores as its category codes') FROM r45;
SELECT is(gbdt_predict(pg_temp.m('all'), r), gbdt_predict(pg_temp.m('all'), ARRAY[3, 1, 0, 1, 1, 3, 0.25]::float8[]),
          'an unseen category gets code n (the number of categories)')
FROM (SELECT 'purple'::text AS color, v, ch, m, b, zip, x FROM r45) r;
SELECT is(gbdt_predict(pg_temp.m('all'), r), gbdt_predict(pg_temp.m('all'), ARRAY[NULL, 1, 0, 1, 1, 3, 0.25]::float8[]),
          'a NULL category is missing')
FROM (SELECT NULL::text AS color, v, ch, m, b, zip, x FROM r45) r;
SELECT is(gbdt_predict(pg_temp.m('all'), r), gbdt_predict(pg_temp.m('all'), r45),
          'text, varchar and bigint columns look up the same categories as the training types')
FROM r45, (SELECT 'blue'::varchar AS color, 'b'::text AS v, 'x'::text AS ch, 'ok'::text AS m, 'true'::text AS b,
                  3::bigint AS zip, 0.25::float8 AS x) r;
SELECT is((SELECT count(*)::int FROM c45 c JOIN gbdt_predict_table(pg_temp.m('all'), 'c45', 'id') p ON p.key = c.id::text
           WHERE p.prediction IS DISTINCT FROM gbdt_predict(pg_temp.m('all'), c)), 0,
          'gbdt_predict_table equals gbdt_predict on every row');
SELECT is((SELECT count(*)::int FROM c45v c JOIN gbdt_predict_table(pg_temp.m('all'), 'c45v', 'id') p ON p.key = c.id::text
           WHERE p.prediction IS DISTINCT FROM gbdt_predict(pg_temp.m('all'), c)), 0,
          'gbdt_predict_table on a view equals gbdt_predict');
SELECT is((gbdt_evaluate(pg_temp.m('all'), 'c45v', 'y')->>'rows')::int, 2000, 'gbdt_evaluate reads categorical columns');
SELECT ok((SELECT abs(sum(contribution) - gbdt_predict(pg_temp.m('all'), c)) < 1e-4
           FROM c45 c, gbdt_explain(pg_temp.m('all'), c) WHERE c.id = 7 GROUP BY c.*),
          'gbdt_explain: contributions of categorical features sum to the prediction');
SELECT is((SELECT count(*)::int FROM gbdt_explain_table(pg_temp.m('all'), 'c45', 'id')), 2000 * 8,
          'gbdt_explain_table reads categorical columns');
INSERT INTO m45 SELECT 'roundtrip', gbdt_import(gbdt_export(pg_temp.m('all')));
SELECT is((SELECT count(*)::int FROM c45 c, m45 r
           WHERE r.name = 'roundtrip' AND gbdt_predict(r.m, c) IS DISTINCT FROM gbdt_predict(pg_temp.m('all'), c)), 0,
          'export + import keeps the categories (same predictions from text columns)');

-- Kinds that do not fit the model's feature.
SELECT throws_ok($$SELECT gbdt_predict(pg_temp.m('all'), r) FROM (SELECT 1.5::float8 AS color, v, ch, m, b, zip, x FROM r45) r$$,
                 '42804', 'column "color" has type double precision, but the model''s feature "color" is categorical',
                 'a float column for a categorical feature');
SELECT throws_ok($$SELECT gbdt_predict(pg_temp.m('all'), r) FROM (SELECT color, v, ch, m, b, zip, 'a'::text AS x FROM r45) r$$,
                 '42804', 'column "x" has unsupported type text', 'a text column for a numeric feature');
CREATE TABLE c45f AS SELECT id, 1.5::float8 AS color, v, ch, m, b, zip, x FROM c45;
SELECT throws_ok($$SELECT * FROM gbdt_predict_table(pg_temp.m('all'), 'c45f', 'id')$$,
                 '42804', 'column "color" has type double precision, but the model''s feature "color" is categorical',
                 'gbdt_predict_table: a float column for a categorical feature');

-- Default features take text/enum/bool columns.
SELECT is((SELECT array_agg(f->>'name' ORDER BY o) FROM jsonb_array_elements(gbdt_model_info(
             gbdt_train('c45', 'y', NULL, NULL, '{"num_round": 2}'))->'features') WITH ORDINALITY a(f, o)),
          ARRAY['color', 'v', 'ch', 'm', 'b', 'zip', 'x'], 'default features include the categorical columns (not the unique id)');

SELECT ok((SELECT bool_and(categories <@ ARRAY['red', 'blue', 'green'] AND threshold IS NULL)
           AND count(*) > 0 FROM gbdt_trees(pg_temp.m('all')) WHERE feature = 'color' AND categories IS NOT NULL),
          'gbdt_trees shows the category names of the trained categorical splits');

-- gbdt_trees on a model with a categorical split (an XGBoost model).
CREATE FUNCTION pg_temp.xgb(cats jsonb) RETURNS jsonb LANGUAGE sql AS $$
SELECT jsonb_build_object('learner', jsonb_build_object(
  'feature_names', '["color", "x"]'::jsonb, 'feature_types', '["c", "float"]'::jsonb,
  'learner_model_param', '{"base_score": "0.5", "num_class": "0", "num_feature": "2", "num_target": "1"}'::jsonb,
  'objective', '{"name": "reg:squarederror"}'::jsonb,
  'gradient_booster', jsonb_build_object('name', 'gbtree', 'model', jsonb_build_object(
     'gbtree_model_param', '{"num_trees": "1"}'::jsonb, 'tree_info', '[0]'::jsonb, 'cats', cats,
     'trees', '[{"left_children": [1, -1, -1], "right_children": [2, -1, -1], "parents": [2147483647, 0, 0],
                 "split_indices": [0, 0, 0], "split_conditions": [0.0, 1.5, -1.0], "default_left": [1, 0, 0],
                 "split_type": [1, 0, 0], "categories": [1, 3], "categories_nodes": [0],
                 "categories_segments": [0], "categories_sizes": [2], "base_weights": [0.0, 1.5, -1.0],
                 "loss_changes": [3.0, 0.0, 0.0], "sum_hessian": [10.0, 6.0, 4.0],
                 "tree_param": {"num_nodes": "3", "num_feature": "2", "size_leaf_vector": "1"}}]'::jsonb))))$$;
INSERT INTO m45 SELECT 'xgb', gbdt_import(pg_temp.xgb(
  '{"enc": [{"offsets": [0, 3, 8, 12, 17], "values": [114, 101, 100, 103, 114, 101, 101, 110, 98, 108, 117, 101, 98, 108, 97, 99, 107]},
            {"offsets": [], "values": []}], "feature_segments": [0, 4, 4], "sorted_idx": [3, 2, 1, 0]}'::jsonb));
INSERT INTO m45 SELECT 'xgb_nocats', gbdt_import(pg_temp.xgb('{"enc": [], "feature_segments": [], "sorted_idx": []}'::jsonb));
SELECT is((SELECT categories FROM gbdt_trees(pg_temp.m('xgb')) WHERE node = 0), ARRAY['green', 'black'],
          'gbdt_trees: the categories of a categorical split that go right');
SELECT is((SELECT threshold FROM gbdt_trees(pg_temp.m('xgb')) WHERE node = 0), NULL,
          'gbdt_trees: a categorical split has no threshold');
SELECT is((SELECT count(*)::int FROM gbdt_trees(pg_temp.m('xgb')) WHERE categories IS NOT NULL), 1,
          'gbdt_trees: numeric splits and leaves have no categories');
SELECT is((SELECT categories FROM gbdt_trees(pg_temp.m('xgb_nocats')) WHERE node = 0), ARRAY['1', '3'],
          'import without an encoder: categories are the decimal codes');
SELECT is((gbdt_model_info(pg_temp.m('xgb'))->'features'->0->>'categories')::int, 4,
          'imported category count');
SELECT is((gbdt_export(pg_temp.m('xgb'))->'learner'->'gradient_booster'->'model'->'trees'->0->'categories'),
          '[1, 3]'::jsonb, 'export writes the category set back');

-- Errors.
SELECT throws_ok($$SELECT gbdt_train('c45', 'y', ARRAY['color', 'x'], NULL, '{"categorical_features": ["nope"]}')$$,
                 '42703', 'categorical_features names column "nope", which relation "c45" does not have',
                 'unknown categorical_features column');
SELECT throws_ok($$SELECT gbdt_train('c45', 'y', ARRAY['color', 'x'], NULL, '{"categorical_features": "x"}')$$,
                 '42804', 'categorical_features names column "x" of type double precision, which cannot be categorical',
                 'a float column declared categorical');
SELECT throws_ok($$SELECT gbdt_train('c45', 'y', ARRAY['color', 'x'], NULL, '{"categorical_features": ["zip"]}')$$,
                 '22023', 'categorical_features names column "zip", which is not among the features',
                 'a categorical_features column that is not a feature');
SELECT throws_ok($$SELECT gbdt_train('c45', 'y', ARRAY['color', 'zip'], NULL, '{"categorical_features": ["zip"], "max_categories": 5}')$$,
                 '54000', 'categorical column "zip" has 10 distinct values, more than the limit of 5 (max_categories)',
                 'too many categories: count and limit');
SELECT throws_ok($$SELECT gbdt_train('c45v', 'y', ARRAY['color', 'zip'], NULL, '{"categorical_features": ["zip"], "max_categories": 5}')$$,
                 '54000', 'categorical column "zip" has 10 distinct values, more than the limit of 5 (max_categories)',
                 'too many categories through a view');
SELECT throws_ok($$SELECT gbdt_train('c45', 'y', ARRAY['color', 'zip'], NULL, '{"max_categories": 0}')$$,
                 '22023', 'parameter "max_categories" = "0" must be an integer in [1, 65536]', 'max_categories out of range');
SELECT throws_ok($$SELECT gbdt_train('c45', 'y', ARRAY['color', 'x'], NULL, '{"categorical_features": [1]}')$$,
                 '22023', NULL, 'categorical_features must name columns');
CREATE TABLE c45n AS SELECT id, NULL::text AS t, x, y FROM c45;
SELECT throws_ok($$SELECT gbdt_train('c45n', 'y', ARRAY['t', 'x'])$$,
                 '22023', 'categorical column "t" has no non-NULL values in the rows with a target',
                 'a categorical column of NULLs');

SELECT * FROM finish();
ROLLBACK;
