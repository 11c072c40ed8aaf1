-- Issue 10, major: scoring is cancelled inside a batch.  A model of 2000
-- chain trees 40 deep (every row walks 80,000 nodes) scoring 65,536 rows
-- runs for many seconds per batch; statement_timeout = 1 s must stop
-- gbdt_evaluate, gbdt_predict_table and row-by-row gbdt_predict promptly
-- (the engine polls the cancel flag between trees and while waiting for
-- its workers).  Margins are wide: the bound is 4 s for a 1 s timeout
-- (before the fix gbdt_evaluate took the whole first batch).
--
-- PL/pgSQL's WHEN OTHERS does not catch query_canceled: helpers catch it
-- by name.
BEGIN;
SELECT plan(9);

-- An XGBoost JSON model of n_trees chain trees (reg:squarederror, feature
-- "a"): every row with a < 0.5 walks `depth` nodes in every tree.
CREATE FUNCTION pg_temp.chain_model(n_trees int, depth int) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  WITH nodes AS (
    SELECT i, (i % 2 = 0 AND i < 2 * depth) AS inner_node FROM generate_series(0, 2 * depth) i),
  tree AS (
    SELECT jsonb_build_object(
      'base_weights', jsonb_agg(CASE WHEN inner_node THEN 0 ELSE 0.001 END ORDER BY i),
      'categories', '[]'::jsonb, 'categories_nodes', '[]'::jsonb, 'categories_segments', '[]'::jsonb,
      'categories_sizes', '[]'::jsonb,
      'default_left', jsonb_agg(1 ORDER BY i),
      'left_children', jsonb_agg(CASE WHEN inner_node THEN i + 2 ELSE -1 END ORDER BY i),
      'right_children', jsonb_agg(CASE WHEN inner_node THEN i + 1 ELSE -1 END ORDER BY i),
      'parents', jsonb_agg(CASE WHEN i = 0 THEN 2147483647 ELSE ((i - 1) / 2) * 2 END ORDER BY i),
      'loss_changes', jsonb_agg(CASE WHEN inner_node THEN 1.0 ELSE 0.0 END ORDER BY i),
      'split_conditions', jsonb_agg(CASE WHEN inner_node THEN 0.5 ELSE 0.001 END ORDER BY i),
      'split_indices', jsonb_agg(0 ORDER BY i),
      'split_type', jsonb_agg(0 ORDER BY i),
      'sum_hessian', jsonb_agg(1.0 ORDER BY i),
      'tree_param', jsonb_build_object('num_deleted', '0', 'num_feature', '1',
                                       'num_nodes', (2 * depth + 1)::text, 'size_leaf_vector', '1')) AS t
    FROM nodes)
  SELECT jsonb_build_object('learner', jsonb_build_object(
    'attributes', '{}'::jsonb, 'feature_names', '["a"]'::jsonb, 'feature_types', '["float"]'::jsonb,
    'gradient_booster', jsonb_build_object('name', 'gbtree', 'model', jsonb_build_object(
      'gbtree_model_param', jsonb_build_object('num_parallel_tree', '1', 'num_trees', n_trees::text),
      'iteration_indptr', (SELECT jsonb_agg(k ORDER BY k) FROM generate_series(0, n_trees) k),
      'tree_info', (SELECT jsonb_agg(0) FROM generate_series(1, n_trees)),
      'trees', (SELECT jsonb_agg(t || jsonb_build_object('id', k - 1) ORDER BY k)
                FROM tree, generate_series(1, n_trees) k))),
    'learner_model_param', jsonb_build_object('base_score', '[5E-1]', 'boost_from_average', '1',
                                              'num_class', '0', 'num_feature', '1', 'num_target', '1'),
    'objective', jsonb_build_object('name', 'reg:squarederror',
                                    'reg_loss_param', jsonb_build_object('scale_pos_weight', '1'))),
    'version', '[3, 2, 0]'::jsonb)
$$;

CREATE FUNCTION pg_temp.timed(q text, OUT err text, OUT seconds float8) LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE q;
  err := 'no error';
  seconds := extract(epoch FROM clock_timestamp() - t0);
EXCEPTION WHEN query_canceled THEN
  GET STACKED DIAGNOSTICS err = MESSAGE_TEXT;
  seconds := extract(epoch FROM clock_timestamp() - t0);
END $$;

CREATE TEMP TABLE t32_model AS SELECT gbdt_import(pg_temp.chain_model(2000, 40)) AS m;
CREATE TEMP TABLE t32_rows AS SELECT i AS id, 0.25::float8 AS a, 1.0::float8 AS y FROM generate_series(1, 65536) i;
SELECT cmp_ok((SELECT abs(gbdt_predict(m, ARRAY[0.25]::float8[]) - 2.5) FROM t32_model), '<', 1e-4::float8,
              'chain model: each of the 2000 trees adds 0.001 at the end of its chain');

SET LOCAL statement_timeout = '1s';
CREATE TEMP TABLE t32_eval AS
SELECT * FROM pg_temp.timed($$SELECT gbdt_evaluate(m, 't32_rows', 'y') FROM t32_model$$);
CREATE TEMP TABLE t32_table AS
SELECT * FROM pg_temp.timed($$SELECT count(*) FROM t32_model, gbdt_predict_table(m, 't32_rows', 'id')$$);
CREATE TEMP TABLE t32_row AS
SELECT * FROM pg_temp.timed($$SELECT sum(gbdt_predict(m, r)) FROM t32_model, t32_rows r$$);
SET LOCAL statement_timeout = 0;

SELECT is(err, 'canceling statement due to statement timeout', 'gbdt_evaluate: statement_timeout error') FROM t32_eval;
SELECT cmp_ok(seconds, '<', 4.0::float8, format('gbdt_evaluate stopped promptly (%s s, timeout 1 s)', round(seconds::numeric, 2)))
FROM t32_eval;
SELECT is(err, 'canceling statement due to statement timeout', 'gbdt_predict_table: statement_timeout error') FROM t32_table;
SELECT cmp_ok(seconds, '<', 4.0::float8, format('gbdt_predict_table stopped promptly (%s s, timeout 1 s)', round(seconds::numeric, 2)))
FROM t32_table;
SELECT is(err, 'canceling statement due to statement timeout', 'gbdt_predict per row: statement_timeout error') FROM t32_row;
SELECT cmp_ok(seconds, '<', 4.0::float8, format('gbdt_predict per row stopped promptly (%s s, timeout 1 s)', round(seconds::numeric, 2)))
FROM t32_row;

-- The session scores normally afterwards (workers of the cancelled calls
-- were joined; the same model still gives the same answer).
SELECT cmp_ok((SELECT abs(gbdt_predict(m, ARRAY[0.25]::float8[]) - 2.5) FROM t32_model), '<', 1e-4::float8,
              'scoring works after the cancels');
CREATE TEMP TABLE t32_few AS SELECT * FROM t32_rows WHERE id <= 300;
SELECT is((SELECT count(*)::int FROM t32_model, gbdt_predict_table(m, 't32_few', 'id') p WHERE abs(p.prediction - 2.5) < 1e-4), 300,
          'gbdt_predict_table works after the cancels');

SELECT * FROM finish();
ROLLBACK;
