"""Hand history exports: PokerStars-style text, the open PHH format, and their readers.

Rule of this module: an export is made from one :class:`~server.ledger.history.HandRecord`
as given, so a player's copy exports only what that player saw (others' hidden cards are
``None`` there and never appear: PokerStars prints no ``Dealt to`` line for them, PHH writes
``????``). Every format has a reader here, used by the tests to read an export back.

* **PokerStars** (:func:`to_pokerstars`): the text hand tracking tools import. Seats are
  numbered from 1 (our seat + 1); the hand number is the hand id's number (:func:`hand_number`:
  unique for ever, like the id), the real id is the table line's ``hand`` note. Games:
  Hold'em, Manila Hold'em, Manila 3-card Hold'em, 5 Card Draw, 5 Card Stud, 7 Card Stud; the
  structure is "No Limit", "Pot Limit", "Limit", "Spread Limit" or "Half Pot Limit".
* **PHH** (:func:`to_phh`, the poker hand history format of the PHH standard, TOML): the
  required fields of the variant (``variant``, ``antes``, ``blinds_or_straddles`` or
  ``bring_in``, ``min_bet`` or ``small_bet``/``big_bet``, ``starting_stacks``, ``actions``)
  and the optional ``hand``, ``table``, ``seats``, ``seat_count``, ``players``,
  ``finishing_stacks``, ``time``. Players are in dealing order (the first left of the
  button; the small blind first). Standard variant codes are used where the standard has
  one (``FT``, ``NT``, ``F7S``); the others are ours, built the same way (structure letter
  ``F`` fixed, ``S`` spread, ``P`` pot, ``H`` half pot, ``N`` no limit; then ``T`` hold'em,
  ``MN`` Manila, ``MN3`` Manila 3-card, ``5D`` five card draw, ``5S``/``7S`` stud); the user
  fields ``_variant``, ``_structure`` and ``_commitment`` give ours exactly. The over blind
  (BLIND-04) is written as a straddle; a blind that is not the small or big blind likewise.
* **Caribbean Stud** is played against the house, with no betting rounds and no showdown
  between players, so neither PokerStars nor PHH can express it: its export
  (:func:`to_caribbean_text`, also what both formats give for it) is a plain text form of its
  own, read back by :func:`read_caribbean_text`.
"""

from __future__ import annotations

from server.ledger.export.caribbean import read_caribbean_text, to_caribbean_text
from server.ledger.export.common import hand_number
from server.ledger.export.phh import phh_variant_code, read_phh, to_phh
from server.ledger.export.pokerstars import read_pokerstars, to_pokerstars
from server.ledger.history import HandRecord

__all__ = [
    "FORMATS", "export", "hand_number", "to_pokerstars", "read_pokerstars", "to_phh",
    "read_phh", "phh_variant_code", "to_caribbean_text", "read_caribbean_text",
]

FORMATS = ("json", "pokerstars", "phh")


def export(record: HandRecord, fmt: str) -> str:
    """``record`` as ``fmt`` text (``pokerstars`` or ``phh``; Caribbean: its own form)."""
    if record.variant == "caribbean":
        return to_caribbean_text(record)
    if fmt == "pokerstars":
        return to_pokerstars(record)
    if fmt == "phh":
        return to_phh(record)
    raise ValueError(f"unknown format {fmt!r}")
