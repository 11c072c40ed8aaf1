# shellcheck shell=bash
# The stages of test/gpu/run.sh (sourced by it, one stage per process).
# Environment from run.sh: MODE (device | emulation), BIN (programs), ROOT,
# LOGS, DATA, WORK, STAGE_BUDGET (seconds this stage may take).  Exit: 0 ok,
# 77 skipped, 78 skipped (emulation), else failed.  Each writes a one-line
# note to $LOGS/<stage>.note for the summary.

note() { echo "$*" >>"$LOGS/$STAGE.note"; echo "note: $*"; }
emu() { [ "$MODE" = emulation ]; }

find_tool() {  # name: the path, from PATH or the CUDA toolkit
  command -v "$1" 2>/dev/null && return
  local d
  for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer /opt/nvidia/*/bin; do
    [ -x "$d/$1" ] && { echo "$d/$1"; return; }
  done
  return 1
}

# The carried data files (test/gpu/.carry/data, prep.sh), else the shared ones.
data_dir() {
  local f
  for f in higgs_7k.train.tsv multiclass_7k.train.tsv; do
    if [ ! -f "$DATA/$f" ]; then
      if [ -f "$ROOT/test/gpu/.carry/data/$f.gz" ]; then
        gunzip -c "$ROOT/test/gpu/.carry/data/$f.gz" >"$DATA/$f"
      elif [ -f "${GBDT_SHARED:-$ROOT/../shared}/data/$f" ]; then
        cp "${GBDT_SHARED:-$ROOT/../shared}/data/$f" "$DATA/$f"
      else
        return 1
      fi
    fi
  done
  echo "$DATA"
}

stage_tools() {
  STAGE=tools
  local bad=0 t v
  for t in g++ nvcc nvidia-smi compute-sanitizer python3 make; do
    v=$(find_tool "$t")
    echo "$t: ${v:-MISSING}"
  done
  if emu; then
    find_tool g++ >/dev/null || { note "g++ missing"; bad=1; }
    note "emulation: nvidia-smi, nvcc, compute-sanitizer not needed (skipped)"
  else
    nvidia-smi || { note "nvidia-smi failed: no driver/GPU"; bad=1; }
    nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader 2>&1 |
      head -1 | sed 's/^/gpu: /' | tee -a "$LOGS/tools.note"
    local nvcc; nvcc=$(find_tool nvcc) || { note "nvcc missing"; bad=1; }
    [ -n "${nvcc:-}" ] && "$nvcc" --version | tail -2
    find_tool g++ >/dev/null || { note "g++ missing"; bad=1; }
    local home cudart=""
    home=$(dirname "$(dirname "${nvcc:-/usr/local/cuda/bin/nvcc}")")
    for t in "$home/lib64" "$home/targets/x86_64-linux/lib"; do
      [ -f "$t/libcudart_static.a" ] && cudart=$t/libcudart_static.a
    done
    [ -n "$cudart" ] && echo "static cudart: $cudart" || { note "libcudart_static.a missing"; bad=1; }
    find_tool compute-sanitizer >/dev/null || note "compute-sanitizer missing (sanitizer stages will fail)"
    find_tool make >/dev/null || note "make missing (not needed: build.sh)"
  fi
  python3 -c 'import numpy, sys; print("python", sys.version.split()[0], "numpy", numpy.__version__)' ||
    note "python3/numpy missing (no XGBoost comparison)"
  ls "$ROOT"/test/gpu/.carry/whl/*.whl 2>/dev/null || note "no carried XGBoost wheel (prep.sh)"
  data_dir >/dev/null || note "no carried data files (prep.sh): the 4 file cases will not run"
  nproc
  df -h /tmp | tail -1
  return $bad
}

stage_build() {
  STAGE=build
  local j; j=$(nproc)
  if emu; then JOBS=$j bash "$ROOT/test/gpu/build.sh" --emulate; else JOBS=$j bash "$ROOT/test/gpu/build.sh"; fi
  local rc=$?
  [ $rc = 0 ] && note "$(emu && echo 'g++ emulation build' || echo 'nvcc sm_90 build') ok" || note "build failed"
  return $rc
}

stage_mathbits() {
  STAGE=mathbits
  "$BIN/gpu_mathbits"
  local rc=$?
  note "$(grep '^gpu_mathbits: [0-9]' "$LOGS/mathbits.log" | tail -1)"
  if emu && [ $rc = 0 ]; then note "emulation: host vs host; the device branches were NOT run"; return 78; fi
  return $rc
}

# gpu_test with the given options; on the first mismatch reruns that case in
# debug + diagnose mode.  Notes the pass/fail count.
equality() {
  local d dopt
  if d=$(data_dir); then dopt=(--data "$d"); else dopt=(--no-files); note "no data files: file cases not run"; fi
  "$BIN/gpu_test" "$@" "${dopt[@]}"
  local rc=$?
  note "$(grep '^gpu_test summary' "$LOGS/$STAGE.log" | tail -1 | sed 's/gpu_test summary: //')"
  if [ $rc = 1 ]; then
    local first
    first=$(grep -m1 '^FAIL ' "$LOGS/$STAGE.log" | sed 's/^FAIL \([^: ]*\).*/\1/')
    note "first failure: $first; diagnosis in $STAGE.diagnose.log"
    GBDT_CUDA_DEBUG=1 GBDT_CUDA_DIAGNOSE=1 timeout 90 "$BIN/gpu_test" --filter "$first" "${dopt[@]}" \
      >"$LOGS/$STAGE.diagnose.log" 2>&1
    note "$(grep -m1 -o 'diagnose: .*' "$LOGS/$STAGE.diagnose.log" | head -c 200)"
  fi
  return $rc
}

