"""The one answer to "where is table X" (issue 26).

Rule of this module: the router's ``moved``, the lobby's rows and the spectators' relay ask
this part, and nothing else answers. A table is "elsewhere" when a live process other than this
one owns it; the answer comes from the directory's last read of the room (the copy: no Redis),
and when the copy does not know the table, from one look-up in Redis
(:data:`~server.cluster.keys.LOCATE`, the owner's lease checked; not kept: a table the copy does
not know, a private one included, is never served to a watcher here, only sent there).
:meth:`Where.now` always asks Redis (a process that may have been cut off checks its own tables
there before it stops one).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from server.cluster import keys as lua
from server.cluster.ports import Me, NodeInfo
from server.ledger.journal import tournament_of
from server.redisio import Redis, RedisScriptError, RedisUnavailable

if TYPE_CHECKING:
    from server.cluster.directory import RoomCopy

__all__ = ["Where"]

log = logging.getLogger("server.cluster")


class Where:
    """Where each table of the room is (see the module docstring). ``copy()``: the
    directory's last read; ``redis()``: the adapter; ``lease_ends()``: the lease key's ends."""

    def __init__(self, me: Me, copy: Callable[[], RoomCopy], redis: Callable[[], Redis | None],
                 lease_ends: Callable[[], tuple[str, str]], *, failover_wait: float = 0.0,
                 poll: float = 0.25, here: Callable[[str], bool] = lambda table_id: False
                 ) -> None:
        self._me = me
        self._copy = copy
        self._redis = redis
        self._lease_ends = lease_ends
        self.failover_wait = failover_wait
        """How long :meth:`find` waits for a table whose owner is gone to be taken over."""
        self._poll = poll
        self._here = here  # whether this process has the table open now (its registry)

    def owner(self, table_id: str) -> NodeInfo | None:
        """The live process other than this one that owns ``table_id``, from the copy."""
        copy = self._copy()
        node = copy.owner.get(table_id)
        if node is None or node == self._me.node:
            return None
        return copy.nodes.get(node)

    def live(self, rows: Iterable[tuple[str, Any]]) -> list[Any]:
        """The lobby's rows ``(node, row)`` of live processes (a dead one's wait for its
        failover)."""
        nodes = self._copy().nodes
        return [row for node, row in rows if node in nodes]

    def watchable(self, table_id: str, player_id: str | None = None) -> bool:
        """Whether a watcher of ``table_id`` may be served here from its owner's public
        stream: a listed table owned elsewhere, ``player_id`` not seated there (a private
        table, one the copy does not know yet, a player's ``resume``, or a signed-in
        viewer's of a tournament's table answers ``moved``)."""
        copy = self._copy()
        if player_id is not None and player_id in copy.seated.get(table_id, ()):
            return False
        if player_id is not None and tournament_of(table_id) is not None:
            return False  # (issue 27: a signed-in viewer of a tournament's table may be one
            # of its players, seated there by a restore the copy has not read yet: its owner)
        return self.owner(table_id) is not None and table_id not in copy.unlisted

    async def find(self, table_id: str) -> str | None:
        """The URL of the live process owning ``table_id`` (not this one): the copy's answer,
        else one look-up in Redis; None: nowhere (``unknown_table``). A table the room still
        has whose owner is not live (its lease ran out and a survivor is taking it over, or
        this process is opening it) is asked again every ``poll`` seconds for up to
        ``failover_wait``: a player's ``resume`` in that window is answered ``moved`` once the
        table has its new owner (this process's own URL when it took the table itself: the
        router then serves the request here), not ``unknown_table`` (which would make them
        give it up)."""
        info = self.owner(table_id)
        if info is not None:
            return info.url
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.failover_wait
        while True:
            found = await self.now(table_id)
            if found is not None:
                return found[1]
            info = self.owner(table_id)
            if info is not None:  # the copy learnt of its new owner
                return info.url
            if self._here(table_id):  # taken over by this very process: ask here again
                return self._me.url
            if loop.time() >= deadline or not await self._in_room(table_id):
                return None
            await asyncio.sleep(self._poll)  # (bounded: failover_wait)

    async def _in_room(self, table_id: str) -> bool:
        """Whether the room's index still has ``table_id`` (a closed table's row is dropped)."""
        redis = self._redis()
        if redis is None:
            return False
        try:
            node = await redis.call("HGET", self._me.keys.table(table_id), "node")
        except (RedisUnavailable, RedisScriptError):
            return True  # Redis itself is failing over: worth asking again
        return node is not None

    async def now(self, table_id: str) -> tuple[str, str] | None:
        """Redis's answer: ``(node, url)`` of the live process owning ``table_id`` when it is
        not this one, else None."""
        redis = self._redis()
        if redis is None:
            return None
        try:
            found = await redis.script(lua.LOCATE)(
                keys=[self._me.keys.table(table_id)],
                args=[self._me.keys.node_prefix, *self._lease_ends()])
        except (RedisUnavailable, RedisScriptError) as exc:
            log.warning("event=cluster_locate_failed table=%s error=%r", table_id[:64], exc)
            return None
        if not found or found[0] == self._me.node:
            return None
        return str(found[0]), str(found[1])
