-- Continued training (init_model) crossed with every objective family and
-- role column: ranking (group_column, weights per group), survival:cox,
-- survival:aft (label_upper_bound_column), one and several quantiles,
-- multiclass (numeric and text targets), categorical features, binary and
-- regression, each continued with every other family's target, objective
-- and role columns, with and without them.  Every combination either
-- trains and scores every row or stops with a clean SQLSTATE error: never
-- an internal error (XX000), never a crash.  Then the cases that crashed or
-- ended in XX000 before: a ranking model continued without group_column
-- (directly and through gbdt_retrain(name, continue_from_deployed => true)),
-- a group_column that is a feature of the init model, several quantiles on
-- a one-quantile model; and a model trained on numeric class values
-- continued on them.
BEGIN;
SELECT plan(31);
SET LOCAL client_min_messages = warning;

CREATE TEMP TABLE sw AS
SELECT i AS id, (i % 11) * 0.1 AS x1, ((i * 7) % 13) * 0.1 AS x2,
       (ARRAY['red', 'green', 'blue'])[1 + i % 3] AS cat,
       (i % 11) * 0.3 + (i % 3) AS y_reg, (i % 2) AS y_bin, (i % 3) AS y_cls,
       (i % 3) * 10 AS y_cls10,
       (ARRAY['a', 'b', 'c'])[1 + i % 3] AS y_txt,
       (i % 4) AS rel, (i % 4 >= 2)::int AS relb, i / 8 AS q, 1 + (i / 8) % 3 AS w,
       1.0 + i % 5 AS lo, CASE WHEN i % 4 = 0 THEN 'Infinity'::float8 ELSE 2.0 + i % 5 END AS hi,
       CASE WHEN i % 5 = 0 THEN -(1.0 + i % 7) ELSE 1.0 + i % 7 END AS tcox
FROM generate_series(1, 64) i;

-- The init models: family, target, features, objective, params.
CREATE TEMP TABLE sw_init (fam text PRIMARY KEY, target text, feats text[], obj text, params jsonb,
                           m gbdt_model);
INSERT INTO sw_init (fam, target, feats, obj, params) VALUES
 ('reg', 'y_reg', ARRAY['x1','x2'], 'reg:squarederror', '{}'),
 ('reg_w', 'y_reg', ARRAY['x1','x2'], 'reg:squarederror', '{"weight_column": "w"}'),
 ('bin', 'y_bin', ARRAY['x1','x2'], 'binary:logistic', '{}'),
 ('multi', 'y_cls', ARRAY['x1','x2'], 'multi:softprob', '{"num_class": 3}'),
 ('multi10', 'y_cls10', ARRAY['x1','x2'], 'multi:softprob', '{}'),
 ('multi_txt', 'y_txt', ARRAY['x1','x2'], NULL, '{}'),
 ('cat', 'y_reg', ARRAY['x1','cat'], NULL, '{}'),
 ('cat_bin', 'y_bin', ARRAY['cat','x2'], 'binary:logistic', '{}'),
 ('q1', 'y_reg', ARRAY['x1','x2'], 'reg:quantileerror', '{"quantile_alpha": 0.3}'),
 ('q3', 'y_reg', ARRAY['x1','x2'], 'reg:quantileerror', '{"quantile_alpha": [0.1, 0.5, 0.9]}'),
 ('cox', 'tcox', ARRAY['x1','x2'], 'survival:cox', '{}'),
 ('aft', 'lo', ARRAY['x1','x2'], 'survival:aft', '{"label_upper_bound_column": "hi"}'),
 ('ndcg', 'rel', ARRAY['x1','x2'], 'rank:ndcg', '{"group_column": "q"}'),
 ('ndcg_w', 'rel', ARRAY['x1','x2'], 'rank:ndcg', '{"group_column": "q", "weight_column": "w"}'),
 ('pairwise', 'rel', ARRAY['x1','x2'], 'rank:pairwise', '{"group_column": "q"}'),
 ('map', 'relb', ARRAY['x1','x2'], 'rank:map', '{"group_column": "q"}');
UPDATE sw_init SET m = gbdt_train('sw', target, feats, obj, params || '{"num_round": 1, "nthread": 1}');

