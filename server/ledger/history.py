"""Hand histories: one record per hand, the player's copy of it, and where records are kept.

Rule of this module: a :class:`HandRecord` is the operator's **audit record** (every card,
every salt, the reshuffle seed); what a player may receive is only ever made by
:func:`player_copy`, which keeps exactly what that player saw at the table: the public events,
their own cards, the cards shown at showdown, the openings of the public cards and of their own
cards. Which is which is decided by the engine's one visibility rule
(:func:`server.rules.visibility.seen`), applied to each event rebuilt from its stored form
(:func:`event_from_dict`): hidden cards of others (folded, mucked, discarded, burnt, the
dealer's hole cards before they are turned) become ``None`` (their deck positions stay, so the
dealing order can be checked), and so does the value of another player's folded hand (a
Caribbean ``Settled`` ``hand``: SHOW-03); the audit part (deck, salts, seed) is dropped.
:func:`public_copy` is the same for a spectator.

A record is plain JSON-able data: ``events`` are the engine's own events in order
(:func:`event_to_dict`: ``{"e": class name, ...fields}``, seat-keyed maps with string keys),
enough to replay the hand through the pure engine (:mod:`server.verify`).

Stores (:class:`HistoryStore`): :class:`MemoryHistory` (tests, the default of a registry),
:class:`SqliteHistory` (stdlib ``sqlite3``, WAL, every statement on one worker thread so the
event loop never waits on the disk; its own file ``history.sqlite3`` in ``Config.data_dir``)
and :class:`RedisHistory` (many server processes; through :mod:`server.redisio` only).
"""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, get_args

import orjson

from server.ledger.groupcommit import GroupCommit
from server.rules import caribbean as csp
from server.rules import events as ev
from server.rules.visibility import seen

__all__ = [
    "HandRecord", "HandSummary", "HistoryStore", "MemoryHistory", "SqliteHistory", "RedisHistory",
    "event_from_dict", "event_to_dict", "player_copy", "public_copy", "summary_for",
    "HISTORY_FILE",
]

HISTORY_FILE = "history.sqlite3"


