-- Hostile models, JSON and params: each is a clear error, never a
-- hang, a crash or a model that outgrows its input.
BEGIN;
SET LOCAL statement_timeout = '5s';  -- a regression fails here instead of hanging
SELECT plan(14);

-- Crafting model bytes: the binary form of a model's text, and back.  The
-- trailing checksum (64-bit FNV-1a of everything before it, little-endian)
-- is recomputed after a change, so that the validator itself is tested.
CREATE FUNCTION pg_temp.model_bytes(m gbdt_model) RETURNS bytea
LANGUAGE sql AS $$ SELECT decode(substr(m::text, 7), 'base64') $$;
\ir ../lib/reseal.sql
CREATE FUNCTION pg_temp.model_text(b bytea) RETURNS text
LANGUAGE sql AS $$ SELECT 'gbdt1:' || translate(encode(b, 'base64'), E'\n', '') $$;
-- b with the bytes at offset `at` replaced by `patch`.
CREATE FUNCTION pg_temp.patch(b bytea, at int, patch bytea) RETURNS bytea
LANGUAGE sql AS $$ SELECT overlay(b placing patch from at + 1) $$;

-- A small real model: one tree on features "zzzz" and "b".
CREATE TEMP TABLE hm AS SELECT pg_temp.model_bytes(gbdt_import($${
  "learner": {"attributes": {}, "feature_names": ["zzzz", "b"], "feature_types": [],
   "gradient_booster": {"model": {"gbtree_model_param": {"num_parallel_tree": "1", "num_trees": "1"},
     "iteration_indptr": [0, 1], "tree_info": [0],
     "trees": [{"base_weights": [0.0, 0.1, -0.1], "default_left": [1, 0, 0], "id": 0,
       "left_children": [1, -1, -1], "right_children": [2, -1, -1], "parents": [2147483647, 0, 0],
       "split_conditions": [0.5, 0.1, -0.1], "split_indices": [0, 0, 0], "split_type": [0, 0, 0],
       "loss_changes": [1.0, 0.0, 0.0], "sum_hessian": [10.0, 5.0, 5.0],
       "categories": [], "categories_nodes": [], "categories_segments": [], "categories_sizes": [],
       "tree_param": {"num_deleted": "0", "num_feature": "2", "num_nodes": "3", "size_leaf_vector": "1"}}]},
     "name": "gbtree"},
   "learner_model_param": {"base_score": "5E-1", "boost_from_average": "1", "num_class": "0",
     "num_feature": "2", "num_target": "1"},
   "objective": {"name": "binary:logistic"}}, "version": [3, 0, 0]}$$::jsonb)) AS b;
CREATE TEMP TABLE hdata AS SELECT i::float8 / 10 AS zzzz, 1.0::float8 AS b, (i % 2) AS y
FROM generate_series(1, 50) i;

-- Payload (from byte 20): i32 objective, i32 output groups, f64 base score,
-- u32 count, f64 base margin[0] at byte 40.  NaN = 0x7ff8000000000000.
CREATE TEMP TABLE hnan AS
SELECT pg_temp.model_text(pg_temp.reseal(pg_temp.patch(b, 40, '\x000000000000f87f'::bytea))) AS t FROM hm;

SELECT lives_ok($$SELECT pg_temp.model_text(pg_temp.reseal(b))::gbdt_model FROM hm$$,
                'a resealed unchanged model still loads (the crafting is sound)');
SELECT throws_ok($$SELECT t::gbdt_model FROM hnan$$, '22P02',
                 'invalid gbdt_model: base margin of output group 0 is not finite',
                 'NaN base margin: text input rejected');
SELECT throws_ok($$SELECT gbdt_evaluate(t::gbdt_model, 'hdata', 'y') FROM hnan$$, '22P02',
                 'invalid gbdt_model: base margin of output group 0 is not finite',
                 'NaN base margin: gbdt_evaluate errors instead of looping');
-- +Infinity as base margin, and a NaN leaf (the node values follow the tree's
-- count-prefixed arrays; found by their bytes: 0.1f = 0x3dcccccd).
SELECT throws_ok($$SELECT pg_temp.model_text(pg_temp.reseal(pg_temp.patch(b, 40, '\x000000000000f07f'::bytea)))::gbdt_model FROM hm$$,
                 '22P02', 'invalid gbdt_model: base margin of output group 0 is not finite',
                 '+Infinity base margin rejected');
