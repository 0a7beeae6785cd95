"""The embedded ledger store: one SQLite file (stdlib ``sqlite3``), WAL, no server to install.

Rule of this module: one connection, used only by one worker thread; every call (reads too)
is a job on that thread, awaited from the event loop, so nothing blocks the loop and no two
writes interleave. Writes are group-committed: the batches queued while the thread is busy are
applied in one ``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction, each inside its own
``SAVEPOINT`` (a refused batch rolls back alone, so each batch is still all or nothing, with
its balance check and its change together), and every caller is answered only after the
``COMMIT`` (``synchronous=FULL``: a committed batch survives a SIGKILL or a power cut; with
``fsync=False``, ``NORMAL``: it survives a SIGKILL, a power cut may lose the last commits).
One fsync then serves many tables at once.
One process at a time: ``open`` takes an exclusive lock on ``<db>.lock`` (released by the OS
when the process dies), because a second server on the same file would void the first one's
running hands at its start-up; use the Redis store for several processes.
The node leases (:mod:`server.ledger.lease`) behave as Redis's do, kept in this process (the
file lock already makes it the only one), their fencing tokens from the durable counter
``lease:<node>``, so a batch carrying a stale token is refused here too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from server.ledger.groupcommit import GroupCommit
from server.ledger.lease import LeaseState
from server.ledger.store import Batch, Entry, HandMark, Outcome, UserRecord, is_checked

__all__ = ["SqliteSessions", "SqliteStore", "StoreInUse"]

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (name TEXT PRIMARY KEY, balance INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS batches (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT UNIQUE);
CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY AUTOINCREMENT,
    batch INTEGER NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL, amount INTEGER NOT NULL,
    reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS open_hands (hand TEXT PRIMARY KEY, tbl TEXT NOT NULL,
    stacks TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (key TEXT PRIMARY KEY, player_id TEXT NOT NULL,
    name TEXT NOT NULL, salt BLOB NOT NULL, digest BLOB NOT NULL, params TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (sid TEXT PRIMARY KEY, player_id TEXT NOT NULL,
    expires REAL NOT NULL);
CREATE INDEX IF NOT EXISTS sessions_player ON sessions (player_id);
CREATE INDEX IF NOT EXISTS sessions_expires ON sessions (expires);
CREATE TABLE IF NOT EXISTS guests (player_id TEXT PRIMARY KEY, seen REAL NOT NULL);
CREATE INDEX IF NOT EXISTS guests_seen ON guests (seen);
CREATE TABLE IF NOT EXISTS audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, record TEXT NOT NULL);
CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit
    BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit
    BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
"""


class StoreInUse(OSError):
    """Another process has this ledger file open (``poker-server`` then exits with 1)."""


class _Runner(Protocol):
    """How a role runs a job on its store's one database thread (:meth:`SqliteStore._run`)."""

    def __call__(self, fn: Callable[[sqlite3.Connection], T]) -> Awaitable[T]: ...


