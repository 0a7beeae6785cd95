"""Live table moves (issue 17): a draining process hands each table to another at the end of
its hand, with its seats, stacks, button, time banks and waiting list, and its players follow.

Rule of this module: the owner of a table never writes its chips elsewhere and the taker never
plays it before the one atomic change of owner in Redis (:data:`~server.cluster.keys.ACCEPT`).
The steps, for one table (``docs/architecture.md``, "Live table moves"):

1. :meth:`Moves.drain` (``SIGTERM``; the directory already says this node is draining, so no
   table is placed here): the table starts no new hand (asked by a message:
   :meth:`~server.table.actor.TableActor.hold_for_move`, the table's ``HOLDING`` phase); once
   its running hand is over, :func:`server.table.handoff.hand_over` runs in its task, so
   nothing of it changes from then on. This module never writes a table: it asks the actor
   (its inbox) and awaits the answer.
2. The owner writes its state through the saved states' one path (:mod:`server.cluster.states`,
   the table's ``state``), then the taker's name (:data:`~server.cluster.keys.OFFER`), and
   publishes ``offer <table> <owner>`` on the taker's inbox channel (the least-loaded live
   process that is not draining).
3. The taker :data:`~server.cluster.keys.ACCEPT` accepts (owner changed; from here on ``moved``
   sends everyone there) and reads the saved state (test decks travel in it), moves the chips
   in one keyed ledger batch (:func:`server.ledger.takeover.take_table`: the balances, not
   the owner's word), opens the table with the same id and state, its players disconnected
   until they come back, and publishes ``taken <table>`` back (a taker that is draining
   itself answers ``refused <table>`` and takes nothing).
4. The owner pushes ``moved`` to every connection following the table and forgets it (the
   seats emptied without a chip moving). ``refused``, or no answer within
   :data:`OFFER_TIMEOUT`: it
   :data:`~server.cluster.keys.CANCEL` withdraws the offer; that fails only when the table was taken
   meanwhile (then it is gone all the same), else the table stays here and the ordinary
   shutdown closes it (everyone cashed out).

Ports (:mod:`server.cluster.ports`): the directory as :class:`~server.cluster.ports.Owning`,
the subscriptions as :class:`~server.cluster.ports.Bus` (the node's inbox channel), the saved
states as :class:`~server.cluster.ports.Saving`, the registry as
:class:`~server.cluster.ports.Tables`; the ledger step (``take``) is injected, so moves are built
alone with fakes in tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from server.cluster import keys as lua
from server.cluster.ports import Bus, Owning, Saving, Tables
from server.cluster.tasks import cancel_all
from server.ledger.takeover import take_table
from server.redisio import RedisScriptError, RedisUnavailable
from server.table.handoff import TableState, hand_over

if TYPE_CHECKING:
    from server.ledger.journal import Ledger
    from server.table.actor import TableActor

__all__ = ["OFFER_TIMEOUT", "Moves", "Take"]

log = logging.getLogger("server.cluster")

OFFER_TIMEOUT = 5.0
"""Seconds an owner waits for ``taken`` before it withdraws its offer."""

Take = Callable[[str, str, str, set[str]], Awaitable[dict[str, int]]]
"""``take(table, owner, owner's run, players)``: the table's chips moved into this process's
accounts (:func:`server.ledger.takeover.take_table`), player -> stack."""


def ledger_take(ledger: Callable[[], Ledger | None]) -> Take:
    """:data:`Take` through the process's ledger."""
    async def take(table_id: str, owner: str, run: str, players: set[str]) -> dict[str, int]:
        led = ledger()
        assert led is not None, "moves need the process's ledger"
        return await take_table(led, table_id, owner, run, players)
    return take


class Moves:
    """This process's live moves, both sides (see the module docstring)."""

    def __init__(self, owning: Owning, bus: Bus, states: Saving, tables: Tables,
                 take: Take) -> None:
        self._owning = owning
        self._bus = bus
        self._states = states
        self._tables = tables
        self._take_chips = take
        self._taken: dict[str, asyncio.Future[bool]] = {}  # table -> taken or refused
        self._jobs: set[asyncio.Task[None]] = set()
        self._inbox = owning.me.keys.inbox(owning.me.node)
        self.adopted: list[str] = []  # tables taken here (tests, logs)
        self.also: Callable[[float], Awaitable[int]] | None = None
        """Issue 27: what else a drain hands over (the tournaments: the hall's)."""

    # ------------------------------------------------------------------ life
    def start(self) -> None:
        """Listen to this node's inbox (the subscriptions subscribe it)."""
        self._bus.on(self._inbox, self._heard)

    async def close(self) -> None:
        self._bus.off(self._inbox, self._heard)
        await cancel_all(self._jobs)
        self._jobs.clear()

    def _heard(self, _channel: str, message: str) -> None:
        parts = message.split()
        if len(parts) == 3 and parts[0] == "offer":
            job = asyncio.get_running_loop().create_task(self._take(parts[1], parts[2]))
            self._jobs.add(job)
            job.add_done_callback(self._jobs.discard)
        elif len(parts) == 2 and parts[0] in ("taken", "refused"):
            fut = self._taken.get(parts[1])
            if fut is not None and not fut.done():
                fut.set_result(parts[0] == "taken")

    # ------------------------------------------------------------------ the owner's side
    def leaving(self, table_id: str) -> bool:
        """Whether ``table_id`` is offered to another process right now: the directory
        refusing this process's write of it (its owner changed) is expected."""
        return table_id in self._taken

    async def drain(self, deadline: float) -> int:
        """Hand every table of this process to others (each at the end of its hand, within
        ``deadline`` seconds); how many moved. The others stay for the ordinary shutdown, as
        does a practice table (issue 24: its bots are this process's; it closes with it, its
        play money back to the ledger's ``practice`` account), and a tournament's table (issue
        27: its director is this process's and deals its hands; it is restored with it)."""
        actors = [a for a in self._tables.actors.values()
                  if not a.practice and a.tourney is None]
        if self.also is not None:  # (issue 27: the tournaments, each between its hands)
            actors_done, _ = await asyncio.gather(
                asyncio.gather(*(self.move(a, deadline) for a in actors)), self.also(deadline))
            done = list(actors_done)
        else:
            done = await asyncio.gather(*(self.move(a, deadline) for a in actors))
        if not actors:
            return 0
        log.info("event=drain_moved node=%s moved=%d of=%d", self._owning.me.node, sum(done),
                 len(actors))
        return sum(done)

    async def move(self, actor: TableActor, deadline: float) -> bool:
        """Move one table to the least-loaded other process (see the module docstring)."""
        end = time.monotonic() + deadline
        try:  # (a message to the table's task: it answers once no new hand can start)
            held = await asyncio.wait_for(actor.hold_for_move(), deadline)
        except TimeoutError:
            held = False
        if not held:  # closing or stopped already (or moved by another call): it stays
            return False
        while time.monotonic() < end and not actor.stopped:
            if actor.in_hand:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(actor.hand_end(), max(0.0, end - time.monotonic()))
                continue
            target = self._owning.least_loaded()
            if target is None:
                log.warning("event=move_no_target table=%s", actor.table_id)
                break
            send = self._sender(target.name, target.url)
            try:
                url = await asyncio.wait_for(
                    actor.ask(functools.partial(hand_over, actor, send)),
                    OFFER_TIMEOUT * 2 + max(0.0, end - time.monotonic()))
            except (TimeoutError, RedisUnavailable, RedisScriptError) as exc:
                log.error("event=move_failed table=%s error=%r", actor.table_id, exc)
                break
            if url is not None:
                self._tables.forget(actor, reason="moved")
                return True
            if not actor.in_hand:
                break
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(actor.release_hold(), OFFER_TIMEOUT)
        return False

    def _sender(self, target: str, url: str) -> Callable[[TableState], Awaitable[str | None]]:
        async def send(state: TableState) -> str | None:
            return await self.offer(state, target, url)
        return send

    async def offer(self, state: TableState, target: str, url: str) -> str | None:
        """Steps 2 and 4: offer ``state`` to ``target``; its URL once it took the table."""
        me = self._owning.me
        key = me.keys.table(state.table)
        if not await self._states.save(state):  # the one path of a table's state
            return None
        if not await self._owning.fenced(lua.OFFER, [key], [me.node, me.run, target]):
            return None
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._taken[state.table] = fut
        try:
            await self._bus.publish(me.keys.inbox(target), f"offer {state.table} {me.node}")
            with contextlib.suppress(TimeoutError):
                if await asyncio.wait_for(fut, OFFER_TIMEOUT):
                    return url
            if await self._owning.script(lua.CANCEL, [key], [me.node, me.run]):
                log.warning("event=move_withdrawn table=%s target=%s", state.table, target)
                return None
            return url  # taken after all (its answer was late)
        finally:
            self._taken.pop(state.table, None)

    # ------------------------------------------------------------------ the taker's side
    async def _take(self, table_id: str, owner: str) -> None:
        """Step 3: take ``table_id`` offered by ``owner`` (nothing if the offer is gone)."""
        me = self._owning.me
        if self._owning.draining():  # stopping too: the owner withdraws and closes it itself
            await self._bus.publish(me.keys.inbox(owner), f"refused {table_id}")
            return
        try:
            got: Any = await self._owning.fenced(
                lua.ACCEPT, [me.keys.table(table_id), me.keys.version],
                [owner, me.node, me.run, me.url])
            if not got:
                return
            old_run, text = str(got[0]), str(got[1])
            state = TableState.from_json(text)
            stacks = await self._take_chips(table_id, owner, old_run,
                                            {s.player for s in state.seats})
            self._tables.adopt(state, stacks)
            self.adopted.append(table_id)
            await self._bus.publish(me.keys.inbox(owner), f"taken {table_id}")
            log.info("event=table_taken table=%s from=%s seats=%d", table_id, owner,
                     len(stacks))
        except Exception:
            log.exception("event=table_take_failed table=%s from=%s", table_id, owner)
