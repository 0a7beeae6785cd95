"""One server process's jackpot client: what its Caribbean tables call.

Tables call two synchronous methods and never wait for the coordinator:

- :meth:`JackpotService.hand_eligible` when a round's cards are dealt (CSP-10: the deal is one
  step in this server, so a shoe's first card and a shuffler's last card leave at the same
  moment; the table registers the round then);
- :meth:`JackpotService.hand_settled` with its contributions and qualifying hands.

With the in-process coordinator both are applied at once (atomic on the loop).  With Redis they
go through one FIFO worker per process (registration before report, and this process's hands
in their order), retried until Redis answers (every script is idempotent).  While a hand is
open its lease is renewed every ``lease / 3`` seconds; while this process has claims waiting
(or hands of its own are open) it asks the coordinator to ``advance`` at the same pace, so a
dead table elsewhere blocks it no longer than its lease plus one tick.

Payouts go to the player's account through :func:`credit_payout`, with the claim key as the
idempotency key, then the payout record is closed; records still due (a crash between claim
and credit) are swept at start and on every tick, so each payout is credited exactly once.

With a ``ledger`` (the server's :class:`~server.ledger.journal.Ledger`) and the table's ledger
hand id, a settled round also rides on the table's hand-result batch
(:meth:`~server.ledger.journal.Ledger.attach`): the house share of its wagers moves from
``jackpot:pool`` to ``jackpot:house``, and (Redis) its report is written to the ledger's outbox
in that same atomic batch and queued for the coordinator only once the batch is durable; the
record is deleted once the coordinator booked the report, and records left by a crash are
replayed at :meth:`JackpotService.start` (a report is idempotent per round key): every wager
reaches the pool exactly once (CSP-12).  The in-process coordinator with a file (the embedded
server, :mod:`server.jackpot.durable`) takes the same path: its report is applied once the hand
batch is durable and its record deleted once the coordinator's change is committed to its
file.  The pools' opening seeds (CSP-08), reseeds and house shortfalls found in the pool's
history are booked ``jackpot:house`` -> ``jackpot:pool`` (key ``jackpot:<kind>:<hand>:<pool>``;
the opening seed ``jackpot:seed::<pool>``) at start and before the payouts they fund are
credited, each once whatever restarts happen, so the ledger's ``jackpot:pool`` follows the
coordinator's pools.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from server.jackpot.base import Claim, Coordinator, Payout, PoolState
from server.jackpot.bookings import POOL_EVENTS, PoolBookings
from server.jackpot.memory import MemoryCoordinator
from server.jackpot.meter import Meter, follow
from server.rules.caribbean_payout import (
    CaribbeanSettings,
    Contribution,
    JackpotSchedule,
    PaySchedule,
)

__all__ = ["POOL_EVENTS", "CreditFn", "JackpotService", "credit_payout"]

log = logging.getLogger("server.jackpot")

BATCH = 200
"""Most registrations and reports sent in one script."""

OUTBOX = "jackpot:report:"
"""Prefix of the ledger outbox records of reports not yet booked by the coordinator."""

CreditFn = Callable[[Payout], Awaitable[None]]


async def credit_payout(wallet: Any, p: Payout) -> None:
    """Credit a payout to the player: through the double-entry ledger when the wallet has one
    (``jackpot:pool`` -> ``player:<id>``, idempotency key ``jackpot:<claim key>``: a retry after
    a crash changes nothing), otherwise ``wallet.credit`` (the in-memory wallet of one process,
    which a crash loses anyway)."""
    if p.amount <= 0:
        return
    ledger = getattr(wallet, "ledger", None)
    if ledger is not None and hasattr(ledger, "transfer"):
        from server.ledger.journal import JACKPOT_POOL, player_account

        ok = await ledger.transfer(JACKPOT_POOL, player_account(p.player), p.amount,
                                   reason="jackpot_payout", key=f"jackpot:{p.key}")
        if not ok:
            raise RuntimeError(f"the ledger refused jackpot payout {p.key}")
        refresh = getattr(wallet, "refresh", None)
        if refresh is not None:
            await refresh(p.player)
        return
    await wallet.credit(p.player, p.amount, f"jackpot {p.key}")


@dataclass
class _Op:
    kind: str  # "register" | "report"
    hand: str
    args: dict[str, Any]
    outbox: str | None = None  # the ledger outbox record to delete once booked


def round_node(key: str) -> str:
    """The node of a round's id or outbox key: ``<hand>@<node>.<run scope>``
    (:func:`server.table.games.jackpot_round`; the scope has no dot) or ``<hand>@<node>``."""
    rest = key.rpartition("@")[2]
    return rest.rsplit(".", 1)[0] if "." in rest else rest


def encode_report(args: dict[str, Any]) -> str:
    """A report's arguments as the text of its outbox record."""
    return json.dumps({
        "owner": args["owner"], "table": args["table"],
        "settings": dataclasses.asdict(args["settings"]),
        "contributions": [dataclasses.asdict(c) for c in args["contributions"]],
        "claims": [dataclasses.asdict(c) for c in args["claims"]]})


