#!/usr/bin/env bash
# Command-line habits: unknown options named (with the closest valid one), progress
# lines cleared on a terminal and absent elsewhere, info naming types and producers,
# reading commands leaving a missing workspace alone, --json honoured or refused.
. tests/lib.sh

# ---- unknown options ------------------------------------------------------------
# Every command names the option it refuses; `run`, `grammar` and `itf` take a tool
# or verb first.
for cmd in $(sed -n 's/^CMD(\([a-z]*\),.*/\1/p' "${TRAZA_SRC:-.}/src/cli/commands.def"); do
  case $cmd in
    run) args=(run filter --zzzq) ;;
    grammar) args=(grammar compress --zzzq) ;;
    itf) args=(itf compress --zzzq) ;;
    *) args=("$cmd" --zzzq) ;;
  esac
  check_rc "$cmd refuses an unknown option" 2 "$TRAZA" "${args[@]}"
  check_contains "$cmd names the unknown option" "$OUT" "traza $cmd: unknown option '--zzzq'"
done
check_rc "query --fomr" 2 "$TRAZA" query t --fomr 10
check_eq "query --fomr suggests --from" \
  "traza query: unknown option '--fomr'; did you mean '--from'? (see 'traza query --help')" "$OUT"
check_rc "info --jsno" 2 "$TRAZA" info t --jsno
check_contains "info --jsno suggests --json" "$OUT" "did you mean '--json'?"
check_rc "stats --zzzq" 2 "$TRAZA" stats t --zzzq
case "$OUT" in *"did you mean"*) fail "no suggestion when nothing is close" "$OUT" ;; *) pass "no suggestion when nothing is close" ;; esac
check_rc "short option" 2 "$TRAZA" list -x
check_eq "short option named" "traza list: unknown option '-x' (see 'traza list --help')" "$OUT"
check_rc "ambiguous prefix" 2 "$TRAZA" query t --t x
check_contains "ambiguous prefix named" "$OUT" "ambiguous option '--t' (--to, --type)"
check_rc "missing value" 2 "$TRAZA" query t --from
check_contains "missing value named" "$OUT" "option '--from' needs a value"
check_rc "value given to a flag" 2 "$TRAZA" list --json=1
check_contains "flag with a value named" "$OUT" "option '--json' takes no value"
check_rc "analysis option" 2 "$TRAZA" anomaly t --tpye irq
check_contains "analysis option suggested" "$OUT" "traza anomaly: unknown option '--tpye'; did you mean '--type'?"
check_rc "run option" 2 "$TRAZA" run anomaly t --tpye irq
check_contains "run option suggested" "$OUT" "traza run: unknown option '--tpye'; did you mean '--type'?"
check_rc "global option" 2 "$TRAZA" --quite list
check_contains "global option suggested" "$OUT" "traza: unknown option '--quite'; did you mean '--quiet'?"

# ---- progress lines ---------------------------------------------------------------
# On a terminal the progress line is erased ("\r\033[K") before the final line; on a
# pipe no progress is drawn at all.
cat > "$TMP/on_tty.py" <<'PY'
import os, pty, sys
# Runs argv[1:] with stdout and stderr on one terminal; copies what it printed to stdout.
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b''
while True:
    try:
        d = os.read(fd, 65536)
    except OSError:
        break
    if not d:
        break
    out += d
_, st = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(st))
PY
# progress_cleared NAME FILE WORD: a progress bar was drawn and the line starting with
# WORD follows an erase, not the bar.
progress_cleared() {
  local r
  r=$(python3 - "$2" "$3" <<'PY'
import re, sys
out = open(sys.argv[1], 'rb').read()
word = sys.argv[2].encode()
i = out.find(word)
if b'%' not in out:
    print('no progress bar drawn: %r' % out[:200])
elif i < 0:
    print('no %r line: %r' % (word, out[-200:]))
elif not out[:i].endswith(b'\r\x1b[K'):
    print('%r follows %r' % (word, out[max(0, i - 20):i]))
else:
    print('ok')
PY
)
  check_eq "$1" ok "$r"
}
python3 "$TMP/on_tty.py" "$TRAZA" gen --name ptygen --events 100000 > "$TMP/pty_gen.out"
progress_cleared "gen on a terminal erases its progress line" "$TMP/pty_gen.out" "generated 'ptygen'"
"$TRAZA" gen --events 100000 -o "$TMP/g.csv" --format csv 2>/dev/null
python3 "$TMP/on_tty.py" "$TRAZA" import "$TMP/g.csv" --name ptycsv > "$TMP/pty_import.out"
progress_cleared "import on a terminal erases its progress line" "$TMP/pty_import.out" "imported 'ptycsv'"
CTF=$DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ -d "$CTF" ] && command -v babeltrace2 >/dev/null && has_feature ctf; then
  python3 "$TMP/on_tty.py" "$TRAZA" import "$CTF" --name ptyctf > "$TMP/pty_ctf.out"
  check_contains "CTF import shows a percentage" "$(cat -v "$TMP/pty_ctf.out")" "importing CTF [==============================] 100%"
  check_contains "CTF processing shows a percentage" "$(cat -v "$TMP/pty_ctf.out")" "processing CTF [==============================] 100%"
  progress_cleared "CTF import on a terminal erases its progress line" "$TMP/pty_ctf.out" "imported 'ptyctf'"
