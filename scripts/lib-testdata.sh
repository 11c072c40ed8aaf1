# The pgTAP suite's data, for a cluster started with scripts/lib-cluster.sh
# (sourced by scripts/test.sh steps 5-6, scripts/test-sanitize.sh and scripts/installcheck.sh).
#
#   source scripts/lib-testdata.sh
#   testdata_reference DIR SHARED   # test/parity/reference.py: splits + XGBoost figures as CSV in DIR
#   testdata_load DIR               # test/parity/schema.sql, then \copy of the CSV files in DIR
#
# Both return non-zero on failure.  cluster_psql and PY (default python3) come
# from the caller.

testdata_reference() {
  local dir=$1 shared=$2 root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  mkdir -p "$dir"
  "${PY:-python3}" "$root/test/parity/reference.py" "$dir" --shared "$shared"
}

testdata_load() {
  local dir=$1 root ok=1 ds part t f
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  cluster_psql -f "$root/test/parity/schema.sql" || return 1
  for ds in higgs multi reg; do
    for part in train test; do
      f=$dir/${ds}_${part}.csv
      [ -f "$f" ] || { echo "missing $f" >&2; ok=0; continue; }
      cluster_psql -c "\\copy ${ds}_${part} FROM '$f' WITH (FORMAT csv, HEADER true)" || ok=0
    done
  done
  for t in parity_reference parity_predictions; do
    f=$dir/$t.csv
    [ -f "$f" ] || { echo "missing $f" >&2; ok=0; continue; }
    cluster_psql -c "\\copy $t FROM '$f' WITH (FORMAT csv, HEADER true)" || ok=0
  done
  cluster_psql -c "VACUUM ANALYZE" || ok=0
  [ "$ok" = 1 ]
}
