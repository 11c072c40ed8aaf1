#!/usr/bin/env bash
# The upgrade from 0.1 to the current release, tested against a running server (scripts/test.sh
# runs it on its throw-away cluster; PGHOST/PGPORT/PGUSER must name a
# superuser connection):
#
#   bash scripts/test-upgrade.sh
#
# Database A: CREATE EXTENSION gbdt VERSION '0.1'; models trained and kept in a
# user table, registry rows saved by a superuser and by a non-superuser role,
# predictions recorded; then ALTER EXTENSION gbdt UPDATE (to the current release).
# Database B: a fresh CREATE EXTENSION gbdt (the current release).
# Checks: (1) every object of the extension is the same in A and B: the
# extension members as pg_dump --binary-upgrade writes them one by one
# (functions with their full definitions, types, tables, columns, indexes,
# constraints, triggers, policies, row security, grants, comments, config
# tables), OIDs and transaction ids masked; (2) in A, the models and registry
# rows stored under 0.1 load and score exactly as before, gbdt_model(name)
# works, each 0.1 name is owned by the role that saved it, and the new rules
# hold for it (its owner retrains it, another role cannot save under it);
# every spec stored under 0.1 is quarantined by the update: one that
# gbdt_upg_mallory planted under 0.1 for alice's name (naming a table only
# alice can read, deployed) is refused by gbdt_retrain, mallory cannot approve
# it, and alice's own spec retrains only after alice approved it;
# (3) DROP EXTENSION gbdt warns with the number of saved versions it deletes,
# and a role that may not read them all (mallory) gets no count of them.
#
# Creates databases gbdt_upg_a, gbdt_upg_b and roles gbdt_upg_alice,
# gbdt_upg_mallory, and drops them at the end.  Prints a last line
# "test-upgrade: ..." and exits non-zero on failure.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${GBDT_PG_BINDIR:-$(pg_config --bindir)}
DB_A=gbdt_upg_a
DB_B=gbdt_upg_b
OLD=0.1
NEW=$(sed -n 's/^EXTVERSION *= *//p' "$ROOT/Makefile")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gbdt-upgrade.XXXXXX")

psql_db() {  # psql_db DB [psql args...]
  local db=$1; shift
  "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"
}
cleanup() {
  "$BIN/dropdb" --if-exists "$DB_A" >/dev/null 2>&1
  "$BIN/dropdb" --if-exists "$DB_B" >/dev/null 2>&1
  psql_db postgres -c "DROP ROLE IF EXISTS gbdt_upg_alice" -c "DROP ROLE IF EXISTS gbdt_upg_mallory" >/dev/null 2>&1
  rm -rf "$WORK"
}
fail() {
  echo "test-upgrade: FAIL: $*"
  cleanup
  exit 1
}
trap cleanup EXIT

cleanup
mkdir -p "$WORK"
"$BIN/createdb" "$DB_A" && "$BIN/createdb" "$DB_B" || fail "createdb failed"
psql_db postgres -c "CREATE ROLE gbdt_upg_alice NOLOGIN" -c "CREATE ROLE gbdt_upg_mallory NOLOGIN" \
  || fail "could not create the test roles"

# ---- 0.1, data, update -----------------------------------------------------
echo "== test-upgrade: database $DB_A: gbdt $OLD, models and registry rows"
psql_db "$DB_A" -o /dev/null <<SQL || fail "setup under $OLD failed"
CREATE EXTENSION gbdt VERSION '$OLD';
DO \$\$ BEGIN
  IF (SELECT extversion FROM pg_extension WHERE extname = 'gbdt') <> '$OLD' THEN
    RAISE EXCEPTION 'installed % instead of $OLD', (SELECT extversion FROM pg_extension WHERE extname = 'gbdt');
  END IF;
END \$\$;
CREATE SCHEMA upg_data;
CREATE TABLE upg_data.t AS
SELECT i AS id, sin(i)::float8 AS x1, cos(i * 0.7)::float8 AS x2, ((i * 37) % 11)::float8 AS x3,
       (sin(i) + 0.5 * cos(i * 0.7) > 0.1)::int::float8 AS yb,
       ((i * 7) % 3)::float8 AS ym,
       (2 * sin(i) + cos(i * 0.7) + 0.1 * ((i * 37) % 11))::float8 AS yr
FROM generate_series(1, 2000) i;
-- Models kept in a user table.
CREATE TABLE upg_data.models AS
SELECT 'binary' AS k, gbdt_train('upg_data.t', 'yb', ARRAY['x1', 'x2', 'x3'], 'binary:logistic',
                                 '{"num_round": 8, "max_depth": 3, "validation_fraction": 0.2}') AS model
