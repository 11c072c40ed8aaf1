-- Cancellation: statement_timeout stops a training that would run for many
-- minutes (table cancel_big, 300k rows x 28 features, created by
-- scripts/test.sh), promptly and with the standard error.  The 20-times loop
-- watching backend memory is a separate step of scripts/test.sh.
--
-- pgTAP's throws_* cannot be used: PL/pgSQL's WHEN OTHERS does not catch
-- query_canceled, so a helper catches it by name.
BEGIN;
SELECT plan(8);

CREATE FUNCTION pg_temp.timed_train(params jsonb, OUT err text, OUT state text, OUT seconds float8)
LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  PERFORM gbdt_train('cancel_big', 'label', NULL, 'binary:logistic', params);
  err := 'no error';
  seconds := extract(epoch FROM clock_timestamp() - t0);
EXCEPTION WHEN query_canceled THEN
  GET STACKED DIAGNOSTICS err = MESSAGE_TEXT, state = RETURNED_SQLSTATE;
  seconds := extract(epoch FROM clock_timestamp() - t0);
END $$;

SELECT is((SELECT count(*)::int FROM cancel_big), 300000, 'cancel_big is loaded');

SET LOCAL statement_timeout = '1s';
CREATE TEMP TABLE c1 AS SELECT * FROM pg_temp.timed_train('{"num_round": 100000, "max_depth": 8}');
SET LOCAL statement_timeout = 0;
SELECT is(err, 'canceling statement due to statement timeout', 'statement_timeout cancels the training') FROM c1;
SELECT is(state, '57014', 'SQLSTATE query_canceled') FROM c1;
SELECT cmp_ok(seconds, '<', 3.0::float8, format('cancelled promptly (%s s with a 1 s timeout, load included)', round(seconds::numeric, 2))) FROM c1;

-- Multi-threaded and multiclass trainings are cancelled as well.
SET LOCAL statement_timeout = '1500ms';
CREATE TEMP TABLE c2 AS SELECT * FROM pg_temp.timed_train('{"num_round": 100000, "nthread": 7, "max_depth": 10}');
SET LOCAL statement_timeout = 0;
SELECT is(err, 'canceling statement due to statement timeout', 'nthread 7: cancelled') FROM c2;
SELECT cmp_ok(seconds, '<', 3.5::float8, format('nthread 7: cancelled promptly (%s s)', round(seconds::numeric, 2))) FROM c2;

-- The session is usable afterwards: a small training works.
SELECT lives_ok($$SELECT gbdt_train('higgs_train', 'label', NULL, NULL, '{"num_round": 2}')$$, 'training works after a cancel');
SELECT is(gbdt_model_info(gbdt_train('higgs_train', 'label', NULL, NULL, '{"num_round": 3}'))->>'rounds', '3',
          'and completes normally');

SELECT * FROM finish();
ROLLBACK;
