#!/usr/bin/env bash
# The GPU checks of the gbdt CUDA backend as one run sized to a device lease
# (a bare machine: no PostgreSQL, no network; ~15 minutes of device time a
# session, at most 10 a command, 8 files back from $OUT).  From the
# repository root:
#
#   bash test/gpu/run.sh [--emulate] [--deadline SECONDS] [STAGE...]
#
# Stages, in priority order (each with its own timeout, all under one global
# deadline, default 520 s; a stage that would start past the deadline is
# reported "not run (deadline)"):
#   tools      nvidia-smi, nvcc, g++, libcudart_static.a, compute-sanitizer,
#              python3 + numpy, the carried data and wheel
#   build      test/gpu/build.sh: sm_90 device code only, no make needed
#   mathbits   gpu_mathbits: the shared math (det_math.h, gradients.h) on the
#              device vs the host, bit for bit
#   quick      gpu_test --quick: CPU-vs-CUDA byte-identical models, small cases
#   memcheck racecheck initcheck synccheck
#              compute-sanitizer on chosen small cases (a sanitizer error is
#              told apart from an equality failure)
#   full       gpu_test --not-quick: the remaining cases (up to 2M rows)
#   bench      gbdt CUDA vs XGBoost device=cuda (test/gpu/bench.sh)
# On the first equality mismatch the failing case is rerun with
# GBDT_CUDA_DEBUG=1 (synchronize after every launch, name the kernel) and
# GBDT_CUDA_DIAGNOSE=1 (stage-by-stage comparison with the host's
# computation: gradients, histograms, split, partition).
#
# --emulate: every stage here, without a GPU: the programs are built against
# the CPU emulation (test/gpu/emu); stages that need the device's own tools
# (compute-sanitizer, nvidia-smi) say "skipped (emulation)" after running
# their cases unsanitized, and the benchmark is shrunk.
#
# Output: $OUT (default test/gpu/results/<UTC time>) gets summary.txt (one
# line per stage: verdict, seconds, note), logs.tar.gz (every stage's log,
# each cut to its first and last 200 KB) and bench.json when the benchmark
# ran: at most 3 files.  Logs and scratch data live in $WORK (default
# /tmp/gbdt_gpu_run), never under $OUT.  Data: test/gpu/.carry (prep.sh),
# else $GBDT_SHARED/data.  Exit status: the number of failed stages.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2
SELF="$ROOT/test/gpu/run.sh"
# The CUDA toolkit's and the driver's tools, where a bare image keeps them.
export PATH=$PATH:/usr/local/cuda/bin:/usr/local/cuda/compute-sanitizer:/usr/local/nvidia/bin

# ---- one stage, run in its own process under `timeout` (see main below) ----
if [ "${1:-}" = "__stage" ]; then
  # shellcheck source=test/gpu/stages.sh
  source "$ROOT/test/gpu/stages.sh"
  "stage_$2"
  exit $?
fi

MODE=device
DEADLINE=${GBDT_GPU_DEADLINE:-520}
STAGES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --emulate) MODE=emulation ;;
    --deadline) DEADLINE=$2; shift ;;
    -h|--help) sed -n '2,40p' "$SELF"; exit 0 ;;
    *) STAGES+=("$1") ;;
  esac
  shift
done
ALL=(tools build mathbits quick memcheck racecheck initcheck synccheck full bench)
[ ${#STAGES[@]} -eq 0 ] && STAGES=("${ALL[@]}")
for s in "${STAGES[@]}"; do
  case " ${ALL[*]} " in *" $s "*) ;; *) echo "run.sh: unknown stage $s (stages: ${ALL[*]})"; exit 2 ;; esac
done
# Per-stage timeouts (seconds); each is also cut to the time left.
declare -A LIMIT=([tools]=20 [build]=180 [mathbits]=40 [quick]=150 [memcheck]=90 [racecheck]=75
                  [initcheck]=60 [synccheck]=60 [full]=150 [bench]=330)
