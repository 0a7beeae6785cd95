"""Forced bets and the over-blind question: the first step of every pot-game hand.

Rules: BLIND-01 (the blinds left of the button, or the table's plan, GEN-05's dead blinds and
entry posts), BLIND-03, BLIND-04 (the Draw over blind; STRAD-01 the home game's straddle, the
same voluntary blind at Hold'em/Manila) and BLIND-05 (antes, dead money).

:class:`Forced` is the record of who posted what; it is the only writer of ``blind_seats``,
``over_blind_seat`` and ``over_blind_ask`` (the seat asked before the deal, the
``OVER_BLIND`` phase's turn).  The first betting round's level is set through
:meth:`~server.rules.betting.Betting.set_first_level`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from server.rules.betting import Betting
from server.rules.events import Acted, Event, make_posted
from server.rules.options import Options
from server.rules.state import Seats, record_deepcopy, record_repr
from server.rules.variant import TableRules, Variant


class Forced:
    """Who posts the forced bets of a hand, and the over-blind question."""

    __slots__ = ("variant", "rules", "seats", "emit", "blind_plan", "entry_posts", "want",
                 "ask", "blind_seats", "over_blind_seat", "over_blind_ask")
    __repr__ = record_repr
    __deepcopy__ = record_deepcopy

    def __init__(self, variant: Variant, rules: TableRules, seats: Seats,
                 emit: Callable[[Event], None], *, blinds: Sequence[int | None] | None,
                 entry_posts: Iterable[int], over_blind: bool, ask_over_blind: bool) -> None:
        self.variant = variant
        self.rules = rules
        self.seats = seats
        self.emit = emit
        self.blind_plan: tuple[int | None, ...] | None = (
            tuple(blinds) if blinds is not None else None)
        self.entry_posts: frozenset[int] = frozenset(entry_posts)
        allowed = rules.over_blind or rules.straddle  # BLIND-04 / STRAD-01
        self.want = over_blind and allowed
        self.ask = ask_over_blind and allowed
        self.blind_seats: list[int] = []
        self.over_blind_seat: int | None = None
        self.over_blind_ask: int | None = None

    @property
    def to_act(self) -> int | None:
        """The seat asked the over-blind question (the phase's turn)."""
        return self.over_blind_ask

    def post(self, betting: Betting) -> None:
        """Antes, blinds, entry posts and the over blind; note who is asked about it."""
        seats, st, emit = self.seats, self.rules.stakes, self.emit
        if st.ante:  # BLIND-05: antes before any card, dead money
            for s in seats.order:
                paid = seats.put(s, st.ante)
                emit(make_posted(s, "ante", paid, seats.stacks[s]))
        if self.variant.is_stud or not st.blinds:
            return
        order = list(seats.order)
        plan: list[int | None]
        if self.blind_plan is not None:  # GEN-05: the table's dead-button positions
            plan = list(self.blind_plan)
        else:
            if (len(order) == 2 and self.rules.heads_up_button_first_blind
                    and seats.button in order):
                order = [seats.button] + [s for s in order if s != seats.button]
            plan = list(order[:len(st.blinds)])
        bets = seats.bets
        for seat, blind in zip(plan, st.blinds, strict=False):  # BLIND-01
            if seat is None:
                continue  # a dead blind (GEN-05): nobody posts it
            paid = seats.put(seat, blind)
            bets[seat] += paid
            self.blind_seats.append(seat)
            emit(make_posted(seat, "blind", paid, seats.stacks[seat]))
        last_blind = st.blinds[-1]
        if self.entry_posts:  # GEN-05: a late entrant posts a big blind to play at once
            for seat in seats.order:
                if seat in self.entry_posts and seat not in self.blind_seats:
                    paid = seats.put(seat, last_blind)
                    bets[seat] += paid
                    emit(make_posted(seat, "blind", paid, seats.stacks[seat]))
        # BET-03: in the first round calling means matching the last blind (or over blind)
        betting.set_first_level(last_blind)
        entitled = self._entitled(last_blind)
        if entitled is not None and self.want:
            self._post_over_blind(entitled, betting)
        elif entitled is not None and self.ask:
            self.over_blind_ask = entitled  # asked before the deal (Hand.start)

    def _entitled(self, last_blind: int) -> int | None:
        """BLIND-04: the seat left of the last compulsory blind, when it may post the over
        blind: not a blind itself (heads-up), not posting to come in, and able to cover
        exactly double the last blind (after any ante); None otherwise."""
        if not (self.want or self.ask):
            return None
        seats = self.seats
        seat = seats.next_seat(self.blind_seats[-1], seats.order)
        if (seat is None or seat in self.blind_seats or seat in self.entry_posts
                or seats.stacks[seat] < 2 * last_blind):
            return None
        return seat

    def _post_over_blind(self, seat: int, betting: Betting) -> None:
        seats = self.seats
        amount = 2 * self.rules.stakes.blinds[-1]
        seats.put(seat, amount)
        seats.bets[seat] += amount
        self.over_blind_seat = seat
        kind = "straddle" if self.rules.straddle else "over_blind"  # STRAD-01 / BLIND-04
        self.emit(make_posted(seat, kind, amount, seats.stacks[seat]))
        betting.set_first_level(amount)

    def options(self, seat: int) -> Options:
        """BLIND-04: the only question before the deal: post it or decline."""
        return Options(seat, over_blind=2 * self.rules.stakes.blinds[-1], decline=True,
                       stack=self.seats.stacks[seat], straddle=self.rules.straddle)

    def answer(self, seat: int, post: bool, betting: Betting, *, timeout: bool) -> None:
        """BLIND-04: the asked seat posts the over blind or declines (a timeout declines)."""
        self.over_blind_ask = None
        if post:
            self._post_over_blind(seat, betting)
        else:
            self.emit(Acted(seat, "decline", 0, self.seats.stacks[seat], timeout=timeout))