UNION ALL
SELECT 'multi', gbdt_train('upg_data.t', 'ym', ARRAY['x1', 'x2', 'x3'], 'multi:softprob', '{"num_round": 4}')
UNION ALL
SELECT 'reg', gbdt_train('upg_data.t', 'yr', ARRAY['x1', 'x2', 'x3'], 'reg:squarederror', '{"num_round": 6}');
CREATE TABLE upg_data.models_text AS SELECT k, model::text AS txt FROM upg_data.models;
CREATE TABLE upg_data.pred AS
SELECT m.k, t.id, gbdt_predict(m.model, t) AS p,
       gbdt_predict(m.model, ARRAY[t.x1, t.x2, t.x3]) AS pa
FROM upg_data.models m, upg_data.t t;
-- Registry rows: one saved by the superuser, two by alice (grants of 0.1's docs).
SELECT gbdt_save('upg_admin', (SELECT model FROM upg_data.models WHERE k = 'reg'));
GRANT SELECT, INSERT, UPDATE ON gbdt_models TO gbdt_upg_alice, gbdt_upg_mallory;
GRANT USAGE ON SCHEMA upg_data TO gbdt_upg_alice, gbdt_upg_mallory;
GRANT SELECT ON upg_data.t, upg_data.models TO gbdt_upg_alice, gbdt_upg_mallory;
SET ROLE gbdt_upg_alice;
SELECT gbdt_train_and_save('upg_churn', 'upg_data.t', 'yb', ARRAY['x1', 'x2', 'x3'], 'binary:logistic',
                           '{"num_round": 6, "max_depth": 3, "validation_fraction": 0.2}', 'if_better');
SELECT gbdt_save('upg_churn', (SELECT model FROM upg_data.models WHERE k = 'binary'), NULL, 'never');
RESET ROLE;
-- A table only alice can read, and a spec naming it that mallory plants under
-- alice's name with 0.1's grants (created_by forged, deployed).
CREATE TABLE upg_data.secret AS SELECT * FROM upg_data.t;
GRANT SELECT ON upg_data.secret TO gbdt_upg_alice;
SET ROLE gbdt_upg_mallory;
UPDATE gbdt_models SET deployed = false WHERE name = 'upg_churn';
INSERT INTO gbdt_models (name, version, created_by, model, spec, deployed)
SELECT 'upg_churn', 3, 'gbdt_upg_alice', model,
       '{"relation": "upg_data.secret", "target": "yb", "features": ["x1", "x2", "x3"],
         "objective": "binary:logistic", "params": {"num_round": 6}, "deploy": "always"}', true
FROM upg_data.models WHERE k = 'binary';
RESET ROLE;
CREATE TABLE upg_data.registry_before AS
SELECT name, version, created_at, created_by, model::text AS txt, spec, metrics, deployed FROM gbdt_models;
CREATE TABLE upg_data.pred_registry AS
SELECT t.id, gbdt_predict(gbdt_model('upg_churn'), t) AS p FROM upg_data.t t;
SQL

echo "== test-upgrade: ALTER EXTENSION gbdt UPDATE TO '$NEW'"
upd_out=$(psql_db "$DB_A" -c "ALTER EXTENSION gbdt UPDATE TO '$NEW'" 2>&1) \
  || fail "ALTER EXTENSION gbdt UPDATE TO '$NEW' failed: $upd_out"
echo "$upd_out"
echo "$upd_out" | grep -q 'WARNING:  gbdt 0.3: 2 training spec(s) of 1 model name(s), stored before this update, are quarantined' \
  || fail "ALTER EXTENSION gbdt UPDATE gave no WARNING about the 2 quarantined specs"

# ---- fresh install ---------------------------------------------------------
echo "== test-upgrade: database $DB_B: CREATE EXTENSION gbdt"
psql_db "$DB_B" <<SQL || fail "fresh install failed"
CREATE EXTENSION gbdt;
-- The grants A's 0.1 setup made on the extension's table (part of the dump).
GRANT SELECT, INSERT, UPDATE ON gbdt_models TO gbdt_upg_alice, gbdt_upg_mallory;
SQL
for db in "$DB_A" "$DB_B"; do
  v=$(psql_db "$db" -At -c "SELECT extversion FROM pg_extension WHERE extname = 'gbdt'")
  [ "$v" = "$NEW" ] || fail "$db has gbdt version '$v', expected '$NEW'"
done

