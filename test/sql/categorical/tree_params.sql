-- The tree parameters together with categorical features, continued
-- training and ranking: lossguide with max_leaves splits on a text
-- column, monotone constraints on a numeric column hold with a categorical
-- column present (and one on the categorical column is refused by name),
-- interaction constraints name the categorical column, colsample_bynode
-- keeps the categorical splits; a training without the tree parameters records
-- none of them; init_model and a ranking group column with the tree parameters.
BEGIN;
SELECT plan(17);

CREATE TABLE tc48 AS
SELECT i AS id, (ARRAY['oslo', 'rome', 'lima', 'kyiv', 'pune', 'nice', 'bonn', 'graz'])[1 + (i * 7) % 8] AS city,
       x1, x2, i % 40 AS qid,
       CASE WHEN (i * 7) % 8 IN (1, 3, 6) THEN 2.0 ELSE 0.0 END + x1 + 0.8 * sin(6 * x1) + 0.5 * x2 AS y,
       (CASE WHEN (i * 7) % 8 IN (1, 3, 6) THEN 2 ELSE 0 END + (x1 > 0)::int) AS rel
FROM (SELECT i, ((i * 37) % 1000) / 500.0 - 1 AS x1, ((i * 91) % 997) / 498.5 - 1 AS x2
      FROM generate_series(1, 2400) i) s;

CREATE TEMP TABLE m48 AS
SELECT name, gbdt_train('tc48', 'y', ARRAY['city', 'x1', 'x2'], 'reg:squarederror',
                        '{"num_round": 20, "max_depth": 5}'::jsonb || params) AS m
FROM (VALUES ('free', '{}'::jsonb),
             ('lossguide', '{"grow_policy": "lossguide", "max_leaves": 6, "max_depth": 0}'),
             ('mono', '{"monotone_constraints": {"x1": 1}}'),
             ('mono_lossguide', '{"monotone_constraints": {"x1": 1}, "grow_policy": "lossguide", "max_leaves": 12}'),
             ('inter', '{"interaction_constraints": [["city", "x1"], ["x2"]]}'),
             ('bynode', '{"colsample_bynode": 0.5}'),
             ('bynode2', '{"colsample_bynode": 0.5}')) v(name, params);
CREATE FUNCTION pg_temp.m(text) RETURNS gbdt_model LANGUAGE sql AS $$ SELECT m FROM m48 WHERE name = $1 $$;

CREATE FUNCTION pg_temp.cat_splits(m gbdt_model) RETURNS int AS $$
  SELECT count(*)::int FROM gbdt_trees(m) WHERE categories IS NOT NULL
$$ LANGUAGE sql;
CREATE FUNCTION pg_temp.max_leaves_per_tree(m gbdt_model) RETURNS int AS $$
  SELECT max(n)::int FROM (SELECT count(*) FILTER (WHERE leaf_value IS NOT NULL) AS n
                           FROM gbdt_trees(m) GROUP BY tree) t
$$ LANGUAGE sql;
-- Decreases of the prediction along a grid of x1, for every city code and
-- two values of x2 (codes passed to gbdt_predict(model, float8[])).
CREATE FUNCTION pg_temp.mono_violations(m gbdt_model) RETURNS int AS $$
  WITH pts AS (
    SELECT c, b, k, ARRAY[c, -1 + 0.02 * k, b]::float8[] AS x
    FROM generate_series(0, 7) c, (VALUES (-0.6), (0.4)) v(b), generate_series(0, 100) k),
  p AS (SELECT c, b, k, gbdt_predict(m, x) AS y FROM pts),
  d AS (SELECT y - lag(y) OVER (PARTITION BY c, b ORDER BY k) AS dy FROM p)
  SELECT count(*)::int FROM d WHERE dy < 0
$$ LANGUAGE sql;
-- Parent/child splits whose features are not in one set {city, x1} or {x2}.
CREATE FUNCTION pg_temp.cross_pairs(m gbdt_model) RETURNS int AS $$
  SELECT count(*)::int FROM gbdt_trees(m) p JOIN gbdt_trees(m) c
    ON c.tree = p.tree AND c.node IN (p.left_child, p.right_child)
  WHERE c.feature IS NOT NULL
    AND NOT ((p.feature IN ('city', 'x1') AND c.feature IN ('city', 'x1')) OR
             (p.feature = 'x2' AND c.feature = 'x2'))
$$ LANGUAGE sql;

-- ---- lossguide / max_leaves ----
SELECT is(pg_temp.max_leaves_per_tree(pg_temp.m('lossguide')), 6,
          'lossguide with a categorical column: at most max_leaves = 6 leaves, reached');
