"""Stopping the cluster's background tasks, bounded.

Rule of this module: a task that reads Redis is cancelled and then waited for at most
``timeout`` seconds (a Redis client that swallows the cancellation while it reconnects must
not hold up a process's shutdown); one that does not stop in time is logged and left.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

__all__ = ["cancel_all"]

log = logging.getLogger("server.cluster")


async def cancel_all(tasks: Iterable[asyncio.Task[None] | None], timeout: float = 2.0) -> None:
    """Cancel ``tasks`` (None entries skipped) and wait for them, at most ``timeout`` s."""
    live = {t for t in tasks if t is not None and not t.done()}
    for task in live:
        task.cancel()
    if not live:
        return
    _, pending = await asyncio.wait(live, timeout=timeout)
    for task in pending:
        log.error("event=cluster_task_stuck task=%s", task.get_name())