else
  skip "CTF import progress" "shared data, babeltrace2 or this traza's ctf feature absent"
fi
"$TRAZA" gen --name piped --events 100000 > "$TMP/pipe.out" 2> "$TMP/pipe.err"
check_eq "gen on a pipe: the result line" "generated 'piped'" "$(cut -c1-17 "$TMP/pipe.out")"
check_eq "gen on a pipe: no carriage return on stderr" 0 "$(tr -cd '\r' < "$TMP/pipe.err" | wc -c)"
check_eq "gen on a pipe: no carriage return on stdout" 0 "$(tr -cd '\r' < "$TMP/pipe.out" | wc -c)"
"$TRAZA" import "$TMP/g.csv" --format csv --name pipedcsv 2>&1 | tr -cd '\r\033' > "$TMP/pipe_import.ctl"
check_eq "import on a pipe: no control characters" 0 "$(wc -c < "$TMP/pipe_import.ctl")"

# ---- compressed input -------------------------------------------------------------
printf 'ts,type,producer\n1,a,p\n2,b,q\n3,a,p\n' > "$TMP/small.csv"
if command -v bzip2 >/dev/null; then
  bzip2 -c "$TMP/small.csv" > "$TMP/small.csv.bz2"
  check_rc "import a .bz2 file" 0 "$TRAZA" import "$TMP/small.csv.bz2" --name bz --json
  check_eq "the .bz2 file's events" 3 "$(printf '%s' "$OUT" | json_get events)"
else
  skip "import a .bz2 file" "bzip2 is not installed"
fi

# ---- a missing workspace ----------------------------------------------------------
# Reading commands leave it missing; list says it is empty; the others say the trace
# is not there; import creates it.
NOWS=$TMP/nows/ws
check_rc "list on a missing workspace" 0 "$TRAZA" -w "$NOWS" list
check_eq "list says there is none" "no workspace at $NOWS (add a trace with 'traza import FILE')" "$OUT"
check_rc "list --json on a missing workspace" 0 "$TRAZA" -w "$NOWS" list --json
check_eq "list --json is empty" "[]" "$OUT"
for args in "info t" "query t" "stats t" "density t" "export t -f csv" "rm t" "results t" "callstack t" \
            "anomaly t --type a" "run filter t" "filter t --name f" "report t -o $TMP/r.html"; do
  # shellcheck disable=SC2086
  check_rc "${args%% *} on a missing workspace fails" 1 "$TRAZA" -w "$NOWS" $args
  check_eq "${args%% *} says the trace is not there" "traza: no trace named 't': there is no workspace at $NOWS" "$OUT"
done
check_rc "serve on a missing workspace fails" 1 timeout 20 "$TRAZA" -w "$NOWS" serve --listen 127.0.0.1:0
check_contains "serve says there is no workspace" "$OUT" "there is no workspace at $NOWS"
if [ -e "$TMP/nows" ]; then fail "reading commands create nothing" "$(find "$TMP/nows")"; else pass "reading commands create nothing"; fi
check_rc "import creates the workspace" 0 "$TRAZA" -w "$NOWS" import "$TMP/small.csv" --name t
check_rc "list after import" 0 "$TRAZA" -w "$NOWS" list --json
check_eq "the imported trace listed" t "$(printf '%s' "$OUT" | json_get 0.name)"

# ---- --json is honoured or refused --------------------------------------------------
is_json() { python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null; }
"$TRAZA" import "$TMP/small.csv" --name j1 -q >/dev/null
"$TRAZA" import "$TMP/small.csv" --name j2 -q >/dev/null
check_rc "rm --json" 0 "$TRAZA" rm j1 j2 --json
check_eq "rm --json lists the removed traces" '{"removed":["j1","j2"]}' "$OUT"
check_rc "run import-csv --json" 0 "$TRAZA" run import-csv "$TMP/small.csv" --name j3 --json
check_eq "run import-csv --json: the new trace" '{"trace":"j3","events":3}' "$OUT"
check_rc "filter --json" 0 "$TRAZA" filter j3 --type a --name fa --json
check_rc "results rm --json" 0 "$TRAZA" results j3 rm fa --json
check_eq "results rm --json names the result" '{"removed":["fa"]}' "$OUT"
check_rc "report --json" 0 "$TRAZA" report j3 -o "$TMP/r.html" --json
check_eq "report --json gives the path" "{\"report\":\"$(realpath "$TMP/r.html")\"}" "$OUT"
check_rc "gen -o FILE --json" 0 "$TRAZA" gen --events 10 -o "$TMP/g10.csv" --json
check_eq "gen -o FILE --json" "{\"output\":\"$TMP/g10.csv\",\"format\":\"csv\",\"events\":10}" "$OUT"
for args in "export j3 -f csv" "run export-csv j3" "gen --events 10 -o -" "grammar decompress $TMP/none.tzg" \
            "grammar extract $TMP/none.tzg 0 1" "itf decompress $TMP/none.tzi" "itf extract $TMP/none.tzi --from 0 --count 1"; do
  name=$(printf '%s' "$args" | cut -d' ' -f1-2)
  # shellcheck disable=SC2086
  check_rc "$name --json is refused" 2 "$TRAZA" $args --json
  check_contains "$name --json says why" "$OUT" "has no JSON output"
