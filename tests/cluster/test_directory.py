"""Issue 17, slice 1: the directory in Redis, the room's lobby on every process, `moved`,
placement, tokens valid everywhere. Two or three in-process servers (`server.main.run`) share
one redis-server of the test's own, each on a free port picked by binding port 0.

Every wait is on an event with a timeout: a process's next read of the directory
(`Directory.next_read`), an answer or an event on a socket. Never a sleep.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from protocol import SUBPROTOCOL_JSON
from server.cluster import Directory
from server.config import Config
from server.main import build_app
from server.redisio import Redis
from tests.net.conftest import Client, Live, open_client, start_live, test_config
from tests.redis_helpers import RedisProcess, free_port

pytestmark = pytest.mark.redis

HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [5, 10]}, "seats": 6}

Node = Callable[[str], Awaitable[Live]]


@pytest.fixture
async def node(tmp_path: Path, redis_server: RedisProcess) -> AsyncIterator[Node]:
    """`await node("a")` starts a cluster process named `a` on the test's Redis."""
    started: list[Live] = []

    async def factory(name: str) -> Live:
        port = free_port()
        config = test_config(tmp_path / name, port=port, redis_url=redis_server.url,
                             node=name, public_url=f"ws://127.0.0.1:{port}/ws",
                             cluster_lobby_refresh_ms=50)
        live = await start_live(config)
        started.append(live)
        return live

    yield factory
    for live in reversed(started):
        await live.close()


def directory(live: Live) -> Directory:
    assert live.app.directory is not None
    return live.app.directory


async def settled(*lives: Live) -> None:
    """Every process has read the directory after every write made so far (two reads: the
    first may have begun before the last write)."""
    for live in lives:
        await directory(live).next_read()
        await directory(live).next_read()


async def guest(live: Live, name: str) -> Client:
    c = await open_client(live)
    await c.hello(name)
    return c


async def follow(c: Client, answer: dict[str, Any], kind: str,
                 **fields: Any) -> tuple[Client, dict[str, Any]]:
    """What a client does with `moved`: a new connection to `url`, `hello` with its token,
    the same request again."""
    assert answer["type"] == "error" and answer["code"] == "moved", answer
    ws_url = answer["url"]
    await c.ws.close()
    ws = await asyncio.wait_for(connect(ws_url, subprotocols=[Subprotocol(SUBPROTOCOL_JSON)],
                                        ping_interval=None), 10)
    there = Client(ws=ws, subprotocol=SUBPROTOCOL_JSON)
    ok = await there.request("hello", token=c.token)
    assert ok["type"] == "ok" and ok["player_id"] == c.player_id, ok
    welcome = await there.event("welcome")
    there.player_id, there.token = welcome["player_id"], welcome["token"]
    return there, await there.request(kind, **fields)


def test_standalone_and_a_shared_store_alone_have_no_directory(tmp_path: Path) -> None:
    """Without `--public-url` nothing of the cluster runs, with or without Redis."""
    assert build_app(test_config(tmp_path)).directory is None
    app = build_app(test_config(tmp_path, redis_url="redis://127.0.0.1:1/0"))
    assert app.directory is None and app.router.cluster is None


def test_cluster_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="public_url .*needs redis_url"):
        Config(public_url="ws://a:1/ws")
    with pytest.raises(ValueError, match="public_url must be a ws://"):
        Config(redis_url="redis://r:6379/0", public_url="http://a:1/ws")
    for bad in (0, 9, 60_001, True):
        with pytest.raises(ValueError, match="cluster_lobby_refresh_ms"):
            Config(cluster_lobby_refresh_ms=bad)


async def test_every_process_lists_every_table_with_its_node(node: Node) -> None:
    a, b = await node("a"), await node("b")
    alice, bob = await guest(a, "Alice"), await guest(b, "Bob")
    t1 = await alice.request("create_table", **HOLDEM)
    assert t1["type"] == "ok", t1
    t2 = await bob.request("create_table", **{**HOLDEM, "stakes": {"blinds": [50, 100]}})
    assert t2["type"] == "ok", t2
    sit = await alice.request("sit", table=t1["table"], seat=0, buy_in=500)
    assert sit["type"] == "ok", sit
    await settled(a, b)
    pages = [await c.request("tables") for c in (alice, bob)]
    assert pages[0] == {**pages[1], "rid": pages[0]["rid"]}
    listed = {e["table"]: e for e in pages[0]["tables"]}
    assert pages[0]["total"] == 2
    assert listed[t1["table"]]["node"] == "a" and listed[t2["table"]]["node"] == "b"
    assert listed[t1["table"]]["players"] == 1
    # filtered and paged as a standalone process's lobby
    high = await alice.request("tables", min_big_blind=100)
    assert [e["table"] for e in high["tables"]] == [t2["table"]]
    first = await bob.request("tables", limit=1)
    assert first["total"] == 2 and first["next"] == first["tables"][0]["table"]
    rest = await bob.request("tables", limit=1, cursor=first["next"])
    assert [e["table"] for e in rest["tables"]] != [e["table"] for e in first["tables"]]
    assert rest["next"] is None
    # the copy answers: no read of Redis per request
    reads = directory(a).reads
    for _ in range(20):
        assert (await alice.request("tables"))["type"] == "ok"
    assert directory(a).reads - reads <= 2


