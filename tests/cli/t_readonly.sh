#!/usr/bin/env bash
# A workspace that cannot be written is still read by every reading command; the
# writing commands fail with an error that names the folder and says it is read-only.
# Two ways to lose write access: a read-only mount (which binds root too) and
# permissions (tested as user nobody, since root ignores them).
. tests/lib.sh
SRC="$TMP/src"
export TRAZA_WORKSPACE="$SRC/ws"
check_rc "a trace" 0 "$TRAZA" import examples/demo.kptrace --name demo -q
check_rc "a saved result" 0 "$TRAZA" filter demo --type irq_entry --name sw
check_rc "its count" 0 "$TRAZA" query demo --count
count=$OUT
sets=$("$TRAZA" results demo)
"$TRAZA" export demo --format csv -o "$TMP/want.csv" >/dev/null 2>&1
chmod 755 "$TMP" "$SRC"

# reading_commands NAME RUNNER... : every reading command through RUNNER (which
# may be empty), outputs to $OUTDIR.
reading_commands() {
  local how=$1; shift
  check_rc "$how: list" 0 "$@" "$TRAZA" list
  check_contains "$how: list shows the trace" "$OUT" "demo"
  check_rc "$how: info" 0 "$@" "$TRAZA" info demo
  check_contains "$how: info shows its events" "$OUT" "403"
  check_rc "$how: query" 0 "$@" "$TRAZA" query demo --count
  check_eq "$how: query counts the events" "$count" "$OUT"
  check_rc "$how: stats" 0 "$@" "$TRAZA" stats demo
  check_contains "$how: stats counts the events" "$OUT" "403 events"
  check_rc "$how: density" 0 "$@" "$TRAZA" density demo --slices 4 --json
  check_rc "$how: export" 0 "$@" "$TRAZA" export demo --format csv -o "$OUTDIR/got.csv"
  check_eq "$how: the export is whole" "$(cat "$TMP/want.csv")" "$(cat "$OUTDIR/got.csv" 2>/dev/null)"
  check_rc "$how: report" 0 "$@" "$TRAZA" report demo -o "$OUTDIR/r.html"
  check_contains "$how: the report names the trace" "$(cat "$OUTDIR/r.html" 2>/dev/null)" "demo"
  check_rc "$how: results" 0 "$@" "$TRAZA" results demo
  check_eq "$how: results lists the saved set" "$sets" "$OUT"
  check_rc "$how: results show" 0 "$@" "$TRAZA" results demo show sw
  has_feature serve || { skip "$how: serve" "this traza was built without serve"; return; }
  rm -f "$OUTDIR/port"
  "$@" "$TRAZA" serve --listen 127.0.0.1:0 --port-file "$OUTDIR/port" >"$OUTDIR/serve.out" 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do [ -s "$OUTDIR/port" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  local body
  body=$(curl -s "http://127.0.0.1:$(cat "$OUTDIR/port" 2>/dev/null)/api/traces" 2>&1)
  check_contains "$how: serve answers /api/traces" "$body" '"demo"'
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
}

# writing_commands NAME REASON RUNNER...
writing_commands() {
  local how=$1 why=$2; shift 2
  local msg="$TRAZA_WORKSPACE: the workspace is read-only ($why)"
  check_rc "$how: import fails" 1 "$@" "$TRAZA" import examples/demo.kptrace --name other -q
  check_eq "$how: import says why" "traza: $msg: cannot import a trace" "$OUT"
  check_rc "$how: rm fails" 1 "$@" "$TRAZA" rm demo
  check_eq "$how: rm says why" "traza: $msg: cannot remove a trace" "$OUT"
  check_rc "$how: filter --name fails" 1 "$@" "$TRAZA" filter demo --type irq_entry --name sw2
  check_eq "$how: filter says why" "traza: $msg: cannot save results in a trace" "$OUT"
  check_rc "$how: results rm fails" 1 "$@" "$TRAZA" results demo rm sw
  check_eq "$how: results rm says why" "traza: $msg: cannot save results in a trace" "$OUT"
}

# the files of the workspace (SQLite's -shm and -wal, empty when no writer is
# running, are left out)
snapshot() { (cd "$SRC" && find . -type f ! -name '*-shm' ! -name '*-wal' | sort | xargs md5sum); }
before=$(snapshot)

# A read-only bind mount of the workspace's folder.
RO="$TMP/ro"
mkdir -p "$RO"
if mount --bind "$SRC" "$RO" 2>/dev/null && mount -o remount,bind,ro "$RO" 2>/dev/null; then
  export TRAZA_WORKSPACE="$RO/ws"
  OUTDIR="$TMP/out-mount"; mkdir -p "$OUTDIR"
  reading_commands "read-only mount"
  writing_commands "read-only mount" "it is on a read-only file system"
  umount "$RO"
else
  umount "$RO" 2>/dev/null
  skip "read-only mount" "mount --bind is not permitted here"
fi
check_eq "the workspace is unchanged by the read-only mount" "$before" "$(snapshot)"

# Permissions: the files belong to root, the commands run as nobody.
export TRAZA_WORKSPACE="$SRC/ws"
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && runuser -u nobody -- true 2>/dev/null &&
   runuser -u nobody -- test -x "$TRAZA"; then
  OUTDIR="$TMP/out-perm"; mkdir -p "$OUTDIR"; chown nobody "$OUTDIR"
  reading_commands "read-only by permissions" runuser -u nobody --
  writing_commands "read-only by permissions" "no permission to write $TRAZA_WORKSPACE" runuser -u nobody --
  # a workspace folder that can be written holding a catalogue that cannot
  chmod 777 "$SRC/ws" "$SRC/ws/traces"
  check_rc "read-only catalogue: list" 0 runuser -u nobody -- "$TRAZA" list
  check_contains "read-only catalogue: list shows the trace" "$OUT" "demo"
  check_rc "read-only catalogue: import fails" 1 runuser -u nobody -- "$TRAZA" import examples/demo.kptrace --name other -q
  check_eq "read-only catalogue: import says why" \
    "traza: $TRAZA_WORKSPACE: the workspace is read-only (no permission to write $TRAZA_WORKSPACE/catalog.db): cannot import a trace" "$OUT"
  chmod 755 "$SRC/ws" "$SRC/ws/traces"
else
  skip "read-only by permissions" "needs root and runuser to run as nobody"
fi
check_eq "the workspace is unchanged by the read-only runs" "$before" "$(snapshot)"

# A folder with no workspace that cannot become one.
mkdir -p "$TMP/empty"
if mount --bind "$TMP/empty" "$RO" 2>/dev/null && mount -o remount,bind,ro "$RO" 2>/dev/null && mkdir -p "$TMP/empty/ws/traces"; then
  check_rc "no catalogue on a read-only mount: list says there is no workspace" 0 env TRAZA_WORKSPACE="$RO/ws" "$TRAZA" list
  check_eq "it says so" "no workspace at $RO/ws (add a trace with 'traza import FILE')" "$OUT"
  check_rc "an import there fails" 1 env TRAZA_WORKSPACE="$RO/ws" "$TRAZA" import "$TRAZA_SRC/examples/demo.paje"
  check_eq "saying why" "traza: $RO/ws: no workspace here (no catalog.db), and it cannot be created: it is on a read-only file system" "$OUT"
  umount "$RO"
else
  umount "$RO" 2>/dev/null
  skip "no catalogue on a read-only mount" "mount --bind is not permitted here"
fi

# Written again once writable.
check_rc "the workspace still imports" 0 "$TRAZA" import examples/demo.kptrace --name other -q
