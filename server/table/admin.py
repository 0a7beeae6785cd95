"""What the operator's admin API reads of a table and does to it, from the table's outside.

Rule of this module: the operator never changes a table's state itself. Its calls go through
:class:`~server.table.registry.TableRegistry` (``operator_tables``, ``close_table``,
``remove_player``, ``notify_table``), which runs them in the table's own task; a player is
taken off a table only through the table's own ``leave`` path, with an :class:`AnswerSink`
standing in for a connection (the answer is kept, nothing is sent to the player's sockets
but the usual ``left`` event).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.requests import Leave
from server.table.api import Envelope

if TYPE_CHECKING:
    from server.table.actor import TableActor

__all__ = ["AnswerSink", "leave", "occupants"]


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


def occupants(actor: TableActor) -> dict[str, Any]:
    """The players (seat, id, name, stack with pending top-ups, connected, sitting out,
    leaving) of ``actor``'s table, whether a hand runs, and its load (queued items,
    connections)."""
    players = [{"seat": seat, "player_id": st.player_id, "name": st.name,
                "stack": st.stack + st.topup, "connected": st.sink is not None,
                "sitting_out": st.sitting_out, "leaving": st.leaving}
               for seat, st in enumerate(actor.seats) if st is not None]
    return {"players": players, "in_hand": actor.in_hand, "queued": actor.inbox.qsize(),
            "connections": len(actor.sinks), "closing": actor.closing}


async def leave(actor: TableActor, player_id: str) -> dict[str, Any]:
    """``player_id`` leaves ``actor``'s table through its ``leave`` handler (run this in the
    actor's task): ``ok`` (chips back to the balance now, or ``pending`` until the running
    hand ends, or off the waiting list) or ``error not_seated``."""
    sink = AnswerSink(player_id)
    await actor.seat_desk.leave(Envelope(Leave(rid=None, table=actor.table_id), sink))
    return sink.message
