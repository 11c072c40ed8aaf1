-- Included by pgTAP files (\ir ../lib/psql_lines.sql) that check what a second
-- session prints: pg_temp.psql_lines(cmds...) runs psql (superuser: COPY FROM PROGRAM).
CREATE TEMP TABLE psql_out (n serial, line text);
-- Output lines (stdout and stderr, in order) of psql running cmds, each as
-- one -c, in a new session of this database.
CREATE FUNCTION pg_temp.psql_lines(VARIADIC cmds text[])
RETURNS TABLE(n int, line text) LANGUAGE plpgsql AS $$
DECLARE
  cmd text;
  c text;
BEGIN
  cmd := format('%s/psql -X -q -At -h %s -p %s -d %s',
                (SELECT setting FROM pg_config WHERE name = 'BINDIR'),
                split_part(current_setting('unix_socket_directories'), ',', 1),
                current_setting('port'), current_database());
  FOREACH c IN ARRAY cmds LOOP
    cmd := cmd || ' -c ''' || replace(c, '''', '''\''''') || '''';
  END LOOP;
  TRUNCATE psql_out;
  EXECUTE format($q$COPY psql_out (line) FROM PROGRAM %L WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02')$q$,
                 cmd || ' 2>&1; true');
  RETURN QUERY SELECT o.n, o.line FROM psql_out o ORDER BY o.n;
END $$;
