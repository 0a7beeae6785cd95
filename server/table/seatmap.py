"""Who sits where at one table: the seats, the waiting list and the queued seat changes.

Rule of this module: :class:`SeatMap` owns those three and is written only by the table
actor's task (through :mod:`server.table.seating`); it never sends a frame nor moves a chip.
It reads like the list of seats (``seats[i]`` is a :class:`SeatState` or None).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from server.table.api import Sink

__all__ = ["SeatMap", "SeatRequest", "SeatState", "Waiter"]


@dataclass(slots=True)
class SeatState:
    player_id: str
    name: str
    stack: int
    bank: float
    sink: Sink | None = None
    sitting_out: bool = False
    leaving: bool = False
    wait_for_bb: bool = False  # GEN-05: sits out until the big blind reaches this seat
    post_bb: bool = False  # GEN-05 ``post_to_enter``: posts a big blind to come in at once
    timeouts: int = 0
    topup: int = 0
    grace_token: int = 0


@dataclass(slots=True)
class Waiter:
    """A player on the waiting list (GEN-04), with the buy-in they asked for."""

    player_id: str
    name: str
    buy_in: int
    sink: Sink


@dataclass(slots=True)
class SeatRequest:
    """A seat asked of a home game's host (``approve_seats``), waiting for an answer."""

    player_id: str
    name: str
    seat: int
    buy_in: int

    def to_wire(self, offer: int | None = None) -> dict[str, Any]:
        """``seat``: the seat asked for; ``offer``: where an approval seats the asker now
        (``seat`` while it is free; null when no seat is); ``taken``: someone sat at
        ``seat`` meanwhile."""
        out: dict[str, Any] = {"player": self.player_id, "name": self.name, "seat": self.seat,
                    "buy_in": self.buy_in, "offer": offer}
        if offer != self.seat:
            out["taken"] = True
        return out


class SeatMap(Sequence[SeatState | None]):
    """The seats of one table (see the module docstring)."""

    def __init__(self, n: int) -> None:
        self._seats: list[SeatState | None] = [None] * n
        self.waiting: list[Waiter] = []
        self.changes: list[tuple[str, int]] = []  # (player id, the seat they asked for)
        self.deal_sitting_out = False  # a tournament's table: TOUR-13 (server.table.tourney)

    # -- reading ---------------------------------------------------------------------------
    @overload
    def __getitem__(self, i: int) -> SeatState | None: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[SeatState | None]: ...
    def __getitem__(self, i: int | slice) -> SeatState | None | Sequence[SeatState | None]:
        return self._seats[i]

    def __len__(self) -> int:
        return len(self._seats)

    def __iter__(self) -> Iterator[SeatState | None]:
        return iter(self._seats)

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for i, s in enumerate(self._seats):
            if s is not None and s.player_id == player_id:
                return i
        return None

    def players(self) -> set[str]:
        return {s.player_id for s in self._seats if s is not None}

    def occupied(self) -> list[tuple[int, SeatState]]:
        return [(i, s) for i, s in enumerate(self._seats) if s is not None]

    def eligible(self) -> list[int]:
        """The seats that would be dealt in: present, not leaving, with chips (and not
        sitting out, except at a tournament's table: TOUR-13)."""
        out = self.deal_sitting_out
        return [i for i, s in enumerate(self._seats)
                if s is not None and (out or not s.sitting_out) and not s.leaving
                and s.stack > 0]

    def is_full(self) -> bool:
        return all(s is not None for s in self._seats)

    def is_empty(self) -> bool:
        return all(s is None for s in self._seats)

    def chips(self) -> int:
        """Every chip on the seats (stacks and top-ups waiting for the hand's end)."""
        return sum(s.stack + s.topup for s in self._seats if s is not None)

    def owners(self) -> tuple[str | None, ...]:
        return tuple(None if s is None else s.player_id for s in self._seats)

    # -- seats -----------------------------------------------------------------------------
    def place(self, seat: int, state: SeatState) -> None:
        assert self._seats[seat] is None
        self._seats[seat] = state

    def vacate(self, seat: int) -> SeatState:
        state = self._seats[seat]
        assert state is not None
        self._seats[seat] = None
        return state

    def move(self, old: int, new: int) -> SeatState:
        state = self.vacate(old)
        self.place(new, state)
        return state

    # -- the waiting list and seat changes (GEN-04) ----------------------------------------
    def wait(self, waiter: Waiter) -> None:
        """Put a player on the waiting list (once)."""
        if all(w.player_id != waiter.player_id for w in self.waiting):
            self.waiting.append(waiter)

    def stop_waiting(self, player_id: str | None) -> bool:
        """Take the player off the waiting list; whether they were on it."""
        before = len(self.waiting)
        self.waiting = [w for w in self.waiting if w.player_id != player_id]
        return len(self.waiting) != before

    def forget_sink(self, sink: Sink) -> None:
        """A connection closed: its waiting-list entries go (they could not be seated)."""
        self.waiting = [w for w in self.waiting if w.sink is not sink]

    def ask_change(self, player_id: str, seat: int) -> None:
        self.drop_change(player_id)
        self.changes.append((player_id, seat))

    def drop_change(self, player_id: str) -> None:
        self.changes = [c for c in self.changes if c[0] != player_id]
