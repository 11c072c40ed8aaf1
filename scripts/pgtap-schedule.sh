#!/usr/bin/env bash
# Prints the pgTAP files of test/sql/schedule in their order, one path per
# line (test/sql/...), for scripts/test.sh and scripts/installcheck.sh.
# Fails (exit 1, the reason on stderr) when a scheduled file does not exist,
# is listed twice, or a .sql file under test/sql outside lib/ is not in the
# schedule, so a new test file cannot be left out of the suite by mistake.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SCHEDULE=test/sql/schedule
[ -f "$SCHEDULE" ] || { echo "pgtap-schedule: $SCHEDULE not found" >&2; exit 1; }

# The scheduled paths: comments and blank lines dropped, whitespace trimmed.
mapfile -t listed < <(sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' "$SCHEDULE" | grep -v '^$' || true)
bad=0
for f in "${listed[@]}"; do
  [ -f "test/sql/$f" ] || { echo "pgtap-schedule: $SCHEDULE lists $f, which does not exist" >&2; bad=1; }
done
dups=$(printf '%s\n' "${listed[@]}" | sort | uniq -d)
[ -z "$dups" ] || { echo "pgtap-schedule: listed twice in $SCHEDULE: $dups" >&2; bad=1; }
missing=$(comm -23 <(cd test/sql && find . -name '*.sql' -not -path './lib/*' | sed 's#^\./##' | LC_ALL=C sort) \
                   <(printf '%s\n' "${listed[@]}" | LC_ALL=C sort))
if [ -n "$missing" ]; then
  echo "pgtap-schedule: these files are not in $SCHEDULE (add them where they should run):" >&2
  printf '  %s\n' $missing >&2
  bad=1
fi
[ "$bad" = 0 ] || exit 1
printf 'test/sql/%s\n' "${listed[@]}"
