-- Tree parameters of XGBoost's hist updater: monotone_constraints (tuple or
-- by column name; holds on a grid), interaction_constraints (by column name
-- or index), colsample_bylevel / colsample_bynode, grow_policy lossguide
-- with max_leaves (and max_depth 0; on device cuda too), the hist-updater
-- parameters gbdt does not support, and errors naming the parameter and the
-- allowed values.
BEGIN;
SELECT plan(37);

CREATE TABLE tp_data AS
SELECT i AS id, x1, x2, x3, x4,
       x1 + 0.8 * sin(6 * x1) - x2 - 0.8 * sin(5 * x2) + x1 * x3 + x3 * x4 + 0.5 * x4 AS y
FROM (SELECT i, ((i * 37) % 1000) / 500.0 - 1 AS x1, ((i * 91) % 997) / 498.5 - 1 AS x2,
             ((i * 53) % 991) / 495.5 - 1 AS x3, ((i * 29) % 983) / 491.5 - 1 AS x4
      FROM generate_series(1, 3000) i) s;

-- Violations of monotonicity along a grid of feature f (1: x1, 2: x2) in
-- direction dir, the other features fixed at four points.
CREATE FUNCTION pg_temp.mono_violations(m gbdt_model, f int, dir int) RETURNS int AS $$
  WITH pts AS (
    SELECT c.id, k, CASE WHEN f = 1 THEN ARRAY[-1 + 0.02 * k, c.a, c.b, c.b]
                         ELSE ARRAY[c.a, -1 + 0.02 * k, c.b, -c.b] END::float8[] AS x
    FROM generate_series(0, 100) k,
         (VALUES (1, -0.5, 0.3), (2, 0.1, -0.7), (3, 0.8, 0.8), (4, -0.9, -0.2)) c(id, a, b)),
  p AS (SELECT id, k, gbdt_predict(m, x) AS y FROM pts),
  d AS (SELECT y - lag(y) OVER (PARTITION BY id ORDER BY k) AS dy FROM p)
  SELECT count(*)::int FROM d WHERE dir * dy < 0
$$ LANGUAGE sql;

-- Parent/child splits whose features are not in one interaction set {x1, x2} or {x3, x4}.
CREATE FUNCTION pg_temp.cross_pairs(m gbdt_model) RETURNS int AS $$
  SELECT count(*)::int FROM gbdt_trees(m) p JOIN gbdt_trees(m) c
    ON c.tree = p.tree AND c.node IN (p.left_child, p.right_child)
  WHERE c.feature IS NOT NULL
    AND NOT ((p.feature IN ('x1', 'x2') AND c.feature IN ('x1', 'x2')) OR
             (p.feature IN ('x3', 'x4') AND c.feature IN ('x3', 'x4')))
$$ LANGUAGE sql;

CREATE FUNCTION pg_temp.max_leaves_per_tree(m gbdt_model) RETURNS int AS $$
  SELECT max(n)::int FROM (SELECT count(*) FILTER (WHERE leaf_value IS NOT NULL) AS n
                           FROM gbdt_trees(m) GROUP BY tree) t
$$ LANGUAGE sql;

CREATE TEMP TABLE tm AS
SELECT name, gbdt_train('tp_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], 'reg:squarederror',
                        '{"num_round": 30, "max_depth": 5}'::jsonb || params) AS m
FROM (VALUES ('free', '{}'::jsonb),
             ('mono_tuple', '{"monotone_constraints": "(1,-1)"}'),
             ('mono_name', '{"monotone_constraints": {"x1": 1, "x2": -1}}'),
             ('mono_text', '{"monotone_constraints": "{\"x2\": -1, \"x1\": 1}"}'),
             ('mono_lossguide', '{"monotone_constraints": "(1,-1,0,0)", "grow_policy": "lossguide",
                                  "max_leaves": 12, "max_depth": 0}'),
             ('inter_name', '{"interaction_constraints": [["x1", "x2"], ["x3", "x4"]]}'),
             ('inter_index', '{"interaction_constraints": "[[0,1],[2,3]]"}'),
             ('bylevel', '{"colsample_bylevel": 0.5}'),
             ('bylevel2', '{"colsample_bylevel": 0.5}'),
             ('bynode', '{"colsample_bynode": 0.5, "colsample_bytree": 0.8}'),
             ('lossguide', '{"grow_policy": "lossguide", "max_leaves": 7, "max_depth": 0}'),
             ('lossguide_d', '{"grow_policy": "lossguide", "max_leaves": 20, "max_depth": 3}'),
             ('depthwise_ml', '{"max_leaves": 5}')) v(name, params);

