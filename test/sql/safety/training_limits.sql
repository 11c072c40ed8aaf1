-- Limits a superuser sets for the users of a shared server:
--  * gbdt.max_threads (superuser-set, default the CPU count) caps nthread,
--    with a NOTICE, without changing the model;
--  * gbdt.max_memory is superuser-set (per user: ALTER ROLE ... SET) and
--    bounds the whole training: estimated before it starts (histograms per
--    level, per thread and per class included), enforced while the trees grow;
--  * class counts that cannot be trained are clear parameter errors.
BEGIN;
SELECT plan(17);

\ir ../lib/psql_lines.sql

CREATE ROLE c35_role NOLOGIN;
\ir ../lib/as_role.sql

CREATE TABLE c35 AS
SELECT i AS id, sin(i) AS x1, cos(i * 0.7) AS x2, (i % 5)::float8 AS x3,
       sin(i) + cos(i * 0.7) AS y, (i % 3) AS y3, (i % 3) * 1000000 AS y_huge, (i % 3) * 10000 AS y_10000,
       (i % 3000) AS y_many
FROM generate_series(1, 3000) i;
GRANT SELECT ON c35 TO c35_role;

-- ---- gbdt.max_threads ----
LOAD 'gbdt';  -- defines the GUCs in this session
SELECT is((SELECT context FROM pg_settings WHERE name = 'gbdt.max_threads'), 'superuser',
          'gbdt.max_threads is superuser-set');
SELECT is(current_setting('gbdt.max_threads')::int, (gbdt_build_info()->>'nthread_default')::int,
          'gbdt.max_threads defaults to the number of CPU cores');
SELECT is(pg_temp.as_role('c35_role', $$SELECT set_config('gbdt.max_threads', '1024', false)$$),
          '42501: permission denied to set parameter "gbdt.max_threads"',
          'a user cannot raise gbdt.max_threads');
CREATE TEMP TABLE out35t AS
SELECT * FROM pg_temp.psql_lines(
  'CREATE TEMP TABLE c35 AS SELECT i AS id, sin(i) AS x1, cos(i * 0.7) AS x2, sin(i) + cos(i * 0.7) AS y FROM generate_series(1, 3000) i',
  'SET gbdt.max_threads = 2',
  'SELECT md5(gbdt_train(''c35'', ''y'', ARRAY[''x1'', ''x2''], ''reg:squarederror'', ''{"num_round": 3, "nthread": 1024}'')::text)',
  'SELECT md5(gbdt_train(''c35'', ''y'', ARRAY[''x1'', ''x2''], ''reg:squarederror'', ''{"num_round": 3, "nthread": 1}'')::text)');
SELECT is((SELECT count(*)::int FROM out35t
           WHERE line LIKE '%NOTICE:  nthread = 1024 is more than gbdt.max_threads = 2: using 2 threads'), 1,
          'nthread above gbdt.max_threads is lowered with a NOTICE');
SELECT is((SELECT count(DISTINCT line)::int FROM out35t WHERE line ~ '^[0-9a-f]{32}$'), 1,
          'the capped training gives the model of nthread 1 (same bytes)');

-- ---- gbdt.max_memory: who may set it ----
SELECT is((SELECT context FROM pg_settings WHERE name = 'gbdt.max_memory'), 'superuser',
          'gbdt.max_memory is superuser-set');
SELECT is(pg_temp.as_role('c35_role', $$SELECT set_config('gbdt.max_memory', '100GB', false)$$),
          '42501: permission denied to set parameter "gbdt.max_memory"',
          'a user cannot raise gbdt.max_memory');
ALTER ROLE c35_role SET gbdt.max_memory = '64MB';
SELECT is((SELECT setconfig FROM pg_db_role_setting WHERE setrole = 'c35_role'::regrole),
          ARRAY['gbdt.max_memory=64MB'], 'a superuser sets a per-user cap with ALTER ROLE ... SET');
ALTER ROLE c35_role RESET gbdt.max_memory;
SELECT matches((SELECT extra_desc FROM pg_settings WHERE name = 'gbdt.max_memory'), 'ALTER ROLE',
               'the GUC''s description tells how to cap one user');

