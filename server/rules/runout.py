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
"""

from __future__ import annotations

from server.rules.evaluate import name_against
from server.rules.events import Acted, BoardDealt, PotAwarded, Showdown
from server.rules.pots import build_pots, split_pot
from server.rules.state import HandState
from server.rules.variant import BOARD, hand_value


def run_share(amount: int, run: int, chip: int) -> int:
    """RIT-04: the part of a pot of ``amount`` chips that run ``run`` (0 or 1) is played for:
    half each down to ``chip``, the first run taking the odd chip(s)."""
    units, loose = divmod(amount, chip)
    second = (units // 2) * chip
    return second if run == 1 else amount - second


class RunoutMixin(HandState):
    """Run-it-twice behaviour of :class:`~server.rules.hand.Hand`."""

    def _init_runout(self) -> None:
        self.runs = 1
        self.runout_ask: list[int] = []  # RIT-02: the seats still to answer, in order
        self.runout_next = False  # every answer is in: deal the next street
        self.runout_from = 0  # the first street dealt twice
        self.runout_board = 0  # the board cards both runs share
        self.board2: list[str] = []
        self.show_ask: int | None = None  # SHOWWIN-01 (its question lives in showdown.py)

    def _ask_runout(self) -> bool:
        """RIT-01: open the question (True) when the house rule is on, it was not asked yet,
        nobody can bet any more and only board cards are still to come, with enough cards."""
        if not self.rules.run_twice or self.runout_from:  # off, or asked once already
            return False
        if sum(1 for s in self._live if self.stacks[s] > 0) > 1:
            return False
        rest = self.variant.streets[self.street + 1:]
        if any(st.draw or any(kind != BOARD for kind, _ in st.deal) for st in rest):
            return False
        need = sum(int(st.burn) + sum(n for _, n in st.deal) for st in rest)
        if self._left() < 2 * need:
            return False
        self.runout_from = self.street + 1
        self.runout_board = len(self.board)
        self.runout_ask = list(self._live)
        self.runout_next = True
        return True

    def _answer_runout(self, seat: int, yes: bool, *, timeout: bool) -> None:
        """RIT-02: one answer; a no (or a timeout) ends the question with one run."""
        self.to_act = None
        self._emit(Acted(seat, "run_twice" if yes else "run_once", 0, self.stacks[seat],
                         timeout=timeout))  # an answer: no chip moves
        if yes:
            self.runout_ask.pop(0)
            if not self.runout_ask:
                self.runs = 2
        else:
            self.runout_ask = []

    def _deal_second_run(self) -> None:
        """RIT-03: the streets from ``runout_from`` dealt again, burns included."""
        self.board2 = self.board[:self.runout_board]
        for street in self.variant.streets[self.runout_from:]:
            if street.burn:
                self._burn()
            for _, n in street.deal:
                got = [self._take() for _ in range(n)]
                self.board2.extend(c for c, _ in got)
                self._emit(BoardDealt(tuple(c for c, _ in got), tuple(self.board2),
                                      tuple(p for _, p in got), run=1))

    def _showdown_twice(self) -> None:
        """RIT-03/RIT-04: every hand still in shown; each pot halved, each half won on its
        own board."""
        self._deal_second_run()
        live = self._live
        values = [{s: hand_value(self.variant, self.rules, self.own[s], board) for s in live}
                  for board in (self.board, self.board2)]
        self.values = values[0]
        for s in self._show_order():
            self.shown.append(s)
            v = values[0][s]  # SHOW-04: named against the others (every hand is shown)
            self._emit(Showdown(s, tuple(self.own[s]), name_against(v, values[0].values()),
                                tuple(v.cards)))
        pots = self._raked(build_pots(self.contrib, live))
        chip = self.stakes.chip
        for run, vals in enumerate(values):
            for i, pot in enumerate(pots):
                amount = run_share(pot.amount, run, chip)
                if not amount:
                    continue
                top = max(vals[s] for s in pot.eligible)
                winners = [s for s in self.order if s in pot.eligible and vals[s] == top]
                shares, odd = split_pot(amount, winners, chip=chip, hole_cards=self.hole_cards)
                for s, won in shares.items():
                    self.stacks[s] += won
                self._emit(PotAwarded(i, amount, shares, odd,
                                      name_against(top, (vals[s] for s in pot.eligible)),
                                      run=run))
        self._finish()
