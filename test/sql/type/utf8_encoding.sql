-- Strings inside a model are UTF-8 whatever the database encoding (the
-- model validator requires valid UTF-8): a LATIN1 database with a
-- non-ASCII column name trains a model that loads, scores by that name and
-- shows the name in the database's encoding.  Runs in a database of its own
-- (CREATE DATABASE cannot run inside a transaction block).
SET client_min_messages = warning;
DROP DATABASE IF EXISTS gbdt_latin1;
CREATE DATABASE gbdt_latin1 ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C';
\c gbdt_latin1
SET client_encoding = 'UTF8';
SET client_min_messages = warning;
CREATE EXTENSION pgtap;
CREATE EXTENSION gbdt;
SELECT plan(7);

CREATE TABLE t39 AS SELECT i AS id, sin(i) AS "größe", cos(i * 0.3) AS "maß", (i % 2) AS y
FROM generate_series(1, 300) i;
CREATE TABLE m39 AS
SELECT gbdt_train('t39', 'y', ARRAY['größe', 'maß'], 'binary:logistic', '{"num_round": 3}') AS m;

SELECT lives_ok($$SELECT m::text::gbdt_model FROM m39$$,
                'a model with non-ASCII names trained in a LATIN1 database loads');
SELECT is((SELECT count(*) FROM t39, m39 WHERE gbdt_predict(m39.m, t39) BETWEEN 0 AND 1), 300::bigint,
          'rows are scored by the non-ASCII column names');
SELECT is((SELECT count(*) FROM gbdt_predict_table((SELECT m FROM m39), 't39', 'id')), 300::bigint,
          'gbdt_predict_table finds the non-ASCII columns');
SELECT is((SELECT array_agg(feature ORDER BY feature) FROM gbdt_feature_importance((SELECT m FROM m39))),
          ARRAY['größe', 'maß'], 'feature_importance shows the names in the database encoding');
SELECT is((SELECT gbdt_model_info(m)->'features'->0->>'name' FROM m39), 'größe',
          'gbdt_model_info shows the name in the database encoding');
SELECT is((SELECT gbdt_export(m)->'learner'->'feature_names'->>0 FROM m39), 'größe',
          'gbdt_export writes the name');

SELECT is((SELECT array_agg(e.feature ORDER BY e.feature) FROM t39, m39, gbdt_explain(m39.m, t39) e
           WHERE t39.id = 1 AND e.feature <> 'bias'),
          ARRAY['größe', 'maß'], 'gbdt_explain shows the names in the database encoding');

SELECT * FROM finish();
\c gbdt_test
DROP DATABASE gbdt_latin1;
