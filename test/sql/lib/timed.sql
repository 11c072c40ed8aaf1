-- Included by pgTAP files (\ir ../lib/timed.sql): runs q and returns the
-- cancel/timeout message it ended with ('no error' if none) and its seconds.
CREATE FUNCTION pg_temp.timed(q text, OUT err text, OUT seconds float8) LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE q;
  err := 'no error';
  seconds := extract(epoch FROM clock_timestamp() - t0);
EXCEPTION WHEN query_canceled THEN
  GET STACKED DIAGNOSTICS err = MESSAGE_TEXT;
  seconds := extract(epoch FROM clock_timestamp() - t0);
END $$;
