"""Clocks for table actors: the real one (asyncio timers) and a fake one for tests.

Rule of this module: a table never reads time or sleeps by itself; it asks its
:class:`~server.table.api.Clock`. :class:`FakeClock` only moves when a test calls
:meth:`FakeClock.advance`, which runs every due callback in deadline order.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable

__all__ = ["AsyncioClock", "FakeClock"]


class _Handle:
    __slots__ = ("_handle",)

    def __init__(self, handle: asyncio.TimerHandle) -> None:
        self._handle = handle

    def cancel(self) -> None:
        self._handle.cancel()


class AsyncioClock:
    """``now``/``wall`` from the given functions; timers on the running event loop."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        self._monotonic = monotonic
        self._wall = wall

    def now(self) -> float:
        return self._monotonic()

    def wall(self) -> float:
        return self._wall()

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Handle:
        loop = asyncio.get_running_loop()
        return _Handle(loop.call_later(max(0.0, delay), callback))


class _FakeTimer:
    __slots__ = ("when", "callback", "cancelled")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock that stands still until :meth:`advance`. ``wall() = now() + epoch``."""

    def __init__(self, start: float = 1000.0, *, epoch: float = 1_700_000_000.0) -> None:
        self._now = start
        self._epoch = epoch
        self._heap: list[tuple[float, int, _FakeTimer]] = []
        self._counter = itertools.count()

    def now(self) -> float:
        return self._now

    def wall(self) -> float:
        return self._now + self._epoch

    def call_later(self, delay: float, callback: Callable[[], None]) -> _FakeTimer:
        timer = _FakeTimer(self._now + max(0.0, delay), callback)
        heapq.heappush(self._heap, (timer.when, next(self._counter), timer))
        return timer

    def advance(self, seconds: float) -> int:
        """Move time forward by ``seconds``, firing due timers in order; returns how many."""
        target = self._now + seconds
        fired = 0
        while self._heap and self._heap[0][0] <= target:
            when, _, timer = heapq.heappop(self._heap)
            if timer.cancelled:
                continue
            self._now = max(self._now, when)
            timer.callback()
            fired += 1
        self._now = target
        return fired

    def pending(self) -> list[float]:
        """Deadlines of live timers, soonest first."""
        return sorted(t.when for _, _, t in self._heap if not t.cancelled)
