#!/usr/bin/env bash
# The unit tests and the pgTAP suite under AddressSanitizer + UBSan:
#
#   bash scripts/test-sanitize.sh [short|full]     (default short; make sanitize = full)
#
#  1. copies the tree (git ls-files: tracked and untracked, not ignored) into a
#     build dir and builds there with make SANITIZE=1 CUDA=off (gcc,
#     -fsanitize=address,undefined -fno-sanitize-recover=undefined
#     -fno-omit-frame-pointer -O1 -g): the normal
#     build is not touched;
#  2. copies the PostgreSQL installation that pg_config names (lib/postgresql/N,
#     share/postgresql/N, include/postgresql/N) into a temp prefix and installs
#     the sanitizer gbdt.so there;
#  3. runs the engine unit tests (short: a gtest filter, full: all);
#  4. starts a throw-away cluster from the copy (scripts/lib-cluster.sh) with
#     libasan and libubsan preloaded into the server (PostgreSQL itself is not
#     instrumented; scripts/sanitize-preinit.c avoids a start-up deadlock), loads the pgTAP data (scripts/lib-testdata.sh) and runs
#     pg_prove (short: train/predict/predict_table/evaluate/import/registry
#     files, full: every file of test/sql/schedule);
#  5. fails if a test failed, if a sanitizer report appears in the test output,
#     the server log or the sanitizer log files, or if a server process crashed.
# The last line is "test-sanitize: ok: ..." or "test-sanitize: FAIL: ...".
#
# Environment: GBDT_SANITIZE_BUILD (build dir, default build/sanitize: kept,
# rebuilt incrementally), GBDT_SANITIZE_DATA_DIR (CSV files that
# test/parity/reference.py wrote; default: run it, ~1 min), GBDT_SHARED,
# GBDT_SANITIZE_PGPORT (default 5435; the socket is in the cluster's temp dir),
# GBDT_SANITIZE_TESTS (pgTAP files), GBDT_SANITIZE_GTEST_FILTER,
# GBDT_SANITIZE_SOAK=SECONDS also runs scripts/soak.sh against the sanitizer cluster,
# GBDT_KEEP_CLUSTER=1 keeps the cluster dir (server log, sanitizer logs).
set -uo pipefail

MODE=${1:-short}
case $MODE in short | full) ;; *) echo "usage: $0 [short|full]" >&2; exit 2 ;; esac
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SHARED=${GBDT_SHARED:-$ROOT/../shared}
PY=${PYTHON:-python3}
JOBS=$(nproc 2>/dev/null || echo 2)
T0=$(date +%s)

if [ "$MODE" = short ]; then
  # Every test but the two slowest under ASan (4 s each: a corruption sweep
  # and thread-count determinism); the full run adds them.
  GTEST_FILTER=${GBDT_SANITIZE_GTEST_FILTER:-'*-ModelFormat.ChecksumFixedCorruptionStillValidated:Training.DeterministicAcrossThreadCounts'}
  PG_TESTS=${GBDT_SANITIZE_TESTS:-"test/sql/type/model_type.sql test/sql/train/train_predict.sql test/sql/safety/error_messages.sql test/sql/score/predict_table.sql test/sql/registry/registry.sql test/sql/interop/xgboost_json.sql test/sql/load/raw_pass.sql test/sql/load/deformed_pass.sql test/sql/load/tuple_walk.sql"}
else
  GTEST_FILTER=${GBDT_SANITIZE_GTEST_FILTER:-'*'}
  PG_TESTS=${GBDT_SANITIZE_TESTS:-$(bash scripts/pgtap-schedule.sh)} || exit 1
fi

fail() {
  echo "test-sanitize: FAIL: $*"
  exit 1
}
# The reports the sanitizers write, and the postmaster's lines about a crashed child.
SAN_PATTERN='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|SUMMARY: (Address|UndefinedBehavior)Sanitizer'
CRASH_PATTERN='terminated by signal|was terminated|server process .* exited with exit code [^01]|PANIC'

# ---- 1. a private copy of the tree, built with the sanitizers --------------
BUILD=${GBDT_SANITIZE_BUILD:-$ROOT/build/sanitize}
SRC=$BUILD/src
mkdir -p "$SRC"
echo "== test-sanitize ($MODE): copying the tree to $SRC"
git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
  [ -f "$f" ] && printf '%s\0' "$f"
done >"$BUILD/files.new"
# Files gone from the tree since the last copy go from the copy too.
if [ -f "$BUILD/files" ]; then
  comm -z -23 <(sort -z "$BUILD/files") <(sort -z "$BUILD/files.new") \
    | (cd "$SRC" && xargs -0 -r rm -f --)
fi
mv "$BUILD/files.new" "$BUILD/files"
# tar keeps modification times: unchanged files are not rebuilt.  make does
# not track flags: a changed Makefile (SAN_FLAGS) rebuilds everything.
mk_before=$(cat "$SRC/Makefile" 2>/dev/null | cksum)
tar --null -T "$BUILD/files" -cf - | tar -xf - -C "$SRC" || fail "copying the tree"
if [ "$(cksum <"$SRC/Makefile")" != "$mk_before" ]; then
  find "$SRC" \( -name '*.o' -o -name '*.so' \) -type f -delete
  rm -rf "$SRC/build"
