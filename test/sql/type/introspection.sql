-- gbdt_model_info, gbdt_trees, gbdt_feature_importance, gbdt_evaluate, gbdt_build_info.
BEGIN;
SELECT plan(43);

CREATE TEMP TABLE im AS
SELECT 'bin' AS k, gbdt_train('higgs_train', 'label', NULL, 'binary:logistic', '{"num_round": 100, "eta": 0.1, "max_depth": 4}') AS m
UNION ALL
SELECT 'multi', gbdt_train('multi_train', 'label', ARRAY['f0', 'f1', 'f2', 'f3', 'f4'], 'multi:softprob', '{"num_round": 7, "max_depth": 3}')
UNION ALL
SELECT 'early', gbdt_train('reg_train', 'label', NULL, NULL,
                           '{"num_round": 1000, "eta": 0.3, "validation_fraction": 0.2, "early_stopping_rounds": 5, "seed": 3}');
CREATE FUNCTION pg_temp.m(kind text) RETURNS gbdt_model LANGUAGE sql STABLE AS $$ SELECT m FROM im WHERE k = kind $$;
CREATE FUNCTION pg_temp.info(kind text) RETURNS jsonb LANGUAGE sql STABLE AS $$ SELECT gbdt_model_info(m) FROM im WHERE k = kind $$;

-- gbdt_model_info.
SELECT is(jsonb_typeof(pg_temp.info('bin')), 'object', 'model info is a JSON object');
SELECT ok(pg_temp.info('bin') ?& ARRAY['objective', 'num_class', 'classes', 'features', 'rounds', 'trees', 'base_score',
                                       'params', 'rows_used', 'rows_skipped', 'rows_validation', 'eval_metric',
                                       'validation_history', 'best_iteration'],
          'model info has all documented keys');
SELECT is((pg_temp.info('bin')->>'rounds')::int, 100, 'rounds');
SELECT is((pg_temp.info('bin')->>'trees')::int, 100, 'trees = rounds for binary');
SELECT is((pg_temp.info('bin')->>'rows_used')::int, (SELECT count(*)::int FROM higgs_train), 'rows_used');
SELECT is((pg_temp.info('bin')->>'rows_skipped')::int, 0, 'rows_skipped');
SELECT is(jsonb_array_length(pg_temp.info('bin')->'features'), 28, '28 features');
SELECT is(pg_temp.info('bin')->'classes', '[0, 1]'::jsonb, 'binary classes');
SELECT ok(NOT pg_temp.info('bin') ? 'seconds', 'no timings in the model (models are byte-identical across runs)');
SELECT is((pg_temp.info('bin')->'params'->>'eta')::float8, 0.1::float8, 'params record eta');
SELECT is((pg_temp.info('bin')->'params'->>'max_depth')::int, 4, 'params record max_depth');
SELECT is((pg_temp.info('bin')->'params'->>'num_round')::int, 100, 'params record num_round');
SELECT cmp_ok(abs((pg_temp.info('bin')->>'base_score')::float8 - (SELECT avg(label) FROM higgs_train)), '<', 1e-6::float8,
              'base_score = mean label (XGBoost estimate)');
SELECT is((pg_temp.info('multi')->>'num_class')::int, 5, 'multiclass num_class');
SELECT is((pg_temp.info('multi')->>'trees')::int, 35, 'multiclass: one tree per class per round');
SELECT is(pg_temp.info('multi')->'classes', '[0, 1, 2, 3, 4]'::jsonb, 'multiclass classes');

-- Validation and early stopping.
SELECT cmp_ok((pg_temp.info('early')->>'rows_validation')::int, '>', 0, 'validation rows held out');
SELECT is((pg_temp.info('early')->>'rows_validation')::int + (pg_temp.info('early')->>'rows_used')::int,
          (SELECT count(*)::int FROM reg_train), 'used + validation = all rows');
SELECT cmp_ok((pg_temp.info('early')->>'best_iteration')::int, '>=', 0, 'best_iteration set');
SELECT is((pg_temp.info('early')->>'rounds')::int, (pg_temp.info('early')->>'best_iteration')::int + 1,
          'model keeps the rounds up to the best iteration');
SELECT cmp_ok(jsonb_array_length(pg_temp.info('early')->'validation_history'), '<', 1000, 'early stopping stopped early');
SELECT is(pg_temp.info('early')->>'eval_metric', 'rmse', 'default eval_metric for regression');

-- gbdt_trees: one row per node.
CREATE TEMP TABLE tr AS SELECT * FROM gbdt_trees(pg_temp.m('bin'));
SELECT is((SELECT count(DISTINCT tree)::int FROM tr), 100, 'gbdt_trees covers every tree');
SELECT is((SELECT count(*)::int FROM tr WHERE node = 0), 100, 'each tree has a root node 0');
SELECT is((SELECT count(*)::int FROM tr WHERE leaf_value IS NULL AND (feature IS NULL OR threshold IS NULL OR left_child IS NULL OR right_child IS NULL)),
          0, 'split nodes have feature, threshold and children');
