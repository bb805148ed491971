#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests of the PostgreSQL store backend.
#
#   bash tests/pg_server.sh start DIR   initdb in DIR, start postgres on a Unix socket
#                                       in DIR (no TCP), create database traza_test;
#                                       prints "export TRAZA_PG_URI=..." for eval.
#   bash tests/pg_server.sh stop DIR    stop it and remove DIR.
#
# initdb refuses to run as root, so as root the server runs as `nobody` (DIR is
# chowned to it). Exits 1 with a reason on stderr when PostgreSQL cannot be started;
# the tests then skip visibly.
set -u
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

bindir=""
for d in ${TRAZA_PG_BINDIR:-} /usr/lib/postgresql/*/bin /usr/local/bin /usr/bin; do
  if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then bindir=$d; break; fi
done

as_owner() { # runs a command as the server's owner
  if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

case $cmd in
start)
  [ -n "$bindir" ] || { echo "pg_server: initdb/pg_ctl not found (Debian package postgresql)" >&2; exit 1; }
  mkdir -p "$dir" || exit 1
  if [ "$(id -u)" = 0 ]; then
    id nobody >/dev/null 2>&1 || { echo "pg_server: no user 'nobody' to run the server as" >&2; exit 1; }
    chown nobody "$dir" && chmod 700 "$dir"
    # the socket directory must be reachable by root and nobody alike
    parent=$(dirname "$dir"); chmod o+x "$parent" 2>/dev/null
  fi
  as_owner "$bindir/initdb" -D "$dir/data" -U traza -A trust --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
    { echo "pg_server: initdb failed:" >&2; tail -5 "$dir/initdb.log" >&2; exit 1; }
  port=$((20000 + $$ % 20000))
  as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-k $dir -p $port -c listen_addresses= -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=60" \
    start >"$dir/pg_ctl.log" 2>&1 ||
    { echo "pg_server: pg_ctl start failed:" >&2; tail -5 "$dir/server.log" >&2; exit 1; }
  uri="postgresql:///traza_test?host=$dir&port=$port&user=traza"
  if command -v psql >/dev/null; then
    psql -q "postgresql:///postgres?host=$dir&port=$port&user=traza" -c 'CREATE DATABASE traza_test' >/dev/null ||
      { echo "pg_server: cannot create the test database" >&2; exit 1; }
  fi
  echo "export TRAZA_PG_URI='$uri'"
  ;;
stop)
  if [ -d "$dir/data" ] && [ -n "$bindir" ]; then
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$dir"
  ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
