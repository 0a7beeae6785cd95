"""Numbers never handed out twice: table ids (``t17``) and hand numbers (``t17.40213``).

Rule of this module: a number comes from a durable counter in the ledger store
(:meth:`server.ledger.store.Store.reserve_ids`: the embedded SQLite store keeps it in its
file, the Redis store in one key that every process sharing it advances atomically), so it is
unique for ever: across restarts of the process and across processes sharing a store. The
counter is advanced a block at a time and the block is handed out from memory; the next block
is fetched in the background when the current one runs low, so a hand start (or a table
creation, which is synchronous) never waits on the store unless a whole block went in less
time than one store round trip. Numbers left in a block when the process stops are never
used: ids are unique, not dense.

Without a store (:class:`IdBlocks` with ``store=None``: table tests, tools) the numbers come
from a counter in memory, unique within the process only.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

__all__ = ["HAND_BLOCK", "HANDS", "IdBlocks", "IdsExhausted", "Reserver", "TABLES",
           "TABLE_BLOCK"]

log = logging.getLogger("server.ledger.ids")

TABLES = "table"
"""The counter of table ids (``t<n>``)."""
HANDS = "hand"
"""The counter of hand numbers (the hand id is ``<table id>.<n>``; its export number ``n``)."""
TABLE_BLOCK = 32
HAND_BLOCK = 1000
"""Numbers reserved per store round trip (about four seconds of hands at 250 hands/s)."""


class Reserver(Protocol):
    async def reserve_ids(self, name: str, count: int) -> int:
        """Advance counter ``name`` by ``count``; return its new value (the block is
        ``value - count + 1 .. value``)."""
        ...


class IdsExhausted(RuntimeError):
    """No number is at hand and the caller cannot wait (a synchronous :meth:`IdBlocks.take`
    before :meth:`IdBlocks.prime`, or a block used up faster than the store answers)."""


class IdBlocks:
    """Numbers from counter ``name`` of ``store`` (see the module docstring).

    ``block``: numbers per reservation; the next block is fetched once fewer than ``low``
    (default half a block) are left in hand.
    """

    def __init__(self, store: Reserver | None, name: str, *, block: int = HAND_BLOCK,
                 low: int | None = None) -> None:
        if block < 1:
            raise ValueError("block must be at least 1")
        self.store = store
        self.name = name
        self.block = block
        self.low = block // 2 if low is None else low
        self._blocks: list[list[int]] = []  # [next, last] of each block in hand, in order
        self._fetch: asyncio.Task[None] | None = None
        self.reservations = 0  # store round trips so far (tests, logs)
        if store is None:
            self._blocks.append([1, 2**62])

    # ------------------------------------------------------------------ handing out
    def left(self) -> int:
        """Numbers in hand."""
        return sum(last - nxt + 1 for nxt, last in self._blocks)

    def take(self) -> int:
        """The next number, from memory (synchronous); raises :class:`IdsExhausted` when
        none is in hand (a fetch is under way then)."""
        while self._blocks and self._blocks[0][0] > self._blocks[0][1]:
            self._blocks.pop(0)
        if not self._blocks:
            self._refill()
            raise IdsExhausted(f"no {self.name} id in hand (the store has not answered yet)")
        current = self._blocks[0]
        n = current[0]
        current[0] += 1
        if self.left() < self.low:
            self._refill()
        return n

    async def next(self) -> int:
        """The next number; waits on the store only when none is in hand (for the fetch
        under way, or, if that failed, for a reservation of its own, which raises when the
        store does)."""
        try:
            return self.take()
        except IdsExhausted:
            pass
        fetch = self._fetch
        if fetch is not None:
            await asyncio.shield(fetch)  # never raises (see ``_background``)
            try:
                return self.take()
            except IdsExhausted:
                pass
        await self._reserve()
        return self.take()

    async def prime(self) -> None:
        """Reserve the first block now (start-up, once the store is open)."""
        if self.store is not None and self.left() < max(self.low, 1):
            await self._reserve()

    # ------------------------------------------------------------------ the store
    def _refill(self) -> None:
        if self.store is None or self._fetch is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: the next await of ``next`` or ``prime`` fetches
            return
        self._fetch = loop.create_task(self._background(), name=f"ids:{self.name}")

    async def _background(self) -> None:
        try:
            await self._reserve()
        except Exception:  # logged; the next ``next`` tries again, a ``take`` refuses
            log.exception("event=id_reserve_failed counter=%s", self.name)
        finally:
            self._fetch = None

    async def _reserve(self) -> None:
        assert self.store is not None
        last = int(await self.store.reserve_ids(self.name, self.block))
        self.reservations += 1
        self._blocks.append([last - self.block + 1, last])
        log.debug("event=ids_reserved counter=%s first=%d last=%d", self.name,
                  last - self.block + 1, last)