CREATE FUNCTION pg_temp.m(n text) RETURNS gbdt_model AS $$ SELECT m FROM tm WHERE name = n $$ LANGUAGE sql;

-- ---- monotone_constraints ----
SELECT cmp_ok(pg_temp.mono_violations(pg_temp.m('free'), 1, 1) + pg_temp.mono_violations(pg_temp.m('free'), 2, -1),
              '>', 0, 'without constraints the data breaks monotonicity in x1 and x2');
SELECT is(pg_temp.mono_violations(pg_temp.m(n), 1, 1), 0, n || ': predictions never fall along x1')
FROM unnest(ARRAY['mono_tuple', 'mono_name', 'mono_text', 'mono_lossguide']) n;
SELECT is(pg_temp.mono_violations(pg_temp.m(n), 2, -1), 0, n || ': predictions never rise along x2')
FROM unnest(ARRAY['mono_tuple', 'mono_name', 'mono_text', 'mono_lossguide']) n;
SELECT is(gbdt_model_info(pg_temp.m('mono_name'))->'params'->>'monotone_constraints', '(1,-1,0,0)',
          'monotone constraints recorded per feature');
SELECT cmp_ok((SELECT sqrt(avg((gbdt_predict(pg_temp.m('mono_name'), d) - y) ^ 2)) FROM tp_data d), '<',
              (SELECT stddev_pop(y) FROM tp_data) / 2, 'the constrained model still fits');

-- The regression objectives with the tree constraints: reg:quantileerror,
-- depthwise and lossguide.
CREATE TEMP TABLE tq AS
SELECT name, gbdt_train('tp_data', 'y', ARRAY['x1', 'x2', 'x3', 'x4'], 'reg:quantileerror',
                        '{"num_round": 30, "max_depth": 5, "quantile_alpha": 0.8,
                          "monotone_constraints": {"x1": 1, "x2": -1}}'::jsonb || params) AS m
FROM (VALUES ('q_depthwise', '{}'::jsonb),
             ('q_lossguide', '{"grow_policy": "lossguide", "max_leaves": 12, "max_depth": 0}')) v(name, params);
SELECT is(pg_temp.mono_violations(m, 1, 1) + pg_temp.mono_violations(m, 2, -1), 0,
          name || ': reg:quantileerror keeps the monotone constraints')
FROM tq ORDER BY name;
SELECT is((SELECT gbdt_model_info(m)->'params'->>'objective' || ' ' ||
                  ((gbdt_model_info(m)->'params'->>'quantile_alpha')::float8 = 0.8) || ' ' ||
                  (gbdt_model_info(m)->'params'->>'monotone_constraints') FROM tq WHERE name = 'q_lossguide'),
          'reg:quantileerror true (1,-1,0,0)', 'quantile and constraint parameters recorded');
SELECT cmp_ok((SELECT avg((y <= gbdt_predict(m, d))::int) FROM tq, tp_data d WHERE name = 'q_depthwise'),
              '>', 0.6::numeric, 'the constrained 0.8 quantile lies above most labels');

-- ---- interaction_constraints ----
SELECT cmp_ok(pg_temp.cross_pairs(pg_temp.m('free')), '>', 0, 'without constraints parents and children mix the sets');
SELECT is(pg_temp.cross_pairs(pg_temp.m('inter_name')), 0, 'interaction constraints by column name hold on every branch');
SELECT is(pg_temp.cross_pairs(pg_temp.m('inter_index')), 0, 'interaction constraints by index hold on every branch');
SELECT is(gbdt_model_info(pg_temp.m('inter_name'))->'params'->>'interaction_constraints', '[[0,1],[2,3]]',
          'interaction constraints recorded by index');

-- ---- colsample_bylevel / colsample_bynode ----
SELECT is((SELECT count(*)::int FROM tp_data d
           WHERE gbdt_predict(pg_temp.m('bylevel'), d) <> gbdt_predict(pg_temp.m('bylevel2'), d)), 0,
          'colsample_bylevel is deterministic from the seed');
SELECT cmp_ok((SELECT count(*)::int FROM tp_data d
               WHERE gbdt_predict(pg_temp.m('bylevel'), d) <> gbdt_predict(pg_temp.m('free'), d)), '>', 0,
              'colsample_bylevel changes the trees');
