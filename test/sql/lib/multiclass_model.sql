-- Included by pgTAP files (\ir ../lib/multiclass_model.sql).
-- An XGBoost JSON multi:softprob model with n_class classes, `rounds`
-- stumps per class on feature "a"; every leaf left of 0.5 = leaf, or
-- (tree index % 7) / 10 when leaf is NULL.
CREATE FUNCTION pg_temp.multiclass_model(n_class int, leaf float8 DEFAULT NULL, rounds int DEFAULT 1) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('learner', jsonb_build_object(
    'attributes', '{}'::jsonb, 'feature_names', '["a"]'::jsonb, 'feature_types', '["float"]'::jsonb,
    'gradient_booster', jsonb_build_object('name', 'gbtree', 'model', jsonb_build_object(
      'gbtree_model_param', jsonb_build_object('num_parallel_tree', '1', 'num_trees', (n_class * rounds)::text),
      'iteration_indptr', (SELECT jsonb_agg(r * n_class ORDER BY r) FROM generate_series(0, rounds) r),
      'tree_info', (SELECT jsonb_agg(k % n_class ORDER BY k) FROM generate_series(0, n_class * rounds - 1) k),
      'trees', (SELECT jsonb_agg(jsonb_build_object(
          'base_weights', jsonb_build_array(0, v, 0),
          'categories', '[]'::jsonb, 'categories_nodes', '[]'::jsonb, 'categories_segments', '[]'::jsonb,
          'categories_sizes', '[]'::jsonb, 'default_left', '[1, 0, 0]'::jsonb, 'id', k,
          'left_children', '[1, -1, -1]'::jsonb, 'right_children', '[2, -1, -1]'::jsonb,
          'parents', '[2147483647, 0, 0]'::jsonb, 'loss_changes', '[1.0, 0.0, 0.0]'::jsonb,
          'split_conditions', jsonb_build_array(0.5, v, 0), 'split_indices', '[0, 0, 0]'::jsonb,
          'split_type', '[0, 0, 0]'::jsonb, 'sum_hessian', '[2.0, 1.0, 1.0]'::jsonb,
          'tree_param', jsonb_build_object('num_deleted', '0', 'num_feature', '1', 'num_nodes', '3',
                                           'size_leaf_vector', '1')) ORDER BY k)
        FROM generate_series(0, n_class * rounds - 1) k, LATERAL (SELECT coalesce(leaf, (k % 7) / 10.0) AS v) l))),
    'learner_model_param', jsonb_build_object('base_score', '[5E-1]', 'boost_from_average', '1',
                                              'num_class', n_class::text, 'num_feature', '1', 'num_target', '1'),
    'objective', jsonb_build_object('name', 'multi:softprob',
                                    'reg_loss_param', jsonb_build_object('scale_pos_weight', '1'))),
    'version', '[3, 2, 0]'::jsonb)
$$;
