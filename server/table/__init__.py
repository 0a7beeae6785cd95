"""Table actors: one asyncio task per table (the only writer of that table), per-viewer
projection, the table registry and clocks. Start at :mod:`server.table.api`."""

from server.table.api import Clock, Envelope, Sink, TableActorAPI, TableRegistryAPI, Timer
from server.table.clock import AsyncioClock, FakeClock

__all__ = [
    "AsyncioClock",
    "Clock",
    "Envelope",
    "FakeClock",
    "Sink",
    "TableActorAPI",
    "TableRegistryAPI",
    "Timer",
]
