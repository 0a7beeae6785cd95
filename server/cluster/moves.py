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
2. The owner writes its state and the taker's name (:data:`~server.cluster.keys.OFFER`) and
   publishes ``offer <table> <owner>`` on the taker's inbox channel (the least-loaded live
   process that is not draining).
3. The taker :data:`~server.cluster.keys.ACCEPT` accepts (owner changed; from here on ``moved``
   sends everyone there), moves the chips in one keyed ledger batch
   (:func:`server.ledger.takeover.take_table`: the balances, not the owner's word), opens the
   table with the same id and state, its players disconnected until they come back, and
   publishes ``taken <table>`` back (a taker that is draining itself answers ``refused
   <table>`` and takes nothing).
4. The owner pushes ``moved`` to every connection following the table and forgets it (the
   seats emptied without a chip moving). ``refused``, or no answer within
   :data:`OFFER_TIMEOUT`: it
   :data:`~server.cluster.keys.CANCEL` withdraws the offer; that fails only when the table was taken
   meanwhile (then it is gone all the same), else the table stays here and the ordinary
   shutdown closes it (everyone cashed out).
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
from server.cluster.tasks import cancel_all
from server.ledger.takeover import take_table
from server.redisio import RedisScriptError, RedisUnavailable
from server.table.handoff import TableState, hand_over

if TYPE_CHECKING:
    from server.cluster.directory import Directory
    from server.table.actor import TableActor

__all__ = ["OFFER_TIMEOUT", "Moves"]

log = logging.getLogger("server.cluster")

OFFER_TIMEOUT = 5.0
"""Seconds an owner waits for ``taken`` before it withdraws its offer."""

class Moves:
    """This process's live moves, both sides (see the module docstring)."""

    def __init__(self, directory: Directory) -> None:
        self.d = directory
        self._taken: dict[str, asyncio.Future[bool]] = {}  # table -> taken or refused
        self._task: asyncio.Task[None] | None = None
        self._jobs: set[asyncio.Task[None]] = set()
        self.moved: dict[str, str] = {}  # tables handed over by this process -> their URL
        self.adopted: list[str] = []  # tables taken here (tests, logs)

    # ------------------------------------------------------------------ life
    async def start(self) -> None:
        ready = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(
            self._listen(ready), name=f"moves:{self.d.node}")
        await asyncio.wait_for(ready.wait(), 10.0)

    async def close(self) -> None:
        await cancel_all([self._task, *self._jobs])
        self._task = None
        self._jobs.clear()

    async def _listen(self, ready: asyncio.Event) -> None:
        redis = self.d.redis
        assert redis is not None
        async for channel, message in redis.subscribe(self.d.keys.inbox(self.d.node),
                                                      self.d.keys.changed, ready=ready.set):
            if channel == self.d.keys.changed:  # (the directory's announcements ride along)
                if message != self.d.node:
                    self.d.want_read()
                continue
            parts = str(message).split()
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
        """Whether ``table_id`` is offered to another process or was handed over: the
        directory refusing this process's write of it (its owner changed) is expected."""
        return table_id in self._taken or table_id in self.moved

    async def drain(self, deadline: float) -> int:
        """Hand every table of this process to others (each at the end of its hand, within
        ``deadline`` seconds); how many moved. The others stay for the ordinary shutdown, as
        does a practice table (issue 24: its bots are this process's; it closes with it, its
        play money back to the ledger's ``practice`` account)."""
        actors = [a for a in self.d.registry.actors.values() if not a.practice]
        if not actors:
            return 0
        done = await asyncio.gather(*(self.move(a, deadline) for a in actors))
        log.info("event=drain_moved node=%s moved=%d of=%d", self.d.node, sum(done),
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
            target = self.d.least_loaded()
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
                self.moved[actor.table_id] = url
                self.d.registry.forget(actor, reason="moved")
                return True
            if not actor.in_hand:
                break
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(actor.release_hold(), OFFER_TIMEOUT)
        return False

    def _sender(self, target: str, url: str) -> Callable[[TableState], Awaitable[str | None]]:
        async def send(state: TableState) -> str | None:
            return await self._offer(state, target, url)
        return send

    async def _offer(self, state: TableState, target: str, url: str) -> str | None:
        """Steps 2 and 4: offer ``state`` to ``target``; its URL once it took the table."""
        redis, k, d = self.d.redis, self.d.keys, self.d
        assert redis is not None
        key = k.table(state.table)
        if not await d.fenced(lua.OFFER, [key], [d.node, d.run, target, state.to_json()]):
            return None
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._taken[state.table] = fut
        try:
            await redis.publish(k.inbox(target), f"offer {state.table} {d.node}")
            with contextlib.suppress(TimeoutError):
                if await asyncio.wait_for(fut, OFFER_TIMEOUT):
                    return url
        finally:
            self._taken.pop(state.table, None)
        if await redis.script(lua.CANCEL)(keys=[key], args=[d.node, d.run]):
            log.warning("event=move_withdrawn table=%s target=%s", state.table, target)
            return None
        return url  # taken after all (its answer was late)

    # ------------------------------------------------------------------ the taker's side
    async def _take(self, table_id: str, owner: str) -> None:
        """Step 3: take ``table_id`` offered by ``owner`` (nothing if the offer is gone)."""
        d = self.d
        redis = d.redis
        assert redis is not None and d.ledger is not None
        if d.draining:  # stopping too: the owner withdraws at once and closes it itself
            await redis.publish(d.keys.inbox(owner), f"refused {table_id}")
            return
        try:
            got: Any = await d.fenced(lua.ACCEPT, [d.keys.table(table_id), d.keys.version],
                                      [owner, d.node, d.run, d.url])
            if not got:
                return
            old_run, text = str(got[0]), str(got[1])
            state = TableState.from_json(text)
            stacks = await take_table(d.ledger, table_id, owner, old_run,
                                      {s.player for s in state.seats})
            d.registry.adopt(state, stacks)
            self.adopted.append(table_id)
            await redis.publish(d.keys.inbox(owner), f"taken {table_id}")
            log.info("event=table_taken table=%s from=%s seats=%d", table_id, owner,
                     len(stacks))
        except Exception:
            log.exception("event=table_take_failed table=%s from=%s", table_id, owner)
