"""A load-tester bot whose connection goes while its turn is offered takes that turn up once it
has resumed (server/loadtest/bots.py, "A turn held across a reconnection").

The bug this pins: a bot forgot the turn offered to it when its connection went (``_lost``),
and its ``resume`` from the last ``seq`` it saw replays only what came after, never that turn
again: the seat waited for its whole action clock. In the cluster's kill test a restored
tournament table's first turn was offered to a bot in the ``snapshot`` of a ``watch`` just
before the bot left that connection (its ``resume`` there was answered ``moved``): 30 s stalls.

Against a real in-process server (test mode, fixed deck, an action clock of an hour so that
only the bot can end its turn): the bot sits at seat 1 (the big blind: its turn comes once
the small blind has called); its act waits for the test (``go``); its connection is dropped
(``churn``: a new connection, ``hello``, ``resume``); only then may it act. And the other
way round: an act that reached the table before the drop, its ``acted`` unseen by the bot,
is not sent again after the resume (no ``not_your_turn``). No sleeps: every wait is on an
event, with a timeout.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.loadtest.bots import Bot
from server.loadtest.tracking import Stats, TableTrack
from server.rules.cards import make_deck
from tests.net.conftest import TIMEOUT, Client, Live, open_client, start_live, test_config

Msg = dict[str, Any]

FIRST = ("As", "Kc", "Ad", "Kd", "2c", "Ah", "7s", "8d", "3c", "9h", "4c", "Jc")
DECK = [*FIRST, *(c for c in make_deck() if c not in FIRST)]
HOLDEM: Msg = {"variant": "holdem", "structure": "no_limit", "stakes": {"blinds": [50, 100]},
               "seats": 2, "settings": {"pause": 0, "action_clock": 3600}}


class GatedBot(Bot):
    """A bot whose acts wait for ``go``; ``offered`` is set at each turn it would act on,
    ``acts`` counts the ``act`` frames it sent; ``deaf``: frames read are dropped (until its
    next connection)."""

    def __init__(self, url: str, table: str, stats: Stats) -> None:
        super().__init__(url, "Bea", TableTrack(table, stats), seat=1, buy_in=5000,
                         rng=random.Random(7), think=0.0, encoding="json", stats=stats)
        self.go = asyncio.Event()
        self.offered = asyncio.Event()
        self.deaf_after_act = False
        self.deaf = False
        self.acts = 0

    async def _act(self, turn_no: int, options: Msg) -> None:
        self.offered.set()
        await self.go.wait()
        await super()._act(turn_no, options)

    async def fire(self, msg: Msg) -> int:
        if msg.get("type") == "act":
            self.acts += 1
            self.deaf = self.deaf_after_act  # (its `acted` is not seen on this connection)
        return await super().fire(msg)

    async def open(self) -> None:
        await super().open()
        self.deaf = False

    def _on_frame(self, frame: str | bytes) -> None:
        if not self.deaf:
            super()._on_frame(frame)


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    server = await start_live(test_config(tmp_path))
    yield server
    await server.close()


async def seated(live: Live) -> tuple[Client, GatedBot]:
    """Alice (a protocol client) at seat 0 of a new heads-up table, the bot at seat 1 (the
    big blind: Alice, first to act, calls; then it is the bot's turn)."""
    alice = await open_client(live)
    await alice.hello("Alice")
    answer = await alice.request("create_table", **HOLDEM, decks=[DECK])
    assert answer["type"] == "ok", answer
    table = answer["table"]
    assert (await alice.request("sit", table=table, seat=0, buy_in=5000))["type"] == "ok"
    bot = GatedBot(live.ws_url, table, Stats())
    await bot.open()
    await bot.hello()
    await bot.sit()
    turn = await alice.event("turn", seat=0)
    assert turn["options"]["to_call"] == 50
    assert (await alice.request("act", table=table, action="call"))["type"] == "ok"
    return alice, bot


async def play_until_the_bot_acts(alice: Client) -> Msg:
    """Alice checks or calls at each of her turns until the bot's seat has acted; that
    ``acted``."""
    while True:
        msg = await alice.event_any()
        if msg["type"] == "acted" and msg["seat"] == 1:
            return msg
        if msg["type"] == "turn" and msg["seat"] == 0 and "options" in msg:
            action = "check" if msg["options"].get("check") else "call"
            answer = await alice.request("act", table=msg["table"], action=action)
            assert answer["type"] == "ok", answer


async def test_a_turn_offered_before_a_drop_is_acted_on_after_the_resume(live: Live) -> None:
    alice, bot = await seated(live)
    try:
        await asyncio.wait_for(bot.offered.wait(), TIMEOUT)  # its turn: the act waits
        assert bot.acts == 0
        await asyncio.wait_for(bot.churn(), TIMEOUT)  # new connection, hello, resume
        assert bot.stats.reconnects == 1
        bot.go.set()
        acted = await asyncio.wait_for(alice.event("acted", seat=1), TIMEOUT)
        assert acted["seat"] == 1 and bot.acts == 1
        assert not bot.stats.errors, bot.stats.errors
    finally:
        await bot.close()


async def test_an_act_that_reached_the_table_before_the_drop_is_not_sent_again(
        live: Live) -> None:
    alice, bot = await seated(live)
    try:
        bot.deaf_after_act = True
        bot.go.set()
        await asyncio.wait_for(bot.offered.wait(), TIMEOUT)
        await asyncio.wait_for(alice.event("acted", seat=1), TIMEOUT)  # the table took it
        assert bot.acts == 1  # (and the bot never read its `acted`)
        bot.deaf_after_act = False
        await asyncio.wait_for(bot.churn(), TIMEOUT)  # resumed: the replay has that `acted`
        await asyncio.wait_for(play_until_the_bot_acts(alice), TIMEOUT)  # its next turn
        answer = await asyncio.wait_for(bot.request({"type": "ping"}), TIMEOUT)
        assert answer["type"] == "pong"  # (every answer to its acts is read by now)
        assert bot.acts == 2
        assert not bot.stats.errors, bot.stats.errors  # no `not_your_turn`
    finally:
        await bot.close()
