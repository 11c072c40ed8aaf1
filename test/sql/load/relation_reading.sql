-- gbdt_train, gbdt_evaluate and gbdt_predict_table read what
-- SELECT * FROM <relation> reads, with the rights SELECT needs
-- (extension/pg/relation_reader.cpp):
--  * a table with inheritance children: its rows and every child's (the
--    direct heap scan read only the parent's own rows);
--  * a partitioned table: every partition's rows;
--  * a table in a schema without USAGE: refused as SELECT refuses it (a
--    regclass given by OID skipped the schema lookup);
--  * a relation OID that names nothing (0, dropped): undefined table, not an
--    internal error.
BEGIN;
SELECT plan(21);

CREATE SCHEMA c32;
CREATE TABLE c32.parent (id int, x float8, y float8);
CREATE TABLE c32.kid () INHERITS (c32.parent);
CREATE TABLE c32.grandkid () INHERITS (c32.kid);
INSERT INTO c32.parent SELECT i, sin(i), sin(i) * 2 FROM generate_series(1, 100) i;
INSERT INTO c32.kid SELECT i, sin(i), sin(i) * 2 FROM generate_series(101, 4000) i;
INSERT INTO c32.grandkid SELECT i, sin(i), sin(i) * 2 FROM generate_series(4001, 5000) i;
-- ANALYZE so the planner estimate (reltuples) is set as in production.
ANALYZE c32.parent;

SELECT is((SELECT count(*)::int FROM c32.parent), 5000, 'SELECT reads 5000 rows of the hierarchy');
SELECT is((SELECT count(*)::int FROM ONLY c32.parent), 100, 'of which 100 are the parent''s own');

CREATE TEMP TABLE m32 AS
SELECT gbdt_train('c32.parent', 'y', ARRAY['x'], 'reg:squarederror', '{"num_round": 3}') AS m;
SELECT is((gbdt_model_info(m)->>'rows_used')::int, 5000,
          'gbdt_train uses the rows of the inheritance children') FROM m32;
SELECT is((gbdt_evaluate(m, 'c32.parent', 'y')->>'rows')::int, 5000,
          'gbdt_evaluate scores the rows of the inheritance children') FROM m32;
SELECT is((SELECT count(*)::int FROM m32, gbdt_predict_table(m, 'c32.parent', 'id')), 5000,
          'gbdt_predict_table returns the rows of the inheritance children');
SELECT is((SELECT count(DISTINCT key)::int FROM m32, gbdt_predict_table(m, 'c32.parent', 'id')
           WHERE key::int > 4000), 1000,
          'gbdt_predict_table returns the grandchild''s rows');
-- The same model as training on the rows through a view (the query path).
CREATE TEMP VIEW v32 AS SELECT * FROM c32.parent;
SELECT is(gbdt_train('v32', 'y', ARRAY['x'], 'reg:squarederror', '{"num_round": 3}')::text,
          m::text, 'same model bytes as training through SELECT * FROM parent') FROM m32;

-- Partitioned table: every partition.
CREATE TABLE c32.part (id int, x float8, y float8) PARTITION BY RANGE (id);
CREATE TABLE c32.part_a PARTITION OF c32.part FOR VALUES FROM (1) TO (1001);
CREATE TABLE c32.part_b PARTITION OF c32.part FOR VALUES FROM (1001) TO (3001);
INSERT INTO c32.part SELECT i, cos(i), cos(i) * 3 FROM generate_series(1, 3000) i;
CREATE TEMP TABLE p32 AS
SELECT gbdt_train('c32.part', 'y', ARRAY['x'], 'reg:squarederror', '{"num_round": 3}') AS m;
SELECT is((gbdt_model_info(m)->>'rows_used')::int, 3000,
          'gbdt_train uses every partition') FROM p32;
SELECT is((gbdt_evaluate(m, 'c32.part', 'y')->>'rows')::int, 3000,
          'gbdt_evaluate scores every partition') FROM p32;
SELECT is((SELECT count(*)::int FROM p32, gbdt_predict_table(m, 'c32.part', 'id')), 3000,
          'gbdt_predict_table returns every partition''s rows');

