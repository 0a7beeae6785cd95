"""Group commit on one SQLite worker thread, shared by the ledger and the hand histories.

Rule of this module: callers on the event loop never wait for a commit of their own.  The
items queued while the worker thread is busy are applied in one ``BEGIN IMMEDIATE`` ...
``COMMIT`` (each item by ``apply_one``, which keeps its own savepoint so a refused item rolls
back alone and reports its exception as its result), and every caller is answered on its own
loop after the ``COMMIT`` (one loop wake-up per group): one thread job and one sync for many
tables.  When the commit
itself fails, nothing of the group was written and every caller gets that exception.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Generic, TypeVar

I = TypeVar("I")  # noqa: E741
R = TypeVar("R")

__all__ = ["GroupCommit"]


class GroupCommit(Generic[I, R]):
    """``await group.submit(item)``: ``item`` applied by ``apply_one`` in the next group."""

    def __init__(self, pool: Executor, db: Callable[[], sqlite3.Connection],
                 apply_one: Callable[[sqlite3.Connection, I], R | BaseException]) -> None:
        self._pool = pool
        self._db = db
        self._apply_one = apply_one
        self._pending: list[tuple[I, asyncio.Future[R], asyncio.AbstractEventLoop]] = []
        self._lock = threading.Lock()
        self._queued = False

    async def submit(self, item: I) -> R:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()
        with self._lock:
            self._pending.append((item, future, loop))
            queue_flush, self._queued = not self._queued, True
        if queue_flush:
            self._pool.submit(self._flush)
        return await future

    def _flush(self) -> None:
        """Worker thread: apply every pending item in one transaction, then answer."""
        with self._lock:
            items, self._pending = self._pending, []
            self._queued = False
        results: list[R | BaseException] = []
        try:
            db = self._db()
            db.execute("BEGIN IMMEDIATE")
            try:
                for item, _, _ in items:
                    results.append(self._apply_one(db, item))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except Exception as exc:  # nothing of this group was committed: every caller fails
            results = [exc] * len(items)
        # one wake-up of each callers' loop for the whole group (a `call_soon_threadsafe` is a
        # write to the loop's self-pipe: a system call and a loop turn each)
        by_loop: dict[asyncio.AbstractEventLoop,
                      list[tuple[asyncio.Future[R], R | BaseException]]] = {}
        for (_, future, loop), result in zip(items, results, strict=True):
            by_loop.setdefault(loop, []).append((future, result))
        for loop, answers in by_loop.items():
            loop.call_soon_threadsafe(_resolve_all, answers)


def _resolve_all(answers: list[tuple[asyncio.Future[R], R | BaseException]]) -> None:
    for future, result in answers:
        if future.done():  # the caller was cancelled meanwhile
            continue
        if isinstance(result, BaseException):
            future.set_exception(result)
        else:
            future.set_result(result)
