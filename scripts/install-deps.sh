#!/usr/bin/env bash
# Installs everything gbdt needs to build, test and benchmark on Debian 12 (run as root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
need_apt=()
# postgresql-15-cron: pg_cron, for the scheduled-retraining recipe (scripts/test-cron.sh).
# Harness: libasan8 + libubsan1 (gcc's ASan/UBSan runtimes, for
# scripts/test-sanitize.sh), clang + libclang-rt-14-dev (libFuzzer), binutils
# (nm), procps (pkill -P in scripts/soak.sh), libpq-dev (the coordinator's
# libpq sessions to shard servers), bc (test/distributed/transport.sh's timings).
for p in postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap pgtap postgresql-15-cron libgtest-dev g++ make python3-pip sudo \
         libasan8 libubsan1 clang libclang-rt-14-dev binutils procps libpq-dev bc; do
  dpkg -s "$p" >/dev/null 2>&1 || need_apt+=("$p")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# Python side: reference implementations for parity tests and benchmarks.
PY=${PYTHON:-python3}
# pandas: the categorical interop test scores DataFrames with category columns.
if ! $PY -c 'import numpy, xgboost, pandas' >/dev/null 2>&1; then
  $PY -m pip install -q --disable-pip-version-check numpy xgboost-cpu pandas 2>/dev/null \
    || $PY -m pip install -q --break-system-packages --disable-pip-version-check numpy xgboost-cpu pandas
fi
# lifelines: ships the GBSG2 survival data set of test/parity/survival_parity.py.
if ! $PY -c 'import lifelines' >/dev/null 2>&1; then
  $PY -m pip install -q --disable-pip-version-check lifelines 2>/dev/null \
    || $PY -m pip install -q --break-system-packages --disable-pip-version-check lifelines
fi
if [ "${GBDT_BENCH_DEPS:-0}" = 1 ] && ! $PY -c 'import lightgbm, pandas, psycopg2' >/dev/null 2>&1; then
  $PY -m pip install -q --disable-pip-version-check lightgbm pandas psycopg2-binary 2>/dev/null \
    || $PY -m pip install -q --break-system-packages --disable-pip-version-check lightgbm pandas psycopg2-binary
fi