SELECT throws_ok($$SELECT pg_temp.model_text(pg_temp.reseal(pg_temp.patch(b, position('\xcdcccc3d'::bytea in b) - 1,
                                                                          '\x0000c07f'::bytea)))::gbdt_model FROM hm$$,
                 '22P02', 'invalid gbdt_model: tree 0 node 1: leaf/node value is not finite',
                 'NaN leaf value rejected');

-- Strings: feature name "zzzz" with an invalid UTF-8 byte, or a NUL byte.
SELECT throws_ok($$SELECT pg_temp.model_text(pg_temp.reseal(pg_temp.patch(b, position('zzzz' in b) + 1, '\xff'::bytea)))::gbdt_model FROM hm$$,
                 '22P02', 'invalid gbdt_model: feature name "zz\xffz" is not valid UTF-8 (or holds a NUL byte)',
                 'invalid UTF-8 in a feature name rejected');
SELECT throws_ok($$SELECT pg_temp.model_text(pg_temp.reseal(pg_temp.patch(b, position('zzzz' in b), '\x00'::bytea)))::gbdt_model FROM hm$$,
                 '22P02', 'invalid gbdt_model: feature name "z\x00zz" is not valid UTF-8 (or holds a NUL byte)',
                 'NUL byte in a feature name rejected');

-- Import limits.
CREATE FUNCTION pg_temp.xgb(objective text, num_class text, num_feature text, names text DEFAULT '')
RETURNS jsonb LANGUAGE sql AS $$
SELECT format('{"learner": {"attributes": {}, "feature_names": [%s], "feature_types": [],
  "gradient_booster": {"model": {"gbtree_model_param": {"num_parallel_tree": "1", "num_trees": "0"},
    "iteration_indptr": [0], "tree_info": [], "trees": []}, "name": "gbtree"},
  "learner_model_param": {"base_score": "5E-1", "boost_from_average": "1", "num_class": "%s",
    "num_feature": "%s", "num_target": "1"},
  "objective": {"name": "%s"}}, "version": [3, 0, 0]}', names, num_class, num_feature, objective)::jsonb
$$;
SELECT lives_ok($$SELECT gbdt_import(pg_temp.xgb('multi:softprob', '3', '2'))$$, 'a small multiclass import works');
SELECT throws_ok($$SELECT gbdt_import(pg_temp.xgb('multi:softprob', '100000', '2'))$$, '22023',
                 'invalid XGBoost JSON model: num_class = 100000 is out of range for multi:softprob: must be in [2, 10000]',
                 'import of 100000 classes rejected with the limit');
SELECT throws_ok($$SELECT gbdt_import(pg_temp.xgb('reg:squarederror', '0', '10000000'))$$, '22023',
                 'invalid XGBoost JSON model: num_feature = 10000000 is out of range: must be in [1, 100000]',
                 'import of num_feature 1e7 rejected with the limit');
SELECT throws_ok($$SELECT gbdt_import(pg_temp.xgb('reg:squarederror', '0', '2', '"a", "' || repeat('x', 5000) || '"'))$$, '22023',
                 'invalid XGBoost JSON model: feature_names entry 1 has 5000 bytes, more than the limit of 4096',
                 'import of a 5000-byte feature name rejected with the limit');

-- Duplicate aliases in params (jsonb orders keys by length, then bytes).
SELECT throws_ok($$SELECT gbdt_train('hdata', 'y', NULL, NULL, '{"eta": 0.1, "learning_rate": 0.2}')$$, '22023',
                 'parameters "eta" and "learning_rate" both set eta: give only one of them',
                 'eta and learning_rate together rejected');
SELECT throws_ok($$SELECT gbdt_train('hdata', 'y', NULL, NULL, '{"n_estimators": 3, "num_round": 4}')$$, '22023',
                 'parameters "num_round" and "n_estimators" both set num_round: give only one of them',
                 'num_round and n_estimators together rejected');
SELECT throws_ok($$SELECT gbdt_train('hdata', 'y', NULL, NULL, '{"lambda": 1, "reg_lambda": 2}')$$, '22023',
                 'parameters "lambda" and "reg_lambda" both set lambda: give only one of them',
                 'lambda and reg_lambda together rejected');

SELECT * FROM finish();
ROLLBACK;
