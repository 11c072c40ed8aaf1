-- gbdt_model type: text form, text and binary round trips, corrupt input.
BEGIN;
SELECT plan(19);

CREATE TEMP TABLE t1 AS
SELECT i AS id, sin(i)::float8 AS x1, (i % 7)::int AS x2, (sin(i) * 3 + (i % 7))::float8 AS y
FROM generate_series(1, 300) i;
CREATE TEMP TABLE m AS
SELECT gbdt_train('t1', 'y', ARRAY['x1', 'x2'], NULL, '{"num_round": 5, "max_depth": 3}') AS model;

SELECT has_type('gbdt_model');
SELECT matches((SELECT model::text FROM m), '^gbdt1:[A-Za-z0-9+/]+=*$', 'text form is gbdt1:<base64>');
SELECT is((SELECT model::text::gbdt_model::text FROM m), (SELECT model::text FROM m),
          'text out -> in -> out round trip is identical');
SELECT is((SELECT gbdt_predict(model::text::gbdt_model, ARRAY[0.5, 3]::float8[]) FROM m),
          (SELECT gbdt_predict(model, ARRAY[0.5, 3]::float8[]) FROM m),
          'a model read back from text predicts the same');

-- Stored in a table column and read back.
CREATE TEMP TABLE stored (name text, model gbdt_model);
INSERT INTO stored SELECT 'a', model FROM m;
SELECT is((SELECT s.model::text FROM stored s), (SELECT model::text FROM m), 'table column round trip');

-- Binary send/recv through COPY (FORMAT binary) to a server-side file and back.
SELECT isnt((SELECT typsend FROM pg_type WHERE typname = 'gbdt_model'), 0::regproc, 'type has a send function');
SELECT isnt((SELECT typreceive FROM pg_type WHERE typname = 'gbdt_model'), 0::regproc, 'type has a receive function');
CREATE TEMP TABLE copied (model gbdt_model);
DO $$
DECLARE f text := current_setting('data_directory') || '/gbdt_type_test.copy';
BEGIN
  EXECUTE format('COPY (SELECT model FROM m) TO %L WITH (FORMAT binary)', f);
  EXECUTE format('COPY copied FROM %L WITH (FORMAT binary)', f);
END $$;
SELECT is((SELECT c.model::text FROM copied c), (SELECT model::text FROM m), 'COPY BINARY round trip (send/recv)');
SELECT is((SELECT gbdt_model_info(c.model) FROM copied c), (SELECT gbdt_model_info(model) FROM m),
          'model info identical after COPY BINARY');

-- Corrupt input is an error, never a crash.
SELECT throws_matching($$SELECT 'hello'::gbdt_model$$, 'gbdt', 'garbage text is rejected');
SELECT throws_matching($$SELECT ''::gbdt_model$$, 'gbdt', 'empty text is rejected');
SELECT throws_matching($$SELECT 'gbdt1:'::gbdt_model$$, 'gbdt|corrupt|truncat', 'prefix without payload is rejected');
SELECT throws_matching($$SELECT 'gbdt1:!!!not base64!!!'::gbdt_model$$, 'gbdt|base64|corrupt', 'bad base64 is rejected');
SELECT throws_matching(format('SELECT %L::gbdt_model', left(model::text, length(model::text) - 12)),
                       'gbdt|corrupt|truncat|base64', 'truncated model text is rejected')
FROM m;
SELECT throws_matching(
         format('SELECT %L::gbdt_model',
                overlay(model::text PLACING (CASE WHEN substr(model::text, length(model::text) / 2, 1) = 'A' THEN 'B' ELSE 'A' END)
                        FROM length(model::text) / 2 FOR 1)),
         'gbdt|corrupt|checksum', 'a flipped base64 character is rejected')
FROM m;

-- Every truncation and many single-character changes: each is an error (and
-- the backend survives to run the next one).
CREATE FUNCTION pg_temp.count_rejected(t text, mode text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  n int := 0;
  s text;
  alphabet text := 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  c text;
BEGIN
  -- Dropping only '=' padding or changing the last quantum's unused bits may
  -- decode to the same bytes: those positions are left out.
  FOR i IN 1 .. length(rtrim(t, '=')) - 1 LOOP
    IF mode = 'truncate' THEN
      s := left(t, i);
    ELSE
      CONTINUE WHEN i <= 6 OR i % 3 <> 0 OR i > length(t) - 4;
      c := substr(alphabet, (position(substr(t, i, 1) IN alphabet) + 7) % 64 + 1, 1);
      s := overlay(t PLACING c FROM i FOR 1);
    END IF;
    BEGIN
      PERFORM s::gbdt_model;
    EXCEPTION WHEN others THEN
      n := n + 1;
    END;
  END LOOP;
  RETURN n;
END $$;
SELECT is(pg_temp.count_rejected(model::text, 'truncate'), length(rtrim(model::text, '=')) - 1,
          'every truncation of the text form is rejected') FROM m;
SELECT is(pg_temp.count_rejected(model::text, 'flip'),
          (SELECT count(*)::int FROM generate_series(7, length(model::text) - 4) i WHERE i % 3 = 0),
          'every changed base64 character is rejected') FROM m;
SELECT ok(pg_backend_pid() IS NOT NULL, 'backend still alive');

-- gbdt_model values compare by their text (no implicit casts from text).
SELECT is((SELECT count(*)::int FROM stored WHERE model::text = (SELECT model::text FROM m)), 1, 'compare via text');

SELECT * FROM finish();
ROLLBACK;
