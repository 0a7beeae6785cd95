"""A home game's session ledger: for every player, what they bought in, added, took out, have
at the table and their net result, read from the ledger's journal.

Rule of this module: every figure is a sum of journal lines of this table (the wallet's
:meth:`~server.ledger.wallet.Wallet.table_entries`, each a :class:`~server.ledger.store.Entry`
touching one of the table's accounts); nothing is taken from the table's own memory. So the
rows balance: the players' nets plus the house's take (rake, house result, jackpot wagers)
sum to zero, and each player's ``at_table`` is their chips at the table by the journal.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from server.ledger.store import Entry
from server.table.seatmap import SeatState

__all__ = ["HOUSE_ROW", "session_csv", "session_rows"]

HOUSE_ROW = "(house)"
"""The row of what left the players for the house (rake, house result, jackpot)."""

_COLUMNS = ("player", "name", "buy_ins", "rebuys", "cash_outs", "at_table", "net")


def _table_player(account: str) -> str | None:
    """The player of a table account (``table:<node>:<run>:<table>:<player>``; the pot's
    last part is ``pot``); None for any other account."""
    if not account.startswith("table:"):
        return None
    player = account.rsplit(":", 1)[-1]
    return None if player == "pot" else player


def _is_pot(account: str) -> bool:
    return account.startswith("table:") and account.endswith(":pot")


def session_rows(entries: Iterable[Entry], seats: Sequence[SeatState | None], *,
                 names: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per player who bought in at the table (names from the seats where known),
    then the house's row. ``buy_ins``/``rebuys``/``cash_outs``: chips between their balance
    and the table; ``at_table``: their table account by the journal; ``net``: cash-outs plus
    at-table minus what they put in."""
    names = {**(names or {}), **{s.player_id: s.name for s in seats if s is not None}}
    rows: dict[str, dict[str, Any]] = {}
    house = 0

    def row(pid: str) -> dict[str, Any]:
        return rows.setdefault(pid, {"player": pid, "name": names.get(pid, pid), "buy_ins": 0,
                                     "rebuys": 0, "cash_outs": 0, "at_table": 0, "net": 0})

    for e in entries:
        src, dst = _table_player(e.src), _table_player(e.dst)
        if dst is not None:
            r = row(dst)
            r["at_table"] += e.amount
            if not _is_pot(e.src) and not e.src.startswith("table:"):
                r["rebuys" if e.reason.startswith("rebuy") else "buy_ins"] += e.amount
        if src is not None:
            r = row(src)
            r["at_table"] -= e.amount
            if not _is_pot(e.dst) and not e.dst.startswith("table:"):
                r["cash_outs"] += e.amount
        if _is_pot(e.src) and _table_player(e.dst) is None and not _is_pot(e.dst):
            house += e.amount  # rake, house win, jackpot wager
        if _is_pot(e.dst) and _table_player(e.src) is None and not _is_pot(e.src):
            house -= e.amount  # house pays, jackpot payout
    out = sorted(rows.values(), key=lambda r: str(r["name"]).casefold())
    for r in out:
        r["net"] = r["cash_outs"] + r["at_table"] - r["buy_ins"] - r["rebuys"]
    out.append({"player": HOUSE_ROW, "name": "house (rake)", "buy_ins": 0, "rebuys": 0,
                "cash_outs": 0, "at_table": 0, "net": house})
    return out


def _cell(value: Any) -> Any:
    """A text cell a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, tab,
    carriage return first) is quoted with a leading apostrophe; numbers stay numbers."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def session_csv(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as CSV (a header line, then one line per row)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=_COLUMNS, extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: _cell(v) for k, v in r.items()})
    return buf.getvalue()
