-- Determinism: the same data and parameters give byte-identical models
-- whatever the number of threads (tables loaded by scripts/test.sh).
BEGIN;
SELECT plan(12);

CREATE TEMP TABLE det AS
SELECT d, nt, gbdt_train(rel, 'label', NULL, obj, (p || jsonb_build_object('nthread', nt))) AS m
FROM (VALUES ('higgs', 'higgs_train'::regclass, 'binary:logistic', '{"num_round": 20, "eta": 0.1}'::jsonb),
             ('higgs_sampled', 'higgs_train'::regclass, 'binary:logistic',
              '{"num_round": 20, "subsample": 0.8, "colsample_bytree": 0.8, "seed": 17}'::jsonb),
             ('reg', 'reg_train'::regclass, 'reg:squarederror', '{"num_round": 10, "max_depth": 8}'::jsonb),
             ('multi', 'multi_train'::regclass, 'multi:softprob', '{"num_round": 5}'::jsonb)) AS c(d, rel, obj, p),
     unnest(ARRAY[1, 2, 7]) nt;

SELECT is((SELECT m::text FROM det WHERE d = x.d AND nt = x.nt), (SELECT m::text FROM det WHERE d = x.d AND nt = 1),
          format('%s: nthread %s gives the same model bytes as nthread 1', x.d, x.nt))
FROM (SELECT d, nt FROM det WHERE nt > 1 ORDER BY d, nt) x;

-- Same call twice, in the same session.
SELECT is(gbdt_train('higgs_train', 'label', NULL, 'binary:logistic', '{"num_round": 20, "eta": 0.1, "nthread": 2}')::text,
          (SELECT m::text FROM det WHERE d = 'higgs' AND nt = 2), 'repeating a training gives the same model bytes');
-- Structure and predictions agree as well (pinpoints where bytes differ).
SELECT is((SELECT count(*)::int FROM higgs_test t
           WHERE gbdt_predict((SELECT m FROM det WHERE d = 'higgs_sampled' AND nt = 7), t)
                 IS DISTINCT FROM gbdt_predict((SELECT m FROM det WHERE d = 'higgs_sampled' AND nt = 1), t)),
          0, 'nthread 7 and nthread 1 models predict identically');
SELECT results_eq($$SELECT * FROM gbdt_trees((SELECT m FROM det WHERE d = 'reg' AND nt = 7)) ORDER BY tree, node$$,
                  $$SELECT * FROM gbdt_trees((SELECT m FROM det WHERE d = 'reg' AND nt = 1)) ORDER BY tree, node$$,
                  'nthread 7 and nthread 1 regression models have identical trees');
-- The seed matters when sampling.
SELECT isnt(gbdt_train('higgs_train', 'label', NULL, 'binary:logistic',
                       '{"num_round": 20, "subsample": 0.8, "colsample_bytree": 0.8, "seed": 18, "nthread": 1}')::text,
            (SELECT m::text FROM det WHERE d = 'higgs_sampled' AND nt = 1), 'a different seed gives a different sampled model');

SELECT * FROM finish();
ROLLBACK;