async def test_a_table_elsewhere_answers_moved_and_the_token_works_there(node: Node) -> None:
    """docs/protocol.md wave 2: `moved` with the owner's url and the table; the client
    reconnects there with the same token (tokens live in the shared store), says hello and
    sends the request again."""
    a, b = await node("a"), await node("b")
    alice, bob = await guest(a, "Alice"), await guest(b, "Bob")
    table = (await alice.request("create_table", **HOLDEM))["table"]
    # at once (the copy may not know it yet: one look-up in Redis), then from the copy
    # (`watch` and `resume` of a listed table are served by b itself as soon as its copy has
    # it, which the creation's announcement makes a matter of milliseconds:
    # tests/cluster/test_spectate.py)
    sit: tuple[str, dict[str, Any]] = ("sit", {"seat": 1, "buy_in": 500})
    rounds: list[list[tuple[str, dict[str, Any]]]] = [[sit], [sit]]
    for requests in rounds:
        for kind, fields in requests:
            answer = await bob.request(kind, table=table, **fields)
            assert answer["type"] == "error" and answer["code"] == "moved", answer
            assert answer["url"] == directory(a).url and answer["table"] == table
        await settled(b)
    bob_a, answer = await follow(bob, await bob.request("sit", table=table, seat=1,
                                                          buy_in=500),
                                 "sit", table=table, seat=1, buy_in=500)
    assert answer["type"] == "ok", answer
    snapshot = await bob_a.event("snapshot", table=table)
    assert {s["name"] for s in snapshot["seats"] if s} >= {"Bob"}
    # a table nobody has is still unknown
    unknown = await alice.request("watch", table="t999999")
    assert unknown["code"] == "unknown_table"


async def test_a_private_table_is_not_listed_but_found(node: Node) -> None:
    a, b = await node("a"), await node("b")
    alice, bob = await guest(a, "Alice"), await guest(b, "Bob")
    made = await alice.request("create_table", **HOLDEM, private=True)
    assert made["type"] == "ok", made
    await settled(a, b)
    assert (await bob.request("tables"))["total"] == 0
    moved = await bob.request("watch", table=made["table"], code=made["code"])
    assert moved["code"] == "moved" and moved["url"] == directory(a).url
    # issue 23: at its owner, without the code, it is a table that does not exist
    bob_a, refused = await follow(bob, moved, "mute", table=made["table"], seat=0)
    assert refused == {"type": "error", "rid": refused["rid"], "code": "unknown_table",
                       "message": f"no table {made['table']!r}"}, refused
    watched = await bob_a.request("watch", table=made["table"], code=made["code"])
    assert watched["type"] == "ok", watched


async def test_create_table_goes_to_the_least_loaded_process(node: Node) -> None:
    a, b = await node("a"), await node("b")
    alice = await guest(a, "Alice")
    first = await alice.request("create_table", **HOLDEM)
    assert first["type"] == "ok"  # a tie: it stays where it was asked
    await settled(a, b)
    moved = await alice.request("create_table", **HOLDEM)
    assert moved["code"] == "moved" and moved["url"] == directory(b).url
    assert "table" not in moved
    alice_b, made = await follow(alice, moved, "create_table", **HOLDEM)
    assert made["type"] == "ok", made
    await settled(a, b)
    owners = {e["table"]: e["node"] for e in (await alice_b.request("tables"))["tables"]}
    assert owners == {first["table"]: "a", made["table"]: "b"}


async def test_a_closed_table_and_a_stopped_process_leave_the_directory(
        node: Node, redis_server: RedisProcess) -> None:
    """A stopping process hands its table to the other one (test_moves.py has the players'
    side); the last process has nobody to hand it to: the table closes, and nothing of either
    process is left in Redis."""
    a, b = await node("a"), await node("b")
    alice, bob = await guest(a, "Alice"), await guest(b, "Bob")
    table = (await alice.request("create_table", **HOLDEM))["table"]
    await settled(b)
    assert directory(b).copy.owner == {table: "a"} and set(directory(b).copy.nodes) == {"a", "b"}
    actor = a.app.registry.get(table)
    assert actor is not None
    await a.close()
    await settled(b)
    assert directory(b).copy.owner == {table: "b"} and set(directory(b).copy.nodes) == {"b"}
    watched = await bob.request("watch", table=table)
    assert watched["type"] == "ok", watched
    r = await Redis.connect(redis_server.url)
    try:
        keys = sorted(await r.call("KEYS", "dir:*"))
        assert keys == sorted(["dir:{room}:node:b", "dir:{room}:nodes", "dir:{room}:tables",
                               f"dir:{{room}}:table:{table}", "dir:{room}:version"]), keys
        entry = await r.call("HGETALL", "dir:{room}:node:b")
        assert dict(zip(entry[::2], entry[1::2], strict=True))["url"] == directory(b).url
        await b.close()  # no other process: the table closes with it
        assert sorted(await r.call("KEYS", "dir:*")) == ["dir:{room}:version"]
    finally:
        await r.close()


async def test_create_table_in_a_quiet_cluster_answers_at_once(
        node: Node, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 23: `create_table` waits for its table to be in the directory. The registry's
    listener marks the new table and wakes the write pass, which may take it up (and write
    it) before the request files its waiter; that waiter used to be filed for the *next*
    pass, which in a quiet cluster never comes: exactly 5 s, `cluster_write_slow`. Now a
    waiter belongs to its table and the pass that writes the table answers it."""
    a, b = await node("a"), await node("b")
    alice, bob = await guest(a, "Alice"), await guest(b, "Bob")
    await settled(a, b)
    took: list[float] = []
    with caplog.at_level(logging.WARNING, logger="server.cluster"):
        for who in (alice, bob, alice, bob):
            await settled(a, b)  # quiet: nothing else is being written
            started = time.perf_counter()
            made = await who.request("create_table", **HOLDEM)
            took.append(time.perf_counter() - started)
            assert made["type"] == "ok", made
            # written before the answer: the other process finds it in Redis at once
            other = b if who is alice else a
            assert await directory(other).locate(made["table"]) is not None
    assert max(took) < 1.0, took
    assert "cluster_write_slow" not in caplog.text
