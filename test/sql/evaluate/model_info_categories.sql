-- gbdt_model_info's "categories": each categorical feature's dictionary,
-- its category values in code order (the order gbdt_trees and scoring
-- use), every value listed and escaped as JSON; no key for a model without
-- categorical features.  And training warns about a text feature that is a
-- copy of a text label (it determines the target).
BEGIN;
SELECT plan(7);

\ir ../lib/psql_lines.sql

CREATE TEMP TABLE mc AS
SELECT i AS id, (i % 7)::float8 AS a, (ARRAY['red', 'green', 'blue'])[1 + i % 3] AS col,
       (ARRAY['it''s', 'back\slash', 'quo"te', 'ünï'])[1 + i % 4] AS odd,
       'v' || (i % 600) AS wide,
       ((i % 7) + (i % 3))::float8 AS y
FROM generate_series(1, 1800) i;
CREATE TEMP TABLE mcm AS
SELECT gbdt_train('mc', 'y', ARRAY['a', 'col', 'odd', 'wide'], 'reg:squarederror', '{"num_round": 2}') AS m,
       gbdt_train('mc', 'y', ARRAY['a'], 'reg:squarederror', '{"num_round": 2}') AS plain;

SELECT is((SELECT gbdt_model_info(m)->'categories'->'col' FROM mcm),
          '["blue", "green", "red"]'::jsonb, 'a text feature''s dictionary, in code order');
SELECT is((SELECT gbdt_model_info(m)->'categories'->'odd' FROM mcm),
          jsonb_build_array('back\slash', 'it''s', 'quo"te', 'ünï'), 'quotes, backslashes and non-ASCII values come back intact');
SELECT is((SELECT jsonb_array_length(gbdt_model_info(m)->'categories'->'wide') FROM mcm),
          600, 'a wide dictionary is listed whole');
SELECT is((SELECT array_agg(k ORDER BY k) FROM mcm, jsonb_object_keys(gbdt_model_info(m)->'categories') k),
          ARRAY['col', 'odd', 'wide'], 'one key per categorical feature, none for a numeric one');
SELECT is((SELECT count(*)::int FROM mcm, jsonb_array_elements(gbdt_model_info(m)->'features') f
           WHERE (f->>'categories')::int IS DISTINCT FROM
                 jsonb_array_length(gbdt_model_info(m)->'categories'->(f->>'name'))),
          0, 'each list has the count the feature''s entry states');
SELECT ok((SELECT NOT (gbdt_model_info(plain) ? 'categories') FROM mcm),
          'a model without categorical features has no "categories" key');

-- A text column that copies a text label: a WARNING names it (a second
-- session prints it).
CREATE TEMP TABLE out_copy AS
SELECT * FROM pg_temp.psql_lines(
  'CREATE TEMP TABLE mc_copy AS SELECT i AS id, (i % 5)::float8 AS a, (ARRAY[''x'', ''y'', ''z''])[1 + i % 3] AS lab, (ARRAY[''x'', ''y'', ''z''])[1 + i % 3] AS lab_copy FROM generate_series(1, 300) i',
  'SELECT 1 FROM (SELECT gbdt_train(''mc_copy'', ''lab'', ARRAY[''a'', ''lab_copy''], ''multi:softprob'', ''{"num_round": 2}'')) s');
SELECT is((SELECT count(*)::int FROM out_copy WHERE line = 'WARNING:  gbdt_train: categorical feature column that determines the target "lab": lab_copy (each of its 3 values has a single target value on all of its 300 rows)'),
          1, 'a text column that copies a text label gets a WARNING naming it');

SELECT * FROM finish();
ROLLBACK;
