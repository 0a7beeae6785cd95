"""One saved state per table (issue 26): what a failover reopens it from and what a live move
hands over, written through one path.

Rule of this module: a table's state (:class:`~server.table.handoff.TableState`: its spec, seats
and stacks, button, hand number, host settings, test decks) is read only in the table's task,
at two moments: at the end of each hand (the registry's ``played_listener``: so the button after
a failover is where the last hand left it) and when its lobby entry changes between two hands
(a player sat down or left: the seats a failover finds). A change during a hand is not read:
that hand's end reads it. The read is kept, the last one per table, and the directory's task
writes what is kept (:meth:`TableStates.write`, at most one pass per ``refresh``), each with
:data:`~server.cluster.keys.STATE` (fenced: the writer's token) into the table's ``state`` field,
the only writer of that field; a live move's handover (:meth:`TableStates.save`) goes through
the same script, and the taker reads the same field.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from server.cluster import keys as lua
from server.cluster.ports import Owning, Tables
from server.table.handoff import TableState, export_state

if TYPE_CHECKING:
    from server.table.actor import TableActor

__all__ = ["TableStates"]

log = logging.getLogger("server.cluster")


class TableStates:
    """The saved states of this process's tables (see the module docstring). ``wake()``
    asks the directory's task for a turn."""

    def __init__(self, owning: Owning, tables: Tables, wake: Callable[[], None]) -> None:
        self._owning = owning
        self._tables = tables
        self._wake = wake
        self._kept: dict[str, TableState] = {}  # read in the table's task, not written yet
        self._lock = asyncio.Lock()  # one write at a time: a handover is never overtaken
        self.writes = 0  # states written (tests)

    def hand_ended(self, table_id: str) -> None:
        """The registry's ``played_listener``, in the table's task at its hand's end."""
        self._read(table_id, between_hands=False)

    def entry_changed(self, table_id: str) -> None:
        """The registry's ``listing_listener``, in the table's task (or before it starts)."""
        self._read(table_id, between_hands=True)

    def _read(self, table_id: str, *, between_hands: bool) -> None:
        actor = self._tables.actors.get(table_id)
        if actor is None or actor.stopped or (between_hands and actor.in_hand):
            return
        if actor.tourney is not None:  # a tournament's: its director saves and restores it
            return
        self._kept[table_id] = self.export(actor)
        self._wake()

    def export(self, actor: TableActor) -> TableState:
        """The table's state now (in its task)."""
        owner = self._tables.creators.get(actor.table_id, (None, None))[0]
        return export_state(actor, owner=owner)

    def due(self) -> bool:
        return bool(self._kept)

    def drop(self) -> None:
        """The lease is lost: nothing kept is written."""
        self._kept.clear()

    async def write(self) -> None:
        """Write every state kept (the directory's task). A table this process does not own
        in Redis (its entry not written yet: kept for the next pass; moved or taken over:
        dropped) is not written."""
        later: dict[str, TableState] = {}
        try:
            while self._kept:
                table_id, state = self._kept.popitem()
                actor = self._tables.actors.get(table_id)
                if actor is None or actor.stopped:
                    continue
                try:
                    written = await self._write(state)
                except BaseException:
                    later[table_id] = state  # written on the next turn
                    raise
                if not written:  # (its entry comes first: the next pass)
                    later[table_id] = state
        finally:
            for table_id, state in later.items():
                self._kept.setdefault(table_id, state)

    async def save(self, state: TableState) -> bool:
        """Write ``state`` now (a live move's handover, in the table's task): the same path;
        whatever was kept for the table before is older and is dropped."""
        self._kept.pop(state.table, None)
        return await self._write(state)

    async def _write(self, state: TableState) -> bool:
        me = self._owning.me
        async with self._lock:
            done = await self._owning.fenced(lua.STATE, [me.keys.table(state.table)],
                                             [me.node, me.run, state.to_json()])
        self.writes += 1
        return bool(done)
