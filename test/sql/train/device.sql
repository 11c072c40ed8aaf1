-- Device selection on this host (CI part): gbdt.device / the `device`
-- parameter.  CI has no GPU: 'auto' must train on the CPU, 'cuda' must be a
-- clear error (why: built without CUDA, or no usable device).
BEGIN;
SELECT plan(9);

SELECT is(jsonb_typeof(gbdt_build_info()->'cuda_compiled'), 'boolean', 'build info says whether CUDA was compiled in');
SELECT is(current_setting('gbdt.device'), 'auto', 'gbdt.device defaults to auto');
SELECT throws_ok($$SET gbdt.device = 'tpu'$$, '22023', NULL, 'gbdt.device rejects unknown values');

CREATE TEMP TABLE dm AS
SELECT 'cpu' AS k, gbdt_train('higgs_train', 'label', NULL, NULL, '{"num_round": 5, "device": "cpu"}') AS m
UNION ALL
SELECT 'auto', gbdt_train('higgs_train', 'label', NULL, NULL, '{"num_round": 5, "device": "auto"}');
SET LOCAL gbdt.device = 'cpu';
INSERT INTO dm SELECT 'guc_cpu', gbdt_train('higgs_train', 'label', NULL, NULL, '{"num_round": 5}');
RESET gbdt.device;

SELECT is((SELECT count(*)::int FROM dm), 3, 'cpu, auto and gbdt.device = cpu all train');
SELECT is((SELECT m::text FROM dm WHERE k = 'auto'), (SELECT m::text FROM dm WHERE k = 'cpu'),
          'auto without a usable GPU gives the CPU model, byte for byte');
SELECT is((SELECT m::text FROM dm WHERE k = 'guc_cpu'), (SELECT m::text FROM dm WHERE k = 'cpu'),
          'gbdt.device = cpu gives the same model as the device parameter');

-- 'cuda' on this host: which error depends on the build.
SELECT CASE WHEN (gbdt_build_info()->>'cuda_compiled')::bool AND jsonb_array_length(gbdt_build_info()->'cuda'->'devices') > 0
  THEN skip('a CUDA device is present: the cuda error paths are not reachable here', 2)
  WHEN (gbdt_build_info()->>'cuda_compiled')::bool
  THEN collect_tap(
    throws_like($$SELECT gbdt_train('higgs_train', 'label', NULL, NULL, '{"num_round": 5, "device": "cuda"}')$$,
                '%device ''cuda'' requested but no CUDA device is available: %', 'device cuda without a GPU: clear error with the CUDA reason'),
    throws_like($$SET LOCAL gbdt.device = 'cuda'; SELECT gbdt_train('higgs_train', 'label', NULL, NULL, '{"num_round": 5}')$$,
                '%no CUDA device is available%', 'gbdt.device = cuda without a GPU: same error'))
  ELSE collect_tap(
    throws_like($$SELECT gbdt_train('higgs_train', 'label', NULL, NULL, '{"num_round": 5, "device": "cuda"}')$$,
                '%built without CUDA%', 'device cuda in a build without CUDA: clear error'),
    throws_like($$SET LOCAL gbdt.device = 'cuda'; SELECT gbdt_train('higgs_train', 'label', NULL, NULL, '{"num_round": 5}')$$,
                '%built without CUDA%', 'gbdt.device = cuda in a build without CUDA: same error'))
  END;
SELECT throws_like($$SELECT gbdt_train('higgs_train', 'label', NULL, NULL, '{"device": "gpu0"}')$$,
                   '%device%gpu0%', 'unknown device parameter value names it');

SELECT * FROM finish();
ROLLBACK;
