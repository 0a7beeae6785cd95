"""One lease per server process, with a fencing token (issue 26).

Rule of this module: a process is the live process of its ``node`` while it holds the node's
lease in the ledger's store, and the lease is the ONE answer to "is that process alive" (the
cluster's directory lists a node as live while its lease is held, and a failover arbitrates
with it). Every acquisition of a node's lease takes a new *fencing token* from a counter the
store increases (``INCR`` in Redis: it never goes back, whoever acquires); renewing keeps
the token. Every write that moves money or ownership (a ledger batch, a jackpot booking or
payout, a directory ownership claim, a table's saved state) carries the writer's
:class:`Fence` (the token and where the node's current token is kept), and the store's
script refuses it (:class:`StaleLease`, Redis reply ``STALE_TOKEN``) when the node's token
moved on: another run acquired the lease, or a survivor taking the node over fenced it
(:meth:`Store.acquire_lease` by the survivor bumps the token). So a process that was cut off
past its lease can write nothing any more, whatever its clock says.

A lease that lapsed while nobody acquired it is taken back by the holder's next renewal with
the same token (nobody acted on the lapse, so nothing this process wrote is stale). Losing
it is detected on renewal (or on a refused write): logged critically, the listeners
(:meth:`Lease.on_lost`) stop this process's tables without writing, and :meth:`Lease.fence`
raises :class:`StaleLease` from then on: the process writes nothing more.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.ledger.store import Store

__all__ = ["STALE_TOKEN", "Fence", "Lease", "LeaseState", "NodeInUse", "StaleLease",
           "is_stale", "run_fenced"]

log = logging.getLogger("server.ledger")

STALE_TOKEN = "STALE_TOKEN"
"""The error reply of a script that refused a write carrying a stale token."""

RENEW_RETRY = 0.25
"""Seconds before a renewal that failed (the store unreachable) is tried again."""


class NodeInUse(OSError):
    """Another live process holds this node's lease (two processes with one ``--node``)."""


class StaleLease(RuntimeError):
    """A write carried a fencing token that is no longer its node's: this process lost its
    lease (another run, or a failover, took the node) and owns nothing any more."""


def is_stale(exc: BaseException) -> bool:
    """Whether ``exc`` is a script's refusal of a stale token (or a :class:`StaleLease`)."""
    return isinstance(exc, StaleLease) or STALE_TOKEN in str(exc)


def fenced_error(lease: Lease | None, exc: BaseException) -> BaseException:
    """What a fenced write's caller raises for ``exc``: ``exc`` itself unless it is a stale
    token's refusal; then a :class:`StaleLease`, through the lease when there is one (which
    then stops this process's writes: :meth:`Lease.refused`)."""
    if not is_stale(exc):
        return exc
    return StaleLease(str(exc)) if lease is None else lease.refused(exc)


async def run_fenced(redis: Any, lease: Lease | None, code: str, keys: list[str],
                     args: list[Any]) -> Any:
    """Run the fenced Lua script ``code`` (``server.cluster.keys.FENCE``: the token is its
    last ``ARGV``, the token's key its last ``KEYS``) on the adapter ``redis`` with this
    process's token (unfenced without a lease); :class:`StaleLease` (and the lease lost) when
    the token is stale."""
    fence = None if lease is None else lease.fence()  # (StaleLease once lost)
    if fence is not None:
        keys = [*keys, fence.key]
    try:
        return await redis.script(code)(keys=keys,
                                        args=[*args, "" if fence is None else fence.token])
    except Exception as exc:
        error = fenced_error(lease, exc)
        if error is exc:
            raise
        raise error from exc


@dataclass(frozen=True, slots=True)
class Fence:
    """What a fenced write carries: ``key``, where the store keeps the node's current token
    (a Redis key; the node's name in an embedded store), and the writer's ``token``."""

    key: str
    token: int


@dataclass(frozen=True, slots=True)
class LeaseState:
    """A store's answer to :meth:`Store.acquire_lease`: who holds the lease now (``''``:
    nobody) and the node's current token."""

    holder: str
    token: int


