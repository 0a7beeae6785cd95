"""The lobby listing, built once per change, and the players' mutes.

Rule of this module: a ``tables`` request never builds a table's summary. Each actor tells the
registry when its lobby entry may have changed (a table opened or closed, a seat taken or
freed, a viewer come or gone: :meth:`TableActor._lobby_check` after every handled item);
:class:`Lobby` only marks that table dirty. The next request rebuilds the listing once: the
dirty tables' summaries, then the ordered list (references). Filtered lists are kept per
filter until the next change (at most :data:`FILTER_CACHE` of them), and a request only
slices a page of at most ``Config.lobby_max_page`` entries out of one: a lobby flood costs a
dict lookup, a bisect and one bounded page per request, whatever the number of tables.

Order and cursor: tables are listed by table number (the order they were opened); ``next``
is the id of the last table of the page, and a page asked with ``cursor`` starts after that
table, so pages stay stable while tables open and close.

*Stake level* (the ``min_big_blind`` / ``max_big_blind`` filters): a blinds game's big blind
(the last blind), else the small bet, the minimum bet, the bring-in or the ante, and the
minimum ante at Caribbean Stud.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from protocol.errors import ProtocolError
from server.config import Config
from server.table.settings import TableSpec

__all__ = ["FILTER_CACHE", "Lobby", "Mutes", "page_of", "row_of", "stake_level",
           "table_number"]

FILTER_CACHE = 64
"""Filtered listings kept until the next change (then the cache starts over)."""

_Row = tuple[int, int, int, dict[str, Any]]  # (table number, stake level, free seats, entry)


def stake_level(stakes: dict[str, Any]) -> int:
    """The table's stake level (see the module docstring)."""
    blinds = stakes.get("blinds")
    if isinstance(blinds, list) and blinds:
        return int(blinds[-1])
    for key in ("small_bet", "min_bet", "bring_in", "ante", "min"):
        value = stakes.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 0


def table_number(table_id: str) -> int:
    """``t12`` -> 12, a private table's ``t12-<suffix>`` too (0 for an id of another
    shape)."""
    try:
        return int(table_id[1:].partition("-")[0])
    except ValueError:
        return 0


class Listed(Protocol):
    """A table as the lobby lists it (the table actor is one)."""

    @property
    def spec(self) -> TableSpec: ...
    def summary(self) -> dict[str, Any]: ...


