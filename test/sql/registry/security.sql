-- Registry without a confused deputy: names have
-- owners, only the owner's members save/deploy/retrain or write rows (the
-- functions and row-level security), created_by cannot be forged, a spec must
-- name a relation its saver can read, and gbdt_retrain trains with the owner's
-- rights even when a superuser runs it.  Also: every function and type of the
-- extension has a comment.
--
-- Two non-superuser roles, gbdt_alice (the victim) and gbdt_mallory (the
-- attacker), with the grants docs/registry.md recommends to roles that save
-- models, plus the full UPDATE that 0.1's docs recommended: the attacks must
-- fail even with it.  Everything is rolled back (roles included).
BEGIN;
SELECT plan(46);

CREATE ROLE gbdt_alice NOLOGIN;
CREATE ROLE gbdt_mallory NOLOGIN;
GRANT SELECT, INSERT, DELETE ON gbdt_models TO gbdt_alice, gbdt_mallory;
GRANT UPDATE (deployed) ON gbdt_models TO gbdt_alice, gbdt_mallory;
GRANT UPDATE ON gbdt_models TO gbdt_mallory;
GRANT SELECT, INSERT ON gbdt_model_names TO gbdt_alice, gbdt_mallory;

CREATE SCHEMA gbdt_sec;
GRANT USAGE ON SCHEMA gbdt_sec TO gbdt_alice, gbdt_mallory;
CREATE TABLE gbdt_sec.secret AS
SELECT i AS id, sin(i)::float8 AS x1, cos(i * 0.7)::float8 AS x2, (sin(i) + 0.5 * cos(i * 0.7) > 0.1)::int::float8 AS y
FROM generate_series(1, 600) i;
CREATE TABLE gbdt_sec.pub AS SELECT * FROM gbdt_sec.secret;
GRANT SELECT ON gbdt_sec.secret TO gbdt_alice;
GRANT SELECT ON gbdt_sec.pub TO gbdt_alice, gbdt_mallory;
-- A table mallory may SELECT, in a schema she has no USAGE on.
CREATE SCHEMA gbdt_sec_hidden;
CREATE TABLE gbdt_sec_hidden.h AS SELECT * FROM gbdt_sec.pub;
GRANT SELECT ON gbdt_sec_hidden.h TO gbdt_mallory;

-- Runs a statement as a role and returns its row count (pgTAP's own tables
-- stay with the superuser).  An error rolls the role back with the
-- subtransaction of the throws_ok/lives_ok around it.
CREATE FUNCTION pg_temp.as_role(r text, q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  PERFORM set_config('role', r, true);
  EXECUTE q;
  GET DIAGNOSTICS n = ROW_COUNT;
  PERFORM set_config('role', 'none', true);
  RETURN n;
END $$;
-- The same for a query returning one value.
\ir ../lib/as_role_value.sql

-- ---- alice saves a model trained on her secret table ----
SELECT is(pg_temp.as_role_val('gbdt_alice', $q$SELECT gbdt_train_and_save('sec_churn', 'gbdt_sec.secret', 'y', NULL,
            'binary:logistic', '{"num_round": 5, "max_depth": 3}')$q$), '1', 'alice saves sec_churn version 1');
SELECT is((SELECT created_by::text FROM gbdt_models WHERE name = 'sec_churn' AND version = 1), 'gbdt_alice',
          'created_by is alice');
CREATE TEMP TABLE pub_model AS
SELECT gbdt_train('gbdt_sec.pub', 'y', NULL, 'binary:logistic', '{"num_round": 2}') AS m;
GRANT SELECT ON pub_model TO gbdt_alice, gbdt_mallory;
CREATE TEMP TABLE before AS
SELECT name, version, created_by, deployed, model::text AS model FROM gbdt_models WHERE name = 'sec_churn';

-- ---- mallory against alice's name, through the functions ----
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'SELECT gbdt_save(''sec_churn'', (SELECT m FROM pub_model))')$$,
                 '42501', 'permission denied for model "sec_churn"', 'mallory cannot save a version under alice''s name');
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'SELECT gbdt_train_and_save(''sec_churn'', ''gbdt_sec.pub'', ''y'', NULL, NULL, ''{"num_round": 2}'')')$$,
                 '42501', 'permission denied for model "sec_churn"', 'mallory cannot train_and_save under alice''s name');
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'SELECT gbdt_save(''sec_churn'', (SELECT m FROM pub_model), NULL, ''never'')')$$,
                 '42501', 'permission denied for model "sec_churn"', 'mallory cannot save an undeployed version either');
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'SELECT gbdt_deploy(''sec_churn'', 1)')$$,
                 '42501', 'permission denied for model "sec_churn"', 'mallory cannot deploy alice''s version');
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'SELECT gbdt_retrain(''sec_churn'')')$$,
                 '42501', 'permission denied for model "sec_churn"', 'mallory cannot retrain alice''s model');

