#!/usr/bin/env bash
# HTTP load on `traza serve` (issue 36): CLIENTS keep-alive clients send density and
# timeline requests for SECONDS, first alone, then with SLOW slow clients connected
# (one header line every 2 s, re-opened as the request deadline closes them);
# reports requests, errors and p50/p99/max latency of each run. The answer sought:
# no request waits more than 1 s because of the slow clients. Loopback only.
# usage: bench/http_load.sh [TRAZA_BINARY]   (env: BENCH_WS = workspace kept between
# runs; EVENTS = trace size, default 1M; CLIENTS = 200; DURATION = 30; SLOW = 64)
set -u
traza=$(realpath "${1:-build/traza}")
root=$(cd "$(dirname "$0")/.." && pwd)
ws=${BENCH_WS:-/tmp/traza-bench-http}
events=${EVENTS:-1M}
clients=${CLIENTS:-200}
seconds=${DURATION:-30}
slow=${SLOW:-64}
export TRAZA_WORKSPACE=$ws
name=load$events
if ! "$traza" info "$name" >/dev/null 2>&1; then
  echo "generating $name ($events events) in $ws ..."
  "$traza" gen --name "$name" --events "$events" -q
fi
tmp=$(mktemp -d)
# every client is 127.0.0.1: the per-client limit must hold them all
"$traza" serve --listen 127.0.0.1:0 --port-file "$tmp/port" --max-per-client 1000 >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
target="/api/density?trace=$name&slices=200"
curl -s -o /dev/null "http://127.0.0.1:$port$target" # open the trace
echo "traza $("$traza" --version 2>/dev/null | head -1), $events events, $clients clients x $seconds s, target $target"
for s in 0 "$slow"; do
  printf 'slow clients %3d: ' "$s"
  python3 "$root/tests/server/httpprobe.py" load "$port" "$clients" "$seconds" "$target" "$s"
done
