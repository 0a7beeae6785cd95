"""What every export format shares: game names, the hand number, seat order and names.

Rule of this module: it reads a :class:`~server.ledger.history.HandRecord` as given (a
player's copy holds only what the rule of :mod:`server.rules.visibility` let that player see).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from typing import Any

from server.ledger.history import HandRecord

__all__ = ["GAMES", "PHH_GAME", "PHH_STRUCTURE", "STRUCTURES", "STUD", "card_text", "hand_number",
           "player_name", "seat_order", "when"]

GAMES = {"holdem": "Hold'em", "manila": "Manila Hold'em", "manila3": "Manila 3-card Hold'em",
          "draw": "5 Card Draw", "stud5": "5 Card Stud", "stud7": "7 Card Stud"}
STRUCTURES = {"no_limit": "No Limit", "pot_limit": "Pot Limit", "fixed_limit": "Limit",
               "spread_limit": "Spread Limit", "half_pot": "Half Pot Limit"}
PHH_STRUCTURE = {"fixed_limit": "F", "spread_limit": "S", "pot_limit": "P",
                  "half_pot": "H", "no_limit": "N"}
PHH_GAME = {"holdem": "T", "manila": "MN", "manila3": "MN3", "draw": "5D", "stud5": "5S",
             "stud7": "7S"}
STUD = ("stud5", "stud7")


_NUMBERED = re.compile(r"^t\d+\.([1-9]\d{0,11})$")


def hand_number(hand: str) -> int:
    """The hand's number for trackers (they want digits): ``n`` of a hand id ``t<k>.<n>``,
    whose ``n`` comes from the store's durable hand counter and so is never given to another
    hand (:mod:`server.ledger.ids`); a stable 12-digit hash for an id of any other form."""
    m = _NUMBERED.match(hand)
    if m is not None:
        return int(m.group(1))
    return int.from_bytes(hashlib.sha256(hand.encode()).digest()[:8], "big") % 10**12


def when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y/%m/%d %H:%M:%S")


def seat_order(record: HandRecord) -> list[int]:
    seats = sorted(int(s) for s in record.players)
    if record.button is None:
        return seats
    n, b = record.num_seats, record.button
    return sorted(seats, key=lambda s: (s - b - 1) % n)


def player_name(record: HandRecord, seat: int) -> str:
    """The seat's player as exports name them; a practice table's bot (issue 24: ``bot``
    in the record's ``players``) with " (bot)" after its name."""
    info = record.players[str(seat)]
    name = str(info["name"] or info["player"])
    return f"{name} (bot)" if info.get("bot") else name


def card_text(cards: list[Any]) -> str:
    return " ".join(c for c in cards if c is not None)
