"""What the load tester counts: a run's counters and samples (:class:`Stats`) and, per table,
the hands counted and the pairing of players' and spectators' receipt times of each event
(:class:`TableTrack`, the spectator lag).

Rule of this module: one event loop owns these (no locks); the bots and spectators of
:mod:`server.loadtest.bots` (their connections: :mod:`server.loadtest.follow`) write them,
:mod:`server.loadtest.report` reads them.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable

from .report import Second

__all__ = ["LAG_WINDOW", "Stats", "TableTrack"]

Clock = Callable[[], float]

#: Table events remembered per table for the spectator-lag pairing.
LAG_WINDOW = 4096


class Stats:
    """Counters and samples shared by every client of one run (one event loop, no locks).

    ``begin()`` zeroes the counters and starts the measured window; samples are also kept
    per second of the window (``seconds``) for the plots.
    """

    def __init__(self, clock: Clock = time.perf_counter) -> None:
        self.clock = clock
        self.begin()
        self.measuring = False

    def begin(self) -> None:
        self.start = self.clock()
        self.end: float | None = None
        self.measuring = True
        self.latencies: list[float] = []
        self.lags: list[float] = []
        self.errors: Counter[str] = Counter()
        self.hands = self.actions = self.frames_in = self.frames_out = 0
        self.disconnects = self.reconnects = 0
        # `moved` followed: an answer (a cluster sends a client to the owner) or pushed (a
        # table changed process); a reconnection after a drop is a disconnect + reconnect
        self.moves = 0
        self.seconds: dict[int, Second] = {}
        self.second_latencies: dict[int, list[float]] = {}

    def stop(self) -> None:
        self.end = self.clock()

    def elapsed(self) -> float:
        return (self.end if self.end is not None else self.clock()) - self.start

    def second(self, now: float) -> Second:
        t = int(now - self.start)
        sec = self.seconds.get(t)
        if sec is None:
            sec = self.seconds[t] = Second(t=t)
        return sec

    def latency(self, value: float, now: float) -> None:
        self.latencies.append(value)
        t = int(now - self.start)
        self.second_latencies.setdefault(t, []).append(value)
        self.actions += 1
        self.second(now).actions += 1

    def error(self, code: str, now: float) -> None:
        self.errors[code] += 1
        self.second(now).errors += 1


class TableTrack:
    """Per table: which hands were counted, and the pairing of players' and spectators'
    receipt times of each event (spectator lag)."""

    def __init__(self, table_id: str, stats: Stats) -> None:
        self.table_id = table_id
        self.stats = stats
        self.last_hand_seq = 0
        self._player_t: dict[int, float] = {}
        self._spectator_wait: dict[int, list[float]] = {}

    def hand_ended(self, seq: int, now: float) -> None:
        if seq > self.last_hand_seq:
            self.last_hand_seq = seq
            if self.stats.measuring:
                self.stats.hands += 1
                self.stats.second(now).hands += 1

    def player_saw(self, seq: int, now: float) -> None:
        seen = self._player_t
        if seq in seen:
            return
        seen[seq] = now
        waiting = self._spectator_wait.pop(seq, None)
        if waiting:
            self.stats.lags.extend(t - now for t in waiting)
        if len(seen) > LAG_WINDOW:
            for old in list(itertools.islice(seen, len(seen) - LAG_WINDOW // 2)):
                del seen[old]

    def spectator_saw(self, seq: int, now: float) -> None:
        first = self._player_t.get(seq)
        if first is not None:
            self.stats.lags.append(now - first)
            return
        self._spectator_wait.setdefault(seq, []).append(now)
        if len(self._spectator_wait) > LAG_WINDOW:
            for old in list(itertools.islice(self._spectator_wait, LAG_WINDOW // 2)):
                del self._spectator_wait[old]
