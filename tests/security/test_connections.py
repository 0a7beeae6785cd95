"""Connections: nobody can lock others out by holding sockets (per-address cap, total cap
below the file-descriptor limit, hello deadline, bounded logs), against a real `poker-server`
without test mode.

Attackers connect from other loopback addresses (127.0.0.2...: Linux routes all of 127/8 to
the loopback interface) than the player and the health probe (127.0.0.1), as a remote
attacker would come from another address than the players.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.security.conftest import (
    LISTENING_PREFIX,
    OPERATOR_PREFIX,
    ROOT,
    SERVED_BOUND,
    TIMEOUT,
    HostileServer,
    ServerFactory,
    _pump,
    client,
    ledger_sum,
    round_trip,
)

ATTACKER = "127.0.0.2"


async def http_get(url: str, path: str, *, source: str | None = None,
                   headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One GET on a fresh connection: (status, headers lowercased, body)."""
    parts = urlsplit(url)
    assert parts.hostname and parts.port
    reader, writer = await asyncio.wait_for(asyncio.open_connection(
        parts.hostname, parts.port, local_addr=(source, 0) if source else None), TIMEOUT)
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\n{extra}"
                 "Connection: close\r\n\r\n".encode())
    raw = await asyncio.wait_for(reader.read(), TIMEOUT)
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), fields, body


async def metrics(server: HostileServer) -> dict[str, float]:
    """The operator listener's /metrics as {series: value}."""
    status, _, body = await http_get(server.operator_url, "/metrics")
    assert status == 200
    out: dict[str, float] = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


