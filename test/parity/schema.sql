-- Tables the pgTAP suite (test/sql/*.sql) runs against; created by scripts/test.sh
-- in the throw-away database before pg_prove, then filled from the files that
-- test/parity/reference.py writes (client-side \copy).
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS gbdt;

DO $$
DECLARE
  ds text;
  cols text := (SELECT string_agg(format('f%s float8', i), ', ' ORDER BY i) FROM generate_series(0, 27) i);
BEGIN
  FOREACH ds IN ARRAY ARRAY['higgs', 'multi', 'reg'] LOOP
    EXECUTE format('CREATE TABLE %I (label float8, %s)', ds || '_train', cols);
    EXECUTE format('CREATE TABLE %I (id bigint PRIMARY KEY, label float8, %s)', ds || '_test', cols);
  END LOOP;
END $$;

CREATE TABLE parity_reference (dataset text, metric text, value float8, PRIMARY KEY (dataset, metric));
CREATE TABLE parity_predictions (dataset text, id bigint, prediction float8, PRIMARY KEY (dataset, id));

-- 300k rows x 28 features for the cancellation tests: a 100000-round training
-- on it runs for many minutes, far beyond any statement_timeout used.
CREATE TABLE cancel_big AS
SELECT (random() < 0.5)::int::float8 AS label,
       random() AS f0, random() AS f1, random() AS f2, random() AS f3, random() AS f4,
       random() AS f5, random() AS f6, random() AS f7, random() AS f8, random() AS f9,
       random() AS f10, random() AS f11, random() AS f12, random() AS f13, random() AS f14,
       random() AS f15, random() AS f16, random() AS f17, random() AS f18, random() AS f19,
       random() AS f20, random() AS f21, random() AS f22, random() AS f23, random() AS f24,
       random() AS f25, random() AS f26, random() AS f27
FROM generate_series(1, 300000);
