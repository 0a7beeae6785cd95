"""The server entry point (`server.main`): listening line, HTTP endpoints, static files without
path traversal, the WebSocket edge's basic answers, and graceful shutdown on SIGTERM."""

from __future__ import annotations

import asyncio
import http.client
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgpack
import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from server.config import Config
from server.main import listening_url, main, run
from server.net.http import resolve_static

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0
LISTENING_PREFIX = "poker-server listening on "


@dataclass
class RunningServer:
    proc: subprocess.Popen[str]
    url: str
    host: str
    port: int
    lines: queue.Queue[str | None]


def _pump(stream: object, sink: queue.Queue[str | None]) -> None:
    assert hasattr(stream, "readline")
    for line in iter(stream.readline, ""):
        sink.put(line)
    sink.put(None)


def start_server(tmp_path: Path, *extra: str) -> RunningServer:
    """Start `python -m server.main --port 0` and wait (bounded) for its listening line."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.main", "--port", "0", "--data-dir", str(tmp_path), *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
    try:
        first = lines.get(timeout=START_TIMEOUT)
    except queue.Empty:
        proc.kill()
        pytest.fail(f"server printed no listening line within {START_TIMEOUT}s")
    if first is None or not first.startswith(LISTENING_PREFIX):
        proc.kill()
        pytest.fail(f"unexpected first line from server: {first!r}")
    url = first[len(LISTENING_PREFIX) :].strip()
    parts = urlsplit(url)
    assert parts.hostname and parts.port
    return RunningServer(proc, url, parts.hostname, parts.port, lines)


def stop_server(server: RunningServer) -> int:
    if server.proc.poll() is None:
        server.proc.send_signal(signal.SIGTERM)
    try:
        return server.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()
        raise


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(tmp_path_factory.mktemp("data"))
    try:
        yield running
    finally:
        stop_server(running)


def get(server: RunningServer, path: str) -> tuple[int, dict[str, str], bytes]:
    """A raw GET: http.client sends `path` as given (no dot-segment normalisation)."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        headers = {k.lower(): v for k, v in response.getheaders()}
        return response.status, headers, response.read()
    finally:
        conn.close()


def test_listening_line_names_the_bound_port(server: RunningServer) -> None:
    assert server.url == f"http://127.0.0.1:{server.port}/"
    assert server.port != 0


def test_healthz(server: RunningServer) -> None:
    status, _, body = get(server, "/healthz")
    assert status == 200
    assert body.strip() == b"ok"


def test_readyz_when_listening(server: RunningServer) -> None:
    status, _, _ = get(server, "/readyz")
    assert status == 200


def test_root_serves_the_html_client(server: RunningServer) -> None:
    status, headers, body = get(server, "/")
    assert status == 200
    assert headers["content-type"].startswith("text/html")
    assert b"<html" in body.lower()
    assert body == (ROOT / "client_web" / "index.html").read_bytes()


def test_index_html_by_name(server: RunningServer) -> None:
    status, headers, _ = get(server, "/index.html?v=1")
    assert status == 200
    assert headers["content-type"].startswith("text/html")


@pytest.mark.parametrize(
    "path",
    [
        "/../pyproject.toml",
        "/%2e%2e/pyproject.toml",
        "/%2E%2E/pyproject.toml",
        "/..%2fpyproject.toml",
        "/%2e%2e%2fpyproject.toml",
        "/../../etc/passwd",
        "/..%5cpyproject.toml",
        "/./index.html/../../pyproject.toml",
        "//etc/passwd",
        "/%00index.html",
        "/%ff%fe",
        "/.hidden",
        "/pyproject.toml",
        "/server/main.py",
    ],
)
def test_traversal_and_outside_files_are_404(server: RunningServer, path: str) -> None:
    status, _, body = get(server, path)
    assert status == 404
    assert b"[project]" not in body and b"root:" not in body


def test_unknown_path_is_404(server: RunningServer) -> None:
    status, _, _ = get(server, "/no/such/thing.js")
    assert status == 404


