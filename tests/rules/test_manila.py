"""Manila, two hole cards (MAN-01..04) and the GEN-07 seat limit, as scripted hands."""

from __future__ import annotations

from server.rules.evaluate import FLUSH, FULL_HOUSE, HIGH_CARD, STRAIGHT, TRIPS, HandRules
from server.rules.events import (
    BoardDealt,
    Burned,
    Dealt,
    HandEnded,
    Posted,
    PotAwarded,
    Showdown,
    StreetEnded,
    TurnStarted,
)
from server.rules.manila import MANILA
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
    """Hole cards one at a time, the first community card, then burn + card four times."""
    b, u = cards(board), cards(burns)
    top = one_at_a_time(order, hole) + [b[0]]
    for burn, card in zip(u, b[1:], strict=True):
        top += [burn, card]
    return full_deck(MANILA, top)


# Seat 0 holds 8s 7c: with the board As Ks Qs 9s Jd the best five of all seven cards is a
# spade flush, but a Manila hand is exactly both hole cards and three board cards: ace high.
# Seat 1 holds Jh Tc: Tc Jh + Qs Ks As is a straight, and wins.
THREE_HANDED = Script(
    variant=MANILA,
    rules=RULES,
    stacks={0: 100, 1: 100, 2: 100},
    button=2,
    deck=_deck([0, 1, 2], {0: "8s 7c", 1: "Jh Tc", 2: "7d 7h"},
               board="As Ks Qs 9s Jd", burns="8d 8h 9c 9d"),
    actions=[
        "2 fold", "0 call", "1 check",      # round 1 from the left of the last blind
        "0 check", "1 bet 10", "0 call",    # round 2 from the left of the button
        "0 check", "1 check",               # round 3
        "0 bet 20", "1 call",               # round 4 (big bet)
        "0 check", "1 check",               # round 5
    ],
    final={0: 60, 1: 140, 2: 100},
)


def test_man01_blinds_two_hole_cards_one_at_a_time_then_first_community_card() -> None:
    """MAN-01: blinds (BLIND-01), two hole cards one at a time from the button's left, then one
    community card face up before the first round."""
    ran = run(THREE_HANDED)
    ev = ran.events
    assert [(p.seat, p.kind, p.amount) for p in ran.of(Posted)] == [(0, "blind", 5),
                                                                    (1, "blind", 10)]
    dealt = ran.of(Dealt)
    assert [(d.seat, d.cards, d.positions, d.up) for d in dealt] == [
        (0, ("8s", "7c"), (0, 3), (False, False)),
        (1, ("Jh", "Tc"), (1, 4), (False, False)),
        (2, ("7d", "7h"), (2, 5), (False, False)),
    ]
    first_board = ran.of(BoardDealt)[0]
    assert first_board.cards == ("As",) and first_board.positions == (6,)
    # the first community card is out before the first decision; nothing is burnt before it
    first_turn = next(i for i, e in enumerate(ev) if isinstance(e, TurnStarted))
    assert ev.index(first_board) < first_turn
    assert not any(isinstance(e, Burned) for e in ev[:first_turn])
    assert ran.of(TurnStarted)[0] == TurnStarted(2, 0)  # left of the last blind (BET-02)


def test_man02_five_rounds_four_burns() -> None:
    """MAN-02: five betting rounds; a burn and a community card before rounds two to five
    (four burns in all); rounds two to five open left of the button (BET-04)."""
    ran = run(THREE_HANDED)
    ev = ran.events
    assert [(b.card, b.position) for b in ran.of(Burned)] == [
        ("8d", 7), ("8h", 9), ("9c", 11), ("9d", 13)]
    boards = ran.of(BoardDealt)
    assert [b.positions for b in boards] == [(6,), (8,), (10,), (12,), (14,)]
    assert boards[-1].board == ("As", "Ks", "Qs", "9s", "Jd")
    assert [s.street for s in ran.of(StreetEnded)] == [0, 1, 2, 3, 4]
    # each burn comes right before its community card, after the previous round closed
    for burn in ran.of(Burned):
        i = ev.index(burn)
        assert isinstance(ev[i - 1], StreetEnded) and isinstance(ev[i + 1], BoardDealt)
    openers = [e.seat for i, e in enumerate(ev)
               if isinstance(e, TurnStarted) and isinstance(ev[i - 1], BoardDealt)]
    assert openers == [2, 0, 0, 0, 0]  # round 1: left of the last blind


def test_man03_exactly_two_hole_cards_and_three_board_cards() -> None:
    """MAN-03: the best five of all seven (a flush for seat 0) is not a Manila hand; the hand
    is exactly both hole cards with three community cards, so seat 1's straight wins."""
    board = cards("As Ks Qs 9s Jd")
    seat0 = hand_value(MANILA, RULES, cards("8s 7c"), board)
    assert seat0.category == HIGH_CARD  # the flush As Ks Qs 9s 8s is not a Manila hand
    assert set(seat0.cards) >= {"8s", "7c"}
    ran = run(THREE_HANDED)
    shows = {s.seat: s for s in ran.of(Showdown)}
    assert shows[1].hand.startswith("straight")
    assert {"Jh", "Tc"} <= set(shows[1].best) and len(shows[1].best) == 5
    assert ran.of(PotAwarded) == [PotAwarded(0, 80, {1: 80}, None, shows[1].hand)]
    assert ran.of(HandEnded)[0].stacks == {0: 60, 1: 140, 2: 100}


