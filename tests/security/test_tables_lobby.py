"""Tables and the lobby under attack, against a real `poker-server` without test mode: table
caps per account, per address and in all (`too_many_tables`), empty tables closed after
`idle_table_close`, and a lobby flood that neither slows another player's ping nor grows
the answer past its bound (docs/security.md, "Tables, lobby and chat")."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson

from tests.security.conftest import (
    SERVED_BOUND,
    TIMEOUT,
    ServerFactory,
    client,
    round_trip,
    while_attacking,
)

HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [5, 10]}, "seats": 6}


async def _create(c: Any) -> dict[str, Any]:
    answer: dict[str, Any] = await c.request("create_table", **HOLDEM)
    return answer


async def test_a_guest_past_the_account_cap_gets_too_many_tables(
        hostile_server: ServerFactory) -> None:
    srv = hostile_server("--set", "max_tables_per_account=3")
    c = await client(srv)
    await c.hello("Hoarder")
    for _ in range(3):
        assert (await _create(c))["type"] == "ok"
    refused = await _create(c)
    assert refused["type"] == "error" and refused["code"] == "too_many_tables"
    assert "account" in refused["message"]
    assert (await c.request("tables"))["total"] == 3


async def test_many_guests_from_one_address_past_the_ip_cap(
        hostile_server: ServerFactory) -> None:
    srv = hostile_server("--set", "max_tables_per_account=2", "--set", "max_tables_per_ip=5")
    answers = []
    for i in range(4):  # a fresh guest each time: the per-account cap alone would not hold
        c = await client(srv)
        await c.hello(f"Sybil{i}")
        answers += [await _create(c), await _create(c)]
    codes = [a.get("code", "ok") for a in answers]
    assert codes[:5] == ["ok"] * 5 and set(codes[5:]) == {"too_many_tables"}
    assert all("address" in a["message"] for a in answers[5:])


async def test_the_global_cap(hostile_server: ServerFactory) -> None:
    srv = hostile_server("--set", "max_tables=3", "--set", "max_tables_per_ip=100")
    a, b = await client(srv), await client(srv)
    await a.hello("Alpha")
    await b.hello("Beta")
    assert [(await _create(a))["type"] for _ in range(2)] == ["ok", "ok"]
    assert (await _create(b))["type"] == "ok"
    refused = await _create(b)
    assert refused["code"] == "too_many_tables" and "server" in refused["message"]


async def test_a_left_empty_table_closes_and_leaves_the_lobby(
        hostile_server: ServerFactory) -> None:
    srv = hostile_server("--set", "idle_table_close=1.0")
    owner, watcher = await client(srv), await client(srv)
    await owner.hello("Leaver")
    table = (await _create(owner))["table"]
    assert (await owner.request("sit", table=table, seat=0, buy_in=500))["type"] == "ok"
    assert (await watcher.request("watch", table=table))["type"] == "ok"
    await asyncio.sleep(1.5)  # seated: the table stays past idle_table_close
    assert [t["table"] for t in (await watcher.request("tables"))["tables"]] == [table]
    assert (await owner.request("leave", table=table))["type"] == "ok"
    await owner.ws.close()
    closed = await asyncio.wait_for(watcher.event("table_closed", table=table), TIMEOUT)
    assert closed["reason"] == "idle"
    listing = await watcher.request("tables")
    assert listing["tables"] == [] and listing["total"] == 0
    assert (await watcher.request("watch", table=table))["code"] == "unknown_table"


async def test_a_lobby_flood_from_eight_connections_keeps_pings_fast_and_answers_bounded(
        hostile_server: ServerFactory) -> None:
    n_tables = 2000
    srv = hostile_server("--request-rate", "1000000", "--request-burst", "1000000",
                         "--set", "max_tables_per_account=100000",
                         "--set", "max_tables_per_ip=100000", "--set", f"max_tables={n_tables}")
    owner = await client(srv)
    await owner.hello("Builder")
    made = 0
    while made < n_tables:  # pipelined; `server_busy` while the next block of ids comes
        rids = [f"c{made}-{i}" for i in range(min(100, n_tables - made))]
        for rid in rids:
            await owner.send({"type": "create_table", "rid": rid, **HOLDEM})
        for rid in rids:
            got = await owner.answer(rid)
            assert got["type"] == "ok" or got["code"] == "server_busy", got
            made += got["type"] == "ok"
    # the biggest answer anyone may ask for: cut to lobby_max_page (200) entries
    rid = "big"
    await owner.send({"type": "tables", "rid": rid, "limit": 1000})
    raw = await asyncio.wait_for(owner.ws.recv(), TIMEOUT)
    answer = orjson.loads(raw)
    assert answer["rid"] == rid and answer["total"] == n_tables
    assert len(answer["tables"]) == 200 and answer["next"] is not None
    assert len(raw) < 96 * 1024, len(raw)  # was 574 KiB for every table, before paging

    flooders = [await client(srv) for _ in range(8)]
    probe = await client(srv)
    stop = asyncio.Event()
    answered = [0]

    async def flood(c: Any) -> None:
        while not stop.is_set():
            rid = next(c.rids)
            await c.send({"type": "tables", "rid": rid, "limit": 1000})
            await c.answer(rid)
            answered[0] += 1
            # a turn for the other tasks: with its answer already buffered, neither the send
            # nor the receive suspends, and a flooder that never yields starved the probe and
            # its own timeout (a full test run hung here once, 12 minutes in this loop)
            await asyncio.sleep(0)

    async def attack() -> None:
        await asyncio.gather(*(flood(c) for c in flooders))

    started = time.perf_counter()
    times = await while_attacking(attack(), probe, samples=20)
    stop.set()
    elapsed = time.perf_counter() - started
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(f"lobby flood: {answered[0]} answers of 200 entries ({len(raw) / 1024:.0f} KiB) "
          f"in {elapsed:.2f}s; probe ping "
          f"median {times[len(times) // 2] * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms")
    assert answered[0] > 100  # the attack really ran
    assert p95 < SERVED_BOUND, times
    assert await round_trip(srv) < SERVED_BOUND
