"""The embedded jackpot's durable state: one SQLite file (``jackpot.sqlite3`` in the data dir).

Rule of this module: it stores what :class:`~server.jackpot.memory.MemoryCoordinator` must not
lose across a restart (CSP-08, CSP-12) and nothing else: the pools and their totals, the
contribution keys already added (so a replayed report adds nothing twice), the hands already
paid, the payout records not yet credited and the pool's history.  Registrations, leases and
reports waiting in the order are not stored: a restart voids every running hand.

Writes are deltas, queued in call order (:meth:`PoolFile.write`, no ``await``) and committed
by one worker thread, many per transaction (``synchronous=FULL``: a committed delta survives a
power cut); each write's future is answered after its ``COMMIT``, and writes commit in the order
they were queued, so awaiting the last one waits for all.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["JACKPOT_FILE", "Delta", "PoolFile", "Saved"]

JACKPOT_FILE = "jackpot.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pool (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS contrib (key TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS done (hand TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS due (key TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS history (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL,
    hand TEXT NOT NULL, key TEXT NOT NULL, pool TEXT NOT NULL, amount INTEGER NOT NULL,
    after INTEGER NOT NULL, ts INTEGER NOT NULL);
"""


@dataclass
class Delta:
    """One step's changes: ``values`` (``minor``, ``major``, ``split``, ``opened`` and the
    totals) replace the stored ones; the rest are rows added (``due_closed``: removed)."""

    values: dict[str, int] = field(default_factory=dict)
    contrib: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    due: list[tuple[str, str]] = field(default_factory=list)
    due_closed: list[str] = field(default_factory=list)
    history: list[tuple[int, str, str, str, str, int, int, int]] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.values or self.contrib or self.done or self.due or self.due_closed
                    or self.history)


@dataclass
class Saved:
    """Everything :meth:`PoolFile.load` read back."""

    values: dict[str, int]
    contrib: list[str]
    done: list[str]
    due: list[str]
    history: list[tuple[int, str, str, str, str, int, int, int]]


class PoolFile:
    """``PoolFile(path)``; ``await load()`` opens it; ``write(delta)``; ``await close()``."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="jackpot-db")
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._pending: list[tuple[Delta, asyncio.Future[None], asyncio.AbstractEventLoop]] = []
        self._queued = False

    @classmethod
    def in_dir(cls, data_dir: Path | str) -> PoolFile:
        """The embedded server's file: ``jackpot.sqlite3`` in ``data_dir``."""
        return cls(Path(data_dir) / JACKPOT_FILE)

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def _open(self) -> None:
        if self._db is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.executescript(_SCHEMA)
        self._db = db

    async def load(self) -> Saved:
        """Open the file (created if needed) and read back what it holds."""
        def read() -> Saved:
            self._open()
            db = self._db
            assert db is not None
            values = {str(n): int(v) for n, v in db.execute("SELECT name, value FROM pool")}
            contrib = [str(k) for (k,) in db.execute("SELECT key FROM contrib")]
            done = [str(h) for (h,) in db.execute("SELECT hand FROM done")]
            due = [str(r) for (r,) in db.execute("SELECT record FROM due ORDER BY key")]
            history = [(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), int(r[5]),
                        int(r[6]), int(r[7]))
                       for r in db.execute("SELECT * FROM history ORDER BY seq")]
            return Saved(values, contrib, done, due, history)
        saved: Saved = await self._run(read)
        return saved

    def write(self, delta: Delta) -> asyncio.Future[None]:
        """Queue ``delta`` (in call order); the future is answered once it is committed."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._pending.append((delta, future, loop))
            flush, self._queued = not self._queued, True
        if flush:
            self._pool.submit(self._flush)
        return future

    def _flush(self) -> None:
        with self._lock:
            items, self._pending = self._pending, []
            self._queued = False
        error: BaseException | None = None
        try:
            db = self._db
            if db is None:
                raise RuntimeError("the jackpot file is not open (load() first)")
            db.execute("BEGIN IMMEDIATE")
            try:
                for delta, _, _ in items:
                    _apply(db, delta)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except Exception as exc:  # nothing of this group was written
            error = exc
        for _, future, loop in items:
            loop.call_soon_threadsafe(_answer, future, error)

    async def close(self) -> None:
        def shut() -> None:
            if self._db is not None:
                self._db.close()
                self._db = None
        await self._run(shut)
        self._pool.shutdown(wait=True)


def _answer(future: asyncio.Future[None], error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(None)


def _apply(db: sqlite3.Connection, d: Delta) -> None:
    db.executemany("INSERT OR REPLACE INTO pool VALUES (?, ?)", list(d.values.items()))
    db.executemany("INSERT OR IGNORE INTO contrib VALUES (?)", [(k,) for k in d.contrib])
    db.executemany("INSERT OR IGNORE INTO done VALUES (?)", [(h,) for h in d.done])
    db.executemany("INSERT OR REPLACE INTO due VALUES (?, ?)", list(d.due))
    db.executemany("DELETE FROM due WHERE key=?", [(k,) for k in d.due_closed])
    rows: Sequence[tuple[Any, ...]] = d.history
    db.executemany("INSERT OR REPLACE INTO history VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
