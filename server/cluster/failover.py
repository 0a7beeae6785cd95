"""Failover (issue 17): the tables of a process that died, reopened on a survivor.

Rule of this module: exactly one survivor takes a lost process over, and the arbiter is the
lost process's one lease (:mod:`server.ledger.lease`, which a live process renews every
third of ``Config.node_lease``; the directory's liveness is the same lease): a survivor acts
only while it holds that lease, so two survivors never both act, and a restart of the lost
process (which claims the lease before anything else) waits until the takeover is done.
Taking the lease bumps the lost node's fencing token: from then on every late write of the
lost process (a hand's result, a jackpot booking, a table's state, a directory claim) is
refused by its script, whatever that process's clock says. Under the lease, in this order:

1. :data:`~server.cluster.keys.TAKE`, with this process's own token: every table the lost
   process owned is now this process's in the directory (``moved`` sends its players here),
   and the lost process is out of the room (nothing, if it is live again);
2. its running hands are voided (:func:`server.ledger.takeover.void_hands_of`): chips never
   left the players' table accounts during a hand, so every stack is what it was before it;
3. the jackpot (:func:`server.jackpot.takeover.take_over`): its payouts due are credited here
   from now on, and the reports it made durable but never saw booked are booked;
4. each table reopens here with the same id, settings, seats, button and test decks (its saved
   state, :mod:`server.cluster.states`: written at the end of its last hand), its chips moved
   in one keyed ledger batch from the lost process's accounts
   (:func:`server.ledger.takeover.take_table`), its players disconnected until they come back
   (a resuming client gets a snapshot: the table's sequence jumps by :data:`SEQ_JUMP`);
5. any chips left in the lost process's table accounts go back to their players (a
   tournament table's to the tournament's own accounts, never cash);
6. its tournaments are claimed and restored here (:mod:`server.cluster.tournaments`).

The directory's read notices a lapsed lease (``RoomCopy.lapsed``) and calls :meth:`lapsed`;
one task at a time works through them, and only while this process is steady
(:meth:`~server.cluster.directory.Directory.steady`: Redis answered it for a whole lease),
so a restart of Redis, which makes every lease look lapsed until the live processes renew,
never takes a live process's tables.

Ports (:mod:`server.cluster.ports`): the directory as :class:`~server.cluster.ports.Owning`, the
registry as :class:`~server.cluster.ports.Tables`, the one answer to "where is table X"
(:class:`~server.cluster.where.Where`, for :meth:`Failover.fence_lost`); the ledger's and the
jackpot's steps come as one :class:`Steps`, so failover is built alone with fakes in tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from server.cluster import keys as lua
from server.cluster.ports import Owning, Tables
from server.cluster.tasks import cancel_all
from server.jackpot.takeover import take_over
from server.ledger.journal import is_practice_table
from server.ledger.takeover import cash_out_rest, take_table, void_hands_of
from server.table.handoff import TableState, fence, spec_of

if TYPE_CHECKING:
    from server.ledger.journal import Ledger
    from server.table.actor import TableActor

__all__ = ["SEQ_JUMP", "Failover", "Locating", "Steps", "ledger_steps"]

log = logging.getLogger("server.cluster")

SEQ_JUMP = 1_000_000_000
"""How far a reopened table's sequence numbers jump past its last recorded state: ahead of
anything its clients saw, so each resume gets a fresh snapshot (and remote spectators take
its frames as newer)."""


class Locating(Protocol):
    """The one answer to "where is table X" as failover needs it."""

    async def now(self, table_id: str) -> tuple[str, str] | None: ...


@dataclass(frozen=True, slots=True)
class Steps:
    """The ledger's and the jackpot's side of a takeover (see the module docstring)."""

    lease: Callable[[str, str, float], Awaitable[bool]]  # (lost, holder, seconds) -> got it
    release: Callable[[str, str], Awaitable[None]]
    void: Callable[[str], Awaitable[list[Any]]]  # step 2: the lost node's hands voided
    jackpot: Callable[[str], Awaitable[int]]  # step 3: the reports booked
    take: Callable[[str, str, str, set[str]], Awaitable[dict[str, int]]]  # step 4
    rest: Callable[[str], Awaitable[dict[str, int]]]  # step 5


def ledger_steps(ledger: Ledger, tables: Tables) -> Steps:
    """:class:`Steps` through the process's ledger and jackpot."""
    async def lease(lost: str, holder: str, seconds: float) -> bool:
        return (await ledger.store.acquire_lease(lost, holder, seconds)).holder == holder

    async def release(lost: str, holder: str) -> None:
        await ledger.store.release_lease(lost, holder)

    async def void(lost: str) -> list[Any]:
        return list(await void_hands_of(ledger, lost))

    async def jackpot(lost: str) -> int:
        service = tables.jackpot
        return await take_over(service, lost) if service.coord is not None else 0

    async def take(table_id: str, lost: str, run: str, players: set[str]) -> dict[str, int]:
        return await take_table(ledger, table_id, lost, run, players)

    async def rest(lost: str) -> dict[str, int]:
        return dict(await cash_out_rest(ledger, lost))

    return Steps(lease, release, void, jackpot, take, rest)


