-- Which spec gbdt_retrain re-runs, and what a spec may name.
--  * The deployed version's spec (or a named version's), never merely the
--    newest: an if_better experiment that was not deployed must not become
--    what every nightly retrain trains.
--  * A quarantined spec (the 0.2->0.3 update quarantines every stored spec;
--    scripts/test-upgrade.sh tests the update) is refused until a member of
--    the owner approves it with gbdt_approve_spec, who must be able to read
--    what it names; nobody else may approve it.
--  * The save-time check covers params.validation_relation like the training
--    relation, and refuses temporary relations (gone at the next retrain).
BEGIN;
SELECT plan(27);

CREATE ROLE gbdt_rs_alice NOLOGIN;
CREATE ROLE gbdt_rs_mallory NOLOGIN;
GRANT SELECT, INSERT, DELETE ON gbdt_models TO gbdt_rs_alice, gbdt_rs_mallory;
GRANT UPDATE (deployed) ON gbdt_models TO gbdt_rs_alice, gbdt_rs_mallory;
GRANT SELECT, INSERT ON gbdt_model_names TO gbdt_rs_alice, gbdt_rs_mallory;

CREATE SCHEMA gbdt_rs;
GRANT USAGE ON SCHEMA gbdt_rs TO gbdt_rs_alice, gbdt_rs_mallory;
-- x3 is noise: a model on it alone validates worse than one on x1, x2.
CREATE TABLE gbdt_rs.t AS
SELECT i AS id, sin(i)::float8 AS x1, cos(i * 0.7)::float8 AS x2, ((i * 7919) % 101)::float8 AS x3,
       (sin(i) + 0.5 * cos(i * 0.7) > 0.1)::int::float8 AS y
FROM generate_series(1, 1500) i;
CREATE TABLE gbdt_rs.secret AS SELECT * FROM gbdt_rs.t WHERE id % 3 = 0;
GRANT SELECT ON gbdt_rs.t TO gbdt_rs_alice, gbdt_rs_mallory;
GRANT SELECT ON gbdt_rs.secret TO gbdt_rs_alice;

\ir ../lib/as_role_value.sql

-- ---- the deployed version's spec, not the newest ----
SELECT is(gbdt_train_and_save('rs', 'gbdt_rs.t', 'y', ARRAY['x1', 'x2'], 'binary:logistic',
                              '{"num_round": 20, "max_depth": 3, "validation_fraction": 0.2}', 'if_better'),
          1, 'version 1 saved and deployed');
SELECT is(gbdt_train_and_save('rs', 'gbdt_rs.t', 'y', ARRAY['x3'], 'binary:logistic',
                              '{"num_round": 2, "max_depth": 1, "validation_fraction": 0.2}', 'if_better'),
          2, 'experiment version 2 saved');
SELECT is((SELECT version FROM gbdt_models WHERE name = 'rs' AND deployed), 1,
          'the experiment validates worse and is not deployed');
SELECT is(gbdt_retrain('rs'), 3, 'the nightly retrain saves version 3');
SELECT is((SELECT spec->'features' FROM gbdt_models WHERE name = 'rs' AND version = 3), '["x1", "x2"]'::jsonb,
          'the retrain ran the deployed version''s features, not the experiment''s');
SELECT is((SELECT spec->'params'->>'num_round' FROM gbdt_models WHERE name = 'rs' AND version = 3), '20',
          'the retrain ran the deployed version''s params');
SELECT is((SELECT (gbdt_model_info(model)->>'rounds')::int FROM gbdt_models WHERE name = 'rs' AND version = 3), 20,
          'version 3 has the deployed spec''s 20 rounds');
SELECT is(gbdt_retrain('rs', version => 2), 4, 'a retrain from the named version 2');
SELECT is((SELECT spec->'features' FROM gbdt_models WHERE name = 'rs' AND version = 4), '["x3"]'::jsonb,
          'the named version''s spec was run');
SELECT throws_ok($$SELECT gbdt_retrain('rs', version => 99)$$, '42704', 'model "rs" has no version 99',
                 'a retrain from a version that does not exist');
SELECT is(gbdt_retrain(NULL), NULL, 'a NULL name gives NULL, as before');
SELECT gbdt_save('rs_nospec', (SELECT model FROM gbdt_models WHERE name = 'rs' AND version = 1));
SELECT throws_ok($$SELECT gbdt_retrain('rs_nospec')$$, '55000',
                 'model "rs_nospec" has no stored training spec to retrain from', 'a name without any spec');

-- ---- quarantine and approval ----
GRANT UPDATE (spec_quarantined) ON gbdt_models TO gbdt_rs_alice, gbdt_rs_mallory;
SELECT is(pg_temp.as_role_val('gbdt_rs_alice', $q$SELECT gbdt_train_and_save('rs_a', 'gbdt_rs.secret', 'y', ARRAY['x1', 'x2'],
            'binary:logistic', '{"num_round": 3}')$q$), '1', 'alice saves rs_a on her secret table');
