-- Scoring is cancelled inside a batch.  A model of 2000
-- chain trees 40 deep (every row walks 80,000 nodes) scoring 65,536 rows
-- runs for many seconds per batch; statement_timeout = 1 s must stop
-- gbdt_evaluate, gbdt_predict_table and row-by-row gbdt_predict promptly
-- (the engine polls the cancel flag between trees and while waiting for
-- its workers).  Margins are wide: the bound is 4 s for a 1 s timeout
-- (before the fix gbdt_evaluate took the whole first batch).
--
-- PL/pgSQL's WHEN OTHERS does not catch query_canceled: helpers catch it
-- by name.
BEGIN;
SELECT plan(9);

\ir ../lib/chain_model.sql

\ir ../lib/timed.sql

CREATE TEMP TABLE t32_model AS SELECT gbdt_import(pg_temp.chain_model(2000, 40)) AS m;
CREATE TEMP TABLE t32_rows AS SELECT i AS id, 0.25::float8 AS a, 1.0::float8 AS y FROM generate_series(1, 65536) i;
SELECT cmp_ok((SELECT abs(gbdt_predict(m, ARRAY[0.25]::float8[]) - 2.5) FROM t32_model), '<', 1e-4::float8,
              'chain model: each of the 2000 trees adds 0.001 at the end of its chain');

SET LOCAL statement_timeout = '1s';
CREATE TEMP TABLE t32_eval AS
SELECT * FROM pg_temp.timed($$SELECT gbdt_evaluate(m, 't32_rows', 'y') FROM t32_model$$);
CREATE TEMP TABLE t32_table AS
SELECT * FROM pg_temp.timed($$SELECT count(*) FROM t32_model, gbdt_predict_table(m, 't32_rows', 'id')$$);
CREATE TEMP TABLE t32_row AS
SELECT * FROM pg_temp.timed($$SELECT sum(gbdt_predict(m, r)) FROM t32_model, t32_rows r$$);
SET LOCAL statement_timeout = 0;

SELECT is(err, 'canceling statement due to statement timeout', 'gbdt_evaluate: statement_timeout error') FROM t32_eval;
SELECT cmp_ok(seconds, '<', 4.0::float8, format('gbdt_evaluate stopped promptly (%s s, timeout 1 s)', round(seconds::numeric, 2)))
FROM t32_eval;
SELECT is(err, 'canceling statement due to statement timeout', 'gbdt_predict_table: statement_timeout error') FROM t32_table;
SELECT cmp_ok(seconds, '<', 4.0::float8, format('gbdt_predict_table stopped promptly (%s s, timeout 1 s)', round(seconds::numeric, 2)))
FROM t32_table;
SELECT is(err, 'canceling statement due to statement timeout', 'gbdt_predict per row: statement_timeout error') FROM t32_row;
SELECT cmp_ok(seconds, '<', 4.0::float8, format('gbdt_predict per row stopped promptly (%s s, timeout 1 s)', round(seconds::numeric, 2)))
FROM t32_row;

-- The session scores normally afterwards (workers of the cancelled calls
-- were joined; the same model still gives the same answer).
SELECT cmp_ok((SELECT abs(gbdt_predict(m, ARRAY[0.25]::float8[]) - 2.5) FROM t32_model), '<', 1e-4::float8,
              'scoring works after the cancels');
CREATE TEMP TABLE t32_few AS SELECT * FROM t32_rows WHERE id <= 300;
SELECT is((SELECT count(*)::int FROM t32_model, gbdt_predict_table(m, 't32_few', 'id') p WHERE abs(p.prediction - 2.5) < 1e-4), 300,
          'gbdt_predict_table works after the cancels');

SELECT * FROM finish();
ROLLBACK;
