"""Showdown and awarding the pots.

- BET-11: one player left wins every pot at once, no more cards.
- SHOW-01: the player who was called shows first (if nobody bet in the last
  round, the first player to act in it); then clockwise every player shows
  if their hand ties or beats the best shown so far in a pot they are in,
  and otherwise gives it up unseen.  Players all-in before the last round
  show automatically.  (The server plays the "may give up" choice for the
  player: a hand that can win nothing is never exposed.)
- SHOW-02: after the showdown any seated player may ask to see the hands
  given up unseen: :meth:`ShowdownMixin.reveal_mucked`.
- GEN-08: the server reads every hand; nothing a player claims counts.
- SHOW-04: a shown hand's name (and a pot's winning hand's) names its deciding kicker when a
  hand it is compared with shares its category and main ranks
  (:func:`~server.rules.evaluate.name_against`).
- POT-01 / ALLIN-03: each pot is split on its own among its best shown hands;
  an odd chip goes to the tied player with the highest of their *hole cards*
  (:meth:`ShowdownMixin.hole_cards`): the face-down cards they hold at the
  showdown.  Up cards and the board (Hold'em, Manila, Seven Card Stud's
  STUD-05 community card) never place it; in Draw every card held after the
  draw is a hole card, and the cards discarded in the draw are not.
"""

from __future__ import annotations

from collections.abc import Iterable

from server.rules import errors
from server.rules.evaluate import HandValue, name_against
from server.rules.events import (
    Acted,
    HandEnded,
    Mucked,
    PotAwarded,
    RakeTaken,
    Showdown,
    TurnStarted,
)
from server.rules.pots import Pot, build_pots, split_pot
from server.rules.state import HandState
from server.rules.variant import hand_value


class ShowdownMixin(HandState):
    """Showdown behaviour of :class:`~server.rules.hand.Hand`."""

    def _init_showdown(self) -> None:
        self.values: dict[int, HandValue] = {}
        self.shown: list[int] = []
        self.mucked: list[int] = []
        self.revealed: set[int] = set()
        self.all_in_early: set[int] = set()
        self.rake = 0

    def _note_last_street(self) -> None:
        """Remember who was all-in before the last round (SHOW-01 automatic show)."""
        self.all_in_early = {s for s in self._live if self.stacks[s] == 0}

    def _award_uncontested(self) -> None:
        """BET-11: the last player in wins every pot; the cards are not shown (at a home game
        with SHOWWIN-01 on, the winner is then asked whether to show them)."""
        winner = self._live[0]
        for i, pot in enumerate(self._raked(build_pots(self.contrib, [winner]))):
            self.stacks[winner] += pot.amount
            self._emit(PotAwarded(i, pot.amount, {winner: pot.amount}, None))
        if self.rules.show_uncontested:  # SHOWWIN-01 (house rule): the winner may show
            self.show_ask = self.to_act = winner
            self._emit(TurnStarted(winner, self.street))
            return
        self._finish()

    def _answer_show(self, seat: int, show: bool, *, timeout: bool) -> None:
        """SHOWWIN-01: the uncontested winner shows their cards to everyone, or does not (a
        timeout does not); then the hand ends."""
        self.show_ask = self.to_act = None
        self._emit(Acted(seat, "show" if show else "muck", 0, self.stacks[seat],
                         timeout=timeout))
        if show:
            self.shown.append(seat)
            self._emit(Showdown(seat, tuple(self.own[seat]), "", ()))
        self._finish()

    def _show_order(self) -> list[int]:
        live = self._live
        start = self.last_round_aggressor
        if start is None or start not in live:
            # SHOW-01: nobody bet: the first to act in the last round, or, if that player
            # folded, the next player clockwise from them still in the hand
            first = self.last_round_first
            start = (self._next_seat(first if first is not None else self.button, live)
                     if first is None or first not in live else first)
        assert start is not None
        i = self.order.index(start)
        rotated = self.order[i:] + self.order[:i]
        return [s for s in rotated if s in live]

    def _showdown(self) -> None:
        if self.runs == 2:  # RIT-03/RIT-04: a board run twice has its own showdown
            self._showdown_twice()
            return
        live = self._live
        board = self.board
        self.values = {s: hand_value(self.variant, self.rules, self.own[s], board) for s in live}
        pots = build_pots(self.contrib, live)
        best: dict[int, HandValue] = {}  # pot index -> best hand shown in it
        order = self._show_order()
        for s in order:
            value = self.values[s]
            mine = [i for i, p in enumerate(pots) if s in p.eligible]
            must = s in self.all_in_early or any(i not in best or value >= best[i] for i in mine)
            if must:
                self.shown.append(s)
                for i in mine:
                    if i not in best or value > best[i]:
                        best[i] = value
            else:
                self.mucked.append(s)
        for s in order:  # SHOW-04: each shown hand named against the others shown
            if s in self.shown:
                value = self.values[s]
                self._emit(Showdown(s, tuple(self.own[s]), self._named(value, self.shown),
                                    tuple(value.cards)))
            else:
                self._emit(Mucked(s))
        for i, pot in enumerate(self._raked(pots)):
            contenders = [s for s in pot.eligible if s in self.shown]
            top = max(self.values[s] for s in contenders)
            winners = [s for s in self.order if s in contenders and self.values[s] == top]
            shares, odd = split_pot(pot.amount, winners, chip=self.stakes.chip,
                                    hole_cards=self.hole_cards)
            for s, amount in shares.items():
                self.stacks[s] += amount
            self._emit(PotAwarded(i, pot.amount, shares, odd, self._named(top, contenders)))
        self._finish()

    def _named(self, value: HandValue, seats: Iterable[int]) -> str:
        """SHOW-04: ``value``'s name, with its kicker where it decides against the hands of
        ``seats``."""
        return name_against(value, (self.values[s] for s in seats))

    def hole_cards(self, seat: int) -> list[str]:
        """POT-01: the seat's hole cards, its face-down cards as held now: stud's down cards,
        the private cards of Hold'em and Manila (the board is never among them), and in Draw
        the five cards held after the draw (every card is dealt and drawn face down)."""
        return [c for c, up in zip(self.own[seat], self.up[seat], strict=True) if not up]

    def _raked(self, pots: list[Pot]) -> list[Pot]:
        """GEN-09: take the rake on the whole pot, from the main pot first."""
        due = self.rules.rake_on(sum(p.amount for p in pots), self.stakes.chip)
        out: list[Pot] = []
        for i, pot in enumerate(pots):
            take = min(due, pot.amount)
            if take:
                due -= take
                self.rake += take
                self._emit(RakeTaken(i, take))
            out.append(Pot(pot.amount - take, pot.eligible))
        return out

    def _finish(self) -> None:
        self.is_over = True
        self.to_act = None
        self.pending = set()
        self._emit(HandEnded(self.hand_id, dict(self.stacks), shown=tuple(self.shown),
                             rake=self.rake))

    def reveal_mucked(self, seats: Iterable[int] | None = None) -> list[Showdown]:
        """SHOW-02: show the hands given up unseen in the final showdown (once each); only
        those of ``seats`` when given."""
        if not self.is_over:
            raise errors.IllegalAction(errors.NO_HAND, "hands are shown after the hand")
        wanted = set(seats) if seats is not None else None
        out: list[Showdown] = []
        for s in self.mucked:
            if s not in self.revealed and (wanted is None or s in wanted):
                self.revealed.add(s)
                v = self.values[s]
                out.append(Showdown(s, tuple(self.own[s]), self._named(v, self.shown),
                                    tuple(v.cards)))
        return out
