"""What a table actor's inbox holds besides requests: timer wake-ups and internal calls.

Rule of this module: every timer the table arms puts a :class:`Wake` of one
:class:`WakeKind` on the actor's inbox (:class:`~server.table.turn_clock.TurnClock` arms
them); anything else that must run inside the actor (a connection's detach, a registry call, a
delayed spectator frame) is a :class:`Call`; :data:`STOP` ends the actor's loop.  The actor
handles each item in its own task, one at a time, so nothing here touches table state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum, unique
from typing import Any, Final

__all__ = ["STOP", "Call", "Wake", "WakeKind", "in_actor"]


@unique
class WakeKind(StrEnum):
    NEXT_HAND = "next_hand"              # the pause between two hands is over (`spec.pause`)
    TURN = "turn"                        # the seat to act used its action clock
    BANK = "bank"                        # ... and then its time bank: it times out
    GRACE = "grace"                      # a disconnected seat's reconnect grace is over
    ANTE_DEADLINE = "ante_deadline"      # Caribbean: the antes' time is over
    DECIDE_DEADLINE = "decide_deadline"  # Caribbean: the play/fold decisions' time is over


@dataclass(frozen=True, slots=True)
class Wake:
    """A timer fired. ``token``: the clock's token when it was armed (a stale one is
    dropped); ``arg``: the seat it concerns, if any."""

    kind: WakeKind
    token: int
    arg: Any = None


@dataclass(frozen=True, slots=True)
class Call:
    """Run ``fn()`` (sync or async) inside the actor's task."""

    fn: Callable[[], Any]


STOP: Final = object()
"""Put on the inbox: the actor's loop returns."""


def in_actor(actor: Any, fn: Callable[[], Any], *, reraise: bool = False) -> asyncio.Future[Any]:
    """Run ``fn()`` (sync or async) in ``actor``'s task (through ``actor.call``); its result
    or its error on the returned future. ``reraise``: the error also ends the actor's task
    (the registry then recovers the table, as for any crash); else the table goes on."""
    fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    async def job() -> None:
        try:
            result = fn()
            if hasattr(result, "__await__"):
                result = await result
        except Exception as exc:
            if not fut.done():
                fut.set_exception(exc)
            if reraise:
                raise
            return
        if not fut.done():
            fut.set_result(result)

    actor.call(job)
    return fut
