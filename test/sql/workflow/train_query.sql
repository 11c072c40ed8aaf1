-- gbdt_train_query: the model of a query's rows equals the model of the same
-- rows stored as a table (in the query's order); the query runs with the
-- caller's rights; anything but a single SELECT, a query without rows or
-- without the target is an error; no view is left behind.
BEGIN;
SELECT plan(12);

CREATE TABLE tq_data AS
SELECT i AS k, (i % 7)::float8 AS a, (i % 11)::float8 AS b, ((i * 7) % 13)::float8 AS c,
       ((i % 7) * 2 + (i % 11) + (i % 3))::float8 AS y
FROM generate_series(1, 500) i;
CREATE TABLE tq_rows AS SELECT a, b, c, y FROM tq_data WHERE a > 1 ORDER BY c, k;

SET client_min_messages = warning;  -- the training NOTICEs

SELECT is(md5(gbdt_train_query('SELECT a, b, c, y FROM tq_data WHERE a > 1 ORDER BY c, k', 'y',
                               params => '{"num_round": 5}')::text),
          md5(gbdt_train('tq_rows', 'y', params => '{"num_round": 5}')::text),
          'the query''s model is the model of its rows stored as a table');
SELECT is(md5(gbdt_train_query('SELECT a, b, c, y FROM tq_data WHERE a > 1 ORDER BY c, k', 'y', ARRAY['a', 'c'],
                               'reg:squarederror', '{"num_round": 4, "max_depth": 2}')::text),
          md5(gbdt_train('tq_rows', 'y', ARRAY['a', 'c'], 'reg:squarederror', '{"num_round": 4, "max_depth": 2}')::text),
          'features, objective and params as gbdt_train');
-- Row sampling draws by row position: the order of the rows shows in the model.
CREATE TABLE tq_desc AS SELECT a, b, c, y FROM tq_data ORDER BY k DESC;
SELECT is(md5(gbdt_train_query('SELECT a, b, c, y FROM tq_data ORDER BY k DESC', 'y',
                               params => '{"num_round": 5, "subsample": 0.5}')::text),
          md5(gbdt_train('tq_desc', 'y', params => '{"num_round": 5, "subsample": 0.5}')::text),
          'the rows are read in the query''s order (as a table stored in that order)');
SELECT isnt(md5(gbdt_train_query('SELECT a, b, c, y FROM tq_data ORDER BY k DESC', 'y',
                                 params => '{"num_round": 5, "subsample": 0.5}')::text),
            md5(gbdt_train_query('SELECT a, b, c, y FROM tq_data ORDER BY k', 'y',
                                 params => '{"num_round": 5, "subsample": 0.5}')::text),
            'another order, another model (with row sampling)');
SELECT is(md5(gbdt_train_query('SELECT a, b, c, y FROM tq_rows', 'y', params => '{"num_round": 3, "exclude": ["b"]}')::text),
          md5(gbdt_train('tq_rows', 'y', ARRAY['a', 'c'], params => '{"num_round": 3}')::text),
          'exclude applies to the query''s columns');
SELECT throws_like($$SELECT gbdt_train_query('DELETE FROM tq_data', 'y')$$,
                   'query must be a single SELECT statement: "DELETE FROM tq_data"', 'not a SELECT');
SELECT throws_like($$SELECT gbdt_train_query('SELECT a, y FROM tq_data; DROP TABLE tq_data', 'y')$$,
                   'query must be a single SELECT statement%', 'two statements');
SELECT throws_like($$SELECT gbdt_train_query('SELECT a, y INTO tq_copy FROM tq_data', 'y')$$,
                   'query must be a single SELECT statement%', 'SELECT INTO');
SELECT throws_like($$SELECT gbdt_train_query('SELECT a, b FROM tq_data', 'y')$$,
                   '%"y"%', 'a query without the target names it');
SELECT throws_like($$SELECT gbdt_train_query('SELECT a, y FROM tq_data WHERE false', 'y')$$,
                   '%has no rows%', 'a query without rows');

-- The caller's rights: a role that cannot read the table cannot train on it.
CREATE ROLE tq_reader;
SET LOCAL ROLE tq_reader;
SELECT throws_like($$SELECT gbdt_train_query('SELECT a, y FROM tq_data', 'y')$$,
                   'permission denied for table tq_data', 'the query runs with the caller''s rights');
RESET ROLE;
SELECT is((SELECT count(*)::int FROM pg_class WHERE relname LIKE 'gbdt\_query\_%'), 0,
          'no query view is left behind');

SELECT * FROM finish();
ROLLBACK;
