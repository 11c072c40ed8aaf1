-- gbdt_import of an XGBoost JSON document whose
-- learner_model_param.num_target is below 1 is an error naming the field and
-- the value (XGBoost writes "1", or the number of quantiles of a
-- reg:quantileerror model; documents of XGBoost < 1.6 leave it out).
BEGIN;
SELECT plan(5);

CREATE TEMP TABLE nt_data AS
SELECT i, (i % 17) / 17.0 AS a, (i % 5)::float8 AS b, ((i % 17) / 17.0 + (i % 5) * 0.1)::float8 AS y
FROM generate_series(1, 200) i;
CREATE TEMP TABLE nt_doc AS
SELECT gbdt_export(gbdt_train('nt_data', 'y', ARRAY['a', 'b'], 'reg:squarederror',
                              '{"num_round": 3, "max_depth": 2}')) AS j;

SELECT is((SELECT j->'learner'->'learner_model_param'->>'num_target' FROM nt_doc), '1',
          'gbdt_export writes num_target 1, as XGBoost');
SELECT throws_ok($$SELECT gbdt_import(jsonb_set(j, '{learner,learner_model_param,num_target}', '"0"')) FROM nt_doc$$,
                 '22023',
                 'invalid XGBoost JSON model: learner_model_param.num_target = 0 is out of range: must be >= 1 (1, or the number of quantiles of a reg:quantileerror model, at most 256)',
                 'num_target 0 is an error naming the field and the value');
SELECT throws_like($$SELECT gbdt_import(jsonb_set(j, '{learner,learner_model_param,num_target}', '"-7"')) FROM nt_doc$$,
                   '%num_target = -7 is out of range: must be >= 1%', 'a negative num_target is an error');
SELECT is((SELECT gbdt_predict(gbdt_import(j #- '{learner,learner_model_param,num_target}'), ARRAY[0.3, 2]::float8[])
           = gbdt_predict(gbdt_import(j), ARRAY[0.3, 2]::float8[]) FROM nt_doc), true,
          'a document without num_target (XGBoost < 1.6) is one target');
SELECT throws_like($$SELECT gbdt_import(jsonb_set(j, '{learner,learner_model_param,num_target}', '"100000"')) FROM nt_doc$$,
                   '%num_target%', 'an absurd num_target is an error naming it');

SELECT * FROM finish();
ROLLBACK;
