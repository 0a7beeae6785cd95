"""Connections: memory per idle connection with 10,000 concurrent WebSocket connections on one
server process, against a plain websockets server holding as many, measured the same way in
the same run.

    .venv/bin/python -m tests.benchmarks.bench_connections [--connections 10000] [--clients 2]

* **ours**: the real `poker-server` (`python -m server.main --port 0`, default `Config`:
  keepalive pings on, compression off), as a subprocess on the first CPU.
* **plain**: `websockets.asyncio.server.serve` with its defaults and no compression; its
  handler answers each message with a frame of the size of our `welcome` and reads on.
* the clients: `--clients` child processes on the other CPU (minimal RFC 6455 clients,
  `tests.benchmarks.rawws`), each opening its share of the connections; every connection
  says `hello` as a guest (our server creates the guest account and answers `ok` and
  `welcome`) and then idles, answering pings.

Every process raises RLIMIT_NOFILE to its hard limit. The server's resident memory is read
from `/proc/<pid>/status` (VmRSS) once it listens and again once every connection got its
`welcome`; printed: the total, the increase per connection, ours/plain, and the target
(under 1 GiB resident with 10,000 connections). Kernel socket buffers are not in RSS; the
kernel's TCP memory (`/proc/net/sockstat`, all processes) is printed beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.benchmarks.rawws import open_clients, raise_nofile

ROOT = Path(__file__).resolve().parents[2]
LISTENING = "listening on "
TARGET_BYTES = 1 << 30
WELCOME_PREFIX = b'{"type":"welcome"'
PLAIN_WELCOME = ('{"type":"welcome","player_id":"g_0123456789abcdef","name":"c00000",'
                 '"token":"' + "t" * 120 + '","balance":10000}')
STEP_TIMEOUT = 120.0
"""Seconds any one step (a server start, every client connected) may take."""


def _serve_plain() -> None:
    from websockets.asyncio.server import ServerConnection, serve
    from websockets.exceptions import ConnectionClosed

    async def main() -> None:
        async def handler(ws: ServerConnection) -> None:
            try:
                async for _ in ws:
                    await ws.send(PLAIN_WELCOME)
            except ConnectionClosed:
                pass

        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        async with serve(handler, "127.0.0.1", 0, compression=None) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            print(f"plain {LISTENING}127.0.0.1:{port}", flush=True)
            await stop.wait()

    asyncio.run(main())


def _client(port: int, count: int, first: int) -> None:
    """A client process: `count` connections, each says hello; prints `ready` once every
    one got its welcome, then idles until stdin closes."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        welcomed = 0
        all_welcomed: asyncio.Future[None] = loop.create_future()

        def factory(_: int) -> Callable[[bytes], None]:
            def on_message(payload: bytes) -> None:
                nonlocal welcomed
                if payload.startswith(WELCOME_PREFIX):
                    welcomed += 1
                    if welcomed == count:
                        all_welcomed.set_result(None)
            return on_message

        clients = await open_clients("127.0.0.1", port, count, factory,
                                     timeout=STEP_TIMEOUT)
        for i, client in enumerate(clients):
            client.send_text(f'{{"type":"hello","rid":1,"guest":"c{first + i:05d}"}}')
        await asyncio.wait_for(all_welcomed, STEP_TIMEOUT)
        print("ready", flush=True)
        await loop.run_in_executor(None, sys.stdin.read)  # until the parent closes stdin
        for client in clients:
            client.close()

    asyncio.run(main())


def _preexec(cpu: int | None) -> Callable[[], None]:
    def pre() -> None:
        raise_nofile()
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
    return pre


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def tcp_kernel_bytes() -> int:
    with open("/proc/net/sockstat") as f:
        for line in f:
            if line.startswith("TCP:"):
                fields = line.split()
                return int(fields[fields.index("mem") + 1]) * os.sysconf("SC_PAGE_SIZE")
    return 0


@dataclass
class Measure:
    name: str
    idle: int
    loaded: int
    kernel: int
    seconds: float

    def per_connection(self, n: int) -> float:
        return (self.loaded - self.idle) / n


def _start_server(argv: list[str], cpu: int | None) -> subprocess.Popen[str]:
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, preexec_fn=_preexec(cpu))
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if LISTENING not in line:
        proc.kill()
        raise SystemExit(f"server did not start: {line!r}")
    proc.port = int(line.strip().rstrip("/").rsplit(":", 1)[-1])  # type: ignore[attr-defined]
    return proc


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def measure(name: str, argv: list[str], n: int, clients: int,
            cpus: tuple[int, int] | None) -> Measure:
    server = _start_server(argv, cpus[0] if cpus else None)
    procs: list[subprocess.Popen[str]] = []
    try:
        idle = rss_bytes(server.pid)
        started = time.perf_counter()
        share = [n // clients + (1 if i < n % clients else 0) for i in range(clients)]
        first = 0
        for count in share:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "tests.benchmarks.bench_connections", "--client",
                 str(server.port), str(count), str(first)],  # type: ignore[attr-defined]
                cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                preexec_fn=_preexec(cpus[1] if cpus else None)))
            first += count
        for proc in procs:  # each prints one line once all its connections are welcomed
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if line.strip() != "ready":
                raise SystemExit(f"{name}: a client process failed ({line!r})")
        seconds = time.perf_counter() - started
        loaded = rss_bytes(server.pid)
        return Measure(name, idle, loaded, tcp_kernel_bytes(), seconds)
    finally:
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.close()
        for proc in procs:
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
        _stop(server)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--client", nargs=3, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve-plain", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    raise_nofile()
    if args.client:
        return _client(*args.client)
    if args.serve_plain:
        return _serve_plain()
    n = args.connections
    hard = raise_nofile()
    if hard < n // args.clients + 100:
        raise SystemExit(f"RLIMIT_NOFILE hard limit {hard} is too low for {n} connections")
    available = sorted(os.sched_getaffinity(0))
    cpus = (available[0], available[1]) if len(available) >= 2 else None
    print(f"{n:,} connections from {args.clients} client processes; RLIMIT_NOFILE {hard}; "
          + (f"servers on CPU {cpus[0]}, clients on CPU {cpus[1]}" if cpus else "one CPU"),
          flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_connections_") as tmp:
        # every client connects from loopback: lift the per-address cap for the benchmark
        ours = measure("ours", [sys.executable, "-m", "server.main", "--port", "0",
                                "--data-dir", tmp, "--set", "max_connections_per_ip=1000000",
                                "--set", f"max_connections={n + 100}"], n, args.clients, cpus)
    plain = measure("plain", [sys.executable, "-m", "tests.benchmarks.bench_connections",
                              "--serve-plain"], n, args.clients, cpus)
    mib = 1 << 20
    print(f"{'server':>6} {'RSS idle':>10} {'RSS loaded':>11} {'per conn':>10} "
          f"{'open+hello':>11} {'kernel TCP mem':>15}")
    for m in (ours, plain):
        print(f"{m.name:>6} {m.idle / mib:>7.1f} MiB {m.loaded / mib:>7.1f} MiB "
              f"{m.per_connection(n) / 1024:>6.1f} KiB {m.seconds:>9.1f} s "
              f"{m.kernel / mib:>11.1f} MiB")
    print(f"ours/plain per connection: {ours.per_connection(n) / plain.per_connection(n):.2f}; "
          f"ours at {n:,}: {ours.loaded / mib:.0f} MiB resident = "
          f"{ours.loaded / TARGET_BYTES:.0%} of the 1 GiB target "
          f"({'met' if ours.loaded < TARGET_BYTES else 'MISSED'})")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