UPDATE gbdt_models SET spec_quarantined = true WHERE name = 'rs_a';
SELECT throws_like($$SELECT pg_temp.as_role_val('gbdt_rs_alice', 'SELECT gbdt_retrain(''rs_a'')')$$,
                   'the training spec of version 1 of model "rs_a" is quarantined',
                   'the owner''s retrain refuses a quarantined spec');
SELECT throws_like($$SELECT gbdt_retrain('rs_a')$$,
                   'the training spec of version 1 of model "rs_a" is quarantined',
                   'a superuser''s retrain refuses it too');
SELECT throws_ok($$SELECT pg_temp.as_role_val('gbdt_rs_mallory', 'SELECT gbdt_approve_spec(''rs_a'', 1)')$$,
                 '42501', 'permission denied for model "rs_a"', 'another role cannot approve it');
SELECT is(pg_temp.as_role_val('gbdt_rs_mallory', $q$UPDATE gbdt_models SET spec_quarantined = false
                                              WHERE name = 'rs_a' RETURNING 'changed'$q$), NULL,
          'nor lift the quarantine by a direct UPDATE');
SELECT lives_ok($$SELECT pg_temp.as_role_val('gbdt_rs_alice', 'SELECT gbdt_approve_spec(''rs_a'', 1)')$$,
                'the owner approves it');
SELECT is(pg_temp.as_role_val('gbdt_rs_alice', $q$SELECT gbdt_retrain('rs_a')$q$), '2', 'and retrains from it');
UPDATE gbdt_models SET spec_quarantined = true WHERE name = 'rs_a' AND version = 2;
REVOKE SELECT ON gbdt_rs.secret FROM gbdt_rs_alice;
SELECT throws_ok($$SELECT pg_temp.as_role_val('gbdt_rs_alice', 'SELECT gbdt_approve_spec(''rs_a'', 2)')$$, '42501',
                 'permission denied for relation gbdt_rs.secret named in the training spec',
                 'an owner who cannot read what the spec names cannot approve it');
SELECT throws_ok($$SELECT pg_temp.as_role_val('gbdt_rs_alice', 'UPDATE gbdt_models SET spec_quarantined = false WHERE name = ''rs_a'' AND version = 2')$$,
                 '42501', 'permission denied for relation gbdt_rs.secret named in the training spec',
                 'nor by a direct UPDATE');

-- ---- what a spec may name ----
CREATE TEMP TABLE rs_model AS SELECT model FROM gbdt_models WHERE name = 'rs' AND version = 1;
GRANT SELECT ON rs_model TO gbdt_rs_mallory;
SELECT throws_ok($$SELECT pg_temp.as_role_val('gbdt_rs_mallory', 'SELECT gbdt_save(''rs_m'', (SELECT model FROM rs_model),
                   ''{"relation": "gbdt_rs.t", "target": "y", "params": {"validation_relation": "gbdt_rs.secret"}}'')')$$,
                 '42501', 'permission denied for relation gbdt_rs.secret named in the training spec',
                 'a spec whose validation_relation its saver cannot read is refused');
SELECT throws_ok($$SELECT gbdt_save('rs_v', (SELECT model FROM gbdt_models WHERE name = 'rs' AND version = 1),
                   '{"relation": "gbdt_rs.t", "target": "y", "params": {"validation_relation": 7}}')$$,
                 '22023', NULL, 'a validation_relation that is not a string is refused');
CREATE TEMP VIEW rs_tv AS SELECT * FROM gbdt_rs.t;
CREATE TEMP TABLE rs_tt AS SELECT * FROM gbdt_rs.t;
SELECT throws_like($$SELECT gbdt_train_and_save('rs_tmp', 'rs_tv', 'y', ARRAY['x1', 'x2'], NULL, '{"num_round": 2}')$$,
                   '%named in the training spec (relation) is temporary',
                   'gbdt_train_and_save refuses a temporary view');
SELECT throws_like($$SELECT gbdt_save('rs_tmp', (SELECT model FROM gbdt_models WHERE name = 'rs' AND version = 1),
                     format('{"relation": "%s", "target": "y"}', 'rs_tt'::regclass::text)::jsonb)$$,
                   '%named in the training spec (relation) is temporary',
                   'gbdt_save refuses a spec naming a temporary table');
SELECT throws_like($$SELECT gbdt_train_and_save('rs_tmp', 'gbdt_rs.t', 'y', ARRAY['x1', 'x2'], NULL,
                     format('{"num_round": 2, "validation_relation": "%s"}', 'rs_tt'::regclass::text)::jsonb)$$,
                   '%named in the training spec (params.validation_relation) is temporary',
                   'a temporary validation_relation is refused');
SELECT is((SELECT count(*)::int FROM gbdt_models WHERE name IN ('rs_m', 'rs_v', 'rs_tmp')), 0,
          'none of the refused specs was saved');

SELECT * FROM finish();
ROLLBACK;
