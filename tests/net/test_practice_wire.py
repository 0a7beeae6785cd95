"""Issue 24, a practice table against bots, over the wire: a player alone asks for one
(`create_table` with `practice`), the server's own bots join it through its WebSocket and a
few hands are played at every game (Caribbean Stud: the player alone against the dealer, no
jackpot wager). The player's real balance never moves and no `balance` is pushed; the
ledger sums to zero and nothing reaches the house, the rake or the jackpot; the bots are
marked `bot: true` (snapshot seats, `seated`); a stranger can neither see, watch, sit nor
act there and the lobby does not list it; one practice table per player
(`too_many_practice_tables`); the table closes when its player leaves, and its bots go.
Nothing sleeps: every wait is on a frame or an event, with a timeout.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from server.ledger.journal import HOUSE, JACKPOT_POOL, PRACTICE, RAKE, player_account
from server.loadtest.bots import choose_action
from server.loadtest.runner import default_stakes
from server.table import TableRegistry
from tests.net.conftest import TIMEOUT, Client, Live, open_client

BUY_IN = 3000
HANDS = 3
GAMES = [("holdem", "no_limit"), ("manila", "pot_limit"), ("manila3", "no_limit"),
         ("draw", "pot_limit"), ("stud5", "fixed_limit"), ("stud7", "fixed_limit"),
         ("caribbean", None)]


async def ok(client: Client, kind: str, **fields: Any) -> dict[str, Any]:
    answer = await client.request(kind, **fields)
    assert answer["type"] == "ok", (kind, fields, answer)
    return answer


def create(variant: str, structure: str | None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"variant": variant, "stakes": default_stakes(variant, structure),
                           "seats": 4, "practice": True, "settings": {"pause": 0.2}, **extra}
    if structure is not None:
        out["structure"] = structure
    return out


async def play(client: Client, table: str, seat: int, hands: int) -> list[dict[str, Any]]:
    """Answer every turn of `seat` (a random legal action, never the jackpot wager) until
    `hands` hands ended; every event seen, in order."""
    rng = random.Random(7)
    seen: list[dict[str, Any]] = []
    ended = 0
    cards: list[str] = []
    while ended < hands:
        msg = await client.event_any()
        seen.append(msg)
        if msg.get("table") != table:
            continue
        kind = msg["type"]
        if kind == "dealt" and msg.get("seat") == seat:
            cards += [c for c in msg.get("cards") or () if isinstance(c, str)]
        elif kind == "hand_started":
            cards = []
        elif kind == "turn" and msg.get("seat") == seat and "options" in msg:
            choice = choose_action(rng, msg["options"], cards)
            assert choice is not None, msg
            await client.send({"type": "act", "rid": f"a{len(seen)}", "table": table,
                               **choice})
        elif kind == "hand_ended":
            ended += 1
    return seen


async def system_balances(live: Live) -> dict[str, int]:
    ledger = live.app.wallet.ledger
    return {a: await ledger.balance(a) for a in (HOUSE, RAKE, JACKPOT_POOL, PRACTICE)}


async def bots_seated(client: Client, table: str, count: int) -> list[dict[str, Any]]:
    """The `seated` events of `count` bots (they sit on their own, after the create)."""
    seated: list[dict[str, Any]] = []
    while len(seated) < count:
        msg = await client.event("seated", table=table)
        seated.append(msg)
    return seated


@pytest.mark.parametrize(("variant", "structure"), GAMES)
async def test_practice_table_plays_with_bots_on_play_money(
        live_server: Any, variant: str, structure: str | None) -> None:
    live: Live = await live_server(practice_think=0.0)
    me = await open_client(live, SUBPROTOCOL_JSON)
    welcome = await me.hello("Ann")
    assert me.player_id is not None
    real = welcome["balance"]
    before = await system_balances(live)
    bots = 0 if variant == "caribbean" else 3
    answer = await ok(me, "create_table", **create(variant, structure))
    table = answer["table"]
    assert table.startswith("p") and "code" in answer
    await ok(me, "watch", table=table)
    snap = await me.event("snapshot", table=table)
    assert snap["settings"]["practice"] is True
    for s in await bots_seated(me, table, bots):  # every bot: marked, named, never seat 0
        assert s["bot"] is True and s["name"].startswith("Bot ") and s["seat"] != 0
        assert "guest" not in s
    await ok(me, "sit", table=table, seat=0, buy_in=BUY_IN)
    snap = await me.event("snapshot", table=table)
    entries = [e for e in snap["seats"] if e is not None]
    assert len(entries) == bots + 1
    assert [e["seat"] for e in entries if e.get("bot")] == sorted(
        e["seat"] for e in entries if e["seat"] != 0)
    assert "bot" not in snap["seats"][0] and snap["you"] == 0

    seen = await play(me, table, 0, HANDS)
    assert not [m for m in seen if m["type"] == "balance"], "practice chips are not real"
    if variant != "caribbean":  # the bots played: someone else acted
        assert {m["seat"] for m in seen if m["type"] == "acted"} - {0}
    if bots:  # the hand's history and its exports name the bots as bots
        hands = (await ok(me, "history", limit=1))["hands"]
        record = (await ok(me, "hand", hand=hands[0]["hand"]))["record"]
        flags = {int(k): v.get("bot", False) for k, v in record["players"].items()}
        assert flags[0] is False and set(flags) - {0} and all(
            flags[k] for k in flags if k != 0), record["players"]
        assert record["settings"]["practice"] is True
        for fmt in ("pokerstars", "phh"):
            text = (await ok(me, "hand", hand=hands[0]["hand"], format=fmt))["text"]
            assert " (bot)" in text and "Ann (bot)" not in text, text
    registry = live.app.registry
    assert isinstance(registry, TableRegistry) and registry.bots.get(table) == bots

    # the player leaves: the table closes (after the hand), the bots go with it
    await ok(me, "leave", table=table)
    closed = await me.event("table_closed", table=table)
    assert closed["reason"] == "practice"
    await asyncio.wait_for(until_gone(live, table), TIMEOUT)
    assert (await me.request("watch", table=table))["code"] == "unknown_table"

    ledger = live.app.wallet.ledger
    assert await ledger.balance(player_account(me.player_id)) == real
    assert await ledger.total() == 0
    after = await system_balances(live)
    assert after == before, "no practice chip reaches the house, the rake or the jackpot"
    ping = await me.request("ping")  # every frame so far read: still no `balance` pushed
    assert ping["type"] == "pong"
    assert not [m for m in me.events if m["type"] == "balance"]


async def until_gone(live: Live, table: str) -> None:
    """The table is forgotten and its bots' tasks are over (waited on the registry's and
    the bots' own state, one loop turn at a time)."""
    bots = live.app.bots
    assert bots is not None
    await bots.idle()  # every bot saw its table close, left and ended
    while live.app.registry.get(table) is not None:  # the closed actor's task ends
        await asyncio.sleep(0)
    assert bots.running == 0