-- ---- mallory against alice's rows, directly ----
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'INSERT INTO gbdt_models (name, version, model, deployed)
                   SELECT ''sec_churn'', 7, m, false FROM pub_model')$$,
                 '42501', NULL, 'mallory cannot INSERT a version of alice''s name');
SELECT is(pg_temp.as_role('gbdt_mallory', $q$UPDATE gbdt_models SET deployed = false WHERE name = 'sec_churn'$q$), 0::bigint,
          'mallory''s UPDATE of deployed reaches none of alice''s rows');
SELECT is(pg_temp.as_role('gbdt_mallory', $q$UPDATE gbdt_models SET model = (SELECT m FROM pub_model), created_by = 'gbdt_mallory'
                                           WHERE name = 'sec_churn'$q$), 0::bigint,
          'mallory''s UPDATE of model and created_by reaches none of alice''s rows');
SELECT is(pg_temp.as_role('gbdt_mallory', $q$DELETE FROM gbdt_models WHERE name = 'sec_churn'$q$), 0::bigint,
          'mallory''s DELETE reaches none of alice''s rows');
SELECT is((SELECT count(*)::int FROM gbdt_models m JOIN before b USING (name, version)
           WHERE (m.created_by, m.deployed, m.model::text) = (b.created_by, b.deployed, b.model)), 1,
          'alice''s version is unchanged after the attacks');
SELECT is((SELECT count(*)::int FROM gbdt_models WHERE name = 'sec_churn'), 1, 'no version added to alice''s name');
SELECT is(gbdt_model('sec_churn')::text, (SELECT model FROM before), 'gbdt_model(sec_churn) still returns alice''s model');

-- ---- created_by cannot be forged ----
SELECT is(pg_temp.as_role_val('gbdt_mallory', $q$SELECT gbdt_save('sec_m', (SELECT m FROM pub_model))$q$), '1',
          'mallory saves her own name sec_m');
SELECT is((SELECT created_by::text FROM gbdt_models WHERE name = 'sec_m'), 'gbdt_mallory', 'created_by of sec_m is mallory');
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'INSERT INTO gbdt_models (name, version, model, created_by, deployed)
                   SELECT ''sec_m'', 2, m, ''gbdt_alice'', false FROM pub_model')$$,
                 '42501', NULL, 'mallory cannot INSERT a row with created_by = alice');
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'UPDATE gbdt_models SET created_by = ''gbdt_alice'' WHERE name = ''sec_m''')$$,
                 '42501', NULL, 'mallory cannot UPDATE created_by of her own row');
SELECT is(pg_temp.as_role('gbdt_mallory', $q$INSERT INTO gbdt_models (name, version, model, deployed)
                                           SELECT 'sec_m', 2, m, false FROM pub_model$q$), 1::bigint,
          'mallory may INSERT a version of her own name directly');
SELECT is((SELECT created_by::text FROM gbdt_models WHERE name = 'sec_m' AND version = 2), 'gbdt_mallory',
          'a direct INSERT records created_by = mallory');
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'INSERT INTO gbdt_model_names (name, owner) VALUES (''sec_planted'', ''gbdt_alice'')')$$,
                 '42501', NULL, 'mallory cannot claim a name for alice');

