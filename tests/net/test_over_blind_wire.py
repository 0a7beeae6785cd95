"""BLIND-04 over the wire: at a Draw table with ``over_blind`` on, before each deal the player
left of the last blind is asked (a ``turn`` whose options are ``over_blind`` with its amount
and ``decline``, on the table's ``over_blind_clock``), and everyone (players on both codecs,
a spectator) sees the answer: a ``posted`` over blind, or an ``acted`` ``decline``; silence
declines without touching the time bank. Three hands on fixed decks: posted, declined, timed
out. Nothing sleeps: every wait is on a frame, with a timeout.
"""

from __future__ import annotations

from typing import Any

from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from server.rules.cards import make_deck
from tests.net.conftest import Client, Live, open_client

BUY_IN = 5000
TIME_BANK = 60.0  # Config.time_bank's default


def deck(seed: int) -> list[str]:
    cards = list(make_deck())
    return cards[seed:] + cards[:seed]


async def ok(client: Client, kind: str, **fields: Any) -> dict[str, Any]:
    answer = await client.request(kind, **fields)
    assert answer["type"] == "ok", (kind, fields, answer)
    return answer


async def first_turn(client: Client, table: str, since: int) -> tuple[dict[str, Any], bool]:
    """The first ``turn`` after event ``since`` (the hand's start), and whether any card was
    dealt before it."""
    dealt = False
    while True:
        message = await client.event_any()
        if message.get("table") != table or message.get("seq", 0) <= since:
            continue
        if message["type"] == "dealt":
            dealt = True
        if message["type"] == "turn":
            return message, dealt


async def test_blind04_over_blind_posted_declined_and_timed_out_over_the_wire(
        live_server: Any) -> None:
    live: Live = await live_server()
    codecs = [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON]
    players = [await open_client(live, enc) for enc in codecs]
    for i, p in enumerate(players):
        await p.hello(f"P{i}")
    watcher = await open_client(live, SUBPROTOCOL_MSGPACK)
    create = {"variant": "draw", "structure": "pot_limit", "stakes": {"blinds": [50, 100]},
              "seats": 6, "decks": [deck(0), deck(7), deck(13)],
              "settings": {"pause": 1.5, "over_blind": True, "over_blind_clock": 1}}
    table = (await ok(players[0], "create_table", **create))["table"]
    await ok(watcher, "watch", table=table)
    for i, p in enumerate(players):
        await ok(p, "sit", table=table, seat=i, buy_in=BUY_IN)
    everyone = [*players, watcher]
    stacks = {str(i): BUY_IN for i in range(3)}

    for answer in ("over_blind", "decline", "silence"):
        started = await watcher.event("hand_started", table=table)
        button = started["button"]
        asked = (button + 3) % 3  # three-handed: small blind, big blind, then the button
        sb, bb = (button + 1) % 3, (button + 2) % 3
        # the question, before any card: options to the asked player only
        turn, dealt = await first_turn(players[asked], table, started["seq"])
        assert not dealt and turn["seat"] == asked, (started, turn, answer)
        assert turn["options"] == {"fold": False, "check": False, "over_blind": 200,
                                   "decline": True, "stack": stacks[str(asked)]}
        for other in (players[sb], players[bb], watcher):
            seen, _ = await first_turn(other, table, started["seq"])
            assert seen["seat"] == asked and "options" not in seen
        if answer == "over_blind":
            await ok(players[asked], "act", table=table, action="over_blind")
            for c in everyone:
                posted = await c.event("posted", table=table, seat=asked)
                assert (posted["kind"], posted["amount"]) == ("over_blind", 200)
            opener, facing = sb, 200
        else:
            if answer == "decline":
                await ok(players[asked], "act", table=table, action="decline")
            for c in everyone:  # a silent player declines when the over blind's clock ends
                acted = await c.event("acted", table=table, seat=asked)
                assert (acted["action"], acted["amount"]) == ("decline", 0)
                assert acted.get("timeout", False) == (answer == "silence")
            opener, facing = asked, 100
        # then the deal, and the first round opens left of the over blind (or the last blind)
        for c in everyone:
            await c.event("dealt", table=table)
        turn = await players[opener].event("turn", table=table, seat=opener)
        assert turn["options"]["call"] == facing
        assert turn["time_bank"] == TIME_BANK  # the question never spends the bank
        # everyone folds to the last raiser: the over blind (or the big blind) takes the pot
        order = [opener, (opener + 1) % 3, (opener + 2) % 3]
        winner = asked if answer == "over_blind" else bb
        for seat in order:
            if seat == winner:
                break
            if seat != opener:  # (the opener's turn is in hand already)
                await players[seat].event("turn", table=table, seat=seat)
            await ok(players[seat], "act", table=table, action="fold")
        ended = await watcher.event("hand_ended", table=table)
        paid = {sb: 50, bb: 100, asked: 200 if answer == "over_blind" else 0}
        for s, cost in paid.items():
            if s != winner:
                stacks[str(s)] -= cost
        stacks[str(winner)] += sum(c for s, c in paid.items() if s != winner)
        assert ended["stacks"] == stacks, (answer, ended)
        assert sum(ended["stacks"].values()) == 3 * BUY_IN  # every chip accounted for
    # a silent over blind is no timeout: nobody was sat out
    sat_out = [m for c in everyone for m in c.events if m["type"] == "sat_out"]
    assert not sat_out