# ---- (1) every object of the extension the same --------------------------------
# --binary-upgrade makes pg_dump write each member of the extension (a plain
# dump writes only CREATE EXTENSION).  OIDs, relfilenodes, xids and LSNs
# differ between the databases by nature and are masked; user data in A
# (schema upg_data) is left out.
dump_schema() {
  "$BIN/pg_dump" --schema-only --binary-upgrade --exclude-schema=upg_data "$1" |
    sed -E -e '/^\\(un)?restrict /d' \
           -e '/binary_upgrade_set_next|binary_upgrade_create_empty_extension|relfrozenxid|^WHERE oid = /{
                 s/[0-9A-F]+\/[0-9A-F]+/LSN/g; s/[0-9]+/N/g; }'
}
dump_schema "$DB_A" >"$WORK/a.sql" || fail "pg_dump of $DB_A failed"
dump_schema "$DB_B" >"$WORK/b.sql" || fail "pg_dump of $DB_B failed"
# From PostgreSQL 17 on, the array type of each type and the row type of each
# table are extension members too; pg_dump creates them with their type or
# table, with no ALTER EXTENSION ADD of their own: they are not counted.
n_members=$(psql_db "$DB_B" -At -c "SELECT count(*) FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
                                    WHERE e.extname = 'gbdt' AND d.deptype = 'e'
                                      AND NOT (d.classid = 'pg_type'::regclass AND EXISTS (
                                        SELECT 1 FROM pg_type t WHERE t.oid = d.objid
                                          AND (EXISTS (SELECT 1 FROM pg_type elem WHERE elem.typarray = t.oid)
                                               OR (t.typrelid <> 0 AND (SELECT relkind FROM pg_class
                                                                        WHERE oid = t.typrelid) <> 'c'))))")
n_added=$(grep -c '^ALTER EXTENSION gbdt ADD ' "$WORK/b.sql")
if ! diff -u --label "updated $OLD->$NEW ($DB_A)" --label "fresh $NEW ($DB_B)" "$WORK/a.sql" "$WORK/b.sql" >"$WORK/diff"; then
  cat "$WORK/diff"
  fail "the updated extension differs from a fresh $NEW install (diff above: - updated, + fresh)"
fi
[ "$n_added" -gt 0 ] && [ "$n_added" = "$n_members" ] \
  || fail "the dump lists $n_added extension members, the catalog $n_members"
echo "== test-upgrade: $n_members extension members identical ($(wc -l <"$WORK/b.sql") dump lines compared)"

# ---- (2) data stored under 0.1 ---------------------------------------------------
echo "== test-upgrade: data stored under $OLD, after the update"
out=$(psql_db "$DB_A" -At 2>&1 <<'SQL'
-- Each check prints "bad: ..." when it fails.
SELECT 'bad: model text changed for ' || string_agg(m.k, ', ')
FROM upg_data.models m JOIN upg_data.models_text x USING (k) WHERE m.model::text <> x.txt HAVING count(*) > 0;
SELECT 'bad: ' || count(*) || ' predictions differ after the update'
FROM upg_data.models m JOIN upg_data.t t ON true JOIN upg_data.pred p ON p.k = m.k AND p.id = t.id
WHERE gbdt_predict(m.model, t) IS DISTINCT FROM p.p OR gbdt_predict(m.model, ARRAY[t.x1, t.x2, t.x3]) IS DISTINCT FROM p.pa
HAVING count(*) > 0;
SELECT 'bad: expected 6000 stored predictions, found ' || count(*) FROM upg_data.pred HAVING count(*) <> 6000;
SELECT 'bad: registry rows changed: ' || count(*)
FROM upg_data.registry_before b FULL JOIN gbdt_models m USING (name, version)
WHERE (b.created_at, b.created_by, b.txt, b.spec, b.metrics, b.deployed)
      IS DISTINCT FROM (m.created_at, m.created_by, m.model::text, m.spec, m.metrics, m.deployed)
HAVING count(*) > 0;
SELECT 'bad: gbdt_model(''upg_churn'') scores ' || count(*) || ' rows differently'
FROM upg_data.t t JOIN upg_data.pred_registry p USING (id)
WHERE gbdt_predict(gbdt_model('upg_churn'), t) IS DISTINCT FROM p.p HAVING count(*) > 0;
SELECT 'bad: a spec stored under 0.1 is not quarantined: ' || string_agg(name || ' ' || version, ', ')
FROM gbdt_models WHERE spec IS NOT NULL AND NOT spec_quarantined HAVING count(*) > 0;
SELECT 'bad: owners ' || coalesce(string_agg(format('%s=%s', name, owner), ', ' ORDER BY name), 'none')
FROM gbdt_model_names
HAVING coalesce(string_agg(format('%s=%s', name, owner), ', ' ORDER BY name), '')
       <> format('upg_admin=%s, upg_churn=gbdt_upg_alice', current_user);
-- Each statement below that must fail runs in a DO block printing "bad:"
-- when it does not fail with the expected SQLSTATE and message.
GRANT SELECT, INSERT ON gbdt_model_names TO gbdt_upg_alice, gbdt_upg_mallory;
SET ROLE gbdt_upg_alice;
-- The owner's nightly retrain meets mallory's planted, deployed spec: refused.
DO $$ BEGIN
  PERFORM gbdt_retrain('upg_churn');
  RAISE NOTICE 'bad: the retrain ran the spec mallory planted under 0.1';
EXCEPTION WHEN object_not_in_prerequisite_state THEN
  IF SQLERRM NOT LIKE '%version 3 of model "upg_churn" is quarantined%' THEN
    RAISE NOTICE 'bad: the retrain of the planted spec failed with: %', SQLERRM;
  END IF;
END $$;
-- Her own 0.1 spec too, until she approves it.
DO $$ BEGIN
  PERFORM gbdt_retrain('upg_churn', version => 1);
  RAISE NOTICE 'bad: the retrain ran a 0.1 spec before its approval';
EXCEPTION WHEN object_not_in_prerequisite_state THEN NULL;
END $$;
RESET ROLE;
-- Approval by a non-owner is refused.
SET ROLE gbdt_upg_mallory;
DO $$ BEGIN
  PERFORM gbdt_approve_spec('upg_churn', 3);
  RAISE NOTICE 'bad: gbdt_upg_mallory approved a spec of alice''s name';
EXCEPTION WHEN insufficient_privilege THEN NULL;
END $$;
RESET ROLE;
SELECT 'bad: the planted spec is no longer quarantined'
WHERE NOT (SELECT spec_quarantined FROM gbdt_models WHERE name = 'upg_churn' AND version = 3);
-- The owner approves her own spec and retrains from it.
SET ROLE gbdt_upg_alice;
SELECT gbdt_approve_spec('upg_churn', 1);
SELECT 'bad: retrain by the owner gave version ' || v FROM gbdt_retrain('upg_churn', version => 1) v WHERE v <> 4;
DO $$ BEGIN
  PERFORM gbdt_retrain('upg_churn', version => 3);
  RAISE NOTICE 'bad: the retrain ran the planted spec after another version''s approval';
EXCEPTION WHEN object_not_in_prerequisite_state THEN NULL;
END $$;
RESET ROLE;
SELECT 'bad: version 4 not saved by gbdt_upg_alice from the approved spec'
WHERE NOT EXISTS (SELECT 1 FROM gbdt_models WHERE name = 'upg_churn' AND version = 4 AND created_by = 'gbdt_upg_alice'
                  AND spec->>'relation' = 'upg_data.t' AND NOT spec_quarantined);
-- Another role cannot save under it.
SET ROLE gbdt_upg_mallory;
DO $$ BEGIN
  PERFORM gbdt_save('upg_churn', (SELECT model FROM upg_data.models WHERE k = 'binary'));
  RAISE NOTICE 'bad: gbdt_upg_mallory saved a version of upg_churn';
EXCEPTION WHEN insufficient_privilege THEN NULL;
END $$;
RESET ROLE;
SELECT 'checked';
SQL
)
rc=$?
echo "$out"
if echo "$out" | grep -q 'bad:'; then
  fail "$(echo "$out" | grep 'bad:' | sed 's/.*bad: //' | paste -sd ';' -)"
fi
[ "$rc" = 0 ] || fail "the data checks stopped: $(echo "$out" | grep -m1 'ERROR:')"
echo "$out" | grep -qx 'checked' || fail "the data checks did not finish"

# ---- (3) DROP EXTENSION warns before deleting the saved versions -------------
# Any role may issue DROP EXTENSION (the ownership check comes after the event
# trigger): mallory's warning counts only the rows she may read (the two
# deployed versions), never the registry's 5.
m_out=$(psql_db "$DB_A" -c "SET ROLE gbdt_upg_mallory" -c "DROP EXTENSION gbdt" 2>&1)
echo "$m_out"
echo "$m_out" | grep -q 'must be owner of extension gbdt' || fail "DROP EXTENSION gbdt by gbdt_upg_mallory did not fail: $m_out"
echo "$m_out" | grep -q 'WARNING:  DROP EXTENSION gbdt deletes the model registry public.gbdt_models with every saved version (role gbdt_upg_mallory can read 2 of them)' \
  || fail "DROP EXTENSION gbdt by gbdt_upg_mallory: not the warning with the 2 rows she may read"
drop_out=$(psql_db "$DB_A" -c "DROP EXTENSION gbdt CASCADE" 2>&1) || fail "DROP EXTENSION gbdt failed: $drop_out"
echo "$drop_out"
echo "$drop_out" | grep -q 'WARNING:  DROP EXTENSION gbdt deletes the model registry: 5 saved version(s) of 2 model name(s)' \
  || fail "DROP EXTENSION gbdt gave no warning about the 5 saved versions"

echo "test-upgrade: ok: $OLD->$NEW: $n_members extension members identical to a fresh install;" \
     "3 user-table models (6000 predictions) and 4 registry rows from $OLD unchanged and scoring the same; owners migrated;" \
     "specs from $OLD quarantined (a planted one refused, approval by a non-owner refused); DROP EXTENSION warned"
