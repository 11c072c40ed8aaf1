#!/usr/bin/env bash
# Prepares what a bare GPU machine needs and cannot fetch (it has no network):
# test/gpu/.carry (git-ignored), named in the device tool's `carry` list.
#
#   bash test/gpu/prep.sh [--no-wheel]
#
#   .carry/data/*.tsv.gz   the shared data files of the equality cases
#                          (higgs_7k, multiclass_7k; from $GBDT_SHARED/data)
#   .carry/commit          the commit prepared (summary.txt names it)
#   .carry/whl/*.whl       XGBoost's CUDA 13 build for the benchmark:
#                          xgboost-cu13==3.3.0 from PyPI (about 56.5 MiB; the
#                          full `xgboost` wheel, 131.7 MB, would not fit).  Its
#                          other needs (numpy, scipy, nvidia-nccl-cu13) are in
#                          the GPU machine's image.
#
# Then checks that the working tree that travels (tracked files, untracked
# files git does not ignore, .carry) stays under the tool's 64 MiB.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
C=test/gpu/.carry
SHARED=${GBDT_SHARED:-$ROOT/../shared}
mkdir -p "$C/data" "$C/whl"
for f in higgs_7k.train.tsv multiclass_7k.train.tsv; do
  if [ ! -f "$C/data/$f.gz" ] || [ "$SHARED/data/$f" -nt "$C/data/$f.gz" ]; then
    gzip -9c "$SHARED/data/$f" >"$C/data/$f.gz"
  fi
done
if [ "${1:-}" != "--no-wheel" ] && ! ls "$C"/whl/xgboost_cu13-3.3.0-*.whl >/dev/null 2>&1; then
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$C/whl" xgboost-cu13==3.3.0
fi
# The commit the run tests (the device's copy has no .git): for summary.txt.
git rev-parse --short HEAD >"$C/commit"
tracked=$(git ls-files -z | xargs -0 stat -c %s 2>/dev/null | awk '{s+=$1} END {print s+0}')
untracked=$(git ls-files -z --others --exclude-standard | xargs -0 -r stat -c %s | awk '{s+=$1} END {print s+0}')
carry=$(du -sb "$C" | cut -f1)
total=$((tracked + untracked + carry))
printf 'prep.sh: travels %.1f MiB (tracked %.1f, untracked %.1f, .carry %.1f); limit 64 MiB\n' \
  "$(echo "$total/1048576" | bc -l)" "$(echo "$tracked/1048576" | bc -l)" \
  "$(echo "$untracked/1048576" | bc -l)" "$(echo "$carry/1048576" | bc -l)"
if [ "$total" -ge $((64 * 1024 * 1024)) ]; then
  echo "prep.sh: OVER the 64 MiB limit: remove untracked files or run with --no-wheel" >&2
  exit 1
fi
ls -l "$C"/data "$C"/whl