async def until(server: HostileServer, series: str, value: float) -> dict[str, float]:
    """Poll /metrics (bounded) until `series` reaches `value`."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        seen = await metrics(server)
        if seen.get(series, 0) >= value or time.monotonic() > deadline:
            return seen
        await asyncio.sleep(0.02)


async def timed_healthz(server: HostileServer) -> float:
    start = time.perf_counter()
    status, _, body = await http_get(server.url, "/healthz")
    assert (status, body) == (200, b"ok\n")
    return time.perf_counter() - start


async def hello_and_ping(server: HostileServer) -> float:
    """Seconds for another player to connect, say hello and get a pong."""
    start = time.perf_counter()
    player = await client(server)
    await player.hello("Victim")
    await round_trip(None, player)
    took = time.perf_counter() - start
    await player.ws.close()
    return took


async def open_raw(server: HostileServer, count: int, source: str
                   ) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """`count` TCP connections from `source` that never send a byte."""
    socks = []
    for _ in range(count):
        socks.append(await asyncio.wait_for(asyncio.open_connection(
            server.host, server.port, local_addr=(source, 0)), TIMEOUT))
    return socks


async def refused(socks: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]) -> int:
    """How many of `socks` got the 503 and end of stream (the others stay silent)."""
    async def one(reader: asyncio.StreamReader) -> bool:
        try:
            data = await asyncio.wait_for(reader.read(), 0.3)
        except TimeoutError:
            return False
        return data.startswith(b"HTTP/1.1 503 ")
    return sum(await asyncio.gather(*(one(r) for r, _ in socks)))


def close_all(socks: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]) -> None:
    for _, writer in socks:
        writer.close()


async def test_idle_sockets_over_the_per_ip_cap_are_refused_and_others_stay_served(
        hostile_server: ServerFactory) -> None:
    """19,986 idle anonymous sockets from one address: with a cap of 20 per address, the 21st
    and later get a 503 and are closed at once; /healthz and another player stay fast; the
    refusals are counted in /metrics, not logged one by one."""
    srv = hostile_server("--set", "max_connections_per_ip=20")
    before = len(srv.stderr_lines())
    idle = await open_raw(srv, 200, ATTACKER)
    seen = await until(srv, 'poker_connections_refused_total{reason="per_ip"}', 180)
    assert seen['poker_connections_refused_total{reason="per_ip"}'] == 180
    assert seen["poker_tcp_connections"] == 20
    assert await refused(idle) == 180
    healthz = [await timed_healthz(srv) for _ in range(5)]
    player = [await hello_and_ping(srv) for _ in range(3)]
    print(f"200 idle sockets from one address, cap 20: /healthz {max(healthz) * 1000:.1f} ms "
          f"max, hello+ping {max(player) * 1000:.1f} ms max")
    assert max(healthz) < SERVED_BOUND and max(player) < SERVED_BOUND
    # the same address gets its connections back once its sockets close
    close_all(idle)
    deadline = time.monotonic() + TIMEOUT
    while (await metrics(srv))["poker_tcp_connections"] > 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    status, _, _ = await http_get(srv.url, "/healthz", source=ATTACKER)
    assert status == 200
    lines = srv.stderr_lines()[before:]
    assert len(lines) < 30, "".join(lines)
    assert ledger_sum(srv) == 0


async def test_websocket_flood_from_one_address_is_capped(hostile_server: ServerFactory
                                                         ) -> None:
    """Completed WebSocket handshakes count as well: 60 from one address, 20 get through."""
    srv = hostile_server("--set", "max_connections_per_ip=20")
    opened, failed = [], 0
    for _ in range(60):
        try:
            opened.append(await asyncio.wait_for(connect(
                srv.ws_url, local_addr=(ATTACKER, 0), ping_interval=None), TIMEOUT))
        except (InvalidStatus, ConnectionClosed, OSError, EOFError) as exc:
            if isinstance(exc, InvalidStatus):
                assert exc.response.status_code == 503
            failed += 1
        except Exception:  # e.g. InvalidMessage when the 503 raced the request (a reset)
            failed += 1
    assert (len(opened), failed) == (20, 40)
    assert await hello_and_ping(srv) < SERVED_BOUND
    for ws in opened:
        await ws.close()


async def test_a_socket_that_never_says_hello_is_closed_at_the_deadline(
        hostile_server: ServerFactory) -> None:
    """hello_deadline=0.5: a WebSocket that neither identifies nor watches is closed with
    1008 `hello deadline`; a TCP socket that never even handshakes is dropped; a player who
    said hello, opened at the same time, stays."""
    srv = hostile_server("--set", "hello_deadline=0.5")
    player = await client(srv)
    await player.hello("Patient")
    silent = await client(srv)
    [(raw_reader, raw_writer)] = await open_raw(srv, 1, ATTACKER)
    start = time.perf_counter()
    await asyncio.wait_for(silent.ws.wait_closed(), TIMEOUT)
    took = time.perf_counter() - start
    assert silent.ws.close_code == 1008 and silent.ws.close_reason == "hello deadline"
    assert 0.3 < took < 0.5 + SERVED_BOUND + 0.5, took
    with contextlib.suppress(ConnectionResetError):  # closed (or reset), no answer
        assert await asyncio.wait_for(raw_reader.read(), TIMEOUT) == b""
    raw_writer.close()
    # the player's deadline passed too (it connected first): it is still served
    assert await round_trip(None, player) < SERVED_BOUND
    assert player.ws.close_code is None
    seen = await until(srv, "poker_hello_deadline_closes_total", 1)
    assert seen["poker_hello_deadline_closes_total"] == 1
    await player.ws.close()


async def test_watching_a_table_meets_the_deadline(hostile_server: ServerFactory) -> None:
    """A spectator (watch, no hello) is not closed at the deadline; a pinger is."""
    srv = hostile_server("--set", "hello_deadline=0.5")
    owner = await client(srv)
    await owner.hello("Owner")
    made = await owner.request("create_table", variant="holdem", structure="no_limit",
                               stakes={"blinds": [5, 10]}, seats=6)
    assert made["type"] == "ok", made
    watcher = await client(srv)
    assert (await watcher.request("watch", table=made["table"]))["type"] == "ok"
    pinger = await client(srv)
    assert (await pinger.request("ping"))["type"] == "pong"
    await asyncio.wait_for(pinger.ws.wait_closed(), TIMEOUT)
    assert pinger.ws.close_code == 1008
    assert await round_trip(None, watcher) < SERVED_BOUND
    await watcher.ws.close()
    await owner.ws.close()


async def test_the_total_cap_holds_against_many_addresses(hostile_server: ServerFactory
                                                         ) -> None:
    """Four addresses with 12 sockets each against a total cap of 30: 18 refused
    (`reason="total"`); the operator listener stays served; once they go, players come."""
    srv = hostile_server("--set", "max_connections=30", "--set", "max_connections_per_ip=12")
    socks = []
    for i in range(4):
        socks += await open_raw(srv, 12, f"127.0.0.{i + 2}")
    seen = await until(srv, 'poker_connections_refused_total{reason="total"}', 18)
    assert seen['poker_connections_refused_total{reason="total"}'] == 18
    assert seen["poker_tcp_connections"] == 30
    assert await refused(socks) == 18
    start = time.perf_counter()
    status, _, _ = await http_get(srv.operator_url, "/healthz")
    assert status == 200 and time.perf_counter() - start < SERVED_BOUND
    close_all(socks)
    deadline = time.monotonic() + TIMEOUT
    while (await metrics(srv))["poker_tcp_connections"] > 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert await hello_and_ping(srv) < SERVED_BOUND
    assert any("event=connection_limits max_connections=30 " in line
               for line in srv.stderr_lines())


@contextlib.contextmanager
def low_nofile_server(tmp_path: Path, nofile: int, *extra: str) -> Iterator[HostileServer]:
    """A server started with RLIMIT_NOFILE (soft and hard) at `nofile`."""
    import queue

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    proc = subprocess.Popen(
        [sys.executable, "-m", "server.main", "--port", "0", "--data-dir",
         str(tmp_path / "data"), "--no-ledger-fsync", *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=limit)
    out: queue.Queue[str | None] = queue.Queue()
    err: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, out), daemon=True).start()
    threading.Thread(target=_pump, args=(proc.stderr, err), daemon=True).start()
    try:
        first, second = out.get(timeout=30), out.get(timeout=30)
        assert first is not None and first.startswith(LISTENING_PREFIX), first
        assert second is not None and second.startswith(OPERATOR_PREFIX), second
        srv = HostileServer(proc=proc, url=first[len(LISTENING_PREFIX):].strip(),
                            data_dir=tmp_path / "data", stderr=err,
                            operator_url=second[len(OPERATOR_PREFIX):].strip())
        yield srv
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


async def test_the_total_cap_is_clamped_below_the_descriptor_limit(tmp_path: Path) -> None:
    """RLIMIT_NOFILE 300 and the default fd_reserve 128: at most 172 connections, logged; the
    173rd and later are refused, never an accept() failure."""
    with low_nofile_server(tmp_path, 300, "--set", "max_connections_per_ip=1000") as srv:
        socks = []
        for i in range(4):
            socks += await open_raw(srv, 50, f"127.0.0.{i + 2}")
        seen = await until(srv, 'poker_connections_refused_total{reason="total"}', 28)
        assert seen['poker_connections_refused_total{reason="total"}'] == 28
        assert seen["poker_accept_errors_total"] == 0
        start = time.perf_counter()  # still accepting: a prompt 503, not a timeout
        try:
            status: int | None = (await http_get(srv.url, "/healthz"))[0]
        except ConnectionResetError:  # our request raced the 503 and met the closed socket
            status = None  # refused all the same, and promptly
        assert status in (503, None)
        assert (await http_get(srv.operator_url, "/healthz"))[0] == 200
        assert time.perf_counter() - start < SERVED_BOUND
        close_all(socks)
        lines = srv.stderr_lines()
        assert any("event=connection_limits max_connections=172 requested=10000 nofile=300"
                   in line and "level=WARNING" in line for line in lines), "".join(lines)


async def test_accept_errors_are_logged_at_a_bounded_rate(tmp_path: Path) -> None:
    """With a reserve too small for what the process holds, accept() fails with EMFILE: the
    failures are counted and logged once per interval, without a traceback each."""
    with low_nofile_server(tmp_path, 64, "--set", "fd_reserve=16", "--set",
                           "max_connections_per_ip=1000", "--set",
                           "accept_error_log_interval=1") as srv:
        socks = []
        started = time.monotonic()
        for i in range(3):
            socks += await open_raw(srv, 30, f"127.0.0.{i + 2}")
        await asyncio.sleep(2.5)  # the attack goes on: asyncio retries accept() each second
        elapsed = time.monotonic() - started
        close_all(socks)
        seen = await until(srv, "poker_accept_errors_total", 1)
        assert seen["poker_accept_errors_total"] >= 1
        lines = srv.stderr_lines()
        summaries = [line for line in lines if "event=accept_errors" in line]
        assert summaries and "EMFILE=" in summaries[0]
        assert len(summaries) <= elapsed / 1.0 + 2
        assert not any("Traceback" in line or "out of system resource" in line
                       for line in lines), "".join(lines[-20:])


async def test_stderr_stays_small_under_a_connection_churn(hostile_server: ServerFactory
                                                           ) -> None:
    """300 handshakes that never say hello, from one address, 20 at a time: each gets its
    deadline close; the log gets summaries and budgeted lines, not 600 lines."""
    srv = hostile_server("--set", "hello_deadline=0.5", "--set",
                         "max_connections_per_ip=20", "--set", "log_lines_per_interval=20")
    before = len(srv.stderr_lines())

    async def one() -> None:
        with contextlib.suppress(Exception):
            ws = await connect(srv.ws_url, local_addr=(ATTACKER, 0), ping_interval=None)
            await asyncio.wait_for(ws.wait_closed(), TIMEOUT)

    for _ in range(15):
        await asyncio.gather(*(one() for _ in range(20)))
    seen = await metrics(srv)
    assert seen["poker_hello_deadline_closes_total"] >= 250
    assert await hello_and_ping(srv) < SERVED_BOUND
    lines = srv.stderr_lines()[before:]
    size = sum(len(line) for line in lines)
    print(f"300 deadline closes: {len(lines)} log lines, {size} bytes")
    assert len(lines) < 80 and size < 16_000, "".join(lines[-10:])


async def test_an_open_lobby_page_lives_and_goes_quiet_to_the_deadline(
        hostile_server: ServerFactory) -> None:
    """hello_deadline=0.5: a lobby page (anonymous `tables` every 0.2 s, as the client polls)
    outlives several deadlines; once it stops asking, it is closed with 1008 like any idle
    socket."""
    srv = hostile_server("--set", "hello_deadline=0.5")
    lobby = await client(srv)
    start = time.perf_counter()
    while time.perf_counter() - start < 1.5:  # three deadlines' worth of polling
        answer = await lobby.request("tables")
        assert answer["type"] == "ok"
        await asyncio.sleep(0.2)  # the page's poll interval (pacing, not a wait)
    assert lobby.ws.close_code is None
    quiet = time.perf_counter()
    await asyncio.wait_for(lobby.ws.wait_closed(), TIMEOUT)
    assert lobby.ws.close_code == 1008 and lobby.ws.close_reason == "hello deadline"
    assert time.perf_counter() - quiet < 0.5 + SERVED_BOUND + 0.5