SELECT cmp_ok((SELECT count(*)::int FROM tp_data d
               WHERE gbdt_predict(pg_temp.m('bynode'), d) <> gbdt_predict(pg_temp.m('free'), d)), '>', 0,
              'colsample_bynode changes the trees');
SELECT is(gbdt_model_info(pg_temp.m('bynode'))->'params'->>'colsample_bynode', '0.5', 'colsample_bynode recorded');

-- ---- lossguide / max_leaves ----
SELECT is(pg_temp.max_leaves_per_tree(pg_temp.m('lossguide')), 7, 'lossguide: at most max_leaves = 7 leaves, reached');
SELECT is(pg_temp.max_leaves_per_tree(pg_temp.m('lossguide_d')), 8, 'lossguide with max_depth 3: at most 2^3 leaves');
SELECT is(pg_temp.max_leaves_per_tree(pg_temp.m('depthwise_ml')), 5, 'depthwise with max_leaves = 5');
SELECT is(gbdt_model_info(pg_temp.m('lossguide'))->'params'->>'grow_policy', 'lossguide', 'grow_policy recorded');

-- ---- errors ----
SELECT throws_like($$SELECT gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"monotone_constraints": {"x9": 1}}')$$,
                   '%parameter "monotone_constraints" names column "x9", which is not a feature column: the features are x1, x2%',
                   'monotone constraint on an unknown column');
SELECT throws_like($$SELECT gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"monotone_constraints": "(1,2)"}')$$,
                   '%parameter "monotone_constraints" has the value 2: each constraint must be -1, 0 or 1%',
                   'monotone constraint value out of range');
SELECT throws_like($$SELECT gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"interaction_constraints": [["x1", "nope"]]}')$$,
                   '%parameter "interaction_constraints" names column "nope"%', 'interaction constraint on an unknown column');
SELECT throws_like($$SELECT gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"grow_policy": "leafwise"}')$$,
                   '%parameter "grow_policy" = "leafwise" is not supported: must be depthwise or lossguide%', 'bad grow_policy');
SELECT throws_like($$SELECT gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"max_leaves": -1}')$$,
                   '%parameter "max_leaves" = -1 is out of range: must be an integer in [0, 65536]%', 'max_leaves out of range');
SELECT throws_like($$SELECT gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"colsample_bynode": 0}')$$,
                   '%parameter "colsample_bynode" = 0 is out of range: must be in (0, 1]%', 'colsample_bynode out of range');
SELECT throws_like($$SELECT gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"max_depth": 0, "grow_policy": "lossguide"}')$$,
                   '%parameter "max_depth" = 0 (no depth limit) needs max_leaves > 0%', 'max_depth 0 needs max_leaves');
SELECT throws_like($$SELECT gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"num_parallel_tree": 0}')$$,
                   '%parameter "num_parallel_tree" = 0 is out of range: must be an integer in [1, 1000]%', 'num_parallel_tree out of range by name');
SELECT throws_like($$SELECT gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"sampling_method": "gradient_based"}')$$,
                   '%parameter "sampling_method" = "gradient_based" is not supported: only uniform%', 'sampling_method refused by name');
-- the CUDA backend grows lossguide: device 'cuda' takes it (the same
-- model as the CPU's where there is a device); without one the error is the
-- device's, as for any training (train/device.sql), never the parameter's.
SELECT CASE WHEN (gbdt_build_info()->>'cuda_compiled')::bool AND jsonb_array_length(gbdt_build_info()->'cuda'->'devices') > 0
  THEN is(gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"grow_policy": "lossguide", "max_leaves": 7, "max_depth": 0, "device": "cuda"}')::text,
          gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"grow_policy": "lossguide", "max_leaves": 7, "max_depth": 0, "device": "cpu"}')::text,
          'device cuda grows lossguide: the CPU model byte for byte')
  WHEN (gbdt_build_info()->>'cuda_compiled')::bool
  THEN throws_like($$SELECT gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"grow_policy": "lossguide", "max_leaves": 7, "device": "cuda"}')$$,
                   '%device ''cuda'' requested but no CUDA device is available: %',
                   'device cuda takes lossguide: without a GPU the error is the missing device')
  ELSE throws_like($$SELECT gbdt_train('tp_data', 'y', ARRAY['x1', 'x2'], NULL, '{"grow_policy": "lossguide", "max_leaves": 7, "device": "cuda"}')$$,
                   '%device "cuda" requested but this gbdt library was built without CUDA%',
                   'device cuda takes lossguide: in a build without CUDA the error is the build')
  END;

SELECT * FROM finish();
ROLLBACK;
