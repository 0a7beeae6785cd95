"""The deck commitment: a Merkle tree over (position, card, salt), published before the deal.

Rule of this module: pure and standard library only; the salts are an *input* (the table draws
one fresh random salt of at least 16 bytes per card from its injected ``rng``), so the same deck and
salts always give the same root.

Byte layout (everything an outsider needs to re-implement the check)
--------------------------------------------------------------------
``H`` is SHA-256. Cards are their two ASCII characters (``"As"`` -> ``b"As"``).

* **leaf** of the card at deck position ``p`` (0 = the first card to leave the deck)::

      leaf = H(0x00 || u16be(p) || ascii(card) || u8(len(salt)) || salt)

  with ``16 <= len(salt) <= 64``.
* **empty slot** (the tree is padded up to a power of two ``2**depth >= len(deck)``, depth
  at least 1)::

      empty(p) = H(0x02 || u16be(p))

* **inner node**: ``node = H(0x01 || left || right)``.
* **root**: the single node at the top; on the wire it is lowercase hex (64 characters), and
  that string is ``hand_started.commitment``.
* **inclusion proof** of position ``p``: the sibling hashes from the leaf's level upwards,
  ``depth`` of them (hex on the wire). Checking: start with ``h = leaf``; at level ``i`` take
  ``s = proof[i]``; if bit ``i`` of ``p`` is 0 then ``h = node(h, s)`` else
  ``h = node(s, h)``; the result must equal the root, and ``p < 2**len(proof)``.

The domain bytes (0x00 leaf, 0x01 node, 0x02 empty) keep a leaf from ever passing for a node,
and the position inside the leaf binds each card to its place in the dealing order.
An opening on the wire is ``{"card", "position", "salt" (hex), "proof" (list of hex)}``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MIN_SALT", "MAX_SALT", "DeckCommitment", "Opening", "leaf_hash", "node_hash",
    "empty_hash", "commit", "verify_opening", "opening_from_wire",
]

MIN_SALT = 16
MAX_SALT = 64
_LEAF, _NODE, _EMPTY = b"\x00", b"\x01", b"\x02"


def _h(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def leaf_hash(position: int, card: str, salt: bytes) -> bytes:
    """The leaf of ``card`` at deck ``position`` (see the module docstring)."""
    if not 0 <= position < 65536:
        raise ValueError("position out of range")
    raw = card.encode("ascii")
    if len(raw) != 2:
        raise ValueError(f"bad card {card!r}")
    if not MIN_SALT <= len(salt) <= MAX_SALT:
        raise ValueError(f"a salt has {MIN_SALT}..{MAX_SALT} bytes")
    return hashlib.sha256(
        _LEAF + position.to_bytes(2, "big") + raw + bytes([len(salt)]) + salt).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return _h(_NODE + left + right)


def empty_hash(position: int) -> bytes:
    return _h(_EMPTY + position.to_bytes(2, "big"))


_EMPTY_HASHES: dict[int, bytes] = {}


def _empty_hash(position: int) -> bytes:
    """`empty_hash(position)`, computed once per position (the padding of every deck)."""
    found = _EMPTY_HASHES.get(position)
    if found is None:
        found = _EMPTY_HASHES[position] = empty_hash(position)
    return found


_PREFIXES: list[bytes] = []  # leaf prefix of each position: tag and position, built once
_LENGTH = [bytes([n]) for n in range(256)]


def _leaf_prefixes(n: int) -> list[bytes]:
    """``_LEAF + position`` for positions ``0..n-1`` (the start of every leaf's input)."""
    while len(_PREFIXES) < n:
        _PREFIXES.append(_LEAF + len(_PREFIXES).to_bytes(2, "big"))
    return _PREFIXES


@dataclass(frozen=True, slots=True)
class Opening:
    """One card's opening: enough to check it against the root alone."""

    card: str
    position: int
    salt: bytes
    proof: tuple[bytes, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"card": self.card, "position": self.position, "salt": self.salt.hex(),
                "proof": [p.hex() for p in self.proof]}


def opening_from_wire(obj: Mapping[str, Any]) -> Opening:
    """Parse a wire opening; raises ValueError when malformed."""
    try:
        card, position = obj["card"], obj["position"]
        salt = bytes.fromhex(obj["salt"])
        proof = tuple(bytes.fromhex(p) for p in obj["proof"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"malformed opening: {exc}") from None
    if not isinstance(card, str) or type(position) is not int:
        raise ValueError("malformed opening")
    return Opening(card, position, salt, proof)


class DeckCommitment:
    """The tree of one deck. ``deck[p]`` is the card at position ``p``; ``salts[p]`` its salt."""

    def __init__(self, deck: Sequence[str], salts: Sequence[bytes]) -> None:
        if len(deck) != len(salts) or not deck:
            raise ValueError("one salt per card, and at least one card")
        if len(deck) > 65536:
            raise ValueError("deck too large")
        self.deck = tuple(deck)
        self.salts = tuple(salts)
        depth = 1
        while (1 << depth) < len(deck):
            depth += 1
        self.depth = depth
        sha256 = hashlib.sha256  # (`leaf_hash` and `node_hash`, inline: ~115 hashes a hand)
        prefixes = _leaf_prefixes(len(deck))
        level = []
        for p, c in enumerate(deck):
            salt = salts[p]
            raw = c.encode("ascii")
            if len(raw) != 2 or not MIN_SALT <= len(salt) <= MAX_SALT:
                leaf_hash(p, c, salt)  # raises the leaf's own error for this card or salt
            level.append(sha256(prefixes[p] + raw + _LENGTH[len(salt)] + salt).digest())
        level += [_empty_hash(p) for p in range(len(deck), 1 << depth)]
        self.levels: list[list[bytes]] = [level]
        while len(level) > 1:
            level = [sha256(_NODE + level[i] + level[i + 1]).digest()
                     for i in range(0, len(level), 2)]
            self.levels.append(level)
        self.root = level[0]

    @property
    def root_hex(self) -> str:
        return self.root.hex()

    def proof(self, position: int) -> tuple[bytes, ...]:
        if not 0 <= position < len(self.deck):
            raise IndexError(position)
        out = []
        i = position
        for level in self.levels[:-1]:
            out.append(level[i ^ 1])
            i >>= 1
        return tuple(out)

    def opening(self, position: int) -> Opening:
        return Opening(self.deck[position], position, self.salts[position],
                       self.proof(position))


def commit(deck: Sequence[str], salts: Sequence[bytes]) -> str:
    """The root (hex) of ``deck`` under ``salts``."""
    return DeckCommitment(deck, salts).root_hex


def verify_opening(root: str | bytes, position: int, card: str, salt: bytes,
                   proof: Sequence[bytes]) -> bool:
    """True when ``card`` with ``salt`` sits at ``position`` of the deck committed in ``root``."""
    try:
        want = bytes.fromhex(root) if isinstance(root, str) else root
        if not proof or type(position) is not int or not 0 <= position < (1 << len(proof)):
            return False
        h = leaf_hash(position, card, salt)
    except (ValueError, UnicodeError):
        return False
    for i, sibling in enumerate(proof):
        if len(sibling) != 32:
            return False
        h = node_hash(h, sibling) if not (position >> i) & 1 else node_hash(sibling, h)
    return h == want
