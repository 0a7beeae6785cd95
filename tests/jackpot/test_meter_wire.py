"""CSP-12 meter over the wire: a pool change made on one server process reaches a connection of
another process (through Redis pub/sub) within a second; the lobby shows the pool; operators
read the history at ``GET /jackpot/history`` (on the operator listener).  And the in-process
default does the same on one process."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from server.rules.caribbean_payout import CaribbeanSettings, Contribution
from tests.net.conftest import Live, open_client, start_live, test_config
from tests.redis_helpers import RedisProcess

S = CaribbeanSettings(reset_amount=10_000)
ROOT = Path(__file__).resolve().parents[2]


def wager(hand: str, seat: int, amount: int = 100) -> Contribution:
    minor, major, house = S.split_wager(amount)
    return Contribution(hand, seat, amount, minor + major, minor, major, house)


def operator(server: Live) -> tuple[str, int]:
    """Host and port of the server's operator listener (where `/jackpot/history` is)."""
    parts = urlsplit(server.app.operator_url or "")
    assert parts.hostname and parts.port
    return parts.hostname, parts.port


async def http_get(host: str, port: int, path: str) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n"
                 .encode())  # (the operator listener checks Host: its own address)
    raw = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


async def test_csp12_meter_reaches_every_process_within_a_second_and_history_over_http(
        redis_server: RedisProcess, tmp_path: Path) -> None:
    """CSP-12: the meter that players see is the pool, on every process (< 1 s)."""
    a = await start_live(test_config(tmp_path / "a", redis_url=redis_server.url, node="a"))
    b = await start_live(test_config(tmp_path / "b", redis_url=redis_server.url, node="b"))
    try:
        watcher = await open_client(b)
        player = await open_client(b)
        await player.hello("Ann")
        made = await player.request("create_table", variant="caribbean",
                                    stakes={"min": 10, "max": 100},
                                    seats=5)
        assert made["type"] == "ok", made
        assert a.app.jackpot is not None
        t0 = time.monotonic()
        a.app.jackpot.hand_settled("far.1", table="t9", settings=S,
                                   contributions=[wager("far.1", 0), wager("far.1", 1, 1000)],
                                   claims=[])
        # CSP-08: the pool opened at the reset amount ($10,000), then the two wagers' shares
        msg = await asyncio.wait_for(watcher.event("jackpot", pool=1_000_770), 1.0)
        took = time.monotonic() - t0
        assert msg == {"type": "jackpot", "pool": 1_000_770} and took < 1.0
        tables = (await player.request("tables"))["tables"]
        assert [t["jackpot"] for t in tables if t["variant"] == "caribbean"] == [
            {"pool": 1_000_770}]
        status, body = await http_get(*operator(b), "/jackpot/history?start=0&count=10")
        page: dict[str, Any] = json.loads(body)
        assert status == 200 and page["state"]["major"] == 1_000_770
        assert [(e["kind"], e["hand"], e["key"], e["amount"]) for e in page["entries"]] == [
            ("seed", "", "", 1_000_000), ("contribution", "far.1", "far.1:0", 70),
            ("contribution", "far.1", "far.1:1", 700)]
        assert (await http_get(*operator(b), "/jackpot/history?start=x"))[0] == 400
        print(f"meter latency across processes: {took * 1000:.1f} ms")
    finally:
        await a.close()
        await b.close()


async def test_csp12_in_process_meter_and_history(tmp_path: Path) -> None:
    """The embedded default: every connection of the process gets the meter at once."""
    server = await start_live(test_config(tmp_path))
    try:
        watcher = await open_client(server)
        assert server.app.jackpot is not None
        server.app.jackpot.hand_settled("t1.1", table="t1", settings=S,
                                        contributions=[wager("t1.1", 3)], claims=[])
        assert await asyncio.wait_for(watcher.event("jackpot"), 1.0) == {
            "type": "jackpot", "pool": 1_000_070}  # opened at $10,000 (CSP-08), then 70
        status, body = await http_get(*operator(server), "/jackpot/history")
        entries = json.loads(body)["entries"]
        assert status == 200 and [e["kind"] for e in entries[:2]] == ["seed", "contribution"]
        assert entries[1]["key"] == "t1.1:3"
    finally:
        await server.close()


async def test_history_cli_prints_every_entry_with_hand_ids(
        redis_server: RedisProcess) -> None:
    """Operators: ``python -m server.jackpot.history --redis URL`` lists the history."""
    from server.jackpot.base import Claim
    from server.jackpot.redis_coord import RedisCoordinator

    coord = await RedisCoordinator.connect(redis_server.url, seed=0)  # an empty pool
    await coord.register("t4.2", owner="p")
    await coord.report("t4.2", owner="p", table="t4", settings=S,
                       contributions=[wager("t4.2", 1)],
                       claims=[Claim("t4.2", 0, "ann", "flush", 0)])
    await coord.close()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.jackpot.history", "--redis", redis_server.url,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE)
    out, _ = await asyncio.wait_for(proc.communicate(), 30)
    lines = out.decode().splitlines()
    assert proc.returncode == 0 and lines[0].startswith("minor=0 major=10000")
    assert [ln.split()[1:3] for ln in lines[1:]] == [
        ["contribution", "hand=t4.2"], ["payout", "hand=t4.2"], ["shortfall", "hand=t4.2"],
        ["reseed", "hand=t4.2"]]