def _plain(value: Any) -> Any:
    """Tuples to lists, int-keyed maps to string keys (as JSON would have them)."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


_EVENT_FIELDS: dict[type, tuple[str, tuple[str, ...]]] = {}


def event_to_dict(event: Any) -> dict[str, Any]:
    """An engine event (a frozen dataclass) as plain data: ``{"e": class name, ...}``."""
    kind = type(event)
    shape = _EVENT_FIELDS.get(kind)
    if shape is None:  # once per event class
        shape = _EVENT_FIELDS[kind] = (kind.__name__,
                                       tuple(f.name for f in dataclasses.fields(event)))
    out: dict[str, Any] = {"e": shape[0]}
    for name in shape[1]:
        value = getattr(event, name)
        out[name] = value if type(value) in _SCALARS else _plain(value)
    return out


_SCALARS = frozenset({int, str, bool, float, type(None)})


@dataclass(slots=True, kw_only=True)
class HandRecord:
    """One hand. ``players``: seat (string key) -> ``{player, name, stack}`` (stack before
    the hand). ``result``: ``{stacks, voided, rake, house_net, jackpot_collected}``.
    ``reveal``: the openings of every card that became public. ``own``: seat -> openings of
    that seat's own face-down cards (a player's copy keeps only theirs). ``audit``: ``{deck,
    salts, seed}`` (hex), only in the audit record. ``viewer``: the seat of a player's copy
    (None for the audit record)."""

    hand: str
    table: str
    variant: str
    structure: str | None
    stakes: dict[str, Any]
    settings: dict[str, Any]
    num_seats: int
    button: int | None
    started: float
    ended: float = 0.0
    commitment: str
    deck_size: int
    players: dict[str, dict[str, Any]]
    events: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    reveal: list[dict[str, Any]] = field(default_factory=list)
    own: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    audit: dict[str, Any] | None = None
    viewer: int | None = None
    number: int | None = None  # the hand's number at its table, as shown ("#1": its first)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def to_json(self) -> str:
        """Compact JSON, keys sorted (orjson: a tenth of the stdlib's time, same data)."""
        return orjson.dumps(self.to_dict(),
                            option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> HandRecord:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(obj) - names
        if unknown:
            raise ValueError(f"unknown record fields: {sorted(unknown)}")
        return cls(**{k: v for k, v in obj.items()})

    @classmethod
    def from_json(cls, text: str) -> HandRecord:
        return cls.from_dict(orjson.loads(text))

    def seat_of(self, player_id: str) -> int | None:
        for seat, info in self.players.items():
            if info.get("player") == player_id:
                return int(seat)
        return None


# --------------------------------------------------------------------------- player copy
_POT_EVENTS: dict[str, type] = {cls.__name__: cls for cls in get_args(ev.Event)}
_HOUSE_EVENTS: dict[str, type] = {cls.__name__: cls for cls in get_args(csp.Event)}


def _typed(value: Any) -> Any:
    """:func:`_plain` undone: lists to tuples, seat-keyed maps to int keys."""
    if isinstance(value, list | tuple):
        return tuple(_typed(v) for v in value)
    if isinstance(value, dict):
        return {int(k) if isinstance(k, str) and k.lstrip("-").isdigit() else k: _typed(v)
                for k, v in value.items()}
    return value


def event_from_dict(data: Mapping[str, Any], *, caribbean: bool) -> Any | None:
    """The engine event a record holds as ``data`` (:func:`event_to_dict` undone): a
    Caribbean Stud round's (``caribbean``) or a pot game's; None when it names no event
    of that game or its fields do not fit it."""
    cls = (_HOUSE_EVENTS if caribbean else _POT_EVENTS).get(str(data.get("e")))
    if cls is None:
        return None
    try:
        return cls(**{k: _typed(v) for k, v in data.items() if k != "e"})
    except TypeError:
        return None


def _seen_dict(e: dict[str, Any], viewer: int | None, *,
               caribbean: bool) -> dict[str, Any] | None:
    """A stored event as ``viewer`` may see it; an event of no known form is left out."""
    event = event_from_dict(e, caribbean=caribbean)
    return None if event is None else event_to_dict(seen(event, viewer))


def _copy(record: HandRecord, seat: int | None) -> HandRecord:
    caribbean = record.variant == "caribbean"
    events = [r for e in record.events
              if (r := _seen_dict(e, seat, caribbean=caribbean)) is not None]
    mine = record.own.get(str(seat), []) if seat is not None else []
    by_pos = {int(o["position"]): o for o in [*record.reveal, *mine]}  # one per card
    reveal = [by_pos[p] for p in sorted(by_pos)]
    own = {str(seat): list(mine)} if seat is not None else {}
    return dataclasses.replace(record, events=events, reveal=reveal, own=own, audit=None,
                               viewer=seat)


def player_copy(record: HandRecord, player_id: str) -> HandRecord | None:
    """The copy of ``record`` that ``player_id`` may have: None when they were not in it."""
    seat = record.seat_of(player_id)
    if seat is None:
        return None
    return _copy(record, seat)


def public_copy(record: HandRecord) -> HandRecord:
    """The copy of ``record`` a spectator may have: only what was public at the table."""
    return _copy(record, None)


@dataclass(frozen=True, slots=True)
class HandSummary:
    """One line of a player's list of hands (the ``history`` answer)."""

    hand: str
    table: str
    variant: str
    started: float
    ended: float
    net: int
    number: int | None = None  # at its table (``hand_started.number``); older records: none

    def to_wire(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def summary_for(record: HandRecord, player_id: str) -> HandSummary | None:
    seat = record.seat_of(player_id)
    if seat is None:
        return None
    before = int(record.players[str(seat)]["stack"])
    after = int(record.result.get("stacks", {}).get(str(seat), before))
    return HandSummary(record.hand, record.table, record.variant, record.started,
                       record.ended, after - before, record.number)


# --------------------------------------------------------------------------- stores
class HistoryStore(Protocol):
    """Where hand records are kept. Every method may be awaited from the event loop."""

    async def save(self, record: HandRecord) -> None:
        """Keep ``record`` (the audit record; redaction happens on the way out)."""

    async def get(self, hand: str, *, player_id: str | None = None) -> HandRecord | None:
        """The audit record of ``hand`` (the newest one with that id; with ``player_id``,
        the newest that player played: hand ids are unique for ever (:mod:`server.ledger.ids`),
        but records kept from before that may share one), or None."""

    async def hands_of(self, player_id: str, *, limit: int = 20, before: str | None = None,
                       table: str | None = None) -> tuple[list[HandSummary], bool]:
        """The player's hands, newest first: at most ``limit``, older than hand ``before``
        when given, at ``table`` when given; and whether there are more."""

    async def close(self) -> None:
        """Release the store's resources."""


def _page(records: Iterable[HandRecord], player_id: str, limit: int,
          table: str | None) -> tuple[list[HandSummary], bool]:
    out: list[HandSummary] = []
    for rec in records:
        if table is not None and rec.table != table:
            continue
        s = summary_for(rec, player_id)
        if s is None:
            continue
        if len(out) == limit:
            return out, True
        out.append(s)
    return out, False


class MemoryHistory:
    """Records in a list (tests and the registry's default). Not durable."""

    def __init__(self) -> None:
        self._saved: list[str] = []  # each record's JSON as saved (a detached copy)
        self._records: list[HandRecord] = []  # the same, parsed when first asked for

    @property
    def records(self) -> list[HandRecord]:
        """Every saved record, in order (parsed from its saved JSON on first read: saving,
        on every hand's path, costs one serialisation and no parse)."""
        for text in self._saved[len(self._records):]:
            self._records.append(HandRecord.from_json(text))
        return self._records

    async def save(self, record: HandRecord) -> None:
        self._saved.append(record.to_json())

    async def get(self, hand: str, *, player_id: str | None = None) -> HandRecord | None:
        for rec in reversed(self.records):
            if rec.hand == hand and (player_id is None or rec.seat_of(player_id) is not None):
                return HandRecord.from_json(rec.to_json())
        return None

    async def hands_of(self, player_id: str, *, limit: int = 20, before: str | None = None,
                       table: str | None = None) -> tuple[list[HandSummary], bool]:
        recs = list(reversed(self.records))
        if before is not None:
            idx = next((i for i, r in enumerate(recs)
                        if r.hand == before and r.seat_of(player_id) is not None), None)
            recs = [] if idx is None else recs[idx + 1:]
        return _page(recs, player_id, limit, table)

    async def close(self) -> None:
        return None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS hands (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    hand TEXT NOT NULL,
    table_id TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS hands_by_id ON hands (hand);
CREATE TABLE IF NOT EXISTS hand_players (
    player TEXT NOT NULL,
    seq INTEGER NOT NULL REFERENCES hands (seq),
    PRIMARY KEY (player, seq)
);
"""


class SqliteHistory:
    """Records in an SQLite file (WAL). One worker thread owns the connection and runs every
    statement, in order, so the event loop never blocks on the disk and writes never race.
    A saved record is committed before :meth:`save` returns. Saves are group-committed (as
    the ledger's batches): the records queued while the thread is busy are written in one
    ``BEGIN IMMEDIATE`` ... ``COMMIT``, each in its own ``SAVEPOINT`` (a refused record rolls
    back alone), and every caller is answered after the ``COMMIT``: one thread job and one
    commit for many tables' hands."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="history-sqlite")
        self._conn: sqlite3.Connection | None = None
        self._group: GroupCommit[tuple[str, str, str, list[str]], None] = GroupCommit(
            self._pool, self._db, self._save_one)
        self._pool.submit(self._open).result()

    @classmethod
    def in_dir(cls, data_dir: Path | str) -> SqliteHistory:
        """The store of a server: ``history.sqlite3`` in ``data_dir`` (created if needed)."""
        d = Path(data_dir)
        d.mkdir(parents=True, exist_ok=True)
        return cls(d / HISTORY_FILE)

    def _open(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(_SCHEMA)
        self._conn = conn

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("the history store is closed")
        return self._conn

    def _save(self, hand: str, table: str, text: str, players: list[str]) -> None:
        """Worker thread, inside the group's transaction: one record, all or nothing."""
        db = self._db()
        db.execute("SAVEPOINT rec")
        try:
            cur = db.execute("INSERT INTO hands (hand, table_id, record) VALUES (?, ?, ?)",
                             (hand, table, text))
            seq = cur.lastrowid
            db.executemany("INSERT OR IGNORE INTO hand_players (player, seq) VALUES (?, ?)",
                           [(p, seq) for p in players])
        except BaseException:
            db.execute("ROLLBACK TO rec")
            db.execute("RELEASE rec")
            raise
        db.execute("RELEASE rec")

    def _save_one(self, db: sqlite3.Connection,
                  args: tuple[str, str, str, list[str]]) -> BaseException | None:
        """Worker thread, inside the group's transaction: one record, or its refusal."""
        try:
            self._save(*args)
        except Exception as exc:  # this record alone is not saved
            return exc
        return None

    async def save(self, record: HandRecord) -> None:
        players = sorted({str(p["player"]) for p in record.players.values()})
        await self._group.submit((record.hand, record.table, record.to_json(), players))

    def _get(self, hand: str, player: str | None) -> str | None:
        if player is None:
            row = self._db().execute(
                "SELECT record FROM hands WHERE hand = ? ORDER BY seq DESC LIMIT 1",
                (hand,)).fetchone()
        else:
            row = self._db().execute(
                "SELECT h.record FROM hands h JOIN hand_players p ON p.seq = h.seq "
                "WHERE h.hand = ? AND p.player = ? ORDER BY h.seq DESC LIMIT 1",
                (hand, player)).fetchone()
        return None if row is None else str(row[0])

    async def get(self, hand: str, *, player_id: str | None = None) -> HandRecord | None:
        text = await self._run(self._get, hand, player_id)
        return None if text is None else HandRecord.from_json(text)

    def _hands_of(self, player: str, limit: int, before: str | None,
                  table: str | None) -> list[str]:
        db = self._db()
        sql = ("SELECT h.record FROM hand_players p JOIN hands h ON h.seq = p.seq "
               "WHERE p.player = ?")
        args: list[Any] = [player]
        if before is not None:
            sql += (" AND p.seq < (SELECT MAX(h2.seq) FROM hands h2 JOIN hand_players p2 "
                    "ON p2.seq = h2.seq WHERE h2.hand = ? AND p2.player = ?)")
            args += [before, player]
        if table is not None:
            sql += " AND h.table_id = ?"
            args.append(table)
        sql += " ORDER BY p.seq DESC LIMIT ?"
        args.append(limit + 1)
        return [str(r[0]) for r in db.execute(sql, args).fetchall()]

    async def hands_of(self, player_id: str, *, limit: int = 20, before: str | None = None,
                       table: str | None = None) -> tuple[list[HandSummary], bool]:
        rows = await self._run(self._hands_of, player_id, limit, before, table)
        return _page((HandRecord.from_json(t) for t in rows), player_id, limit, table)

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def close(self) -> None:
        await self._run(self._close)
        self._pool.shutdown(wait=True)


_SAVE_LUA = """
-- KEYS: seq, hand:<hand>, then player:<id> and player:<id>:table:<table> of each player;
-- ARGV: the prefix, the record's JSON (rec:<seq> is named from the new seq: the prefix's
-- hash tag keeps it in the slot of KEYS)
local seq = redis.call('INCR', KEYS[1])
redis.call('SET', ARGV[1] .. 'rec:' .. seq, ARGV[2])
for i = 2, #KEYS do redis.call('ZADD', KEYS[i], seq, seq) end
return seq
"""


class RedisHistory:
    """Records in Redis, shared by every server process (through :mod:`server.redisio`).

    Keys (under ``prefix``, default ``hist:{hist}:``: one hash tag, so a save's keys share one
    slot of a Redis Cluster): ``seq`` (a counter), ``rec:<seq>`` (the
    record's JSON), ``hand:<hand id>`` (the seqs with that id), ``player:<id>`` and
    ``player:<id>:table:<table>`` (sorted sets of seqs). A save is one Lua script, so it is
    atomic. The connection opens on first use."""

    def __init__(self, url: str, *, prefix: str = "hist:{hist}:") -> None:
        self.url = url
        self.prefix = prefix
        self._redis: Any = None
        self._lock = asyncio.Lock()
        self._save_script: Any = None

    async def _r(self) -> Any:
        async with self._lock:
            if self._redis is None:
                from server.redisio import Redis

                self._redis = await Redis.connect(self.url)
                self._save_script = self._redis.script(_SAVE_LUA)
            return self._redis

    async def save(self, record: HandRecord) -> None:
        await self._r()
        players = sorted({str(p["player"]) for p in record.players.values()})
        p = self.prefix
        keys = [f"{p}seq", f"{p}hand:{record.hand}"]
        for player in players:
            keys += [f"{p}player:{player}", f"{p}player:{player}:table:{record.table}"]
        await self._save_script(keys=keys, args=[p, record.to_json()])

    async def get(self, hand: str, *, player_id: str | None = None) -> HandRecord | None:
        r = await self._r()
        seqs = await r.call("ZREVRANGE", f"{self.prefix}hand:{hand}", 0, -1)
        for seq in seqs or []:
            text = await r.call("GET", f"{self.prefix}rec:{seq}")
            if text is None:
                continue
            rec = HandRecord.from_json(str(text))
            if player_id is None or rec.seat_of(player_id) is not None:
                return rec
        return None

    async def hands_of(self, player_id: str, *, limit: int = 20, before: str | None = None,
                       table: str | None = None) -> tuple[list[HandSummary], bool]:
        r = await self._r()
        key = f"{self.prefix}player:{player_id}"
        if table is not None:
            key += f":table:{table}"
        top = "+inf"
        if before is not None:
            known = await r.call("ZREVRANGE", f"{self.prefix}hand:{before}", 0, -1)
            for seq in known or []:
                if await r.call("ZSCORE", f"{self.prefix}player:{player_id}", seq) is not None:
                    top = f"({seq}"
                    break
            else:
                return [], False
        seqs = await r.call("ZREVRANGEBYSCORE", key, top, "-inf", "LIMIT", 0, limit + 1)
        if not seqs:
            return [], False
        texts = await r.call("MGET", *(f"{self.prefix}rec:{q}" for q in seqs))
        recs = (HandRecord.from_json(str(t)) for t in texts if t is not None)
        return _page(recs, player_id, limit, table)

    async def close(self) -> None:
        if self._redis is not None:
            await self._redis.close()
            self._redis = None
