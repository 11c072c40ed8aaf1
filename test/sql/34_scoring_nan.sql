-- Issue 10: predictions that come out NaN (a hostile model) never hang a
-- scoring path.  Finite leaves can still overflow: two classes whose
-- margins both add up to +inf give softmax inf - inf = NaN probabilities.
-- Every scoring function returns (under a statement_timeout that turns a
-- hang into a failure), and gbdt_evaluate reports NaN metrics as null.
-- A single-output model whose predictions are NaN (stored non-finite
-- floats, which the model validator rejects) gets a clear error from
-- gbdt_evaluate instead of an AUC over unordered values (evaluate.cpp).
BEGIN;
SELECT plan(7);

-- An XGBoost JSON multi:softprob model with n_class classes, `rounds`
-- stumps per class on feature "a", every leaf left of 0.5 = leaf.
CREATE FUNCTION pg_temp.multiclass_model(n_class int, leaf float8, rounds int) RETURNS jsonb
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
        FROM generate_series(0, n_class * rounds - 1) k, LATERAL (SELECT leaf AS v) l))),
    'learner_model_param', jsonb_build_object('base_score', '[5E-1]', 'boost_from_average', '1',
                                              'num_class', n_class::text, 'num_feature', '1', 'num_target', '1'),
    'objective', jsonb_build_object('name', 'multi:softprob',
                                    'reg_loss_param', jsonb_build_object('scale_pos_weight', '1'))),
    'version', '[3, 2, 0]'::jsonb)
$$;

CREATE TEMP TABLE t34_model AS SELECT gbdt_import(pg_temp.multiclass_model(2, 3e38, 2)) AS m;
CREATE TEMP TABLE t34_rows AS
SELECT i AS id, (i % 2)::float8 AS y, ((i % 3) / 2.0)::float8 AS a FROM generate_series(1, 5000) i;
SET LOCAL statement_timeout = '20s';

SELECT is((SELECT count(*)::int FROM t34_model, t34_rows r, gbdt_predict_proba(m, r) p
           WHERE r.a < 0.5 AND p.probability = 'NaN'::float8), 2 * (SELECT count(*)::int FROM t34_rows WHERE a < 0.5),
          'margins +inf in both classes: NaN probabilities');
SELECT is((SELECT count(*)::int FROM t34_model, t34_rows r WHERE gbdt_predict(m, r) IN (0, 1)), 5000,
          'gbdt_predict still answers a class for every row');
SELECT is((SELECT count(*)::int FROM t34_model, gbdt_predict_table(m, 't34_rows', 'id') p WHERE p.prediction IN (0, 1)), 5000,
          'gbdt_predict_table returns every row');
SELECT is((SELECT gbdt_evaluate(m, 't34_rows', 'y')->'mlogloss' FROM t34_model), 'null'::jsonb,
          'gbdt_evaluate returns; NaN mlogloss is null');
SELECT is((SELECT (gbdt_evaluate(m, 't34_rows', 'y')->>'rows')::int FROM t34_model), 5000, 'gbdt_evaluate counts every row');
SELECT is((SELECT count(*)::int FROM t34_model, gbdt_feature_importance(m) f), 1, 'gbdt_feature_importance returns');
SELECT is((SELECT count(*)::int FROM t34_model, gbdt_trees(m) t), 12, 'gbdt_trees returns every node');

SELECT * FROM finish();
ROLLBACK;
