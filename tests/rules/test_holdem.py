"""Texas Hold'em scripted hands: HOLD-01..03, heads-up blinds (BLIND-01), SHOW-01, SHOW-02."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rules import errors
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
from server.rules.structure import FIXED_LIMIT, Stakes
from tests.rules.scripted import Script, fill_deck, like, no_turn, opts, run

DECK16 = "Ac Kc Qc Jc Ad Kd Qd Jd 2s 9h 8h 7h 3s 3d 4s 4d"  # 4 seats, then the board


def test_hold_01_blinds_before_cards_then_two_hole_cards_one_at_a_time() -> None:
    """HOLD-01 BLIND-01: blinds from the button's left first, then one card at a time."""
    result = run(Script(
        stacks={0: 100, 2: 100, 5: 100, 7: 100}, button=5, deck=DECK16,
        events=[Posted(7, "blind", 5, 95), Posted(0, "blind", 10, 90),
                Dealt(7, ("Ac", "Ad"), (False, False), (0, 4)),
                Dealt(0, ("Kc", "Kd"), (False, False), (1, 5)),
                Dealt(2, ("Qc", "Qd"), (False, False), (2, 6)),
                Dealt(5, ("Jc", "Jd"), (False, False), (3, 7))],
    ))
    kinds = [type(e).__name__ for e in result.events]
    assert kinds.index("Dealt") > max(i for i, k in enumerate(kinds) if k == "Posted")
    assert result.hand.to_act == 2  # BET-02: left of the last blind


def test_hold_02_burn_and_flop_turn_river_each_with_a_round_from_the_button_left() -> None:
    """HOLD-02 BET-02 BET-04: pre-flop from the left of the big blind; burn + 3, burn + 1,
    burn + 1, each later round opened by the first active player left of the button."""
    run(Script(
        stacks={0: 100, 2: 100, 5: 100, 7: 100}, button=5, deck=DECK16,
        actions=[(2, "call"), (5, "call"), (7, "call"), (0, "check"),
                 opts(7, kinds=("fold", "check", "bet")),
                 (7, "check"), (0, "check"), (2, "check"), (5, "check"),
                 (7, "check"), (0, "check"), (2, "check"), (5, "check"),
                 (7, "fold"), (0, "check"), (2, "check"), (5, "check")],
        events=[TurnStarted(2, 0), TurnStarted(5, 0), TurnStarted(7, 0), TurnStarted(0, 0),
                Burned("2s", 8), BoardDealt(("9h", "8h", "7h"), ("9h", "8h", "7h"), (9, 10, 11)),
                TurnStarted(7, 1), TurnStarted(0, 1), TurnStarted(2, 1), TurnStarted(5, 1),
                Burned("3s", 12), BoardDealt(("3d",), ("9h", "8h", "7h", "3d"), (13,)),
                TurnStarted(7, 2), TurnStarted(0, 2), TurnStarted(2, 2), TurnStarted(5, 2),
                Burned("4s", 14), BoardDealt(("4d",), ("9h", "8h", "7h", "3d", "4d"), (15,)),
                TurnStarted(7, 3), TurnStarted(0, 3), TurnStarted(2, 3), TurnStarted(5, 3)],
        # seat 7's aces fold on the river; the kings beat the queens and jacks
        final={0: 130, 2: 90, 5: 90, 7: 90},
    ))


@pytest.mark.parametrize(("holes", "board", "names", "final"), [
    # the board plays: no hole card used, a split
    ({1: "2c 3d", 2: "4c 5d"}, "As Ks Qs Js Ts", ("royal flush", "royal flush"), {1: 100, 2: 100}),
    # one hole card: the ace makes the flush
    ({1: "Ah 2c", 2: "Kd Kc"}, "Qh 9h 5h 3h Kh", ("flush, ace high", "flush, king high"),
     {1: 120, 2: 80}),
    # both hole cards: a straight
    ({1: "6d 8c", 2: "Ad Ac"}, "7s 9h Ts Ah 2d", ("straight, ten high", "three of a kind, aces"),
     {1: 120, 2: 80}),
])
def test_hold_03_best_five_of_seven_using_any_number_of_hole_cards(
        holes: dict[int, str], board: str, names: tuple[str, str], final: dict[int, int]) -> None:
    """HOLD-03: the best five of two hole cards and five board cards, any number of each."""
    result = run(Script(
        stacks={1: 100, 2: 100}, button=2, holes=holes, board=board,
        actions=[(1, "raise", 20), (2, "call"), *[(s, "check") for _ in range(3) for s in (1, 2)]],
        final=final,
    ))
    values = result.hand.values  # the loser may give up unseen (SHOW-01); the server read it
    assert (values[1].name, values[2].name) == names


