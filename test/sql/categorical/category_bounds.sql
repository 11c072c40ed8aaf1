-- Categorical sets bounded by their feature's categories, and unseen
-- categories scored as missing (docs/categorical.md):
--  - a crafted XGBoost JSON (half a MB: 6000 splits each listing the codes
--    {0, 65535}, so 2048-word bit fields) imports quickly into a model of a
--    few MB;
--  - a split category past the model encoder's categories is an error
--    naming the tree, node and feature; a small gbdt.max_memory refuses an
--    import, or a decode, that needs more;
--  - a text value never seen in training scores as NULL does, also where
--    missing values go right.
BEGIN;
SELECT plan(13);

-- The crafted model: 30 trees, each a chain of 200 categorical splits.
CREATE FUNCTION pg_temp.crafted(ntrees int, nsplit int, codes int[], enc boolean) RETURNS jsonb
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
  WITH t AS (
    SELECT ti, jsonb_build_object(
      'left_children', (SELECT jsonb_agg(CASE WHEN n % 2 = 0 AND n < 2 * nsplit THEN n + 1 ELSE -1 END ORDER BY n) FROM generate_series(0, 2 * nsplit) n),
      'right_children', (SELECT jsonb_agg(CASE WHEN n % 2 = 0 AND n < 2 * nsplit THEN n + 2 ELSE -1 END ORDER BY n) FROM generate_series(0, 2 * nsplit) n),
      'parents', (SELECT jsonb_agg(CASE WHEN n = 0 THEN 2147483647 WHEN n % 2 = 1 THEN n - 1 ELSE n - 2 END ORDER BY n) FROM generate_series(0, 2 * nsplit) n),
      'split_indices', (SELECT jsonb_agg(0) FROM generate_series(0, 2 * nsplit) n),
      'split_conditions', (SELECT jsonb_agg(CASE WHEN n % 2 = 0 AND n < 2 * nsplit THEN 0 ELSE 0.01 * n END ORDER BY n) FROM generate_series(0, 2 * nsplit) n),
      'default_left', (SELECT jsonb_agg(0) FROM generate_series(0, 2 * nsplit) n),
      'split_type', (SELECT jsonb_agg(CASE WHEN n % 2 = 0 AND n < 2 * nsplit THEN 1 ELSE 0 END ORDER BY n) FROM generate_series(0, 2 * nsplit) n),
      'base_weights', (SELECT jsonb_agg(0.01 * n ORDER BY n) FROM generate_series(0, 2 * nsplit) n),
      'categories', (SELECT jsonb_agg(c ORDER BY s, o) FROM generate_series(0, nsplit - 1) s, unnest(codes) WITH ORDINALITY u(c, o)),
      'categories_nodes', (SELECT jsonb_agg(2 * s ORDER BY s) FROM generate_series(0, nsplit - 1) s),
      'categories_segments', (SELECT jsonb_agg(s * cardinality(codes) ORDER BY s) FROM generate_series(0, nsplit - 1) s),
      'categories_sizes', (SELECT jsonb_agg(cardinality(codes)) FROM generate_series(0, nsplit - 1) s),
      'tree_param', jsonb_build_object('num_nodes', (2 * nsplit + 1)::text, 'num_feature', '1', 'size_leaf_vector', '1')) AS j
    FROM generate_series(0, ntrees - 1) ti)
  SELECT jsonb_build_object('learner', jsonb_build_object(
    'feature_names', '["c"]'::jsonb, 'feature_types', '["c"]'::jsonb,
    'learner_model_param', '{"base_score": "0.5", "num_class": "0", "num_feature": "1", "num_target": "1"}'::jsonb,
    'objective', '{"name": "reg:squarederror"}'::jsonb,
    'gradient_booster', jsonb_build_object('name', 'gbtree', 'model',
      jsonb_build_object('gbtree_model_param', jsonb_build_object('num_trees', ntrees::text),
                         'tree_info', (SELECT jsonb_agg(0) FROM generate_series(1, ntrees)),
                         'trees', (SELECT jsonb_agg(j ORDER BY ti) FROM t))
      || CASE WHEN enc THEN '{"cats": {"enc": [{"offsets": [0, 1, 2, 3, 4], "values": [97, 98, 99, 100]}]}}'::jsonb
              ELSE '{}'::jsonb END)))
