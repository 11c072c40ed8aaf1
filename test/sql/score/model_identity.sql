-- The per-call-site cache of decoded models decides
-- identity by all the bytes of the value (or the on-disk TOAST pointer of
-- a stored value, see model_type.cpp), and the output function writes the
-- stored bytes, never a cached model.  A table of tenant models scored in
-- one query gives each row its own model's prediction; model::text of each
-- equals the text it was stored from, in the same query too.
BEGIN;
SELECT plan(7);

CREATE TEMP TABLE t31_data AS
SELECT i AS id, 'tenant' || (i % 4) AS tenant,
       sin(i * 0.37)::float8 AS f0, cos(i * 0.11)::float8 AS f1, ((i * 7919) % 101 / 100.0)::float8 AS f2,
       (sin(i * 0.37) + cos(i * 0.11) > 0.2)::int::float8 AS label
FROM generate_series(1, 2000) i;

-- Four different models (different parameters and rounds), stored as text
-- and as gbdt_model; small ones stay inline, the large one is TOASTed.
CREATE TEMP TABLE t31_tenants (name text PRIMARY KEY, txt text, m gbdt_model);
INSERT INTO t31_tenants (name, txt)
SELECT 'tenant' || k,
       gbdt_train('t31_data', 'label', ARRAY['f0', 'f1', 'f2'], 'binary:logistic',
                  jsonb_build_object('num_round', 2 + 3 * k + 60 * (k / 3), 'max_depth', 2 + k, 'eta', 0.1 + 0.1 * k))::text
FROM generate_series(0, 3) k;
UPDATE t31_tenants SET m = txt::gbdt_model;

SELECT is((SELECT count(DISTINCT txt)::int FROM t31_tenants), 4, 'four different tenant models');
SELECT cmp_ok((SELECT max(pg_column_size(m)) FROM t31_tenants), '>', 2000,
              'one model is large enough to be TOASTed');

-- Each model alone (one model per query: the cache holds only it).
CREATE TEMP TABLE t31_alone (tenant text, id int, p float8);
DO $$
DECLARE t record;
BEGIN
  FOR t IN SELECT name FROM t31_tenants LOOP
    INSERT INTO t31_alone
    SELECT d.tenant, d.id, gbdt_predict((SELECT m FROM t31_tenants WHERE name = t.name), d)
    FROM t31_data d WHERE d.tenant = t.name;
  END LOOP;
END $$;

-- All tenants in one query, rows interleaving the models (a nested loop over
-- the data in id order switches model at every row).
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off;
CREATE TEMP TABLE t31_joined AS
SELECT d.tenant, d.id, gbdt_predict(t.m, d) AS p
FROM t31_data d JOIN t31_tenants t ON t.name = d.tenant ORDER BY d.id;
SELECT is((SELECT count(*)::int FROM t31_joined), 2000, 'every row scored');
SELECT is_empty($$SELECT tenant, id, p FROM t31_joined EXCEPT SELECT tenant, id, p FROM t31_alone$$,
                'one query over tenant models: every row gets its own model''s prediction');

-- Same with the models inline in memory (not TOAST pointers): the cache
-- compares bytes.
SELECT is_empty($$SELECT d.tenant, d.id, gbdt_predict(t.txt::gbdt_model, d)
                  FROM t31_data d JOIN t31_tenants t ON t.name = d.tenant
                  EXCEPT SELECT tenant, id, p FROM t31_alone$$,
                'models cast from text per row: every row gets its own model''s prediction');

-- Output writes the stored bytes: model::text of each is its stored text,
-- also when all are written by one call site, and after the models were
-- decoded by scoring in the same query.
SELECT is_empty($$SELECT name FROM t31_tenants WHERE m::text IS DISTINCT FROM txt$$,
                'model::text of each tenant model equals its stored text');
SELECT is_empty($$SELECT t.name FROM t31_data d JOIN t31_tenants t ON t.name = d.tenant
                  WHERE gbdt_predict(t.m, d) IS NOT NULL AND t.m::text IS DISTINCT FROM t.txt$$,
                'model::text interleaved with scoring in one query equals the stored text');

SELECT * FROM finish();
ROLLBACK;