# Emulation: the quick stage runs a few cases of each kind, the 15,000
# category case among them (global-memory histograms under the emulated
# 227 KB limit): this CPU emulates every thread, and `make gpuemu` runs all
# quick cases.
EMU_QUICK="n100_d1_reg,n1000_d10_miss50_bin2_binary,cat15000,cat1000_n20k,lg_n7_,lg_mirror_ties_leaves3,n20k_d20_max_leaves_all,n5000_d10_rank_ndcg"

stage_quick() {
  STAGE=quick
  if emu; then
    equality --quick --filter "$EMU_QUICK"
  else
    equality --quick
  fi
  local rc=$?
  if emu && [ $rc = 0 ]; then emu_fault_check || rc=1; fi
  return $rc
}

# Emulation only: the failure path itself.  A fault injected into one 64-bit
# atomic add (GBDT_EMU_FAULT_ATOMIC) must make the case fail and the
# diagnosis name the histograms.
emu_fault_check() {
  local c=n1000_d10_miss50_bin2_reg log=$LOGS/quick.fault.log
  GBDT_EMU_FAULT_ATOMIC=3000 "$BIN/gpu_test" --filter $c --no-files >"$log" 2>&1
  local rc=$?
  GBDT_EMU_FAULT_ATOMIC=3000 GBDT_CUDA_DEBUG=1 GBDT_CUDA_DIAGNOSE=1 "$BIN/gpu_test" --filter $c --no-files >>"$log" 2>&1
  if [ $rc = 1 ] && grep -q 'diagnose: the device and the host part at histograms' "$log"; then
    note "fault injection: mismatch caught, diagnosis names the histograms"
    return 0
  fi
  note "fault injection: NOT caught or not diagnosed (see quick.fault.log)"
  return 1
}

stage_full() {
  STAGE=full
  # Emulation: two of the non-quick cases (a shared data file among them).
  if emu; then equality --not-quick --filter higgs_7k_reg,n5000_d10_survival_aft_extreme; else equality --not-quick; fi
}

# Chosen small shapes per sanitizer: every kernel (histograms in shared and
# global memory, wide bins, chunked mode, subsample, lossguide, categorical,
# multiclass, ranking) under memcheck; the synchronizing kernels (block
# reductions, shared-memory histograms, warp shuffles) under racecheck and
# synccheck; allocation-then-read paths under initcheck.
declare -A SAN_CASES=(
  [memcheck]="n100_d1_,n1000_d10_miss50_bin2_binary,cat1000_n20k,cat15000,lg_n7_,lg_n30k_d12_leaves31_depth0_evict,n30k_d12_chunked_hist_depth10,n20k_d20_max_leaves_all,n5000_d10_rank_ndcg"
  [racecheck]="n1000_d10_miss50_bin2_reg,cat30_n5000_d6,lg_n7_"
  [initcheck]="n100_d1_reg,n1000_d10_miss50_bin2_binary,n20k_d20_max_leaves_all,lg_n7_"
  [synccheck]="n1000_d10_miss50_bin2_multi,lg_n7_,cat1000_n20k"
)

sanitize() {
  local tool=$1 cases=${SAN_CASES[$1]}
  if emu; then
    # The chosen cases must exist (gpu_test refuses a filter matching none)
    # and be quick ones (`make gpuemu` runs them under the emulation).
    local all q
    all=$("$BIN/gpu_test" --filter "$cases" --no-files --list | sort) || { note "case filter broken: $cases"; return 1; }
    q=$("$BIN/gpu_test" --filter "$cases" --no-files --quick --list | sort)
    echo "$all"
    if [ "$all" != "$q" ]; then note "chosen cases not all quick: $(comm -23 <(echo "$all") <(echo "$q") | tr '\n' ' ')"; return 1; fi
    note "compute-sanitizer needs a GPU; its $(echo "$all" | wc -l) chosen cases exist and are quick ones"
    return 78
  fi
  local cs; cs=$(find_tool compute-sanitizer) || { note "compute-sanitizer missing"; return 1; }
  "$cs" --tool "$tool" --error-exitcode 99 --print-limit 20 "$BIN/gpu_test" --filter "$cases" --no-files
  local rc=$?
  local errs; errs=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$LOGS/$STAGE.log" | tail -1)
  case $rc in
    0) note "clean ($errs); $(grep '^gpu_test summary' "$LOGS/$STAGE.log" | sed 's/gpu_test summary: //')" ;;
    99) note "SANITIZER ERRORS: $errs" ;;
    1) note "equality failed under the sanitizer (no sanitizer error): $(grep -m1 '^FAIL' "$LOGS/$STAGE.log" | head -c 150)" ;;
    *) note "exit $rc: $(grep -m1 -i 'error' "$LOGS/$STAGE.log" | head -c 150)" ;;
  esac
  return $rc
}
stage_memcheck() { STAGE=memcheck; sanitize memcheck; }
stage_racecheck() { STAGE=racecheck; sanitize racecheck; }
stage_initcheck() { STAGE=initcheck; sanitize initcheck; }
stage_synccheck() { STAGE=synccheck; sanitize synccheck; }

stage_bench() {
  STAGE=bench
  bash "$ROOT/test/gpu/bench.sh"
}
