"""A practice table's bot (issue 24): a :class:`~server.loadtest.bots.Bot` that plays one
practice table through the server's own WebSocket, as any client would.

Rule of this module (as of the whole ``server.loadtest`` package): it imports only
``protocol``, ``websockets`` and the standard library. The server gives each bot its token
(a ``b_`` id, never a guest's), the table's id and its invite code; the bot says ``hello``
with the token, sits (with the code) at the first free seat of those it is offered, plays
every turn with :func:`~server.loadtest.bots.choose_action` (never the jackpot wager) after
``think`` seconds, rebuys when it has lost its stack (play money: the table's wallet takes
no balance), and stops when its seat is gone or the table closed (:meth:`PracticeBot.play`
returns then).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import Any

from .bots import Bot
from .tracking import Stats, TableTrack

__all__ = ["PLAY_MONEY", "PracticeBot"]

Msg = dict[str, Any]

PLAY_MONEY = 1 << 40
"""What a practice bot believes it can buy in with: the table's wallet never asks."""


class PracticeBot(Bot):
    """One bot of one practice table (see the module docstring)."""

    def __init__(self, url: str, name: str, table: str, *, token: str, code: str,
                 seats: Sequence[int], buy_in: int, seed: int, think: float) -> None:
        stats = Stats()
        super().__init__(url, name, TableTrack(table, stats), seat=seats[0] if seats else 0,
                         buy_in=buy_in, rng=random.Random(seed), think=think,
                         encoding="msgpack", stats=stats)
        self.token = token
        self.code = code
        self.seats = tuple(seats)
        self.done = asyncio.Event()

    async def hello(self) -> Msg:
        welcome = await super().hello()
        self.balance = PLAY_MONEY
        return welcome

    async def sit(self) -> None:
        """The first seat of ``seats`` still free (``seat_taken``: the next one)."""
        for seat in self.seats:
            answer = await self.follow({"type": "sit", "table": self.table, "seat": seat,
                                        "buy_in": self.buy_in, "code": self.code})
            if answer["type"] == "ok":
                self.seat = self.want_seat = seat
                self.stack = self.buy_in
                return
            if answer.get("code") != "seat_taken":
                break
        raise RuntimeError(f"practice bot {self.name} found no seat at {self.table}")

    async def play(self) -> None:
        """Connect, sit and play until the seat or the table is gone; then close."""
        try:
            await self.open()
            await self.hello()
            await self.sit()
            await self.done.wait()
        finally:
            await self.close()

    def _on_event(self, msg: Msg, kind: Any, now: float) -> None:
        super()._on_event(msg, kind, now)
        if msg.get("table") != self.table:
            return
        if kind == "table_closed" or self.left.is_set():
            self.done.set()

    def _lost(self) -> None:
        super()._lost()
        if self.stopped:
            self.done.set()
