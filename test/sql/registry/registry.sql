-- Model registry: gbdt_models, gbdt_save (deploy strategies), gbdt_deploy,
-- gbdt_model(name), gbdt_train_and_save, gbdt_retrain; failed and cancelled
-- trainings leave no row; two sessions saving one name get distinct versions.
BEGIN;
SELECT plan(57);

CREATE TABLE r_data AS
SELECT i AS id, sin(i)::float8 AS x1, cos(i * 0.7)::float8 AS x2, ((i * 37) % 11)::float8 AS x3,
       (sin(i) + 0.5 * cos(i * 0.7) + 0.2 * sin(i * 3.1) > 0.1)::int AS y
FROM generate_series(1, 3000) i;

-- ---- the table ----
SELECT has_table('gbdt_models', 'registry table exists');
SELECT columns_are('gbdt_models', ARRAY['name', 'version', 'created_at', 'created_by', 'model', 'spec',
                                        'metrics', 'deployed', 'spec_quarantined'], 'registry columns');
SELECT col_is_pk('gbdt_models', ARRAY['name', 'version'], 'primary key (name, version)');
SELECT col_type_is('gbdt_models', 'model', 'gbdt_model', 'model column is a gbdt_model');
SELECT ok(EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'gbdt' AND 'gbdt_models'::regclass = ANY (extconfig)),
          'gbdt_models is marked with pg_extension_config_dump (pg_dump carries its rows)');
SELECT is((SELECT count(*)::int FROM gbdt_models), 0, 'registry starts empty');

-- ---- train_and_save, retrain ----
SELECT is(gbdt_train_and_save('churn', 'r_data', 'y', ARRAY['x1', 'x2', 'x3'], 'binary:logistic',
                              '{"num_round": 10, "max_depth": 3, "validation_fraction": 0.2}'),
          1, 'gbdt_train_and_save returns version 1');
SELECT is((SELECT deployed FROM gbdt_models WHERE name = 'churn' AND version = 1), true,
          'version 1 deployed (default strategy always)');
SELECT is((SELECT created_by FROM gbdt_models WHERE name = 'churn' AND version = 1), current_user,
          'created_by = current_user');
SELECT ok((SELECT created_at IS NOT NULL FROM gbdt_models WHERE name = 'churn' AND version = 1), 'created_at set');
SELECT is((SELECT spec FROM gbdt_models WHERE name = 'churn' AND version = 1),
          jsonb_build_object('relation', format('%I.%I', (SELECT nspname FROM pg_namespace n JOIN pg_class c
                                                          ON c.relnamespace = n.oid WHERE c.oid = 'r_data'::regclass),
                                                 'r_data'),
                             'target', 'y', 'features', '["x1", "x2", "x3"]'::jsonb,
                             'objective', 'binary:logistic',
                             'params', '{"num_round": 10, "max_depth": 3, "validation_fraction": 0.2}'::jsonb,
                             'deploy', 'always'),
          'spec records relation (schema-qualified), target, features, objective, params, deploy');
SELECT is((SELECT metrics->>'eval_metric' FROM gbdt_models WHERE name = 'churn' AND version = 1), 'logloss',
          'metrics: eval_metric');
SELECT is((SELECT (metrics->>'validation')::float8 FROM gbdt_models WHERE name = 'churn' AND version = 1),
          (SELECT (gbdt_model_info(model)->'validation_history'->>9)::float8 FROM gbdt_models
           WHERE name = 'churn' AND version = 1),
          'metrics: validation = last validation value');
SELECT is((SELECT (metrics->>'rows_used')::int + (metrics->>'rows_validation')::int FROM gbdt_models
           WHERE name = 'churn' AND version = 1), 3000, 'metrics: rows used + validation');

INSERT INTO r_data SELECT i, sin(i), cos(i * 0.7), ((i * 37) % 11), (sin(i) > 0)::int FROM generate_series(3001, 3500) i;
SELECT is(gbdt_retrain('churn'), 2, 'gbdt_retrain makes version 2');
SELECT is((SELECT (metrics->>'rows_used')::int + (metrics->>'rows_validation')::int FROM gbdt_models
           WHERE name = 'churn' AND version = 2), 3500, 'retrain reads the current rows');
