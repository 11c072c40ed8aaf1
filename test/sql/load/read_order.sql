-- A view is read in one fixed order whatever the planner's settings: a
-- parallel plan (its workers' rows interleave) or a synchronized scan (a
-- large table's scan may start mid-table) would change the order from one
-- call to the next, and with it the model's bytes (the first round's ties)
-- and a metric's last digits (its float sums).  The reader turns both off
-- for its query only (extension/pg/read/read_order.h).
BEGIN;
SELECT plan(7);

CREATE TABLE ro_rows AS
  SELECT i, (i * 7919 % 1000) / 1000.0 AS x, (i * 104729 % 997) / 997.0 AS z,
         ((i * 7919 % 1000) > 500)::int AS y
  FROM generate_series(1::bigint, 40000) i;
CREATE VIEW ro_view AS SELECT x, z, y FROM ro_rows;
ANALYZE ro_rows;

-- Settings that make the planner read the view with two parallel workers
-- and no leader.
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL parallel_leader_participation = off;
SET LOCAL max_parallel_workers_per_gather = 2;

CREATE FUNCTION pg_temp.plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE l text; r text := '';
BEGIN
  FOR l IN EXECUTE 'EXPLAIN ' || q LOOP r := r || l || E'\n'; END LOOP;
  RETURN r;
END $$;
SELECT matches(pg_temp.plan_of('SELECT x, z, y FROM ro_view'), 'Gather',
               'the view alone would be read by a parallel plan');

CREATE TEMP TABLE ro_models AS
  SELECT k, gbdt_train('ro_view', 'y', ARRAY['x', 'z'], params => '{"num_round": 5}') AS m
  FROM generate_series(1, 4) k;
SELECT is((SELECT count(DISTINCT m::text) FROM ro_models), 1::bigint,
          'four trainings on the view give the same bytes');
SELECT is((SELECT m::text FROM ro_models WHERE k = 1),
          gbdt_train('ro_rows', 'y', ARRAY['x', 'z'], params => '{"num_round": 5}')::text,
          'the view trains the model of the table it reads, in its order');

CREATE TEMP TABLE ro_eval AS
  SELECT k, gbdt_evaluate((SELECT m FROM ro_models WHERE k = 1), 'ro_view', 'y')::text AS e
  FROM generate_series(1, 4) k;
SELECT is((SELECT count(DISTINCT e) FROM ro_eval), 1::bigint,
          'four gbdt_evaluate calls on the view give the same metrics, to the last digit');
SELECT is((SELECT e FROM ro_eval WHERE k = 1),
          gbdt_evaluate((SELECT m FROM ro_models WHERE k = 1), 'ro_rows', 'y')::text,
          'gbdt_evaluate of the view equals that of the table');

-- The settings are the caller's again afterwards.
SELECT is(current_setting('max_parallel_workers_per_gather'), '2',
          'max_parallel_workers_per_gather is restored');
SELECT is(current_setting('synchronize_seqscans'), 'on', 'synchronize_seqscans is restored');

SELECT * FROM finish();
ROLLBACK;
