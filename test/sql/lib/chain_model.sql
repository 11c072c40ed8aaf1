-- Included by pgTAP files (\ir ../lib/chain_model.sql).
-- An XGBoost JSON model of n_trees chain trees (reg:squarederror): every row
-- with feature values < 0.5 walks `depth` nodes in every tree; inner node i
-- splits on feature (i / 2) % nf (features "a" when nf = 1, else f0..f<nf-1>).
CREATE FUNCTION pg_temp.chain_model(n_trees int, depth int, nf int DEFAULT 1) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
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
      'split_indices', jsonb_agg(CASE WHEN inner_node THEN (i / 2) % nf ELSE 0 END ORDER BY i),
      'split_type', jsonb_agg(0 ORDER BY i),
      'sum_hessian', jsonb_agg(1.0 ORDER BY i),
      'tree_param', jsonb_build_object('num_deleted', '0', 'num_feature', nf::text,
                                       'num_nodes', (2 * depth + 1)::text, 'size_leaf_vector', '1')) AS t
    FROM nodes)
  SELECT jsonb_build_object('learner', jsonb_build_object(
    'attributes', '{}'::jsonb,
    'feature_names', CASE WHEN nf = 1 THEN '["a"]'::jsonb
                          ELSE (SELECT jsonb_agg('f' || k ORDER BY k) FROM generate_series(0, nf - 1) k) END,
    'feature_types', (SELECT jsonb_agg('float'::text) FROM generate_series(1, nf)),
    'gradient_booster', jsonb_build_object('name', 'gbtree', 'model', jsonb_build_object(
      'gbtree_model_param', jsonb_build_object('num_parallel_tree', '1', 'num_trees', n_trees::text),
      'iteration_indptr', (SELECT jsonb_agg(k ORDER BY k) FROM generate_series(0, n_trees) k),
      'tree_info', (SELECT jsonb_agg(0) FROM generate_series(1, n_trees)),
      'trees', (SELECT jsonb_agg(t || jsonb_build_object('id', k - 1) ORDER BY k)
                FROM tree, generate_series(1, n_trees) k))),
    'learner_model_param', jsonb_build_object('base_score', '[5E-1]', 'boost_from_average', '1',
                                              'num_class', '0', 'num_feature', nf::text, 'num_target', '1'),
    'objective', jsonb_build_object('name', 'reg:squarederror',
                                    'reg_loss_param', jsonb_build_object('scale_pos_weight', '1'))),
    'version', '[3, 2, 0]'::jsonb)
$$;
