"""Collusion review: what two accounts did to each other, from the full hand records.

Rule of this module: pure, from :class:`~server.ledger.history.HandRecord` data only (the
audit records, every card). For the pair (a, b), over the hands both were dealt into:

- ``hands``: those hands (id, table, variant, each one's result);
- ``folds``: for each of the two, ``faced``: how often they acted while the other was the
  last to bet or raise in that betting round (a voluntary ``bet``, ``raise`` or
  ``complete``; forced blinds, antes and bring-ins do not count), and ``folded``: how often
  that action was a fold (``rate`` = folded / faced, None when never faced);
- ``chips``: ``a_to_b`` and ``b_to_a``, summed over the hands where one of them won chips and
  the other lost: the smaller of the win and the loss (exact in a pot the two shared alone; at
  most what went from one to the other in a pot with more players); ``net_to_a``.
Voided hands are listed (``voided``) and move no chips.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from server.ledger.history import HandRecord

__all__ = ["AGGRESSIVE", "review"]

AGGRESSIVE = frozenset({"bet", "raise", "complete"})
"""Voluntary actions that make someone "face a bet"."""


def review(records: Iterable[HandRecord], a: str, b: str) -> dict[str, Any]:
    """The review of the pair (see the module docstring)."""
    hands: list[dict[str, Any]] = []
    faced = {a: 0, b: 0}
    folded = {a: 0, b: 0}
    a_to_b = b_to_a = 0
    for record in records:
        seat_a, seat_b = record.seat_of(a), record.seat_of(b)
        if seat_a is None or seat_b is None:
            continue
        seats = {seat_a: a, seat_b: b}
        _folds(record, seats, faced, folded)
        voided = bool(record.result.get("voided"))
        da, db = _net(record, seat_a), _net(record, seat_b)
        if not voided:
            if da > 0 > db:
                b_to_a += min(da, -db)
            elif db > 0 > da:
                a_to_b += min(db, -da)
        hands.append({"hand": record.hand, "table": record.table, "variant": record.variant,
                      "started": record.started, "voided": voided, "net": {a: da, b: db}})
    folds = {p: {"faced": faced[p], "folded": folded[p],
                 "rate": round(folded[p] / faced[p], 4) if faced[p] else None}
             for p in (a, b)}
    return {"a": a, "b": b, "hands": hands, "count": len(hands), "folds": folds,
            "chips": {"a_to_b": a_to_b, "b_to_a": b_to_a, "net_to_a": b_to_a - a_to_b}}


def _net(record: HandRecord, seat: int) -> int:
    before = int(record.players[str(seat)]["stack"])
    after = int(record.result.get("stacks", {}).get(str(seat), before))
    return after - before


def _folds(record: HandRecord, pair: dict[int, str], faced: dict[str, int],
           folded: dict[str, int]) -> None:
    """Count, in one hand, each of the pair acting against the other's bet (and folding)."""
    aggressor: int | None = None
    for event in record.events:
        kind = event.get("e")
        if kind == "StreetEnded":
            aggressor = None
        elif kind == "Acted":
            seat = int(event["seat"])
            action = str(event.get("action"))
            if seat in pair and aggressor in pair and aggressor != seat:
                faced[pair[seat]] += 1
                if action == "fold":
                    folded[pair[seat]] += 1
            if action in AGGRESSIVE:
                aggressor = seat
