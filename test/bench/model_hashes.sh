#!/usr/bin/env bash
# Model byte-identity guard for performance work on the engine.
#   test/bench/model_hashes.sh            # prints "config sha256" lines
#   test/bench/model_hashes.sh --check F  # compares with a saved list (exit 1 on any change)
# Trains several configurations with build/engine_bench (objectives, sampling,
# thread counts, bins, depth, missing values, wide data) and hashes the
# serialized models (timings zeroed).  Data: ../shared data + gen_synth.py,
# cached under results/hashdata.
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=${GBDT_SHARED:-$(cd .. && pwd)/shared}
make -s build/engine_bench >/dev/null
D=results/hashdata
mkdir -p "$D"
gen() { # name rows args...
  local f=$D/$1.csv; shift
  if [ ! -s "$f" ]; then python3 "$SHARED/tools/gen_synth.py" "$@" > "$f.tmp"; mv -f "$f.tmp" "$f"; fi
}
gen bin60k 60000 --task binary
gen reg60k 60000 --task regression
gen mc30k 30000 --task multiclass
gen miss40k 40000 --task binary --missing 0.3 --seed 7
gen bin300k 300000 --task binary --seed 11
gen wide8k 8000 --features 300 --task binary --seed 3
HIGGS=$SHARED/data/higgs_7k.train.tsv
MC7=$SHARED/data/multiclass_7k.train.tsv
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
out=()
run() { # name file args...
  local name=$1 file=$2; shift 2
  ./build/engine_bench "$file" "$@" model_out="$TMP/m" > "$TMP/o"
  grep -q '"predict_mismatch": 0' "$TMP/o" || { echo "$name: batch predictions differ from the one-row path" >&2; cat "$TMP/o" >&2; exit 1; }
  out+=("$name $(sha256sum "$TMP/m" | cut -c1-64)")
}
for t in 1 2 7; do
  run higgs_nt$t $HIGGS eta=0.1 nthread=$t
  run bin60k_nt$t $D/bin60k.csv eta=0.1 nthread=$t
  run bin60k_sub_col_nt$t $D/bin60k.csv eta=0.1 subsample=0.7 colsample_bytree=0.6 seed=5 nthread=$t
done
run reg60k_d8_nt2 $D/reg60k.csv max_depth=8 num_round=40 nthread=2
run reg60k_bins16_nt7 $D/reg60k.csv max_bin=16 num_round=30 nthread=7 lambda=3 gamma=0.1
run reg60k_mcw_nt1 $D/reg60k.csv min_child_weight=50 alpha=0.5 num_round=30 nthread=1
run mc30k_softprob_nt2 $D/mc30k.csv objective=multi:softprob num_class=5 num_round=15 nthread=2
run mc30k_softprob_sub_nt7 $D/mc30k.csv objective=multi:softprob num_class=5 num_round=10 subsample=0.5 nthread=7
run mc7k_softprob_nt1 $MC7 objective=multi:softprob num_round=20 nthread=1
run mc30k_poisson_nt2 $D/mc30k.csv objective=count:poisson num_round=30 nthread=2
run mc30k_poisson_mds_nt7 $D/mc30k.csv objective=count:poisson max_delta_step=0.3 num_round=20 nthread=7
run miss40k_nt2 $D/miss40k.csv num_round=30 max_depth=7 nthread=2
run miss40k_bins64_nt1 $D/miss40k.csv max_bin=64 num_round=20 nthread=1
run wide8k_nt2 $D/wide8k.csv num_round=10 nthread=2
run wide8k_col_nt7 $D/wide8k.csv num_round=10 colsample_bytree=0.3 nthread=7
run bin300k_sampled_cuts_nt2 $D/bin300k.csv num_round=8 nthread=2
run bin300k_sub_nt7 $D/bin300k.csv num_round=5 subsample=0.5 max_depth=8 nthread=7
run higgs_valid_es_nt2 $HIGGS validation_fraction=0.2 early_stopping_rounds=5 eta=0.3 nthread=2
run higgs_d0_nt2 $HIGGS max_depth=1 num_round=20 nthread=2
run higgs_d12_nt2 $HIGGS max_depth=12 num_round=10 nthread=2
if [ "${1:-}" = --check ]; then
  diff <(printf '%s\n' "${out[@]}") "$2" && echo "model hashes: all ${#out[@]} unchanged"
else
  printf '%s\n' "${out[@]}"
fi
