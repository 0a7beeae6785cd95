"""Chat under attack, against a real `poker-server` without test mode: a flood from one
account over two connections is held by the per-account limit, a table's chat by the
per-table limit (`chat_limited`, no flood strike for the others), and a player can mute
another (docs/security.md, "Tables, lobby and chat")."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.security.conftest import SERVED_BOUND, TIMEOUT, ServerFactory, client, round_trip

HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [5, 10]}, "seats": 6}


async def _burst(c: Any, table: str, n: int, tag: str) -> list[dict[str, Any]]:
    """`n` chats sent at once (pipelined); their answers."""
    rids = [f"{tag}{i}" for i in range(n)]
    for rid in rids:
        await c.send({"type": "chat", "rid": rid, "table": table, "text": f"spam {rid}"})
    return [await c.answer(rid) for rid in rids]


async def test_a_chat_flood_from_one_account_over_two_connections_is_limited(
        hostile_server: ServerFactory) -> None:
    # each connection may burst 5 (chat_burst); the account only 6 in all
    srv = hostile_server("--set", "chat_burst_per_account=6", "--set", "chat_rate_per_account=0.1")
    one = await client(srv)
    await one.hello("Spammer")
    table = (await one.request("create_table", **HOLDEM))["table"]
    two = await client(srv)
    assert (await two.request("hello", token=one.token))["type"] == "ok"  # same account
    victim = await client(srv)
    await victim.hello("Victim")
    for c in (one, two, victim):
        assert (await c.request("watch", table=table))["type"] == "ok"
    answers = await _burst(one, table, 5, "a") + await _burst(two, table, 5, "b")
    codes = [a.get("code", "ok") for a in answers]
    assert codes.count("ok") == 6 and set(codes) == {"ok", "rate_limited"}, codes
    assert await round_trip(srv, victim) < SERVED_BOUND


async def test_a_tables_chat_is_limited_for_everyone_together_without_flood_strikes(
        hostile_server: ServerFactory) -> None:
    srv = hostile_server("--set", "chat_burst_per_table=4", "--set", "chat_rate_per_table=0.01",
                         "--set", "flood_limit=2")
    talkers = []
    for i in range(3):
        c = await client(srv)
        await c.hello(f"Talker{i}")
        talkers.append(c)
    table = (await talkers[0].request("create_table", **HOLDEM))["table"]
    for c in talkers:
        assert (await c.request("watch", table=table))["type"] == "ok"
    codes = []
    for c in talkers:
        codes += [a.get("code", "ok") for a in await _burst(c, table, 3, "t")]
    assert codes.count("ok") == 4 and codes.count("chat_limited") == 5, codes
    # refused by the table's limit: no strike (flood_limit is 2), everyone still connected
    for c in talkers:
        assert (await c.request("ping"))["type"] == "pong"
        assert c.ws.close_code is None


async def test_a_player_mutes_another(hostile_server: ServerFactory) -> None:
    srv = hostile_server()
    victim = await client(srv)
    pest = await client(srv)
    friend = await client(srv)
    await victim.hello("Victim")
    await pest.hello("Pest")
    await friend.hello("Friend")
    table = (await victim.request("create_table", **HOLDEM))["table"]
    assert (await pest.request("sit", table=table, seat=3, buy_in=500))["type"] == "ok"
    for c in (victim, friend):
        assert (await c.request("watch", table=table))["type"] == "ok"
    second = await client(srv)  # the victim's second connection: muted there too
    assert (await second.request("hello", token=victim.token))["type"] == "ok"
    assert (await second.request("watch", table=table))["type"] == "ok"

    answer = await victim.request("mute", table=table, seat=3)
    assert answer["type"] == "ok" and answer["muted"] is True
    assert (await pest.request("chat", table=table, text="you are bad"))["type"] == "ok"
    assert (await friend.request("chat", table=table, text="gl all"))["type"] == "ok"
    for c in (victim, second):
        said = await asyncio.wait_for(c.event("chat", table=table), TIMEOUT)
        assert said["text"] == "gl all"  # the pest's line never came
    heard = await asyncio.wait_for(friend.event("chat", table=table), TIMEOUT)
    assert heard["text"] == "you are bad"  # others still hear it

    # a spectator is muted by the name they chat as
    assert (await victim.request("chat", table=table, text="hello?"))["type"] == "ok"
    line = await asyncio.wait_for(friend.event("chat", table=table, text="hello?"), TIMEOUT)
    muted = await friend.request("mute", table=table, name=line["name"])
    assert muted.get("muted") is True, muted
    assert (await victim.request("chat", table=table, text="anyone?"))["type"] == "ok"
    assert (await pest.request("chat", table=table, text="ping"))["type"] == "ok"
    assert (await asyncio.wait_for(friend.event("chat", table=table), TIMEOUT))["text"] == "ping"

    # unmuted: heard again
    assert (await victim.request("mute", table=table, seat=3, on=False))["muted"] is False
    assert (await pest.request("chat", table=table, text="sorry"))["type"] == "ok"
    said = await asyncio.wait_for(victim.event("chat", table=table, text="sorry"), TIMEOUT)
    assert said["seat"] == 3
    assert (await victim.request("mute", table=table, seat=0))["code"] == "bad_seat"