SELECT is((SELECT spec FROM gbdt_models WHERE name = 'churn' AND version = 2),
          (SELECT spec FROM gbdt_models WHERE name = 'churn' AND version = 1), 'retrain keeps the spec');
SELECT is((SELECT array_agg(version ORDER BY version) FROM gbdt_models WHERE name = 'churn' AND deployed),
          ARRAY[2], 'only version 2 deployed');

-- ---- gbdt_model(name) ----
SELECT is(gbdt_model('churn')::text, (SELECT model::text FROM gbdt_models WHERE name = 'churn' AND version = 2),
          'gbdt_model(literal) returns the deployed version');
SELECT is(gbdt_model('churn'::text)::text, (SELECT model::text FROM gbdt_models WHERE name = 'churn' AND version = 2),
          'gbdt_model(text) returns the deployed version');
SELECT is((SELECT count(*)::int FROM r_data t WHERE gbdt_predict(gbdt_model('churn'), t) IS DISTINCT FROM
             gbdt_predict((SELECT model FROM gbdt_models WHERE name = 'churn' AND deployed), t)),
          0, 'scoring with gbdt_model(name) per row = scoring the stored model');
SELECT is((SELECT count(*)::int FROM (VALUES ('churn'), ('churn')) v(n) WHERE gbdt_model(v.n) IS NOT NULL), 2,
          'gbdt_model with a text column argument');
CREATE FUNCTION pg_temp.cast_literal(t text) RETURNS text LANGUAGE plpgsql AS
  $$ DECLARE r text; BEGIN EXECUTE format('SELECT gbdt_model(%L)::text', t) INTO r; RETURN r; END $$;
SELECT is(pg_temp.cast_literal(gbdt_model('churn')::text), gbdt_model('churn')::text,
          'gbdt_model(''gbdt1:...'') still reads a model literal');
SELECT throws_ok($$SELECT gbdt_model('no_such_model')$$, '42704',
                 'no model named "no_such_model" in the gbdt registry', 'unknown name is an error');

-- ---- deploy strategies ----
SELECT is(gbdt_save('churn', (SELECT model FROM gbdt_models WHERE name = 'churn' AND version = 1), NULL, 'never'),
          3, 'save with never: version 3');
SELECT is((SELECT version FROM gbdt_models WHERE name = 'churn' AND deployed), 2, 'never: deployed version unchanged');
SELECT is(gbdt_deploy('churn', 1)::text, '', 'gbdt_deploy (rollback to version 1)');
SELECT is((SELECT array_agg(version) FROM gbdt_models WHERE name = 'churn' AND deployed), ARRAY[1],
          'rollback: version 1 is the only deployed one');
SELECT is(gbdt_model('churn')::text, (SELECT model::text FROM gbdt_models WHERE name = 'churn' AND version = 1),
          'gbdt_model sees the rollback in the same transaction');
SELECT throws_ok($$SELECT gbdt_deploy('churn', 99)$$, '42704', 'model "churn" has no version 99',
                 'deploying a missing version is an error');
SELECT throws_ok($$SELECT gbdt_save('churn', gbdt_model('churn'), NULL, 'sometimes')$$, '22023',
                 'deploy strategy "sometimes" is not supported', 'invalid strategy is an error');
SELECT throws_ok($$SELECT gbdt_train_and_save('churn', 'r_data', 'y', NULL, NULL, '{}', 'maybe')$$, '22023',
                 'deploy strategy "maybe" is not supported', 'invalid strategy in gbdt_train_and_save');

-- if_better: better = lower logloss; equal counts as at least as good.
CREATE TEMP TABLE cand AS
SELECT 'good' AS k, gbdt_train('r_data', 'y', ARRAY['x1', 'x2', 'x3'], 'binary:logistic',
                               '{"num_round": 40, "max_depth": 4, "validation_fraction": 0.2}') AS m