-- ---- gbdt.max_memory: what it bounds ----
SELECT setseed(0.35);
CREATE TABLE c35w AS
SELECT random() * 10 AS y, a[1] AS f1, a[2] AS f2, a[3] AS f3, a[4] AS f4, a[5] AS f5,
       a[6] AS f6, a[7] AS f7, a[8] AS f8, a[9] AS f9, a[10] AS f10, a[11] AS f11, a[12] AS f12,
       a[13] AS f13, a[14] AS f14, a[15] AS f15, a[16] AS f16, a[17] AS f17, a[18] AS f18,
       a[19] AS f19, a[20] AS f20, a[21] AS f21, a[22] AS f22, a[23] AS f23, a[24] AS f24,
       a[25] AS f25, a[26] AS f26, a[27] AS f27, a[28] AS f28, a[29] AS f29, a[30] AS f30,
       a[31] AS f31, a[32] AS f32, a[33] AS f33, a[34] AS f34, a[35] AS f35, a[36] AS f36,
       a[37] AS f37, a[38] AS f38, a[39] AS f39, a[40] AS f40
FROM (SELECT i, ARRAY(SELECT random() FROM generate_series(1, 40) WHERE i > 0) AS a
      FROM generate_series(1, 20000) i) s;
SET LOCAL gbdt.max_memory = '16MB';
-- Deep trees on noise: the histograms of the levels (40 features x 257
-- bins x 16 bytes each) outgrow 16 MB long before depth 16.
SELECT throws_like($$SELECT gbdt_train('c35w', 'y', NULL, 'reg:squarederror', '{"num_round": 1, "max_depth": 16}')$$,
                   'gbdt training needs more memory than gbdt.max_memory = 16 MB: histogram % (tree depth %) %; lower max_depth (now 16)%',
                   'histograms growing with the tree depth are stopped at gbdt.max_memory, naming max_depth');
SELECT throws_ok($$SELECT gbdt_train('c35w', 'y', NULL, 'reg:squarederror', '{"num_round": 1, "max_depth": 16}')$$,
                 '54000', NULL, 'as a program limit error');
SELECT lives_ok($$SELECT gbdt_train('c35w', 'y', NULL, 'reg:squarederror', '{"num_round": 2, "max_depth": 4}')$$,
                'shallow trees fit in the same limit');
-- Margins and gradients grow as rows x classes: refused before the load.
SELECT throws_like($$SELECT gbdt_train('c35', 'y3', ARRAY['x1'], 'multi:softprob', '{"num_round": 1, "num_class": 2000}')$$,
                   'gbdt training needs an estimated % of memory (3000 rows x 1 features x 2000 classes), more than gbdt.max_memory = 16 MB',
                   'rows x classes beyond gbdt.max_memory: refused before training, with the estimate');
-- Inferred classes (unknown before the load): the engine's budget refuses.
SELECT throws_ok($$SELECT gbdt_train('c35', 'y_many', ARRAY['x1'], 'multi:softprob', '{"num_round": 1}')$$,
                 '54000', 'gbdt training needs more memory than gbdt.max_memory = 16 MB: the binned data, gradients and margins of 3000 rows x 1 features x 3000 output groups (275 MB) brings it to 275 MB; train on a sample of the rows, fewer features or fewer classes',
                 'classes inferred from the labels: the engine refuses before allocating');
RESET gbdt.max_memory;

-- ---- class counts ----
-- The classes are the distinct label values: large label values
-- are 3 classes, not a million; more distinct values than the limit is the error.
SELECT is(gbdt_model_info(gbdt_train('c35', 'y_huge', ARRAY['x1'], 'multi:softprob', '{"num_round": 1}'))->'classes',
          '[0, 1000000, 2000000]'::jsonb, 'class labels in the millions: 3 classes with their values');
CREATE TEMP TABLE c35k AS SELECT i AS y, i::float8 AS x1 FROM generate_series(0, 10000) i;
SELECT throws_ok($$SELECT gbdt_train('c35k', 'y', ARRAY['x1'], 'multi:softprob', '{"num_round": 1}')$$,
                 '54000', 'target column "y" has more than 10000 distinct values: too many classes for multi:softprob (at most 10000)',
                 'more distinct labels than the class limit: an error naming the limit');
SELECT throws_ok($$SELECT gbdt_train('c35', 'y3', ARRAY['x1'], 'multi:softprob', '{"num_class": 1000000000}')$$,
                 '22023', NULL, 'num_class 1e9: invalid parameter value');

SELECT * FROM finish();
ROLLBACK;
