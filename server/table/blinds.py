"""GEN-05's dead-button state: where the button and the blinds were last hand, and where they
go next (:mod:`server.rules.button`), with the waiting-for-the-big-blind marks of the seats.

Rule of this module: :class:`BlindPlan` owns ``positions``; the actor asks it once per hand
(:meth:`BlindPlan.place`) and nothing else writes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from server.rules.button import Positions, first_positions, next_positions
from server.table.seatmap import SeatState
from server.table.settings import PotSpec

__all__ = ["BlindPlan"]


class BlindPlan:
    """The button and blinds of a pot-game table (see the module docstring)."""

    def __init__(self, spec: PotSpec) -> None:
        self.spec = spec
        self.positions: Positions | None = None  # the last hand's button and blinds
        # a tournament table's TOUR-09 (server.table.tourney.TourneyDesk.waits): everyone is
        # dealt in at once but a newcomer between the small blind and the button
        self.waits: Callable[[SeatState, int, int, Sequence[int | None], int], bool] | None
        self.waits = None

    def place(self, seats: Sequence[SeatState | None], players: list[int]
              ) -> tuple[int, tuple[int | None, ...] | None, list[int], list[int]]:
        """GEN-05 for the next hand: its button, the seat posting each blind (None: dead),
        its players and those who post a big blind to come in at once.

        The big blind moves one player each hand (:func:`server.rules.button.next_positions`);
        a player waiting for it (new at the table, or back after missing it) plays only when
        it reaches them, or at once by posting a big blind (``post_to_enter``).
        """
        n_seats = self.spec.seats
        hu = self.spec.rules.heads_up_button_first_blind
        n_blinds = len(self.spec.rules.stakes.blinds)
        if not self.spec.uses_blinds:  # stud: the button only orders the deal
            prev = self.positions
            button = (max(players) if prev is None
                      else next_positions(prev, players, n_seats).button)
            self.positions = Positions(button, ())
            return button, None, players, []
        if self.positions is None or not self.positions.blinds:  # (or after a stud level
            # of a tournament's mixed rotation, TOUR-05: the blinds start again)
            pos = first_positions(players, n_blinds, n_seats, heads_up_button_first_blind=hu)
            for s in players:  # the first hand deals everyone in
                seats[s].wait_for_bb = False  # type: ignore[union-attr]
                seats[s].post_bb = False  # type: ignore[union-attr]
        else:
            pos = next_positions(self.positions, players, n_seats,
                                 heads_up_button_first_blind=hu)
            self._mark_missed(seats, self.positions.blinds[-1], pos.blinds[-1])
        big = pos.blinds[-1]
        waits = self.waits
        if waits is not None:
            playing = [s for s in players if not waits(
                seats[s], s, pos.button, pos.blinds, n_seats)]  # type: ignore[arg-type]
        else:
            playing = [s for s in players
                       if s == big or not seats[s].wait_for_bb  # type: ignore[union-attr]
                       or seats[s].post_bb]  # type: ignore[union-attr]
        if len(playing) < 2:  # nobody else in: the waiting players come in now
            playing = list(players)
        posting = pos.posting(playing)
        if sum(b is not None for b in posting) < 1 or len(playing) < n_blinds:
            pos = first_positions(playing, n_blinds, n_seats, heads_up_button_first_blind=hu)
            posting = pos.posting(playing)
        entry = [s for s in playing if s not in posting
                 and seats[s].wait_for_bb and seats[s].post_bb]  # type: ignore[union-attr]
        for s in playing:
            seats[s].wait_for_bb = False  # type: ignore[union-attr]
            seats[s].post_bb = False  # type: ignore[union-attr]
        self.positions = pos
        return pos.button, posting, playing, entry

    def _mark_missed(self, seats: Sequence[SeatState | None], old_big: int, new_big: int) -> None:
        """GEN-05: a player sitting out whom the big blind passed waits for it on return."""
        n = self.spec.seats
        step = (old_big + 1) % n
        while step != new_big:
            st = seats[step]
            if st is not None and st.sitting_out:
                st.wait_for_bb = True
            step = (step + 1) % n