async def test_a_stranger_cannot_see_sit_or_act_at_a_practice_table(live_server: Any) -> None:
    live: Live = await live_server(practice_think=0.0)
    me = await open_client(live, SUBPROTOCOL_MSGPACK)
    await me.hello("Ann")
    created = await ok(me, "create_table", **create("holdem", "no_limit", bots=1))
    table, code = created["table"], created["code"]
    await ok(me, "watch", table=table)
    await bots_seated(me, table, 1)
    await ok(me, "sit", table=table, seat=0, buy_in=BUY_IN)
    await me.event("hand_started", table=table)

    stranger = await open_client(live, SUBPROTOCOL_JSON)
    await stranger.hello("Eve")
    for kind, fields in (("watch", {}), ("sit", {"seat": 1, "buy_in": BUY_IN}),
                         ("act", {"action": "fold"}), ("chat", {"text": "hi"}),
                         ("resume", {"since": 0})):
        for extra in ({}, {"code": code}):  # even with the code the player was given
            answer = await stranger.request(kind, table=table, **fields, **extra)
            assert answer["type"] == "error" and answer["code"] == "unknown_table", (kind,
                                                                                     answer)
            assert answer["message"] == f"no table '{table}'"
    # the player's host controls: no transfer (to a bot), no change, no code, no removal
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("transfer", {"seat": 3}), ("change", {"settings": {"pause": 1}}),
        ("rotate_code", {}), ("remove", {"seat": 3})]
    for action, fields in attempts:
        answer = await me.request("host", table=table, action=action, **fields)
        assert answer["type"] == "error" and answer["code"] == "not_allowed", answer
    await ok(me, "host", table=table, action="pause")
    await ok(me, "host", table=table, action="resume")
    lobby = await ok(stranger, "tables")
    assert table not in [t["table"] for t in lobby["tables"]]
    anonymous = await open_client(live, SUBPROTOCOL_JSON)  # without hello: no table at all
    answer = await anonymous.request("create_table", **create("holdem", "no_limit"))
    assert answer["code"] == "unauthorized"


