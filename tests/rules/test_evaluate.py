"""Hand values (docs/rules.md section 2, CSP-06, HOLD-03, MAN-03/04, MAN3-03/04, STUD-02/03/07,
DRAW-04, GEN-08): server.rules.evaluate against an independent brute force written here."""

from __future__ import annotations

import pickle
import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.cards import make_deck
from server.rules.evaluate import (
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    QUADS,
    STANDARD,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
    HandRules,
    HandValue,
    encode,
    evaluate,
    hand_category_name,
    lowest_card,
    rank_showing,
    value_of,
)

MANILA = HandRules(lowest_rank=7, flush_beats_full_house=True)
THREE_CARD_MANILA = HandRules(lowest_rank=6, flush_beats_full_house=True)
DECK = make_deck()

# --- an obviously-correct five-card scorer, independent of the evaluator ------------------
_RV = {r: i for i, r in enumerate("..23456789TJQKA") if r != "."}


def score5(cards: Sequence[str], rules: HandRules = STANDARD) -> tuple[tuple[object, ...], int]:
    """(comparable strength, category) of exactly five cards, the slow way."""
    assert len(cards) == 5 and len(set(cards)) == 5
    ranks = sorted((_RV[c[0]] for c in cards), reverse=True)
    groups = sorted(Counter(ranks).items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = [n for _, n in groups]
    is_flush = len({c[1] for c in cards}) == 1
    straight_high = None
    if len(set(ranks)) == 5:
        low = rules.lowest_rank
        if ranks[0] - ranks[4] == 4:
            straight_high = ranks[0]
        elif rules.ace_low_straight and ranks == [14, low + 3, low + 2, low + 1, low]:
            straight_high = low + 3
    if straight_high and is_flush:
        cat = STRAIGHT_FLUSH
    elif shape == [4, 1]:
        cat = QUADS
    elif shape == [3, 2]:
        cat = FULL_HOUSE
    elif is_flush:
        cat = FLUSH
    elif straight_high:
        cat = STRAIGHT
    elif shape == [3, 1, 1]:
        cat = TRIPS
    elif shape == [2, 2, 1]:
        cat = TWO_PAIR
    elif shape == [2, 1, 1, 1]:
        cat = PAIR
    else:
        cat = HIGH_CARD
    strength = cat
    if rules.flush_beats_full_house and cat in (FLUSH, FULL_HOUSE):
        strength = FULL_HOUSE if cat == FLUSH else FLUSH
    tiebreak: tuple[int, ...] = (
        (straight_high,) if straight_high else tuple(r for r, n in groups for _ in range(n))
    )
    return (strength, tiebreak), cat


def brute_best(cards: Sequence[str], rules: HandRules = STANDARD) -> tuple[object, ...]:
    return max(score5(five, rules)[0] for five in combinations(cards, 5))


def brute_exactly(
    hole: Sequence[str], board: Sequence[str], k: int, rules: HandRules = STANDARD
) -> tuple[object, ...]:
    return max(
        score5(h + b, rules)[0] for h in combinations(hole, k) for b in combinations(board, 5 - k)
    )


def assert_same_order(pairs: list[tuple[tuple[object, ...], int]]) -> None:
    """The evaluator's ints order the hands exactly as the brute-force keys do."""
    pairs.sort(key=lambda p: p[0])
    for (k1, v1), (k2, v2) in zip(pairs, pairs[1:], strict=False):
        if k1 == k2:
            assert v1 == v2, (k1, v1, v2)
        else:
            assert v1 < v2, (k1, k2, v1, v2)


def check_cards(hv: HandValue, pool: Sequence[str], rules: HandRules) -> None:
    """The five cards reported are from the pool and make exactly the hand valued."""
    assert len(hv.cards) == 5 and len(set(hv.cards)) == 5
    assert set(hv.cards) <= set(pool)
    key, cat = score5(hv.cards, rules)
    assert cat == hv.category
    assert evaluate(hv.cards, rules=rules) == hv


# --- CSP-06 / section 2: the standard ranking ----------------------------------------------
@pytest.mark.slow
def test_csp06_all_five_card_hands_category_counts_and_7462_values() -> None:
    """CSP-06: every one of the 2,598,960 five-card hands, by category; 7,462 distinct values."""
    counts = [0] * 9
    values: set[int] = set()
    add = values.add
    for hand in combinations(DECK, 5):
        v = evaluate(hand)
        counts[int(v) & 15] += 1
        add(v)
    assert counts == [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40]
    assert len(values) == 7462
    # the int's low nibble is the category: spot-check the property agrees
    assert evaluate(("As", "Ks", "Qs", "Js", "Ts")).category == STRAIGHT_FLUSH


def test_csp06_category_order_lowest_to_highest() -> None:
    """CSP-06: odd cards < pair < two pair < trips < straight < flush < full house < quads
    < straight flush < royal flush; aces high and low in A-2-3-4-5."""
    hands = [
        ["Qs", "Th", "6d", "4c", "2s"],
        ["2s", "2h", "6d", "4c", "3s"],
        ["2s", "2h", "3d", "3c", "4s"],
        ["2s", "2h", "2d", "4c", "3s"],
        ["As", "2h", "3d", "4c", "5s"],
        ["6s", "2h", "3d", "4c", "5s"],
        ["Ts", "Jh", "Qd", "Kc", "As"],
        ["2h", "3h", "4h", "5h", "7h"],
        ["2h", "2s", "2d", "3h", "3c"],
        ["2h", "2s", "2d", "2c", "3c"],
        ["Ah", "2h", "3h", "4h", "5h"],
        ["9h", "Th", "Jh", "Qh", "Kh"],
        ["Th", "Jh", "Qh", "Kh", "Ah"],
    ]
    values = [evaluate(h) for h in hands]
    assert values == sorted(values)
    assert len(set(values)) == len(values)
    assert [v.category for v in values] == [0, 1, 2, 3, 4, 4, 4, 5, 6, 7, 8, 8, 8]
    assert values[-1].is_royal and not values[-2].is_royal and not values[-3].is_royal


def test_section2_suits_never_rank_hands() -> None:
    """Section 2: equal ranks in different suits are equal hands."""
    assert evaluate(["As", "Kd", "9h", "7c", "3s"]) == evaluate(["Ah", "Ks", "9d", "7h", "3c"])
    assert evaluate(["Ah", "Kh"], ["2c", "2d", "7s", "8s", "9h"]) == evaluate(
        ["As", "Kc"], ["2c", "2d", "7s", "8s", "9h"]
    )


@pytest.mark.parametrize(
    ("cards", "name", "category"),
    [
        (["Kc", "Kd", "Kh", "7s", "7c"], "full house, kings full of sevens", FULL_HOUSE),
        (["Kc", "Kd", "7h", "7s", "2c"], "two pair, kings and sevens", TWO_PAIR),
        (["As", "Ks", "Qs", "Js", "Ts"], "royal flush", STRAIGHT_FLUSH),
        (["5c", "6d", "7h", "8s", "9c"], "straight, nine high", STRAIGHT),
        (["As", "2s", "3d", "4c", "5h"], "straight, five high", STRAIGHT),
        (["Ad", "9d", "7d", "4d", "2d"], "flush, ace high", FLUSH),
        (["Jd", "Jc", "9h", "4c", "2s"], "pair of jacks", PAIR),
        (["Qd", "Jc", "9h", "4c", "2s"], "high card, queen", HIGH_CARD),
        (["Ad", "Ac", "Ah", "As", "2s"], "four of a kind, aces", QUADS),
        (["5d", "5c", "5h", "Ks", "2s"], "three of a kind, fives", TRIPS),
        (["4h", "5h", "6h", "7h", "8h"], "straight flush, eight high", STRAIGHT_FLUSH),
        (["6h", "6c", "6s", "2h", "2d"], "full house, sixes full of twos", FULL_HOUSE),
    ],
)
def test_csp06_names(cards: list[str], name: str, category: int) -> None:
    """CSP-06: each hand value reads out with its category and ranks."""
    hv = evaluate(cards)
    assert hv.name == name
    assert hv.category == category


def test_category_names() -> None:
    assert [hand_category_name(c) for c in range(9)] == [
        "high card", "pair", "two pair", "three of a kind", "straight", "flush", "full house",
        "four of a kind", "straight flush",
    ]
    with pytest.raises(ValueError):
        hand_category_name(9)


def test_cards_are_the_five_used_best_first() -> None:
    """The reported cards are the hand's five, grouped cards first, then kickers high to low."""
    hv = evaluate(["7c", "Kd"], ["Kh", "7s", "2c", "Ks", "3d"])
    assert hv.cards == ("Ks", "Kh", "Kd", "7s", "7c")
    hv = evaluate(["Jd", "3c"], ["Jh", "9s", "Ac", "4d", "2h"])
    assert hv.cards == ("Jh", "Jd", "Ac", "9s", "4d")
    hv = evaluate(["Ah", "2h"], ["3h", "4h", "5h", "6c", "Ks"])
    assert hv.name == "straight flush, five high"
    assert hv.cards == ("5h", "4h", "3h", "2h", "Ah")
    hv = evaluate(["Ah", "Kh"], ["Qh", "Jh", "9h", "2h", "Tc"])
    assert hv.cards == ("Ah", "Kh", "Qh", "Jh", "9h")


# --- HOLD-03 / STUD-07 / DRAW-04: best five of 5..8 cards ----------------------------------
@pytest.mark.parametrize("n", [5, 6, 7, 8, 10])
def test_hold03_stud07_random_hands_match_brute_force(n: int) -> None:
    """HOLD-03, STUD-07, DRAW-04: the best five of n cards, against max over all subsets
    (eight and ten cards too, where two flush suits or a flush and a full house coexist)."""
    rng = random.Random(20240601 + n)
    samples = {5: 3000, 6: 2000, 7: 3000, 8: 600, 10: 150}[n]
    pairs = []
    for _ in range(samples):
        cards = rng.sample(DECK, n)
        hole, board = cards[:2], cards[2:]
        hv = evaluate(hole, board)
        key = brute_best(cards)
        check_cards(hv, cards, STANDARD)
        assert score5(hv.cards)[0] == key
        pairs.append((key, int(hv)))
    assert_same_order(pairs)


def test_hold03_seven_card_special_shapes() -> None:
    """HOLD-03: two trips make a full house; three pairs play the best two and best kicker;
    a six-card straight plays its top five; a flush with a straight in another suit."""
    assert evaluate(["9c", "9d"], ["9h", "4s", "4c", "4d", "Ah"]).name == (
        "full house, nines full of fours"
    )
    hv = evaluate(["9c", "9d"], ["4h", "4s", "2c", "2d", "3h"])
    assert hv.name == "two pair, nines and fours" and hv.ranks == (9, 9, 4, 4, 3)
    hv = evaluate(["9c", "9d"], ["4h", "4s", "Qc", "Qd", "3h"])
    assert hv.ranks == (12, 12, 9, 9, 4)
    assert evaluate(["4c", "5d"], ["6h", "7s", "8c", "9d", "Kh"]).name == "straight, nine high"
    assert evaluate(["Ac", "5d"], ["2h", "3s", "4c", "6d", "Kh"]).name == "straight, six high"
    assert evaluate(["Ah", "9h"], ["4h", "2h", "3h", "5c", "Kh"]).name == "flush, ace high"
    assert evaluate(["Ah", "As"], ["Ad", "Ac", "Kh", "Kd", "Ks"]).name == "four of a kind, aces"
    assert evaluate(["Ah", "As"], ["Ad", "Ac", "Kh", "Kd", "Ks"]).ranks == (14, 14, 14, 14, 13)


def test_eight_cards_flush_and_full_house_together() -> None:
    """With eight cards a full house and a flush can coexist; the better one counts."""
    cards = ["Ah", "Kh", "9h", "4h", "2h", "Ac", "Ad", "Kd"]
    assert evaluate(cards).category == FULL_HOUSE
    assert evaluate(cards, rules=HandRules(flush_beats_full_house=True)).category == FLUSH


# --- MAN-04 / MAN3-04: stripped decks and flush over full house ----------------------------
def test_man04_a789t_is_the_lowest_straight() -> None:
    """MAN-04: in the 32-card deck A-7-8-9-10 is a straight and the lowest one."""
    wheel = evaluate(["Ac", "7d", "8h", "9s", "Tc"], rules=MANILA)
    assert wheel.category == STRAIGHT and wheel.name == "straight, ten high"
    assert wheel.cards == ("Tc", "9s", "8h", "7d", "Ac")
    seven_to_jack = evaluate(["Jc", "7d", "8h", "9s", "Tc"], rules=MANILA)
    assert wheel < seven_to_jack
    trips = evaluate(["Ac", "Ad", "Ah", "9s", "Tc"], rules=MANILA)
    assert trips < wheel
    no_wheel = HandRules(lowest_rank=7, ace_low_straight=False)
    assert evaluate(["Ac", "7d", "8h", "9s", "Tc"], rules=no_wheel).category == HIGH_CARD


def test_man04_2345a_does_not_apply_and_low_cards_are_rejected() -> None:
    """MAN-04: cards below seven are not in the deck, so A-2-3-4-5 cannot be formed."""
    with pytest.raises(ValueError, match="not in a deck"):
        evaluate(["Ac", "2d", "3h", "4s", "5c"], rules=MANILA)
    # the ace still plays high
    ace_high = evaluate(["Ac", "Kd", "Qh", "Js", "Tc"], rules=MANILA)
    assert ace_high.name == "straight, ace high"


def test_man3_04_a6789_is_the_lowest_straight() -> None:
    """MAN3-04: in the 36-card deck A-6-7-8-9 is the lowest straight."""
    wheel = evaluate(["Ac", "6d", "7h", "8s", "9c"], rules=THREE_CARD_MANILA)
    assert wheel.category == STRAIGHT and wheel.name == "straight, nine high"
    assert wheel < evaluate(["Tc", "6d", "7h", "8s", "9c"], rules=THREE_CARD_MANILA)
    sf = evaluate(["Ac", "6c", "7c", "8c", "9c"], rules=THREE_CARD_MANILA)
    assert sf.category == STRAIGHT_FLUSH and sf.name == "straight flush, nine high"
    assert not sf.is_royal
    assert evaluate(["5c", "6d", "7h", "8s", "9c"], rules=HandRules()).category == STRAIGHT
    with pytest.raises(ValueError):
        evaluate(["5c", "6d", "7h", "8s", "9c"], rules=THREE_CARD_MANILA)


def test_man04_man3_04_flush_beats_full_house() -> None:
    """MAN-04, MAN3-04: a flush beats a full house; the flush is still called a flush."""
    flush = ["7h", "9h", "Jh", "Qh", "Kh"]
    full = ["Ac", "Ad", "Ah", "Ks", "Kd"]
    quads = ["7c", "7d", "7h", "7s", "8d"]
    for rules in (MANILA, THREE_CARD_MANILA):
        f, fh, q = (evaluate(h, rules=rules) for h in (flush, full, quads))
        assert fh < f < q
        assert f.category == FLUSH and fh.category == FULL_HOUSE
        assert f.name == "flush, king high"
    assert evaluate(flush) < evaluate(full)


@pytest.mark.parametrize(
    "rules",
    [MANILA, THREE_CARD_MANILA, HandRules(lowest_rank=7), HandRules(ace_low_straight=False)],
    ids=["manila", "three-card-manila", "stripped-standard-order", "no-wheel"],
)
def test_man04_every_stripped_deck_hand_matches_brute_force(rules: HandRules) -> None:
    """MAN-04, MAN3-04: five-card hands (every one in Manila's deck) order as the brute force
    says; seven-card hands take the brute-force best five."""
    deck = make_deck(lowest_rank=rules.lowest_rank)
    rng = random.Random(7)
    if rules == MANILA:  # all 201,376 hands of the 32-card deck
        hands: list[Sequence[str]] = list(combinations(deck, 5))
    else:
        hands = [rng.sample(deck, 5) for _ in range(40000)]
    assert_same_order([(score5(h, rules)[0], int(evaluate(h, rules=rules))) for h in hands])
    for _ in range(300):
        cards = rng.sample(deck, 7)
        hv = evaluate(cards, rules=rules)
        assert score5(hv.cards, rules)[0] == brute_best(cards, rules)
        check_cards(hv, cards, rules)


# --- MAN-03 / MAN3-03: hands that must use exactly k own cards -----------------------------
def test_man03_four_flush_on_board_and_one_in_hand_is_no_flush() -> None:
    """MAN-03: exactly two hole cards and three board cards, so one suited hole card cannot
    complete a four-card flush on the board."""
    hole, board = ["Ah", "2c"], ["Kh", "Qh", "Jh", "9h", "8d"]
    assert evaluate(hole, board).category == FLUSH
    hv = evaluate(hole, board, use_exactly=2)
    assert hv.category == HIGH_CARD and hv.name == "high card, ace"
    assert set(hole) <= set(hv.cards)
    assert hv.cards == ("Ah", "Kh", "Qh", "Jh", "2c")


def test_man03_board_straight_needs_two_hole_cards() -> None:
    """MAN-03: a straight on the board does not play; board pairs can."""
    hole, board = ["2c", "2d"], ["Tc", "Jd", "Qh", "Ks", "Ac"]
    assert evaluate(hole, board).category == STRAIGHT
    assert evaluate(hole, board, use_exactly=2).name == "pair of twos"
    hv = evaluate(["Kc", "9s"], ["Ks", "Kh", "9c", "9d", "2s"], use_exactly=2)
    assert hv.name == "full house, kings full of nines"


def test_man3_03_two_of_three_hole_cards() -> None:
    """MAN3-03: exactly two of three hole cards with three of five board cards."""
    rules = THREE_CARD_MANILA
    # three hearts in hand, two on board: the flush needs three from the hand: no flush
    hv = evaluate(["Ah", "Kh", "Qh"], ["Jh", "Th", "6c", "7d", "9s"], rules=rules, use_exactly=2)
    assert hv.category == STRAIGHT and hv.name == "straight, king high"
    # choose the right two: a pair of nines in hand with a nine on board makes trips
    hv = evaluate(["9c", "9d", "As"], ["9h", "Kc", "7d", "6s", "Jh"], rules=rules, use_exactly=2)
    assert hv.name == "three of a kind, nines"
    assert "As" not in hv.cards
    # the flush still beats the full house under these rules
    hole, board = ["Kc", "Kh", "Ah"], ["6h", "7h", "9h", "6c", "6d"]
    hv = evaluate(hole, board, rules=rules, use_exactly=2)
    assert hv.category == FLUSH and hv.cards == ("Ah", "Kh", "9h", "7h", "6h")
    hv = evaluate(hole, board, rules=HandRules(lowest_rank=6), use_exactly=2)
    assert hv.name == "full house, sixes full of kings"


def test_man3_03_and_man03_random_against_brute_force() -> None:
    """MAN-03 and MAN3-03 (and Omaha-style 2 of 4) against the brute force over subsets."""
    rng = random.Random(99)
    cases = [(MANILA, 2, 2, 5), (THREE_CARD_MANILA, 3, 2, 5), (STANDARD, 4, 2, 5),
             (STANDARD, 2, 1, 5), (STANDARD, 5, 5, 0), (STANDARD, 3, 0, 5)]
    for rules, n_hole, k, n_board in cases:
        deck = make_deck(lowest_rank=rules.lowest_rank)
        pairs = []
        for _ in range(400):
            cards = rng.sample(deck, n_hole + n_board)
            hole, board = cards[:n_hole], cards[n_hole:]
            hv = evaluate(hole, board, rules=rules, use_exactly=k)
            key = brute_exactly(hole, board, k, rules)
            assert score5(hv.cards, rules)[0] == key
            assert len(set(hv.cards) & set(hole)) == k
            pairs.append((key, int(hv)))
        assert_same_order(pairs)


def test_use_exactly_bad_arguments() -> None:
    with pytest.raises(ValueError):
        evaluate(["Ah"], ["Kh", "Qh", "Jh", "9h"], use_exactly=2)
    with pytest.raises(ValueError):
        evaluate(["Ah", "Kd"], ["Kh", "Qh"], use_exactly=2)
    with pytest.raises(ValueError):
        evaluate(["Ah", "Kd"], ["Kh", "Qh", "2c"], use_exactly=6)
    with pytest.raises(ValueError):
        evaluate(["Ah", "Kh"], ["Kh", "Qh", "2c"], use_exactly=2)


# --- GEN-08 style input checks --------------------------------------------------------------
@pytest.mark.parametrize(
    ("cards", "board"),
    [
        (["As", "Kd", "Qh", "Jc"], []),  # too few
        (["As", "As", "Qh", "Jc", "9d"], []),  # duplicate
        (["As", "Kd"], ["As", "Qh", "Jc", "9d", "2d"]),  # duplicate across hand and board
        (["As", "Kd", "Qh", "Jc", "1d"], []),  # bad rank
        (["As", "Kd", "Qh", "Jc", "9x"], []),  # bad suit
        (["as", "Kd", "Qh", "Jc", "9d"], []),  # lowercase rank
        (["As", "Kd", "Qh", "Jc", 9], []),  # not a string
        ("AsKdQhJc9d", []),  # a string is not a list of cards
    ],
)
def test_malformed_input_raises_value_error(cards: list[object], board: list[str]) -> None:
    with pytest.raises(ValueError):
        evaluate(cards, board)  # type: ignore[arg-type]


def test_rules_validation() -> None:
    with pytest.raises(ValueError):
        HandRules(lowest_rank=11)
    with pytest.raises(ValueError):
        HandRules(lowest_rank=1)


# --- the int fast path and value plumbing ---------------------------------------------------
def test_encode_value_of_match_evaluate() -> None:
    rng = random.Random(5)
    for rules in (STANDARD, MANILA):
        deck = make_deck(lowest_rank=rules.lowest_rank)
        for _ in range(500):
            cards = rng.sample(deck, 7)
            board = encode(cards[2:], rules=rules)
            code = encode(cards[:2], rules=rules) + board
            assert code == encode(cards, rules=rules)
            assert value_of(code, rules=rules) == evaluate(cards, rules=rules)
    with pytest.raises(ValueError):
        encode(["As", "As"])
    with pytest.raises(ValueError):
        value_of(encode(["As", "Kd", "2c"]))


def test_hand_value_is_an_int_that_pickles() -> None:
    hv = evaluate(["Kc", "Kd", "Kh", "7s", "7c"])
    assert isinstance(hv, int) and isinstance(hv, HandValue)
    back = pickle.loads(pickle.dumps(hv))
    assert back == hv and back.name == hv.name and back.cards == hv.cards
    assert "kings full of sevens" in repr(hv)
    assert sorted([hv, 5, 10**12]) == [5, hv, 10**12]


@settings(max_examples=200, deadline=None)
@given(st.permutations(DECK).map(lambda d: d[:7]), st.integers(0, 7), st.randoms())
def test_hold03_value_independent_of_order_and_split(
    cards: list[str], split: int, rnd: random.Random
) -> None:
    """HOLD-03: the value depends on the set of cards only, not their order or hand/board."""
    hv = evaluate(cards[:split], cards[split:])
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    again = evaluate(shuffled)
    assert hv == again and hv.category == again.category and hv.name == again.name
    assert set(hv.cards) <= set(cards)


# --- STUD-02 / STUD-03: hands showing -------------------------------------------------------
def test_stud03_hand_showing_order() -> None:
    """STUD-03: quads > trips > two pair > pair > high card; no straights or flushes."""
    showing = [
        ["Ah", "Kh", "Qh", "Jh"],  # four to a royal is still just ace high
        ["2c", "2d", "3h", "4s"],
        ["Ac", "Ad", "Kh", "Qs"],
        ["2c", "2d", "3h", "3s"],
        ["Kc", "Kd", "Qh", "Qs"],
        ["2c", "2d", "2h", "3s"],
        ["2c", "2d", "2h", "2s"],
        ["3c", "3d", "3h", "3s"],
    ]
    keys = [rank_showing(s) for s in showing]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert rank_showing(["5c", "6d", "7h", "8s"]) < rank_showing(["2c", "2d", "3h", "4s"])
    assert rank_showing(["Ac"]) > rank_showing(["Kd"])
    assert rank_showing(["Ac", "3d"]) > rank_showing(["Kd", "Qs"])
    assert rank_showing(["Ac", "Kd", "3h"]) > rank_showing(["As", "Qd", "Jh"])


def test_stud03_ties_go_to_the_highest_card_by_suit() -> None:
    """STUD-03: equal ranks showing: the highest card by suit opens."""
    assert rank_showing(["Ks", "7c"]) > rank_showing(["Kh", "7d"])
    assert rank_showing(["9s", "9c", "4d"]) > rank_showing(["9h", "9d", "4s"])
    assert rank_showing(["Qd"]) > rank_showing(["Qc"])
    assert rank_showing(["Js", "Jd", "3c", "3h"]) > rank_showing(["Jh", "Jc", "3s", "3d"])


@settings(max_examples=300, deadline=None)
@given(st.permutations(DECK), st.integers(1, 4))
def test_stud03_distinct_up_cards_never_tie(deck: list[str], n: int) -> None:
    """STUD-03: two players' different up cards always order one way or the other."""
    a, b = deck[:n], deck[n : 2 * n]
    ka, kb = rank_showing(a), rank_showing(b)
    assert ka != kb
    assert rank_showing(list(reversed(a))) == ka


def test_stud03_seven_up_cards() -> None:
    assert rank_showing(["Ac", "Ad", "Ah", "Kc", "Kd", "2s", "3s"])[0] == FULL_HOUSE
    assert rank_showing(["Ac", "Ad", "Ah", "Kc", "2d", "5s", "3s"])[0] == TRIPS


def test_stud02_lowest_card_for_the_bring_in() -> None:
    """STUD-02: lowest by rank, then suit, clubs lowest."""
    assert lowest_card(["2d", "2c", "3c"]) == "2c"
    assert lowest_card(["Ts", "Th", "Js"]) == "Th"
    assert lowest_card(["Ah", "Kd"]) == "Kd"
    assert lowest_card(["2s", "2h", "2d"]) == "2d"
    with pytest.raises(ValueError):
        lowest_card([])
    with pytest.raises(ValueError):
        lowest_card(["2s", "zz"])
    with pytest.raises(ValueError):
        rank_showing(["2s", "2s"])


def test_package_exports_the_one_public_evaluator() -> None:
    """HOLD-03: ``server.rules.evaluate`` is the documented public function of the package."""
    import server.rules as rules

    assert callable(rules.evaluate)
    assert "server.rules.evaluate(cards" in (rules.__doc__ or "")
    value = rules.evaluate(["Kh", "Kd"], ["Ks", "7c", "7d", "2s", "3h"])
    assert value.name == "full house, kings full of sevens"
    assert value > rules.evaluate(["Ah", "Ad"], ["Ks", "7c", "7d", "2s", "3h"])


def test_hold03_two_flush_suits_among_ten_cards_take_the_better_flush() -> None:
    """HOLD-03 / STUD-07: the best five of all the cards, however many: with five spades and
    five hearts the hand is the better of the two flushes."""
    spades = ["2s", "4s", "6s", "8s", "Ts"]
    hearts = ["3h", "5h", "7h", "9h", "Jh"]
    both = evaluate(spades + hearts)
    assert both.category == FLUSH
    assert both == evaluate(hearts) and both > evaluate(spades)


def test_bad_cards_are_named_by_every_entry_point() -> None:
    with pytest.raises(ValueError, match="not a card: 'Xx'"):
        encode(["As", "Xx"])
    with pytest.raises(ValueError, match="not a card"):
        evaluate(["As", "Xx"], ["2c", "3c", "4c", "5c", "7d"], use_exactly=2)
    with pytest.raises(TypeError, match="must be HandRules"):
        evaluate(["As", "Ks", "Qs", "Js", "Ts"], rules="standard")  # type: ignore[arg-type]