def test_ws_path_without_upgrade_is_not_served_as_a_file(server: RunningServer) -> None:
    status, _, _ = get(server, "/ws")
    assert status == 426  # websockets: Upgrade Required


async def test_ws_answers_requests_with_their_rid(server: RunningServer) -> None:
    async with connect(f"ws://{server.host}:{server.port}/ws") as ws:
        assert ws.subprotocol is None  # no offer means JSON (docs/protocol.md Transport)
        await ws.send(orjson.dumps({"type": "frobnicate", "rid": 7}).decode())
        reply = orjson.loads(await asyncio.wait_for(ws.recv(), 10))
        assert reply["type"] == "error"
        assert reply["code"] == "unknown_type"
        assert reply["rid"] == 7
        await ws.send("{not json")
        reply = orjson.loads(await asyncio.wait_for(ws.recv(), 10))
        assert reply["code"] == "malformed"
        await ws.send(orjson.dumps({"type": "tables", "rid": 8}).decode())
        reply = orjson.loads(await asyncio.wait_for(ws.recv(), 10))
        assert reply["type"] == "ok" and reply["rid"] == 8 and isinstance(reply["tables"], list)


async def test_ws_honours_the_clients_first_subprotocol(server: RunningServer) -> None:
    offer = [Subprotocol("poker.v1.msgpack"), Subprotocol("poker.v1.json")]
    async with connect(f"ws://{server.host}:{server.port}/ws", subprotocols=offer) as ws:
        assert ws.subprotocol == "poker.v1.msgpack"
        await ws.send(msgpack.packb({"type": "hello", "rid": "a"}))
        frame = await asyncio.wait_for(ws.recv(), 10)
        assert isinstance(frame, bytes)
        reply = msgpack.unpackb(frame)
        assert reply["code"] == "missing_field" and reply["rid"] == "a"


def test_sigterm_exits_zero(tmp_path: Path) -> None:
    running = start_server(tmp_path)
    assert get(running, "/healthz")[0] == 200
    assert stop_server(running) == 0
    rest = []
    while (line := running.lines.get(timeout=10)) is not None:
        rest.append(line)
    assert not any(line.startswith(LISTENING_PREFIX) for line in rest), "exactly one line"


async def test_in_process_run_stops_when_asked(tmp_path: Path) -> None:
    stop = asyncio.Event()
    urls: list[str] = []
    config = Config(port=0, data_dir=tmp_path / "store")
    task = asyncio.create_task(run(config, stop=stop, on_listening=urls.append))
    while not urls:
        await asyncio.sleep(0)
        if task.done():
            task.result()
    parts = urlsplit(urls[0])
    assert parts.port
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    status_line = await asyncio.wait_for(reader.readline(), 10)
    assert b" 200 " in status_line
    writer.close()
    stop.set()
    await asyncio.wait_for(task, 15)
    assert (tmp_path / "store").is_dir()


def test_bad_arguments_exit_with_usage_error() -> None:
    with pytest.raises(SystemExit) as excinfo:
        main(["--port", "70000"])
    assert excinfo.value.code == 2


def test_listening_url_brackets_ipv6() -> None:
    assert listening_url("::1", 8080) == "http://[::1]:8080/"
    assert listening_url("127.0.0.1", 9) == "http://127.0.0.1:9/"


def test_resolve_static_stays_inside_root(tmp_path: Path) -> None:
    root = tmp_path / "static"
    root.mkdir()
    (root / "index.html").write_text("<html></html>")
    (root / "app.js").write_text("export {}")
    (root / "notes.txt").write_text("x")
    (tmp_path / "secret.html").write_text("secret")
    (root / "link.html").symlink_to(tmp_path / "secret.html")
    assert resolve_static(root, "/") == (root / "index.html").resolve()
    assert resolve_static(root, "/app.js?x=1") == (root / "app.js").resolve()
    assert resolve_static(root, "/notes.txt") is None  # unknown content type
    assert resolve_static(root, "/link.html") is None  # symlink leaving the root
    assert resolve_static(root, "/../secret.html") is None
    assert resolve_static(root, "/%2e%2e/secret.html") is None
    assert resolve_static(root, "relative.html") is None


