"""Table actors: one asyncio task per table (the only writer of that table), per-viewer
projection, the table registry and clocks. Start at :mod:`server.table.api`."""

from server.table.actor import TableActor
from server.table.api import Clock, Envelope, Sink, TableActorAPI, TableRegistryAPI, Timer
from server.table.clock import AsyncioClock, FakeClock
from server.table.jackpot import EmbeddedJackpot
from server.table.registry import TableRegistry

__all__ = [
    "AsyncioClock",
    "Clock",
    "EmbeddedJackpot",
    "Envelope",
    "FakeClock",
    "Sink",
    "TableActor",
    "TableActorAPI",
    "TableRegistry",
    "TableRegistryAPI",
    "Timer",
]