SELECT cmp_ok(pg_temp.cat_splits(pg_temp.m('lossguide')), '>', 0, 'lossguide makes categorical splits');
SELECT ok((SELECT max(abs(gbdt_predict(pg_temp.m('lossguide'), d) - d.y)) FROM tc48 d) < 1.5,
          'lossguide with a categorical column fits the categorical step');

-- ---- monotone_constraints ----
SELECT cmp_ok(pg_temp.mono_violations(pg_temp.m('free')), '>', 0, 'without constraints the data breaks monotonicity in x1');
SELECT is(pg_temp.mono_violations(pg_temp.m(n)), 0, n || ': predictions never fall along x1, for every city')
FROM unnest(ARRAY['mono', 'mono_lossguide']) n;
SELECT cmp_ok(pg_temp.cat_splits(pg_temp.m('mono')), '>', 0, 'the monotone model still splits on the categorical column');
SELECT throws_like($$SELECT gbdt_train('tc48', 'y', ARRAY['city', 'x1', 'x2'], NULL, '{"monotone_constraints": {"city": 1}}')$$,
                   '%parameter "monotone_constraints" constrains the categorical feature "city": only numeric features can be monotone%',
                   'a monotone constraint on a categorical column is refused by name');

-- ---- interaction_constraints ----
SELECT cmp_ok(pg_temp.cross_pairs(pg_temp.m('free')), '>', 0, 'without constraints parents and children mix the sets');
SELECT is(pg_temp.cross_pairs(pg_temp.m('inter')), 0, 'interaction constraints naming the categorical column hold on every branch');
SELECT cmp_ok(pg_temp.cat_splits(pg_temp.m('inter')), '>', 0, 'the constrained model splits on the categorical column');
SELECT is(gbdt_model_info(pg_temp.m('inter'))->'params'->>'interaction_constraints', '[[0,1],[2]]',
          'interaction constraints recorded by index');

-- ---- colsample_bynode ----
SELECT is((SELECT count(*)::int FROM tc48 d WHERE gbdt_predict(pg_temp.m('bynode'), d) <> gbdt_predict(pg_temp.m('bynode2'), d)), 0,
          'colsample_bynode with a categorical column is deterministic');
SELECT cmp_ok(pg_temp.cat_splits(pg_temp.m('bynode')), '>', 0, 'colsample_bynode keeps categorical splits');

-- ---- no tree parameter: nothing new recorded ----
SELECT is((SELECT count(*)::int FROM jsonb_object_keys(gbdt_model_info(pg_temp.m('free'))->'params') k
           WHERE k IN ('grow_policy', 'max_leaves', 'colsample_bylevel', 'colsample_bynode',
                       'monotone_constraints', 'interaction_constraints')), 0,
          'a training without tree parameters records none of them');

-- ---- continued training (numeric columns) with tree parameters ----
CREATE TEMP TABLE cm48 AS
SELECT gbdt_train('tc48', 'y', ARRAY['x1', 'x2'], NULL,
                  '{"num_round": 5, "grow_policy": "lossguide", "max_leaves": 5, "colsample_bynode": 0.5}') AS m5,
       gbdt_train('tc48', 'y', ARRAY['x1', 'x2'], NULL,
                  '{"num_round": 10, "grow_policy": "lossguide", "max_leaves": 5, "colsample_bynode": 0.5}') AS m10;
ALTER TABLE cm48 ADD COLUMN c10 gbdt_model;
UPDATE cm48 SET c10 = gbdt_train('tc48', 'y', ARRAY['x1', 'x2'], NULL,
                                 '{"num_round": 5, "grow_policy": "lossguide", "max_leaves": 5, "colsample_bynode": 0.5}',
                                 init_model => m5);
SELECT is((SELECT count(*)::int FROM cm48, tc48 d WHERE gbdt_predict(c10, d) IS DISTINCT FROM gbdt_predict(m10, d)), 0,
          'lossguide + colsample_bynode: 5 + 5 rounds predict exactly as 10 rounds at once');

-- ---- ranking with a categorical column and tree parameters ----
SELECT is(pg_temp.max_leaves_per_tree(
            gbdt_train('tc48', 'rel', ARRAY['city', 'x1'], 'rank:ndcg',
                       '{"group_column": "qid", "num_round": 5, "grow_policy": "lossguide", "max_leaves": 4, "min_child_weight": 0,
                         "monotone_constraints": {"x1": 1}}')), 4,
          'rank:ndcg with a categorical column, lossguide, max_leaves and a monotone constraint');

SELECT * FROM finish();
ROLLBACK;