def test_blind_01_heads_up_as_written_player_left_of_button_posts_first_blind() -> None:
    """BLIND-01 (as written, the default): heads-up the player left of the button posts the
    first blind and the button the second; the button acts first pre-flop (left of the last
    blind) and last after the flop (BET-04)."""
    run(Script(
        stacks={3: 200, 8: 200}, button=8,
        actions=[opts(3, kinds=("fold", "call", "raise"), call=10, to_call=5),
                 no_turn(8), (3, "call"), opts(8, kinds=("fold", "check", "raise")),
                 (8, "check"), opts(3, kinds=("fold", "check", "bet")), (3, "check"),
                 (8, "bet", 10), (3, "fold")],
        events=[Posted(3, "blind", 5, 195), Posted(8, "blind", 10, 190),
                TurnStarted(3, 0), TurnStarted(8, 0), TurnStarted(3, 1), TurnStarted(8, 1),
                TurnStarted(3, 1)],
        final={3: 190, 8: 210},
    ))


def test_blind_01_heads_up_button_first_blind_setting() -> None:
    """BLIND-01 with heads_up_button_first_blind: the button posts the first blind and acts
    first pre-flop; after the flop the other player (left of the button) acts first."""
    run(Script(
        stacks={3: 200, 8: 200}, button=8, heads_up_button_first_blind=True,
        actions=[opts(8, call=10, to_call=5), (8, "call"),
                 opts(3, kinds=("fold", "check", "raise")), (3, "check"),
                 opts(3, kinds=("fold", "check", "bet")), (3, "bet", 10), (8, "fold")],
        events=[Posted(8, "blind", 5, 195), Posted(3, "blind", 10, 190),
                TurnStarted(8, 0), TurnStarted(3, 0), TurnStarted(3, 1), TurnStarted(8, 1)],
        final={3: 210, 8: 190},
    ))


def test_blind_01_three_compulsory_blinds() -> None:
    """BLIND-01: as many blinds as the table is set to, each left of the one before; the
    first round starts left of the last of them (BET-02)."""
    run(Script(
        stacks={1: 100, 2: 100, 3: 100, 4: 100}, button=4, stakes=Stakes(blinds=(5, 10, 20)),
        actions=[opts(4, call=20, to_call=20), (4, "fold"), (1, "fold"), (2, "fold")],
        events=[Posted(1, "blind", 5, 95), Posted(2, "blind", 10, 90),
                Posted(3, "blind", 20, 80), TurnStarted(4, 0), TurnStarted(1, 0),
                TurnStarted(2, 0)],
        final={1: 95, 2: 90, 3: 115, 4: 100},
    ))


# --- showdown -------------------------------------------------------------------------------

THREE = {1: 1000, 2: 1000, 3: 1000}  # button 3: seat 1 small blind, 2 big blind, 3 first


def test_show_01_called_player_shows_first_and_a_losing_later_hand_is_mucked() -> None:
    """SHOW-01: the river bettor (called) shows first, then clockwise each shows only if
    it ties or beats the best so far; the worse hand is given up unseen."""
    result = run(Script(
        stacks=THREE, button=3,
        holes={1: "7c 2d", 2: "Kh Qd", 3: "Ks 8d"}, board="Kc 8s 4d Jd 3h",
        actions=[(3, "call"), (1, "call"), (2, "check"),
                 *[(s, "check") for _ in range(2) for s in (1, 2, 3)],
                 (1, "check"), (2, "bet", 50), (3, "call"), (1, "call")],
        events=[like(Showdown, seat=2, hand="pair of kings"),
                like(Showdown, seat=3, hand="two pair, kings and eights"), Mucked(1),
                PotAwarded(0, 180, {3: 180}, None, "two pair, kings and eights")],
        final={1: 940, 2: 940, 3: 1120},
    ))
    assert result.hand.shown == [2, 3] and result.hand.mucked == [1]


def test_show_01_no_river_bet_first_to_act_shows_first() -> None:
    """SHOW-01: nobody bet on the river: the first player to act in it shows first; then in
    turn, a hand that cannot beat or tie the best shown is mucked."""
    run(Script(
        stacks=THREE, button=3,
        holes={1: "8c 8d", 2: "Qh 6d", 3: "Kh Kd"}, board="Ac 9s 4h Jd 3s",
        actions=[(3, "call"), (1, "call"), (2, "check"),
                 *[(s, "check") for _ in range(3) for s in (1, 2, 3)]],
        events=[like(Showdown, seat=1, hand="pair of eights"), Mucked(2),
                like(Showdown, seat=3, hand="pair of kings"), PotAwarded(0, 30, {3: 30},
                                                                        None, "pair of kings")],
        final={1: 990, 2: 990, 3: 1020},
    ))