fi

PG_BINDIR_SRC=$(pg_config --bindir) || fail "pg_config not found"
PGMAJ=$(pg_config --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
PG_PREFIX_SRC=${PG_BINDIR_SRC%/lib/postgresql/$PGMAJ/bin}
[ "$PG_PREFIX_SRC" != "$PG_BINDIR_SRC" ] || fail "unexpected PostgreSQL layout: $PG_BINDIR_SRC"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gbdt-sanitize.XXXXXX")
chmod 755 "$WORK"
cleanup_work() { rm -rf "$WORK"; }
PREFIX=$WORK/pg
echo "== test-sanitize: copying PostgreSQL $PGMAJ from $PG_PREFIX_SRC to $PREFIX"
for d in lib/postgresql/$PGMAJ share/postgresql/$PGMAJ include/postgresql/$PGMAJ; do
  mkdir -p "$PREFIX/$(dirname "$d")"
  cp -a "$PG_PREFIX_SRC/$d" "$PREFIX/$d" || { cleanup_work; fail "copying $PG_PREFIX_SRC/$d"; }
done
PG_BIN=$PREFIX/lib/postgresql/$PGMAJ/bin
PGCFG=$PG_BIN/pg_config
[ "$("$PGCFG" --bindir)" = "$PG_BIN" ] || { cleanup_work; fail "the copied pg_config reports $("$PGCFG" --bindir)"; }

echo "== test-sanitize: make SANITIZE=1 CUDA=off (in $SRC)"
MK=(make -C "$SRC" -j"$JOBS" CUDA=off SANITIZE=1 PG_CONFIG="$PGCFG")
BUILD_LOG=$WORK/build.log
if ! { "${MK[@]}" all build/unit_tests && make -C "$SRC" CUDA=off SANITIZE=1 PG_CONFIG="$PGCFG" install; } >"$BUILD_LOG" 2>&1; then
  tail -n 40 "$BUILD_LOG"
  cleanup_work
  fail "sanitizer build failed"
fi
[ "$(nm -D "$SRC/gbdt.so" | grep -c __asan_)" -gt 0 ] || { cleanup_work; fail "gbdt.so is not instrumented"; }
echo "== test-sanitize: built in $(($(date +%s) - T0)) s"

ASAN_LIB=$(gcc -print-file-name=libasan.so)
UBSAN_LIB=$(gcc -print-file-name=libubsan.so)
for l in "$ASAN_LIB" "$UBSAN_LIB"; do
  [ -f "$l" ] || { cleanup_work; fail "sanitizer runtime $l not found"; }
done
# Without it a preloaded ASan deadlocks in postgres's start (see the file).
PREINIT=$WORK/sanitize-preinit.so
gcc -shared -fPIC -O1 -o "$PREINIT" "$ROOT/scripts/sanitize-preinit.c" -ldl \
  || { cleanup_work; fail "building scripts/sanitize-preinit.c"; }

# ---- 2. engine unit tests --------------------------------------------------
echo "== test-sanitize: unit tests (--gtest_filter=$GTEST_FILTER)"
UT_LOG=$WORK/unit.log
(cd "$SRC" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ./build/unit_tests --gtest_filter="$GTEST_FILTER") >"$UT_LOG" 2>&1
ut_rc=$?
ut_pass=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$UT_LOG" | tail -n1)
problems=()
if [ "$ut_rc" != 0 ] || grep -q -E "$SAN_PATTERN" "$UT_LOG"; then
  echo "--- unit tests (tail):"; tail -n 60 "$UT_LOG"
  problems+=("unit tests rc $ut_rc")
fi
echo "== test-sanitize: unit tests: ${ut_pass:-0} passed, rc $ut_rc"

# ---- 3. a throw-away cluster with the sanitizer runtime preloaded ----------
GBDT_PG_BINDIR=$PG_BIN
GBDT_CLUSTER_DIR=
# shellcheck source=scripts/lib-cluster.sh
source "$ROOT/scripts/lib-cluster.sh"
# shellcheck source=scripts/lib-testdata.sh
source "$ROOT/scripts/lib-testdata.sh"
PORT=${GBDT_SANITIZE_PGPORT:-5435}
cluster_start "$PORT" || { cleanup_work; fail "cluster did not start"; }
CLUSTER=$GBDT_CLUSTER_DIR
# lib-cluster's EXIT trap stops and removes the cluster; remove the copy too.
trap 'cluster_stop; cleanup_work' EXIT
cluster_as_owner "$PG_BIN/pg_ctl" -D "$CLUSTER/data" -m fast -w stop >/dev/null \
  || fail "could not stop the cluster for the restart"
# Reports go to the server log (stderr) and to $CLUSTER/asan.PID / ubsan.PID.
SAN_ENV=(
  "LD_PRELOAD=$ASAN_LIB $UBSAN_LIB $PREINIT"
  "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1:disable_coredump=1:print_stacktrace=1:log_path=$CLUSTER/asan"
  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1:log_path=$CLUSTER/ubsan"
)
OPTS="-p $PORT -k $CLUSTER -c listen_addresses= -c shared_preload_libraries= -c fsync=off -c jit=off -c max_worker_processes=8"
if ! cluster_as_owner env "${SAN_ENV[@]}" "$PG_BIN/pg_ctl" -D "$CLUSTER/data" -w -t 120 \
      -l "$CLUSTER/server.log" -o "$OPTS" start >/dev/null; then
  cluster_log_tail 30
  fail "server did not start with the sanitizer runtime preloaded"
fi
pm_pid=$(head -n 1 "$CLUSTER/data/postmaster.pid")
grep -q libasan "/proc/$pm_pid/maps" || fail "libasan is not loaded in the postmaster ($pm_pid)"
echo "== test-sanitize: cluster up with libasan + libubsan preloaded (postmaster $pm_pid)"

# ---- 4. pgTAP data and suite -----------------------------------------------
DATA_DIR=${GBDT_SANITIZE_DATA_DIR:-}
if [ -z "$DATA_DIR" ] || [ ! -f "$DATA_DIR/higgs_train.csv" ]; then
  DATA_DIR=$CLUSTER/parity
  echo "== test-sanitize: XGBoost reference (test/parity/reference.py)"
  testdata_reference "$DATA_DIR" "$SHARED" >"$WORK/reference.log" 2>&1 \
    || { tail -n 20 "$WORK/reference.log"; fail "test/parity/reference.py failed"; }
fi
testdata_load "$DATA_DIR" >"$WORK/load.log" 2>&1 || { tail -n 20 "$WORK/load.log"; fail "loading the test data"; }

echo "== test-sanitize: pg_prove $PG_TESTS"
PROVE_LOG=$WORK/pg_prove.out
# shellcheck disable=SC2086
PATH=$PG_BIN:$PATH pg_prove --ext .sql --timer --failures --comments $PG_TESTS >"$PROVE_LOG" 2>&1
prove_rc=$?
prove_line=$(grep -E '^(Files=|Result:)' "$PROVE_LOG" | tr '\n' ' ')
if [ "$prove_rc" != 0 ]; then
  cat "$PROVE_LOG"
  problems+=("pgTAP rc $prove_rc: $prove_line")
fi
echo "== test-sanitize: pgTAP: $prove_line"

# Optionally the soak (scripts/soak.sh) against the sanitizer build: a
# use-after-free after a cancel or terminate is reported even where it would
# not crash.
if [ "${GBDT_SANITIZE_SOAK:-0}" -gt 0 ]; then
  echo "== test-sanitize: soak ${GBDT_SANITIZE_SOAK}s"
  GBDT_SOAK_LOG=$CLUSTER/server.log GBDT_PG_BINDIR=$PG_BIN bash "$ROOT/scripts/soak.sh" "$GBDT_SANITIZE_SOAK" \
    >"$WORK/soak.out" 2>&1
  soak_rc=$?
  tail -n 15 "$WORK/soak.out"
  [ "$soak_rc" = 0 ] || problems+=("soak: $(grep -E '^soak: FAIL' "$WORK/soak.out" | tail -n1 | cut -c1-300)")
fi

# ---- 5. reports and crashes ------------------------------------------------
cluster_as_owner "$PG_BIN/pg_ctl" -D "$CLUSTER/data" -m fast -w -t 60 stop >/dev/null 2>&1
if grep -q -E "$SAN_PATTERN" "$PROVE_LOG"; then problems+=("sanitizer report in the pgTAP output"); fi
san_files=$(find "$CLUSTER" -maxdepth 1 \( -name 'asan.*' -o -name 'ubsan.*' \) | sort)
if [ -n "$san_files" ] || grep -q -E "$SAN_PATTERN" "$CLUSTER/server.log"; then
  problems+=("sanitizer report(s) in the server: $(echo "$san_files" | wc -w) file(s)")
  for f in $san_files; do echo "--- $f:"; head -n 60 "$f"; done
  grep -n -E -A 30 "$SAN_PATTERN" "$CLUSTER/server.log" | head -n 80
fi
if grep -q -E "$CRASH_PATTERN" "$CLUSTER/server.log"; then
  problems+=("server process crashed")
  grep -n -E -B 5 "$CRASH_PATTERN" "$CLUSTER/server.log" | head -n 40
fi

summary="$MODE: unit ${ut_pass:-0} passed, pgTAP $(grep -oE 'Tests=[0-9]+' "$PROVE_LOG" | head -n1) in $(echo "$PG_TESTS" | wc -w) files, no sanitizer report, no crash, $(($(date +%s) - T0)) s"
if [ ${#problems[@]} -gt 0 ]; then
  [ "${GBDT_KEEP_CLUSTER:-0}" = 1 ] && echo "logs kept in $CLUSTER"
  fail "$(printf '%s; ' "${problems[@]}")"
fi
echo "test-sanitize: ok: $summary"