class SqliteSessions:
    """The sessions role (:class:`~server.ledger.store.SessionStore`) on the store's
    connection and thread: the ``sessions`` and ``guests`` tables."""

    def __init__(self, run: _Runner) -> None:
        self._run = run

    async def put(self, sid: str, player_id: str, expires: float) -> None:
        def put(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO sessions VALUES (?, ?, ?) ON CONFLICT(sid) DO UPDATE "
                       "SET expires=excluded.expires WHERE player_id=excluded.player_id",
                       (sid, player_id, float(expires)))
        await self._run(put)

    async def get(self, sid: str) -> tuple[str, float] | None:
        def get(db: sqlite3.Connection) -> tuple[str, float] | None:
            row = db.execute("SELECT player_id, expires FROM sessions WHERE sid=?",
                             (sid,)).fetchone()
            return None if row is None else (str(row[0]), float(row[1]))
        return await self._run(get)

    async def revoke(self, sid: str) -> None:
        def revoke(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM sessions WHERE sid=?", (sid,))
        await self._run(revoke)

    async def revoke_all(self, player_id: str) -> int:
        def revoke(db: sqlite3.Connection) -> int:
            return int(db.execute("DELETE FROM sessions WHERE player_id=?",
                                  (player_id,)).rowcount)
        return await self._run(revoke)

    async def purge(self, now: float, limit: int = 1000) -> int:
        def purge(db: sqlite3.Connection) -> int:
            return int(db.execute("DELETE FROM sessions WHERE sid IN (SELECT sid FROM sessions "
                                  "WHERE expires < ? LIMIT ?)", (now, limit)).rowcount)
        return await self._run(purge)

    async def guest_seen(self, player_id: str, when: float) -> None:
        def seen(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO guests VALUES (?, ?) ON CONFLICT(player_id) DO UPDATE "
                       "SET seen=max(seen, excluded.seen)", (player_id, float(when)))
        await self._run(seen)

    async def idle_guests(self, before: float, limit: int) -> list[str]:
        def idle(db: sqlite3.Connection) -> list[str]:
            rows = db.execute("SELECT player_id FROM guests WHERE seen < ? ORDER BY seen "
                              "LIMIT ?", (before, limit)).fetchall()
            return [str(r[0]) for r in rows]
        return await self._run(idle)

    async def guest_forget(self, player_id: str) -> None:
        def forget(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM guests WHERE player_id=?", (player_id,))
        await self._run(forget)


class SqliteStore:
    """See the module docstring. ``SqliteStore(path)``; ``await store.open()``."""

    def __init__(self, path: Path | str, *, fsync: bool = True) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ledger-db")
        self._db: sqlite3.Connection | None = None
        self._lock_fd: int | None = None
        self._group: GroupCommit[Batch, Outcome] = GroupCommit(
            self._pool, self._conn, _apply_savepoint)
        self.sessions = SqliteSessions(self._run)
        self._leases: dict[str, tuple[str, float]] = {}  # node -> holder, expiry (monotonic)
        self._tokens: dict[str, int] = {}  # node -> its current token

    def _conn(self) -> sqlite3.Connection:
        assert self._db is not None, "SqliteStore.open() first"
        return self._db

    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        def job() -> T:
            assert self._db is not None, "SqliteStore.open() first"
            return fn(self._db)
        return await asyncio.get_running_loop().run_in_executor(self._pool, job)

    async def open(self) -> None:
        def connect() -> None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise StoreInUse(f"{self.path} is in use by another process") from None
            self._lock_fd = fd
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={'FULL' if self.fsync else 'NORMAL'}")
            db.execute("PRAGMA busy_timeout=10000")
            db.executescript(SCHEMA)
            self._db = db
        await asyncio.get_running_loop().run_in_executor(self._pool, connect)

    async def close(self) -> None:
        def shut(db: sqlite3.Connection) -> None:
            db.close()
        if self._db is not None:
            await self._run(shut)
            self._db = None
        self._pool.shutdown(wait=True)
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor releases the lock
            self._lock_fd = None

    # ------------------------------------------------------------------ writes
    async def apply(self, batch: Batch) -> Outcome:
        batch.validate()
        fence = batch.fence
        if fence is not None and self._tokens.get(fence.key) != fence.token:
            return Outcome.STALE  # (one process: nothing can move the token in between)
        return await self._group.submit(batch)  # group-committed (see the module docstring)

    async def outbox_put(self, key: str, value: str) -> None:
        """A batch of its own (group-committed, durable like any batch)."""
        outcome = await self.apply(Batch(outbox=((key, value),)))
        if outcome is not Outcome.APPLIED:
            raise RuntimeError(f"outbox record {key!r} not written: {outcome}")

    async def outbox_list(self, prefix: str = "") -> list[tuple[str, str]]:
        def get(db: sqlite3.Connection) -> list[tuple[str, str]]:
            rows = db.execute("SELECT key, value FROM outbox WHERE substr(key, 1, ?) = ? "
                              "ORDER BY key", (len(prefix), prefix)).fetchall()
            return [(str(k), str(v)) for k, v in rows]
        return await self._run(get)

    async def outbox_delete(self, key: str) -> None:
        def delete(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM outbox WHERE key=?", (key,))
        await self._run(delete)

    async def setting(self, name: str, default: str) -> str:
        def get(db: sqlite3.Connection) -> str:
            db.execute("INSERT OR IGNORE INTO settings VALUES (?, ?)", (name, default))
            row = db.execute("SELECT value FROM settings WHERE name=?", (name,)).fetchone()
            return str(row[0])
        return await self._run(get)

    async def reserve_ids(self, name: str, count: int) -> int:
        """One statement (its own durable transaction), on the store's thread."""
        if type(count) is not int or count < 1:
            raise ValueError(f"count must be a positive int, got {count!r}")

        def reserve(db: sqlite3.Connection) -> int:
            row = db.execute("INSERT INTO counters VALUES (?, ?) ON CONFLICT(name) DO UPDATE "
                             "SET value = value + excluded.value RETURNING value",
                             (name, count)).fetchone()
            return int(row[0])
        return await self._run(reserve)

    async def add_user(self, key: str, user: UserRecord, aliases: Sequence[str] = ()) -> bool:
        keys = list(dict.fromkeys([key, *aliases]))

        def add(db: sqlite3.Connection) -> bool:
            db.execute("BEGIN IMMEDIATE")
            try:
                marks = ",".join("?" * len(keys))
                if db.execute(f"SELECT 1 FROM users WHERE key IN ({marks})", keys).fetchone():
                    db.execute("ROLLBACK")
                    return False
                db.executemany("INSERT INTO users VALUES (?, ?, ?, ?, ?, ?)",
                               [(k, user.player_id, user.name, user.salt, user.digest,
                                 json.dumps(user.params)) for k in keys])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            return True
        return await self._run(add)

    async def update_user(self, key: str, user: UserRecord) -> bool:
        def update(db: sqlite3.Connection) -> bool:
            cur = db.execute("UPDATE users SET name=?, salt=?, digest=?, params=? WHERE "
                             "player_id=(SELECT player_id FROM users WHERE key=?)",
                             (user.name, user.salt, user.digest, json.dumps(user.params), key))
            return cur.rowcount > 0
        return await self._run(update)

    def lease_key(self, node: str) -> str:
        return node

    async def acquire_lease(self, node: str, holder: str, seconds: float,
                            token: int | None = None) -> LeaseState:
        """As Redis's (see :meth:`server.ledger.store.Store.acquire_lease`), in memory; a
        new token from the durable counter ``lease:<node>``."""
        now = time.monotonic()
        held, expiry = self._leases.get(node, ("", 0.0))
        if expiry <= now:
            held = ""
        current = self._tokens.get(node, 0)
        if token is not None:
            if token != current or held not in ("", holder):
                return LeaseState(held, current)
        elif held not in ("", holder):
            return LeaseState(held, current)
        elif not held:
            current = self._tokens[node] = await self.reserve_ids(f"lease:{node}", 1)
        self._leases[node] = (holder, now + seconds)
        return LeaseState(holder, current)

    async def release_lease(self, node: str, holder: str) -> None:
        if self._leases.get(node, ("", 0.0))[0] == holder:
            del self._leases[node]

    # ------------------------------------------------------------------ the audit log
    async def audit_append(self, record: str) -> int:
        """One statement, its own durable transaction (triggers refuse updates and deletes)."""
        def append(db: sqlite3.Connection) -> int:
            row = db.execute("INSERT INTO audit (record) VALUES (?) RETURNING seq",
                             (record,)).fetchone()
            return int(row[0])
        return await self._run(append)

    async def audit_list(self, since: int = 0, limit: int = 100) -> list[tuple[int, str]]:
        def get(db: sqlite3.Connection) -> list[tuple[int, str]]:
            rows = db.execute("SELECT seq, record FROM audit WHERE seq > ? ORDER BY seq "
                              "LIMIT ?", (since, limit)).fetchall()
            return [(int(seq), str(text)) for seq, text in rows]
        return await self._run(get)

    async def audit_count(self) -> int:
        def count(db: sqlite3.Connection) -> int:
            return int(db.execute("SELECT coalesce(max(seq), 0) FROM audit").fetchone()[0])
        return await self._run(count)

    # ------------------------------------------------------------------ reads
    async def user(self, key: str) -> UserRecord | None:
        def get(db: sqlite3.Connection) -> UserRecord | None:
            row = db.execute("SELECT player_id, name, salt, digest, params FROM users "
                             "WHERE key=?", (key,)).fetchone()
            if row is None:
                return None
            return UserRecord(row[0], row[1], bytes(row[2]), bytes(row[3]), json.loads(row[4]))
        return await self._run(get)

    async def balance(self, account: str) -> int:
        def get(db: sqlite3.Connection) -> int:
            row = db.execute("SELECT balance FROM accounts WHERE name=?", (account,)).fetchone()
            return int(row[0]) if row else 0
        return await self._run(get)

    async def balances(self, prefix: str = "") -> dict[str, int]:
        def get(db: sqlite3.Connection) -> dict[str, int]:
            rows = db.execute("SELECT name, balance FROM accounts WHERE substr(name, 1, ?) = ?",
                              (len(prefix), prefix)).fetchall()
            return {str(n): int(b) for n, b in rows}
        return await self._run(get)

    async def journal(self, since: int = 0, limit: int = 1000) -> list[Entry]:
        def get(db: sqlite3.Connection) -> list[Entry]:
            rows = db.execute("SELECT seq, batch, src, dst, amount, reason FROM journal "
                              "WHERE seq > ? ORDER BY seq LIMIT ?", (since, limit)).fetchall()
            return [Entry(*row) for row in rows]
        return await self._run(get)

    async def open_hands(self) -> list[HandMark]:
        def get(db: sqlite3.Connection) -> list[HandMark]:
            rows = db.execute("SELECT hand, tbl, stacks FROM open_hands ORDER BY hand").fetchall()
            return [HandMark(h, t, json.loads(s)) for h, t, s in rows]
        return await self._run(get)


def _apply_savepoint(db: sqlite3.Connection, batch: Batch) -> Outcome | BaseException:
    """One batch inside the group's transaction: kept when applied, else rolled back alone
    (a refusal, or an error, which is returned for its caller only)."""
    db.execute("SAVEPOINT batch")
    try:
        outcome: Outcome | BaseException = _apply_in(db, batch)
    except sqlite3.Error as exc:
        outcome = exc
    if outcome is Outcome.APPLIED:
        db.execute("RELEASE batch")
    else:
        db.execute("ROLLBACK TO batch")
        db.execute("RELEASE batch")
    return outcome


def _apply_in(db: sqlite3.Connection, batch: Batch) -> Outcome:
    if batch.key is not None and db.execute(
            "SELECT 1 FROM batches WHERE key=?", (batch.key,)).fetchone():
        return Outcome.DUPLICATE
    net: dict[str, int] = {}
    for t in batch.transfers:
        net[t.src] = net.get(t.src, 0) - t.amount
        net[t.dst] = net.get(t.dst, 0) + t.amount
    for account, delta in net.items():
        if delta < 0 and is_checked(account):
            row = db.execute("SELECT balance FROM accounts WHERE name=?", (account,)).fetchone()
            if (int(row[0]) if row else 0) + delta < 0:
                return Outcome.INSUFFICIENT
    batch_id = db.execute("INSERT INTO batches (key) VALUES (?)", (batch.key,)).lastrowid
    for account, delta in net.items():
        if delta:
            db.execute("INSERT INTO accounts VALUES (?, ?) ON CONFLICT(name) DO UPDATE "
                       "SET balance = balance + excluded.balance", (account, delta))
    db.executemany("INSERT INTO journal (batch, src, dst, amount, reason) VALUES (?,?,?,?,?)",
                   [(batch_id, t.src, t.dst, t.amount, t.reason) for t in batch.transfers])
    if batch.note is not None:
        db.execute("INSERT INTO journal (batch, src, dst, amount, reason) VALUES (?,?,?,?,?)",
                   (batch_id, "", "", 0, batch.note))
    if batch.open_hand is not None:
        mark = batch.open_hand
        db.execute("INSERT OR REPLACE INTO open_hands VALUES (?, ?, ?)",
                   (mark.hand, mark.table, json.dumps(mark.stacks)))
    if batch.close_hand is not None:
        db.execute("DELETE FROM open_hands WHERE hand=?", (batch.close_hand,))
    if batch.outbox:
        db.executemany("INSERT OR REPLACE INTO outbox VALUES (?, ?)", list(batch.outbox))
    return Outcome.APPLIED
