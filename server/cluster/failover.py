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
4. each table reopens here with the same id, settings and seats (its last state in the
   directory), its chips moved in one keyed ledger batch from the lost process's accounts
   (:func:`server.ledger.takeover.take_table`), its players disconnected until they come back
   (a resuming client gets a snapshot: the table's sequence jumps by :data:`SEQ_JUMP`);
5. any chips left in the lost process's table accounts go back to their players.

The directory's read notices a lapsed lease (``RoomCopy.lapsed``) and calls :meth:`lapsed`;
one task at a time works through them, and only while this process is steady
(:meth:`~server.cluster.directory.Directory.steady`: Redis answered it for a whole lease),
so a restart of Redis, which makes every lease look lapsed until the live processes renew,
never takes a live process's tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from server.cluster import keys as lua
from server.cluster.tasks import cancel_all
from server.jackpot.takeover import take_over
from server.ledger.journal import is_practice_table
from server.ledger.takeover import cash_out_rest, take_table, void_hands_of
from server.table.handoff import TableState, fence, spec_of

if TYPE_CHECKING:
    from server.cluster.directory import Directory

__all__ = ["SEQ_JUMP", "Failover"]

log = logging.getLogger("server.cluster")

SEQ_JUMP = 1_000_000_000
"""How far a reopened table's sequence numbers jump past its last recorded state: ahead of
anything its clients saw, so each resume gets a fresh snapshot (and remote spectators take
its frames as newer)."""


class Failover:
    """This process as a possible survivor (see the module docstring)."""

    def __init__(self, directory: Directory) -> None:
        self.d = directory
        self._task: asyncio.Task[None] | None = None
        self.taken: list[tuple[str, list[str]]] = []  # (lost node, its tables reopened here)

    def lapsed(self, nodes: list[str]) -> None:
        """The directory saw these nodes' leases run out: try to take them over (one task
        at a time; the next read tries again what is still lapsed)."""
        if self._task is not None and not self._task.done():
            return
        if self.d.ledger is None or self.d.draining or self.d.lost or not self.d.steady():
            return
        self._task = asyncio.get_running_loop().create_task(
            self._run(list(nodes)), name=f"failover:{self.d.node}")

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
        d = self.d
        ledger = d.ledger
        assert ledger is not None and d.redis is not None
        holder = f"takeover:{d.node}:{d.run}"
        taken = await ledger.store.acquire_lease(lost, holder, d.lease)
        if taken.holder != holder:
            return None
        log.warning("event=failover_fenced lost=%s by=%s token=%d", lost, d.node, taken.token)
        try:
            k = d.keys
            rows: Any = await d.fenced(
                lua.TAKE, [k.nodes, k.tables, k.version],
                [lost, d.node, d.run, d.url, k.table_prefix, k.node_prefix,
                 *d.lease_ends()])
            if rows is None or rows is False:
                return None
            await d.announce()
            log.warning("event=failover_started lost=%s by=%s tables=%d", lost, d.node,
                        len(rows) // 3)
            voided = await void_hands_of(ledger, lost)
            jackpot = d.registry.jackpot
            replayed = await take_over(jackpot, lost) if jackpot.coord is not None else 0
            opened = await self._reopen(lost, rows)
            cashed = await cash_out_rest(ledger, lost)
        finally:
            with contextlib.suppress(Exception):
                await ledger.store.release_lease(lost, holder)
        self.taken.append((lost, opened))
        log.warning("event=failover_done lost=%s by=%s tables=%d voided=%d "
                    "jackpot_reports=%d cashed_out=%d", lost, d.node, len(opened),
                    len(voided), replayed, len(cashed))
        return opened

    async def _reopen(self, lost: str, rows: list[Any]) -> list[str]:
        d = self.d
        assert d.ledger is not None
        opened = []
        for i in range(0, len(rows) - 2, 3):
            table_id, run, text = str(rows[i]), str(rows[i + 1]), str(rows[i + 2] or "")
            if not text or table_id in d.registry.actors:
                continue  # no state to reopen it from: its chips are cashed out (step 5)
            if is_practice_table(table_id):  # issue 24: its bots were the lost process's;
                continue  # its play money goes back to `practice` (step 5, home_account)
            try:
                state = TableState.from_json(text)
                state.seq += SEQ_JUMP
                spec_of(state.create, d.registry.config)  # a table it can rebuild, first
                stacks = await take_table(d.ledger, table_id, lost, run,
                                          {s.player for s in state.seats})
                d.registry.adopt(state, stacks, exact=False)  # (a record, not the handover)
                changed = sum(stacks.get(s.player, 0) != s.stack for s in state.seats)
                log.info("event=failover_stacks table=%s seats=%d from_ledger=%d",
                         table_id, len(stacks), changed)
            except Exception:
                log.exception("event=failover_table_failed table=%s lost=%s", table_id, lost)
                continue
            opened.append(table_id)
        return opened

    async def fence_lost(self) -> None:
        """Tables open here that another process owns now (this one was cut off long enough
        for a failover to take it over): checked in Redis one by one (the copy may predate
        an adoption here), then stopped at once, their players sent to the owner."""
        assert self.d.redis is not None
        for table_id, actor in list(self.d.registry.actors.items()):
            owner = self.d.copy.owner.get(table_id)
            if owner is None or owner == self.d.node or actor.stopped:
                continue
            node, run, url = await self.d.redis.call("HMGET", self.d.keys.table(table_id),
                                                   "node", "run", "url")
            if node is None or (node == self.d.node and run == self.d.run) or not url:
                continue
            actor.call(self._fencer(actor, str(url)))

    def _fencer(self, actor: Any, url: str) -> Callable[[], None]:
        def stop() -> None:
            if fence(actor, url):
                self.d.registry.forget(actor, reason="taken over")
        return stop
