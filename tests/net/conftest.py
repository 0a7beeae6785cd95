"""Live servers for the edge tests: in-process (`live`, `live_server`) and as a subprocess
(`start_subprocess`), plus `Client`, a protocol client over a real websockets connection.

Rule of these helpers: nothing sleeps; every wait is on a message with a timeout
(`asyncio.wait_for`), so a broken server fails a test quickly instead of hanging it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import os
import queue
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from websockets.asyncio.client import ClientConnection, connect

from protocol import JSON_CODEC, MSGPACK_CODEC, SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from server.config import Config
from server.main import App, build_app, run

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 10.0
"""Seconds any single wait in these tests may take."""

ENCODINGS = [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK]


def test_config(tmp_path: Path, **overrides: Any) -> Config:
    """A Config for tests: port 0, test mode, keepalive pings off, data under tmp_path."""
    base = Config(port=0, test_mode=True, data_dir=tmp_path / "data", ping_interval=0,
                  ping_timeout=0, shutdown_deadline=0.5)
    return dataclasses.replace(base, **overrides)


test_config.__test__ = False  # type: ignore[attr-defined]  # not a test, despite the name


@dataclass
class Live:
    """A running in-process server: `url` (http), `ws_url`, and its `app` to look inside."""

    url: str
    app: App
    stop: asyncio.Event
    task: asyncio.Task[None]

    @property
    def ws_url(self) -> str:
        parts = urlsplit(self.url)
        return f"ws://{parts.hostname}:{parts.port}/ws"

    @property
    def host_port(self) -> tuple[str, int]:
        parts = urlsplit(self.url)
        assert parts.hostname and parts.port
        return parts.hostname, parts.port

    async def close(self) -> None:
        self.stop.set()
        await asyncio.wait_for(self.task, 20)


async def start_live(config: Config) -> Live:
    """Start `server.main.run` in this event loop on 127.0.0.1, port 0."""
    app = build_app(config)
    stop = asyncio.Event()
    started: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run(config, stop=stop, app=app,
                                   on_listening=lambda url: started.set_result(url)))
    done, _ = await asyncio.wait({started, task}, timeout=TIMEOUT,
                                 return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        task.result()
    assert started in done, "server did not start"
    return Live(url=started.result(), app=app, stop=stop, task=task)


LiveFactory = Callable[..., Awaitable[Live]]


@pytest.fixture
def fast_send() -> bool:
    """`Config.fast_send` of the live servers; the edge suites (`test_edge.py`,
    `test_send_path.py`) override it with both values, to run both ways: the fast path
    (`server.net.fastpath`) and websockets' public API only."""
    return True


@pytest.fixture
async def live_server(tmp_path: Path, fast_send: bool) -> AsyncIterator[LiveFactory]:
    """`await live_server(**config_overrides)` starts a server; all stop at teardown."""
    servers: list[Live] = []

    async def factory(**overrides: Any) -> Live:
        overrides.setdefault("fast_send", fast_send)
        server = await start_live(test_config(tmp_path, **overrides))
        servers.append(server)
        return server

    yield factory
    for server in servers:
        await server.close()


@pytest.fixture
async def live(live_server: LiveFactory) -> Live:
    """The default test server (test mode, default limits)."""
    return await live_server()


# --------------------------------------------------------------------------------------------
# A protocol client
# --------------------------------------------------------------------------------------------


