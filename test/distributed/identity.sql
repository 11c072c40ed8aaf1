-- Training on foreign partitions (run by test/distributed/loopback.sh in its
-- coordinator database): pt is a partitioned table of three postgres_fdw
-- partitions on loopback servers s1..s3 (databases gbdt_shard1..3), lt the
-- same rows in partition order on this server.  The model trained on the
-- shards ("distributed": "on") is the one trained here through postgres_fdw
-- ("off") and the one trained on lt, byte for byte (gbdt_export's text);
-- "on" refuses what it cannot train, naming the partition, the column or
-- the parameter; a role without SELECT on one shard's table gets that
-- shard's permission error; gbdt_shard_step checks its token and steps.
BEGIN;
SELECT plan(36);

CREATE FUNCTION pg_temp.h(rel regclass, target text, feats text[], obj text, params jsonb)
  RETURNS text LANGUAGE sql AS $$
  SELECT encode(sha256(convert_to(gbdt_export(gbdt_train(rel, target, feats, obj, params))::text,
                                  'UTF8')), 'hex') $$;
CREATE FUNCTION pg_temp.p(base jsonb, mode text) RETURNS jsonb LANGUAGE sql AS $$
  SELECT base || jsonb_build_object('distributed', mode, 'num_round', 8, 'max_depth', 4) $$;

-- ---- the model trained on the shards is the local one ----
CREATE TABLE cases (name text, target text, feats text[], obj text, params jsonb);
INSERT INTO cases VALUES
  ('binary:logistic', 'yb', ARRAY['x1', 'x2', 'x3', 'd', 'x5'], 'binary:logistic', '{}'),
  ('reg:squarederror', 'y', ARRAY['x1', 'x2', 'x3', 'd', 'x5'], 'reg:squarederror', '{}'),
  ('objective inferred from 0/1 labels', 'yb', ARRAY['x1', 'x2', 'x3', 'x5'], NULL, '{}'),
  ('objective inferred from numeric labels', 'y', ARRAY['x1', 'x2', 'x3', 'x5'], NULL, '{}'),
  ('multi:softprob', 'yc', ARRAY['x1', 'x2', 'x3', 'x5'], 'multi:softprob', '{"num_class": 3}'),
  ('weight column', 'y', ARRAY['x1', 'x2', 'x5'], 'reg:squarederror', '{"weight_column": "w"}'),
  ('validation_fraction + early stopping', 'yb', ARRAY['x1', 'x2', 'x3', 'x5'], 'binary:logistic',
   '{"validation_fraction": 0.25, "early_stopping_rounds": 2, "num_round": 30}'),
  ('subsample + colsample_bytree', 'y', ARRAY['x1', 'x2', 'x3', 'd', 'x5'], 'reg:squarederror',
   '{"subsample": 0.7, "colsample_bytree": 0.6, "seed": 3}');

CREATE TABLE hashes AS
SELECT name,
       pg_temp.h('pt', target, feats, obj, pg_temp.p(params, 'on')) AS on_shards,
       pg_temp.h('pt', target, feats, obj, pg_temp.p(params, 'off')) AS here,
       pg_temp.h('lt', target, feats, obj, pg_temp.p(params, 'off')) AS local_table
FROM cases;

SELECT is(on_shards, here, name || ': distributed on = off') FROM hashes ORDER BY name;
SELECT is(here, local_table, name || ': off = the local table') FROM hashes ORDER BY name;
SELECT is(pg_temp.h('pt', 'y', ARRAY['x1', 'x2'], 'reg:squarederror', '{"num_round": 5}'),
          pg_temp.h('lt', 'y', ARRAY['x1', 'x2'], 'reg:squarederror', '{"num_round": 5}'),
          'auto (the default) trains on the shards, as the local table');
SELECT ok(gbdt_train_and_save('dist_saved', 'pt', 'y', ARRAY['x1', 'x2'], 'reg:squarederror',
                              '{"num_round": 3, "distributed": "on"}') IS NOT NULL,
          'gbdt_train_and_save stores a model trained on the shards');

-- ---- "on" refuses, naming the reason ----
SELECT throws_like($$SELECT gbdt_train('lt', 'y', ARRAY['x1'], 'reg:squarederror', '{"distributed": "on"}')$$,
                   '%relation public.lt is not a partitioned table%', 'on: a plain table');
SELECT throws_like($$SELECT gbdt_train('pt_local', 'y', ARRAY['x1'], 'reg:squarederror', '{"distributed": "on"}')$$,
                   '%partition public.pt_local_2 is not a foreign table%', 'on: a local partition');
SELECT throws_like($$SELECT gbdt_train('pt_file', 'y', ARRAY['x1'], 'reg:squarederror', '{"distributed": "on"}')$$,
                   '%partition public.pt_file_2 is a foreign table of wrapper "file_fdw"%', 'on: a file_fdw partition');
SELECT throws_like($$SELECT gbdt_train('pt_sub', 'y', ARRAY['x1'], 'reg:squarederror', '{"distributed": "on"}')$$,
                   '%partition public.pt_sub_1 is itself partitioned%', 'on: a sub-partitioned partition');
SELECT throws_like($$SELECT gbdt_train('pt', 'y', ARRAY['x1', 'c'], 'reg:squarederror', '{"distributed": "on"}')$$,
                   '%feature "c" is categorical%', 'on: a categorical column');
SELECT throws_like($$SELECT gbdt_train('pt', 'y', ARRAY['x1'], 'reg:absoluteerror', '{"distributed": "on"}')$$,
                   '%reg:absoluteerror%', 'on: an objective distributed_refusal rejects');
SELECT throws_like($$SELECT gbdt_train('pt', 'yc', ARRAY['x1'], 'multi:softprob', '{"distributed": "on"}')$$,
                   '%objective multi:softprob without num_class%', 'on: a multiclass objective without num_class');
SELECT throws_like($$SELECT gbdt_train('pt', 'y', NULL, 'reg:squarederror', '{"distributed": "on"}')$$,
                   '%no feature list given%', 'on: the default feature list');
SELECT throws_like($$SELECT gbdt_train('pt', 'y', ARRAY['x1'], 'reg:squarederror',
                                       '{"distributed": "on", "validation_relation": "lt"}')$$,
                   '%parameter "validation_relation"%', 'on: validation_relation');
SELECT throws_ok($$SELECT gbdt_train('pt', 'y', ARRAY['x1'], 'reg:squarederror', '{"distributed": "on", "validation_relation": "lt"}')$$,
                 '0A000', NULL, 'on: refusals are FEATURE_NOT_SUPPORTED');

-- ---- auto falls back to the local path ----
SELECT is(pg_temp.h('pt_local', 'y', ARRAY['x1', 'x2'], 'reg:squarederror', '{"num_round": 4}'),
          pg_temp.h('lt', 'y', ARRAY['x1', 'x2'], 'reg:squarederror', '{"num_round": 4}'),
          'auto with a local partition: trained here, on the same rows');

-- ---- a role without SELECT on shard 2's table ----
SET LOCAL ROLE gbdt_shard_reader;
SELECT throws_like($$SELECT gbdt_train('pt', 'y', ARRAY['x1'], 'reg:squarederror', '{"distributed": "on"}')$$,
                   '%permission denied for table Rows 2%', 'the shard without SELECT: its permission error');
SELECT throws_ok($$SELECT gbdt_train('pt', 'y', ARRAY['x1'], 'reg:squarederror', '{"distributed": "on"}')$$,
                 '08000', NULL, 'a shard''s error is a connection exception');
RESET ROLE;

-- ---- gbdt_shard_step ----
SELECT throws_like($$SELECT gbdt_shard_step('ABC', 'open', '\x00')$$,
                   '%token "ABC" is not 32 lowercase hexadecimal characters%', 'a bad token');
SELECT throws_like($$SELECT gbdt_shard_step(repeat('A', 32), 'close', '\x')$$,
                   '%is not 32 lowercase hexadecimal%', 'uppercase hex is a bad token');
SELECT throws_like($$SELECT gbdt_shard_step(repeat('0', 32), 'hist', '\x')$$,
                   'no open gbdt shard training with this token in this session', 'an unknown token');
SELECT is(gbdt_shard_step(repeat('0', 32), 'close', '\x'), '\x'::bytea, 'closing an unknown token is fine');
SELECT throws_ok($$SELECT gbdt_shard_step(repeat('1', 32), 'open', '\x0102')$$,
                 '22023', NULL, 'open with malformed request bytes');

SELECT * FROM finish();
ROLLBACK;
