"""The in-process jackpot coordinator: one server process, every table on one event loop.

Same contract as the Redis one (:mod:`server.jackpot.base`, the contract tests run on both);
each method is one step without an ``await`` inside, so it is atomic on the loop.  The payout
arithmetic is :mod:`server.rules.caribbean_payout` itself.  ``now`` is the lease clock
(seconds; injectable for tests).

A new pool opens at the reset amount of the jackpot terms (CSP-08; each split pool at its
own, CSP-11), paid by the house: one ``seed`` history entry per pool, which the service books
in the ledger (``jackpot:house`` -> ``jackpot:pool``).  With a ``file``
(:class:`~server.jackpot.durable.PoolFile`, the embedded server's data dir) the pools survive
restarts: :meth:`MemoryCoordinator.load` reads them back (and opens the pool only if the file
never held one), every step queues its changes to the file in order, and
:meth:`MemoryCoordinator.synced` waits until they are committed (the async contract methods
return only then).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from server.jackpot.base import Claim, HistoryEntry, Payout, PoolState, opening
from server.jackpot.durable import Delta, PoolFile
from server.jackpot.pool_log import PoolLog
from server.rules.caribbean_payout import (
    MINOR_KEYS,
    CaribbeanSettings,
    Contribution,
    JackpotClaim,
    PoolOutcome,
    jackpot_payouts,
    split_jackpot_payouts,
)

__all__ = ["MemoryCoordinator"]


@dataclass
class _Report:
    owner: str
    table: str
    settings: CaribbeanSettings
    claims: list[Claim] = field(default_factory=list)


TOTALS = ("contributed", "paid", "seeded", "house")


class MemoryCoordinator:
    """See :class:`server.jackpot.base.Coordinator`.  The pools open at ``terms``' reset
    amounts (CSP-08; :func:`~server.jackpot.base.opening`); ``seed`` / ``minor_seed``, when
    given, replace them.  Each opening amount is booked as a ``seed`` history entry.
    ``file``: where the state survives restarts (module docstring; call :meth:`load` before
    anything else); without one the pools open at once."""

    def __init__(self, *, lease: float = 3.0, seed: int | None = None,
                 minor_seed: int | None = None, terms: CaribbeanSettings | None = None,
                 now: Callable[[], float] = time.time, file: PoolFile | None = None) -> None:
        self.lease = lease
        self._now = now
        major_open, minor_open = opening(terms)
        self._opening = (major_open if seed is None else seed,
                         minor_open if minor_seed is None else minor_seed)
        self.file = file
        self._delta = Delta()
        self._write: asyncio.Future[None] | None = None
        self._loaded = file is None
        self.minor = 0
        self.major = 0
        self.split = False
        self.contributed = self.paid = self.seeded = self.house = 0
        self._seq = 0
        self._tickets: dict[str, int] = {}
        self._pending: dict[int, str] = {}  # ticket -> hand, in ticket order
        self._lease: dict[str, float] = {}
        self._reports: dict[str, _Report] = {}
        self._done: set[str] = set()
        self._contrib: set[str] = set()
        self._due: dict[str, Payout] = {}
        self._credited: set[str] = set()
        self.log = PoolLog(now, self._get)  # the pool's history (read it: ``history``)
        self._opened = False
        if file is None:
            self._open_pools()

    # ---------------------------------------------------------------- opening, durability
    def _open_pools(self) -> None:
        """CSP-08: a new pool opens at its reset amount, paid by the house (once: the
        ``opened`` flag is stored with it)."""
        for pool, amount in (("major", self._opening[0]), ("minor", self._opening[1])):
            if amount:
                self._set(pool, amount)
                self.seeded += amount
                self.house -= amount
                self.log.add("seed", "", "", pool, amount)
        if self._opening[1]:
            self.split = True  # CSP-11: the meters show both pools from the start
        self._opened = True
        self._commit()

    async def load(self) -> None:
        """Read the state back from ``file`` (nothing without one; once).  A file that never
        held a pool gets one now, opened at the reset amounts; a file that did keeps its
        pools as they were (CSP-08: no second seed after a restart)."""
        if self._loaded or self.file is None:
            return
        saved = await self.file.load()
        self._loaded = True
        v = saved.values
        if not v.get("opened"):
            self._open_pools()
            await self.synced()
            return
        self.minor, self.major, self.split = v.get("minor", 0), v.get("major", 0), \
            bool(v.get("split", 0))
        self.contributed, self.paid, self.seeded, self.house = (v.get(t, 0) for t in TOTALS)
        self._opened = True
        self._contrib.update(saved.contrib)
        self._done.update(saved.done)
        for text in saved.due:
            p = Payout.from_json(text)
            self._due[p.key] = p
        self.log.restore(saved.history)

    def _commit(self) -> None:
        """Queue this step's changes to the file (in order; no ``await``)."""
        if self.file is None or not self._loaded:
            self._delta = Delta()
            self.log.unsaved()
            return
        d, self._delta = self._delta, Delta()
        d.history = self.log.unsaved()
        d.values = {"minor": self.minor, "major": self.major, "split": int(self.split),
                    "opened": int(self._opened), "contributed": self.contributed,
                    "paid": self.paid, "seeded": self.seeded, "house": self.house}
        self._write = self.file.write(d)

    async def synced(self) -> None:
        """Wait until every change so far is committed to the file (at once without one)."""
        if self._write is not None:
            await asyncio.shield(self._write)

    @property
    def durable(self) -> bool:
        """Whether the state survives a restart (it has a file)."""
        return self.file is not None

    def set_pool(self, major: int) -> None:
        """Set the (major) pool, the house paying the difference or taking it back (a test
        and operator knob: the totals stay balanced; no history entry, nothing booked)."""
        diff = major - self.major
        self.major = major
        self.seeded += diff
        self.house -= diff
        self._commit()

    # ---------------------------------------------------------------- helpers
    def _get(self, pool: str) -> int:
        return self.minor if pool == "minor" else self.major

    def _set(self, pool: str, amount: int) -> None:
        if pool == "minor":
            self.minor = amount
        else:
            self.major = amount

    # ---------------------------------------------------------------- contract
    async def register(self, hand: str, *, owner: str) -> int:
        return self.register_now(hand, owner=owner)

    async def renew(self, hands: Sequence[str]) -> None:
        self.renew_now(hands)

    async def report(self, hand: str, *, owner: str, table: str, settings: CaribbeanSettings,
                     contributions: Sequence[Contribution], claims: Sequence[Claim]
                     ) -> list[Payout]:
        paid = self.report_now(hand, owner=owner, table=table, settings=settings,
                               contributions=contributions, claims=claims)
        await self.synced()
        return paid

    async def advance(self) -> list[Payout]:
        paid = self.advance_now()
        await self.synced()
        return paid

    # the same steps, synchronous (the in-process service calls these directly)
    def register_now(self, hand: str, *, owner: str) -> int:
        if hand in self._tickets:
            return self._tickets[hand]
        self._seq += 1
        self._tickets[hand] = self._seq
        self._pending[self._seq] = hand
        self._lease[hand] = self._now() + self.lease
        return self._seq

    def renew_now(self, hands: Sequence[str]) -> None:
        until = self._now() + self.lease
        for hand in hands:
            if hand in self._lease:
                self._lease[hand] = until

    def report_now(self, hand: str, *, owner: str, table: str, settings: CaribbeanSettings,
                   contributions: Sequence[Contribution], claims: Sequence[Claim]
                   ) -> list[Payout]:
        cap = settings.max_pool
        for c in contributions:
            if c.key in self._contrib:
                continue
            self._contrib.add(c.key)
            self._delta.contrib.append(c.key)
            # the operator's ceiling (GEN-10): what would pass it goes to the house instead
            to_minor, over_minor = _within(self.minor, c.to_minor, cap)
            to_major, over_major = _within(self.major, c.to_major, cap)
            if c.to_minor:
                self.split = True
                self.minor += to_minor
                self.log.add("contribution", c.round_id, c.key, "minor", to_minor)
            self.major += to_major
            self.log.add("contribution", c.round_id, c.key, "major", to_major)
            for pool, over in (("minor", over_minor), ("major", over_major)):
                if over:
                    self.log.add("overflow", c.round_id, c.key, pool, over)
            self.contributed += to_minor + to_major
            self.house += c.to_house + over_minor + over_major
        if settings.split_pools:
            self.split = True
        if hand not in self._done and hand not in self._reports:
            ticket = self._tickets.get(hand)
            if (ticket is None or ticket not in self._pending) and not claims:
                self._done.add(hand)  # unregistered or expired, nothing to pay: done
                self._delta.done.append(hand)
                return self._advance()
            if ticket is None or ticket not in self._pending:  # never registered, or expired
                self._seq += 1
                self._tickets[hand] = self._seq
                self._pending[self._seq] = hand
                self.log.add("late", hand, "", "", 0)
            self._lease.pop(hand, None)
            self._reports[hand] = _Report(owner, table, settings, list(claims))
        return self._advance()

    def advance_now(self) -> list[Payout]:
        return self._advance()


    def _advance(self) -> list[Payout]:
        """Pay the reported hands at the head of the queue, in ticket order, up to the first
        one still open within its lease (an expired one is given up); then commit the step."""
        out: list[Payout] = []
        now = self._now()
        while self._pending:
            ticket, hand = next(iter(self._pending.items()))
            report = self._reports.pop(hand, None)
            if report is None:
                if self._lease.get(hand, 0.0) > now:
                    break
                self._lease.pop(hand, None)
                self.log.add("expired", hand, "", "", 0)
            else:
                self._done.add(hand)
                self._delta.done.append(hand)
                if report.claims:
                    out.extend(self._pay(ticket, hand, report))
            del self._pending[ticket]
        self._commit()  # the end of every step: queue its changes to the file
        return out

    def _pay(self, ticket: int, hand: str, r: _Report) -> list[Payout]:
        s = r.settings
        jclaims = [JackpotClaim(hand, c.seat, c.kind, c.eligible_at, "shoe") for c in r.claims]
        outcomes: list[tuple[str, PoolOutcome]]
        if s.split_pools:
            sp = split_jackpot_payouts(self.minor, self.major, jclaims, s)
            amounts, outcomes = sp.payouts, [("minor", sp.minor), ("major", sp.major)]
        else:
            jp = jackpot_payouts(self.major, jclaims, s)
            amounts, outcomes = jp.payouts, [("major", jp.pool)]
        payouts: list[Payout] = []
        for c in sorted(r.claims, key=lambda c: (c.eligible_at, c.seat)):
            p = Payout(c.key, hand, c.seat, c.player, r.owner, r.table, c.kind,
                       amounts[c.seat], ticket)
            pool = "minor" if s.split_pools and c.kind in MINOR_KEYS else "major"
            payouts.append(p)
            self._due[p.key] = p
            self._delta.due.append((p.key, p.to_json()))
            self.paid += p.amount
            self.log.add("payout", hand, p.key, pool, p.amount,
                         after=outcomes_after(outcomes, pool))
        for pool, o in outcomes:
            self._set(pool, o.after - o.seed)
            if o.house_shortfall:
                self.log.add("shortfall", hand, "", pool, o.house_shortfall)
            self._set(pool, o.after)
            if o.seed:
                self.log.add("reseed", hand, "", pool, o.seed)
            self.seeded += o.house_shortfall + o.seed
            self.house -= o.house_shortfall + o.seed
        return payouts

    async def state(self) -> PoolState:
        return PoolState(self.minor, self.major, self.split, self.contributed, self.paid,
                         self.seeded, self.house)

    async def due(self, owner: str | None = None) -> list[Payout]:
        return [p for p in self._due.values() if owner is None or p.owner == owner]

    async def credited(self, key: str) -> None:
        if self._due.pop(key, None) is not None:
            self._credited.add(key)
            self._delta.due_closed.append(key)
            self._commit()
        await self.synced()

    async def history(self, start: int = 0, count: int = 1000) -> list[HistoryEntry]:
        return self.log.since(start, count)

    async def close(self) -> None:
        """Wait for the file's last writes, then close it."""
        if self.file is not None:
            try:
                await self.synced()
            finally:
                await self.file.close()


def _within(pool: int, amount: int, cap: int) -> tuple[int, int]:
    """``(added, overflow)`` of ``amount`` going into ``pool`` under the ceiling ``cap``
    (0: none): the pool never passes the ceiling; the overflow is the house's."""
    if cap <= 0 or pool + amount <= cap:
        return amount, 0
    added = max(0, cap - pool)
    return added, amount - added


def outcomes_after(outcomes: list[tuple[str, PoolOutcome]], pool: str) -> int:
    """The pool after the round's payouts, before its reseed."""
    for name, o in outcomes:
        if name == pool:
            return o.after - o.seed
    raise KeyError(pool)