-- ---- a spec must name a relation the saver can read ----
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'SELECT gbdt_save(''sec_spy'', (SELECT m FROM pub_model),
                   ''{"relation": "gbdt_sec.secret", "target": "y"}'')')$$,
                 '42501', 'permission denied for relation gbdt_sec.secret named in the training spec',
                 'mallory cannot save a spec naming a table she cannot read');
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'INSERT INTO gbdt_models (name, version, model, spec)
                   SELECT ''sec_m'', 3, m, ''{"relation": "gbdt_sec.secret", "target": "y"}'' FROM pub_model')$$,
                 '42501', 'permission denied for relation gbdt_sec.secret named in the training spec',
                 'mallory cannot INSERT such a spec directly');
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'SELECT gbdt_save(''sec_m'', (SELECT m FROM pub_model),
                   ''{"relation": "gbdt_sec_hidden.h", "target": "y"}'')')$$,
                 '42501', NULL, 'a spec naming a table in a schema without USAGE is refused');
SELECT is((SELECT count(*)::int FROM gbdt_models WHERE name IN ('sec_spy', 'sec_m') AND spec IS NOT NULL), 0,
          'no planted spec in the registry');

-- ---- alice's own rows: only deployed may change; readers see deployed versions ----
SELECT throws_ok($$SELECT pg_temp.as_role('gbdt_alice', 'UPDATE gbdt_models SET created_by = ''gbdt_mallory'' WHERE name = ''sec_churn''')$$,
                 '42501', NULL, 'alice cannot rewrite created_by of her own version');
SELECT is(pg_temp.as_role_val('gbdt_alice', $q$SELECT gbdt_save('sec_churn', (SELECT m FROM pub_model), NULL, 'never')$q$), '2',
          'alice saves version 2 (not deployed)');
SELECT is(pg_temp.as_role('gbdt_mallory', $q$SELECT 1 FROM gbdt_models WHERE name = 'sec_churn'$q$), 1::bigint,
          'mallory reads only the deployed version of alice''s name');
SELECT is(pg_temp.as_role('gbdt_alice', $q$SELECT 1 FROM gbdt_models WHERE name = 'sec_churn'$q$), 2::bigint,
          'alice reads every version of her name');
SELECT lives_ok($$SELECT pg_temp.as_role('gbdt_mallory', 'SELECT gbdt_predict(gbdt_model(''sec_churn''), p) FROM gbdt_sec.pub p')$$,
                'mallory scores with alice''s deployed model');

-- ---- gbdt_retrain as a superuser trains with the owner's rights ----
SELECT is(gbdt_retrain('sec_churn'), 3, 'superuser retrain of alice''s model: version 3');
SELECT is((SELECT created_by::text FROM gbdt_models WHERE name = 'sec_churn' AND version = 3), 'gbdt_alice',
          'the retrain ran and saved as alice');
SELECT is(current_user::text, session_user::text, 'the caller''s role is restored after the retrain');
-- alice's code reached by the training (a view calling her function) cannot
-- take the superuser's rights back: SET LOCAL ROLE alone would let it RESET ROLE.
GRANT CREATE ON SCHEMA gbdt_sec TO gbdt_alice;
SELECT lives_ok($$SELECT pg_temp.as_role('gbdt_alice', $q$
  CREATE FUNCTION gbdt_sec.back_to_session_user() RETURNS bool LANGUAGE plpgsql AS $f$
    BEGIN PERFORM set_config('role', 'none', false); RETURN true; END $f$;
  CREATE VIEW gbdt_sec.sneaky AS SELECT * FROM gbdt_sec.secret WHERE gbdt_sec.back_to_session_user();
  SELECT gbdt_save('sec_sneaky', (SELECT m FROM pub_model), '{"relation": "gbdt_sec.sneaky", "target": "y"}')$q$)$$,
                'alice saves a spec on a view that resets the role');
SELECT throws_ok($$SELECT gbdt_retrain('sec_sneaky')$$, '42501',
                 'cannot set parameter "role" within security-restricted operation',
                 'superuser retrain: the owner''s code cannot RESET ROLE to the superuser');
