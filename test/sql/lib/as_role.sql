-- Included by pgTAP files (\ir ../lib/as_role.sql).
-- Runs sql as role r; the outcome ('ok: <result>' or 'SQLSTATE: message')
-- is kept in the setting gbdt_test.outcome.
CREATE FUNCTION pg_temp.as_role(r text, sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('gbdt_test.sql', sql, true);
  EXECUTE format('SET LOCAL ROLE %I', r);
  DO $do$
  DECLARE r text;
  BEGIN
    EXECUTE current_setting('gbdt_test.sql') INTO r;
    PERFORM set_config('gbdt_test.outcome', 'ok: ' || r, true);
  EXCEPTION WHEN OTHERS THEN
    PERFORM set_config('gbdt_test.outcome', SQLSTATE || ': ' || SQLERRM, true);
  END $do$;
  RESET ROLE;
  RETURN current_setting('gbdt_test.outcome');
END $$;