def _heads_up(hole0: str, hole1: str, board: str, rules: object = RULES) -> Script:
    return Script(
        variant=MANILA,
        rules=rules,  # type: ignore[arg-type]
        stacks={0: 100, 1: 100},
        button=1,
        deck=_deck([0, 1], {0: hole0, 1: hole1}, board=board, burns="8c 8d 9c 9d"),
        actions=["0 call", "1 check"] + ["0 check", "1 check"] * 4,
    )


def test_man04_flush_beats_full_house_in_the_32_card_deck() -> None:
    """MAN-04: 32 cards seven to ace; a flush beats a full house (scripted showdown)."""
    assert len(MANILA.card_set) == 32
    assert {c[0] for c in MANILA.card_set} == set("789TJQKA")
    script = _heads_up("Ah 9h", "Kc Qc", "Kh Qh 7h Kd 7s")
    script.final = {0: 110, 1: 90}
    ran = run(script)
    shows = {s.seat: s for s in ran.of(Showdown)}
    assert shows[0].hand.startswith("flush")
    assert ran.hand.values[1].category == FULL_HOUSE  # beaten, so given up unseen (SHOW-01)


def test_man04_table_setting_override_full_house_beats_flush() -> None:
    """MAN-04 (table setting): TableRules(hand_rules=...) overrides the variant's ranking;
    with flush_beats_full_house off, the same deck goes the other way."""
    standard_order = HandRules(lowest_rank=7, flush_beats_full_house=False,
                               ace_low_straight=True)
    script = _heads_up("Ah 9h", "Kc Qc", "Kh Qh 7h Kd 7s",
                       rules=limit_rules(hand_rules=standard_order))
    script.final = {0: 90, 1: 110}
    run(script)


def test_man04_a_7_8_9_10_is_the_lowest_straight() -> None:
    """MAN-04: the ace is high in straights except A-7-8-9-10, the lowest straight."""
    board = cards("8s 9h Td Kc Qd")
    low = hand_value(MANILA, RULES, cards("Ah 7c"), board)
    j_high = hand_value(MANILA, RULES, cards("Jc 7d"), board)
    trips = hand_value(MANILA, RULES, cards("8c 8d"), board)
    assert low.category == STRAIGHT and j_high.category == STRAIGHT
    assert trips.category == TRIPS
    assert trips < low < j_high
    # the ace is not low with 2-3-4-5 in this deck (there are none) nor a "wrap-around"
    assert hand_value(MANILA, RULES, cards("Ah 7c"), cards("Kd Qc 8s 9h Jd")).category \
        != STRAIGHT
    script = _heads_up("Ah 7c", "Jc 7d", "8s 9h Td Kc Qd")
    script.final = {0: 90, 1: 110}
    run(script)


def test_man04_flush_over_full_house_by_evaluator() -> None:
    """MAN-04: the default Manila ranking puts flush above full house."""
    board = cards("Kh Qh 7h Kd 7s")
    flush = hand_value(MANILA, RULES, cards("Ah 9h"), board)
    boat = hand_value(MANILA, RULES, cards("Kc Qc"), board)
    assert flush.category == FLUSH and boat.category == FULL_HOUSE and flush > boat


def test_gen07_manila_seat_limit() -> None:
    """GEN-07: capacity arithmetic for Manila's 32 cards: n players take 2n hole cards, the
    board 5 and the burns 4, so 2n + 9 <= 32 gives n <= 11; the table seats 10
    (MANILA.max_seats) and the engine refuses an 11th player with bad_setup."""
    assert 2 * MANILA.max_seats + 5 + 4 <= len(MANILA.card_set)
    eleven = {s: 100 for s in range(11)}
    assert setup_refusal(MANILA, RULES, eleven, num_seats=11) == "bad_setup"
    # ten players play to the showdown on one deck (29 of 32 cards)
    order = list(range(10))
    ranks = "789TJQKA"
    pool = [r + s for r in ranks for s in "cdhs"]
    hole = {s: [pool[2 * s], pool[2 * s + 1]] for s in order}
    rest = pool[20:]
    top = one_at_a_time(order, hole) + [rest[0]]
    for i in range(4):
        top += [rest[1 + 2 * i], rest[2 + 2 * i]]
    script = Script(variant=MANILA, rules=RULES, stacks={s: 100 for s in order}, button=9,
                    deck=full_deck(MANILA, top),
                    actions=[f"{s} call" for s in range(2, 10)] + ["0 call", "1 check"]
                    + [f"{s} check" for s in order] * 4)
    ran = run(script)
    assert len(ran.of(Burned)) == 4 and len(ran.of(BoardDealt)) == 5
    assert max(b.positions[-1] for b in ran.of(BoardDealt)) == 28