-- Schema USAGE: a role with SELECT on the table but no USAGE on its schema.
CREATE ROLE c32_role NOLOGIN;
CREATE SCHEMA c32_priv;
CREATE TABLE c32_priv.t AS SELECT i AS id, sin(i) AS x, sin(i) * 2 AS y FROM generate_series(1, 500) i;
GRANT SELECT ON c32_priv.t TO c32_role;
GRANT SELECT ON m32 TO c32_role;
SELECT 'c32_priv.t'::regclass::oid AS priv_oid \gset

\ir ../lib/as_role.sql

SELECT is(pg_temp.as_role('c32_role', format('SELECT count(*) FROM %s', 'c32_priv.t')),
          '42501: permission denied for schema c32_priv', 'SELECT is refused without USAGE (reference)');
SELECT is(pg_temp.as_role('c32_role', format($q$SELECT gbdt_train(%s::oid::regclass, 'y', ARRAY['x'], 'reg:squarederror', '{"num_round": 2}')::text$q$, :priv_oid)),
          '42501: permission denied for schema c32_priv', 'gbdt_train is refused without USAGE on the schema');
SELECT is(pg_temp.as_role('c32_role', format($q$SELECT gbdt_evaluate((SELECT m FROM m32), %s::oid::regclass, 'y')::text$q$, :priv_oid)),
          '42501: permission denied for schema c32_priv', 'gbdt_evaluate is refused without USAGE on the schema');
SELECT is(pg_temp.as_role('c32_role', format($q$SELECT count(*)::text FROM gbdt_predict_table((SELECT m FROM m32), %s::oid::regclass, 'id')$q$, :priv_oid)),
          '42501: permission denied for schema c32_priv', 'gbdt_predict_table is refused without USAGE on the schema');
GRANT USAGE ON SCHEMA c32_priv TO c32_role;
SELECT is(pg_temp.as_role('c32_role', format($q$SELECT gbdt_model_info(gbdt_train(%s::oid::regclass, 'y', ARRAY['x'], 'reg:squarederror', '{"num_round": 2}'))->>'rows_used'$q$, :priv_oid)),
          'ok: 500', 'with USAGE granted the same role trains');
SELECT is(pg_temp.as_role('c32_role', format($q$SELECT count(*)::text FROM gbdt_predict_table((SELECT m FROM m32), %s::oid::regclass, 'id')$q$, :priv_oid)),
          'ok: 500', 'with USAGE granted the same role scores the table');
REVOKE SELECT ON c32_priv.t FROM c32_role;
SELECT is(pg_temp.as_role('c32_role', format($q$SELECT gbdt_train(%s::oid::regclass, 'y')::text$q$, :priv_oid)),
          '42501: permission denied for table t', 'with USAGE but without SELECT: refused for the table');

-- Relation OIDs naming nothing.
SELECT throws_ok($$SELECT gbdt_train(0, 'y')$$, '42P01', 'relation with OID 0 does not exist',
                 'gbdt_train(0, ...): undefined table');
SELECT throws_ok($$SELECT gbdt_evaluate((SELECT m FROM m32), 0, 'y')$$, '42P01',
                 'relation with OID 0 does not exist', 'gbdt_evaluate(model, 0, ...): undefined table');
SELECT throws_ok($$SELECT * FROM gbdt_predict_table((SELECT m FROM m32), 0, 'id')$$, '42P01',
                 'relation with OID 0 does not exist', 'gbdt_predict_table(model, 0, ...): undefined table');
CREATE TABLE c32.gone (x float8, y float8);
SELECT 'c32.gone'::regclass::oid AS gone_oid \gset
DROP TABLE c32.gone;
SELECT throws_ok(format($q$SELECT gbdt_train(%s, 'y')$q$, :gone_oid), '42P01',
                 format('relation with OID %s does not exist', :gone_oid),
                 'gbdt_train on a dropped relation''s OID: undefined table');

SELECT * FROM finish();
ROLLBACK;
