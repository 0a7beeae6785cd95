"""The Redis jackpot coordinator: any number of server processes on any number of machines.

Same contract as the in-process one (:mod:`server.jackpot.base`).  Every step is one Lua
script (:mod:`server.jackpot.lua`) run atomically by Redis, through :mod:`server.redisio`.
The global order (CSP-10) is ``INCR`` on one counter, kept in a sorted set; the leases are a
sorted set of deadlines in milliseconds (Redis's own ``TIME`` unless a clock is injected, so
machines with skewed clocks agree).  Every script is idempotent, so a client that lost its
connection mid-call simply calls again.  Pool changes are published on the meter channel
(``"<minor> <major> <split 0|1> <table of a payout or ''>"``).

Keys (all under ``prefix``, default ``jp``, tagged ``{room}``: ``jp:{room}:<name>`` for each
of :data:`server.jackpot.lua.KEY_NAMES`, one hash slot with the node's fencing token every
script checks, ``ledger:{room}:token:<node>``; the meter channel is ``jp:{room}:meter``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from server.jackpot import lua
from server.jackpot.base import (
    Claim,
    HistoryEntry,
    Payout,
    PoolState,
    opening,
    settings_args,
)
from server.ledger.lease import Lease, fenced_error
from server.redisio import Redis, RedisScriptError, RedisUnavailable
from server.rules.caribbean_payout import (
    MAJOR_KEYS,
    MINOR_KEYS,
    CaribbeanSettings,
    Contribution,
)

__all__ = ["RedisCoordinator", "parse_meter"]

log = logging.getLogger("server.jackpot")


def parse_meter(text: str) -> tuple[PoolState, str | None]:
    """A meter channel message -> (pools, table of a payout or None)."""
    parts = text.split(" ", 3)
    minor, major, split = int(parts[0]), int(parts[1]), parts[2] == "1"
    table = parts[3] if len(parts) > 3 and parts[3] else None
    return PoolState(minor, major, split), table


class RedisCoordinator:
    """See :class:`server.jackpot.base.Coordinator`.  ``now``: an injected clock (seconds) for
    the leases; None uses the Redis server's clock."""

    def __init__(self, redis: Redis, *, prefix: str = "jp", lease: float = 3.0,
                 now: Callable[[], float] | None = None, wait_replicas: int = 0,
                 wait_timeout_ms: int = 500, wait_give_up_ms: int = 0) -> None:
        self.redis = redis
        self.wait_replicas, self.wait_timeout_ms = wait_replicas, wait_timeout_ms
        """Settling writes (issue 26, ``Config.redis_wait_replicas``): the scripts that may
        pay (a report, a batch, an advance) or that add contributions to the pool (whose
        wagers the ledger books in the hand's settled result) are followed by ``WAIT``
        (``Redis.settle``), so a payout is credited, and shown, only once a replica has its
        record, and a failover loses no contribution the ledger kept."""
        self.wait_give_up_ms = wait_give_up_ms  # (0: a settling write waits for its replica)
        self.settled = self.short = 0  # settling writes, and those fewer replicas acknowledged
        self.bus: Any = None
        """The process's subscriptions (``server.cluster.bus``: ``on``/``off``), in a cluster:
        the meter channel is then one of that task's channels, not a subscription of its own."""
        self.prefix = prefix
        self.lease = lease
        self._now = now
        self.node_lease: Lease | None = None
        """This process's lease (:mod:`server.ledger.lease`): with it every booking and
        payout carries the process's fencing token, and a stale one is refused
        (:class:`~server.ledger.lease.StaleLease`, the lease lost)."""
        self.keys = [f"{prefix}:{{room}}:{name}" for name in lua.KEY_NAMES]
        self.channel = self.keys[-1]
        self._init = redis.script(lua.INIT)
        self._register = redis.script(lua.REGISTER)
        self._renew = redis.script(lua.RENEW)
        self._report = redis.script(lua.REPORT)
        self._batch = redis.script(lua.BATCH)
        self._advance = redis.script(lua.ADVANCE)
        self._credited = redis.script(lua.CREDITED)
        self._compute = redis.script(lua.COMPUTE)

    @classmethod
    async def connect(cls, url: str, *, seed: int | None = None, minor_seed: int | None = None,
                      terms: CaribbeanSettings | None = None, **kw: Any) -> RedisCoordinator:
        """Connect and make sure the pools exist: a new pool opens at ``terms``' reset amounts
        (CSP-08, :func:`~server.jackpot.base.opening`; ``seed`` / ``minor_seed`` replace
        them), paid by the house, once, by whichever process comes first (one atomic script);
        pools that exist (after a restart, or opened by another process) are left as they
        are."""
        major_open, minor_open = opening(terms)
        coord = cls(await Redis.connect(url), **kw)
        await coord.init(major_open if seed is None else seed,
                         minor_open if minor_seed is None else minor_seed)
        return coord

    async def _run(self, script: Any, *rest: Any, settle: bool = False) -> Any:
        now = 0 if self._now is None else int(self._now() * 1000)
        lease = self.node_lease
        fence = None if lease is None else lease.fence()  # (StaleLease once lost)
        keys = self.keys if fence is None else [*self.keys, fence.key]
        hold = settle and self.wait_replicas > 0  # (the meter published after WAIT)
        args = [now, int(self.lease * 1000), "" if fence is None else fence.token,
                "1" if hold else "", *rest]
        try:
            if hold:
                reply, acked = await self.redis.settle(script, keys, args,
                                                       replicas=self.wait_replicas,
                                                       timeout_ms=self.wait_timeout_ms,
                                                       give_up_ms=self.wait_give_up_ms)
                self.settled += 1
                if acked < self.wait_replicas:
                    self.short += 1
                    log.warning("event=settle_short jackpot replicas=%d of=%d", acked,
                                self.wait_replicas)
                text, held = reply  # a paying script's payouts, and the meter's message
                if held:  # shown only now that a replica has the pools it shows (the write
                    try:  # stands: a meter lost to a failover is shown at the next change)
                        await self.redis.call("PUBLISH", self.channel, held)
                    except RedisUnavailable as exc:
                        log.warning("event=jackpot_meter_unsent error=%r", exc)
                return text
            return await script(keys=keys, args=args)
        except RedisScriptError as exc:
            error = fenced_error(lease, exc)
            if error is exc:
                raise
            raise error from exc

    async def init(self, seed: int, minor_seed: int = 0) -> bool:
        """Create the pools with their seeds unless they exist (atomic: one caller of all
        those racing wins); True when this call did."""
        return bool(await self._run(self._init, seed, minor_seed))

    # ---------------------------------------------------------------- contract
    async def register(self, hand: str, *, owner: str) -> int:
        return int(await self._run(self._register, hand, owner))

    async def renew(self, hands: Sequence[str]) -> None:
        if hands:
            await self._run(self._renew, *hands)

    async def report(self, hand: str, *, owner: str, table: str, settings: CaribbeanSettings,
                     contributions: Sequence[Contribution], claims: Sequence[Claim]
                     ) -> list[Payout]:
        reply = await self._run(self._report, hand, *self._report_args(
            owner=owner, table=table, settings=settings, contributions=contributions,
            claims=claims), settle=bool(claims or contributions))
        return [Payout.from_json(r) for r in json.loads(reply)]

    async def batch(self, ops: Sequence[tuple[str, str, dict[str, Any]]]) -> list[Payout]:
        """Several registrations and reports in one atomic script, in order: each op is
        ``("register", hand, {"owner": ...})`` or ``("report", hand, <report's keywords>)``.
        Returns the payouts the batch produced."""
        args: list[Any] = []
        for kind, hand, kw in ops:
            if kind == "register":
                args += ["r", hand]
            else:
                args += ["p", hand, *self._report_args(**kw)]
        reply = await self._run(self._batch, *args,
                                settle=any(kw.get("claims") or kw.get("contributions")
                                           for _, _, kw in ops))
        return [Payout.from_json(r) for r in json.loads(reply)]

    def _report_args(self, *, owner: str, table: str, settings: CaribbeanSettings,
                     contributions: Sequence[Contribution], claims: Sequence[Claim]
                     ) -> list[str]:
        if len({c.seat for c in claims}) != len(claims):
            raise ValueError("a seat may claim only once per round (CSP-12)")
        if any(c.kind not in MINOR_KEYS | MAJOR_KEYS for c in claims):
            raise ValueError("not a jackpot hand")
        contribs = [[c.key, c.round_id, c.to_minor, c.to_major, c.to_house]
                    for c in contributions]
        cls = [[c.key, c.seat, c.player, c.kind, c.eligible_at] for c in claims]
        return [owner, table, json.dumps(settings_args(settings)), json.dumps(contribs),
                json.dumps(cls)]

    async def advance(self) -> list[Payout]:
        return [Payout.from_json(r) for r in json.loads(await self._run(self._advance,
                                                                         settle=True))]

    async def state(self) -> PoolState:
        pools = _pairs(await self.redis.call("HGETALL", self.keys[7]))
        totals = _pairs(await self.redis.call("HGETALL", self.keys[8]))

        def n(d: dict[str, str], k: str) -> int:
            return int(d.get(k, "0"))

        return PoolState(n(pools, "minor"), n(pools, "major"), pools.get("split") == "1",
                         n(totals, "contributed"), n(totals, "paid"), n(totals, "seeded"),
                         n(totals, "house"))

    async def due(self, owner: str | None = None) -> list[Payout]:
        records = _pairs(await self.redis.call("HGETALL", self.keys[10]))
        out = [Payout.from_json(v) for v in records.values()]
        out = [p for p in out if owner is None or p.owner == owner]
        return sorted(out, key=lambda p: (p.ticket, p.key))

    async def credited(self, key: str) -> None:
        await self._run(self._credited, key)

    async def history(self, start: int = 0, count: int = 1000) -> list[HistoryEntry]:
        if count <= 0:
            return []
        rows = await self.redis.call("LRANGE", self.keys[9], start, start + count - 1)
        out = []
        for i, row in enumerate(rows or []):
            kind, hand, key, pool, amount, after, ts = json.loads(row)
            out.append(HistoryEntry(start + i, kind, hand, key, pool, int(amount), int(after),
                                    int(ts)))
        return out

    async def compute(self, settings: CaribbeanSettings, claims: Sequence[Claim], minor: int,
                      major: int) -> tuple[dict[int, int], list[tuple[str, int, int, int, int]]]:
        """The Lua CSP-09 arithmetic alone, nothing written: (seat -> amount, per pool
        ``(name, paid, shortfall, seed, after)``).  For the tests against the Python one."""
        cls = [[c.key, c.seat, c.player, c.kind, c.eligible_at] for c in claims]
        reply = json.loads(await self._run(self._compute, json.dumps(settings_args(settings)),
                                           json.dumps(cls), minor, major))
        amounts = {int(seat): int(a) for seat, a in reply[0]} if reply[0] else {}
        outs = [(str(o[0]), int(o[1]), int(o[2]), int(o[3]), int(o[4])) for o in reply[1]]
        return amounts, outs

    async def meter(self) -> AsyncIterator[tuple[PoolState, str | None]]:
        """Every pool change published by any process (reconnects by itself)."""
        if self.bus is None:
            async for _, text in self.redis.subscribe(self.channel):
                yield parse_meter(text)
            return
        heard: asyncio.Queue[str] = asyncio.Queue()

        def handler(_channel: str, text: str) -> None:
            heard.put_nowait(text)

        self.bus.on(self.channel, handler)
        try:
            while True:
                yield parse_meter(await heard.get())
        finally:
            self.bus.off(self.channel, handler)

    async def close(self) -> None:
        await self.redis.close()


def _pairs(reply: Any) -> dict[str, str]:
    if isinstance(reply, dict):
        return {str(k): str(v) for k, v in reply.items()}
    items = list(reply or [])
    return {str(items[i]): str(items[i + 1]) for i in range(0, len(items), 2)}