async def test_one_practice_table_per_player(live_server: Any) -> None:
    live: Live = await live_server(practice_think=0.0)
    me = await open_client(live, SUBPROTOCOL_JSON)
    await me.hello("Ann")
    await ok(me, "create_table", **create("holdem", "no_limit", bots=1))
    for again in (create("stud7", "fixed_limit", bots=2), create("caribbean", None)):
        answer = await me.request("create_table", **again)
        assert answer["type"] == "error" and answer["code"] == "too_many_practice_tables"
    # a public table is still allowed; so is another player's practice table
    await ok(me, "create_table", **{k: v for k, v in create("holdem", "no_limit").items()
                                    if k != "practice"})
    other = await open_client(live, SUBPROTOCOL_JSON)
    await other.hello("Bob")
    await ok(other, "create_table", **create("holdem", "no_limit", bots=1))


async def test_bot_counts_and_the_servers_bot_cap(live_server: Any) -> None:
    live: Live = await live_server(practice_think=0.0, max_practice_bots=4,
                                   practice_tables_per_account=3)
    me = await open_client(live, SUBPROTOCOL_JSON)
    await me.hello("Ann")
    for bots in (0, 4):  # a pot game needs one bot at least; four seats hold three
        answer = await me.request("create_table", **create("holdem", "no_limit", bots=bots))
        assert answer["type"] == "error" and answer["code"] == "bad_field", answer
    await ok(me, "create_table", **create("holdem", "no_limit", bots=3))
    answer = await me.request("create_table", **create("stud7", "fixed_limit", bots=2))
    assert answer["type"] == "error" and answer["code"] == "server_busy"
    await ok(me, "create_table", **create("stud7", "fixed_limit", bots=1))
    # Caribbean Stud at a practice table: the jackpot wager is refused
    table = (await ok(me, "create_table", **create("caribbean", None)))["table"]
    await ok(me, "watch", table=table)
    await ok(me, "sit", table=table, seat=0, buy_in=BUY_IN)
    while True:
        turn = await me.event("turn", table=table)
        if turn.get("seat") == 0 and "ante" in turn.get("options", {}):
            break
    answer = await me.request("act", table=table, action="ante",
                              amount=turn["options"]["ante"]["min"], jackpot=True)
    assert answer["type"] == "error" and answer["code"] == "limit_exceeded"
    assert "practice" in answer["message"]


async def test_the_bots_stay_within_the_loopback_addresss_connection_cap(
        live_server: Any) -> None:
    """Each bot is a connection from the loopback address: the bots of a process never pass
    `max_connections_per_ip`, whatever `max_practice_bots` says."""
    live: Live = await live_server(practice_think=0.0, max_connections_per_ip=4,
                                   max_practice_bots=48)
    me = await open_client(live, SUBPROTOCOL_JSON)
    await me.hello("Ann")
    answer = await me.request("create_table", **create("holdem", "no_limit", bots=5,
                                                       seats=6))
    assert answer["type"] == "error" and answer["code"] == "server_busy"
    await ok(me, "create_table", **create("holdem", "no_limit", bots=3))


@pytest.mark.parametrize("how", ["never_sat", "sat_out"])
async def test_a_practice_table_without_its_player_playing_closes_when_idle(
        live_server: Any, how: str) -> None:
    """Bots never play alone, and a practice table whose player never sat, or sits out, is
    idle: it closes after `idle_table_close` (`table_closed`, `reason: "idle"`), bots and all,
    the play money back to `practice`."""
    live: Live = await live_server(practice_think=0.0, idle_table_close=0.5)
    me = await open_client(live, SUBPROTOCOL_JSON)
    await me.hello("Ann")
    table = (await ok(me, "create_table", **create("holdem", "no_limit", bots=2)))["table"]
    await ok(me, "watch", table=table)
    await bots_seated(me, table, 2)
    if how == "sat_out":
        await ok(me, "sit", table=table, seat=0, buy_in=BUY_IN)
        await me.event("hand_started", table=table)
        await ok(me, "sit_out", table=table)  # plays this hand out, then sits out
    hands = 0
    while True:  # (folding this hand at my turn)
        msg = await me.event_any()
        if msg.get("table") != table:
            continue
        if msg["type"] == "hand_started":
            hands += 1
        elif msg["type"] == "turn" and msg.get("seat") == 0 and "options" in msg:
            await me.send({"type": "act", "rid": "f", "table": table, "action": "fold"})
        elif msg["type"] == "table_closed":
            break
    assert msg["reason"] == "idle"
    assert hands == 0, "bots never play alone"  # (the hand I sat in was seen above)
    await asyncio.wait_for(until_gone(live, table), TIMEOUT)
    ledger = live.app.wallet.ledger
    assert await ledger.balance(PRACTICE) == 0 and await ledger.total() == 0