def decode_report(text: str) -> dict[str, Any]:
    """The inverse of :func:`encode_report`."""
    d = json.loads(text)
    st = dict(d["settings"])
    st["pays"] = PaySchedule(**st["pays"])
    st["jackpot"] = JackpotSchedule(**st["jackpot"])
    st["dealer_qualifier"] = tuple(st["dealer_qualifier"])
    return {"owner": str(d["owner"]), "table": str(d["table"]),
            "settings": CaribbeanSettings(**st),
            "contributions": [Contribution(**c) for c in d["contributions"]],
            "claims": [Claim(**c) for c in d["claims"]]}


class OpenHands:
    """The rounds this process registered and has not reported yet, each with the time its
    lease stops being renewed (CSP-10: a round that never settles stops blocking)."""

    def __init__(self) -> None:
        self.hands: set[str] = set()
        self._until: dict[str, float] = {}  # open hand -> renew no later than this

    def add(self, hand: str, max_seconds: float) -> None:
        self.hands.add(hand)
        self._until[hand] = time.monotonic() + max_seconds

    def close(self, hand: str) -> None:
        """Reported (or given up): no more renewals."""
        self.hands.discard(hand)
        self._until.pop(hand, None)

    def renewable(self) -> list[str]:
        """The open hands still within their time; the others are given up (never settled)."""
        now = time.monotonic()
        for hand in [h for h in self.hands if self._until.get(h, now) < now]:
            self.close(hand)
            log.warning("event=jackpot_hand_abandoned hand=%s", hand)
        return sorted(self.hands)