def test_config_defaults_and_validation() -> None:
    config = Config()
    assert config.max_frame_bytes == 65536
    assert config.starting_balance == 10000
    assert config.compression is False
    assert config.test_mode is False
    with pytest.raises(ValueError):
        Config(port=-1)
    with pytest.raises(ValueError):
        Config(outbox_size=0)


@pytest.mark.parametrize("field", [
    "send_buffer_bytes", "read_chunk_bytes", "inbound_high_water", "max_fragments",
    "flood_limit", "flood_window", "slow_close_timeout", "close_flush_timeout",
    "frame_rate", "frame_burst", "write_stall_timeout", "max_write_buffer",
])
def test_connection_limits_live_in_config_and_must_be_positive(field: str) -> None:
    """The edge's limits are `Config` fields (one place for every limit), refused when not
    positive; a connection of a server built with other values uses them."""
    assert getattr(Config(), field) > 0
    zero: dict[str, Any] = {field: 0}
    with pytest.raises(ValueError, match=field):
        Config(**zero)


async def test_the_frame_bucket_is_never_tighter_than_the_request_bucket(
        tmp_path: Path) -> None:
    """A server that raises `request_rate`/`request_burst` (the load tester's zero-think
    bots) gets a frame bucket at least as large: a message is at least one frame."""
    from tests.net.conftest import open_client, start_live

    config = Config(port=0, data_dir=tmp_path / "store", ping_interval=0, test_mode=True,
                    request_rate=1000.0, request_burst=5000)
    live = await start_live(config)
    try:
        client = await open_client(live)
        assert (await client.request("ping", t=1))["type"] == "pong"
        (conn,) = live.app.edge.connections.values()
        assert (conn.frames.rate, conn.frames.burst) == (1000.0, 5000)
        assert (conn.requests.rate, conn.requests.burst) == (1000.0, 5000)
        await client.ws.close()
    finally:
        await live.close()


def test_the_write_budget_is_above_websockets_high_water_mark() -> None:
    """`max_write_buffer` below 64 KiB would cut connections in normal operation (websockets
    pauses writes at 32 KiB): refused, naming the field."""
    assert Config(max_write_buffer=65536).max_write_buffer == 65536
    for bad in (65535, 1.5e6, True):
        with pytest.raises(ValueError, match="max_write_buffer"):
            Config(max_write_buffer=bad)  # type: ignore[arg-type]


async def test_a_connection_takes_its_limits_from_the_config(tmp_path: Path) -> None:
    from tests.net.conftest import open_client, start_live

    config = Config(port=0, data_dir=tmp_path / "store", ping_interval=0, read_chunk_bytes=4096,
                    max_fragments=7, flood_limit=3, flood_window=9.0, inbound_high_water=5,
                    slow_close_timeout=0.5, frame_rate=70.0, frame_burst=90,
                    max_write_buffer=70000, write_stall_timeout=3.0, test_mode=True)
    live = await start_live(config)
    try:
        client = await open_client(live)
        assert (await client.request("ping", t=1))["type"] == "pong"
        (conn,) = live.app.edge.connections.values()
        assert conn.ws.transport.max_size == 4096  # type: ignore[attr-defined]
        assert conn.ws.max_fragments == 7  # type: ignore[attr-defined]  # set by the edge
        assert (conn.flood.limit, conn.flood.window) == (3, 9.0)
        assert (conn._high_water, conn._slow_close) == (5, 0.5)
        assert (conn.frames.rate, conn.frames.burst) == (70.0, 90)
        ws = conn.ws
        assert ws.frame_limit is conn.frames  # type: ignore[attr-defined]
        assert (ws.max_write_buffer, ws.write_stall_timeout) == (70000, 3.0)  # type: ignore[attr-defined]
        await client.ws.close()
    finally:
        await live.close()