def test_show_01_all_in_before_the_river_shows_automatically() -> None:
    """SHOW-01: a player all-in before the last round shows even with the worst hand, while
    a losing hand that still had chips is mucked; the side pot goes to the best of the
    others (ALLIN-03)."""
    run(Script(
        stacks={1: 50, 2: 1000, 3: 1000}, button=3,
        holes={1: "7c 2d", 2: "Ah Ad", 3: "Qs Qd"}, board="Kc 9s 4d Jd 3h",
        actions=[(3, "call"), (1, "raise", 50), (2, "call"), (3, "call"),
                 opts(2, kinds=("fold", "check", "bet")),
                 (2, "check"), (3, "check"), (2, "check"), (3, "check"),
                 (2, "bet", 100), (3, "call")],
        events=[like(Showdown, seat=2, hand="pair of aces"), Mucked(3),
                like(Showdown, seat=1, hand="high card, king"),
                PotAwarded(0, 150, {2: 150}, None, "pair of aces"),
                PotAwarded(1, 200, {2: 200}, None, "pair of aces")],
        final={1: 0, 2: 1200, 3: 850},
    ))


def test_show_02_reveal_mucked_after_the_showdown() -> None:
    """SHOW-02: after the showdown the hands given up unseen can be revealed (once each);
    never during the hand."""
    script = Script(
        stacks=THREE, button=3,
        holes={1: "7c 2d", 2: "Kh Qd", 3: "Ks 8d"}, board="Kc 8s 4d Jd 3h",
        actions=[(3, "call"), (1, "call"), (2, "check")],
    )
    result = run(script)
    with pytest.raises(errors.IllegalAction) as exc:
        result.hand.reveal_mucked()
    assert exc.value.reason == errors.NO_HAND
    hand = run(replace(script, actions=[
        *script.actions, *[(s, "check") for _ in range(2) for s in (1, 2, 3)],
        (1, "check"), (2, "bet", 50), (3, "call"), (1, "call")])).hand
    assert hand.mucked == [1]
    assert hand.reveal_mucked() == [Showdown(1, ("7c", "2d"), "high card, king",
                                             ("Kc", "Jd", "8s", "7c", "4d"))]
    assert hand.reveal_mucked() == []


def test_show_01_fixed_limit_river_raise_the_raiser_is_the_called_player() -> None:
    """SHOW-01: after bet, raise, call on the river the raiser was called and shows first."""
    run(Script(
        stacks={1: 500, 2: 500}, button=2, structure=FIXED_LIMIT,
        stakes=Stakes(blinds=(5, 10), small_bet=10, big_bet=20),
        holes={1: "Ah Kd", 2: "Qs Qd"}, board="Qc 9s 4d Jd 3h",
        actions=[(1, "call"), (2, "check"), (1, "check"), (2, "check"),
                 (1, "check"), (2, "check"), (1, "bet", 20), (2, "raise", 40), (1, "call")],
        events=[like(Showdown, seat=2, hand="three of a kind, queens"), Mucked(1)],
        final={1: 450, 2: 550},
    ))


def test_fill_deck_is_a_permutation() -> None:
    """GEN-01: the scripted decks are whole 52-card decks (the helper fills the rest)."""
    deck = fill_deck(["As", "_", "Kd"], Script(stacks={1: 1, 2: 1}, button=1).variant.card_set)
    assert len(deck) == 52 == len(set(deck)) and deck[0] == "As" and deck[2] == "Kd"


def test_street_ended_carries_the_main_and_side_pots() -> None:
    """Each closed round names its pots (amount, eligible seats), main pot first, as
    :func:`server.rules.pots.build_pots` layers them (ALLIN-03)."""
    result = run(Script(
        stacks={1: 50, 2: 1000, 3: 1000}, button=3,
        holes={1: "7c 2d", 2: "Ah Ad", 3: "Qs Qd"}, board="Kc 9s 4d Jd 3h",
        actions=[(3, "call"), (1, "raise", 50), (2, "call"), (3, "call"),
                 (2, "check"), (3, "check"), (2, "check"), (3, "check"),
                 (2, "bet", 100), (3, "call")],
    ))
    ended = [e for e in result.events if isinstance(e, StreetEnded)]
    assert [e.pots for e in ended] == [
        ((150, (1, 2, 3)),),
        ((150, (1, 2, 3)),),
        ((150, (1, 2, 3)),),
        ((150, (1, 2, 3)), (200, (2, 3))),
    ]
    assert all(sum(a for a, _ in e.pots) == e.pot for e in ended)
