-- LightGBM's categorical regularization of partition splits: cat_smooth,
-- cat_l2 and min_data_per_group (docs/categorical.md).  Each changes the
-- trees of a table with a text column of 150 levels, many of them rare;
-- at 0 (the default) nothing is recorded and the trees are those of a
-- training without them; bad values are errors naming the parameter; the
-- exported XGBoost JSON scores like the model.
BEGIN;
SELECT plan(16);

CREATE TABLE creg AS
SELECT i AS id, 'lvl' || ((i * 7919) % 150)::text || CASE WHEN i % 9 = 0 THEN 'r' || (i % 45)::text ELSE '' END AS lvl,
       sin(i * 0.37)::float8 AS a,
       ((i * 7919) % 150) % 5 * 0.4 + sin(i * 0.37) + CASE WHEN i % 9 = 0 THEN ((i * 31) % 7) - 3 ELSE 0 END AS yv
FROM generate_series(1, 3000) i;

CREATE TEMP TABLE creg_m AS
SELECT k, gbdt_train('creg', 'yv', ARRAY['lvl', 'a'], 'reg:squarederror',
                     '{"num_round": 6, "max_depth": 4}'::jsonb || p) AS m
FROM (VALUES ('none', '{}'::jsonb),
             ('zeros', '{"cat_smooth": 0, "cat_l2": 0, "min_data_per_group": 0}'),
             ('smooth', '{"cat_smooth": 10}'),
             ('l2', '{"cat_l2": 10}'),
             ('group', '{"min_data_per_group": 100}'),
             ('all', '{"cat_smooth": 10, "cat_l2": 10, "min_data_per_group": 100}'),
             ('huge_group', '{"min_data_per_group": 2000}')) v(k, p);
CREATE FUNCTION pg_temp.m(text) RETURNS gbdt_model LANGUAGE sql AS $$ SELECT m FROM creg_m WHERE k = $1 $$;
-- The trees as text: every split's feature, threshold, categories and gain.
CREATE FUNCTION pg_temp.trees(text) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(concat_ws(' ', tree, node, feature, threshold, categories::text, gain), ';' ORDER BY tree, node)
  FROM gbdt_trees(pg_temp.m($1))
$$;
CREATE FUNCTION pg_temp.cat_splits(text) RETURNS int LANGUAGE sql AS $$
  SELECT count(*)::int FROM gbdt_trees(pg_temp.m($1)) WHERE categories IS NOT NULL
$$;

SELECT ok(pg_temp.cat_splits('none') > 0, 'the trees split on the text column');
SELECT is(pg_temp.trees('zeros'), pg_temp.trees('none'), 'all three at 0 grow the default trees');
SELECT ok(NOT (gbdt_model_info(pg_temp.m('zeros'))->'params' ?| ARRAY['cat_smooth', 'cat_l2', 'min_data_per_group']),
          'at 0 none of them is recorded in the model');
SELECT isnt(pg_temp.trees('smooth'), pg_temp.trees('none'), 'cat_smooth 10 changes the trees');
SELECT isnt(pg_temp.trees('l2'), pg_temp.trees('none'), 'cat_l2 10 changes the trees');
SELECT isnt(pg_temp.trees('group'), pg_temp.trees('none'), 'min_data_per_group 100 changes the trees');
SELECT is(gbdt_model_info(pg_temp.m('all'))->'params'->>'cat_smooth', '10', 'cat_smooth is recorded');
SELECT is(gbdt_model_info(pg_temp.m('all'))->'params'->>'cat_l2', '10', 'cat_l2 is recorded');
SELECT is(gbdt_model_info(pg_temp.m('all'))->'params'->>'min_data_per_group', '100', 'min_data_per_group is recorded');
SELECT is(pg_temp.cat_splits('huge_group'), 0,
          'min_data_per_group above half the rows leaves no categorical partition split');
CREATE TEMP TABLE creg_x AS SELECT gbdt_import(gbdt_export(pg_temp.m('all'))) AS x;
SELECT is((SELECT count(*) FROM creg, creg_x
           WHERE abs(gbdt_predict(x, creg) - gbdt_predict(pg_temp.m('all'), creg)) > 1e-6),
          0::bigint, 'the exported model scores like the regularized one');

SELECT throws_like($$SELECT gbdt_train('creg', 'yv', ARRAY['lvl'], NULL, '{"cat_smooth": -1}')$$,
                   '%parameter "cat_smooth" = -1 is out of range%', 'a negative cat_smooth is an error');
SELECT throws_like($$SELECT gbdt_train('creg', 'yv', ARRAY['lvl'], NULL, '{"cat_l2": "lots"}')$$,
                   '%cat_l2%', 'a non-number cat_l2 is an error naming it');
SELECT throws_like($$SELECT gbdt_train('creg', 'yv', ARRAY['lvl'], NULL, '{"cat_l2": -0.5}')$$,
                   '%parameter "cat_l2" = -0.5 is out of range%', 'a negative cat_l2 is an error');
SELECT throws_like($$SELECT gbdt_train('creg', 'yv', ARRAY['lvl'], NULL, '{"min_data_per_group": 2.5}')$$,
                   '%parameter "min_data_per_group" must be an integer%', 'a non-integer min_data_per_group is an error');
SELECT throws_like($$SELECT gbdt_train('creg', 'yv', ARRAY['lvl'], NULL, '{"min_data_per_group": -3}')$$,
                   '%parameter "min_data_per_group" = -3 is out of range%', 'a negative min_data_per_group is an error');

SELECT * FROM finish();
ROLLBACK;