-- The continuations: target, objective, params (features: the init model's).
CREATE TEMP TABLE sw_cont (k text PRIMARY KEY, target text, obj text, params jsonb);
INSERT INTO sw_cont VALUES
 ('reg', 'y_reg', NULL, '{}'), ('reg_obj', 'y_reg', 'reg:squarederror', '{}'),
 ('reg_w', 'y_reg', NULL, '{"weight_column": "w"}'),
 ('reg_g', 'y_reg', NULL, '{"group_column": "q"}'),
 ('reg_u', 'y_reg', NULL, '{"label_upper_bound_column": "hi"}'),
 ('bin', 'y_bin', 'binary:logistic', '{}'), ('bin_none', 'y_bin', NULL, '{}'),
 ('multi', 'y_cls', 'multi:softprob', '{"num_class": 3}'),
 ('multi4', 'y_cls', 'multi:softprob', '{"num_class": 4}'),
 ('multi_none', 'y_cls', NULL, '{}'),
 ('multi10', 'y_cls10', NULL, '{}'),
 ('multi10_obj', 'y_cls10', 'multi:softprob', '{}'),
 ('txt', 'y_txt', NULL, '{}'), ('txt_obj', 'y_txt', 'multi:softprob', '{}'),
 ('txt_bin', 'y_txt', 'binary:logistic', '{}'),
 ('q1', 'y_reg', 'reg:quantileerror', '{"quantile_alpha": 0.3}'),
 ('q1b', 'y_reg', 'reg:quantileerror', '{"quantile_alpha": 0.7}'),
 ('q3', 'y_reg', 'reg:quantileerror', '{"quantile_alpha": [0.1, 0.5, 0.9]}'),
 ('q2', 'y_reg', 'reg:quantileerror', '{"quantile_alpha": [0.2, 0.5]}'),
 ('q3_none', 'y_reg', NULL, '{"quantile_alpha": [0.1, 0.5, 0.9]}'),
 ('cox', 'tcox', 'survival:cox', '{}'), ('cox_none', 'tcox', NULL, '{}'),
 ('cox_w', 'tcox', NULL, '{"weight_column": "w"}'),
 ('aft', 'lo', 'survival:aft', '{"label_upper_bound_column": "hi"}'),
 ('aft_nobound', 'lo', 'survival:aft', '{}'), ('aft_none', 'lo', NULL, '{}'),
 ('aft_w', 'lo', NULL, '{"weight_column": "w"}'),
 ('aft_other', 'lo', NULL, '{"label_upper_bound_column": "x2"}'),
 ('ndcg', 'rel', 'rank:ndcg', '{"group_column": "q"}'),
 ('ndcg_nog', 'rel', 'rank:ndcg', '{}'),
 ('rank_none', 'rel', NULL, '{}'), ('rank_g', 'rel', NULL, '{"group_column": "q"}'),
 ('rank_gw', 'rel', NULL, '{"group_column": "q", "weight_column": "w"}'),
 ('rank_w', 'rel', NULL, '{"weight_column": "w"}'),
 ('rank_wrow', 'rel', NULL, '{"group_column": "q", "weight_column": "x1"}'),
 ('rank_gfeat', 'rel', NULL, '{"group_column": "x1"}'),
 ('pairwise', 'rel', 'rank:pairwise', '{"group_column": "q"}'),
 ('map', 'relb', 'rank:map', '{"group_column": "q"}'),
 ('map_rel', 'rel', NULL, '{}'),
 ('cat_feat', 'y_reg', NULL, '{"categorical_features": ["cat"]}'),
 ('valfrac', 'y_reg', NULL, '{"validation_fraction": 0.25}'),
 ('val_rel', 'y_reg', NULL, '{"validation_relation": "sw"}'),
 ('val_rel_any', 'y_reg', NULL, '{"validation_relation": "sw", "early_stopping_rounds": 1}'),
 ('parallel', 'y_reg', NULL, '{"num_parallel_tree": 2}'),
 ('base', 'y_reg', NULL, '{"base_score": 0.5}');

-- One continuation: 'ok' and the rows scored, or the SQLSTATE and message.
CREATE FUNCTION pg_temp.try(fam text, k text, OUT state text, OUT msg text, OUT scored int)
LANGUAGE plpgsql AS $$
DECLARE i sw_init; c sw_cont; mm gbdt_model;
BEGIN
  SELECT * INTO i FROM sw_init WHERE sw_init.fam = try.fam;
  SELECT * INTO c FROM sw_cont WHERE sw_cont.k = try.k;
  mm := gbdt_train('sw', c.target, NULL, c.obj, c.params || '{"num_round": 1, "nthread": 1}', i.m);
  IF gbdt_model_info(mm)->'params'->>'quantile_alpha' LIKE '[%' THEN
    SELECT count(*) INTO scored FROM sw s WHERE cardinality(gbdt_predict_quantiles(mm, s)) > 1;
  ELSE
    SELECT count(*) INTO scored FROM gbdt_predict_table(mm, 'sw', 'id') WHERE prediction IS NOT NULL;
  END IF;
  state := 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
END $$;

CREATE TEMP TABLE sw_res AS
SELECT i.fam, c.k, r.* FROM sw_init i CROSS JOIN sw_cont c CROSS JOIN LATERAL pg_temp.try(i.fam, c.k) r;
CREATE FUNCTION pg_temp.st(text, text) RETURNS text LANGUAGE sql AS
  $$ SELECT state FROM sw_res WHERE fam = $1 AND k = $2 $$;
CREATE FUNCTION pg_temp.msg(text, text) RETURNS text LANGUAGE sql AS
  $$ SELECT msg FROM sw_res WHERE fam = $1 AND k = $2 $$;

SELECT is((SELECT count(*)::int FROM sw_res), (SELECT count(*)::int FROM sw_init) * (SELECT count(*)::int FROM sw_cont),
          'every init model met every continuation');
SELECT is((SELECT string_agg(fam || ' + ' || k || ': ' || msg, '; ') FROM sw_res WHERE state LIKE 'XX%'), NULL,
          'no combination ends in an internal error');
SELECT is((SELECT string_agg(fam || ' + ' || k || ': ' || state, '; ') FROM sw_res
           WHERE state <> 'ok' AND state !~ '^(22|42|23)'), NULL,
          'every refusal is a data or parameter error (class 22 or 42)');
SELECT is((SELECT string_agg(fam || ' + ' || k, ' ') FROM sw_res WHERE state = 'ok' AND scored <> 64), NULL,
          'every continued model scores every row');
SELECT is((SELECT string_agg(fam || ' + ' || k || ': ' || coalesce(msg, ''), '; ' ORDER BY fam) FROM sw_res
           WHERE (fam, k) IN (('reg', 'reg'), ('reg', 'reg_obj'), ('reg_w', 'reg_w'), ('bin', 'bin'),
                              ('multi', 'multi'), ('multi_txt', 'txt'), ('cat', 'reg'), ('cat', 'cat_feat'),
                              ('cat_bin', 'bin'), ('q1', 'q1'), ('q3', 'q3'), ('q3', 'reg'), ('cox', 'cox'),
                              ('aft', 'aft'), ('ndcg', 'ndcg'), ('ndcg_w', 'rank_gw'), ('pairwise', 'pairwise'),
                              ('map', 'map'), ('reg', 'valfrac'), ('reg', 'val_rel'))
             AND state <> 'ok'), NULL,
          'each family continues on its own target and role columns');
SELECT cmp_ok((SELECT count(*)::int FROM sw_res WHERE state = 'ok'), '>=', 100,
              'and many cross-family continuations train too');

-- ---- the ranking init model's group_column carries over ----
SELECT is(pg_temp.st('ndcg', 'rank_none'), 'ok', 'rank:ndcg continued with no objective and no group_column');
SELECT is(pg_temp.st('pairwise', 'rank_w'), 'ok', 'rank:pairwise continued with a weight column, group_column carried');
SELECT is(pg_temp.st('ndcg', 'ndcg_nog'), 'ok', 'objective rank:ndcg given, group_column carried');
SELECT is(pg_temp.st('ndcg', 'aft_none'), 'ok', 'any relevance-like target continues a ranking model');
CREATE TEMP TABLE sw_nogroup AS SELECT id, x1, x2, rel FROM sw;
SELECT throws_ok($$SELECT gbdt_train('sw_nogroup', 'rel', NULL, NULL, '{"num_round": 1}', (SELECT m FROM sw_init WHERE fam = 'ndcg'))$$,
                 '42703', 'group_column "q" of init_model is not a column of relation "sw_nogroup"',
                 'a relation without the init model''s group column: the column named');
CREATE FUNCTION pg_temp.tree_diff(a gbdt_model, b gbdt_model) RETURNS int LANGUAGE sql AS $$
  SELECT count(*)::int FROM ((SELECT * FROM gbdt_trees(a) EXCEPT ALL SELECT * FROM gbdt_trees(b))
                             UNION ALL
                             (SELECT * FROM gbdt_trees(b) EXCEPT ALL SELECT * FROM gbdt_trees(a))) d $$;
SELECT is((SELECT sum(pg_temp.tree_diff(
                        gbdt_train('sw', target, NULL, NULL, '{"num_round": 2}', m),
                        gbdt_train('sw', target, NULL, NULL, '{"num_round": 2, "group_column": "q"}', m)))::int
           FROM sw_init WHERE fam IN ('ndcg', 'pairwise', 'map')), 0,
          'the carried group_column trains the trees of the one given explicitly');

-- The same through the registry: a deployed ranking version continued by
-- gbdt_retrain from a spec without group_column.  A spec may not name a
-- temporary relation (gone at the next retrain): a permanent copy of sw.
CREATE TABLE public.sw_registry AS SELECT * FROM sw;
SELECT gbdt_save('sw_rank', (SELECT m FROM sw_init WHERE fam = 'ndcg'),
                 '{"relation": "public.sw_registry", "target": "rel", "params": {"num_round": 1}}');
SELECT is(gbdt_retrain('sw_rank', continue_from_deployed => true), 2,
          'gbdt_retrain continue_from_deployed of a ranking version saves version 2');
SELECT is((SELECT gbdt_model_info(m.model)->>'rounds' FROM gbdt_models m WHERE m.name = 'sw_rank' AND m.version = 2),
          '2', 'and the version continues the deployed rounds');

-- A crafted model: the regression model's bytes with the objective code
-- (i32 at byte 20) of rank:pairwise (13), checksum (64-bit FNV-1a, last 8
-- bytes) recomputed; continued on rows without query groups.
\ir ../lib/reseal.sql
CREATE TEMP TABLE sw_crafted AS
SELECT ('gbdt1:' || translate(encode(pg_temp.reseal(overlay(decode(substr(m::text, 7), 'base64')
                                                            PLACING '\x0d000000'::bytea FROM 21)),
                                     'base64'), E'\n', ''))::gbdt_model AS m
FROM sw_init WHERE fam = 'reg';
SELECT throws_like($$SELECT gbdt_train('sw', 'rel', NULL, NULL, '{"num_round": 1}', (SELECT m FROM sw_crafted))$$,
                   'objective rank:pairwise needs query groups%',
                   'a crafted model whose objective says rank:pairwise, continued without groups: 22023');

-- ---- a role column that is a feature of the init model ----
SELECT is(pg_temp.st('reg', 'rank_gfeat'), '22023', 'group_column naming a feature of init_model: 22023');
SELECT is(pg_temp.msg('ndcg', 'rank_gfeat'), 'column "x1" is the group_column and cannot also be a feature',
          'and the column named');
SELECT is(pg_temp.msg('reg', 'aft_other'), 'column "x2" is the label_upper_bound_column and cannot also be a feature',
          'label_upper_bound_column naming a feature of init_model: the column named');

-- ---- quantiles ----
SELECT is(pg_temp.st('q1', 'q3'), '22023', 'a quantile list on a one-quantile init model: 22023');
SELECT is(pg_temp.msg('q1', 'q3'),
          'parameter "quantile_alpha" lists 3 quantiles, but init_model predicts the one quantile 0.3: continue it with quantile_alpha = 0.3 (or leave quantile_alpha out)',
          'and the parameter and both quantiles named');
SELECT is(pg_temp.msg('q1', 'q1b'), 'parameter "quantile_alpha" = 0.7 differs from init_model''s quantile 0.3',
          'another single quantile: named');
SELECT is(pg_temp.st('q1', 'reg'), 'ok', 'no quantile_alpha: the init model''s quantile carries over');
SELECT is((SELECT gbdt_model_info(gbdt_train('sw', 'y_reg', NULL, NULL, '{"num_round": 1}', m))->'params'->>'quantile_alpha'
           FROM sw_init WHERE fam = 'q1'), '0.3', 'and is recorded in the continued model');
SELECT is(pg_temp.msg('q3', 'q2'), 'parameter "quantile_alpha" differs from init_model''s list of 3 quantiles',
          'another quantile list on a three-quantile model: named');

-- ---- objectives, classes and bounds ----
SELECT is(pg_temp.msg('reg', 'bin'),
          'parameter "objective" = "binary:logistic" differs from the objective of init_model, "reg:squarederror"',
          'another objective: both named');
SELECT is(pg_temp.msg('multi', 'multi4'), 'parameter "num_class" = 4 differs from init_model''s 3',
          'another num_class: both named');
SELECT is(pg_temp.st('multi10', 'multi10'), 'ok',
          'a model trained on the class values 0, 10, 20 continues on them (mapped through its classes)');
SELECT is(pg_temp.msg('multi10', 'multi'), 'target column "y_cls" has value 1, which is not a class of the model',
          'a value that is none of its classes: named');
CREATE TEMP TABLE sw_two AS SELECT * FROM sw WHERE y_cls10 IN (0, 20);
SELECT is((SELECT gbdt_model_info(gbdt_train('sw_two', 'y_cls10', NULL, 'multi:softprob', '{"num_round": 1}', m))->>'classes'
           FROM sw_init WHERE fam = 'multi10'), '[0, 10, 20]',
          'rows holding two of the three classes keep the three (20 stays class 2)');
SELECT is(pg_temp.st('aft', 'aft_nobound'), 'ok', 'survival:aft continued without its bound column: carried');
SELECT is(pg_temp.msg('reg', 'reg_g'),
          'parameter "group_column" is only for the ranking objectives rank:ndcg, rank:pairwise and rank:map, not reg:squarederror',
          'group_column on a regression init model: the objective named');

SELECT * FROM finish();
ROLLBACK;