class Failover:
    """This process as a possible survivor (see the module docstring)."""

    def __init__(self, owning: Owning, tables: Tables, where: Locating,
                 steps: Callable[[], Steps | None], lease: float) -> None:
        self._owning = owning
        self._lease = lease
        self._tables = tables
        self._where = where
        self._steps = steps
        self._task: asyncio.Task[None] | None = None
        self.taken: list[tuple[str, list[str]]] = []  # (lost node, its tables reopened here)
        self.after: Callable[[str], Awaitable[int]] | None = None
        """Step 6 (issue 27): the lost process's tournaments claimed and restored here."""

    def lapsed(self, nodes: list[str]) -> None:
        """The directory saw these nodes' leases run out: try to take them over (one task
        at a time; the next read tries again what is still lapsed)."""
        if self._task is not None and not self._task.done():
            return
        if self._steps() is None or not self._owning.may_take_over():
            return
        self._task = asyncio.get_running_loop().create_task(
            self._run(list(nodes)), name=f"failover:{self._owning.me.node}")

    async def close(self) -> None:
        await cancel_all([self._task])
        self._task = None

    async def _run(self, nodes: list[str]) -> None:
        for node in nodes:
            try:
                await self.take(node)
            except Exception:
                log.exception("event=failover_failed lost=%s", node)

    async def take(self, lost: str) -> list[str] | None:
        """Take ``lost`` over if this process gets its lease (which fences it: its token
        moves on); the tables reopened here, or None when another process has it (or it is
        live again)."""
        me, steps = self._owning.me, self._steps()
        assert steps is not None
        holder = f"takeover:{me.node}:{me.run}"
        if not await steps.lease(lost, holder, self._lease):
            return None
        log.warning("event=failover_fenced lost=%s by=%s", lost, me.node)
        try:
            k = me.keys
            rows: Any = await self._owning.fenced(
                lua.TAKE, [k.nodes, k.tables, k.version],
                [lost, me.node, me.run, me.url, k.table_prefix, k.node_prefix,
                 *self._owning.lease_ends()])
            if rows is None or rows is False:
                return None
            await self._owning.announce()
            log.warning("event=failover_started lost=%s by=%s tables=%d", lost, me.node,
                        len(rows) // 3)
            voided = await steps.void(lost)
            replayed = await steps.jackpot(lost)
            opened = await self._reopen(lost, rows, steps)
            cashed = await steps.rest(lost)
            if self.after is not None:  # (their tables' chips are back in their accounts)
                try:
                    await self.after(lost)
                except Exception:
                    log.exception("event=failover_tournaments_failed lost=%s", lost)
        finally:
            with contextlib.suppress(Exception):
                await steps.release(lost, holder)
        self.taken.append((lost, opened))
        log.warning("event=failover_done lost=%s by=%s tables=%d voided=%d "
                    "jackpot_reports=%d cashed_out=%d", lost, me.node, len(opened),
                    len(voided), replayed, len(cashed))
        return opened

    async def _reopen(self, lost: str, rows: list[Any], steps: Steps) -> list[str]:
        opened = []
        for i in range(0, len(rows) - 2, 3):
            table_id, run, text = str(rows[i]), str(rows[i + 1]), str(rows[i + 2] or "")
            if not text or table_id in self._tables.actors:
                continue  # no state to reopen it from: its chips are cashed out (step 5)
            if is_practice_table(table_id):  # issue 24: its bots were the lost process's;
                continue  # its play money goes back to `practice` (step 5, home_account)
            try:
                state = TableState.from_json(text)
                state.seq += SEQ_JUMP
                spec_of(state.create, self._tables.config)  # a table it can rebuild, first
                stacks = await steps.take(table_id, lost, run, {s.player for s in state.seats})
                self._tables.adopt(state, stacks, exact=False)  # (saved, not the handover)
                changed = sum(stacks.get(s.player, 0) != s.stack for s in state.seats)
                log.info("event=failover_stacks table=%s seats=%d from_ledger=%d",
                         table_id, len(stacks), changed)
            except Exception:
                log.exception("event=failover_table_failed table=%s lost=%s", table_id, lost)
                continue
            opened.append(table_id)
        return opened

    async def fence_lost(self, owned_here: Callable[[str], bool]) -> None:
        """Tables open here that another process owns now (this one was cut off long enough
        for a failover to take it over): ``owned_here(table)`` is the directory's copy; each
        one it denies is checked in Redis (the copy may predate an adoption here), then
        stopped at once, its players sent to the owner."""
        for table_id, actor in list(self._tables.actors.items()):
            if owned_here(table_id) or actor.stopped:
                continue
            found = await self._where.now(table_id)
            if found is None:
                continue
            actor.call(self._fencer(actor, found[1]))

    def _fencer(self, actor: TableActor, url: str) -> Callable[[], None]:
        def stop() -> None:
            if fence(actor, url):
                self._tables.forget(actor, reason="taken over")
        return stop
