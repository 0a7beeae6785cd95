"""Pots scripted hands: side pots (ALLIN-03), odd chips (POT-01), no deals (POT-02)."""

from __future__ import annotations

import pytest

from server.rules.events import BetReturned, BoardDealt, PotAwarded
from server.rules.pots import Pot, build_pots, split_pot, uncalled
from server.rules.structure import Stakes
from tests.rules.scripted import Script, refuse, run

CHECKS3 = [(s, "check") for _ in range(3) for s in (2, 3)]  # seat 1 folded pre-flop


def test_allin_03_three_all_ins_of_different_sizes_make_two_side_pots() -> None:
    """ALLIN-03 ALLIN-04: all-ins for 100, 300 and 600 called by a bigger stack: a main pot of
    400 (all four), a side pot of 600 (three) and one of 600 (two); each goes to the best
    hand eligible for it, and nobody bets again."""
    result = run(Script(
        stacks={1: 100, 2: 300, 3: 600, 4: 1000}, button=4,
        holes={1: "As Ad", 2: "Ks Kd", 3: "8s 8d", 4: "Qs Qd"}, board="2h 7d 9c Jh 4s",
        actions=[(3, "raise", 600), (4, "call"), (1, "call"), (2, "call")],
        events=[PotAwarded(0, 400, {1: 400}, None, "pair of aces"),
                PotAwarded(1, 600, {2: 600}, None, "pair of kings"),
                PotAwarded(2, 600, {4: 600}, None, "pair of queens")],
        final={1: 400, 2: 600, 3: 0, 4: 1000},
    ))
    hand = result.hand
    assert build_pots(hand.contrib, hand.live) == [
        Pot(400, (1, 2, 3, 4)), Pot(600, (2, 3, 4)), Pot(600, (3, 4))]
    assert not any(isinstance(e, BetReturned) for e in result.events)


def test_allin_03_folded_players_chips_stay_in_the_pots_they_reached() -> None:
    """ALLIN-03: a short all-in wins only what it matched; a player who folds leaves their
    chips in every pot they reached; the unmatched flop bet goes back."""
    run(Script(
        stacks={1: 30, 2: 1000, 3: 1000}, button=3,
        holes={1: "As Ad", 2: "Ks Kd", 3: "Qs Qd"}, board="2h 7d 9c Jh 4s",
        actions=[(3, "raise", 50), (1, "call"), (2, "call"), (2, "bet", 100), (3, "fold")],
        events=[BetReturned(2, 100, 950),
                PotAwarded(0, 90, {1: 90}, None, "pair of aces"),
                PotAwarded(1, 40, {2: 40}, None, "pair of kings")],
        final={1: 90, 2: 990, 3: 950},
    ))


def test_uncalled_bet_goes_back_to_its_owner() -> None:
    """ALLIN-03: the river bet nobody calls is returned before the pot is awarded; a bet
    larger than the caller's stack is returned in its unmatched part."""
    run(Script(
        stacks={1: 1000, 2: 300}, button=2,
        holes={1: "As Ad", 2: "Ks Kd"}, board="2h 7d 9c Jh 4s",
        actions=[(1, "call"), (2, "check"), (1, "bet", 500), (2, "call")],
        events=[BetReturned(1, 210, 700), PotAwarded(0, 600, {1: 600}, None, "pair of aces")],
        final={1: 1300, 2: 0},
    ))
    assert uncalled({1: 500, 2: 290, 3: 5}) == (1, 210)
    assert uncalled({1: 290, 2: 290}) is None


def test_pot_01_odd_chip_to_highest_hole_card_rank_first() -> None:
    """POT-01: a tied pot of 25 splits 12/12; the odd chip goes to the highest hole card by
    rank first: the ace of clubs beats the king of spades."""
    run(Script(
        stacks={1: 1000, 2: 1000, 3: 1000}, button=3,
        holes={2: "Ac 3d", 3: "Ks 4s"}, board="Ts Jd Qc Kh Ah",
        actions=[(3, "call"), (1, "fold"), (2, "check"), *CHECKS3],
        events=[PotAwarded(0, 25, {2: 13, 3: 12}, 2, "straight, ace high")],
        final={1: 995, 2: 1003, 3: 1002},
    ))


