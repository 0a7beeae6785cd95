"""The jackpot meter: every change of the pool to every connection of this process.

:class:`Meter` holds the latest :class:`~server.jackpot.base.PoolState` and calls its
listeners (the edge's broadcast) with a ``jackpot`` message.  Changes are coalesced: the first
change after a quiet ``interval`` goes out at once, later ones within the interval are folded
into one message at its end (the latest pools; a payout's table is kept), so a busy cluster
cannot flood the connections and every change still shows within ``interval`` (< 1 s).

With the in-process coordinator the service updates the meter directly; with Redis every
process follows the coordinator's pub/sub channel (:func:`follow`), so a change made by any
process reaches every connection of every process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from protocol import messages as m
from protocol.constants import MAX_SAFE_INT
from server.jackpot.base import PoolState

__all__ = ["Meter", "follow"]

log = logging.getLogger("server.jackpot.meter")

Listener = Callable[[dict[str, Any]], None]


class Meter:
    def __init__(self, *, interval: float = 0.25) -> None:
        self.interval = interval
        self.state = PoolState(0, 0, False)
        self.listeners: list[Listener] = []
        self.sent = 0
        self._table: str | None = None
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None

    def message(self, table: str | None = None) -> dict[str, Any]:
        """The ``jackpot`` message of the current pools (docs/protocol.md)."""
        s = self.state
        if s.split:
            return m.jackpot(pool=s.pool, minor=s.minor, major=s.major, table=table)
        return m.jackpot(pool=s.major, table=table)

    def lobby(self) -> dict[str, int]:
        """The pools for the lobby's ``tables`` answer."""
        s = self.state
        return ({"pool": s.pool, "minor": s.minor, "major": s.major} if s.split
                else {"pool": s.major})

    def update(self, state: PoolState, table: str | None = None) -> None:
        """A new pool state (``table``: where a payout happened, if one did).  A pool beyond
        what JSON and MessagePack carry (2**53 - 1: a store written before the operator's
        ``max_pool`` ceiling) is shown at that bound, so the meter never freezes."""
        minor, major = _shown(state.minor), _shown(state.major)
        if (minor, major) != (state.minor, state.major) or minor + major > MAX_SAFE_INT:
            log.warning("event=jackpot_pool_beyond_wire minor=%d major=%d", state.minor,
                        state.major)
            minor = min(minor, MAX_SAFE_INT - major)
        self.state = PoolState(minor, major, state.split or self.state.split)
        self._table = table or self._table
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._flush()
            return
        wait = self._last + self.interval - loop.time()
        if wait <= 0:
            self._flush()
        else:
            self._timer = loop.call_later(wait, self._flush)

    def _flush(self) -> None:
        self._timer = None
        with contextlib.suppress(RuntimeError):
            self._last = asyncio.get_running_loop().time()
        msg = self.message(self._table)
        self._table = None
        self.sent += 1
        for listener in list(self.listeners):
            try:
                listener(msg)
            except Exception:  # a listener is the edge's; never stop the meter for it
                log.exception("event=jackpot_listener_failed")

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _shown(amount: int) -> int:
    return max(0, min(int(amount), MAX_SAFE_INT))


async def follow(changes: AsyncIterator[tuple[PoolState, str | None]], meter: Meter) -> None:
    """Feed ``meter`` from a coordinator's change stream until cancelled."""
    async for state, table in changes:
        meter.update(state, table)
