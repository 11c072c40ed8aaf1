-- The model bytes do not depend on the PostgreSQL major the extension runs
-- on: four fixed trainings on the suite's tables (loaded by scripts/test.sh:
-- higgs, reg, multi) hash to the values computed on PostgreSQL 15, on every
-- server the suite runs on (15, 16, 18: scripts/test.sh, GBDT_PG).  The
-- engine never sees PostgreSQL; what could differ is the glue reading the
-- rows (tuple layout, numeric conversion, sampling order), compiled against
-- each major's headers and flags.
--
-- A deliberate change of the model bytes changes these hashes too (as it
-- changes test/bench/model_hashes.txt): recompute them on PostgreSQL 15 with
-- the query below and replace the four values.
BEGIN;
SELECT plan(4);
SET LOCAL client_min_messages = warning;

CREATE TEMP TABLE t67 AS
SELECT c.d, md5(gbdt_model_send(gbdt_train(c.rel, 'label', NULL, c.obj, c.p))) AS h
FROM (VALUES ('higgs', 'higgs_train'::regclass, 'binary:logistic',
              '{"num_round": 30, "max_depth": 6, "eta": 0.1, "nthread": 2}'::jsonb),
             ('higgs_sampled', 'higgs_train'::regclass, 'binary:logistic',
              '{"num_round": 20, "subsample": 0.8, "colsample_bytree": 0.8, "seed": 17, "nthread": 2}'::jsonb),
             ('reg', 'reg_train'::regclass, 'reg:squarederror', '{"num_round": 10, "max_depth": 8}'::jsonb),
             ('multi', 'multi_train'::regclass, 'multi:softprob', '{"num_round": 5}'::jsonb)) AS c(d, rel, obj, p);

SELECT is((SELECT h FROM t67 WHERE d = x.d), x.h15,
          format('%s: the model bytes are PostgreSQL 15''s (server %s)', x.d, current_setting('server_version_num')))
FROM (VALUES ('higgs', '9ff3e042494e7edb7b943aae871e397a'),
             ('higgs_sampled', '9059c37601eeb553dab7ba16720a899d'),
             ('reg', 'e2dad0ce21287af4c2bfff10b627ba49'),
             ('multi', 'cf74691f5aab285bfc6d7b4424635077')) AS x(d, h15)
ORDER BY x.d;

SELECT * FROM finish();
ROLLBACK;