def test_pot_01_odd_chip_by_suit_when_ranks_tie_and_down_to_the_smallest_chip() -> None:
    """POT-01: the pot is divided down to the table's smallest chip (5): 25 is 10 and 10 and
    a remainder of 5; equal top ranks go by suit, spades over hearts."""
    run(Script(
        stacks={1: 1000, 2: 1000, 3: 1000}, button=3, stakes=Stakes(blinds=(5, 10), chip=5),
        holes={2: "9h 3c", 3: "9s 2d"}, board="Ts Jd Qc Kh Ah",
        actions=[(3, "call"), (1, "fold"), (2, "check"), *CHECKS3],
        events=[PotAwarded(0, 25, {2: 10, 3: 15}, 3, "straight, ace high")],
        final={1: 995, 2: 1000, 3: 1005},
    ))


def test_pot_01_each_side_pot_split_on_its_own() -> None:
    """POT-01 ALLIN-03: a main pot is split by the tied hands in it, while the side pot goes
    to the one eligible winner; each pot's odd chip is decided alone."""
    run(Script(
        stacks={1: 33, 2: 1000, 3: 1000}, button=3,
        holes={1: "Ac 2c", 2: "As 3d", 3: "Qs Jd"}, board="Ks Kd Kh 7c 8h",
        actions=[(3, "raise", 100), (1, "call"), (2, "call"), *CHECKS3],
        # main pot 99 (33 each): seats 1 and 2 tie with K-K-K-A-8; the ace of spades takes
        # the odd chip; the side pot of 134 (67 each from seats 2 and 3) is seat 2's alone
        events=[PotAwarded(0, 99, {1: 49, 2: 50}, 2, "three of a kind, kings"),
                PotAwarded(1, 134, {2: 134}, None, "three of a kind, kings")],
        final={1: 49, 2: 1084, 3: 900},
    ))
    shares, odd = split_pot(7, [4, 5, 6], chip=1, hole_cards={4: ["2c"], 5: ["Ks"],
                                                              6: ["Kh"]}.__getitem__)
    assert shares == {4: 2, 5: 3, 6: 2} and odd == 5


def test_pot_02_no_split_by_agreement_every_hand_played_to_its_end() -> None:
    """POT-02: there is no action to divide the pot by agreement; with both players all-in
    the board is still dealt to the end and the cards decide."""
    result = run(Script(
        stacks={1: 200, 2: 200}, button=2,
        holes={1: "As Ad", 2: "Ks Kd"}, board="2h 7d 9c Kh 4s",
        actions=[refuse(1, "split"), refuse(1, "chop"), refuse(1, "deal"), (1, "raise", 200),
                 (2, "call")],
        events=[PotAwarded(0, 400, {2: 400}, None, "three of a kind, kings")],
        final={1: 0, 2: 400},
    ))
    assert sum(len(e.cards) for e in result.events if isinstance(e, BoardDealt)) == 5


def test_allin_03_side_pots_with_seat_zero_all_in() -> None:
    """ALLIN-03 with seat 0 all-in (seats 0, 2 and 9, button on 9): seat 0 wins the main pot
    it matched (3 x 100) and the side pot of the two others goes to the better of them."""
    run(Script(
        stacks={0: 100, 2: 500, 9: 500}, button=9,
        holes={0: "As Ad", 2: "Ks Kd", 9: "Qs Qd"}, board="2h 7d 9c Jh 4s",
        actions=[(9, "raise", 300), (0, "call"), (2, "call"),
                 (2, "check"), (9, "check"), (2, "check"), (9, "check"),
                 (2, "check"), (9, "check")],
        events=[PotAwarded(0, 300, {0: 300}, None, "pair of aces"),
                PotAwarded(1, 400, {2: 400}, None, "pair of kings")],
        final={0: 300, 2: 600, 9: 200},
    ))


def test_uncalled_with_one_contributor_returns_all_of_it() -> None:
    """ALLIN-03 (a bet nobody matched goes back to its owner): a lone contributor gets all of
    it back; nothing is uncalled with no contributor or a zero contribution."""
    assert uncalled({4: 30}) == (4, 30)
    assert uncalled({4: 0}) is None
    assert uncalled({}) is None


def test_chips_above_every_live_level_stay_in_the_last_pot() -> None:
    """ALLIN-03 (a folded player's chips stay in the pots they reached): chips of a folded
    seat above the highest live total are never lost: they go to the last pot; with no live
    chips at all they form one pot for the live seats."""
    pots = build_pots({1: 100, 2: 50, 3: 50}, live=[2, 3])
    assert [(p.amount, p.eligible) for p in pots] == [(200, (2, 3))]
    assert [(p.amount, p.eligible) for p in build_pots({1: 10, 2: 0}, live=[2])] == [
        (10, (2,))]


def test_split_pot_needs_a_winner() -> None:
    """POT-01 divides among the tied winners: a pot without one is a caller's bug."""
    with pytest.raises(ValueError, match="at least one winner"):
        split_pot(100, [], hole_cards=lambda s: ())
