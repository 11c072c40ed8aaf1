#!/usr/bin/env bash
# Throw-away PostgreSQL clusters for distributed training: a coordinator and
# shards on loopback TCP ports, gbdt installed in each, and postgres_fdw
# servers s1..s(N-1) on the coordinator reaching the shards as a
# password-authenticated non-superuser.
#
#   source scripts/shard-clusters.sh start [N] [BASEPORT]   # N clusters (default 3)
#   shard_psql PORT [ROLE] [psql args...]                  # psql to one cluster
#   shard_clusters_stop                                     # stop and remove them
#   bash scripts/shard-clusters.sh stop                     # the same, GBDT_SHARDS_DIR set
#   bash scripts/shard-clusters.sh check [N]                # start, check, stop (self test)
#
# Cluster 0 is the coordinator (port BASEPORT), cluster k the shard behind
# server "sk" (port BASEPORT+k).  After start:
#   GBDT_COORD_PORT   the coordinator's port
#   GBDT_SHARD_PORTS  the shards' ports, space separated, in server order
#   GBDT_SHARDS_DIR   the temp dir holding every cluster (cK/data, cK/server.log)
#   GBDT_SHARD_ROLE / GBDT_SHARD_PASSWORD  the non-superuser role on every
#                     cluster and its password (the user mappings carry it)
# Every cluster: database gbdt_test, socket in its own dir (trust, for the
# superuser postgres), TCP on 127.0.0.1 only with scram-sha-256.  The
# servers' binaries are those of `pg_config --bindir` (GBDT_PG_BINDIR);
# as root the clusters belong to user postgres.

GBDT_PG_BINDIR=${GBDT_PG_BINDIR:-$(pg_config --bindir)}
GBDT_SHARD_ROLE=gbdt_shard
GBDT_SHARD_PASSWORD=${GBDT_SHARD_PASSWORD:-gbdt_shard_pw}
export GBDT_SHARD_ROLE GBDT_SHARD_PASSWORD

shard_as_owner() {
  if [ "$(id -u)" = 0 ]; then
    (cd "$GBDT_SHARDS_DIR" && runuser -u postgres -- "$@")
  else
    (cd "$GBDT_SHARDS_DIR" && "$@")
  fi
}

# The socket dir of the cluster on PORT.
shard_sockdir() {
  local k=$(($1 - GBDT_COORD_PORT))
  echo "$GBDT_SHARDS_DIR/c$k"
}

# psql as ROLE (default postgres) to the cluster on PORT, over its socket.
shard_psql() {
  local port=$1 role=${2:-postgres}
  shift; [ $# -gt 0 ] && shift
  "$GBDT_PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$(shard_sockdir "$port")" -p "$port" \
    -U "$role" -d gbdt_test "$@"
}

shard_port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

shard_cluster_start() {  # k port
  local k=$1 port=$2 dir=$GBDT_SHARDS_DIR/c$1
  mkdir -p "$dir" && chmod 755 "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  if ! shard_as_owner "$GBDT_PG_BINDIR/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 \
      --locale=C.UTF-8 >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2; echo "shard-clusters: initdb of cluster $k failed" >&2; return 1
  fi
  # Local socket: trust (the superuser's scripts); TCP: password only.
  printf '%s\n' 'local all all trust' 'host all all 127.0.0.1/32 scram-sha-256' \
    | shard_as_owner tee "$dir/data/pg_hba.conf" >/dev/null
  if ! shard_as_owner "$GBDT_PG_BINDIR/pg_ctl" -D "$dir/data" -w -t 60 -l "$dir/server.log" \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c shared_preload_libraries= -c password_encryption=scram-sha-256" \
      start >/dev/null; then
    tail -n 30 "$dir/server.log" >&2; echo "shard-clusters: cluster $k did not start" >&2; return 1
  fi
  "$GBDT_PG_BINDIR/createdb" -h "$dir" -p "$port" -U postgres gbdt_test || return 1
  shard_psql "$port" postgres <<SQL || return 1
CREATE ROLE $GBDT_SHARD_ROLE LOGIN PASSWORD '$GBDT_SHARD_PASSWORD';
CREATE EXTENSION gbdt;
GRANT USAGE, CREATE ON SCHEMA public TO $GBDT_SHARD_ROLE;
SQL
}

# Servers s1..s(N-1) on the coordinator, with USAGE and a password mapping
# for the non-superuser role.
shard_coordinator_setup() {
  local k=1 port
  shard_psql "$GBDT_COORD_PORT" postgres -c 'CREATE EXTENSION postgres_fdw' || return 1
  for port in $GBDT_SHARD_PORTS; do
    shard_psql "$GBDT_COORD_PORT" postgres <<SQL || return 1
CREATE SERVER s$k FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '127.0.0.1', port '$port', dbname 'gbdt_test');
GRANT USAGE ON FOREIGN SERVER s$k TO $GBDT_SHARD_ROLE;
CREATE USER MAPPING FOR $GBDT_SHARD_ROLE SERVER s$k
  OPTIONS (user '$GBDT_SHARD_ROLE', password '$GBDT_SHARD_PASSWORD');
SQL
    k=$((k + 1))
  done
}

