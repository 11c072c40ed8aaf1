#!/usr/bin/env bash
# GPU checks of the gbdt CUDA backend, on a machine with an NVIDIA GPU
# (compute capability 8.0 or newer).  From the repository root:
#
#   bash test/gpu/run.sh            # build, equality test, sanitizers, benchmark
#   bash test/gpu/run.sh STAGE...   # only some: build test sanitize bench
#
# Stages:
#   build     make CUDA=on build/gpu_test build/gpu_bench (PostgreSQL not needed).
#             Skipped, with the prebuilt binaries used, when nvcc is absent and
#             build/gpu_test exists (build on a dev machine, copy build/).
#   test      build/gpu_test: CPU-vs-CUDA byte-identical models on all cases.
#   sanitize  compute-sanitizer memcheck (--quick cases), racecheck and
#             initcheck (small cases).
#   bench     build/gpu_bench on 1M and 10M x 28 (500 rounds, depth 8, eta 0.1,
#             256 bins), CPU backend too (on 10M: 50 rounds, extrapolated), and
#             XGBoost device='cuda' on the same data when python3 can import
#             xgboost (test/gpu/xgb_gpu_bench.py).
#
# Environment: OUT (results directory; default test/gpu/results/<UTC time>),
# GBDT_SHARED (directory holding data/, default ../shared), BENCH_ROWS
# (default "1000000 10000000"), BENCH_ROUNDS (500), CPU_ROUNDS_10M (50).
# Exit status: 0 all stages passed, 77 no usable CUDA device (tests skipped),
# else the number of failed stages.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/test/gpu/results/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
export GBDT_SHARED=${GBDT_SHARED:-$ROOT/../shared}
BENCH_ROWS=${BENCH_ROWS:-"1000000 10000000"}
BENCH_ROUNDS=${BENCH_ROUNDS:-500}
CPU_ROUNDS_10M=${CPU_ROUNDS_10M:-50}
STAGES=("$@")
[ ${#STAGES[@]} -eq 0 ] && STAGES=(build test sanitize bench)
want() { local s; for s in "${STAGES[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
failed=0
skipped=0
banner() { echo; echo "==== $* ===="; }
log() { echo "$*" | tee -a "$OUT/summary.txt"; }

banner "host"
{ date -u; uname -a; nvidia-smi 2>&1 | head -15 || true; } | tee "$OUT/host.txt"

NVCC=$(command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)

if want build; then
  banner "build"
  if [ -n "$NVCC" ]; then
    if make -j"$(nproc)" CUDA=on build/gpu_test build/gpu_bench >"$OUT/build.log" 2>&1; then
      log "build: ok"
    else
      tail -30 "$OUT/build.log"
      log "build: FAILED (see $OUT/build.log)"
      failed=$((failed + 1))
    fi
  elif [ -x build/gpu_test ]; then
    log "build: no nvcc here; using the prebuilt build/gpu_test and build/gpu_bench"
  else
    log "build: FAILED: no nvcc and no prebuilt build/gpu_test"
    failed=$((failed + 1))
  fi
fi

if want test; then
  banner "test: CPU vs CUDA equality"
  ./build/gpu_test 2>&1 | tee "$OUT/gpu_test.log"
  rc=${PIPESTATUS[0]}
  if [ "$rc" = 0 ]; then log "test: ok ($(grep -c '^PASS' "$OUT/gpu_test.log") cases byte-identical)"
  elif [ "$rc" = 77 ]; then log "test: SKIPPED (no usable CUDA device)"; skipped=1
  else log "test: FAILED (exit $rc; see $OUT/gpu_test.log)"; failed=$((failed + 1)); fi
fi

if want sanitize; then
  banner "sanitize"
  CS=$(command -v compute-sanitizer 2>/dev/null || ls /usr/local/cuda/bin/compute-sanitizer \
       /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1 || true)
  if [ -z "$CS" ]; then
    log "sanitize: FAILED: compute-sanitizer not found (CUDA toolkit)"
    failed=$((failed + 1))
  else
    run_cs() {  # tool, log name, gpu_test args...
      local tool=$1 name=$2
      shift 2
      "$CS" --tool "$tool" --error-exitcode 99 ./build/gpu_test "$@" >"$OUT/$name.log" 2>&1
      local rc=$?
      tail -5 "$OUT/$name.log"
      if [ "$rc" = 0 ]; then log "sanitize $name: ok"
      elif [ "$rc" = 77 ]; then log "sanitize $name: SKIPPED (no device)"; skipped=1
      else log "sanitize $name: FAILED (exit $rc; see $OUT/$name.log)"; failed=$((failed + 1)); fi
    }
    run_cs memcheck memcheck --quick
    run_cs racecheck racecheck --filter n1000_d10_miss50_bin2
    run_cs initcheck initcheck --filter n100_d1_
  fi
fi

if want bench; then
  banner "bench"
  DATA=$OUT/bench_data
  mkdir -p "$DATA"
  have_xgb=0
  python3 -c "import xgboost, numpy" 2>/dev/null && have_xgb=1
  for rows in $BENCH_ROWS; do
    extra=()
    [ "$rows" -ge 10000000 ] && extra=(--cpu-max-rounds "$CPU_ROUNDS_10M")
    dump=()
    [ "$have_xgb" = 1 ] && dump=(--dump "$DATA")
    ./build/gpu_bench --rows "$rows" --rounds "$BENCH_ROUNDS" --depth 8 --eta 0.1 --max_bin 256 \
        "${extra[@]}" "${dump[@]}" --json "$OUT/gpu_bench_$rows.json" 2>&1 | tee "$OUT/gpu_bench_$rows.log"
    rc=${PIPESTATUS[0]}
    if [ "$rc" = 0 ]; then log "bench $rows: ok"
    elif [ "$rc" = 77 ]; then log "bench $rows: SKIPPED (no device)"; skipped=1; continue
    else log "bench $rows: FAILED (exit $rc)"; failed=$((failed + 1)); continue; fi
    if [ "$have_xgb" = 1 ]; then
      python3 test/gpu/xgb_gpu_bench.py "$DATA" --rows "$rows" --device cuda --rounds "$BENCH_ROUNDS" \
          --depth 8 --eta 0.1 --max_bin 256 --json "$OUT/xgb_$rows.json" 2>&1 | tee "$OUT/xgb_$rows.log"
      if [ "${PIPESTATUS[0]}" = 0 ]; then
        python3 - "$OUT/gpu_bench_$rows.json" "$OUT/xgb_$rows.json" <<'EOF' | tee -a "$OUT/summary.txt"
import json, sys
ours = {r["backend"]: r for r in json.load(open(sys.argv[1])) if "seconds" in r}
x = json.load(open(sys.argv[2]))
if "cuda" in ours:
    g = ours["cuda"]
    t = g["seconds"] + g["binning_s"]
    print("bench %d: gbdt cuda %.2f s (binning %.2f + boosting %.2f), AUC %.5f; "
          "xgboost cuda %.2f s (QuantileDMatrix %.2f + train %.2f), AUC %.5f; "
          "xgboost/gbdt time ratio %.2f" % (g["rows"], t, g["binning_s"], g["seconds"], g["auc"],
          x["total_s"], x["quantile_dmatrix_s"], x["train_s"], x["auc"], x["total_s"] / t))
EOF
      else
        log "bench $rows: xgboost run FAILED"
        failed=$((failed + 1))
      fi
      rm -f "$DATA"/bench_"$rows".*
    else
      log "bench $rows: xgboost not importable by python3; XGBoost comparison not run"
    fi
  done
fi

banner "summary ($OUT)"
cat "$OUT/summary.txt" 2>/dev/null
if [ "$failed" -gt 0 ]; then exit "$failed"; fi
if [ "$skipped" = 1 ]; then exit 77; fi
exit 0