class Lobby:
    """The registry's lobby listing (see the module docstring). ``actors``: the registry's
    open tables by id (read when a change is listed); ``enrich``: what changes too often to
    cache (the jackpot pool), put on copies of entries when a page is served."""

    def __init__(self, actors: Mapping[str, Listed], config: Config,
                 enrich: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
        self._actors = actors
        self._config = config
        self._enrich = enrich
        self._entries: dict[str, dict[str, Any]] = {}
        self._row: dict[str, _Row] = {}  # by table id, in the order they opened
        self._last = 0  # the highest table number listed so far
        self._unsorted = False
        self._dirty: set[str] = set()
        self._rows: list[_Row] | None = None
        self._filtered: dict[tuple[Any, ...], tuple[list[int], list[_Row]]] = {}
        self.version = 0  # bumped on every change
        self.builds = 0  # listings built (tests: at most one per change)

    # --- changes (from the registry, on the actors' word) -----------------------------------
    def changed(self, table_id: str) -> None:
        self._dirty.add(table_id)
        self._invalidate()

    def removed(self, table_id: str) -> None:
        self._entries.pop(table_id, None)
        self._row.pop(table_id, None)
        self._dirty.discard(table_id)
        self._invalidate()

    def _invalidate(self) -> None:
        self.version += 1
        self._rows = None
        self._filtered.clear()

    # --- reading ------------------------------------------------------------------------------
    def _build(self) -> list[_Row]:
        rows = self._rows
        if rows is not None:
            return rows
        actors = self._actors
        entries = self._entries
        for table_id in self._dirty:
            actor = actors.get(table_id)
            if actor is None:
                continue
            if actor.spec.private:  # a home game is joined by its invite link, never listed
                continue
            entry = actor.summary()
            was = table_id in entries
            entries[table_id] = entry
            self._row[table_id] = row_of(entry)
            if not was and table_number(table_id) < self._last:
                self._unsorted = True
            self._last = max(self._last, table_number(table_id))
        self._dirty.clear()
        rows = list(self._row.values())
        if self._unsorted:  # (ids are handed out in order: only after an out-of-order one)
            rows.sort(key=lambda r: r[0])
        self._rows = rows
        self.builds += 1
        return rows

    def entries(self) -> list[dict[str, Any]]:
        """Every open table's cached entry, in order (do not modify them: copy)."""
        return [r[3] for r in self._build()]

    def entry(self, table_id: str) -> dict[str, Any] | None:
        """The table's cached lobby entry (None for a table not listed: closed, or private);
        the cluster's directory copies it (do not modify it)."""
        self._build()
        return self._entries.get(table_id)

    def page(self, request: Any) -> dict[str, Any]:
        """``{tables, total, next}`` for a :class:`protocol.Tables` request."""
        return page_of(self._build(), self._filtered, request, self._config, self._enrich)


def page_of(all_rows: list[_Row], filtered: dict[tuple[Any, ...], tuple[list[int], list[_Row]]],
            request: Any, cfg: Any,
            enrich: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> dict[str, Any]:
    """One page of ``all_rows`` (in table-number order) for a :class:`protocol.Tables`
    request: filtered (each filter's rows kept in ``filtered`` until the caller clears it),
    then sliced after ``cursor``; the page's entries are copies, ``enrich``ed. The process's
    own listing (:class:`Lobby`) and the cluster's copy of the directory both page so."""
    variant = getattr(request, "variant", None)
    low = getattr(request, "min_big_blind", None)
    high = getattr(request, "max_big_blind", None)
    free = getattr(request, "free_seats", None)
    key = (variant, low, high, free)
    found = filtered.get(key)
    if found is None:
        rows = [r for r in all_rows
                if (variant is None or r[3].get("variant") == variant)
                and (low is None or r[1] >= low) and (high is None or r[1] <= high)
                and (free is None or r[2] >= free)]
        if len(filtered) >= FILTER_CACHE:
            filtered.clear()
        found = filtered[key] = ([r[0] for r in rows], rows)
    numbers, rows = found
    cursor = getattr(request, "cursor", None)
    start = 0
    if cursor is not None:
        if not (cursor.startswith("t") and cursor[1:].isdigit()):
            raise ProtocolError("bad_field", "`cursor`: the `next` of a previous page",
                                field="cursor")
        start = bisect.bisect_right(numbers, int(cursor[1:]))
    limit = min(getattr(request, "limit", None) or cfg.lobby_page_size, cfg.lobby_max_page)
    chosen = rows[start:start + limit]
    tables = enrich([dict(r[3]) for r in chosen])
    more = start + limit < len(rows)
    return {"tables": tables, "total": len(rows),
            "next": chosen[-1][3]["table"] if more and chosen else None}


def row_of(entry: dict[str, Any]) -> _Row:
    """A listing row: (table number, stake level, free seats, entry)."""
    table_id = str(entry.get("table", ""))
    free = int(entry.get("seats", 0)) - int(entry.get("players", 0))
    return (table_number(table_id), stake_level(entry.get("stakes") or {}), free, entry)


class Mutes:
    """Who muted whom, by player id, for the whole process (every table, every connection
    of the muter). ``muters_of(sender)`` is what a table's chat fan-out skips. In a cluster
    each process holds the room's copy: ``listener`` is told every change made here (the
    room stores and publishes it, `server.net.roomwide`) and :meth:`apply` takes the others'
    (no limit checked: it was checked where the player asked)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._of: dict[str, set[str]] = {}  # muter -> muted
        self._by: dict[str, frozenset[str]] = {}  # muted -> muters (read on every chat)
        self.listener: Callable[[str, str, bool], None] | None = None

    def set(self, muter: str, target: str, on: bool) -> bool:
        """Mute (``on``) or unmute ``target`` for ``muter``; returns whether it is muted now.
        Raises ``not_allowed`` for oneself or past ``limit`` muted players."""
        if muter == target:
            raise ProtocolError("not_allowed", "you cannot mute yourself")
        mine = self._of.get(muter, set())
        if on and target not in mine and len(mine) >= self.limit:
            raise ProtocolError("not_allowed", f"you have muted {self.limit} players, the "
                                "most; unmute one first")
        self.apply(muter, target, on)
        if self.listener is not None:
            self.listener(muter, target, on)
        return on

    def apply(self, muter: str, target: str, on: bool) -> None:
        """Mute or unmute as asked, without a check (a change made on another process)."""
        mine = self._of.get(muter, set())
        if on:
            mine.add(target)
            self._of[muter] = mine
            self._by[target] = self._by.get(target, frozenset()) | {muter}
        else:
            mine.discard(target)
            if not mine:
                self._of.pop(muter, None)
            left = self._by.get(target, frozenset()) - {muter}
            if left:
                self._by[target] = left
            else:
                self._by.pop(target, None)

    def muters_of(self, sender: str) -> frozenset[str]:
        return self._by.get(sender, frozenset())

    def muted_by(self, muter: str) -> frozenset[str]:
        return frozenset(self._of.get(muter, ()))