shard_clusters_start() {
  local n=${1:-3} base=${2:-${GBDT_SHARD_BASEPORT:-56140}} k
  if [ "$n" -lt 2 ]; then echo "shard-clusters: need a coordinator and a shard (N >= 2)" >&2; return 1; fi
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  fi
  for ((k = 0; k < n; k++)); do
    shard_port_free $((base + k)) || { echo "shard-clusters: port $((base + k)) is in use" >&2; return 1; }
  done
  GBDT_SHARDS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gbdt-shards.XXXXXX")
  chmod 755 "$GBDT_SHARDS_DIR"
  [ "$(id -u)" = 0 ] && chown postgres: "$GBDT_SHARDS_DIR"
  GBDT_COORD_PORT=$base
  GBDT_SHARD_PORTS=$(seq -s ' ' $((base + 1)) $((base + n - 1)))
  export GBDT_SHARDS_DIR GBDT_COORD_PORT GBDT_SHARD_PORTS
  echo "== shard clusters: $n in $GBDT_SHARDS_DIR (coordinator $GBDT_COORD_PORT, shards $GBDT_SHARD_PORTS)"
  for ((k = 0; k < n; k++)); do
    shard_cluster_start "$k" $((base + k)) || { shard_clusters_stop; return 1; }
  done
  shard_coordinator_setup || { shard_clusters_stop; return 1; }
}

shard_clusters_stop() {
  local d
  [ -n "${GBDT_SHARDS_DIR:-}" ] && [ -d "$GBDT_SHARDS_DIR" ] || return 0
  for d in "$GBDT_SHARDS_DIR"/c*/data; do
    [ -f "$d/postmaster.pid" ] || continue
    shard_as_owner "$GBDT_PG_BINDIR/pg_ctl" -D "$d" -m fast -w -t 30 stop >/dev/null 2>&1 \
      || shard_as_owner "$GBDT_PG_BINDIR/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1 || true
  done
  rm -rf "$GBDT_SHARDS_DIR"
  echo "== shard clusters: stopped and removed"
  unset GBDT_SHARDS_DIR
}

# Self test: every shard answers postgres_fdw as the password-authenticated
# role; a mapping without the password is refused; stop leaves nothing.
shard_clusters_check() {
  local fails=0 k=1 port got
  shard_clusters_start "${1:-3}" "${2:-}" || return 1
  local dir=$GBDT_SHARDS_DIR ports="$GBDT_COORD_PORT $GBDT_SHARD_PORTS"
  for port in $GBDT_SHARD_PORTS; do
    shard_psql "$port" postgres -c "CREATE VIEW whoami AS SELECT current_user::text AS who, inet_server_port() AS port; GRANT SELECT ON whoami TO $GBDT_SHARD_ROLE" || fails=1
    shard_psql "$GBDT_COORD_PORT" postgres -c "CREATE FOREIGN TABLE whoami_s$k (who text, port int) SERVER s$k OPTIONS (table_name 'whoami'); GRANT SELECT ON whoami_s$k TO $GBDT_SHARD_ROLE" || fails=1
    got=$(shard_psql "$GBDT_COORD_PORT" "$GBDT_SHARD_ROLE" -At -c "SELECT who || ' ' || port FROM whoami_s$k")
    if [ "$got" = "$GBDT_SHARD_ROLE $port" ]; then echo "ok: s$k reached as $got"; else echo "FAIL: s$k: '$got'"; fails=1; fi
    k=$((k + 1))
  done
  # Without the password the shard refuses the role (scram over TCP).
  shard_psql "$GBDT_COORD_PORT" postgres -c "ALTER USER MAPPING FOR $GBDT_SHARD_ROLE SERVER s1 OPTIONS (SET password 'wrong')"
  if shard_psql "$GBDT_COORD_PORT" "$GBDT_SHARD_ROLE" -At -c "SELECT who FROM whoami_s1" 2>/dev/null; then
    echo "FAIL: a wrong password reached s1"; fails=1
  else echo "ok: a wrong password is refused by s1"; fi
  shard_clusters_stop
  for port in $ports; do
    shard_port_free "$port" || { echo "FAIL: port $port still listening after stop"; fails=1; }
  done
  [ -e "$dir" ] && { echo "FAIL: $dir left behind"; fails=1; }
  pgrep -f -- "$dir" >/dev/null && { echo "FAIL: a process of $dir still runs"; fails=1; }
  [ $fails = 0 ] && echo "ok: stop left no server and no files" && echo "shard-clusters check: PASS"
  return $fails
}

case "${1:-}" in
  start) shard_clusters_start "${2:-3}" "${3:-}" ;;
  stop) shard_clusters_stop ;;
  check) shard_clusters_check "${2:-3}" "${3:-}" ;;
  "") ;;
  *) echo "usage: shard-clusters.sh start [N] [BASEPORT] | stop | check [N] [BASEPORT]" >&2; false ;;
esac
