"""Card strings on the wire.

The rule of this module: a card is exactly two characters, rank then suit, ranks
``23456789TJQKA`` and suits ``s h d c`` (``"As"``, ``"Td"``, ``"9c"``).  This is the same
spelling as ``server.rules.cards``, restated here because ``protocol`` never imports
``server``.  Whether a card belongs to a variant's (possibly stripped) deck is the server's
business; the protocol only checks the spelling.
"""

from __future__ import annotations

from typing import Final

__all__ = ["ALL_CARDS", "RANKS", "SUITS", "is_card"]

RANKS: Final = "23456789TJQKA"
SUITS: Final = "shdc"
ALL_CARDS: Final[frozenset[str]] = frozenset(r + s for r in RANKS for s in SUITS)


def is_card(value: object) -> bool:
    """True when ``value`` is a well-formed card string such as ``"As"``."""
    return isinstance(value, str) and value in ALL_CARDS
