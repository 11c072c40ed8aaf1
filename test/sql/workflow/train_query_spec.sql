-- gbdt_train_query_and_save: a training spec that holds a query.
--  * The spec stores the query as PostgreSQL writes it back, every name
--    schema-qualified, resolved with the saver's search_path; the model
--    equals gbdt_train_query's of the same text.
--  * gbdt_retrain re-runs the query (also with continue_from_deployed),
--    with the owner's rights: after the owner loses SELECT, a superuser's
--    retrain is refused.
--  * Refused before anything is saved: a temporary table, a data-modifying
--    WITH, another statement, a bad deploy strategy, a spec query the saver
--    cannot read or that names a relation too.
BEGIN;
SELECT plan(19);

CREATE ROLE gbdt_qs_owner NOLOGIN;
GRANT SELECT, INSERT, DELETE ON gbdt_models TO gbdt_qs_owner;
GRANT UPDATE (deployed) ON gbdt_models TO gbdt_qs_owner;
GRANT SELECT, INSERT ON gbdt_model_names TO gbdt_qs_owner;
CREATE SCHEMA gbdt_qs;
GRANT USAGE ON SCHEMA gbdt_qs TO gbdt_qs_owner;
CREATE TABLE gbdt_qs.d AS
SELECT i AS k, sin(i)::float8 AS a, cos(i * 0.7)::float8 AS b,
       (sin(i) + 0.5 * cos(i * 0.7) > 0.1)::int::float8 AS y
FROM generate_series(1, 1200) i;
CREATE TABLE gbdt_qs.secret AS SELECT * FROM gbdt_qs.d;
GRANT SELECT ON gbdt_qs.d TO gbdt_qs_owner;

\ir ../lib/as_role_value.sql

SET client_min_messages = warning;  -- the training NOTICEs

-- ---- saved from a query resolved on the caller's search_path ----
SET LOCAL search_path = gbdt_qs, public;
SELECT is(gbdt_train_query_and_save('qs', 'SELECT a, b, y FROM d WHERE k > 200 ORDER BY k DESC', 'y',
                                    params => '{"num_round": 6, "max_depth": 3}'),
          1, 'version 1 saved from a query');
RESET search_path;
SELECT is((SELECT spec->>'query' FROM gbdt_models WHERE name = 'qs'),
          gbdt_registry_check_query('SELECT a, b, y FROM gbdt_qs.d WHERE k > 200 ORDER BY k DESC'),
          'the spec holds the query in its canonical form');
SELECT ok((SELECT spec->>'query' LIKE '%gbdt_qs.d%' FROM gbdt_models WHERE name = 'qs'),
          'the stored query names its table with the schema');
SELECT ok((SELECT NOT spec ? 'relation' AND spec->>'target' = 'y' AND spec->'params'->>'num_round' = '6'
           FROM gbdt_models WHERE name = 'qs'), 'target and params stored beside it, no relation');
SELECT is((SELECT md5(model::text) FROM gbdt_models WHERE name = 'qs'),
          md5(gbdt_train_query('SELECT a, b, y FROM gbdt_qs.d WHERE k > 200 ORDER BY k DESC', 'y',
                               params => '{"num_round": 6, "max_depth": 3}')::text),
          'the saved model is gbdt_train_query''s');

-- ---- retrain re-runs the query on the current rows ----
DELETE FROM gbdt_qs.d WHERE k % 5 = 0;
SELECT is(gbdt_retrain('qs'), 2, 'gbdt_retrain saves version 2 from the query');
SELECT is((SELECT md5(model::text) FROM gbdt_models WHERE name = 'qs' AND version = 2),
          md5(gbdt_train_query('SELECT a, b, y FROM gbdt_qs.d WHERE k > 200 ORDER BY k DESC', 'y',
                               params => '{"num_round": 6, "max_depth": 3}')::text),
          'version 2 is the model of the query''s current rows');
SELECT isnt((SELECT md5(model::text) FROM gbdt_models WHERE name = 'qs' AND version = 2),
            (SELECT md5(model::text) FROM gbdt_models WHERE name = 'qs' AND version = 1),
            'the deleted rows changed the model');
SELECT is(gbdt_retrain('qs', continue_from_deployed => true), 3, 'a continued retrain from the query');
SELECT is((SELECT (gbdt_model_info(model)->>'rounds')::int FROM gbdt_models WHERE name = 'qs' AND version = 3), 12,
          'version 3 adds the spec''s 6 rounds to the deployed 6');
SELECT is((SELECT count(*)::int FROM pg_class WHERE relname LIKE 'gbdt_query_%' AND relpersistence = 't'), 0,
          'no query view is left behind');

-- ---- the owner's rights ----
SELECT is(pg_temp.as_role_val('gbdt_qs_owner', $q$SELECT gbdt_train_query_and_save('qs_own',
            'SELECT a, b, y FROM gbdt_qs.d', 'y', params => '{"num_round": 3}')$q$), '1',
          'the owner saves a query spec');
SELECT throws_ok($$SELECT pg_temp.as_role_val('gbdt_qs_owner', $q$SELECT gbdt_train_query_and_save('qs_sec',
                   'SELECT a, b, y FROM gbdt_qs.secret', 'y')$q$)$$,
                 '42501', 'permission denied for table secret', 'the owner cannot save a query it cannot run');
REVOKE SELECT ON gbdt_qs.d FROM gbdt_qs_owner;
SELECT throws_ok($$SELECT gbdt_retrain('qs_own')$$, '42501', 'permission denied for table d',
                 'a superuser''s retrain runs the query with the owner''s rights');

-- ---- refused, nothing saved ----
CREATE TEMP TABLE qs_temp AS SELECT * FROM gbdt_qs.d;
SELECT throws_ok($$SELECT gbdt_train_query_and_save('qs_bad', 'SELECT a, b, y FROM qs_temp', 'y')$$, '22023',
                 'the query of a training spec reads the temporary relation qs_temp', 'a temporary table');
SELECT throws_ok($$SELECT gbdt_train_query_and_save('qs_bad',
                   'WITH x AS (DELETE FROM gbdt_qs.d RETURNING *) SELECT * FROM x', 'y')$$, '22023',
                 'query must not modify data: "WITH x AS (DELETE FROM gbdt_qs.d RETURNING *) SELECT * FROM x"',
                 'a data-modifying WITH');
SELECT throws_ok($$SELECT gbdt_train_query_and_save('qs_bad', 'SELECT a, b, y FROM gbdt_qs.d', 'y',
                   deploy => 'sometimes')$$, '22023', 'deploy strategy "sometimes" is not supported',
                 'a bad deploy strategy, before training');
SELECT throws_ok($$SELECT gbdt_save('qs_bad', (SELECT model FROM gbdt_models WHERE name = 'qs' AND version = 1),
                   '{"query": "SELECT a, b, y FROM gbdt_qs.d", "relation": "gbdt_qs.d", "target": "y"}')$$, '22023',
                 'a training spec names a "relation" or a "query", not both', 'a spec with both a relation and a query');
SELECT is((SELECT count(*)::int FROM gbdt_models WHERE name = 'qs_bad'), 0, 'nothing was saved');

SELECT * FROM finish();
ROLLBACK;
