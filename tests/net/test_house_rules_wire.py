"""The home games' house rules over the wire (docs/rules.md section 4): at a private Hold'em
table with ``straddle`` and ``run_twice`` on, the player left of the big blind is asked and
posts a ``straddle``; when every player is all-in each is asked in turn (a ``turn`` whose
options are ``run_twice`` / ``run_once``, the answer an ``acted`` everyone sees); all agree,
so everyone (players on both codecs, a spectator) gets a second ``board`` with ``run: 2`` and
the pots' second halves with ``run: 2``; every chip is accounted for. A public table asking
for a house rule is refused with ``bad_settings``. Nothing sleeps: every wait is on a frame.
"""

from __future__ import annotations

from typing import Any

from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from server.rules.cards import make_deck
from tests.net.conftest import Client, Live, open_client

BUY_IN = 2000
GAME: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                        "stakes": {"blinds": [50, 100]}, "seats": 6}


async def ok(client: Client, kind: str, **fields: Any) -> dict[str, Any]:
    answer = await client.request(kind, **fields)
    assert answer["type"] == "ok", (kind, fields, answer)
    return answer


async def test_house_rules_are_refused_at_a_public_table(live_server: Any) -> None:
    """STRAD-01 RIT-01 SHOWWIN-01: only a home game (``private: true``) may turn a house rule
    on; the straddle only at Hold'em or Manila (Draw has its over blind, BLIND-04); showing
    after an uncontested win at every pot game."""
    live: Live = await live_server()
    ann = await open_client(live)
    await ann.hello("Ann")
    for key in ("straddle", "run_twice", "show_uncontested"):
        answer = await ann.request("create_table", **GAME, settings={key: True})
        assert answer["code"] == "bad_settings", answer
        assert "a house rule: home games only" in answer["message"]
    draw = {**GAME, "variant": "draw", "structure": "pot_limit", "private": True}
    answer = await ann.request("create_table", **draw, settings={"straddle": True})
    assert answer["code"] == "bad_settings" and "BLIND-04" in answer["message"], answer
    answer = await ann.request("create_table", **draw, settings={"show_uncontested": True})
    assert answer["type"] == "ok", answer


async def test_strad01_rit02_straddle_and_two_boards_over_the_wire(live_server: Any) -> None:
    live: Live = await live_server()
    codecs = [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON]
    players = [await open_client(live, enc) for enc in codecs]
    for i, p in enumerate(players):
        await p.hello(f"P{i}")
    watcher = await open_client(live, SUBPROTOCOL_MSGPACK)
    create = {**GAME, "private": True, "decks": [make_deck()],
              "settings": {"pause": 1.5, "approve_seats": False, "straddle": True,
                           "run_twice": True, "over_blind_clock": 5}}
    created = await ok(players[0], "create_table", **create)
    table, code = created["table"], created["code"]
    await ok(watcher, "watch", table=table, code=code)
    for i, p in enumerate(players):
        await ok(p, "sit", table=table, seat=i, buy_in=BUY_IN, code=code)
    everyone = [*players, watcher]
    started = await watcher.event("hand_started", table=table)
    assert started["button"] == 2  # GEN-05: the highest occupied seat; blinds 0 and 1
    # STRAD-01: the button (left of the big blind, three-handed) is asked before the deal
    turn = await players[2].event("turn", table=table, seat=2)
    assert turn["options"] == {"fold": False, "check": False, "over_blind": 200,
                               "decline": True, "stack": BUY_IN, "straddle": True}
    assert "time_bank" not in turn  # a question never runs into the time bank
    await ok(players[2], "act", table=table, action="over_blind")
    for c in everyone:
        posted = await c.event("posted", table=table, seat=2)
        assert (posted["kind"], posted["amount"]) == ("straddle", 200)
    # the first round opens left of the straddle: seat 0 moves all-in, the others call
    turn = await players[0].event("turn", table=table, seat=0)
    assert turn["options"]["call"] == 200 and turn["options"]["raise"]["min"] == 400
    await ok(players[0], "act", table=table, action="raise", amount=BUY_IN)
    for seat in (1, 2):
        await players[seat].event("turn", table=table, seat=seat)
        await ok(players[seat], "act", table=table, action="call")
    # RIT-02: each player still in is asked in turn from the button's left
    for seat in (0, 1, 2):
        turn = await players[seat].event("turn", table=table, seat=seat)
        assert turn["options"] == {"fold": False, "check": False, "run_twice": True,
                                   "run_once": True, "stack": 0}
        await ok(players[seat], "act", table=table, action="run_twice")
        for c in everyone:
            acted = await c.event("acted", table=table, seat=seat, action="run_twice")
            assert acted["amount"] == 0
    # RIT-03/RIT-04: both boards and both halves, to every viewer alike
    for c in everyone:
        seen: list[dict[str, Any]] = []
        while not seen or seen[-1]["type"] != "hand_ended":
            message = await c.event_any()
            if message.get("table") == table:
                seen.append(message)
        ended = seen[-1]
        boards = [m for m in seen if m["type"] == "board"]
        first = [m["cards"] for m in boards if "run" not in m]
        second = [m["cards"] for m in boards if m.get("run") == 2]
        assert [len(b) for b in first] == [len(b) for b in second] == [3, 4, 5]
        assert not set(first[-1]) & set(second[-1])  # nothing shared: all-in before the flop
        assert len([m for m in seen if m["type"] == "showdown"]) == 3  # every hand shown
        awards = [m for m in seen if m["type"] == "pot_awarded"]
        assert [m.get("run", 1) for m in awards] == [1, 2]
        assert sum(m["amount"] for m in awards) == 3 * BUY_IN
        assert awards[0]["amount"] == awards[1]["amount"] == 3 * BUY_IN // 2
        assert sum(ended["stacks"].values()) == 3 * BUY_IN
