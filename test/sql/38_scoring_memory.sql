-- Issue 10, major: scoring memory is bounded by rows x classes.  A
-- 2000-class model (imported XGBoost JSON, one stump per class) evaluated
-- on 7000 rows needed rows x classes x 8 bytes (112 MB) of predictions and
-- predict_table two batches of up to 16384 rows x classes; now batches are
-- sized from work_mem divided by the classes and multiclass metrics are
-- summed batch by batch.  Measured as the backend's peak resident memory
-- (VmHWM, reset through /proc/self/clear_refs) grown by the call: under
-- half of what the rows x classes predictions alone would take.
BEGIN;
SELECT plan(8);

-- An XGBoost JSON multi:softprob model with n_class classes, one stump per
-- class on feature "a": class k's leaf is (k % 7) / 10 left of 0.5, 0 right.
CREATE FUNCTION pg_temp.multiclass_model(n_class int, leaf float8 DEFAULT NULL) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('learner', jsonb_build_object(
    'attributes', '{}'::jsonb, 'feature_names', '["a"]'::jsonb, 'feature_types', '["float"]'::jsonb,
    'gradient_booster', jsonb_build_object('name', 'gbtree', 'model', jsonb_build_object(
      'gbtree_model_param', jsonb_build_object('num_parallel_tree', '1', 'num_trees', n_class::text),
      'iteration_indptr', jsonb_build_array(0, n_class),
      'tree_info', (SELECT jsonb_agg(k ORDER BY k) FROM generate_series(0, n_class - 1) k),
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
        FROM generate_series(0, n_class - 1) k, LATERAL (SELECT coalesce(leaf, (k % 7) / 10.0) AS v) l))),
    'learner_model_param', jsonb_build_object('base_score', '[5E-1]', 'boost_from_average', '1',
                                              'num_class', n_class::text, 'num_feature', '1', 'num_target', '1'),
    'objective', jsonb_build_object('name', 'multi:softprob',
                                    'reg_loss_param', jsonb_build_object('scale_pos_weight', '1'))),
    'version', '[3, 2, 0]'::jsonb)
$$;

CREATE FUNCTION pg_temp.hwm_kb() RETURNS bigint LANGUAGE sql AS $$
  SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s*(\d+)'))[1]::bigint $$;
-- Resets the peak to the current resident size (Linux clear_refs "5").
CREATE FUNCTION pg_temp.reset_hwm() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  COPY (SELECT 5) TO '/proc/self/clear_refs';
END $$;

CREATE TEMP TABLE t33_model AS SELECT gbdt_import(pg_temp.multiclass_model(2000)) AS m;
CREATE TEMP TABLE t33_rows AS
SELECT i AS id, (i % 2000)::float8 AS y, ((i % 3) / 2.0)::float8 AS a FROM generate_series(1, 7000) i;
SELECT is((SELECT (gbdt_model_info(m)->>'num_class')::int FROM t33_model), 2000, 'a 2000-class model');

SET LOCAL work_mem = '4MB';
-- 7000 rows x 2000 classes x 8 bytes, in kB.
CREATE TEMP TABLE t33_full AS SELECT (7000 * 2000 * 8 / 1024)::bigint AS kb;

SELECT pg_temp.reset_hwm();
CREATE TEMP TABLE t33_before AS SELECT pg_temp.hwm_kb() AS kb;
CREATE TEMP TABLE t33_eval AS SELECT gbdt_evaluate(m, 't33_rows', 'y') AS j FROM t33_model;
CREATE TEMP TABLE t33_after AS SELECT pg_temp.hwm_kb() AS kb;
SELECT cmp_ok((SELECT a.kb - b.kb FROM t33_after a, t33_before b), '<', (SELECT kb / 2 FROM t33_full),
              format('gbdt_evaluate: peak memory grew by %s kB (rows x classes = %s kB)',
                     (SELECT a.kb - b.kb FROM t33_after a, t33_before b), (SELECT kb FROM t33_full)));

-- Streaming metrics equal their definitions, computed from the per-row
-- functions.
SELECT cmp_ok((SELECT abs((j->>'mlogloss')::float8 - (
                 SELECT avg(-ln(greatest(probability, 1e-15))) FROM (
                   SELECT DISTINCT ON (r.id) r.id, p.probability
                   FROM t33_rows r, t33_model, gbdt_predict_proba(m, r) p WHERE p.class = r.y ORDER BY r.id) s))
               FROM t33_eval), '<', 1e-9::float8, 'mlogloss = mean -ln p(true class) (from gbdt_predict_proba)');
SELECT is((SELECT (j->>'rows')::int FROM t33_eval), 7000, 'all rows evaluated');
SELECT cmp_ok((SELECT abs((j->>'accuracy')::float8 - (
                 SELECT avg((gbdt_predict(m, r) = r.y)::int) FROM t33_rows r, t33_model))
               FROM t33_eval), '<', 1e-12::float8, 'accuracy = share of rows whose predicted class is the label');

SELECT pg_temp.reset_hwm();
CREATE TEMP TABLE t33_before2 AS SELECT pg_temp.hwm_kb() AS kb;
CREATE TEMP TABLE t33_pt AS SELECT p.* FROM t33_model, gbdt_predict_table(m, 't33_rows', 'id') p;
CREATE TEMP TABLE t33_after2 AS SELECT pg_temp.hwm_kb() AS kb;
SELECT cmp_ok((SELECT a.kb - b.kb FROM t33_after2 a, t33_before2 b), '<', (SELECT kb / 2 FROM t33_full),
              format('gbdt_predict_table: peak memory grew by %s kB (rows x classes = %s kB)',
                     (SELECT a.kb - b.kb FROM t33_after2 a, t33_before2 b), (SELECT kb FROM t33_full)));
SELECT is_empty($$SELECT p.key::int, p.prediction FROM t33_pt p
                  EXCEPT SELECT r.id, gbdt_predict(m, r) FROM t33_rows r, t33_model$$,
                'gbdt_predict_table with small batches = gbdt_predict row by row');

-- A tiny work_mem still scores (at least one row per batch).
SET LOCAL work_mem = '64kB';
SELECT is((SELECT count(*)::int FROM t33_model, gbdt_predict_table(m, 't33_rows', 'id') p), 7000, 'work_mem 64kB: every row scored');

SELECT * FROM finish();
ROLLBACK;
