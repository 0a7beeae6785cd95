"""A home game over the wire, from the host's first request to the CSV (issue 16): the host
creates a private table, two friends join with the invite code and are approved, a stranger
without it is refused, the blinds change between hands, one player is removed, the game is
closed and the host's final CSV sums to zero; on the embedded store and on Redis. Every
balance ends where the ledger says."""

from __future__ import annotations

import asyncio
import csv
import io
from typing import Any

import pytest

from tests.net.conftest import TIMEOUT, Client, LiveFactory, open_client
from tests.redis_helpers import RedisProcess

GAME: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                        "stakes": {"blinds": [50, 100]}, "seats": 6, "private": True,
                        "settings": {"pause": 0.2}}


async def ok(client: Client, kind: str, **fields: Any) -> dict[str, Any]:
    answer = await client.request(kind, **fields)
    assert answer["type"] == "ok", (kind, fields, answer)
    return answer


async def play_hand(players: dict[int, Client], *, on_start: Any = None) -> dict[str, Any]:
    """Every player plays the next hand to its end (check when free, else fold); returns
    the posted blinds of that hand (seat -> amount) seen by the first player."""
    posted: dict[int, int] = {}

    async def drive(seat: int, client: Client, first: bool) -> None:
        while True:
            e = await client.event_any()
            if e["type"] == "hand_started" and first and on_start is not None:
                await on_start()
            elif e["type"] == "posted" and first:
                posted[e["seat"]] = e["amount"]
            elif e["type"] == "turn" and e["seat"] == seat and e.get("options"):
                action = "check" if e["options"].get("check") else "fold"
                await client.send({"type": "act", "rid": f"a{e['seq']}",
                                   "table": e["table"], "action": action})
            elif e["type"] == "hand_ended":
                return

    await asyncio.wait_for(asyncio.gather(*(
        drive(seat, c, i == 0) for i, (seat, c) in enumerate(sorted(players.items())))),
        TIMEOUT * 3)
    return {"posted": posted}


async def home_game(live_server: LiveFactory, **config: Any) -> None:
    server = await live_server(**config)
    ann, bob, cat, eve = [await open_client(server) for _ in range(4)]
    start: dict[str, int] = {}
    for client, name in ((ann, "Ann"), (bob, "Bob"), (cat, "Cat"), (eve, "Eve")):
        start[name] = (await client.hello(name))["balance"]
    created = await ok(ann, "create_table", **GAME)
    table, code = created["table"], created["code"]
    # a stranger: not listed, and refused without the code
    assert table not in [t["table"] for t in (await ok(eve, "tables"))["tables"]]
    for kind, fields in (("watch", {}), ("sit", {"seat": 3, "buy_in": 2000}),
                         ("watch", {"code": "not-the-code"})):
        answer = await eve.request(kind, table=table, **fields)
        assert answer["code"] == "unknown_table", (kind, answer)  # as if it did not exist
    # the host sits and holds the game; two friends join by the link and are approved
    await ok(ann, "sit", table=table, seat=0, buy_in=5000)
    await ok(ann, "host", table=table, action="pause")
    for client, seat in ((bob, 1), (cat, 2)):
        await ok(client, "watch", table=table, code=code)
        assert (await ok(client, "sit", table=table, seat=seat, buy_in=4000,
                         code=code))["pending"] is True
        request = await ann.event("seat_request", player=client.player_id)
        assert request["buy_in"] == 4000
        await ok(ann, "host", table=table, action="approve", player=client.player_id)
        await client.event("snapshot")
    await ok(ann, "host", table=table, action="resume")
    players = {0: ann, 1: bob, 2: cat}

    async def pause() -> None:  # the host asks for the pause while the hand runs
        await ann.send({"type": "host", "rid": "p1", "table": table, "action": "pause"})

    first = await play_hand(players, on_start=pause)
    assert sorted(first["posted"].values()) == [50, 100]
    # between hands (paused): new blinds, and Cat is removed (chips back at once)
    answer = await ok(ann, "host", table=table, action="change",
                      stakes={"blinds": [100, 200]})
    assert answer["pending"] is False
    await ok(ann, "host", table=table, action="remove", seat=2)
    await cat.event("left", seat=2)
    assert (await cat.request("sit", table=table, seat=2, buy_in=4000,
                              code=code))["code"] == "removed"
    await ok(ann, "host", table=table, action="resume")
    second = await play_hand({0: ann, 1: bob}, on_start=None)
    assert sorted(second["posted"].values()) == [100, 200]
    # closed between hands: everyone cashed out; the host gets the CSV
    await ok(ann, "host", table=table, action="pause")
    await ok(ann, "host", table=table, action="close")
    await bob.event("table_closed", reason="host")
    final = await ann.event("ledger")
    rows = list(csv.DictReader(io.StringIO(final["text"])))
    assert sum(int(r["net"]) for r in rows) == 0
    assert all(int(r["at_table"]) == 0 for r in rows)
    nets = {r["name"]: int(r["net"]) for r in rows}
    assert set(nets) == {"Ann", "Bob", "Cat", "house (rake)"}
    for client, name in ((ann, "Ann"), (bob, "Bob"), (cat, "Cat")):
        again = await open_client(server)  # the balance as a new connection reads it
        await ok(again, "hello", token=client.token)
        welcome = await again.event("welcome")
        assert welcome["balance"] - start[name] == nets[name], name
        await again.ws.close()
    assert (await ann.request("host", table=table, action="ledger"))["code"] == "unknown_table"
    for client in (ann, bob, cat, eve):
        await client.ws.close()


async def test_home_game_embedded(live_server: LiveFactory) -> None:
    await home_game(live_server)


@pytest.mark.redis
async def test_home_game_redis(redis_server: RedisProcess, live_server: LiveFactory) -> None:
    await home_game(live_server, redis_url=redis_server.url)
