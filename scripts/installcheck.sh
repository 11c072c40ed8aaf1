#!/usr/bin/env bash
# make installcheck: the pgTAP suite (test/sql/schedule) with pg_prove against an
# already running server, as the calling user; no root, no initdb, no server
# start.  Connection from the usual libpq variables (PGHOST, PGPORT, PGUSER,
# PGDATABASE); the role must be able to CREATE EXTENSION gbdt and pgtap (and
# create roles, for test/sql/registry/security.sql).  Use a database of its
# own: the suite expects an empty model registry.
#
#   createdb gbdt_check && PGDATABASE=gbdt_check make installcheck
#   PGDATABASE=gbdt_check make installcheck TESTS="test/sql/registry/registry.sql test/sql/registry/*.sql"
#
# The first run loads the suite's fixtures into that database (the tables of
# test/parity/schema.sql, filled from test/parity/reference.py's output: needs
# python3 with numpy + xgboost and the shared data, GBDT_SHARED, default
# ../shared); later runs reuse them.  The full test command, with its own
# throw-away cluster and every other step, is bash scripts/test.sh.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BIN=${GBDT_PG_BINDIR:-$(pg_config --bindir)}
PY=${PYTHON:-python3}
PSQL=("$BIN/psql" -X -q -v ON_ERROR_STOP=1)

if ! "${PSQL[@]}" -At -c "SELECT 1" >/dev/null; then
  echo "installcheck: cannot connect (set PGHOST, PGPORT, PGUSER, PGDATABASE to a running server)" >&2
  exit 2
fi
if ! command -v pg_prove >/dev/null 2>&1; then
  echo "installcheck: pg_prove not found (Debian: apt-get install libtap-parser-sourcehandler-pgtap-perl)" >&2
  exit 2
fi

have=$("${PSQL[@]}" -At -c "SELECT to_regclass('parity_predictions') IS NOT NULL AND to_regclass('cancel_big') IS NOT NULL")
if [ "$have" != t ]; then
  SHARED=${GBDT_SHARED:-$ROOT/../shared}
  echo "== installcheck: loading the test fixtures into $("${PSQL[@]}" -At -c 'SELECT current_database()') (from $SHARED)"
  DATA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gbdt-installcheck.XXXXXX")
  trap 'rm -rf "$DATA_DIR"' EXIT
  # shellcheck source=scripts/lib-testdata.sh
  source scripts/lib-testdata.sh
  cluster_psql() { "${PSQL[@]}" "$@"; }  # what lib-testdata.sh calls
  testdata_reference "$DATA_DIR" "$SHARED" || { echo "installcheck: test/parity/reference.py failed" >&2; exit 2; }
  testdata_load "$DATA_DIR" || exit 2
fi

# TESTS, or the files of test/sql/schedule in its order (scripts/pgtap-schedule.sh
# fails when a test file is missing from the schedule).
if [ -n "${TESTS:-}" ]; then
  # shellcheck disable=SC2206
  TESTS=($TESTS)
else
  list=$(bash scripts/pgtap-schedule.sh) || exit 1
  mapfile -t TESTS <<<"$list"
fi
exec pg_prove --ext .sql --failures "${TESTS[@]}"