class Lease:
    """The lease of one run of a server process on its node (see the module docstring)."""

    def __init__(self, store: Store, node: str, run: str) -> None:
        self.store = store
        self.node = node
        self.run = run
        self.token: int | None = None  # held since claim(), until lost or released
        self.lost: str | None = None  # why it was lost (then nothing is written any more)
        self.seconds = 0.0
        self.renewals = 0  # renewals that kept the lease (tests)
        self._listeners: list[Callable[[str], None]] = []
        self._keeper: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ taking it
    async def claim(self, seconds: float) -> None:
        """Take the node's lease (a new token), waiting up to twice ``seconds`` for a dead
        run's lease to run out (:class:`NodeInUse` after that), then keep renewing it every
        third of ``seconds`` in a task this object owns until :meth:`release`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2 * seconds + 1.0
        self.seconds = seconds
        while (state := await self.store.acquire_lease(self.node, self.run, seconds)
               ).holder != self.run:
            if loop.time() > deadline:
                raise NodeInUse(f"node {self.node!r} is in use by run {state.holder} of "
                                "another process (give each process its own --node)")
            log.warning("event=node_lease_wait node=%s holder=%s", self.node, state.holder)
            await asyncio.sleep(min(0.25, seconds / 4))  # polling another process's lease
        self.token, self.lost = state.token, None
        log.info("event=node_lease_taken node=%s run=%s token=%d", self.node, self.run,
                 state.token)
        self._keeper = loop.create_task(self._keep(seconds), name=f"lease:{self.node}")
        self._keeper.add_done_callback(self._keeper_done)

    @property
    def held(self) -> bool:
        return self.token is not None and self.lost is None

    def fence(self) -> Fence | None:
        """The :class:`Fence` a write of this process carries: None before :meth:`claim`
        (a tool's or a test's unfenced writes); :class:`StaleLease` once the lease is
        lost (this process writes nothing more)."""
        if self.lost is not None:
            raise StaleLease(f"node {self.node} run {self.run} lost its lease ({self.lost})")
        if self.token is None:
            return None
        return Fence(self.store.lease_key(self.node), self.token)

    # ------------------------------------------------------------------ keeping it
    async def renew(self) -> bool:
        """One renewal (the keeper's beat): False, and the lease lost, when the node's
        token moved on (another run or a failover took the node)."""
        if self.token is None or self.lost is not None:
            return False
        state = await self.store.acquire_lease(self.node, self.run, self.seconds,
                                               token=self.token)
        if state.holder == self.run and state.token == self.token:
            self.renewals += 1
            return True
        self.lose(f"holder={state.holder or '-'} token={state.token} (mine {self.token})")
        return False

    async def _keep(self, seconds: float) -> None:
        beat = seconds / 3
        while self.lost is None:
            await asyncio.sleep(beat)
            try:
                await self.renew()
                beat = seconds / 3
            except Exception as exc:  # the store is down: try again soon, not a beat later
                # (a Sentinel failover ends in seconds; waiting a whole beat after it could
                # let the lease lapse and a survivor fail this live process over)
                log.error("event=node_lease_renew_failed node=%s error=%r", self.node, exc)
                beat = min(seconds / 3, RENEW_RETRY)

    def _keeper_done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("event=node_lease_keeper_died node=%s error=%r", self.node,
                      task.exception())

    # ------------------------------------------------------------------ losing it
    def on_lost(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(reason)`` once when the lease is lost (stop every table here
        without writing)."""
        self._listeners.append(listener)

    def lose(self, reason: str) -> None:
        """The lease is lost (a renewal found the token moved on, or a script refused a
        write as stale): log it, tell the listeners, write nothing from now on. Once."""
        if self.lost is not None:
            return
        self.lost = reason
        log.critical("event=node_lease_lost node=%s run=%s token=%s reason=%s", self.node,
                     self.run, self.token, reason)
        for listener in list(self._listeners):
            try:
                listener(reason)
            except Exception:
                log.exception("event=node_lease_listener_failed node=%s", self.node)

    def refused(self, exc: BaseException) -> StaleLease:
        """A write was refused as stale (``exc``): the lease is lost; the exception to
        raise."""
        self.lose(f"write refused: {str(exc)[:120]}")
        return exc if isinstance(exc, StaleLease) else StaleLease(str(exc))

    async def release(self) -> None:
        """Stop renewing and give the node's lease up (a restart need not wait for it; the
        token stays where it is, so a write of this run is still checked against it)."""
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        if self.token is not None and self.lost is None:
            await self.store.release_lease(self.node, self.run)
        self.token = None