done
for args in "list" "info j3" "query j3" "stats j3" "density j3" "results j3" "tools" "anomaly j3 --type a" \
            "seqsearch j3 --pattern a"; do
  # shellcheck disable=SC2086
  OUT=$("$TRAZA" $args --json 2>&1)
  if printf '%s' "$OUT" | is_json; then pass "${args%% *} --json prints JSON"; else fail "${args%% *} --json prints JSON" "$OUT"; fi
done

# ---- info names the event types and the producers -----------------------------------
"$TRAZA" import "$TMP/small.csv" --name names -q >/dev/null
check_rc "info lists types and producers" 0 "$TRAZA" info names
check_contains "info: type a with its count" "$OUT" "event types (2, by count):
  a                                punctual             2
  b                                punctual             1"
check_contains "info: producers with paths and counts" "$OUT" "producers (2, as a tree, with their own events):
  p                                           2  p
  q                                           1  q"
check_rc "info --json" 0 "$TRAZA" info names --json
check_eq "info --json type_list" '[{"category": "punctual", "count": 2, "name": "a"}, {"category": "punctual", "count": 1, "name": "b"}]' \
  "$(printf '%s' "$OUT" | json_get type_list)"
check_eq "info --json producer_list" '[{"count": 2, "depth": 0, "name": "p", "path": "p"}, {"count": 1, "depth": 0, "name": "q", "path": "q"}]' \
  "$(printf '%s' "$OUT" | json_get producer_list)"
"$TRAZA" gen --name tree --events 5000 -q >/dev/null  # 4 groups of 8 leaves: 36 producers
check_rc "info of a tree" 0 "$TRAZA" info tree
check_contains "info: children indented under their parent, with paths" "$OUT" "  g0_0                                        0  g0_0
    n0  "
check_contains "info: the producer list is cut" "$OUT" "  … 6 more (--all lists them)"
check_rc "info --all" 0 "$TRAZA" info tree --all
case "$OUT" in *"more (--all"*) fail "info --all lists everything" "$OUT" ;; *) pass "info --all lists everything" ;; esac
check_eq "info --all: 36 producer lines" 36 "$(printf '%s\n' "$OUT" | sed -n '/^producers (/,$p' | tail -n +2 | wc -l)"
check_rc "info --json of a tree" 0 "$TRAZA" info tree --json
check_eq "info --json: 30 producers listed" 30 "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["producer_list"]))')"
check_eq "info --json: 6 more" 6 "$(printf '%s' "$OUT" | json_get more_producers)"
check_eq "info --json: a leaf's path and depth" '{"count": 0, "depth": 1, "name": "n0", "path": "g0_0/n0"}' \
  "$(printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin)["producer_list"][1]; d["count"]=0; print(json.dumps(d, sort_keys=True))')"
check_rc "info --all --json" 0 "$TRAZA" info tree --all --json
check_eq "info --all --json: none more" 0 "$(printf '%s' "$OUT" | json_get more_producers)"

# serve --port: its own option (getopt would otherwise read "--port N" as "--port-file N")
check_rc "serve --port takes a number" 2 "$TRAZA" -w "$NOWS" serve --port nine
check_contains "serve --port says what it expects" "$OUT" "--port expects a number from 0 to 65535, got 'nine'"
if has_feature serve; then
  (cd "$TMP" && exec "$TRAZA" -w "$NOWS" serve --port 0 --port-file "$TMP/sp" >"$TMP/sp.out" 2>&1) &
  SPID=$!
  for _ in $(seq 1 100); do [ -s "$TMP/sp" ] && break; sleep 0.1; done
  grep -q "http://127.0.0.1:$(cat "$TMP/sp" 2>/dev/null)/" "$TMP/sp.out" && pass "serve --port 0 binds a free port on loopback" ||
    fail "serve --port 0 binds a free port on loopback" "$(cat "$TMP/sp.out")"
  kill "$SPID"; wait "$SPID"
  [ -e "$TMP/0" ] && fail "serve --port writes no port file" "a file named 0" || pass "serve --port writes no port file"
else
  skip "serve --port" "this traza was built without serve"
fi
