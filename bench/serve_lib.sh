# What the serve benchmarks share (sourced). bench_serve: `traza serve` ($traza) on an
# ephemeral loopback port in the background -> $pid, $tmp (a directory of its own),
# $port and $base (the API's URL); at exit the server is stopped and $tmp removed.
bench_serve() {
  tmp=$(mktemp -d)
  "$traza" serve --listen 127.0.0.1:0 --port-file "$tmp/port" >/dev/null 2>&1 &
  pid=$!
  trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
  for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
  port=$(cat "$tmp/port")
  base="http://127.0.0.1:$port/api"
}