$$;

CREATE TABLE j59 AS SELECT pg_temp.crafted(30, 200, ARRAY[0, 65535], false) AS j;
SELECT cmp_ok(octet_length(j::text), '<', 1500000, 'the crafted JSON is small') FROM j59;

CREATE TABLE m59 AS SELECT gbdt_import(j) AS m FROM j59;
-- Before: 6000 splits x 2048 words = 49 MB of sets (65 MB of model text).
-- Now: 2 codes a split, plus the 65536 decimal names of the codes 0 .. 65535.
SELECT cmp_ok(octet_length(m::text), '<', 4000000,
              'it imports into a model of a few MB, not 2048 words a split') FROM m59;
-- Decoding it for scoring counts against gbdt.max_memory too (its 1.1 MB
-- of bytes exceed 1MB; a model is decoded once per session, so first).
SET LOCAL gbdt.max_memory = '1MB';
SELECT throws_like($$SELECT gbdt_predict(m, ARRAY[0]::float8[]) FROM m59$$,
                   '%decoding a gbdt model needs more memory than gbdt.max_memory%',
                   'decoding a model counts against gbdt.max_memory before it allocates');
RESET gbdt.max_memory;
SELECT is(gbdt_predict(m, ARRAY[0]::float8[]) <> gbdt_predict(m, ARRAY[7]::float8[]), true,
          'the stored code lists still send codes 0 and 65535 right, 7 left') FROM m59;

-- Exported, its splits (missing right) would be written mirrored with the
-- complement of {0, 65535}: 6000 x 65534 codes, refused before any text.
SELECT throws_like($$SELECT gbdt_export(m) FROM m59$$,
                   '%would write 393204000 category codes, more than the limit%',
                   'an export that would write too many category codes is refused');

SELECT throws_like($$SELECT gbdt_import(pg_temp.crafted(1, 2, ARRAY[1, 9], true))$$,
                   '%tree 0 node 0: category 9 of feature "c" is past its 4 categories%',
                   'a split category past the encoder''s categories is an error naming tree, node and feature');

SET LOCAL gbdt.max_memory = '1MB';
SELECT throws_like($$SELECT gbdt_import(j) FROM j59$$,
                   '%gbdt_import needs more memory than gbdt.max_memory%',
                   'the import counts against gbdt.max_memory before it allocates');
RESET gbdt.max_memory;

-- Unseen categories: no NULLs in training, so the splits send missing right.
CREATE TABLE c59 AS
SELECT i AS id, (ARRAY['red', 'green', 'blue', 'black'])[1 + i % 4] AS color, (i % 10) / 10.0 AS x,
       CASE i % 4 WHEN 0 THEN 2.0 WHEN 1 THEN -1.0 WHEN 2 THEN 0.5 ELSE 0 END + (i % 10) / 100.0 AS y
FROM generate_series(1, 4000) i;
CREATE TABLE t59 AS SELECT gbdt_train('c59', 'y', ARRAY['color', 'x'], NULL,
                                      '{"num_round": 5, "max_depth": 3, "device": "cpu"}') AS m;
SELECT ok((SELECT count(*) FROM t59, gbdt_trees(m) t WHERE t.categories IS NOT NULL AND NOT t.default_left) > 0,
          'the model has categorical splits whose missing values go right');
SELECT is(gbdt_predict(m, r), gbdt_predict(m, s), 'an unseen color scores as NULL')
FROM t59, (SELECT 'purple'::text AS color, 0.5::float8 AS x) r, (SELECT NULL::text AS color, 0.5::float8 AS x) s;
SELECT is(gbdt_predict(m, ARRAY[4, 0.5]::float8[]), gbdt_predict(m, ARRAY[NULL, 0.5]::float8[]),
          'code n (past the categories) scores as missing') FROM t59;