UNION ALL
SELECT 'bad', gbdt_train('r_data', 'y', ARRAY['x1', 'x2', 'x3'], 'binary:logistic',
                         '{"num_round": 1, "max_depth": 1, "validation_fraction": 0.2}')
UNION ALL
SELECT 'noval', gbdt_train('r_data', 'y', ARRAY['x1', 'x2', 'x3'], 'binary:logistic', '{"num_round": 2}');
SELECT is(gbdt_save('ib', (SELECT m FROM cand WHERE k = 'bad'), NULL, 'if_better'), 1, 'if_better: first version');
SELECT is((SELECT deployed FROM gbdt_models WHERE name = 'ib' AND version = 1), true,
          'if_better: the first version is deployed (nothing to compare with)');
SELECT is(gbdt_save('ib', (SELECT m FROM cand WHERE k = 'good'), NULL, 'if_better'), 2, 'if_better: better model');
SELECT is((SELECT version FROM gbdt_models WHERE name = 'ib' AND deployed), 2, 'if_better: better model deployed');
SELECT is(gbdt_save('ib', (SELECT m FROM cand WHERE k = 'bad'), NULL, 'if_better'), 3, 'if_better: worse model saved');
SELECT is((SELECT version FROM gbdt_models WHERE name = 'ib' AND deployed), 2, 'if_better: worse model not deployed');
SELECT is((SELECT deployed FROM gbdt_models WHERE name = 'ib' AND version = 3), false, 'worse version kept undeployed');
SELECT is(gbdt_save('ib', (SELECT m FROM cand WHERE k = 'good'), NULL, 'if_better'), 4, 'if_better: equal model');
SELECT is((SELECT version FROM gbdt_models WHERE name = 'ib' AND deployed), 4, 'if_better: equal metric deploys');
SELECT throws_like($$SELECT gbdt_save('ib', (SELECT m FROM cand WHERE k = 'noval'), NULL, 'if_better')$$,
                   'deploy strategy "if_better" needs a validation metric%', 'if_better without validation metric');
-- auc: higher is better.
CREATE TEMP TABLE cand_auc AS
SELECT 'good' AS k, gbdt_train('r_data', 'y', ARRAY['x1', 'x2', 'x3'], 'binary:logistic',
                               '{"num_round": 30, "max_depth": 4, "validation_fraction": 0.2, "eval_metric": "auc"}') AS m
UNION ALL
SELECT 'bad', gbdt_train('r_data', 'y', ARRAY['x3'], 'binary:logistic',
                         '{"num_round": 1, "max_depth": 1, "validation_fraction": 0.2, "eval_metric": "auc"}');
SELECT gbdt_save('ia', (SELECT m FROM cand_auc WHERE k = 'good'), NULL, 'if_better');
SELECT gbdt_save('ia', (SELECT m FROM cand_auc WHERE k = 'bad'), NULL, 'if_better');
SELECT is((SELECT version FROM gbdt_models WHERE name = 'ia' AND deployed), 1,
          'if_better with auc: a lower AUC is not deployed');

-- Stored strategy: retrain re-uses it.
SELECT is(gbdt_train_and_save('nv', 'r_data', 'y', NULL, NULL, '{"num_round": 2}', 'never'), 1, 'save with never');
SELECT throws_ok($$SELECT gbdt_model('nv')$$, 'P0002', 'model "nv" has no deployed version',
                 'gbdt_model with nothing deployed is an error');
SELECT is(gbdt_retrain('nv'), 2, 'retrain of a never model');
SELECT is((SELECT count(*)::int FROM gbdt_models WHERE name = 'nv' AND deployed), 0,
          'retrain uses the stored strategy (never)');
SELECT throws_ok($$SELECT gbdt_retrain('ghost')$$, '42704', 'no model named "ghost" in the gbdt registry',
                 'retrain of an unknown name');
SELECT gbdt_save('nospec', gbdt_model('churn'));
SELECT throws_ok($$SELECT gbdt_retrain('nospec')$$, '55000',
                 'model "nospec" has no stored training spec to retrain from', 'retrain needs a stored spec');

