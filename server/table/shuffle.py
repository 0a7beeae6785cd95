"""The dealer's shuffle: the one place the table reads the operating system's entropy for a deck.

The rules package reads no entropy (its ``rules-pure`` contract forbids ``secrets`` as it forbids
``random``): :func:`server.rules.cards.shuffle_with` is the pure, exactly uniform Fisher-Yates,
and this module hands it ``secrets.token_bytes`` (GEN-03). The registry passes :func:`shuffled`
to every table unless a test injects a seeded one.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from server.rules.cards import shuffle_with

__all__ = ["shuffled"]


def shuffled(card_set: Sequence[str]) -> list[str]:
    """A uniformly shuffled copy of ``card_set`` over ``secrets`` (GEN-03)."""
    return shuffle_with(card_set, secrets.token_bytes)
