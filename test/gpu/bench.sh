#!/usr/bin/env bash
# The benchmark stage of test/gpu/run.sh: gbdt's CUDA backend vs XGBoost
# device=cuda on the same generated rows (1M and 10M x 28, binary:logistic,
# depth 8, eta 0.1, 256 bins, 500 rounds), within STAGE_BUDGET seconds.
#   - both warm up first (CUDA context, kernel loads) outside the timings;
#   - binning and boosting are timed apart (gbdt: CPU binning, then the
#     boosting loop incl. the upload; XGBoost: QuantileDMatrix, then train);
#   - each library stops boosting when its share of the time is spent
#     (--max-seconds), so seconds per round is the figure compared;
#   - held-out AUC (rows/5 more rows of the same generator);
#   - gbdt's CUDA model against the CPU backend's, byte for byte, over the
#     CPU's rounds (20 at 1M, 4 at 10M: the CPU backend is not what is timed);
#   - peak device memory of each (nvidia-smi memory.used, sampled every 100 ms,
#     minus the idle value).
# Writes $WORK/bench.json (run.sh returns it) and one note line per size.
# Emulation: 5000 rows, depth 4, 10 rounds, XGBoost on the CPU (device memory not read).
# Environment from run.sh: MODE, BIN, WORK, LOGS, ROOT, STAGE_BUDGET.
set -uo pipefail
B=${STAGE_BUDGET:-300}
START=$(date +%s)
left() { echo $((B - ($(date +%s) - START) - 8)); }
notef=$LOGS/bench.note
note() { echo "$*" >>"$notef"; echo "note: $*"; }
D=$WORK/bench_data
mkdir -p "$D"

# XGBoost from the carried wheel (prep.sh), installed outside the tree.
have_xgb=0
whl=$(ls "$ROOT"/test/gpu/.carry/whl/xgboost*.whl 2>/dev/null | head -1)
if [ -n "$whl" ]; then
  # --ignore-requires-python: the wheel asks for Python 3.12 (the GPU
  # machine's); an older python3 here still runs it for the emulated run.
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --ignore-requires-python \
    --target "$WORK/site" "$whl" && export PYTHONPATH=$WORK/site${PYTHONPATH:+:$PYTHONPATH}
fi
python3 -c 'import xgboost, numpy; print("xgboost", xgboost.__version__)' && have_xgb=1
[ "$have_xgb" = 1 ] || note "xgboost not importable: XGBoost comparison not run"

if [ "$MODE" = emulation ]; then
  SIZES=(5000); CPU_ROUNDS=(10); ROUNDS=10; XDEV=cpu; DEPTH=4
else
  SIZES=(1000000 10000000); CPU_ROUNDS=(20 4); ROUNDS=500; XDEV=cuda; DEPTH=8
fi

# Peak device memory while a command runs (MiB above the idle value).
MON_PID=
mon_start() {  # csv file
  [ "$MODE" = emulation ] && return
  command -v nvidia-smi >/dev/null || return
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$1" 2>/dev/null &
  MON_PID=$!
}
mon_stop() {  # csv file, idle MiB -> peak MiB above idle, or null
  [ -n "$MON_PID" ] && kill "$MON_PID" 2>/dev/null && wait "$MON_PID" 2>/dev/null
  MON_PID=
  [ -s "$1" ] || { echo null; return; }
  sort -n "$1" | tail -1 | awk -v idle="$2" '{print $1 - idle}'
}
idle_mib() {
  [ "$MODE" = emulation ] && { echo 0; return; }
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1 || echo 0
}