-- ---- failed and cancelled trainings leave no row ----
SELECT throws_like($$SELECT gbdt_train_and_save('churn', 'r_data', 'y', NULL, NULL, '{"foo": 1}')$$,
                   'unknown parameter "foo"%', 'failed training raises');
SELECT is((SELECT max(version) FROM gbdt_models WHERE name = 'churn'), 3, 'failed training: no new version');
CREATE FUNCTION pg_temp.cancelled_save() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gbdt_train_and_save('churn', 'cancel_big', 'label', NULL, 'binary:logistic',
                              '{"num_round": 100000, "max_depth": 8}');
  RETURN 'no error';
EXCEPTION WHEN query_canceled THEN
  RETURN SQLERRM;
END $$;
SET LOCAL statement_timeout = '1s';
CREATE TEMP TABLE cancelled AS SELECT pg_temp.cancelled_save() AS err;
SET LOCAL statement_timeout = 0;
SELECT is(err, 'canceling statement due to statement timeout', 'training cancelled by statement_timeout') FROM cancelled;
SELECT is((SELECT max(version) FROM gbdt_models WHERE name = 'churn'), 3, 'cancelled training: no new version');

-- ---- concurrency: two sessions saving one name (dblink, committed outside this transaction) ----
-- Session 1 saves and keeps its transaction open (holding the per-name lock);
-- session 2's save must wait for it and then get the next version.  Without
-- the lock session 2 would pick version 1 too and fail on the primary key.
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE FUNCTION pg_temp.connstr() RETURNS text LANGUAGE sql AS $$
  SELECT format('host=%s port=%s dbname=%s user=%s',
                split_part(current_setting('unix_socket_directories'), ',', 1),
                current_setting('port'), current_database(), current_user) $$;
CREATE FUNCTION pg_temp.waits_for_lock(p int) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..200 LOOP
    PERFORM pg_stat_clear_snapshot();
    IF EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = p AND wait_event_type = 'Lock') THEN
      RETURN true;
    END IF;
    PERFORM pg_sleep(0.05);
  END LOOP;
  RETURN false;
END $$;
SELECT dblink_connect('c1', pg_temp.connstr());
SELECT dblink_connect('c2', pg_temp.connstr());
CREATE TEMP TABLE conc AS SELECT 'conc_' || pg_backend_pid() AS name,
  (SELECT pid FROM dblink('c2', 'SELECT pg_backend_pid()') AS t(pid int)) AS pid2;
SELECT dblink_exec('c1', 'DELETE FROM gbdt_models WHERE name = ' || quote_literal(name)) FROM conc;
SELECT dblink_exec('c1', 'BEGIN');
SELECT is((SELECT v FROM conc, dblink('c1', format($q$SELECT gbdt_train_and_save(%L, 'higgs_train', 'label', NULL, NULL, '{"num_round": 2}')$q$, name)) AS t(v int)),
          1, 'session 1 saves version 1 (transaction still open)');
SELECT dblink_send_query('c2', format($q$SELECT gbdt_train_and_save(%L, 'higgs_train', 'label', NULL, NULL, '{"num_round": 2}')$q$, name)) FROM conc;
SELECT ok(pg_temp.waits_for_lock(pid2), 'session 2 waits for session 1''s per-name lock') FROM conc;
SELECT dblink_exec('c1', 'COMMIT');
SELECT is((SELECT v FROM dblink_get_result('c2') AS t(v int)), 2, 'session 2 then saves version 2');
SELECT is((SELECT array_agg(version ORDER BY version) FROM gbdt_models m, conc WHERE m.name = conc.name),
          ARRAY[1, 2], 'two concurrent saves: distinct versions 1 and 2');
SELECT dblink_exec('c1', 'DELETE FROM gbdt_models WHERE name = ' || quote_literal(name)) FROM conc;
SELECT dblink_disconnect('c1');
SELECT dblink_disconnect('c2');

SELECT * FROM finish();
ROLLBACK;
