-- min_data_in_leaf (LightGBM's; alias min_child_samples): the fewest
-- training rows in a leaf.  The rows of a child are estimated from its
-- hessian sum, as LightGBM does; with squared error every row has hessian 1,
-- so the estimate is exact and a leaf's cover (its hessian sum) is its row
-- count.
BEGIN;
SELECT plan(10);

CREATE TABLE pmd AS
SELECT i AS id, sin(i * 0.37)::float8 AS a, cos(i * 0.11)::float8 AS b,
       (ARRAY['p', 'q', 'r', 's'])[1 + i % 4] AS t,
       sin(i * 0.37) + 2.0 * (i % 17 = 0)::int + (i % 4) * 0.2 AS yv
FROM generate_series(1, 400) i;

CREATE TEMP TABLE pmd_m AS
SELECT 'none' AS k, gbdt_train('pmd', 'yv', ARRAY['a', 'b', 't'], NULL,
                               '{"num_round": 8, "max_depth": 6, "min_child_weight": 0}') AS m
UNION ALL
SELECT 'depthwise', gbdt_train('pmd', 'yv', ARRAY['a', 'b', 't'], NULL,
                               '{"num_round": 8, "max_depth": 6, "min_child_weight": 0, "min_data_in_leaf": 25}')
UNION ALL
SELECT 'alias', gbdt_train('pmd', 'yv', ARRAY['a', 'b', 't'], NULL,
                           '{"num_round": 8, "max_depth": 6, "min_child_weight": 0, "min_child_samples": 25}')
UNION ALL
SELECT 'lossguide', gbdt_train('pmd', 'yv', ARRAY['a', 'b', 't'], NULL,
                               '{"num_round": 8, "grow_policy": "lossguide", "max_leaves": 31, "max_depth": 0, "min_child_weight": 0, "min_data_in_leaf": 25}')
UNION ALL
SELECT 'huge', gbdt_train('pmd', 'yv', ARRAY['a', 'b', 't'], NULL,
                          '{"num_round": 3, "min_data_in_leaf": 201}');

CREATE FUNCTION pg_temp.leaf_rows(kind text) RETURNS TABLE(tree int, cover float8)
LANGUAGE sql STABLE AS $$
  SELECT t.tree, t.cover FROM pmd_m, LATERAL gbdt_trees(m) t WHERE k = kind AND t.left_child IS NULL
$$;

SELECT ok((SELECT min(cover) FROM pg_temp.leaf_rows('none')) < 25,
          'without the limit some leaf holds fewer than 25 rows (the data can violate it)');
SELECT ok((SELECT min(cover) FROM pg_temp.leaf_rows('depthwise')) >= 25,
          'depthwise: every leaf holds at least min_data_in_leaf = 25 rows');
SELECT ok((SELECT count(*) FROM pg_temp.leaf_rows('depthwise') WHERE tree = 0) > 2,
          'depthwise: the limit still lets the trees split');
SELECT is((SELECT array_agg(cover ORDER BY tree, cover) FROM pg_temp.leaf_rows('alias')),
          (SELECT array_agg(cover ORDER BY tree, cover) FROM pg_temp.leaf_rows('depthwise')),
          'min_child_samples is min_data_in_leaf');
SELECT ok((SELECT min(cover) FROM pg_temp.leaf_rows('lossguide')) >= 25,
          'lossguide: every leaf holds at least 25 rows');
SELECT is((SELECT max(cnt) FROM (SELECT count(*) AS cnt FROM pg_temp.leaf_rows('huge') GROUP BY tree) s),
          1::bigint, 'a limit above half the rows leaves every tree a single leaf');

SELECT throws_like($$SELECT gbdt_train('pmd', 'yv', ARRAY['a'], NULL, '{"min_data_in_leaf": -1}')$$,
                   '%parameter "min_data_in_leaf" = -1 is out of range%', 'a negative min_data_in_leaf is an error');
SELECT throws_like($$SELECT gbdt_train('pmd', 'yv', ARRAY['a'], NULL, '{"min_data_in_leaf": 2.5}')$$,
                   '%parameter "min_data_in_leaf" must be an integer%', 'a non-integer min_data_in_leaf is an error');
SELECT throws_like($$SELECT gbdt_train('pmd', 'yv', ARRAY['a'], NULL, '{"min_child_samples": "many"}')$$,
                   '%min_child_samples%', 'a non-number min_child_samples is an error naming it');
SELECT throws_like($$SELECT gbdt_train('pmd', 'yv', ARRAY['a'], NULL, '{"min_data_in_leaf": 1e12}')$$,
                   '%parameter "min_data_in_leaf" = 1000000000000 is out of range%', 'a min_data_in_leaf beyond int is an error');

SELECT * FROM finish();
ROLLBACK;
