"""What the operator's admin API reads of a table and does to it, from the table's outside.

Rule of this module: the operator never changes a table's state itself. Its calls go through
:class:`TableAdmin` (``registry.admin``: ``operator_tables``, ``close_table``,
``remove_player``, ``notify_table``), which runs them in the table's own task; a player is
taken off a table only through the table's own ``leave`` path, with an :class:`AnswerSink`
standing in for a connection (the answer is kept, nothing is sent to the player's sockets
but the usual ``left`` event).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from protocol.frames import deliver
from protocol.requests import Leave
from server.table.api import Envelope, Sink
from server.table.seating import SeatDesk
from server.table.seatmap import SeatMap
from server.table.wake import in_actor

__all__ = ["AdministeredTable", "AnswerSink", "TableAdmin", "Tables", "leave", "occupants"]


class AdministeredTable(Protocol):
    """What the operator's calls read of a table, and the one desk they go through (the seat
    desk's own ``leave``, in the table's task): the table actor is one (issue 25: this
    module does not import it)."""

    @property
    def table_id(self) -> str: ...
    @property
    def seats(self) -> SeatMap: ...
    @property
    def seat_desk(self) -> SeatDesk: ...
    @property
    def sinks(self) -> dict[int, Sink]: ...
    @property
    def inbox(self) -> asyncio.Queue[object]: ...
    @property
    def in_hand(self) -> bool: ...
    @property
    def closing(self) -> bool: ...
    @property
    def stopped(self) -> bool: ...
    def summary(self) -> dict[str, Any]: ...
    def call(self, fn: Callable[[], Any]) -> None: ...
    async def close_for_good(self, reason: str, *, after_hand: bool = False) -> None: ...


class Tables(Protocol):
    """The registry, as the operator's calls use it."""

    @property
    def actors(self) -> Mapping[str, AdministeredTable]: ...
    def forget(self, actor: Any, reason: str = "idle") -> None: ...


class _KeepCodec:
    """Keeps the message an :class:`AnswerSink` is sent (nothing is encoded)."""

    subprotocol = "operator"

    def __init__(self) -> None:
        self.last: dict[str, Any] = {}

    def encode(self, msg: dict[str, Any]) -> str:
        self.last = dict(msg)
        return ""


class AnswerSink:
    """A stand-in connection of ``player_id`` for a request the operator makes on their
    behalf: ``message`` is the table's answer."""

    conn_id = -1
    name: str | None = None

    def __init__(self, player_id: str) -> None:
        self.player_id: str | None = player_id
        self.codec = _KeepCodec()

    @property
    def message(self) -> dict[str, Any]:
        return self.codec.last

    def send(self, frame: str | bytes) -> None:
        """The answer is the codec's last message (see ``_KeepCodec``)."""


def occupants(actor: AdministeredTable) -> dict[str, Any]:
    """The players (seat, id, name, stack with pending top-ups, connected, sitting out,
    leaving) of ``actor``'s table, whether a hand runs, and its load (queued items,
    connections)."""
    players = [{"seat": seat, "player_id": st.player_id, "name": st.name,
                "stack": st.stack + st.topup, "connected": st.sink is not None,
                "sitting_out": st.sitting_out, "leaving": st.leaving}
               for seat, st in enumerate(actor.seats) if st is not None]
    return {"players": players, "in_hand": actor.in_hand, "queued": actor.inbox.qsize(),
            "connections": len(actor.sinks), "closing": actor.closing}


async def leave(actor: AdministeredTable, player_id: str) -> dict[str, Any]:
    """``player_id`` leaves ``actor``'s table through its ``leave`` handler (run this in the
    actor's task): ``ok`` (chips back to the balance now, or ``pending`` until the running
    hand ends, or off the waiting list) or ``error not_seated``."""
    sink = AnswerSink(player_id)
    await actor.seat_desk.leave(Envelope(Leave(rid=None, table=actor.table_id), sink))
    return sink.message


class TableAdmin:
    """The operator's calls on the tables of one registry (``registry.admin``), each run in
    the table's own task."""

    def __init__(self, registry: Tables) -> None:
        self.registry = registry

    def operator_tables(self) -> list[dict[str, Any]]:
        """Every open table with its players and load (the admin API's table list): the
        lobby entry (:meth:`TableActor.summary`) and :func:`occupants`."""
        return [{**actor.summary(), **occupants(actor)}
                for actor in self.registry.actors.values() if not actor.stopped]

    async def close_table(self, table_id: str, reason: str = "operator") -> bool:
        """Operator: close ``table_id`` for good, in its own task: the running hand is voided
        and every player gets their stack from before it, viewers get ``table_closed``
        (``reason``), everyone is cashed out, then the table is forgotten. False when there
        is no such open table."""
        actor = self.registry.actors.get(table_id)
        if actor is None or actor.stopped or actor.closing:
            return False
        await self._in_actor(actor, lambda: actor.close_for_good(reason))
        self.registry.forget(actor, reason=reason)
        return True

    async def remove_player(self, table_id: str, player_id: str) -> dict[str, Any] | None:
        """Operator: ``player_id`` leaves ``table_id`` through its ``leave`` path
        (:func:`leave`: its answer); None when there is no such table."""
        actor = self.registry.actors.get(table_id)
        if actor is None or actor.stopped:
            return None
        result: dict[str, Any] = await self._in_actor(
            actor, lambda: leave(actor, player_id))
        return result

    def notify_table(self, table_id: str, message: dict[str, Any]) -> int | None:
        """Send ``message`` (not a table event: no ``seq``) to every connection watching or
        seated at ``table_id``, encoded once per codec; how many got it (None: no table)."""
        actor = self.registry.actors.get(table_id)
        if actor is None or actor.stopped:
            return None
        sinks = list(actor.sinks.values())
        deliver(message, sinks, failed=lambda sink, exc: None)  # (a sink never raises for
        return len(sinks)  # flow control; one that fails is forgotten by the table itself)

    async def _in_actor(self, actor: AdministeredTable, fn: Callable[[], Any],
                        timeout: float = 30.0) -> Any:
        """Run ``fn()`` (sync or async) in ``actor``'s task and return its result."""
        return await asyncio.wait_for(in_actor(actor, fn, reraise=True), timeout)

