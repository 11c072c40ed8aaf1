#!/usr/bin/env bash
# Runs the libFuzzer targets built by `make fuzz-build` (make fuzz / make
# fuzz-short call this), one after the other on one core.
#   bash test/fuzz/run.sh SECONDS TARGET...
# Corpus per target: build/fuzz/corpus/TARGET (grows across runs), seeded by
# build/fuzz/gen_seeds (real models) and test/fuzz/corpus/TARGET (committed
# seeds and past findings).  Crash/timeout/leak inputs land in
# build/fuzz/artifacts/.  Exit status 1 when any target found something.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
SECONDS_PER_TARGET=${1:?seconds}
shift
B=build/fuzz
mkdir -p "$B/artifacts" "$B/corpus/seeds/model_decoder" "$B/corpus/seeds/xgb_json"
"$B/gen_seeds" "$B/corpus/seeds" || exit 1
failed=0
summary=""
for t in "$@"; do
  mkdir -p "$B/corpus/$t"
  dirs=("$B/corpus/$t")
  [ -d "$B/corpus/seeds/$t" ] && dirs+=("$B/corpus/seeds/$t")
  [ -d "test/fuzz/corpus/$t" ] && dirs+=("test/fuzz/corpus/$t")
  log="$B/$t.log"
  echo "== fuzz $t: ${SECONDS_PER_TARGET}s, corpus ${dirs[*]}"
  # -timeout: one input may take at most 10 s (a hang is a finding);
  # -rss_limit_mb: a model that outgrows its input is a finding.
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$B/fuzz_$t" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$B/artifacts/$t-" "${dirs[@]}" \
      >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -n1)
  if [ "$rc" = 0 ]; then
    echo "   ok: ${runs:-?} runs, ${cov:-cov ?}"
    summary="$summary $t:${runs:-?}"
  else
    echo "   FAIL (rc $rc): see $log and $B/artifacts/"
    tail -n 40 "$log"
    failed=1
    summary="$summary $t:FAIL"
  fi
done
echo "fuzz summary:$summary"
exit "$failed"
