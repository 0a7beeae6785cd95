"""Cards and decks (server.rules.cards): GEN-01 (the card set), GEN-02 (the deck check before a
hand), GEN-03 (the shuffle), POT-01 (the order of single cards by suit)."""

from __future__ import annotations

import os
import secrets
from typing import Any

import pytest

from server.rules import cards
from server.rules.cards import DeckError, check_deck, make_deck, pretty, suit_of
from server.table.shuffle import shuffled


def test_pot_01_suits_rank_spades_hearts_diamonds_clubs() -> None:
    """POT-01: suits rank spades > hearts > diamonds > clubs."""
    assert [suit_of(c) for c in ("2c", "2d", "2h", "2s")] == [0, 1, 2, 3]


def test_gen_02_an_unhashable_card_is_named_not_a_crash() -> None:
    """GEN-02: whatever the deck holds, the check answers with a DeckError."""
    deck: list[Any] = list(make_deck())
    deck[5] = ["As"]
    with pytest.raises(DeckError) as exc:
        check_deck(deck, make_deck())
    assert exc.value.reason == "bad_card"


def test_gen_02_a_card_outside_a_stripped_deck_is_foreign() -> None:
    """GEN-02: exactly the variant's card set: a 2 in a deck stripped to sevens and up
    (MAN-04) is refused as foreign."""
    stripped = make_deck(lowest_rank=7)
    deck = ["2c", *stripped[1:]]
    with pytest.raises(DeckError) as exc:
        check_deck(deck, stripped)
    assert exc.value.reason == "foreign_card"


def test_gen_03_shuffle_draws_more_bytes_when_rejection_sampling_runs_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """GEN-03: the swap indices are exactly uniform by rejection sampling; when every word of
    the first draw is rejected (0xFFFF is above the last multiple of 52 below 65,536), more
    bytes are drawn from ``secrets`` and the result is still a permutation of the set."""
    calls: list[int] = []

    def token_bytes(n: int) -> bytes:
        calls.append(n)
        return b"\xff" * n if len(calls) == 1 else os.urandom(n)

    monkeypatch.setattr(secrets, "token_bytes", token_bytes)
    deck = shuffled(make_deck())
    assert sorted(deck) == sorted(make_deck())
    assert len(calls) >= 2 and calls[0] == 2 * 52 + 16


def test_pretty_cards_read_without_colour() -> None:
    assert pretty("As") == "A\u2660"
    assert pretty("Td") == "10\u2666"
    assert cards.pretty("2c") == "2\u2663"