# Emulation: the kernels run on this CPU, the sanitizer stages only list their cases.
[ "$MODE" = emulation ] && LIMIT+=([build]=300 [quick]=240 [full]=150 [bench]=120)

OUT=${OUT:-$ROOT/test/gpu/results/$(date -u +%Y%m%dT%H%M%SZ)}
WORK=${WORK:-/tmp/gbdt_gpu_run}
rm -rf "$WORK/logs" "$WORK/bench.json" "$WORK/bench_parts.json"
mkdir -p "$OUT" "$WORK/logs" "$WORK/data"
if [ "$MODE" = emulation ]; then BIN=$ROOT/build/gpu/emu; else BIN=$ROOT/build/gpu/bin; fi
export MODE BIN WORK ROOT LOGS="$WORK/logs" DATA="$WORK/data"
T0=$(date +%s)
SUMMARY=$WORK/summary.txt
{
  echo "gbdt GPU run ($MODE), $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || cat test/gpu/.carry/commit 2>/dev/null || echo '?'), deadline ${DEADLINE} s"
  printf '%-10s %-22s %7s  %s\n' stage verdict seconds note
} >"$SUMMARY"

failed=0
for s in "${STAGES[@]}"; do
  left=$((DEADLINE - ($(date +%s) - T0) - 10))  # 10 s kept for packing up
  lim=${LIMIT[$s]}
  [ "$left" -lt "$lim" ] && lim=$left
  if [ "$lim" -lt 5 ]; then
    printf '%-10s %-22s %7s  %s\n' "$s" "not run (deadline)" 0 "" | tee -a "$SUMMARY"
    continue
  fi
  echo "==== $s (timeout ${lim} s) ===="
  rm -f "$LOGS/$s.note"
  t=$(date +%s)
  STAGE_BUDGET=$lim timeout -k 5 "$lim" bash "$SELF" __stage "$s" >"$LOGS/$s.log" 2>&1
  rc=$?
  dt=$(($(date +%s) - t))
  case $rc in
    0) v=ok ;;
    77) v=skipped ;;
    78) v="skipped (emulation)" ;;
    124|137) v="TIMEOUT (${lim} s)"; failed=$((failed + 1)) ;;
    *) v="FAILED (exit $rc)"; failed=$((failed + 1)) ;;
  esac
  note=$(head -c 300 "$LOGS/$s.note" 2>/dev/null | tr '\n' ' ')
  printf '%-10s %-22s %7s  %s\n' "$s" "$v" "$dt" "$note" | tee -a "$SUMMARY"
  tail -3 "$LOGS/$s.log" | sed 's/^/    /'
  # Without a build nothing else can run.
  if [ "$s" = build ] && [ "$rc" != 0 ]; then
    for r in "${STAGES[@]}"; do
      case $r in tools|build) ;; *) printf '%-10s %-22s %7s\n' "$r" "not run (no build)" 0 | tee -a "$SUMMARY" ;; esac
    done
    break
  fi
done
echo "total $(($(date +%s) - T0)) s, $failed stage(s) failed" >>"$SUMMARY"

# Pack up: summary, one tarball of the logs (each cut to 400 KB), bench.json.
for f in "$LOGS"/*; do
  [ -f "$f" ] || continue
  if [ "$(stat -c %s "$f")" -gt 409600 ]; then
    { head -c 204800 "$f"; printf '\n[... cut by run.sh ...]\n'; tail -c 204800 "$f"; } >"$f.cut" && mv "$f.cut" "$f"
  fi
done
cp "$SUMMARY" "$LOGS/summary.txt"
tar -czf "$OUT/logs.tar.gz" -C "$WORK" logs
cp "$SUMMARY" "$OUT/summary.txt"
[ -f "$WORK/bench.json" ] && cp "$WORK/bench.json" "$OUT/bench.json"
echo
cat "$SUMMARY"
echo "results: $OUT ($(ls "$OUT" | tr '\n' ' '))"
exit "$failed"