-- A model stored by 0.2 (format version 2, bit fields; trained on the
-- table c59 above but 400 rows, 2 rounds of depth 2; 4 categorical splits
-- send missing right).  0.2 scored code 0 as 0.3565114736557007, NULL as
-- -0.272990882396698 and the unseen code 4 as 1.2394490242004395 (left at
-- every categorical split); now the unseen code scores as NULL.
CREATE TABLE o59 AS SELECT 'gbdt1:R0JEVE1ETAACAAAAcQQAAAAAAAAAAAAAAQAAADMzM6BH4do/AQAAADMzM6BH4do/AgAAAAUAAABjb2xvcgMBAAAAeAAAAAAAAwAAAAAAAAAEAAAADgAAAA4AAAAAAIA/AAAAQAAAQEAAAIBAzczMPc3MTD6amZk+zczMPgAAAD+amRk/MzMzP83MTD9mZmY/pWdmPwIAAAAAAAAAAAAAAAIAAAACAAAAAAAAAAAAAAAFAAAAAQAAAP////8DAAAA//////////8FAAAAAgAAAP////8EAAAA//////////8FAAAA/////wAAAAAAAAAAAgAAAAIAAAAFAAAAAAAAAP////8AAAAA//////////8FAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAFAAAAAACAPwAAAAAAAIA/AAAAAAAAAAAFAAAAAAAAAAAFAAAAqiV1Lkpe9j49ViW+99UYvThZ0L4FAAAA9oOtQwAAAADogMtCAAAAAAAAAAAFAAAAAAAAAAAAeUAAAAAAAABZQAAAAAAAwHJAAAAAAAAAaUAAAAAAAABZQAUAAAABAAAA/////wMAAAD//////////wUAAAACAAAA/////wQAAAD//////////wUAAAD/////AAAAAAAAAAACAAAAAgAAAAUAAAAAAAAA/////wAAAAD//////////wUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAUAAAAAAIA/AAAAAAAAgD8AAAAAAAAAAAUAAAAAAAAAAAUAAADA0+c3ijCtPuBg6L0lbda8e3aSvgUAAACfditDAAAAAC83SUIAAAAAAAAAAAUAAAAAAAAAAAB5QAAAAAAAAFlAAAAAAADAckAAAAAAAABpQAAAAAAAAFlADQAAAAkAAABvYmplY3RpdmUQAAAAcmVnOnNxdWFyZWRlcnJvcgMAAABldGETAAAAMC4yOTk5OTk5OTk5OTk5OTk5OQkAAABtYXhfZGVwdGgBAAAAMhAAAABtaW5fY2hpbGRfd2VpZ2h0AQAAADEGAAAAbGFtYmRhAQAAADEFAAAAYWxwaGEBAAAAMAUAAABnYW1tYQEAAAAwDgAAAG1heF9kZWx0YV9zdGVwAQAAADAHAAAAbWF4X2JpbgMAAAAyNTYJAAAAc3Vic2FtcGxlAQAAADEQAAAAY29sc2FtcGxlX2J5dHJlZQEAAAAxCQAAAG51bV9yb3VuZAEAAAAyBAAAAHNlZWQBAAAAMJABAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAABybXNlAQAAAKE55i3CvuE/AAAAAP////8CAAAAAQAAAC0AAAAAAAAAAgAAAAQAAAAFAAAAYmxhY2sEAAAAYmx1ZQUAAABncmVlbgMAAAByZWQAAAAAAwAAAGIAAAAAAAAABQAAAAEAAQAABgAAAAAAAAABAAAAAQAAAAIAAAACAAAAAgAAAAIAAAAHAAAABAAAAAUAAAABAAEAAAYAAAAAAAAAAQAAAAEAAAACAAAAAgAAAAIAAAACAAAABwAAAAQAAACdZY0z8fJZKw=='::gbdt_model AS m;
SELECT is(gbdt_predict(m, ARRAY[0, 0.5]::float8[]), 0.3565114736557007::float8,
          'a model stored by 0.2 loads and scores a seen category as before') FROM o59;
SELECT is(gbdt_predict(m, ARRAY[NULL, 0.5]::float8[]), -0.272990882396698::float8,
          'and NULL as before') FROM o59;
SELECT is(gbdt_predict(m, ARRAY[4, 0.5]::float8[]), -0.272990882396698::float8,
          'and an unseen category as NULL (0.2: 1.2394490242004395)') FROM o59;

SELECT * FROM finish();
ROLLBACK;
