"""What the jackpot service writes to the chip ledger (:mod:`server.jackpot.service`): the
house-funded pool events of the coordinator's history (seeds, reseeds, shortfalls) and the
overflows above the ceiling, each under an idempotency key, and the deletion of the outbox
records of reports once booked.

Rule of this module: every write is idempotent (a key per hand, pool and kind; a deleted
record stays deleted), so a retry after any crash changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from server.jackpot.base import Coordinator
from server.jackpot.memory import MemoryCoordinator

__all__ = ["POOL_EVENTS", "PoolBookings"]

log = logging.getLogger("server.jackpot")

POOL_EVENTS = ("seed", "reseed", "shortfall")
"""History entries funded by the house (booked ``jackpot:house`` -> ``jackpot:pool``): the
opening seed of each pool (CSP-08, key ``jackpot:seed::<pool>``), reseeds and shortfalls."""


class PoolBookings:
    """The ledger side of one service: how far the pool's history has been booked.  Each
    call takes the ledger as it is then (the registry may attach one after construction)."""

    def __init__(self) -> None:
        self.history_at = 0  # pool history read up to here (reseeds, shortfalls)

    async def book_pool_events(self, ledger: Any | None, coord: Coordinator | None) -> None:
        """Book every reseed and house shortfall of the pool's history not read yet in the
        ledger, ``jackpot:house`` -> ``jackpot:pool`` (idempotent per hand, pool and kind)."""
        if ledger is None or not hasattr(ledger, "transfer") or coord is None:
            return
        from server.ledger.journal import JACKPOT_HOUSE, JACKPOT_POOL

        while True:
            entries = await coord.history(self.history_at, 1000)
            for e in entries:
                if e.kind in POOL_EVENTS and e.amount > 0:
                    await ledger.transfer(
                        JACKPOT_HOUSE, JACKPOT_POOL, e.amount, reason=f"jackpot_{e.kind}",
                        key=f"jackpot:{e.kind}:{e.hand}:{e.pool}")
                elif e.kind == "overflow" and e.amount > 0:  # above the ceiling: the house's
                    await ledger.transfer(
                        JACKPOT_POOL, JACKPOT_HOUSE, e.amount, reason="jackpot_overflow",
                        key=f"jackpot:overflow:{e.key}:{e.pool}")
            self.history_at += len(entries)
            if len(entries) < 1000:
                return

    async def book_overflow(self, ledger: Any | None, coord: Coordinator | None) -> None:
        """:meth:`book_pool_events`, a failure logged (booked at the next payout or start)."""
        try:
            await self.book_pool_events(ledger, coord)
        except Exception:  # booked at the next payout or start (idempotent keys)
            log.exception("event=jackpot_overflow_booking_failed")

    async def outbox_done(self, ledger: Any | None, keys: Sequence[str | None]) -> None:
        """Booked: delete their outbox records (one left by a failure here is replayed at
        the next start, which changes nothing: reports are idempotent)."""
        for key in keys:
            if key is not None and ledger is not None:
                try:
                    await ledger.outbox_done(key)
                except Exception as exc:
                    log.warning("event=jackpot_outbox_delete_failed key=%s error=%r",
                                key, exc)

    async def outbox_synced(self, ledger: Any | None, mem: MemoryCoordinator, key: str) -> None:
        """In-process with a file: delete the record once the coordinator's change is
        committed to its file."""
        try:
            await mem.synced()
            await self.outbox_done(ledger, [key])
        except Exception:  # the record stays: replayed (idempotent) at the next start
            log.exception("event=jackpot_outbox_sync_failed key=%s", key)