bad=0
echo "[]" >"$WORK/bench_parts.json"
for i in "${!SIZES[@]}"; do
  rows=${SIZES[$i]}
  l=$(left)
  # What a size needs besides boosting: data, binning, the CPU rounds, AUC.
  over=$([ "$rows" -ge 10000000 ] && echo 60 || echo 25)
  if [ "$l" -lt $((over + 40)) ]; then
    note "$rows rows: not run ($l s left)"
    continue
  fi
  nleft=$(( ${#SIZES[@]} - i ))
  share=$(( l / nleft ))
  [ "$nleft" -gt 1 ] && share=$(( l * 2 / 5 ))  # the larger size gets the rest
  ms=$(( (share - over) / 2 ))
  [ "$have_xgb" = 1 ] || ms=$(( share - over ))
  echo "== $rows rows: $share s for this size, ${ms} s of boosting per library =="
  idle=$(idle_mib)
  mon_start "$LOGS/mem_gbdt_$rows.csv"
  dump=()
  [ "$have_xgb" = 1 ] && dump=(--dump "$D")
  "$BIN/gpu_bench" --rows "$rows" --rounds "$ROUNDS" --depth "$DEPTH" --eta 0.1 --max_bin 256 \
      --cpu-max-rounds "${CPU_ROUNDS[$i]}" --warmup --max-seconds "$ms" "${dump[@]}" \
      --json "$WORK/gbdt_$rows.json"
  rc=$?
  gmem=$(mon_stop "$LOGS/mem_gbdt_$rows.csv" "$idle")
  [ "$rc" = 0 ] || { note "$rows rows: gpu_bench FAILED (exit $rc)"; bad=1; continue; }
  xj=
  if [ "$have_xgb" = 1 ]; then
    idle=$(idle_mib)
    mon_start "$LOGS/mem_xgb_$rows.csv"
    if python3 "$ROOT/test/gpu/xgb_gpu_bench.py" "$D" --rows "$rows" --device "$XDEV" --rounds "$ROUNDS" \
        --depth "$DEPTH" --eta 0.1 --max_bin 256 --max-seconds "$ms" --json "$WORK/xgb_$rows.json"; then
      xj=$WORK/xgb_$rows.json
    else
      note "$rows rows: XGBoost run FAILED"
    fi
    xmem=$(mon_stop "$LOGS/mem_xgb_$rows.csv" "$idle")
  else
    xmem=null
  fi
  rm -f "$D"/bench_"$rows".*
  python3 - "$WORK/gbdt_$rows.json" "${xj:-none}" "$gmem" "$xmem" "$WORK/bench_parts.json" <<'EOF' |
import json, sys
g_all = json.load(open(sys.argv[1]))
x = json.load(open(sys.argv[2])) if sys.argv[2] != "none" else None
gmem = None if sys.argv[3] == "null" else float(sys.argv[3])
xmem = None if sys.argv[4] == "null" else float(sys.argv[4])
by = {r["backend"]: r for r in g_all}
g = by.get("cuda", {})
c = by.get("cpu", {})
rec = {"rows": g.get("rows"), "features": g.get("features"), "depth": g.get("depth"),
       "gbdt_cuda": {k: g.get(k) for k in ("rounds", "binning_s", "seconds", "seconds_per_round",
                                            "auc", "phases", "error")},
       "gbdt_cpu": {k: c.get(k) for k in ("rounds", "seconds", "seconds_per_round", "auc", "error")},
       "models_equal": g.get("models_equal"), "models_equal_rounds": g.get("equal_rounds"),
       "gbdt_peak_device_mib": gmem, "xgboost": x, "xgboost_peak_device_mib": xmem}
parts = json.load(open(sys.argv[5]))
parts.append(rec)
json.dump(parts, open(sys.argv[5], "w"), indent=1)
ok = "error" not in g and g.get("models_equal") == 1
line = "%s rows: gbdt cuda %s rounds, %.4f s/round, binning %.2f s, AUC %.4f, peak %s MiB, models %s" % (
    g.get("rows"), g.get("rounds"), g.get("seconds_per_round") or 0, g.get("binning_s") or 0,
    g.get("auc") or 0, gmem, "equal over %s rounds" % g.get("equal_rounds") if ok else "NOT EQUAL/ERROR")
if x:
    line += "; xgboost %s: %d rounds, %.4f s/round, QuantileDMatrix %.2f s, AUC %.4f, peak %s MiB" % (
        x["device"], x["rounds_run"], x["seconds_per_round"], x["quantile_dmatrix_s"], x["auc"], xmem)
print(line)
sys.exit(0 if ok else 1)
EOF
  { read -r line; note "$line"; }
  grep -q 'NOT EQUAL/ERROR' "$notef" && bad=1
done
cp "$WORK/bench_parts.json" "$WORK/bench.json"
rm -rf "$D"
exit $bad
