-- Included by pgTAP files (\ir ../lib/as_role_value.sql).
-- pg_temp.as_role_val(r, sql): runs sql (a query returning one value) as
-- role r and returns that value as text; an error propagates (so throws_ok
-- sees it), and the subtransaction around it rolls the role back.
CREATE FUNCTION pg_temp.as_role_val(r text, q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE v text;
BEGIN
  PERFORM set_config('role', r, true);
  EXECUTE q INTO v;
  PERFORM set_config('role', 'none', true);
  RETURN v;
END $$;
