"""TOUR-15: a player hears of a seat or a place only once the decision is saved. In a cluster
the director awaits the save in Redis after each decision; what it told players meanwhile is
held until that save returns, so a crash can never take back a `tournament_seat` or a
`tournament_result` a player already saw (the restore would then tell it a second time).
Here the room's store is a fake whose save waits on a gate the test opens."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

import pytest

from tests.tournament.driver import Room

pytestmark = pytest.mark.asyncio


class GatedRoom:
    """The room's tournaments (``Hall.room``) with a save that waits for ``gate``."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.gate.set()
        self.saves: list[str] = []

    async def save(self, tid: str, state: dict[str, Any], summary: dict[str, Any],
                   records: list[dict[str, Any]]) -> bool:
        await self.gate.wait()
        self.saves.append(state["state"])
        return True

    async def claim(self, lost: str, only: str = "") -> list[Any]:
        return []

    async def locate(self, tid: str, here: Callable[[str], bool] = lambda tid: True
                     ) -> str | None:
        return None

    async def log_of(self, tid: str) -> list[dict[str, Any]] | None:
        return None

    async def listing(self) -> list[dict[str, Any]]:
        return []

    async def number(self) -> int | None:
        return None

    async def hand_over(self, tid: str, taker: str) -> bool:
        return False

    def taker(self) -> str | None:
        return None


async def test_the_seats_of_a_start_are_told_only_after_it_is_saved_tour_15() -> None:
    room = Room(seed=3)
    gated = GatedRoom()
    room.hall.room = gated
    both = asyncio.Event()

    def tell(player: str, message: dict[str, Any]) -> None:
        room.told.append((player, message))
        if sum(m["type"] == "tournament_seat" for _, m in room.told) == 2:
            both.set()
    room.hall.tell = tell
    d = room.hall.create({"name": "Gate", "game": "holdem", "structure": "no_limit",
                          "kind": "sng", "buy_in": 100, "fee": 0, "capacity": 2,
                          "settings": {"starting_stack": 1000, "seats": 2,
                                       "preset": "turbo"}}, host=None)
    for p in ("ann", "bob"):
        room.wallet.ensure(p, 10_000)
    assert await d.ask(functools.partial(d.register, "ann", "Ann")) is None
    await d.inbox.join()
    gated.gate.clear()  # the next decision's save waits
    assert await d.ask(functools.partial(d.register, "bob", "Bob")) is None  # full: it starts
    assert d.state == "running" and len(d.seat_of) == 2
    assert "running" not in gated.saves
    assert [m for _, m in room.told if m["type"] == "tournament_seat"] == [], \
        "a seat was told before the start was saved"
    gated.gate.set()
    await asyncio.wait_for(both.wait(), 5.0)  # (the save returns, then the held words go)
    assert "running" in gated.saves
    seats = sorted(p for p, m in room.told if m["type"] == "tournament_seat")
    assert seats == ["ann", "bob"]
