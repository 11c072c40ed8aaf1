-- The "exclude" parameter: columns left out of the default feature list
-- (features => NULL); an unknown name, exclude with an explicit features
-- list or an init_model, a non-string element, and excluding every
-- feature are errors naming the parameter (and the column).
BEGIN;
SELECT plan(10);

CREATE TABLE ex_data AS
SELECT i, (i % 7)::float8 AS a, (i % 11)::float8 AS b, (i % 13)::float8 AS c,
       ((i % 7) * 2 + (i % 11))::float8 AS y
FROM generate_series(1, 400) i;
ALTER TABLE ex_data DROP COLUMN i;

SET client_min_messages = warning;  -- the training NOTICEs

SELECT is((SELECT array_agg(f ORDER BY f) FROM (SELECT x #>> '{}' AS f FROM jsonb_path_query(
             gbdt_model_info(gbdt_train('ex_data', 'y', params => '{"exclude": ["c"], "num_round": 3}'))
             ->'features', '$[*].name') x) s),
          ARRAY['a', 'b'], 'exclude ["c"] leaves a and b');
SELECT is((SELECT array_agg(f ORDER BY f) FROM (SELECT x #>> '{}' AS f FROM jsonb_path_query(
             gbdt_model_info(gbdt_train('ex_data', 'y', params => '{"exclude": "a", "num_round": 3}'))
             ->'features', '$[*].name') x) s),
          ARRAY['b', 'c'], 'exclude as one string');
SELECT is(gbdt_train('ex_data', 'y', params => '{"exclude": ["c"], "num_round": 3}')::text,
          gbdt_train('ex_data', 'y', ARRAY['a', 'b'], params => '{"num_round": 3}')::text,
          'exclude gives the model of the remaining features named explicitly');
SELECT is(gbdt_train('ex_data', 'y', params => '{"exclude": [], "num_round": 3}')::text,
          gbdt_train('ex_data', 'y', params => '{"num_round": 3}')::text,
          'an empty exclude list changes nothing');
SELECT throws_ok($$SELECT gbdt_train('ex_data', 'y', params => '{"exclude": ["a", "nope"]}')$$,
                 '42703', 'parameter "exclude" names column "nope", which is not a column of relation "ex_data"',
                 'an unknown column is an error naming it');
SELECT throws_like($$SELECT gbdt_train('ex_data', 'y', ARRAY['a', 'b'], params => '{"exclude": ["c"]}')$$,
                   'parameter "exclude" is for the default feature list, not with an explicit features list',
                   'exclude with an explicit features list is an error');
SELECT throws_like($$SELECT gbdt_train('ex_data', 'y', params => '{"exclude": ["a", 3]}')$$,
                   'parameter "exclude" must list column names (JSON strings): element 2 is not a string',
                   'a non-string element is an error');
SELECT throws_like($$SELECT gbdt_train('ex_data', 'y', params => '{"exclude": ["a", "b", "c"]}')$$,
                   'parameter "exclude" leaves relation "ex_data" no feature column',
                   'excluding every feature is an error');
SELECT throws_like($$SELECT gbdt_train('ex_data', 'y', params => '{"exclude": ["c"], "num_round": 2}',
                                        init_model => gbdt_train('ex_data', 'y', params => '{"num_round": 2}'))$$,
                   '%exclude" is for the default feature list, not with init_model%',
                   'exclude with init_model is an error');
SELECT is((SELECT count(*)::int FROM gbdt_cv('ex_data', 'y', params => '{"exclude": ["c"], "num_round": 2}', nfold => 2)),
          2, 'gbdt_cv takes exclude too');

SELECT * FROM finish();
ROLLBACK;