class JackpotService:
    """``coordinator``: the coordinator, or an async factory (connect at :meth:`start`).
    ``owner``: this process's id (payout records it credits).  ``credit``: how a payout
    reaches the player (see :func:`credit_payout`).  ``ledger``: the chip ledger (module
    docstring), or None (no durable reports, no pool bookings)."""

    def __init__(self, coordinator: Coordinator | Callable[[], Awaitable[Coordinator]], *,
                 owner: str | None = None, credit: CreditFn | None = None,
                 meter: Meter | None = None, retry: float = 0.2,
                 ledger: Any | None = None) -> None:
        self.ledger = ledger
        self.books = PoolBookings()  # what reaches the ledger (bookings.py)
        self._factory: Callable[[], Awaitable[Coordinator]] | None = None
        self.coord: Coordinator | None = None
        if callable(coordinator) and not hasattr(coordinator, "register"):
            self._factory = coordinator
        else:
            self.coord = coordinator  # type: ignore[assignment]
        self.owner = owner or uuid.uuid4().hex[:12]
        self.credit = credit
        self.meter = meter if meter is not None else Meter()
        self.bus: Any = None  # the process's subscriptions in a cluster (server.cluster.bus)
        self.retry = retry
        self.leases = OpenHands()
        self.open = self.leases.hands  # registered, not yet reported
        self.waiting: set[str] = set()  # claim keys reported, not yet paid
        self.adopted: set[str] = set()  # lost processes whose payouts this one credits
        self.payouts: list[Payout] = []  # credited by this process (newest last)
        self._ops: deque[_Op] = deque()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._paid = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._crediting: set[str] = set()
        self._timer: asyncio.TimerHandle | None = None
        self.closed = False
        if isinstance(self.coord, MemoryCoordinator):
            self.meter.state = _pools(self.coord)

    @property
    def memory(self) -> MemoryCoordinator | None:
        return self.coord if isinstance(self.coord, MemoryCoordinator) else None

    @property
    def lease(self) -> float:
        return self.coord.lease if self.coord is not None else 3.0

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Connect (when built with a factory), read the pools, credit what is still due,
        and (Redis) follow the meter channel and run the worker."""
        if self.coord is None:
            assert self._factory is not None
            self.coord = await self._factory()
        mem = self.memory
        if mem is not None:  # the embedded pools from their file (opened there once)
            await mem.load()
        st = await self.coord.state()
        self.meter.update(st)
        await self._replay()
        await self.books.book_pool_events(self.ledger, self.coord)
        await self._sweep()
        meter_stream = getattr(self.coord, "meter", None)
        if self.bus is not None and hasattr(self.coord, "bus"):  # (a cluster's one task)
            self.coord.bus = self.bus
        if meter_stream is not None and self.memory is None:
            self._tasks.append(asyncio.get_running_loop().create_task(
                follow(meter_stream(), self.meter), name="jackpot:meter"))
        self._ensure_worker()

    async def close(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        self.meter.close()
        if self.coord is not None:
            await self.coord.close()

    async def all_paid(self, timeout: float = 30.0) -> None:
        """Wait until every claim this process reported has been paid and credited."""
        async def wait() -> None:
            while self.waiting or self._ops:
                self._paid.clear()
                await self._paid.wait()
        await asyncio.wait_for(wait(), timeout)

    async def drain(self, timeout: float = 10.0) -> None:
        """Wait until every queued registration/report has been booked and credited."""
        await asyncio.wait_for(self._idle.wait(), timeout)

    # ------------------------------------------------------------------ the tables' calls
    def hand_eligible(self, hand: str, *, max_seconds: float = 120.0) -> None:
        """CSP-10: the round ``hand`` has been dealt; place it in the global order.  Its lease
        is renewed for at most ``max_seconds`` (the longest the round can still last), so a
        round that never settles (voided, its table crashed) stops blocking within a lease."""
        self.leases.add(hand, max_seconds)
        mem = self.memory
        if mem is not None:
            mem.register_now(hand, owner=self.owner)
            self._tick_later()
            return
        self._push(_Op("register", hand, {"owner": self.owner}))

    def hand_settled(self, hand: str, *, table: str, settings: CaribbeanSettings,
                     contributions: Sequence[Contribution], claims: Sequence[Claim],
                     ledger_hand: str | None = None) -> None:
        """The round ``hand`` is over: book its contributions and claims (exactly once).
        ``ledger_hand``: the table's hand id in the ledger, whose coming hand-result batch
        carries this round's house share and (Redis) its durable report (module
        docstring); the table calls this before recording the hand's result."""
        self.waiting.update(c.key for c in claims)
        args: dict[str, Any] = {"owner": self.owner, "table": table, "settings": settings,
                "contributions": list(contributions), "claims": list(claims)}
        attach = getattr(self.ledger, "attach", None) if ledger_hand is not None else None
        mem = self.memory
        if attach is not None:
            from server.ledger.journal import JACKPOT_HOUSE, JACKPOT_POOL
            from server.ledger.store import Transfer

            house = sum(c.to_house for c in contributions)
            share = [Transfer(JACKPOT_POOL, JACKPOT_HOUSE, house, f"jackpot_house_share {hand}")
                     ] if house > 0 else []
            assert ledger_hand is not None
            if mem is None:
                op = _Op("report", hand, args, outbox=OUTBOX + hand)
                attach(table, ledger_hand, transfers=share,
                       outbox=[(op.outbox, encode_report(args))],
                       then=lambda: self._push(op))
                return
            if mem.durable:  # the embedded server: booked once the hand batch is durable
                key = OUTBOX + hand
                attach(table, ledger_hand, transfers=share,
                       outbox=[(key, encode_report(args))],
                       then=lambda: self._report_local(hand, args, key))
                return
            attach(table, ledger_hand, transfers=share)
        if mem is not None:
            self._report_local(hand, args, None)
            return
        self._push(_Op("report", hand, args))

    # ------------------------------------------------------------------ internals
    def _report_local(self, hand: str, args: dict[str, Any], outbox: str | None) -> None:
        """In-process: book a report now; with ``outbox``, delete its record once the
        coordinator's change is committed to its file."""
        mem = self.memory
        assert mem is not None
        self.leases.close(hand)
        seen = len(mem.log)
        paid = mem.report_now(hand, **args)
        self._booked(paid, args["table"] if paid else None)
        if not paid and any(e.kind == "overflow" for e in mem.log.since(seen)):
            self._own(self.books.book_overflow(self.ledger, self.coord))
        if outbox is not None:
            self._own(self.books.outbox_synced(self.ledger, mem, outbox))

    def _own(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` in a task this service owns (cancelled by :meth:`close`)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks = [t for t in self._tasks if not t.done()] + [task]

    def _push(self, op: _Op) -> None:
        self._ops.append(op)
        self._idle.clear()
        self._wake.set()
        self._ensure_worker()

    def _ensure_worker(self) -> None:
        if self.closed or self.memory is not None:
            return
        if not any(t.get_name() == "jackpot:worker" and not t.done() for t in self._tasks):
            self._tasks.append(asyncio.get_running_loop().create_task(
                self._worker(), name="jackpot:worker"))

    async def _worker(self) -> None:
        tick = self.lease / 3
        while not self.closed:
            try:
                while self._ops:
                    await self._run_some()
                self._paid.set()
                await self._maintain()
                if not self._ops and not self._crediting:
                    self._idle.set()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: keep the op, try again shortly
                log.warning("event=jackpot_retry error=%r", str(exc))
                await asyncio.sleep(self.retry)
                continue
            self._wake.clear()
            with contextlib.suppress(TimeoutError):  # (asyncio.timeout: a cancel is never lost)
                async with asyncio.timeout(tick):
                    await self._wake.wait()

    async def _run_some(self) -> None:
        """Send queued ops: up to ``BATCH`` in one atomic step when the coordinator can
        batch (Redis: one script, one round trip), else the first one."""
        assert self.coord is not None
        batch = getattr(self.coord, "batch", None)
        if batch is None:  # one op
            op = self._ops[0]
            if op.kind == "register":
                await self.coord.register(op.hand, **op.args)
            else:
                paid = await self.coord.report(op.hand, **op.args)
                self.leases.close(op.hand)
                await self.books.outbox_done(self.ledger, [op.outbox])
                await self._settle(paid)
            self._ops.popleft()
            return
        ops = [self._ops[i] for i in range(min(BATCH, len(self._ops)))]
        paid = await batch([(op.kind, op.hand, op.args) for op in ops])
        for op in ops:
            self._ops.popleft()
            if op.kind == "report":
                self.leases.close(op.hand)
        await self.books.outbox_done(self.ledger, [op.outbox for op in ops])
        await self._settle(paid)

    async def _replay(self) -> None:
        """Queue the reports a previous run made durable but did not see booked (in-process
        with a file: book them now; without one, reports are booked at once, never written)."""
        if self.ledger is None or not hasattr(self.ledger, "outbox"):
            return
        mem = self.memory
        if mem is not None and not mem.durable:
            return
        for key, text in await self.ledger.outbox(OUTBOX):  # (other live nodes' are theirs)
            if mem is None and round_node(key) != self.owner:
                continue
            if mem is not None:
                hand = key[len(OUTBOX):]
                args = decode_report(text)
                args["owner"] = self.owner
                self.waiting.update(c.key for c in args["claims"])
                log.info("event=jackpot_report_replayed hand=%s", hand)
                self._report_local(hand, args, None)
                await mem.synced()
                await self.books.outbox_done(self.ledger, [key])
                continue
            hand = key[len(OUTBOX):]
            args = decode_report(text)
            args["owner"] = self.owner  # this process credits what a previous run left
            self.waiting.update(c.key for c in args["claims"])
            log.info("event=jackpot_report_replayed hand=%s", hand)
            self._push(_Op("report", hand, args, outbox=key))

    async def _maintain(self) -> None:
        """Renew this process's open leases; advance the queue while anything of ours waits;
        credit records still due."""
        assert self.coord is not None
        if self.open:
            await self.coord.renew(self.leases.renewable())
        if self.waiting or self.open or self.adopted:
            await self._settle(await self.coord.advance())
        if self.waiting or self.adopted:
            await self._sweep()

    def _tick_later(self) -> None:
        """In-process: renew and advance on a timer while hands are open or claims wait."""
        if self._timer is not None or self.closed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timer = loop.call_later(self.lease / 3, self._tick)

    def _tick(self) -> None:
        self._timer = None
        mem = self.memory
        if mem is None:
            return
        mem.renew_now(self.leases.renewable())
        self._booked(mem.advance_now(), None)

    def _booked(self, paid: list[Payout], table: str | None) -> None:
        """In-process: the pools changed (and maybe paid): meter now, credit soon."""
        mem = self.memory
        assert mem is not None
        self.meter.update(_pools(mem), paid[-1].table if paid else table)
        if paid:
            self._idle.clear()
            self._own(self._settle_logged(paid))
        if self.open or self.waiting:
            self._tick_later()

    async def _settle(self, paid: Sequence[Payout], *, done: bool = False) -> None:
        try:
            mem = self.memory
            if paid and mem is not None:  # the payout records durable before any credit
                await mem.synced()
            if paid:  # the reseeds and shortfalls of these rounds before their payouts
                await self.books.book_pool_events(self.ledger, self.coord)
            for p in paid:
                if p.owner == self.owner or p.owner in self.adopted:
                    await self._credit_one(p)
        finally:
            if done and not self._ops:
                self._idle.set()

    async def _settle_logged(self, paid: Sequence[Payout]) -> None:
        try:
            await self._settle(paid, done=True)
        except Exception:  # the record stays due: credited at the next sweep (start)
            log.exception("event=jackpot_credit_failed keys=%s", [p.key for p in paid])

    async def _sweep(self) -> None:
        assert self.coord is not None
        if not self.adopted:
            for p in await self.coord.due(self.owner):
                await self._credit_one(p)
            return
        for p in await self.coord.due():  # a failover's (server.jackpot.takeover)
            if p.owner == self.owner or p.owner in self.adopted:
                await self._credit_one(p)

    async def _credit_one(self, p: Payout) -> None:
        if p.key in self._crediting:
            return
        self._crediting.add(p.key)
        assert self.coord is not None
        try:
            if self.credit is not None:
                await self.credit(p)
            while True:  # credited: close the record (a lost reply must not leave it open)
                try:
                    await self.coord.credited(p.key)
                    break
                except Exception as exc:
                    if self.closed:
                        raise
                    log.warning("event=jackpot_retry error=%r", str(exc))
                    await asyncio.sleep(self.retry)
            self.payouts.append(p)
            self.waiting.discard(p.key)
            self._paid.set()
            log.info("event=jackpot_paid key=%s player=%s amount=%d ticket=%d", p.key,
                     p.player, p.amount, p.ticket)
        finally:
            self._crediting.discard(p.key)

    async def state(self) -> PoolState:
        assert self.coord is not None
        return await self.coord.state()


def _pools(mem: MemoryCoordinator) -> PoolState:
    return PoolState(mem.minor, mem.major, mem.split)


def build_jackpot(config: Any) -> JackpotService | None:
    """The process's jackpot service from its :class:`~server.config.Config`: over Redis with
    ``redis_url`` (connected by :meth:`JackpotService.start`; payout records of this process
    are those of ``config.node``), else None (the registry's in-process default)."""
    url = getattr(config, "redis_url", None)
    if url is None:
        return None
    lease = float(config.jackpot_lease)
    replicas = int(getattr(config, "redis_wait_replicas", 0))  # settling payouts (issue 26)
    wait_ms = int(getattr(config, "redis_wait_timeout_ms", 500))
    give_up_ms = int(getattr(config, "redis_wait_give_up_ms", 0))

    async def connect() -> Coordinator:
        from server.jackpot.redis_coord import RedisCoordinator

        return await RedisCoordinator.connect(url, lease=lease, wait_replicas=replicas,
                                              wait_timeout_ms=wait_ms, wait_give_up_ms=give_up_ms)

    return JackpotService(connect, owner=str(getattr(config, "node", "") or "") or None,
                          meter=Meter(interval=float(config.jackpot_meter_interval)))


async def history_page(coord: Coordinator, start: int, count: int) -> dict[str, Any]:
    """The body of ``GET /jackpot/history`` (and of the CLI): pools, totals, entries."""
    st = await coord.state()
    entries = await coord.history(start, count)
    return {"state": {"minor": st.minor, "major": st.major, "split": st.split,
                      "contributed": st.contributed, "paid": st.paid, "seeded": st.seeded,
                      "house": st.house},
            "entries": [e.as_dict() for e in entries], "next": start + len(entries)}
