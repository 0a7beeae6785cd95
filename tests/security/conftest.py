"""Attacks against a real `poker-server` process, started WITHOUT test mode (as an outside
attacker meets it): the harness every test in `tests/security/` shares.

- `server(tmp_path, "--set", "FIELD=VALUE", ...)` (the `hostile_server` fixture) starts
  `python -m server.main --port 0` on loopback with its own data dir and waits for the listening
  line; it is stopped (SIGTERM, then kill) when the test ends.
- `client(server)` opens a protocol `Client` (from tests/net/conftest.py: `request`, `event`,
  `hello`).
- `round_trip(server)` measures one other player's `ping` round trip, in seconds: run it while
  an attack goes on and assert it stays under `SERVED_BOUND`.
- `while_attacking(attack, probe)`: run an attack coroutine and, meanwhile, sample the probe's
  round trips.
- `ledger_sum(server)`: stop the server (SIGTERM) and read the ledger's sum from its
  `event=ledger_closed sum=N` log line: the journal sums to 0 when no chip was created or
  destroyed (every account, the house and the tables included).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from websockets.asyncio.client import connect

from protocol import SUBPROTOCOL_JSON
from tests.net.conftest import Client
from tests.net.conftest import _pump as _pump

ROOT = Path(__file__).resolve().parents[2]
LISTENING_PREFIX = "poker-server listening on "
OPERATOR_PREFIX = "poker-server operator on "
START_TIMEOUT = 30.0
TIMEOUT = 10.0
SERVED_BOUND = 0.5
"""Seconds another player's round trip may take while an attack runs (it is ~1 ms idle)."""


@dataclass
class HostileServer:
    """A `poker-server` subprocess without test mode."""

    proc: subprocess.Popen[str]
    url: str
    data_dir: Path
    stderr: queue.Queue[str | None]
    lines: list[str] = field(default_factory=list)
    operator_url: str = ""
    """The operator listener (`/metrics`, `/jackpot/history`): the second stdout line."""

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or "127.0.0.1"

    @property
    def port(self) -> int:
        port = urlsplit(self.url).port
        assert port is not None
        return port

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    def stderr_lines(self) -> list[str]:
        """Every stderr line so far."""
        while True:
            try:
                line = self.stderr.get_nowait()
            except queue.Empty:
                return self.lines
            if line is None:
                return self.lines
            self.lines.append(line)

    def stop(self) -> int:
        """SIGTERM, wait (bounded), kill if needed; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        return self.proc.returncode


def start_hostile(tmp_path: Path, *extra: str) -> HostileServer:
    """`python -m server.main --port 0 --data-dir ... EXTRA` (no --test-mode)."""
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.main", "--port", "0", "--data-dir", str(data),
         "--no-ledger-fsync", *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    out: queue.Queue[str | None] = queue.Queue()
    err: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, out), daemon=True).start()
    threading.Thread(target=_pump, args=(proc.stderr, err), daemon=True).start()
    try:
        first = out.get(timeout=START_TIMEOUT)
    except queue.Empty:
        proc.kill()
        pytest.fail("server printed no listening line")
    if first is None or not first.startswith(LISTENING_PREFIX):
        proc.kill()
        pytest.fail(f"unexpected first line {first!r}")
    try:
        second = out.get(timeout=START_TIMEOUT)
    except queue.Empty:
        second = None
    operator = (second[len(OPERATOR_PREFIX):].strip()
                if second is not None and second.startswith(OPERATOR_PREFIX) else "")
    return HostileServer(proc=proc, url=first[len(LISTENING_PREFIX):].strip(), data_dir=data,
                         stderr=err, operator_url=operator)


ServerFactory = Callable[..., HostileServer]


@pytest.fixture
def hostile_server(tmp_path: Path) -> AsyncIterator[ServerFactory] | Any:
    """A factory: `hostile_server("--set", "FIELD=VALUE", ...)`; every server it started is
    stopped when the test ends."""
    started: list[HostileServer] = []

    def factory(*extra: str) -> HostileServer:
        srv = start_hostile(tmp_path / f"s{len(started)}", *extra)
        started.append(srv)
        return srv

    yield factory
    for srv in started:
        srv.stop()


async def client(server: HostileServer, subprotocol: str = SUBPROTOCOL_JSON,
                 **kwargs: Any) -> Client:
    """A connected protocol client (bounded wait)."""
    ws = await asyncio.wait_for(connect(server.ws_url, subprotocols=[subprotocol],  # type: ignore[list-item]
                                        ping_interval=None, **kwargs), TIMEOUT)
    return Client(ws=ws, subprotocol=subprotocol)


async def round_trip(server: HostileServer | None, probe: Client | None = None) -> float:
    """Seconds for one `ping` answer on `probe` (a fresh connection to `server` when None)."""
    own = probe is None
    if probe is None:
        assert server is not None
        c = await client(server)
    else:
        c = probe
    try:
        start = time.perf_counter()
        answer = await asyncio.wait_for(c.request("ping"), TIMEOUT)
        assert answer["type"] == "pong", answer
        return time.perf_counter() - start
    finally:
        if own:
            await c.ws.close()


async def while_attacking(attack: Awaitable[Any], probe: Client, *,
                          samples: int = 5) -> list[float]:
    """Run `attack` and, meanwhile, `samples` round trips of `probe`; returns their times.

    The attack is cancelled once the samples are taken (it may also finish first)."""
    task = asyncio.ensure_future(attack)
    times: list[float] = []
    try:
        for _ in range(samples):
            await asyncio.sleep(0.05)  # let the attack get going between samples
            times.append(await round_trip(server=None, probe=probe))
    finally:
        if not task.done():
            task.cancel()
        with contextlib.suppress(BaseException):
            await task
    return times


def ledger_sum(server: HostileServer) -> int:
    """Stop `server` and return the ledger's sum from its `event=ledger_closed sum=N` line
    (0 when no chip was created or destroyed)."""
    server.stop()
    for line in server.stderr_lines():
        if "event=ledger_closed" in line:
            return int(line.rsplit("sum=", 1)[1].split()[0])
    raise AssertionError("no ledger_closed line: " + "".join(server.stderr_lines()[-20:]))
