"""The seats of a hand: each seat's chips and cards, the one record every phase reads.

:class:`Seats` is a plain record.  Who writes what (each field has one writer):

- ``stacks``, ``contrib``: chips move only through :meth:`Seats.put` (forced bets and
  betting put chips in), :meth:`Seats.give_back` (an uncalled bet, ALLIN-03),
  :meth:`Seats.award` (pots won) and :meth:`Seats.restore` (a void).
- ``bets`` (each seat's total in this round): set by the forced bets
  (:class:`~server.rules.forced.Forced`) and the betting round
  (:class:`~server.rules.betting.Betting`) as they put chips in; :meth:`Seats.give_back`
  lowers one, :meth:`Seats.new_round` zeroes them.
- ``folded`` / ``live``: :meth:`Seats.fold` only (the betting round's fold).
- ``own`` / ``up``: the deal (:mod:`server.rules.dealing`) and the draw
  (:mod:`server.rules.drawing`) only.

Every container is changed in place, never replaced, so a reader holding one (the
:class:`~server.rules.hand.Hand`'s attributes of the same names) always sees it current.
"""

from __future__ import annotations

import copy
from bisect import bisect_right
from collections.abc import Collection, Mapping
from typing import Any

_LINKS = frozenset(("seats", "emit", "dealing", "variant", "rules", "stakes"))
_FROZEN = frozenset(("variant", "rules", "stakes"))  # immutable table values: shared by copies


def record_repr(record: Any) -> str:
    """A record's state: its fields, without its links to other records and the event sink
    (so that two hands in the same state read the same)."""
    fields = ", ".join(f"{n}={getattr(record, n)!r}" for n in type(record).__slots__
                       if n not in _LINKS)
    return f"{type(record).__name__}({fields})"


def record_deepcopy(record: Any, memo: dict[int, Any]) -> Any:
    """A deep copy of a record (``copy.deepcopy``) whose variant, rules and stakes (frozen
    values) are shared, not copied; its links to other records follow ``memo`` as usual."""
    cls = type(record)
    new = object.__new__(cls)
    memo[id(record)] = new
    flat = _FLAT.get(cls, ())
    for n in cls.__slots__:
        value = getattr(record, n)
        if n in _FROZEN:
            setattr(new, n, value)
        elif n in flat:  # a list of cards or numbers: a shallow copy is a deep one
            setattr(new, n, list(value))
        else:
            setattr(new, n, copy.deepcopy(value, memo))
    return new


_FLAT: dict[type, frozenset[str]] = {}


def flat_fields(cls: type, *names: str) -> None:
    """Declare ``cls``'s fields that hold flat lists (of cards, of numbers), which
    :func:`record_deepcopy` copies shallowly."""
    _FLAT[cls] = frozenset(names)


class Seats:
    """Per-seat chips and cards of one hand (see the module docstring for the writers)."""

    __slots__ = ("num_seats", "button", "order", "initial", "stacks", "contrib", "bets",
                 "folded", "live", "own", "up", "_after")
    __repr__ = record_repr

    def __init__(self, stacks: Mapping[int, int], button: int, num_seats: int) -> None:
        self.num_seats = num_seats
        self.button = button
        self.initial: dict[int, int] = dict(stacks)
        self.stacks: dict[int, int] = dict(stacks)
        # clockwise from the button's left: the dealing order (HOLD-01)
        # (every seat and the button are on the table: 0 <= seat < num_seats)
        ranked = sorted(stacks)
        cut = bisect_right(ranked, button)  # the seats after the button first
        order = self.order = ranked[cut:] + ranked[:cut]
        self.contrib: dict[int, int] = dict.fromkeys(order, 0)
        self.bets: dict[int, int] = dict.fromkeys(order, 0)
        self.folded: set[int] = set()
        self.live: list[int] = list(order)  # seats not folded, in dealing order
        self.own: dict[int, list[str]] = {s: [] for s in order}
        self.up: dict[int, list[bool]] = {s: [] for s in order}
        # ``next_seat``'s clockwise orders, the seat itself last (slices of the order twice)
        ring, n = (*order, *order), len(order)
        self._after: dict[int, tuple[int, ...]] = {
            s: ring[i:i + n] for i, s in enumerate(order, 1)}

    def __deepcopy__(self, memo: dict[int, Any]) -> Seats:
        """A copy (``copy.deepcopy``): every container holds numbers, cards or flat lists."""
        new = object.__new__(Seats)
        memo[id(self)] = new
        new.num_seats = self.num_seats
        new.button = self.button
        new.order = list(self.order)
        new.initial = dict(self.initial)
        new.stacks = dict(self.stacks)
        new.contrib = dict(self.contrib)
        new.bets = dict(self.bets)
        new.folded = set(self.folded)
        new.live = list(self.live)
        new.own = {s: list(cs) for s, cs in self.own.items()}
        new.up = {s: list(us) for s, us in self.up.items()}
        new._after = dict(self._after)  # tuples of seats
        return new

    # ------------------------------------------------------------------ chips
    def put(self, seat: int, amount: int) -> int:
        """Move up to ``amount`` from the stack to the middle; returns what went in."""
        stacks = self.stacks
        stack = stacks[seat]
        if amount > stack:
            amount = stack
        stacks[seat] = stack - amount
        self.contrib[seat] += amount
        return amount

    def give_back(self, seat: int, amount: int) -> None:
        """ALLIN-03: an uncalled bet leaves the middle for its owner's stack."""
        self.contrib[seat] -= amount
        self.bets[seat] -= amount
        self.stacks[seat] += amount

    def award(self, seat: int, amount: int) -> None:
        self.stacks[seat] += amount

    def new_round(self) -> None:
        """A betting round after the first starts with no bets."""
        bets = self.bets
        for s in bets:
            bets[s] = 0

    def restore(self) -> None:
        """A void: every stack back to what it was when the hand started."""
        self.stacks.clear()
        self.stacks.update(self.initial)

    @property
    def pot_total(self) -> int:
        """Every chip in the middle, this round's bets included."""
        return sum(self.contrib.values())

    # -------------------------------------------------------------- players
    def fold(self, seat: int) -> None:
        """Mark ``seat`` folded; ``live`` follows (in place)."""
        self.folded.add(seat)
        self.live.remove(seat)

    def able(self) -> list[int]:
        """Seats still in the hand with chips behind (who can still bet)."""
        stacks = self.stacks
        return [s for s in self.live if stacks[s] > 0]

    def next_seat(self, seat: int, candidates: Collection[int]) -> int | None:
        """The first seat of ``candidates`` clockwise after ``seat`` (``seat`` itself last)."""
        after = self._after.get(seat)
        if after is None:  # the hand's seats clockwise after ``seat`` (``seat`` last)
            n = self.num_seats
            after = self._after[seat] = tuple(
                sorted(self.order, key=lambda x: (x - seat - 1) % n))
        for s in after:
            if s in candidates:
                return s
        # candidates outside the hand, or none at all: never from the engine itself, whose
        # candidates are always some of the hand's seats
        pool = set(candidates)  # pragma: no cover
        for step in range(1, self.num_seats + 1):  # pragma: no cover
            s = (seat + step) % self.num_seats
            if s in pool:
                return s
        return None  # pragma: no cover

    # ---------------------------------------------------------------- cards
    def hole_cards(self, seat: int) -> list[str]:
        """POT-01: the seat's face-down cards as held now."""
        return [c for c, u in zip(self.own[seat], self.up[seat], strict=True) if not u]

    def up_cards(self, seat: int) -> list[str]:
        return [c for c, u in zip(self.own[seat], self.up[seat], strict=True) if u]
