"""A tournament's clock: running time without breaks' pauses or stops, and the level it gives.

Rule of this module: :class:`TournamentClock` is owned by one director and read and written
in its task; it counts the tournament's running seconds (stopped while nothing runs: before
the start, after the end, and across a restart, TOUR-15), asks the pure
:class:`~server.tournament.structure.LevelClock` which level or break that is, and wakes its
director (an inbox item) when the current level or break ends.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from server.tournament.structure import ClockState, LevelClock, Structure

__all__ = ["TournamentClock"]


class TournamentClock:
    """See the module docstring."""

    def __init__(self, structure: Structure, *, now: Callable[[], float],
                 call_later: Callable[[float, Callable[[], None]], Any],
                 wake: Callable[[], None]) -> None:
        self.levels = LevelClock(structure)
        self.now = now
        self.call_later = call_later
        self.wake = wake
        self.elapsed = 0.0  # running seconds before the last start
        self.ended: dict[int, float] = {}  # a level by hands -> the running time it ended
        self._since: float | None = None  # when it last started running
        self._timer: Any = None

    def start(self) -> None:
        self._since = self.now()
        self.arm()

    def stop(self) -> None:
        if self._since is not None:
            self.elapsed += self.now() - self._since
            self._since = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def running(self) -> float:
        return self.elapsed + (self.now() - self._since if self._since is not None else 0.0)

    def at(self) -> ClockState:
        return self.levels.at(self.running(), ended=self.ended)

    def left(self) -> float | None:
        """Seconds left in the level or break (None: a level counted in hands)."""
        left = self.at().left
        return round(left, 1) if math.isfinite(left) else None

    def end_level(self, level: int) -> None:
        """TOUR-05: a level by hands reached its count."""
        self.ended.setdefault(level, self.running())

    def arm(self) -> None:
        """Wake the director when the current level or break ends."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        st = self.at()
        if math.isfinite(st.left):
            self._timer = self.call_later(max(st.left, 0.0) + 1e-3, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self.wake()
