"""The in-process pool's history (:class:`~server.jackpot.memory.MemoryCoordinator`): the
entries in order, the clock that stamps them, and how far they have been written to the file.

Rule of this module: an entry is only ever appended; ``seq`` is its index.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from server.jackpot.base import HistoryEntry

__all__ = ["HistoryRow", "PoolLog"]

HistoryRow = tuple[int, str, str, str, str, int, int, int]
"""An entry as the file stores it (the fields of :class:`HistoryEntry` in order)."""


class PoolLog:
    """``now``: the clock (seconds) whose milliseconds stamp each entry; ``level``: a pool's
    amount now (``"minor"`` or ``"major"``), the ``after`` of an entry that names no other."""

    def __init__(self, now: Callable[[], float], level: Callable[[str], int]) -> None:
        self._now = now
        self._level = level
        self.entries: list[HistoryEntry] = []
        self._saved = 0  # entries before this index are in the file

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, kind: str, hand: str, key: str, pool: str, amount: int,
            after: int | None = None) -> None:
        """Append one entry; ``after`` defaults to ``pool``'s amount now (0 without a pool)."""
        if after is None:
            after = self._level(pool) if pool else 0
        self.entries.append(HistoryEntry(len(self.entries), kind, hand, key, pool, amount,
                                         after, int(self._now() * 1000)))

    def since(self, start: int, count: int | None = None) -> list[HistoryEntry]:
        """The entries from ``start`` (``count`` of them, or all)."""
        return self.entries[start:] if count is None else self.entries[start:start + count]

    def restore(self, rows: Sequence[HistoryRow]) -> None:
        """The entries read back from the file (all of them saved)."""
        self.entries = [HistoryEntry(*row) for row in rows]
        self._saved = len(self.entries)

    def unsaved(self) -> list[HistoryRow]:
        """The rows not yet handed to the file, from now on counted as saved."""
        rows = [(e.seq, e.kind, e.hand, e.key, e.pool, e.amount, e.after, e.ts)
                for e in self.entries[self._saved:]]
        self._saved = len(self.entries)
        return rows
