"""The deck commitment's refusals (server.rules.commitment): malformed leaves, openings, decks
and proofs are refused or judged false, never crash. The honest round trips and the byte
layout are in tests/ledger/test_commitment.py."""

from __future__ import annotations

from typing import Any

import pytest

from server.rules.cards import make_deck
from server.rules.commitment import (
    MIN_SALT,
    DeckCommitment,
    leaf_hash,
    opening_from_wire,
    verify_opening,
)

SALT = b"s" * MIN_SALT


@pytest.mark.parametrize("position, card, salt, message", [
    (-1, "As", SALT, "position out of range"),
    (65536, "As", SALT, "position out of range"),
    (0, "Ace", SALT, "bad card"),
    (0, "As", b"short", "a salt has"),
])
def test_malformed_leaves_are_refused(position: int, card: str, salt: bytes,
                                      message: str) -> None:
    with pytest.raises(ValueError, match=message):
        leaf_hash(position, card, salt)


@pytest.mark.parametrize("card, salt, message", [
    ("Ace", SALT, "bad card"),
    ("As", b"short", "a salt has"),
    ("As", b"s" * 65, "a salt has"),
])
def test_a_deck_with_a_malformed_leaf_is_refused_as_the_leaf_is(card: str, salt: bytes,
                                                                  message: str) -> None:
    """The tree hashes its leaves inline: a bad card or salt anywhere in the deck is refused
    with the leaf's own error, and a good deck's root is the one its leaves give."""
    deck = list(make_deck())
    salts = [SALT] * 52
    deck[7], salts[7] = card, salt
    with pytest.raises(ValueError, match=message):
        DeckCommitment(deck, salts)
    good = DeckCommitment(list(make_deck()), [bytes([i]) * MIN_SALT for i in range(52)])
    assert good.levels[0][:52] == [leaf_hash(i, c, bytes([i]) * MIN_SALT)
                                   for i, c in enumerate(make_deck())]


@pytest.mark.parametrize("obj", [
    {"card": 7, "position": 0, "salt": SALT.hex(), "proof": []},
    {"card": "As", "position": True, "salt": SALT.hex(), "proof": []},
    {"card": "As", "position": 0, "salt": "zz", "proof": []},
    {"card": "As", "salt": SALT.hex(), "proof": []},
])
def test_malformed_wire_openings_are_refused(obj: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="malformed opening"):
        opening_from_wire(obj)


def test_decks_and_proofs_out_of_range() -> None:
    with pytest.raises(ValueError, match="deck too large"):
        DeckCommitment(["As"] * 65537, [SALT] * 65537)
    tree = DeckCommitment(list(make_deck()), [SALT] * 52)
    with pytest.raises(IndexError):
        tree.proof(52)


def test_a_proof_with_a_short_sibling_is_false() -> None:
    deck = list(make_deck())
    tree = DeckCommitment(deck, [SALT] * 52)
    opening = tree.opening(3)
    assert verify_opening(tree.root_hex, 3, opening.card, opening.salt, opening.proof)
    bent = (opening.proof[0][:31], *opening.proof[1:])
    assert not verify_opening(tree.root_hex, 3, opening.card, opening.salt, bent)