REVOKE SELECT ON gbdt_sec.secret FROM gbdt_alice;
SELECT throws_ok($$SELECT gbdt_retrain('sec_churn')$$, '42501', 'permission denied for relation gbdt_sec.secret named in the training spec',
                 'superuser retrain after alice lost SELECT on the table: permission denied');
SELECT is(current_user::text, session_user::text, 'the caller''s role is restored after the failed retrain');

-- ---- the structure that holds it ----
SELECT is((SELECT owner::text FROM gbdt_model_names WHERE name = 'sec_churn'), 'gbdt_alice', 'sec_churn is owned by alice');
SELECT is((SELECT owner::text FROM gbdt_model_names WHERE name = 'sec_m'), 'gbdt_mallory', 'sec_m is owned by mallory');
SELECT ok((SELECT relrowsecurity FROM pg_class WHERE oid = 'gbdt_models'::regclass), 'row-level security on gbdt_models');
SELECT ok((SELECT relrowsecurity FROM pg_class WHERE oid = 'gbdt_model_names'::regclass), 'row-level security on gbdt_model_names');
SELECT ok(EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'gbdt' AND 'gbdt_model_names'::regclass = ANY (extconfig)),
          'gbdt_model_names is dumped with the database (pg_extension_config_dump)');

-- ---- COMMENT ON every function and type of the extension, and the registry ----
-- From PostgreSQL 17 on, the types PostgreSQL makes by itself are extension
-- members too: the array type of each type (_gbdt_model) and the row type of
-- each table (gbdt_models).  Those are not the extension's own objects and
-- are left out (on 15 and 16 they are no members, so nothing is left out);
-- a composite type made with CREATE TYPE (its relation's relkind is 'c')
-- still needs its comment.
SELECT is((SELECT array_agg(pg_describe_object(d.classid, d.objid, 0) ORDER BY 1)
           FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gbdt'
           WHERE d.deptype = 'e' AND d.classid IN ('pg_proc'::regclass, 'pg_type'::regclass, 'pg_class'::regclass)
             AND (d.classid <> 'pg_class'::regclass OR (SELECT relkind FROM pg_class WHERE oid = d.objid) = 'r')
             AND NOT (d.classid = 'pg_type'::regclass AND EXISTS (
                   SELECT 1 FROM pg_type t
                   WHERE t.oid = d.objid
                     AND (EXISTS (SELECT 1 FROM pg_type elem WHERE elem.typarray = t.oid)
                          OR (t.typrelid <> 0 AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) <> 'c'))))
             AND obj_description(d.objid, (SELECT relname FROM pg_class WHERE oid = d.classid)) IS NULL),
          NULL, 'every function, type and table of the extension has a comment');
SELECT is((SELECT array_agg(format('%s.%s', a.attrelid::regclass, a.attname) ORDER BY 1)
           FROM pg_attribute a
           WHERE a.attrelid IN ('gbdt_models'::regclass, 'gbdt_model_names'::regclass) AND a.attnum > 0
             AND NOT a.attisdropped AND col_description(a.attrelid, a.attnum) IS NULL),
          NULL, 'every registry column has a comment');
SELECT ok(EXISTS (SELECT 1 FROM pg_event_trigger t JOIN pg_depend d ON d.classid = 'pg_event_trigger'::regclass
                  AND d.objid = t.oid AND d.deptype = 'e'
                  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gbdt'
                  WHERE t.evtname = 'gbdt_drop_extension_warning' AND t.evtevent = 'ddl_command_start'
                    AND t.evtenabled <> 'D' AND 'DROP EXTENSION' = ANY (t.evttags)),
          'an enabled event trigger of the extension warns before DROP EXTENSION (scripts/test-upgrade.sh checks the warning)');
SELECT ok(obj_description('gbdt_models'::regclass, 'pg_class') LIKE '%DROP EXTENSION gbdt drops this table and every saved version%',
          'the registry table''s comment says DROP EXTENSION drops the saved versions');

SELECT * FROM finish();
ROLLBACK;
