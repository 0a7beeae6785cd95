"""The draw (DRAW-03): each player still in, from the button's left, discards and is dealt as
many cards; the draw's own betting round follows.

:class:`DrawRound` is the draw's record and the only writer of its ``pending`` (who has
still to draw) and ``to_act``; the cards come from :class:`~server.rules.dealing.Dealing`
(:meth:`~server.rules.dealing.Dealing.replace`, which reshuffles the burns and the other
players' discards when the stock runs short).
"""

from __future__ import annotations

from server.rules import errors
from server.rules.cards import is_card
from server.rules.dealing import Dealing
from server.rules.events import Drew
from server.rules.options import Options
from server.rules.state import record_deepcopy, record_repr
from server.rules.variant import TableRules


class DrawRound:
    """One draw: who has still to draw, and whose turn it is."""

    __slots__ = ("dealing", "max_discard", "pending", "to_act", "first_actor", "last_actor")
    __repr__ = record_repr
    __deepcopy__ = record_deepcopy

    def __init__(self, dealing: Dealing, rules: TableRules) -> None:
        self.dealing = dealing
        self.max_discard = rules.max_discard
        self.pending: set[int] = set()
        self.to_act: int | None = None
        self.first_actor: int | None = None
        self.last_actor = dealing.seats.button

    def open(self) -> None:
        """Every player still in draws, the first from the button's left."""
        seats = self.dealing.seats
        self.pending = set(seats.live)
        self.first_actor = seats.next_seat(seats.button, seats.live)
        self.to_act = None

    def next_turn(self) -> int:
        """The next seat to draw: the first one, then clockwise."""
        first = self.first_actor
        self.first_actor = None
        if first is not None and first in self.pending:
            seat: int | None = first
        else:
            seat = self.dealing.seats.next_seat(
                first if first is not None else self.last_actor, self.pending)
        assert seat is not None
        self.to_act = seat
        return seat

    def options(self, seat: int) -> Options:
        own = self.dealing.seats.own[seat]
        return Options(seat, draw=min(self.max_discard, len(own), self._spare(seat)),
                       stack=self.dealing.seats.stacks[seat])

    def _spare(self, seat: int) -> int:
        """Cards that can replace ``seat``'s discards: the stock, burns, others' discards."""
        d = self.dealing
        return d.left() + len(d.burns) + sum(
            len(cs) for s, cs in d.discards.items() if s != seat)

    def validate(self, opts: Options, discard: tuple[str, ...]) -> None:
        assert opts.draw is not None
        hand = self.dealing.seats.own[opts.seat]
        if len(discard) > opts.draw:
            raise errors.IllegalAction(errors.BAD_DISCARD, f"at most {opts.draw} cards")
        if len(set(discard)) != len(discard):
            raise errors.IllegalAction(errors.BAD_DISCARD, "a card is discarded twice")
        for c in discard:
            if not is_card(c) or c not in hand:
                raise errors.IllegalAction(errors.BAD_DISCARD, f"{c!r} is not in your hand")
        spare = self._spare(opts.seat)
        if len(discard) > spare:  # pragma: no cover (opts.draw, checked above, is at most spare)
            raise errors.IllegalAction(errors.BAD_DISCARD, f"only {spare} cards can be replaced")

    def apply(self, seat: int, discard: tuple[str, ...]) -> None:
        """DRAW-03: discard and replace (the deck reshuffles if short)."""
        d = self.dealing
        self.last_actor = seat
        self.to_act = None
        self.pending.discard(seat)
        received, positions = d.replace(seat, discard)
        seats = d.seats
        own = seats.own[seat]
        own[:] = [c for c in own if c not in discard] + received
        seats.up[seat][:] = [False] * len(own)
        d.emit(Drew(seat, discard, tuple(received), tuple(positions)))
