-- Search-path hijack: a plain role that may CREATE in the extension's schema
-- (PostgreSQL's default for public before 15, or any granted schema) plants
-- overloads that win over pg_catalog's on an exact argument match
-- (count(text), has_table_privilege(regclass, text), has_schema_privilege(name,
-- text), jsonb_build_object with the registry's 14 and 10 arguments,
-- format(text, name, name), cardinality(float8[]) for the loader's SPI
-- query, and a text = text operator for the registry lookup's).  Each planted
-- function counts its calls in a sequence (not rolled back with the
-- statement) and, when it runs as a superuser, also in a second sequence and
-- makes its author superuser.  DROP EXTENSION, registry calls and trainings
-- by that role or by a superuser must never run them.  Every attack runs in a
-- subtransaction that is rolled back (roles included, and the DROP).
BEGIN;
SELECT plan(16);

CREATE ROLE gbdt_hj NOLOGIN;
DO $$ BEGIN
  EXECUTE format('GRANT CREATE, USAGE ON SCHEMA %I TO gbdt_hj',
                 (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'gbdt'));
END $$;
GRANT SELECT, INSERT, DELETE ON gbdt_models TO gbdt_hj;
GRANT UPDATE (deployed) ON gbdt_models TO gbdt_hj;
GRANT SELECT, INSERT ON gbdt_model_names TO gbdt_hj;

CREATE SCHEMA gbdt_hj_data;
GRANT USAGE ON SCHEMA gbdt_hj_data TO gbdt_hj;
CREATE TABLE gbdt_hj_data.t AS
SELECT i AS id, sin(i)::float8 AS x1, cos(i * 0.7)::float8 AS x2,
       ARRAY[sin(i * 1.3), cos(i * 0.3)]::float8[] AS xa,
       (sin(i) + 0.5 * cos(i * 0.7) > 0.1)::int::float8 AS y
FROM generate_series(1, 400) i;
GRANT SELECT ON gbdt_hj_data.t TO gbdt_hj;

-- Registry rows made before the planting.
CREATE TEMP TABLE hj_model AS
SELECT gbdt_train('gbdt_hj_data.t', 'y', ARRAY['x1', 'x2'], 'binary:logistic', '{"num_round": 2}') AS m;
GRANT SELECT ON hj_model TO gbdt_hj;
SELECT gbdt_save('hj_admin', (SELECT m FROM hj_model));
SELECT gbdt_train_and_save('hj_rt', 'gbdt_hj_data.t', 'y', ARRAY['x1', 'x2'], 'binary:logistic', '{"num_round": 2}');

-- ---- the planted objects, owned by gbdt_hj, in the extension's schema ----
SET LOCAL ROLE gbdt_hj;
DO $plant$
DECLARE
  sch text := (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'gbdt');
BEGIN
  EXECUTE format($f$
    CREATE SEQUENCE %1$s.hj_calls;
    CREATE SEQUENCE %1$s.hj_super;
    GRANT USAGE ON SEQUENCE %1$s.hj_calls, %1$s.hj_super TO PUBLIC;
    CREATE FUNCTION %1$s.hj_note() RETURNS void LANGUAGE plpgsql AS $b$
    BEGIN
      PERFORM pg_catalog.nextval('%1$s.hj_calls');
      IF (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
        PERFORM pg_catalog.nextval('%1$s.hj_super');
        BEGIN
          EXECUTE 'ALTER ROLE gbdt_hj SUPERUSER';
        EXCEPTION WHEN OTHERS THEN NULL;
        END;
      END IF;
    END $b$;
    CREATE FUNCTION %1$s.hj_count_sf(bigint, text) RETURNS bigint LANGUAGE plpgsql AS $b$
      BEGIN PERFORM %1$s.hj_note(); RETURN $1 + 1; END $b$;
    CREATE AGGREGATE %1$s.count(text) (sfunc = %1$s.hj_count_sf, stype = bigint, initcond = '0');
    CREATE FUNCTION %1$s.has_table_privilege(regclass, text) RETURNS bool LANGUAGE plpgsql AS $b$
      BEGIN PERFORM %1$s.hj_note(); RETURN true; END $b$;
    CREATE FUNCTION %1$s.has_schema_privilege(name, text) RETURNS bool LANGUAGE plpgsql AS $b$
      BEGIN PERFORM %1$s.hj_note(); RETURN true; END $b$;
    CREATE FUNCTION %1$s.jsonb_build_object(text, jsonb, text, jsonb, text, jsonb, text, jsonb,
                                            text, jsonb, text, jsonb, text, jsonb) RETURNS jsonb
      LANGUAGE plpgsql AS $b$ BEGIN PERFORM %1$s.hj_note(); RETURN '{}'; END $b$;
    CREATE FUNCTION %1$s.jsonb_build_object(text, text, text, text, text, jsonb, text, text, text, jsonb)
      RETURNS jsonb LANGUAGE plpgsql AS $b$ BEGIN PERFORM %1$s.hj_note(); RETURN '{}'; END $b$;
    CREATE FUNCTION %1$s.format(text, name, name) RETURNS text LANGUAGE plpgsql AS $b$
      BEGIN PERFORM %1$s.hj_note(); RETURN $2 || '.' || $3; END $b$;
    CREATE FUNCTION %1$s.cardinality(float8[]) RETURNS int LANGUAGE plpgsql AS $b$
      BEGIN PERFORM %1$s.hj_note(); RETURN pg_catalog.cardinality($1); END $b$;
    CREATE FUNCTION %1$s.hj_text_eq(text, text) RETURNS bool LANGUAGE plpgsql AS $b$
      BEGIN PERFORM %1$s.hj_note(); RETURN $1 OPERATOR(pg_catalog.=) $2; END $b$;
    CREATE OPERATOR %1$s.= (leftarg = text, rightarg = text, function = %1$s.hj_text_eq);
  $f$, sch);
END
$plant$;
RESET ROLE;

-- Calls of the planted functions so far (all, and as a superuser).
CREATE FUNCTION pg_temp.hj_calls() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM %s.hj_calls',
                 (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'gbdt')) INTO n;
  RETURN n;
END $$;
CREATE FUNCTION pg_temp.hj_super_calls() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM %s.hj_super',
                 (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'gbdt')) INTO n;
  RETURN n;
END $$;
-- Runs q as role r (NULL: as the session's superuser), with search path sp
-- when given, in a subtransaction that is always rolled back; returns 'ok'
-- or the SQLSTATE and message of the error.
CREATE FUNCTION pg_temp.try_as(r text, q text, sp text DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $$
DECLARE res text;
BEGIN
  BEGIN
    IF sp IS NOT NULL THEN PERFORM set_config('search_path', sp, true); END IF;
    IF r IS NOT NULL THEN PERFORM set_config('role', r, true); END IF;
    EXECUTE q;
    RAISE EXCEPTION USING ERRCODE = 'GB999', MESSAGE = 'roll back';
  EXCEPTION WHEN OTHERS THEN
    res := CASE WHEN SQLSTATE = 'GB999' THEN 'ok' ELSE SQLSTATE || ': ' || SQLERRM END;
  END;
  RETURN res;
END $$;


SELECT is(pg_temp.hj_calls(), 0::bigint, 'the planted functions have not run yet');

-- ---- the planting role ----
SELECT matches(pg_temp.try_as('gbdt_hj', 'DROP EXTENSION gbdt'), '^42501: must be owner of extension gbdt',
               'DROP EXTENSION gbdt by the planting role fails on ownership');
SELECT is(pg_temp.try_as('gbdt_hj', $q$SELECT gbdt_save('hj_m', (SELECT m FROM hj_model),
                                        '{"relation": "gbdt_hj_data.t", "target": "y"}')$q$), 'ok',
          'the planting role saves a model with a spec');
SELECT is(pg_temp.try_as('gbdt_hj', $q$SELECT gbdt_train_and_save('hj_arr', 'gbdt_hj_data.t', 'y', ARRAY['x1', 'xa'],
                                        'binary:logistic', '{"num_round": 2}')$q$), 'ok',
          'the planting role trains and saves on a table with an array column');
SELECT is(pg_temp.hj_calls(), 0::bigint,
          'DROP EXTENSION, gbdt_save and gbdt_train_and_save by the planting role ran none of its functions');

-- ---- a superuser, with the default search path and with public before pg_catalog ----
SELECT is(pg_temp.try_as(NULL, $q$SELECT gbdt_save('hj_su', (SELECT m FROM hj_model),
                                     '{"relation": "gbdt_hj_data.t", "target": "y"}')$q$), 'ok',
          'a superuser saves a model with a spec');
SELECT is(pg_temp.try_as(NULL, $q$SELECT gbdt_train_and_save('hj_su2', 'gbdt_hj_data.t', 'y', ARRAY['x1', 'xa'],
                                     'binary:logistic', '{"num_round": 2}')$q$), 'ok',
          'a superuser trains and saves on a table with an array column');
SELECT is(pg_temp.try_as(NULL, $q$SELECT gbdt_train('gbdt_hj_data.t', 'y', ARRAY['x1', 'xa'], 'binary:logistic',
                                     '{"num_round": 2}')$q$, 'public, pg_catalog'), 'ok',
          'a superuser trains directly on the array column with public first on its search path');
SELECT is(pg_temp.try_as(NULL, $q$SELECT gbdt_model('hj_admin')$q$, 'public, pg_catalog'), 'ok',
          'a superuser looks a model up with public first on its search path');
SELECT is(pg_temp.try_as(NULL, $q$SELECT gbdt_train_and_save('hj_su3', 'gbdt_hj_data.t', 'y', ARRAY['x1', 'x2'],
                                     'binary:logistic', '{"num_round": 2}')$q$, 'public, pg_catalog'), 'ok',
          'a superuser saves with public first on its search path');
SELECT is(pg_temp.try_as(NULL, $q$SELECT gbdt_retrain('hj_admin_spec')$q$), '42704: no model named "hj_admin_spec" in the gbdt registry',
          'a retrain of an unknown name is an error');
SELECT is(pg_temp.try_as(NULL, $q$SELECT gbdt_retrain('hj_rt')$q$), 'ok', 'a superuser retrains');
SELECT is(pg_temp.try_as(NULL, $q$SELECT gbdt_deploy('hj_rt', 1)$q$), 'ok', 'a superuser deploys');
SELECT is(pg_temp.try_as(NULL, 'DROP EXTENSION gbdt CASCADE'), 'ok', 'a superuser drops the extension (rolled back)');
SELECT is(pg_temp.hj_calls(), 0::bigint, 'no planted function ran in any of these calls');
SELECT ok(pg_temp.hj_super_calls() = 0 AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = 'gbdt_hj'),
          'the planting role never ran code as a superuser and is not superuser');

SELECT * FROM finish();
ROLLBACK;
