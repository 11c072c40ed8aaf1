-- Scoring on foreign partitions (run by test/distributed/loopback.sh in its
-- coordinator database, whose tables it describes): gbdt_predict_table,
-- gbdt_evaluate (and the curves) and gbdt_explain_table on pt with gbdt.distributed_scoring = on (each shard
-- scores its own rows) give the rows and metrics of "off" (every row read
-- here through postgres_fdw) and of lt (the same rows in a local table),
-- metrics as jsonb equal;
-- a mixed parent scores its local partition here; "on" refuses what it
-- cannot score, naming the reason; a shard's own error names its server.
BEGIN;
SELECT plan(46);

-- The rows of gbdt_predict_table under a mode, as one text (order-free).
CREATE FUNCTION pg_temp.rows(m gbdt_model, rel regclass, key text, mode text,
                             output text DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  PERFORM set_config('gbdt.distributed_scoring', mode, true);
  IF output IS NULL THEN
    SELECT string_agg(coalesce(p.key, '<null>') || '=' || p.prediction::text, ','
                      ORDER BY p.key, p.prediction) INTO r
      FROM gbdt_predict_table(m, rel, key) AS p;
  ELSE
    SELECT string_agg(coalesce(p.key, '<null>') || '=' || p.prediction, ','
                      ORDER BY p.key, p.prediction) INTO r
      FROM gbdt_predict_table(m, rel, key, output) AS p;
  END IF;
  PERFORM set_config('gbdt.distributed_scoring', 'auto', true);
  RETURN r;
END $$;
CREATE FUNCTION pg_temp.eval(m gbdt_model, rel regclass, target text, mode text) RETURNS jsonb
  LANGUAGE plpgsql AS $$
DECLARE r jsonb;
BEGIN
  PERFORM set_config('gbdt.distributed_scoring', mode, true);
  r := gbdt_evaluate(m, rel, target);
  PERFORM set_config('gbdt.distributed_scoring', 'auto', true);
  RETURN r;
END $$;

CREATE TABLE models (name text, target text, m gbdt_model);
INSERT INTO models VALUES
  ('reg:squarederror', 'y',
   gbdt_train('lt', 'y', ARRAY['x1', 'x2', 'x3', 'd', 'x5'], 'reg:squarederror', '{"num_round": 6}')),
  ('binary:logistic', 'yb',
   gbdt_train('lt', 'yb', ARRAY['x1', 'x2', 'x3', 'x5'], 'binary:logistic', '{"num_round": 6}')),
  ('multi:softprob', 'yc',
   gbdt_train('lt', 'yc', ARRAY['x1', 'x2', 'x5'], 'multi:softprob', '{"num_round": 4, "num_class": 3}')),
  ('categorical feature', 'y',
   gbdt_train('lt', 'y', ARRAY['x1', 'c'], 'reg:squarederror', '{"num_round": 4}'));

-- ---- the shards' rows are the rows read here ----
SELECT is(pg_temp.rows(m, 'pt', 'id', 'on'), pg_temp.rows(m, 'pt', 'id', 'off'),
          name || ': gbdt_predict_table on = off') FROM models ORDER BY name;
SELECT is(pg_temp.rows(m, 'pt', 'id', 'on'), pg_temp.rows(m, 'lt', 'id', 'off'),
          name || ': gbdt_predict_table on = the local table') FROM models ORDER BY name;
SELECT is(pg_temp.eval(m, 'pt', target, 'on'), pg_temp.eval(m, 'pt', target, 'off'),
          name || ': gbdt_evaluate on = off') FROM models ORDER BY name;
SELECT is(pg_temp.eval(m, 'pt', target, 'on'), pg_temp.eval(m, 'lt', target, 'off'),
          name || ': gbdt_evaluate on = the local table') FROM models ORDER BY name;

-- outputs, keys of other types (text, date: printed here, in this
-- session's DateStyle), a mixed parent, a role's rights
SELECT is(pg_temp.rows(m, 'pt', 'id', 'on', 'class'), pg_temp.rows(m, 'pt', 'id', 'off', 'class'),
          name || ': output class, on = off') FROM models
  WHERE name IN ('binary:logistic', 'multi:softprob') ORDER BY name;
SELECT is(pg_temp.rows(m, 'pt', 'id', 'on', 'value'), pg_temp.rows(m, 'pt', 'id', 'off', 'value'),
          'output value, on = off') FROM models WHERE name = 'reg:squarederror';
SELECT is(pg_temp.rows(m, 'pt', 'c', 'on'), pg_temp.rows(m, 'pt', 'c', 'off'),
          'a text key, on = off') FROM models WHERE name = 'reg:squarederror';
SET LOCAL DateStyle = 'SQL, DMY';
SELECT is(pg_temp.rows(m, 'pt', 'd', 'on'), pg_temp.rows(m, 'pt', 'd', 'off'),
          'a date key, printed in this session''s DateStyle, on = off') FROM models
  WHERE name = 'reg:squarederror';
SELECT ok(pg_temp.rows(m, 'pt', 'd', 'on') LIKE '%/%/20%', 'the date keys are in DMY form')
  FROM models WHERE name = 'reg:squarederror';
RESET DateStyle;
SELECT is(pg_temp.rows(m, 'pt', 'x5', 'on'), pg_temp.rows(m, 'pt', 'x5', 'off'),
          'a float8 key with NULLs, on = off') FROM models WHERE name = 'reg:squarederror';
SELECT is(pg_temp.rows(m, 'pt_local', 'id', 'on'), pg_temp.rows(m, 'lt', 'id', 'off'),
          'a mixed parent: the local partition scored here, the foreign one on its shard')
  FROM models WHERE name = 'reg:squarederror';
SELECT is(pg_temp.eval(m, 'pt_local', 'yc', 'on'), pg_temp.eval(m, 'lt', 'yc', 'off'),
          'a mixed parent: gbdt_evaluate') FROM models WHERE name = 'multi:softprob';
SELECT is((SELECT count(*) FROM gbdt_predict_table(m, 'pt', 'id')), 1200::bigint,
          'auto (the default) scores every row') FROM models WHERE name = 'reg:squarederror';
SELECT is(pg_temp.rows(m, 'pt_nogbdt', 'id', 'auto'), pg_temp.rows(m, 'pt_nogbdt', 'id', 'off'),
          'auto with a server without gbdt: scored here') FROM models WHERE name = 'reg:squarederror';

-- the functions that read rows as gbdt_evaluate does
CREATE FUNCTION pg_temp.curves(m gbdt_model, m3 gbdt_model, rel regclass, mode text) RETURNS text
  LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  PERFORM set_config('gbdt.distributed_scoring', mode, true);
  SELECT (SELECT string_agg(c::text, ',' ORDER BY c::text) FROM gbdt_roc_curve(m, rel, 'yb') c) || ' | ' ||
         (SELECT string_agg(c::text, ',' ORDER BY c::text) FROM gbdt_confusion_matrix(m3, rel, 'yc') c) || ' | ' ||
         (SELECT string_agg(c::text, ',' ORDER BY c::text) FROM gbdt_calibration(m, rel, 'yb') c) INTO r;
  PERFORM set_config('gbdt.distributed_scoring', 'auto', true);
  RETURN r;
END $$;
SELECT is(pg_temp.curves(b.m, c.m, 'pt', 'on'), pg_temp.curves(b.m, c.m, 'pt', 'off'),
          'gbdt_roc_curve, gbdt_confusion_matrix, gbdt_calibration: on = off')
  FROM models b, models c WHERE b.name = 'binary:logistic' AND c.name = 'multi:softprob';
SELECT is(pg_temp.curves(b.m, c.m, 'pt', 'on'), pg_temp.curves(b.m, c.m, 'lt', 'off'),
          'gbdt_roc_curve, gbdt_confusion_matrix, gbdt_calibration: on = the local table')
  FROM models b, models c WHERE b.name = 'binary:logistic' AND c.name = 'multi:softprob';
SET LOCAL gbdt.distributed_scoring = on;
CREATE TEMP TABLE t_on AS SELECT gbdt_evaluate(m, 'pt', 'yb', 0.3) AS j FROM models WHERE name = 'binary:logistic';
SET LOCAL gbdt.distributed_scoring = off;
CREATE TEMP TABLE t_off AS SELECT gbdt_evaluate(m, 'pt', 'yb', 0.3) AS j FROM models WHERE name = 'binary:logistic';
SET LOCAL gbdt.distributed_scoring = auto;
SELECT is((SELECT j FROM t_on), (SELECT j FROM t_off), 'gbdt_evaluate with a threshold: on = off');

-- gbdt_explain_table (every feature, top_k), its feature names those of the
-- model (pt_3 calls x1 feat_a), its value_text as printed here
CREATE FUNCTION pg_temp.explained(m gbdt_model, rel regclass, key text, mode text,
                                  top_k int DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  PERFORM set_config('gbdt.distributed_scoring', mode, true);
  IF top_k IS NULL THEN
    SELECT string_agg(e::text, ',' ORDER BY e::text) INTO r FROM gbdt_explain_table(m, rel, key) e;
  ELSE
    SELECT string_agg(e::text, ',' ORDER BY e::text) INTO r FROM gbdt_explain_table(m, rel, key, top_k) e;
  END IF;
  PERFORM set_config('gbdt.distributed_scoring', 'auto', true);
  RETURN r;
END $$;
SELECT is(pg_temp.explained(m, 'pt', 'id', 'on'), pg_temp.explained(m, 'pt', 'id', 'off'),
          name || ': gbdt_explain_table on = off') FROM models
  WHERE name IN ('reg:squarederror', 'multi:softprob', 'categorical feature') ORDER BY name;
SELECT is(pg_temp.explained(m, 'pt', 'id', 'on'), pg_temp.explained(m, 'lt', 'id', 'off'),
          'gbdt_explain_table on = the local table') FROM models WHERE name = 'reg:squarederror';
SELECT is(pg_temp.explained(m, 'pt', 'id', 'on', 2), pg_temp.explained(m, 'pt', 'id', 'off', 2),
          'gbdt_explain_table with top_k, on = off') FROM models WHERE name = 'reg:squarederror';
SET LOCAL DateStyle = 'SQL, DMY';
SET LOCAL extra_float_digits = 0;
SELECT is(pg_temp.explained(m, 'pt', 'd', 'on'), pg_temp.explained(m, 'pt', 'd', 'off'),
          'gbdt_explain_table: dates and floats printed in this session''s settings, on = off')
  FROM models WHERE name = 'reg:squarederror';
RESET DateStyle;
RESET extra_float_digits;
SELECT is(pg_temp.explained(m, 'pt_local', 'id', 'on'), pg_temp.explained(m, 'lt', 'id', 'off'),
          'gbdt_explain_table of a mixed parent') FROM models WHERE name = 'reg:squarederror';

-- ---- "on" refuses, naming the reason ----
SET LOCAL gbdt.distributed_scoring = on;
SELECT throws_like($$SELECT count(*) FROM gbdt_predict_table((SELECT m FROM models LIMIT 1), 'lt', 'id')$$,
                   '%relation public.lt is not a partitioned table%', 'on: a plain table');
SELECT throws_like($$SELECT count(*) FROM gbdt_predict_table((SELECT m FROM models LIMIT 1), 'pt_file', 'id')$$,
                   '%partition public.pt_file_2 is a foreign table of wrapper "file_fdw"%', 'on: a file_fdw partition');
SELECT throws_like($$SELECT count(*) FROM gbdt_predict_table((SELECT m FROM models LIMIT 1), 'pt_sub', 'id')$$,
                   '%partition public.pt_sub_1 is itself partitioned%', 'on: a sub-partitioned partition');
SELECT throws_like($$SELECT gbdt_evaluate((SELECT m FROM models LIMIT 1), 'pt_nogbdt', 'y')$$,
                   '%gbdt is not installed on server "s4"%', 'on: a server without gbdt');
SELECT throws_ok($$SELECT gbdt_evaluate((SELECT m FROM models LIMIT 1), 'pt_file', 'y')$$,
                 '0A000', NULL, 'on: refusals are FEATURE_NOT_SUPPORTED');

-- ---- a shard's own error names its server ----
SELECT throws_like($$SELECT count(*) FROM gbdt_predict_table((SELECT m FROM models WHERE name = 'reg:squarederror'), 'pt_bad', 'id')$$,
                   'server "s1" (partition public.pt_bad_1): %x5%', 'a shard''s error names its server and partition');
SELECT throws_like($$SELECT count(*) FROM gbdt_explain_table((SELECT m FROM models WHERE name = 'reg:squarederror'), 'pt_bad', 'id')$$,
                   'server "s1" (partition public.pt_bad_1): %x5%', 'gbdt_explain_table: a shard''s error names its server');
SELECT throws_ok($$SELECT gbdt_evaluate((SELECT m FROM models WHERE name = 'reg:squarederror'), 'pt_bad', 'y')$$,
                 '08000', NULL, 'a shard''s error is a connection exception');
GRANT SELECT ON models TO gbdt_shard_reader;
SET LOCAL ROLE gbdt_shard_reader;
SELECT throws_like($$SELECT count(*) FROM gbdt_predict_table((SELECT m FROM models LIMIT 1), 'pt', 'id')$$,
                   'server "s2" (partition public.pt_2): %permission denied for table Rows 2%',
                   'the shard without SELECT: its permission error, named');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
