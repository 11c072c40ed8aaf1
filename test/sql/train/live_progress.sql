-- gbdt.log_progress NOTICEs leave the server as the rounds finish, not when
-- the training ends: a training stopped by statement_timeout has sent the
-- NOTICEs of its finished rounds before its error (they used to be
-- collected and lost with the error).  NOTICEs are not visible in SQL, so a
-- second psql session (COPY FROM PROGRAM, superuser) runs the training and
-- its output is checked line by line, in order.
BEGIN;
SELECT plan(6);

\ir ../lib/psql_lines.sql

CREATE TEMP TABLE out33 AS
SELECT * FROM pg_temp.psql_lines(
  'CREATE TEMP TABLE p AS SELECT i AS id, sin(i) AS x1, cos(i) AS x2, sin(i * 0.3) AS x3, cos(i * 0.7) AS x4, (i % 7)::float8 AS x5, sin(i) + cos(i * 0.7) * (i % 7) AS y FROM generate_series(1, 20000) i',
  'SET gbdt.log_progress = on',
  'SET statement_timeout = ''3s''',
  'SELECT length(gbdt_train(''p'', ''y'', NULL, ''reg:squarederror'', ''{"num_round": 100000, "max_depth": 6}'')::text)');

SELECT cmp_ok((SELECT count(*)::int FROM out33 WHERE line LIKE '%NOTICE:  round 1 of 100000'), '=', 1,
              'the first round''s progress NOTICE was sent');
SELECT cmp_ok((SELECT count(*)::int FROM out33 WHERE line LIKE '%NOTICE:  round % of 100000'), '>=', 2,
              'NOTICEs of several finished rounds were sent');
SELECT is((SELECT count(*)::int FROM out33 WHERE line LIKE '%ERROR:  canceling statement due to statement timeout'), 1,
          'the training was stopped by statement_timeout');
SELECT cmp_ok((SELECT max(n) FROM out33 WHERE line LIKE '%NOTICE:  round %'), '<',
              (SELECT min(n) FROM out33 WHERE line LIKE '%ERROR:%'),
              'the progress NOTICEs came before the error');

-- With validation: a NOTICE per round, then the error.
CREATE TEMP TABLE out33v AS
SELECT * FROM pg_temp.psql_lines(
  'CREATE TEMP TABLE p AS SELECT i AS id, sin(i) AS x1, cos(i) AS x2, sin(i) + cos(i * 0.7) AS y FROM generate_series(1, 20000) i',
  'SET gbdt.log_progress = on',
  'SET statement_timeout = ''2s''',
  'SELECT length(gbdt_train(''p'', ''y'', NULL, ''reg:squarederror'', ''{"num_round": 100000, "max_depth": 8, "validation_fraction": 0.2}'')::text)');
SELECT cmp_ok((SELECT count(*)::int FROM out33v WHERE line LIKE '%NOTICE:  round % of 100000: validation rmse = %'), '>=', 2,
              'validation progress NOTICEs of finished rounds were sent');
SELECT cmp_ok((SELECT max(n) FROM out33v WHERE line LIKE '%NOTICE:  round %'), '<',
              (SELECT min(n) FROM out33v WHERE line LIKE '%ERROR:  canceling statement due to statement timeout'),
              'then the statement_timeout error');

SELECT * FROM finish();
ROLLBACK;
