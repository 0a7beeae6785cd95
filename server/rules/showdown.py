"""Showdown and awarding the pots.

- BET-11: one player left wins every pot at once, no more cards.
- SHOW-01: the player who was called shows first (if nobody bet in the last
  round, the first player to act in it); then clockwise every player shows
  if their hand ties or beats the best shown so far in a pot they are in,
  and otherwise gives it up unseen.  Players all-in before the last round
  show automatically.  (The server plays the "may give up" choice for the
  player: a hand that can win nothing is never exposed.)
- SHOW-02: after the showdown any seated player may ask to see the hands
  given up unseen: :meth:`Result.reveal_mucked`.
- GEN-08: the server reads every hand; nothing a player claims counts.
- SHOW-04: a shown hand's name (and a pot's winning hand's) names its deciding kicker when a
  hand it is compared with shares its category and main ranks
  (:func:`~server.rules.evaluate.name_against`).
- POT-01 / ALLIN-03: each pot is split on its own among its best shown hands;
  an odd chip goes to the tied player with the highest of their *hole cards*
  (:meth:`~server.rules.state.Seats.hole_cards`): the face-down cards they hold at the
  showdown.  Up cards and the board (Hold'em, Manila, Seven Card Stud's
  STUD-05 community card) never place it; in Draw every card held after the
  draw is a hole card, and the cards discarded in the draw are not.
- SHOWWIN-01 (a home game's house rule): the uncontested winner is asked whether to show.

:class:`Result` is the record of the hand's outcome and the only writer of ``values``,
``shown``, ``mucked``, ``revealed``, ``all_in_early``, ``rake`` and ``show_ask`` (the
``SHOW`` phase's turn).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from server.rules.evaluate import HandValue, name_against
from server.rules.events import (
    Acted,
    Event,
    RakeTaken,
    Showdown,
    TurnStarted,
    make_awarded,
    make_ended,
    make_mucked,
    make_showdown,
)
from server.rules.options import Options
from server.rules.pots import Pot, split_pot
from server.rules.state import Seats, record_deepcopy, record_repr
from server.rules.variant import TableRules, Variant, hand_values


class Result:
    """Who showed, who mucked, the values read, the rake (see the module docstring)."""

    __slots__ = ("variant", "rules", "seats", "emit", "hand_id", "values", "shown", "mucked",
                 "revealed", "all_in_early", "rake", "show_ask")
    __repr__ = record_repr
    __deepcopy__ = record_deepcopy

    def __init__(self, variant: Variant, rules: TableRules, seats: Seats,
                 emit: Callable[[Event], None], hand_id: str) -> None:
        self.variant = variant
        self.rules = rules
        self.seats = seats
        self.emit = emit
        self.hand_id = hand_id
        self.values: dict[int, HandValue] = {}
        self.shown: list[int] = []
        self.mucked: list[int] = []
        self.revealed: set[int] = set()
        self.all_in_early: set[int] = set()
        self.rake = 0
        self.show_ask: int | None = None

    @property
    def to_act(self) -> int | None:
        """The uncontested winner asked whether to show (the ``SHOW`` phase's turn)."""
        return self.show_ask

    def note_all_in(self) -> None:
        """Remember who was all-in before the last round (SHOW-01 automatic show)."""
        stacks = self.seats.stacks
        self.all_in_early = {s for s in self.seats.live if stacks[s] == 0}

    def award_uncontested(self, street: int, pots: list[Pot]) -> bool:
        """BET-11: the last player in wins every pot (``pots``: as the round closed, one
        player in); the cards are not shown.  True when the winner is then asked whether to
        show them (SHOWWIN-01, a home game's house rule)."""
        seats = self.seats
        winner = seats.live[0]
        for i, pot in enumerate(self.raked(pots)):
            seats.award(winner, pot.amount)
            self.emit(make_awarded(i, pot.amount, {winner: pot.amount}, None))
        if self.rules.show_uncontested:  # SHOWWIN-01 (house rule): the winner may show
            self.show_ask = winner
            self.emit(TurnStarted(winner, street))
            return True
        return False

    def show_options(self, seat: int) -> Options:
        """SHOWWIN-01: show or muck, nothing else."""
        return Options(seat, show=True, stack=self.seats.stacks[seat])

    def answer_show(self, seat: int, show: bool, *, timeout: bool) -> None:
        """SHOWWIN-01: the uncontested winner shows their cards to everyone, or does not (a
        timeout does not)."""
        self.show_ask = None
        self.emit(Acted(seat, "show" if show else "muck", 0, self.seats.stacks[seat],
                        timeout=timeout))
        if show:
            self.shown.append(seat)
            self.emit(make_showdown(seat, tuple(self.seats.own[seat]), "", ()))

    def show_order(self, last_aggressor: int | None, last_first: int | None) -> list[int]:
        """SHOW-01: the order the hands still in are shown in."""
        seats = self.seats
        live = seats.live
        start = last_aggressor
        if start is None or start not in live:
            # SHOW-01: nobody bet: the first to act in the last round, or, if that player
            # folded, the next player clockwise from them still in the hand
            first = last_first
            start = (seats.next_seat(first if first is not None else seats.button, live)
                     if first is None or first not in live else first)
        assert start is not None
        order = seats.order
        i = order.index(start)
        return [s for s in order[i:] + order[:i] if s in live]

    def showdown(self, board: list[str], order: list[int], pots: list[Pot]) -> None:
        """SHOW-01 in ``order``, then each of ``pots`` (the last round's, as it closed) to its
        best shown hands (POT-01)."""
        seats = self.seats
        live = seats.live
        variant, rules, own = self.variant, self.rules, seats.own
        values = self.values = hand_values(variant, rules, own, live, board)
        best = [-1] * len(pots)  # pot index -> the best hand shown in it (-1: none yet)
        eligible = [p.eligible for p in pots]
        shown, all_in_early = self.shown, self.all_in_early
        for s in order:
            value = values[s]
            mine = [i for i, seats_in in enumerate(eligible) if s in seats_in]
            for i in mine:  # it ties or beats the best shown in one of its pots: it shows
                if value >= best[i]:
                    break
            else:
                if s not in all_in_early:  # (all-in before the last round: shown anyway)
                    self.mucked.append(s)
                    continue
            shown.append(s)
            for i in mine:
                if value > best[i]:
                    best[i] = value
        emit = self.emit
        rivals = [values[s] for s in shown]
        for s in order:  # SHOW-04: each shown hand named against the others shown
            if s in shown:
                value = values[s]
                emit(make_showdown(s, tuple(own[s]), name_against(value, rivals), value.cards))
            else:
                emit(make_mucked(s))
        chip = rules.stakes.chip
        for i, pot in enumerate(self.raked(pots)):
            contenders = [s for s in pot.eligible if s in shown]
            top = max(map(values.__getitem__, contenders))
            winners = [s for s in seats.order if s in contenders and values[s] == top]
            shares, odd = split_pot(pot.amount, winners, chip=chip, hole_cards=seats.hole_cards)
            for s, amount in shares.items():
                seats.award(s, amount)
            emit(make_awarded(i, pot.amount, shares, odd, self.named(top, contenders)))

    def show_all(self, values: dict[int, HandValue], order: list[int]) -> None:
        """RIT-03: every hand still in is shown (in ``order``), each named against all of
        them (SHOW-04)."""
        self.values = values
        own = self.seats.own
        for s in order:
            self.shown.append(s)
            v = values[s]
            self.emit(make_showdown(s, tuple(own[s]), name_against(v, values.values()),
                                    tuple(v.cards)))

    def named(self, value: HandValue, seats: Iterable[int]) -> str:
        """SHOW-04: ``value``'s name, with its kicker where it decides against the hands of
        ``seats``."""
        values = self.values
        return name_against(value, [values[s] for s in seats])

    def raked(self, pots: list[Pot]) -> list[Pot]:
        """GEN-09: take the rake on the whole pot, from the main pot first."""
        due = self.rules.rake_on(sum(p.amount for p in pots), self.rules.stakes.chip)
        if not due:
            return pots
        out: list[Pot] = []
        for i, pot in enumerate(pots):
            take = min(due, pot.amount)
            if take:
                due -= take
                self.rake += take
                self.emit(RakeTaken(i, take))
            out.append(Pot(pot.amount - take, pot.eligible))
        return out

    def finish(self) -> None:
        """The hand's last event."""
        self.emit(make_ended(self.hand_id, dict(self.seats.stacks), shown=tuple(self.shown),
                             rake=self.rake))

    def reveal_mucked(self, seats: Iterable[int] | None = None) -> list[Showdown]:
        """SHOW-02: show the hands given up unseen in the final showdown (once each); only
        those of ``seats`` when given."""
        wanted = set(seats) if seats is not None else None
        out: list[Showdown] = []
        for s in self.mucked:
            if s not in self.revealed and (wanted is None or s in wanted):
                self.revealed.add(s)
                v = self.values[s]
                out.append(Showdown(s, tuple(self.seats.own[s]), self.named(v, self.shown),
                                    tuple(v.cards)))
        return out
