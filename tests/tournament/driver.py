"""A tournament on a fake clock, its players acting through their tables' request path.

The players are test sinks that act with random legal actions (often all-in, so fields
shrink quickly); the clock advances only when nothing is left to do, so every level, break and
pause happens on the tournament's own timers. Deterministic for a seed.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from typing import Any

from protocol import parse_request
from server.config import Config
from server.ledger.wallet import MemoryWallet, Wallet
from server.rules.hand import Hand
from server.table import Envelope, FakeClock, TableRegistry
from server.tournament.director import Director
from server.tournament.hall import Hall
from tests.rules.driver import random_action
from tests.table.helpers import FakeSink


class Conn:
    """A follower connection: records what the hall pushes."""

    def __init__(self, player_id: str | None, name: str | None = None) -> None:
        self.player_id = player_id
        self.name = name or player_id
        self.got: list[dict[str, Any]] = []

    def reply(self, message: dict[str, Any]) -> None:
        self.got.append(message)


class Room:
    """A registry and a hall on one fake clock (see the module docstring)."""

    def __init__(self, *, seed: int = 1, config: Config | None = None,
                 wallet: Wallet | None = None, book: Any = None, all_in: float = 0.3,
                 think: float = 1.0) -> None:
        self.config = config or Config(test_mode=True, hand_pause=1.0, action_clock=10.0,
                                       time_bank=5.0)
        self.clock = FakeClock()
        self.rnd = random.Random(seed)
        self.wallet = wallet if wallet is not None else MemoryWallet()
        self.registry = TableRegistry(
            self.config, self.wallet, clock=self.clock,
            rng=lambda n: self.rnd.randbytes(n),
            shuffle=lambda cards: self.rnd.sample(list(cards), len(cards)))
        self.told: list[tuple[str, dict[str, Any]]] = []
        self.hall = Hall(self.config, self.registry, self.wallet, book=book,
                         now=self.clock.now, wall=self.clock.wall,
                         call_later=self.clock.call_later, pick=self.rnd.randrange,
                         tell=lambda p, msg: self.told.append((p, msg)))
        self.sinks: dict[str, FakeSink] = {}
        self.all_in = all_in
        self.think = think
        self.acts = 0
        self.idle: set[str] = set()  # players who never act (away: their clock runs out)
        self._rid = itertools.count(1)

    def sink(self, player: str) -> FakeSink:
        if player not in self.sinks:
            self.sinks[player] = FakeSink(player_id=player, name=player.title())
        return self.sinks[player]

    async def settle(self, d: Director) -> None:
        """Until the director and every table have nothing queued."""
        for _ in range(10_000):
            await d.inbox.join()
            for actor in list(self.registry.actors.values()):
                await actor.idle()
            await asyncio.sleep(0)
            if d.inbox.empty() and all(a.inbox.empty() for a in self.registry.actors.values()):
                return
        raise AssertionError("the room never settles")

    async def act_once(self) -> bool:
        """One action at every table waiting for one; whether any was taken."""
        acted = False
        for actor in list(self.registry.actors.values()):
            hand = actor.engine
            if not isinstance(hand, Hand) or hand.is_over or hand.to_act is None:
                continue
            seat = hand.to_act
            opts = hand.options(seat)
            st = actor.seats[seat]
            if opts is None or st is None or st.player_id in self.idle:
                continue
            kind: str
            amount: int | None
            discard: tuple[str, ...]
            if opts.raise_ is not None and self.rnd.random() < self.all_in:
                kind, amount, discard = "raise", opts.raise_[1], ()
            elif opts.bet is not None and self.rnd.random() < self.all_in:
                kind, amount, discard = "bet", opts.bet[1], ()
            else:
                kind, amount, discard = random_action(self.rnd, opts, hand.cards_of(seat))
                if kind == "fold" and opts.check:
                    kind = "check"
                if self.all_in == 0 and kind in ("bet", "raise"):  # a calm table: min bets
                    bounds = opts.bet if kind == "bet" else opts.raise_
                    assert bounds is not None
                    amount = bounds[0]
            fields: dict[str, Any] = {"type": "act", "rid": next(self._rid),
                                      "table": actor.table_id, "action": kind}
            if amount is not None:
                fields["amount"] = amount
            if kind == "draw":
                fields["discard"] = list(discard)
            await actor.submit(Envelope(parse_request(fields), self.sink(st.player_id)))
            acted = True
            self.acts += 1
        return acted

    async def run(self, d: Director, *, max_steps: int = 200_000,
                  until: Any = None, check: Any = None) -> None:
        """Play until the tournament ends (or ``until()`` is true); ``check()`` (a
        coroutine) runs whenever the room has settled."""
        for _ in range(max_steps):
            await self.settle(d)
            if check is not None:
                await check()
            if d.state in ("finished", "cancelled") or (until is not None and until()):
                return
            if not await self.act_once():
                self.clock.advance(0.5)
            else:  # a player thinks: the level clock runs on while hands are played
                self.clock.advance(self.think)
        raise AssertionError(f"the tournament did not end: {d.state}, level {d.level}")
