"""Cards and decks as plain values.

A card is a two-character string, rank then suit: ``"As"``, ``"Td"``, ``"9c"``.
Ranks run ``2``..``9``, ``T``, ``J``, ``Q``, ``K``, ``A``; suits rank
spades > hearts > diamonds > clubs (POT-01, STUD-02/03), so :func:`card_key`
orders cards by rank first, then by suit.

A deck is a sequence of cards in the exact order in which they leave it,
burns included.  The engine never shuffles: the caller passes a deck (tests
pass an exact order; the table's dealer shuffles with :func:`shuffle_with` over the
operating system's entropy, ``server.table.shuffle``).  This package reads no entropy of
its own: the random bytes are always an input.  :func:`check_deck` is the GEN-02 check made
before a hand.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from functools import cache, lru_cache

RANKS = "23456789TJQKA"
SUITS = "cdhs"  # lowest to highest: clubs, diamonds, hearts, spades
SUIT_SYMBOLS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
RANK_VALUE = {r: i + 2 for i, r in enumerate(RANKS)}
SUIT_VALUE = {s: i for i, s in enumerate(SUITS)}
RANK_NAMES = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}
RANK_PLURALS = {v: (n + "es" if n == "six" else n + "s") for v, n in RANK_NAMES.items()}

ALL_CARDS: frozenset[str] = frozenset(r + s for r in RANKS for s in SUITS)


class DeckError(ValueError):
    """A deck failed the GEN-02 check; ``reason`` says how."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def is_card(card: object) -> bool:
    """True when ``card`` is a well-formed card string."""
    return isinstance(card, str) and card in ALL_CARDS


def rank_of(card: str) -> int:
    """The rank value of a card, 2..14 (ace high)."""
    return RANK_VALUE[card[0]]


def suit_of(card: str) -> int:
    """The suit value of a card, clubs 0 < diamonds 1 < hearts 2 < spades 3."""
    return SUIT_VALUE[card[1]]


def card_key(card: str) -> int:
    """Total order of single cards: rank first, then suit (POT-01)."""
    return RANK_VALUE[card[0]] * 4 + SUIT_VALUE[card[1]]


@cache
def make_deck(*, lowest_rank: int = 2) -> tuple[str, ...]:
    """The variant's card set in a fixed order (a stripped deck when ``lowest_rank`` > 2)."""
    return tuple(r + s for r in RANKS if RANK_VALUE[r] >= lowest_rank for s in SUITS)


@lru_cache(maxsize=64)
def _card_set(cards: tuple[str, ...]) -> frozenset[str]:
    return frozenset(cards)


def check_deck(deck: Sequence[str], card_set: Iterable[str]) -> None:
    """GEN-02: the deck must be exactly ``card_set``, each card once.

    Raises :class:`DeckError` otherwise; the caller then voids the hand.
    """
    expected = _card_set(card_set) if type(card_set) is tuple else frozenset(card_set)
    try:  # the common case: the deck is exactly the set (as many cards, each of the set)
        if len(deck) == len(expected) and expected == set(deck):
            return
    except TypeError:  # an unhashable "card": the checks below name it
        pass
    seen: set[str] = set()
    for card in deck:
        if not is_card(card):
            raise DeckError("bad_card", f"not a card: {card!r}")
        if card in seen:
            raise DeckError("duplicate_card", f"card {card} appears twice")
        if card not in expected:
            raise DeckError("foreign_card", f"card {card} is not in this variant's deck")
        seen.add(card)
    if len(seen) != len(expected):
        missing = sorted(expected - seen, key=card_key)
        raise DeckError("missing_cards", f"deck is missing {len(missing)} card(s): {missing[:5]}")


def shuffle_with(card_set: Sequence[str], entropy: Callable[[int], bytes]) -> list[str]:
    """A uniformly shuffled copy of ``card_set``: Fisher-Yates over the bytes ``entropy(n)``
    returns (GEN-03; the server passes ``secrets.token_bytes``, see ``server.table.shuffle``).

    The bytes are asked for in one call per deck (not one call per card). Each swap index is
    drawn by rejection sampling on 16-bit words, so it is exactly uniform over ``0..i``: a
    word at or above the largest multiple of ``i + 1`` below 65,536 is thrown away and the
    next one taken (more bytes are asked for if ever needed)."""
    deck = list(card_set)
    n = len(deck)
    pool = entropy(2 * n + 16)
    k = 0
    for i in range(n - 1, 0, -1):
        span = i + 1
        limit = 65536 - 65536 % span
        while True:
            if k + 2 > len(pool):
                pool += entropy(2 * n)
            word = pool[k] << 8 | pool[k + 1]
            k += 2
            if word < limit:
                break
        j = word % span
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def pretty(card: str) -> str:
    """A card with its suit symbol, readable without colour: ``"A\u2660"``."""
    return card[0].replace("T", "10") + SUIT_SYMBOLS[card[1]]


def seeded_shuffle(cards: Sequence[str], seed: bytes, *, label: str = "") -> list[str]:
    """A deterministic shuffle of ``cards`` driven by ``seed`` (SHA-256 counter stream).

    The engine is pure, so when it must reshuffle mid-hand (burns and
    discards, DRAW-03 and STUD-05) the randomness is an input: the server
    draws ``seed`` from the operating system's entropy before the hand, and the same seed always
    gives the same order, so a hand replays exactly from its inputs.
    """
    deck = list(cards)
    counter = 0
    pool = b""

    def below(n: int) -> int:
        nonlocal counter, pool
        # rejection sampling on 8-byte words: unbiased for any n
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            if len(pool) < 8:
                block = f"{label}:{counter}".encode()
                pool += hashlib.sha256(seed + block).digest()
                counter += 1
            word, pool = int.from_bytes(pool[:8], "big"), pool[8:]
            if word < limit:
                return word % n

    for i in range(len(deck) - 1, 0, -1):
        j = below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
