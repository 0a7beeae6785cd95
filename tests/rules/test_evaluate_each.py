"""``evaluate_each``: the showdown's values, the board encoded once, are ``evaluate``'s own
values and errors."""

from __future__ import annotations

import random

import pytest

from server.rules.cards import make_deck
from server.rules.evaluate import HandRules, evaluate, evaluate_each


def test_each_value_is_evaluates_own() -> None:
    rng = random.Random(3)
    manila = HandRules(lowest_rank=7, flush_beats_full_house=True)
    for rules, low in ((HandRules(), 2), (manila, 7)):
        for _ in range(200):
            deck = list(make_deck(lowest_rank=low))
            rng.shuffle(deck)
            hands = {s: deck[2 * s:2 * s + 2] for s in range(4)}
            board = deck[8:13]
            got = evaluate_each(hands, [3, 0, 2], board, rules=rules)
            assert list(got) == [3, 0, 2]
            for s, v in got.items():
                want = evaluate(hands[s], board, rules=rules)
                assert v == want and v.cards == want.cards and v.name == want.name


@pytest.mark.parametrize(("hands", "board", "message"), [
    ({0: ["As", "Kd"]}, ["2c", "3c", "4c", "Xx", "6d"], "not a card: 'Xx'"),
    ({0: ["As", "Zz"]}, ["2c", "3c", "4c", "Xx", "6d"], "not a card: 'Zz'"),
    ({0: ["As", "Kd"], 1: ["Qs", "Zz"]}, ["2c", "3c", "4c", "5c", "6d"], "not a card: 'Zz'"),
    ({0: ["As", "2c"]}, ["2c", "3c", "4c", "5c", "6d"], "duplicate cards"),
    ({0: ["As"]}, ["2c", "3c"], "at least 5 cards"),
])
def test_the_same_errors_as_evaluate(hands: dict[int, list[str]], board: list[str],
                                     message: str) -> None:
    with pytest.raises(ValueError, match=message) as each:
        evaluate_each(hands, hands, board)
    for s in hands:  # the first seat whose hand evaluate refuses
        try:
            evaluate(hands[s], board)
        except ValueError as exc:
            assert str(exc) == str(each.value)
            break
