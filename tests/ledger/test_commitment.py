"""The Merkle deck commitment (server.rules.commitment): every position opens against the root,
anything changed does not, and the byte layout in the module docstring is enough to
re-implement the check from scratch (done here with hashlib alone)."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.cards import make_deck
from server.rules.commitment import (
    DeckCommitment,
    commit,
    empty_hash,
    leaf_hash,
    node_hash,
    opening_from_wire,
    verify_opening,
)

DECK = list(make_deck())
MANILA = list(make_deck(lowest_rank=7))


def _salts(n: int, seed: int = 0) -> list[bytes]:
    rnd = random.Random(seed)
    return [rnd.randbytes(16) for _ in range(n)]


def _outsider_root(deck: list[str], salts: list[bytes]) -> bytes:
    """The root computed only from the docstring's byte layout (no code of ours)."""
    def h(b: bytes) -> bytes:
        return hashlib.sha256(b).digest()

    level = [h(b"\x00" + p.to_bytes(2, "big") + c.encode() + bytes([len(s)]) + s)
             for p, (c, s) in enumerate(zip(deck, salts, strict=True))]
    size = 2
    while size < len(deck):
        size *= 2
    level += [h(b"\x02" + p.to_bytes(2, "big")) for p in range(len(deck), size)]
    while len(level) > 1:
        level = [h(b"\x01" + level[i] + level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def _outsider_check(root: str, position: int, card: str, salt: bytes,
                    proof: list[bytes]) -> bool:
    h = hashlib.sha256(b"\x00" + position.to_bytes(2, "big") + card.encode()
                       + bytes([len(salt)]) + salt).digest()
    for i, s in enumerate(proof):
        pair = h + s if not (position >> i) & 1 else s + h
        h = hashlib.sha256(b"\x01" + pair).digest()
    return h.hex() == root


@pytest.mark.parametrize("deck", [DECK, MANILA, DECK[:1], DECK[:2], DECK[:3], DECK[:33]])
def test_every_position_opens_and_an_outsider_gets_the_same_answers(deck: list[str]) -> None:
    salts = _salts(len(deck))
    tree = DeckCommitment(deck, salts)
    assert tree.root == _outsider_root(deck, salts)
    assert commit(deck, salts) == tree.root_hex and len(tree.root_hex) == 64
    for p in range(len(deck)):
        o = tree.opening(p)
        assert (o.card, o.position, o.salt) == (deck[p], p, salts[p])
        assert verify_opening(tree.root_hex, p, deck[p], salts[p], o.proof)
        assert _outsider_check(tree.root_hex, p, deck[p], salts[p], list(o.proof))
        wire = o.to_wire()
        assert opening_from_wire(wire) == o


def test_anything_changed_fails() -> None:
    deck, salts = DECK, _salts(52)
    tree = DeckCommitment(deck, salts)
    root = tree.root_hex
    o = tree.opening(7)
    assert verify_opening(root, 7, deck[7], salts[7], o.proof)
    assert not verify_opening(root, 7, deck[8], salts[7], o.proof)  # another card
    assert not verify_opening(root, 8, deck[7], salts[7], o.proof)  # another position
    bad_salt = bytes([salts[7][0] ^ 1]) + salts[7][1:]
    assert not verify_opening(root, 7, deck[7], bad_salt, o.proof)  # another salt
    assert not verify_opening(root, 7, deck[7], salts[8], tree.proof(8))  # another's proof
    flipped = (bytes([o.proof[2][0] ^ 1]) + o.proof[2][1:],)
    assert not verify_opening(root, 7, deck[7], salts[7], o.proof[:2] + flipped + o.proof[3:])
    assert not verify_opening(root, 7, deck[7], salts[7], o.proof[:-1])  # too short
    assert not verify_opening(root, 7, deck[7], salts[7], (*o.proof, o.proof[0]))  # too long
    assert not verify_opening(root, 7, deck[7], salts[7], ())
    assert not verify_opening("zz" * 32, 7, deck[7], salts[7], o.proof)  # not hex
    assert not verify_opening(root, 7, "Xx", salts[7], o.proof)
    assert not verify_opening(root, 7, deck[7], b"short", o.proof)
    assert not verify_opening(root, -1, deck[7], salts[7], o.proof)
    # swapped positions: each card at the other's place
    assert not verify_opening(root, 8, deck[7], salts[7], tree.proof(8))
    # a different deck order gives a different root
    swapped = [deck[1], deck[0], *deck[2:]]
    assert commit(swapped, salts) != root


def test_domain_separation_and_salt_rules() -> None:
    salt = bytes(16)
    leaf = leaf_hash(0, "As", salt)
    # the same bytes hashed as a node, a leaf and an empty slot never coincide
    assert node_hash(leaf, leaf) != leaf_hash(0, "As", salt)
    assert empty_hash(0) != leaf
    # an inner node cannot be opened as a leaf: its children are not a (card, salt) pair
    tree = DeckCommitment(DECK[:4], _salts(4))
    assert tree.levels[1][0] != leaf_hash(0, DECK[0], tree.salts[0])
    with pytest.raises(ValueError):
        leaf_hash(0, "As", bytes(15))  # a salt has at least 16 bytes
    with pytest.raises(ValueError):
        leaf_hash(0, "As", bytes(65))
    with pytest.raises(ValueError):
        DeckCommitment(DECK, _salts(51))
    with pytest.raises(ValueError):
        opening_from_wire({"card": "As", "position": 0, "salt": "nothex", "proof": []})


@settings(max_examples=60, deadline=None)
@given(st.permutations(DECK), st.integers(0, 2**32), st.integers(0, 51))
def test_random_decks_open_exactly_their_cards(deck: list[str], seed: int, pos: int) -> None:
    salts = _salts(52, seed)
    tree = DeckCommitment(deck, salts)
    o = tree.opening(pos)
    assert verify_opening(tree.root, pos, deck[pos], salts[pos], o.proof)
    other = deck[(pos + 1) % 52]
    assert not verify_opening(tree.root, pos, other, salts[pos], o.proof)
