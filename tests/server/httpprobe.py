#!/usr/bin/env python3
"""HTTP clients against a local `traza serve` (127.0.0.1 only), for
tests/server/t_serve_load.sh and bench/http_load.sh. Every mode is bounded in
connections and time and prints one JSON object.

  order PORT SLOW_TARGET FAST_TARGET
      starts SLOW_TARGET, then FAST_TARGET once the slow one is in flight; says
      which answered first and the status of each.
  slow PORT N INTERVAL SECONDS FAST_TARGET
      opens N connections that each send one header line every INTERVAL s
      (never finishing their request); after 1 s sends FAST_TARGET on a fresh
      connection; reports its status and time, how many slow connections were
      open then, and how many the server closed within SECONDS.
  refused PORT N
      opens N idle connections; reports how many the server closed at once.
  load PORT CLIENTS SECONDS TARGET [SLOW]
      CLIENTS keep-alive clients send TARGET in a loop for SECONDS (with SLOW
      slow clients connected throughout); reports requests, errors and latency
      percentiles in ms; the slow clients are re-opened as the server closes them.
"""
import asyncio
import json
import sys
import time

HOST = "127.0.0.1"


async def request(port, target, timeout=30.0):
    """One GET on a new connection: (status, seconds); status 0 when closed."""
    t0 = time.monotonic()
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection(HOST, port), timeout)
        w.write(f"GET {target} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
        await w.drain()
        data = await asyncio.wait_for(r.read(), timeout)
        w.close()
    except (OSError, asyncio.TimeoutError):
        return 0, time.monotonic() - t0
    status = int(data[9:12]) if data.startswith(b"HTTP/1.") and len(data) >= 12 else 0
    return status, time.monotonic() - t0


async def order(port, slow_target, fast_target):
    done = []

    async def run(name, target):
        st, _ = await request(port, target, 60)
        done.append((name, st))

    slow = asyncio.ensure_future(run("slow", slow_target))
    await asyncio.sleep(0.5)
    in_flight = not slow.done()
    await run("fast", fast_target)
    await slow
    return {"in_flight": in_flight, "first": done[0][0], "status": dict(done)}


async def slow_client(port, interval, seconds, state):
    """Sends a request line then one header line every interval: returns when the
    server closes the connection (True) or after `seconds` (False)."""
    try:
        r, w = await asyncio.open_connection(HOST, port)
    except OSError:
        state["refused"] += 1
        return None
    state["open"] += 1
    end = time.monotonic() + seconds
    try:
        w.write(f"GET /api/version HTTP/1.1\r\nHost: {HOST}\r\n".encode())
        await w.drain()
        i = 0
        while time.monotonic() < end:
            try:
                data = await asyncio.wait_for(r.read(4096), interval)
                if not data:
                    return True
            except asyncio.TimeoutError:
                pass
            w.write(f"X-Slow-{i}: {i}\r\n".encode())
            await w.drain()
            i += 1
        return False
    except OSError:
        return True
    finally:
        state["open"] -= 1
        w.close()


async def slow(port, n, interval, seconds, fast_target):
    state = {"open": 0, "refused": 0}
    tasks = [asyncio.ensure_future(slow_client(port, interval, seconds, state)) for _ in range(n)]
    await asyncio.sleep(1.0)
    open_then = state["open"]
    st, dt = await request(port, fast_target, 10)
    res = await asyncio.gather(*tasks)
    return {"open": open_then, "refused": state["refused"], "status": st, "seconds": round(dt, 3),
            "closed_by_server": sum(1 for x in res if x)}


async def refused(port, n):
    conns, closed = [], 0
    for _ in range(n):
        try:
            conns.append(await asyncio.open_connection(HOST, port))
        except OSError:
            closed += 1
    await asyncio.sleep(0.5)
    for r, w in conns:
        try:
            data = await asyncio.wait_for(r.read(1), 0.2)
            if not data:
                closed += 1
        except asyncio.TimeoutError:
            pass
        except OSError:
            closed += 1
        w.close()
    return {"closed": closed}


async def load(port, clients, seconds, target, nslow=0):
    lat, errors = [], 0
    end = time.monotonic() + seconds
    state = {"open": 0, "refused": 0}
    async def keep_slow():
        # re-opened each time the server's request deadline closes it
        while time.monotonic() < end:
            if await slow_client(port, 2.0, end - time.monotonic() + 2, state) is None:
                await asyncio.sleep(0.5)

    slow_tasks = [asyncio.ensure_future(keep_slow()) for _ in range(nslow)]
    await asyncio.sleep(1.0 if nslow else 0)
    req = f"GET {target} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()

    async def client():
        nonlocal errors
        conn = None
        while time.monotonic() < end:
            t0 = time.monotonic()
            try:
                if conn is None:
                    conn = await asyncio.open_connection(HOST, port)
                r, w = conn
                w.write(req)
                await w.drain()
                head = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 30)
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await asyncio.wait_for(r.readexactly(length), 30)
                if b" 200 " not in head.split(b"\r\n")[0]:
                    errors += 1
                lat.append(time.monotonic() - t0)
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError):
                errors += 1
                if conn:
                    conn[1].close()
                conn = None
        if conn:
            conn[1].close()

    await asyncio.gather(*(client() for _ in range(clients)))
    slow_open = state["open"]
    for t in slow_tasks:
        t.cancel()
    await asyncio.gather(*slow_tasks, return_exceptions=True)
    lat.sort()

    def pct(p):
        return round(1000 * lat[min(len(lat) - 1, int(p * len(lat)))], 2) if lat else None

    return {"clients": clients, "slow": nslow, "slow_open_at_end": slow_open, "seconds": seconds,
            "requests": len(lat), "errors": errors, "rps": round(len(lat) / seconds, 1),
            "p50_ms": pct(0.50), "p99_ms": pct(0.99), "max_ms": round(1000 * lat[-1], 2) if lat else None}


def main(argv):
    mode, port = argv[1], int(argv[2])
    if mode == "order":
        out = asyncio.run(order(port, argv[3], argv[4]))
    elif mode == "slow":
        out = asyncio.run(slow(port, int(argv[3]), float(argv[4]), float(argv[5]), argv[6]))
    elif mode == "refused":
        out = asyncio.run(refused(port, int(argv[3])))
    elif mode == "load":
        out = asyncio.run(load(port, int(argv[3]), float(argv[4]), argv[5], int(argv[6]) if len(argv) > 6 else 0))
    else:
        sys.exit(f"unknown mode {mode}")
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv)
