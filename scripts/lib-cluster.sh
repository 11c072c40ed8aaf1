# Throw-away PostgreSQL cluster helpers, sourced by scripts/test.sh and scripts/demo.sh.
#
#   source scripts/lib-cluster.sh
#   cluster_start [PORT]     # initdb in a temp dir, start, createdb; exports PGHOST/PGPORT/PGUSER/PGDATABASE
#   cluster_psql ...         # psql against it (ON_ERROR_STOP, quiet)
#   cluster_stop             # stop and remove it (also runs from the EXIT trap)
#
# PostgreSQL refuses to run as root: when run as root, the cluster belongs to the
# `postgres` system user (created by the Debian package).  The server listens on a
# unix socket inside the temp dir only (listen_addresses=''), so it never clashes
# with another server's TCP port.  Clients connect as role `postgres` (trust auth).

# The server's bin dir (initdb, pg_ctl, createdb, psql): scripts/test.sh sets
# it to the tree of the major under test (GBDT_PG, scripts/fetch-pg.sh);
# otherwise that of the pg_config on PATH.
GBDT_PG_BINDIR=${GBDT_PG_BINDIR:-$(pg_config --bindir)}
GBDT_CLUSTER_DIR=${GBDT_CLUSTER_DIR:-}

# Runs a command as the cluster's owner, from inside the cluster dir (the
# owner may not be able to read the caller's working directory).
cluster_as_owner() {
  if [ "$(id -u)" = 0 ]; then
    (cd "$GBDT_CLUSTER_DIR" && runuser -u postgres -- "$@")
  else
    (cd "$GBDT_CLUSTER_DIR" && "$@")
  fi
}

cluster_start() {
  local port=${1:-${GBDT_PGPORT:-5433}}
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  fi
  GBDT_CLUSTER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gbdt-cluster.XXXXXX")
  chmod 755 "$GBDT_CLUSTER_DIR"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$GBDT_CLUSTER_DIR"; fi
  export GBDT_CLUSTER_DIR
  trap cluster_stop EXIT
  trap 'exit 130' INT TERM

  echo "== cluster: initdb in $GBDT_CLUSTER_DIR (port $port, socket only)"
  if ! cluster_as_owner "$GBDT_PG_BINDIR/initdb" -D "$GBDT_CLUSTER_DIR/data" -U postgres \
        -A trust -E UTF8 --locale=C.UTF-8 >"$GBDT_CLUSTER_DIR/initdb.log" 2>&1; then
    cat "$GBDT_CLUSTER_DIR/initdb.log" >&2
    echo "cluster: initdb failed" >&2
    return 1
  fi
  # -w waits until the server accepts connections.
  if ! cluster_as_owner "$GBDT_PG_BINDIR/pg_ctl" -D "$GBDT_CLUSTER_DIR/data" -w -t 60 \
        -l "$GBDT_CLUSTER_DIR/server.log" \
        -o "-p $port -k $GBDT_CLUSTER_DIR -c listen_addresses= -c shared_preload_libraries= -c fsync=off -c max_worker_processes=8" \
        start >/dev/null; then
    tail -n 50 "$GBDT_CLUSTER_DIR/server.log" >&2 || true
    echo "cluster: server did not start" >&2
    return 1
  fi
  export PGHOST=$GBDT_CLUSTER_DIR PGPORT=$port PGUSER=postgres PGDATABASE=gbdt_test
  unset PGPASSWORD PGSERVICE PGOPTIONS
  "$GBDT_PG_BINDIR/createdb" "$PGDATABASE"
  echo "== cluster: up (PGHOST=$PGHOST PGPORT=$PGPORT PGDATABASE=$PGDATABASE)"
}

cluster_psql() {
  "$GBDT_PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 "$@"
}

cluster_stop() {
  local rc=$?
  if [ -n "${GBDT_CLUSTER_DIR:-}" ] && [ -d "$GBDT_CLUSTER_DIR" ]; then
    if [ -f "$GBDT_CLUSTER_DIR/data/postmaster.pid" ]; then
      cluster_as_owner "$GBDT_PG_BINDIR/pg_ctl" -D "$GBDT_CLUSTER_DIR/data" -m fast -w -t 60 \
        stop >/dev/null 2>&1 \
        || cluster_as_owner "$GBDT_PG_BINDIR/pg_ctl" -D "$GBDT_CLUSTER_DIR/data" -m immediate \
             stop >/dev/null 2>&1 || true
    fi
    if [ "${GBDT_KEEP_CLUSTER:-0}" = 1 ]; then
      echo "== cluster: kept in $GBDT_CLUSTER_DIR (GBDT_KEEP_CLUSTER=1)"
    else
      rm -rf "$GBDT_CLUSTER_DIR"
      echo "== cluster: stopped and removed"
    fi
    GBDT_CLUSTER_DIR=
  fi
  return $rc
}

# Server log of the running cluster (for diagnostics).
cluster_log_tail() {
  [ -n "${GBDT_CLUSTER_DIR:-}" ] && tail -n "${1:-40}" "$GBDT_CLUSTER_DIR/server.log" 2>/dev/null || true
}
