"""Three Card Manila (MAN3-01..04) and its nine-player limit (GEN-07), as scripted hands."""

from __future__ import annotations

from server.rules.evaluate import FLUSH, FULL_HOUSE, STRAIGHT, TWO_PAIR
from server.rules.events import (
    BoardDealt,
    Burned,
    Dealt,
    Mucked,
    Posted,
    PotAwarded,
    Showdown,
    StreetEnded,
    TurnStarted,
)
from server.rules.manila import MANILA3
from server.rules.variant import hand_value
from tests.rules.variant_helpers import (
    Script,
    cards,
    full_deck,
    limit_rules,
    one_at_a_time,
    run,
    setup_refusal,
)

RULES = limit_rules()


def _deck(order: list[int], hole: dict[int, str], board: str, burns: str) -> list[str]:
    b, u = cards(board), cards(burns)
    top = one_at_a_time(order, hole) + [b[0]]
    for burn, card in zip(u, b[1:], strict=True):
        top += [burn, card]
    return full_deck(MANILA3, top)


# Seat 0 holds Qh 9s 9d: its pair of nines makes only two pair (9-9-6-6-J) with this board,
# but choosing Qh 9s gives the straight Q-J-10-9-8.  Seat 1 (Kh Kd 7h) has K-K-6-6 at best.
HAND = Script(
    variant=MANILA3,
    rules=RULES,
    stacks={0: 100, 1: 100, 2: 100},
    button=2,
    deck=_deck([0, 1, 2], {0: "Qh 9s 9d", 1: "Kh Kd 7h", 2: "6c 7c 8s"},
               board="Jh Th 8c 6s 6d", burns="Ac Ad As Ah"),
    actions=[
        "2 call", "0 call", "1 check",
        "0 check", "1 bet 10", "2 fold", "0 call",
        "0 check", "1 check",
        "0 bet 20", "1 call",
        "0 check", "1 check",
    ],
    final={0: 150, 1: 60, 2: 90},
)


def test_man3_01_three_hole_cards_one_at_a_time_then_a_community_card() -> None:
    """MAN3-01: blinds (BLIND-01); three hole cards face down one at a time from the button's
    left; then the first of five community cards face up, before the first round."""
    ran = run(HAND)
    assert [(p.seat, p.amount) for p in ran.of(Posted)] == [(0, 5), (1, 10)]
    assert [(d.seat, d.cards, d.positions, d.up) for d in ran.of(Dealt)] == [
        (0, ("Qh", "9s", "9d"), (0, 3, 6), (False,) * 3),
        (1, ("Kh", "Kd", "7h"), (1, 4, 7), (False,) * 3),
        (2, ("6c", "7c", "8s"), (2, 5, 8), (False,) * 3),
    ]
    first = ran.of(BoardDealt)[0]
    assert first.cards == ("Jh",) and first.positions == (9,)
    ev = ran.events
    assert ev.index(first) < ev.index(ran.of(TurnStarted)[0])


def test_man3_02_five_rounds_and_four_burns() -> None:
    """MAN3-02: five betting rounds as MAN-02, a burn before each community card after the
    first: four burns."""
    ran = run(HAND)
    assert [b.position for b in ran.of(Burned)] == [10, 12, 14, 16]
    assert [b.positions for b in ran.of(BoardDealt)] == [(9,), (11,), (13,), (15,), (17,)]
    assert [s.street for s in ran.of(StreetEnded)] == [0, 1, 2, 3, 4]


def test_man3_03_showdown_decided_by_the_choice_of_two_hole_cards() -> None:
    """MAN3-03: exactly two of three hole cards with three community cards; seat 0 wins by
    choosing Qh 9s (a straight), not its pair of nines."""
    board = cards("Jh Th 8c 6s 6d")
    v0 = hand_value(MANILA3, RULES, cards("Qh 9s 9d"), board)
    assert v0.category == STRAIGHT
    assert set(v0.cards) & {"Qh", "9s", "9d"} in ({"Qh", "9s"}, {"Qh", "9d"})
    assert hand_value(MANILA3, RULES, cards("9s 9d"), board).category == TWO_PAIR
    ran = run(HAND)
    shows = {s.seat: s for s in ran.of(Showdown)}
    assert shows[0].hand.startswith("straight")
    assert ran.of(Mucked) == [Mucked(1)]
    assert ran.hand.values[1].category == TWO_PAIR
    assert ran.of(PotAwarded)[0].winners == {0: 90}


def test_man3_04_deck_and_rankings() -> None:
    """MAN3-04: 36 cards six to ace; a flush beats a full house; the ace is high in straights
    except A-6-7-8-9, the lowest straight."""
    assert len(MANILA3.card_set) == 36
    assert {c[0] for c in MANILA3.card_set} == set("6789TJQKA")
    board = cards("7s 8h 9d Kc Qd")
    wheel = hand_value(MANILA3, RULES, cards("Ah 6c"), board)
    ten_high = hand_value(MANILA3, RULES, cards("Tc 6d"), board)
    assert wheel.category == STRAIGHT and ten_high.category == STRAIGHT and wheel < ten_high
    flush_board = cards("Kh Qh 7h Kd 7s")
    flush = hand_value(MANILA3, RULES, cards("Ah 9h 6c"), flush_board)
    boat = hand_value(MANILA3, RULES, cards("Kc Qc 6d"), flush_board)
    assert flush.category == FLUSH and boat.category == FULL_HOUSE and flush > boat
    # scripted: A-6-7-8-9 loses to 6-7-8-9-10 heads-up
    script = Script(variant=MANILA3, rules=RULES, stacks={0: 100, 1: 100}, button=1,
                    deck=_deck([0, 1], {0: "Ah 6c Jc", 1: "Tc 6d Js"}, board="7s 8h 9d Kc Qd",
                               burns="Ac Ad As 6s"),
                    actions=["0 call", "1 check"] + ["0 check", "1 check"] * 4,
                    final={0: 90, 1: 110})
    run(script)


def test_gen07_man3_04_at_most_nine_players() -> None:
    """MAN3-04, GEN-07: 3n hole cards + 5 board + 4 burns <= 36 gives n <= 9: a tenth player
    is refused (bad_setup), and nine players use the whole deck exactly."""
    assert MANILA3.max_seats == 9
    assert len(MANILA3.card_set) == 3 * 9 + 5 + 4
    assert setup_refusal(MANILA3, RULES, {s: 100 for s in range(10)}) == "bad_setup"
    order = list(range(9))
    deck = list(MANILA3.card_set)
    script = Script(variant=MANILA3, rules=RULES, stacks={s: 100 for s in order}, button=8,
                    deck=deck,
                    actions=[f"{s} call" for s in range(2, 9)] + ["0 call", "1 check"]
                    + [f"{s} check" for s in order] * 4)
    ran = run(script)
    positions = [p for d in ran.of(Dealt) for p in d.positions]
    positions += [p for b in ran.of(BoardDealt) for p in b.positions]
    positions += [b.position for b in ran.of(Burned)]
    assert sorted(positions) == list(range(36))
