"""Run it twice: a home game's house rule (docs/rules.md "House rules (home games only)").

It departs from the Gazette on purpose (a pot is never divided by agreement and every hand is
played to one conclusion, POT-02 / r14.4(f)), so a table allows it only where its host turned
it on at a private table (``TableRules.run_twice``); nothing here runs otherwise.

- RIT-01: at Hold'em and Manila, once no more betting can happen (every player still in is
  all-in, or all but one and that one owes nothing: ALLIN-04) and board cards are still to
  come, the players still in are asked, when the deck holds enough cards for two runs.
- RIT-02: each of them is asked in turn from the button's left (a turn whose options are
  ``run_twice`` and ``run_once``); a ``run_once`` or no answer in time ends the question and
  the board is run once; the board is run twice only when every one of them agrees.
- RIT-03: the first run is dealt as usual (burns included); the second run then deals the
  same streets again (a burn before each street that burns, then its cards) from the rest of
  the deck.  Every hand still in is shown: each is live on both boards.
- RIT-04: each pot (main and side, after the rake) is halved down to the smallest chip; the
  first run's half takes any odd chip; each half is won on its own board among the players
  eligible for that pot (POT-01's split and odd chip within a half).

:class:`Runout` is the question's record and the only writer of ``runs``, ``ask`` (the seats
still to answer; the first is the ``RUNOUT`` phase's turn), ``start`` (the first street
dealt twice), ``shared`` (the board cards both runs share) and ``board2``.
"""

from __future__ import annotations

from server.rules.dealing import Dealing
from server.rules.evaluate import name_against
from server.rules.events import Acted, PotAwarded
from server.rules.options import Options
from server.rules.phase import StreetPlan
from server.rules.pots import Pot, split_pot
from server.rules.showdown import Result
from server.rules.state import record_deepcopy, record_repr
from server.rules.variant import TableRules, hand_value


def run_share(amount: int, run: int, chip: int) -> int:
    """RIT-04: the part of a pot of ``amount`` chips that run ``run`` (0 or 1) is played for:
    half each down to ``chip``, the first run taking the odd chip(s)."""
    units, loose = divmod(amount, chip)
    second = (units // 2) * chip
    return second if run == 1 else amount - second


class Runout:
    """The run-it-twice question and the second run (see the module docstring)."""

    __slots__ = ("enabled", "runs", "ask", "start", "shared", "board2")
    __repr__ = record_repr
    __deepcopy__ = record_deepcopy

    def __init__(self, rules: TableRules) -> None:
        self.enabled = rules.run_twice
        self.runs = 1
        self.ask: list[int] = []  # RIT-02: the seats still to answer, in order
        self.start = 0  # the first street dealt twice (0: not asked)
        self.shared = 0  # the board cards both runs share
        self.board2: list[str] = []

    @property
    def to_act(self) -> int | None:
        """The seat asked now (the ``RUNOUT`` phase's turn)."""
        return self.ask[0] if self.ask else None

    def open(self, street: StreetPlan, dealing: Dealing) -> bool:
        """RIT-01: open the question after ``street`` (True) when the house rule is on, it was
        not asked yet, nobody can bet any more and only board cards are still to come, with
        enough cards for both runs."""
        if not self.enabled or self.start:  # off, or asked once already
            return False
        seats = dealing.seats
        stacks = seats.stacks
        if sum(1 for s in seats.live if stacks[s] > 0) > 1:
            return False
        if not street.board_only_after:
            return False
        if dealing.left() < 2 * street.cards_after:
            return False
        self.start = street.index + 1
        self.shared = len(dealing.board)
        self.ask = list(seats.live)
        return True

    def options(self, seat: int, stack: int) -> Options:
        """RIT-02: the run-it-twice question, nothing else."""
        return Options(seat, run_twice=True, stack=stack)

    def answer(self, seat: int, yes: bool, stack: int, *, timeout: bool) -> Acted:
        """RIT-02: one answer; a no (or a timeout) ends the question with one run."""
        if yes:
            self.ask.pop(0)
            if not self.ask:
                self.runs = 2
        else:
            self.ask = []
        return Acted(seat, "run_twice" if yes else "run_once", 0, stack,
                     timeout=timeout)  # an answer: no chip moves

    def showdown_twice(self, plans: tuple[StreetPlan, ...], dealing: Dealing,
                       result: Result, order: list[int], pots: list[Pot]) -> None:
        """RIT-03/RIT-04: the second run dealt; every hand still in shown (in ``order``);
        each of ``pots`` (the last round's) halved, each half won on its own board."""
        self.board2 = dealing.deal_again(plans[self.start:], self.shared)
        seats = dealing.seats
        live = seats.live
        variant, rules = result.variant, result.rules
        values = [{s: hand_value(variant, rules, seats.own[s], board) for s in live}
                  for board in (dealing.board, self.board2)]
        result.show_all(values[0], order)
        emit = dealing.emit
        pots = result.raked(pots)
        chip = rules.stakes.chip
        for run, vals in enumerate(values):
            for i, pot in enumerate(pots):
                amount = run_share(pot.amount, run, chip)
                if not amount:
                    continue
                top = max(vals[s] for s in pot.eligible)
                winners = [s for s in seats.order if s in pot.eligible and vals[s] == top]
                shares, odd = split_pot(amount, winners, chip=chip, hole_cards=seats.hole_cards)
                for s, won in shares.items():
                    seats.award(s, won)
                emit(PotAwarded(i, amount, shares, odd,
                                name_against(top, (vals[s] for s in pot.eligible)), run=run))
