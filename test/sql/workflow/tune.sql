-- gbdt_tune: grids, draws from lists and ranges with the seed, each score
-- exactly gbdt_cv's mean test metric at the trial's best round, a better
-- depth ranked first, the bad searches (each an error naming the value,
-- nothing left behind), and cancel within about a second.
BEGIN;
SELECT plan(21);

-- y depends on an interaction of a and b: depth 1 (stumps) cannot fit it.
CREATE TABLE tu_data AS
SELECT i - 1 AS o, (i % 7)::float8 AS a, (i % 11)::float8 AS b, ((i * 7) % 13)::float8 AS c,
       (CASE WHEN i % 7 > 3 AND i % 11 > 5 THEN 10 ELSE 0 END + (i % 3))::float8 AS y
FROM generate_series(1, 600) i;

SET client_min_messages = warning;  -- the training NOTICEs

CREATE TEMP TABLE tu AS
SELECT * FROM gbdt_tune('tu_data', 'y', ARRAY['a', 'b', 'c'], NULL, '{"num_round": 15, "eta": 0.3}',
                        '{"max_depth": [1, 4], "min_child_weight": [1, 3]}');
SELECT is((SELECT count(*)::int FROM tu), 4, 'the whole grid: 2 x 2 trials');
SELECT is((SELECT array_agg(trial ORDER BY trial) FROM tu), ARRAY[1, 2, 3, 4], 'trials numbered from 1');
SELECT is((SELECT (params->>'max_depth')::int FROM tu ORDER BY score LIMIT 1), 4, 'the better depth ranks first');
SELECT is((SELECT params FROM tu WHERE trial = 1),
          '{"num_round": 15, "eta": 0.3, "max_depth": 1, "min_child_weight": 1}'::jsonb,
          'a trial''s params: the call''s with the trial''s values');
SELECT is((SELECT DISTINCT metric FROM tu), 'rmse', 'the objective''s metric');
SELECT is((SELECT count(*)::int FROM tu t,
                  LATERAL (SELECT * FROM gbdt_cv('tu_data', 'y', ARRAY['a', 'b', 'c'], NULL, t.params, nfold => 3)
                           ORDER BY test_mean, round LIMIT 1) c
           WHERE c.test_mean = t.score AND c.test_std = t.score_std AND c.round = t.rounds), 4,
          'each score is exactly gbdt_cv''s test mean at its best round (and its std and round)');

-- ---- draws ----
CREATE TEMP TABLE dr AS
SELECT 1 AS run, * FROM gbdt_tune('tu_data', 'y', ARRAY['a', 'b'], NULL, '{"num_round": 3}',
                                  '{"max_depth": [1, 2, 3], "eta": [0.1, 0.3]}', trials => 4, seed => 5)
UNION ALL
SELECT 2, * FROM gbdt_tune('tu_data', 'y', ARRAY['a', 'b'], NULL, '{"num_round": 3}',
                           '{"max_depth": [1, 2, 3], "eta": [0.1, 0.3]}', trials => 4, seed => 5);
SELECT is((SELECT count(DISTINCT params)::int FROM dr WHERE run = 1), 4, 'trials => 4 draws 4 distinct grid points');
SELECT is((SELECT array_agg(params ORDER BY trial) FROM dr WHERE run = 1),
          (SELECT array_agg(params ORDER BY trial) FROM dr WHERE run = 2), 'the same seed draws the same trials');
CREATE TEMP TABLE rg AS
SELECT * FROM gbdt_tune('tu_data', 'y', ARRAY['a', 'b'], NULL, '{"num_round": 3}',
                        '{"eta": {"min": 0.05, "max": 0.5, "log": true}, "max_depth": {"min": 2, "max": 5, "int": true}}',
                        trials => 5, seed => 1);
SELECT ok((SELECT bool_and((params->>'eta')::float8 BETWEEN 0.05 AND 0.5) FROM rg), 'range draws lie in [min, max]');
SELECT ok((SELECT bool_and(params->>'max_depth' ~ '^[2-5]$') FROM rg), '"int": integer draws');

-- ---- bad searches ----
SELECT throws_like($$SELECT * FROM gbdt_tune('tu_data', 'y', search => '{}')$$,
                   'search names no parameter%', 'an empty search');
SELECT throws_like($$SELECT * FROM gbdt_tune('tu_data', 'y', search => '{"foo": [1, 2]}')$$,
                   'unknown parameter "foo"%', 'a parameter that does not exist');
SELECT throws_like($$SELECT * FROM gbdt_tune('tu_data', 'y', search => '{"max_depth": [2, -1]}')$$,
                   '%max_depth%', 'an out-of-range value names the parameter');
SELECT throws_like($$SELECT * FROM gbdt_tune('tu_data', 'y', search => '{"max_bin": [16, 64]}')$$,
                   'search: parameter "max_bin" cannot be searched%', 'a parameter of the load');
SELECT throws_like($$SELECT * FROM gbdt_tune('tu_data', 'y', search => '{"eta": {"min": 0.1, "max": 0.3}}')$$,
                   'search has a range of values: pass trials%', 'a range without trials');
SELECT throws_like($$SELECT * FROM gbdt_tune('tu_data', 'y', search => '{"eta": {"min": 0.3, "max": 0.1}}', trials => 2)$$,
                   'search: the range of parameter "eta" [0.3, 0.1] is not valid%', 'min > max');
SELECT throws_like($$SELECT * FROM gbdt_tune('tu_data', 'y', search => '{"eta": []}')$$,
                   'search: parameter "eta" lists no values', 'an empty list');
SELECT throws_like($$SELECT * FROM gbdt_tune('tu_data', 'y', search => '{"max_depth": [1, 2]}', trials => 0)$$,
                   'trials = 0 is out of range%', 'trials 0');
SELECT ok(gbdt_train('tu_data', 'y', ARRAY['a'], params => '{"num_round": 2}') IS NOT NULL,
          'gbdt_train after failed gbdt_tune calls trains a model');

-- ---- cancel: statement_timeout stops a long search within about a second ----
CREATE FUNCTION pg_temp.timed_tune(OUT err text, OUT seconds float8) LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  PERFORM * FROM gbdt_tune('tu_data', 'y', ARRAY['a', 'b', 'c'], NULL, '{"num_round": 100000, "eta": 0.01}',
                           '{"max_depth": [6, 8]}');
  err := 'no error';
  seconds := extract(epoch FROM clock_timestamp() - t0);
EXCEPTION WHEN query_canceled THEN
  GET STACKED DIAGNOSTICS err = MESSAGE_TEXT;
  seconds := extract(epoch FROM clock_timestamp() - t0);
END $$;
SET LOCAL statement_timeout = '1s';
CREATE TEMP TABLE ct AS SELECT * FROM pg_temp.timed_tune();
SET LOCAL statement_timeout = 0;
SELECT is(err, 'canceling statement due to statement timeout', 'statement_timeout cancels gbdt_tune') FROM ct;
SELECT cmp_ok(seconds, '<', 2.0::float8, format('cancelled within ~1 s of the timeout (%s s with a 1 s timeout)',
                                                round(seconds::numeric, 2))) FROM ct;

SELECT * FROM finish();
ROLLBACK;