@dataclass
class Client:
    """One protocol client: `request()` sends with a fresh rid and returns the answer;
    events (anything that is not an answer) are queued for `event()`."""

    ws: ClientConnection
    subprotocol: str
    rids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    answers: dict[Any, dict[str, Any]] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    player_id: str | None = None
    token: str | None = None

    @property
    def codec(self) -> Any:
        return MSGPACK_CODEC if self.subprotocol == SUBPROTOCOL_MSGPACK else JSON_CODEC

    async def send_raw(self, frame: str | bytes) -> None:
        await self.ws.send(frame)

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(self.codec.encode(message, check=False))

    async def receive(self) -> dict[str, Any]:
        """The next message from the server, whatever it is (bounded wait)."""
        frame = await asyncio.wait_for(self.ws.recv(), TIMEOUT)
        if self.subprotocol == SUBPROTOCOL_MSGPACK:
            assert isinstance(frame, bytes), "msgpack connections get binary frames"
        else:
            assert isinstance(frame, str), "JSON connections get text frames"
        message: dict[str, Any] = self.codec.decode(frame, max_bytes=1 << 24)
        return message

    async def _pump(self) -> None:
        message = await self.receive()
        if message["type"] in ("ok", "error", "pong") and "rid" in message:
            self.answers[message["rid"]] = message  # (a pushed `moved` has none: an event)
        else:
            self.events.append(message)

    async def answer(self, rid: Any) -> dict[str, Any]:
        while rid not in self.answers:
            await self._pump()
        return self.answers.pop(rid)

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send `{"type": kind, "rid": <fresh>, **fields}` and return its answer."""
        rid = next(self.rids)
        await self.send({"type": kind, "rid": rid, **fields})
        return await self.answer(rid)

    async def event(self, kind: str, **match: Any) -> dict[str, Any]:
        """The first queued or coming event of type `kind` whose fields equal `match`;
        events before it are dropped."""
        while True:
            while self.events:
                message = self.events.pop(0)
                if message["type"] == kind and all(message.get(k) == v
                                                   for k, v in match.items()):
                    return message
            await self._pump()

    async def event_any(self) -> dict[str, Any]:
        """The next event (not an answer), queued or coming."""
        while not self.events:
            await self._pump()
        return self.events.pop(0)

    async def hello(self, name: str) -> dict[str, Any]:
        """Guest hello; returns the `welcome` and remembers player_id and token."""
        answer = await self.request("hello", guest=name)
        assert answer["type"] == "ok", answer
        welcome = await self.event("welcome")
        self.player_id, self.token = welcome["player_id"], welcome["token"]
        return welcome


async def open_client(server: Live, subprotocol: str | None = SUBPROTOCOL_JSON,
                      **kwargs: Any) -> Client:
    """A connected `Client` (offering `subprotocol` only; None offers nothing: JSON)."""
    offer = [subprotocol] if subprotocol else None
    ws = await asyncio.wait_for(connect(server.ws_url, subprotocols=offer,  # type: ignore[arg-type]
                                        ping_interval=None, **kwargs), TIMEOUT)
    return Client(ws=ws, subprotocol=subprotocol or SUBPROTOCOL_JSON)


# --------------------------------------------------------------------------------------------
# The server as a subprocess (SIGTERM tests)
# --------------------------------------------------------------------------------------------

LISTENING_PREFIX = "poker-server listening on "


@dataclass
class Subprocess:
    proc: subprocess.Popen[str]
    url: str
    stderr: queue.Queue[str | None]
    lines: list[str] = field(default_factory=list)

    @property
    def ws_url(self) -> str:
        parts = urlsplit(self.url)
        return f"ws://{parts.hostname}:{parts.port}/ws"

    def stderr_lines(self) -> list[str]:
        """Every stderr line so far (after the process ended: all of them)."""
        while True:
            try:
                line = self.stderr.get_nowait()
            except queue.Empty:
                return self.lines
            if line is None:
                return self.lines
            self.lines.append(line)


def _pump(stream: Any, sink: queue.Queue[str | None]) -> None:
    for line in iter(stream.readline, ""):
        sink.put(line)
    sink.put(None)


def start_subprocess(tmp_path: Path, *extra: str) -> Subprocess:
    """`python -m server.main --port 0 --test-mode ...`, waiting for its listening line."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.main", "--port", "0", "--test-mode",
         "--data-dir", str(tmp_path / "data"), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    out: queue.Queue[str | None] = queue.Queue()
    err: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, out), daemon=True).start()
    threading.Thread(target=_pump, args=(proc.stderr, err), daemon=True).start()
    try:
        first = out.get(timeout=30)
    except queue.Empty:
        proc.kill()
        pytest.fail("server printed no listening line")
    if first is None or not first.startswith(LISTENING_PREFIX):
        proc.kill()
        pytest.fail(f"unexpected first line {first!r}")
    return Subprocess(proc=proc, url=first[len(LISTENING_PREFIX):].strip(), stderr=err)