SELECT is((SELECT count(*)::int FROM tr WHERE leaf_value IS NOT NULL AND feature IS NOT NULL), 0, 'leaves have a leaf_value and no feature');
SELECT is((SELECT count(*)::int FROM (SELECT tree, count(*) FILTER (WHERE leaf_value IS NOT NULL) AS leaves,
                                             count(*) FILTER (WHERE leaf_value IS NULL) AS splits
                                      FROM tr GROUP BY tree) q WHERE leaves <> splits + 1),
          0, 'every tree is binary: leaves = splits + 1');
SELECT is((SELECT count(*)::int FROM tr a
           WHERE a.leaf_value IS NULL
             AND (NOT EXISTS (SELECT 1 FROM tr c WHERE c.tree = a.tree AND c.node = a.left_child AND c.node > a.node)
                  OR NOT EXISTS (SELECT 1 FROM tr c WHERE c.tree = a.tree AND c.node = a.right_child AND c.node > a.node))),
          0, 'children are later nodes of the same tree');
SELECT is((SELECT count(*)::int FROM tr WHERE feature IS NOT NULL AND feature !~ '^f([0-9]|1[0-9]|2[0-7])$'), 0,
          'split features are model features');
SELECT is((SELECT count(DISTINCT class)::int FROM gbdt_trees(pg_temp.m('multi'))), 5, 'multiclass trees carry their class');
-- Scoring by walking gbdt_trees in SQL reproduces gbdt_predict's margin for one row.
WITH RECURSIVE row1 AS (SELECT * FROM higgs_test ORDER BY id LIMIT 1),
x AS (SELECT key AS feature, value::float8 AS v FROM row1, jsonb_each_text(to_jsonb(row1)) WHERE key LIKE 'f%'),
walk AS (
  SELECT tree, node, left_child, right_child, feature, threshold, default_left, leaf_value FROM tr WHERE node = 0
  UNION ALL
  SELECT t.tree, t.node, t.left_child, t.right_child, t.feature, t.threshold, t.default_left, t.leaf_value
  FROM walk w JOIN x ON x.feature = w.feature
  JOIN tr t ON t.tree = w.tree AND t.node = CASE WHEN x.v::real < w.threshold::real THEN w.left_child ELSE w.right_child END
  WHERE w.leaf_value IS NULL
)
SELECT cmp_ok(abs(1 / (1 + exp(-(ln(b / (1 - b)) + s))) - gbdt_predict(pg_temp.m('bin'), r)), '<', 1e-5::float8,
              'walking gbdt_trees reproduces gbdt_predict')
FROM (SELECT sum(leaf_value) AS s FROM walk WHERE leaf_value IS NOT NULL) q,
     (SELECT (pg_temp.info('bin')->>'base_score')::float8 AS b) bs, row1 r;

-- gbdt_feature_importance.
SELECT is((SELECT count(*)::int FROM gbdt_feature_importance(pg_temp.m('bin'), k) fi
           WHERE fi.feature !~ '^f([0-9]|1[0-9]|2[0-7])$' OR fi.importance < 0), 0,
          format('importance %s: model features, non-negative values', k))
FROM unnest(ARRAY['gain', 'total_gain', 'weight', 'cover', 'total_cover']) k;
SELECT is((SELECT array_agg(feature || ':' || importance::int ORDER BY feature) FROM gbdt_feature_importance(pg_temp.m('bin'), 'weight') WHERE importance > 0),
          (SELECT array_agg(feature || ':' || n ORDER BY feature) FROM (SELECT feature, count(*) AS n FROM tr WHERE feature IS NOT NULL GROUP BY feature) q),
          'weight importance = number of splits per feature in gbdt_trees');
SELECT throws_like($$SELECT * FROM gbdt_feature_importance((SELECT m FROM im WHERE k = 'bin'), 'bogus')$$, '%bogus%',
                   'unknown importance kind is an error naming it');

-- gbdt_evaluate: metric keys per objective.
SELECT ok(gbdt_evaluate(pg_temp.m('bin'), 'higgs_test', 'label') ?& ARRAY['rows', 'auc', 'logloss', 'accuracy'],
          'evaluate (binary): rows, auc, logloss, accuracy');
SELECT ok(gbdt_evaluate(pg_temp.m('multi'), 'multi_test', 'label') ?& ARRAY['rows', 'mlogloss', 'accuracy'],
          'evaluate (multiclass): rows, mlogloss, accuracy');
SELECT ok(gbdt_evaluate(pg_temp.m('early'), 'reg_test', 'label') ?& ARRAY['rows', 'rmse', 'mae'],
          'evaluate (regression): rows, rmse, mae');
SELECT is((gbdt_evaluate(pg_temp.m('early'), 'reg_test', 'label')->>'rows')::int, (SELECT count(*)::int FROM reg_test),
          'evaluate counts the rows');

-- gbdt_build_info.
SELECT is(jsonb_typeof(gbdt_build_info()), 'object', 'gbdt_build_info is a JSON object');

SELECT * FROM finish();
ROLLBACK;
