"""Fan-out: one table event delivered to 1, 100, 1,000 and 5,000 spectators through the real
server, against websockets' own `broadcast()` of frames of the same bytes to as many plain
connections on a plain websockets server, measured the same way in the same run.

    .venv/bin/python -m tests.benchmarks.bench_fanout [--sizes 1,100,1000,5000] [--rounds 3]

Set-up (loopback only; the machine's first CPU for the servers, the second for the clients
when there are two):

* **ours**: a child process runs `server.main.run` (the real app: edge, router, sessions,
  table actor, projection, codecs) with a benchmark `Config`: chat and request rate limits
  lifted (a chat per event is the trigger) and keepalive pings off. A controller connection
  says `hello`, creates a Hold'em table, sits and then chats; each `chat` request makes the
  actor publish one `chat` event to every watcher (`TableActor._publish` → `Connection.send`
  → the socket at once, or the outbox and its writer task under flow control;
  `--queued-only` runs it with `Config.fast_send` off, websockets' public path: every frame
  through the outbox and `await ws.send()`, for an A/B comparison).
* **raw**: a child process runs a plain `websockets.asyncio.server.serve` (no compression, no
  pings); every message a connection sends is passed to `broadcast()` over all connections.
  The controller sends the exact bytes of a `chat` frame captured from ours, so both servers
  deliver frames of the same size and opcode (text).
* spectators are minimal RFC 6455 clients (`tests.benchmarks.rawws`), all in this process on
  the other core; they count received `chat` frames. The controller keeps `WINDOW` events in
  flight (it sends the next trigger when it receives an event), so neither server ever waits
  for work and no outbox grows past `WINDOW` frames.

A round: K events to N spectators; timed from the first trigger to the last of the N·K
deliveries (`BENCH_DEBUG=1` prints every round, with how busy the server and the clients
were; `BENCH_PROFILE=/tmp/fan.prof` runs our server under cProfile). Printed: deliveries per
second (best of `--rounds`, rounds of ours and raw interleaved so background load falls on
both alike) and its ratio ours/raw; server CPU per
delivery (user+system time of the server process over the round, from /proc; the lowest of
the rounds) and its ratio raw/ours, the steadier figure on a shared machine (CPU time taken by
other processes does not count in it).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tests.benchmarks.rawws import RawClient, open_clients, raise_nofile

WINDOW = 8
"""Events in flight per round by default (the controller sends one more per event it
receives; `--window`). Our edge writes the frames one event-loop turn sends to a connection
in one write, so with several events in flight ours may deliver several per `send()` call
where `broadcast()` makes one call per frame; `--window 1` compares one event at a time."""

WATCH_BATCH = 500
"""Spectators that send `watch` at once (the table's inbox holds `Config.inbox_size`)."""

ROUND_TIMEOUT = 60.0
"""Seconds one round may take before the benchmark gives up (a lost frame, a cut client)."""

EVENTS = {1: 3000, 100: 1000, 1000: 200, 5000: 40}
"""Events per round by spectator count (other counts: 200,000 deliveries' worth, 20..3000)."""

CHAT_TEXT = "nice hand, well played; see you at the next table"
CHAT_PREFIX = b'{"type":"chat"'
SNAPSHOT_PREFIX = b'{"type":"snapshot"'
RAW_HELLO = b"+"
ROOT = Path(__file__).resolve().parents[2]
LISTENING = "listening "


# ------------------------------------------------------------------------------------------
# The servers (child processes)
# ------------------------------------------------------------------------------------------


def _serve_ours(data_dir: str, queued_only: bool) -> None:
    from server.config import Config
    from server.main import run
    from server.process import configure_logging

    # A/B (`--queued-only`): websockets' public path, every frame through the outbox and the
    # writer task (`Config.fast_send`)
    config = Config(fast_send=not queued_only, port=0, data_dir=Path(data_dir),
                    ping_interval=0, ping_timeout=0,
                    request_rate=1e9, request_burst=1 << 30, chat_rate=1e9,
                    chat_burst=1 << 30, chat_rate_per_account=1e9,
                    chat_burst_per_account=1 << 30, chat_rate_per_table=1e9,
                    chat_burst_per_table=1 << 30,
                    max_connections_per_ip=1 << 20)  # (all on loopback)
    configure_logging(logging.WARNING)
    profile = os.environ.get("BENCH_PROFILE")  # a path: cProfile the server into it
    if profile:
        import cProfile

        cProfile.runctx("asyncio.run(run(config))", globals(), locals(), profile)
        return
    asyncio.run(run(config))  # prints `poker-server listening on http://127.0.0.1:PORT/`


def _serve_raw() -> None:
    from websockets.asyncio.server import ServerConnection, broadcast, serve
    from websockets.exceptions import ConnectionClosed

    async def main() -> None:
        conns: set[ServerConnection] = set()

        async def handler(ws: ServerConnection) -> None:
            conns.add(ws)
            try:
                await ws.send(RAW_HELLO.decode())
                async for message in ws:
                    broadcast(conns, message)
            except ConnectionClosed:
                pass
            finally:
                conns.discard(ws)

        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        async with serve(handler, "127.0.0.1", 0, compression=None, ping_interval=None,
                         max_size=1 << 20) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            print(f"{LISTENING}127.0.0.1:{port}", flush=True)
            await stop.wait()

    asyncio.run(main())


@dataclass
class Child:
    name: str
    proc: subprocess.Popen[str]
    port: int

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server process so far."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _pin(cpu: int | None) -> Callable[[], None]:
    def pre() -> None:
        raise_nofile()
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
    return pre


def start_child(name: str, argv: list[str], cpu: int | None) -> Child:
    proc = subprocess.Popen([sys.executable, "-m", "tests.benchmarks.bench_fanout", *argv],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            preexec_fn=_pin(cpu))
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if LISTENING not in line:
        proc.kill()
        raise SystemExit(f"{name} server did not start: {line!r}")
    return Child(name, proc, int(line.strip().rstrip("/").rsplit(":", 1)[-1]))


# ------------------------------------------------------------------------------------------
# The clients (this process)
# ------------------------------------------------------------------------------------------


class Tally:
    """Deliveries counted across every spectator of a round."""

    def __init__(self) -> None:
        self.count = 0
        self.target = 0
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.snapshots = 0
        self.errors: list[bytes] = []
        self.ready_target = 0
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def expect_ready(self, n: int) -> asyncio.Future[None]:
        """A future set once `n` spectators got their snapshot (ours) or greeting (raw)."""
        self.snapshots, self.ready_target = 0, n
        self.ready = asyncio.get_running_loop().create_future()
        return self.ready

    def reset(self, target: int) -> None:
        self.count, self.target = 0, target
        self.done = asyncio.get_running_loop().create_future()

    def spectator(self, _: int) -> Callable[[bytes], None]:
        def on_message(payload: bytes) -> None:
            if payload.startswith(CHAT_PREFIX):
                self.count += 1
                if self.count == self.target:
                    self.done.set_result(None)
            elif payload.startswith(SNAPSHOT_PREFIX) or payload == RAW_HELLO:
                self.snapshots += 1  # this spectator watches (ours) or is greeted (raw)
                if self.snapshots == self.ready_target:
                    self.ready.set_result(None)
            elif payload.startswith(b'{"type":"error"') and len(self.errors) < 5:
                self.errors.append(payload[:200])
        return on_message


class Controller:
    """The connection that triggers events: JSON requests during set-up, then `run(k)`."""

    def __init__(self, trigger: Callable[[int], bytes]) -> None:
        self.trigger = trigger
        self.client: RawClient | None = None
        self.queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.counting = False
        self.sent = self.received = self.target = 0
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.rid = 0

    def on_message(self, payload: bytes) -> None:
        if not self.counting:
            self.queue.put_nowait(payload)
        elif payload.startswith(CHAT_PREFIX):
            self.received += 1
            if self.sent < self.target:
                self._fire()
            elif self.received == self.target:
                self.done.set_result(None)

    def _fire(self) -> None:
        assert self.client is not None
        self.sent += 1
        self.client.send_text(self.trigger(self.sent))

    def start(self, k: int, window: int = WINDOW) -> asyncio.Future[None]:
        self.sent = self.received = 0
        self.target = k
        self.done = asyncio.get_running_loop().create_future()
        self.counting = True
        for _ in range(min(window, k)):
            self._fire()
        return self.done

    async def next_message(self) -> bytes:
        return await asyncio.wait_for(self.queue.get(), 10)

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        assert self.client is not None
        self.rid += 1
        self.client.send_text(orjson.dumps({"type": kind, "rid": self.rid, **fields}))
        while True:
            message: dict[str, Any] = orjson.loads(await self.next_message())
            if message.get("type") in ("ok", "error") and message.get("rid") == self.rid:
                if message["type"] == "error":
                    raise SystemExit(f"{kind} refused: {message}")
                return message


@dataclass
class Target:
    """One server under test, its controller and its spectators."""

    child: Child
    controller: Controller
    tally: Tally
    watch: bytes | None  # the request a spectator sends (ours) or None (raw)
    spectators: list[RawClient]
    window: int = WINDOW

    async def set_spectators(self, n: int) -> None:
        for client in self.spectators:
            client.close()
        await asyncio.gather(*(c.closed for c in self.spectators))
        if self.watch is None:  # raw: each spectator is greeted once it is registered
            ready = self.tally.expect_ready(n)
            self.spectators = await open_clients("127.0.0.1", self.child.port, n,
                                                 self.tally.spectator, timeout=120)
            await self._ready(ready, n)
            return
        self.spectators = await open_clients("127.0.0.1", self.child.port, n,
                                             self.tally.spectator, timeout=120)
        for start in range(0, n, WATCH_BATCH):  # within the actor's inbox (`inbox_size`)
            batch = self.spectators[start:start + WATCH_BATCH]
            ready = self.tally.expect_ready(len(batch))
            for client in batch:
                client.send_text(self.watch)
            await self._ready(ready, len(batch))

    async def _ready(self, ready: asyncio.Future[None], n: int) -> None:
        try:
            await asyncio.wait_for(ready, 60)
        except TimeoutError:
            raise SystemExit(f"{self.child.name}: only {self.tally.snapshots}/{n} spectators "
                             f"ready; errors: {self.tally.errors}") from None

    async def round(self, k: int) -> tuple[float, float]:
        """K events to every spectator: (deliveries per second, server CPU s per delivery)."""
        n = len(self.spectators)
        self.tally.reset(n * k)
        cpu0 = self.child.cpu_seconds()
        mine0 = time.process_time()
        t0 = time.perf_counter()
        done = self.controller.start(k, self.window)
        try:
            await asyncio.wait_for(asyncio.gather(done, self.tally.done), ROUND_TIMEOUT)
        except TimeoutError:
            ctrl = self.controller
            raise SystemExit(f"{self.child.name}: round of {k} events to {n} spectators timed "
                             f"out: {self.tally.count}/{n * k} deliveries, controller sent "
                             f"{ctrl.sent}, received {ctrl.received}") from None
        elapsed = time.perf_counter() - t0
        cpu = self.child.cpu_seconds() - cpu0
        mine = time.process_time() - mine0
        self.controller.counting = False
        if os.environ.get("BENCH_DEBUG"):
            print(f"  {self.child.name}: {n * k / elapsed:,.0f}/s server busy "
                  f"{cpu / elapsed:.0%} clients busy {mine / elapsed:.0%}")
        return n * k / elapsed, cpu / (n * k)


async def connect_controller(port: int, trigger: Callable[[int], bytes]) -> Controller:
    controller = Controller(trigger)
    (controller.client,) = await open_clients("127.0.0.1", port, 1,
                                              lambda _: controller.on_message)
    return controller


async def set_up_ours(child: Child) -> tuple[Target, bytes]:
    """Hello, a table, a seat; returns the target and one `chat` frame's bytes."""
    table_box: list[str] = []

    def chat(i: int) -> bytes:
        return orjson.dumps({"type": "chat", "rid": i, "table": table_box[0],
                             "text": CHAT_TEXT})

    ctrl = await connect_controller(child.port, chat)
    await ctrl.request("hello", guest="bench")
    table = (await ctrl.request("create_table", variant="holdem", structure="no_limit",
                                stakes={"blinds": [50, 100]}, seats=6))["table"]
    table_box.append(table)
    await ctrl.request("sit", table=table, seat=0, buy_in=5000)
    await ctrl.request("chat", table=table, text=CHAT_TEXT)
    while not (frame := await ctrl.next_message()).startswith(CHAT_PREFIX):
        pass
    watch = orjson.dumps({"type": "watch", "rid": 1, "table": table})
    return Target(child, ctrl, Tally(), watch, []), frame


async def bench(sizes: list[int], rounds: int, cpus: tuple[int, int] | None,
                queued_only: bool, window: int = WINDOW) -> None:
    with tempfile.TemporaryDirectory(prefix="bench_fanout_") as tmp:
        ours_child = start_child("ours", ["--serve", "ours", "--data-dir", tmp,
                                          *(["--queued-only"] if queued_only else [])],
                                 cpus[0] if cpus else None)
        raw_child = start_child("raw", ["--serve", "raw"], cpus[0] if cpus else None)
        try:
            ours, frame = await set_up_ours(ours_child)
            raw_ctrl = await connect_controller(raw_child.port, lambda i: frame)
            await raw_ctrl.next_message()  # the greeting
            raw = Target(raw_child, raw_ctrl, Tally(), None, [], window)
            ours.window = window
            print(f"frame: {len(frame)} bytes, text opcode; window {window} events; "
                  f"best of {rounds} rounds")
            print(f"{'spectators':>10} {'events':>6} {'ours deliv/s':>13} {'raw deliv/s':>12} "
                  f"{'ratio':>6} {'ours CPU/deliv':>15} {'raw CPU/deliv':>14} {'CPU ratio':>9}")
            for n in sizes:
                k = EVENTS.get(n, max(20, min(3000, 200_000 // n)))
                await ours.set_spectators(n)
                await raw.set_spectators(n)
                await ours.round(max(1, k // 10))  # warm-up
                await raw.round(max(1, k // 10))
                best: dict[str, tuple[float, float]] = {}
                for _ in range(rounds):
                    for name, target in (("ours", ours), ("raw", raw)):
                        rate, cpu = await target.round(k)
                        old = best.get(name)
                        best[name] = (max(rate, old[0]) if old else rate,
                                      min(cpu, old[1]) if old else cpu)
                (o_rate, o_cpu), (r_rate, r_cpu) = best["ours"], best["raw"]
                print(f"{n:>10,} {k:>6} {o_rate:>13,.0f} {r_rate:>12,.0f} "
                      f"{o_rate / r_rate:>6.2f} {o_cpu * 1e6:>12.2f} µs {r_cpu * 1e6:>11.2f} µs "
                      f"{r_cpu / o_cpu:>9.2f}",
                      flush=True)
            for target in (ours, raw):
                assert target.controller.client is not None
                clients = [*target.spectators, target.controller.client]
                for client in clients:
                    client.close()
                await asyncio.gather(*(c.closed for c in clients))
        finally:
            ours_child.stop()
            raw_child.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,100,1000,5000",
                        help="spectator counts, comma-separated (default 1,100,1000,5000)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per server")
    parser.add_argument("--window", type=int, default=WINDOW,
                        help=f"events in flight (default {WINDOW}; 1: one event at a time)")
    parser.add_argument("--queued-only", action="store_true",
                        help="A/B: Config.fast_send off, websockets' public path (every "
                        "frame through the outbox and the writer task)")
    parser.add_argument("--serve", choices=("ours", "raw"), help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve == "ours":
        return _serve_ours(args.data_dir, args.queued_only)
    if args.serve == "raw":
        return _serve_raw()
    raise_nofile()
    available = sorted(os.sched_getaffinity(0))
    cpus = (available[0], available[1]) if len(available) >= 2 else None
    if cpus:
        os.sched_setaffinity(0, {cpus[1]})
        print(f"servers on CPU {cpus[0]}, clients on CPU {cpus[1]}", flush=True)
    else:
        print("one CPU: servers and clients share it (figures are not comparable)")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average before the run: {load} (other processes share these CPUs: the CPU "
          "columns do not count their time, the deliveries/s columns do)", flush=True)
    started = time.perf_counter()
    asyncio.run(bench([int(s) for s in args.sizes.split(",")], args.rounds, cpus,
                      args.queued_only, args.window))
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
