-- gbdt.shard_timeout: how long a distributed training's coordinator waits
-- for a shard server (milliseconds, any user, 0 = no limit).
BEGIN;
SELECT plan(6);

-- The setting exists once the library is loaded.
SELECT ok(gbdt_build_info() IS NOT NULL, 'gbdt is loaded');

SELECT is(current_setting('gbdt.shard_timeout'), '10min', 'gbdt.shard_timeout defaults to 10 minutes');
SELECT is((SELECT context || ' ' || unit FROM pg_settings WHERE name = 'gbdt.shard_timeout'),
          'user ms', 'gbdt.shard_timeout is a per-session setting in milliseconds');
SET gbdt.shard_timeout = 0;
SELECT is(current_setting('gbdt.shard_timeout'), '0', '0 (no limit) is accepted');
SET gbdt.shard_timeout = '1500ms';
SELECT is(current_setting('gbdt.shard_timeout'), '1500ms', 'a value in ms is kept');
SELECT throws_ok($$SET gbdt.shard_timeout = -1$$, '22023', NULL, 'a negative timeout is refused');

SELECT * FROM finish();
ROLLBACK;
