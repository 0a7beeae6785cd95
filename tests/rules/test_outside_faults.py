"""Faults found from outside (a differential run against pokerkit, black-box scenarios), each
written down as the reproduction that was reported, with seat 0 and gaps in the layout.

BET-02 / BET-04 / STUD-04 (seat 0 opens), ALLIN-04 (checked after every action), ALLIN-03
(pots follow contributions), ALLIN-01 (a stud completion is capped at the stack), BET-13 (no
raise when nobody else can put in more), SHOW-01 (the showdown after the first actor folded).
"""

from __future__ import annotations

from server.rules.events import Acted, PotAwarded, Showdown, TurnStarted
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.structure import Stakes
from server.rules.stud import STUD5
from server.rules.variant import TableRules
from tests.rules.variant_helpers import full_deck, of, play

NL = TableRules(structure="no_limit", stakes=Stakes(blinds=(5, 10), small_bet=10))
FL = TableRules(structure="fixed_limit", stakes=Stakes(blinds=(5, 10), small_bet=10,
                                                         big_bet=20))


def holdem(stacks: dict[int, int], button: int, top: list[str] | None = None,
           rules: TableRules = NL) -> tuple[Hand, list[object]]:
    hand = Hand(HOLDEM, rules, stacks, button=button,
                deck=full_deck(HOLDEM, top or []), num_seats=10)
    return hand, list(hand.start())


def test_bet_02_seat_zero_acts_first_pre_flop() -> None:
    """BET-02: seats 0, 3 and 6, button on 0: seat 3 posts the small blind, seat 6 the big
    blind, and seat 0 (left of the big blind) acts first, not the small blind."""
    hand, events = holdem({0: 1000, 3: 1000, 6: 1000}, button=0)
    assert hand.to_act == 0
    assert of(events, TurnStarted)[0].seat == 0


def test_bet_02_heads_up_button_first_blind_seat_zero() -> None:
    """BET-02 with ``heads_up_button_first_blind``: the button (seat 0) posts the small blind
    and acts first pre-flop; after the flop the big blind (seat 4) acts first (BET-04)."""
    rules = TableRules(structure="no_limit", stakes=Stakes(blinds=(5, 10), small_bet=10),
                       heads_up_button_first_blind=True)
    hand, _ = holdem({0: 1000, 4: 1000}, button=0, rules=rules)
    assert hand.to_act == 0
    play(hand, ["0 call", "4 check"])
    assert hand.to_act == 4


def test_bet_04_seat_zero_opens_after_the_flop() -> None:
    """BET-04: the first active player left of the button is seat 0 (button on seat 8)."""
    hand, _ = holdem({0: 1000, 5: 1000, 8: 1000}, button=8)
    assert hand.to_act == 8  # left of the big blind (5)
    play(hand, ["8 call", "0 call", "5 check"])
    assert hand.to_act == 0


def test_stud_04_all_in_best_showing_passes_to_seat_zero() -> None:
    """STUD-04: on 4th street the best hand showing (seat 9) is all-in, so the action passes
    to the player on its left, seat 0 (not the first seat in dealing order)."""
    rules = TableRules(structure="fixed_limit",
                       stakes=Stakes(ante=2, bring_in=5, small_bet=10, big_bet=20))
    # button 0: dealing order 5, 9, 0; down cards, then up cards (9 shows the lowest: 2c)
    top = ["Kd", "Qd", "Jd", "7h", "2c", "8s",
           # burn, then the 4th-street up cards
           "3d", "4h", "As", "5c"]
    hand = Hand(STUD5, rules, {0: 500, 5: 500, 9: 7}, button=0,
                deck=full_deck(STUD5, top), num_seats=10)
    hand.start()
    assert hand.to_act == 9  # the bring-in (2c), all-in for 5
    play(hand, ["9 bring_in", "0 call", "5 call"])
    # 9 shows 2c As, the best; it is all-in, so seat 0 opens (5 shows 7h 4h, 0 8s 5c)
    assert hand.stacks[9] == 0
    assert hand.to_act == 0


def test_allin_04_heads_up_call_all_in_gives_no_turn() -> None:
    """ALLIN-04: heads-up 1/2, the small blind calls all-in for 2; the big blind (1 chip
    behind, nothing to call) is given no turn and the board is dealt out."""
    rules = TableRules(structure="no_limit", stakes=Stakes(blinds=(1, 2), small_bet=2))
    hand, _ = holdem({0: 2, 7: 3}, button=7, rules=rules)  # 0 posts 1, 7 posts 2
    assert hand.to_act == 0
    events = play(hand, ["0 call"])
    assert hand.is_over
    assert not of(events, TurnStarted)
    assert sum(hand.stacks.values()) == 5


def test_allin_04_after_a_fold_in_mid_round_and_allin_03_side_pot() -> None:
    """ALLIN-04 and ALLIN-03: FL 5/10, seats 9 (270), 1 (191) and 5 (10, button). Seat 5 calls
    all-in for 10, 9 raises to 20, 1 calls. On the flop 9 folds with nothing to call: seat 1,
    the only one left able to bet, owes nothing and is never prompted; it takes the 20 side
    pot and the 30 main pot goes to the showdown (won here by seat 5, who gets 30, not 50)."""
    # dealing order from the button's left: 9, 1, 5
    top = ["2c", "3d", "As", "7h", "8d", "Ah",
           "4c", "Ac", "Kd", "9s", "5h", "Jc", "6c", "Qd"]
    hand, _ = holdem({9: 270, 1: 191, 5: 10}, button=5, top=top, rules=FL)
    assert hand.to_act == 5
    play(hand, ["5 call", "9 raise 20", "1 call"])
    assert hand.to_act == 9
    events = play(hand, ["9 fold"])
    assert hand.is_over
    assert not [e for e in of(events, TurnStarted) if e.seat == 1]
    awards = of(events, PotAwarded)
    assert [(a.amount, a.winners) for a in awards] == [(30, {5: 30}), (20, {1: 20})]
    assert hand.stacks == {9: 250, 1: 191, 5: 30}


def test_allin_01_stud_completion_capped_at_the_stack() -> None:
    """ALLIN-01: ante 1, bring-in 2, complete 5; the bring-in player has 3 chips left after
    the ante: "complete" is offered to 3 (all-in), never to 5, and taking it bets 3."""
    rules = TableRules(structure="fixed_limit",
                       stakes=Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10))
    top = ["Kd", "Qd", "Jd", "7h", "2c", "8s"]  # button 0: order 5, 9, 0; 9 shows 2c
    hand = Hand(STUD5, rules, {0: 100, 5: 100, 9: 4}, button=0,
                deck=full_deck(STUD5, top), num_seats=10)
    hand.start()
    assert hand.to_act == 9
    opts = hand.options(9)
    assert opts is not None and opts.bring_in == 2 and opts.complete == 3
    events = hand.act(9, "complete")
    acted = of(events, Acted)[-1]
    assert (acted.seat, acted.amount, acted.stack) == (9, 3, 0)
    # the short completion is not the full bet: the next player may call 3 or complete to 5
    opts0 = hand.options(hand.to_act)
    assert opts0 is not None and opts0.call == 3 and opts0.complete == 5


def test_bet_13_no_raise_when_nobody_else_can_put_in_more() -> None:
    """BET-13: seat 9 is all-in for 859 and seat 8 has 772 in all: the big blind may call or
    fold, never raise (nobody still in could put in more than the current bet)."""
    hand, _ = holdem({8: 772, 9: 859, 0: 2000, 1: 2000}, button=9)  # 0 SB, 1 BB
    assert hand.to_act == 8
    play(hand, ["8 call", "9 raise 859", "0 fold"])
    opts = hand.options(1)
    assert opts is not None
    assert opts.raise_ is None and opts.call == 859 and opts.fold
    play(hand, ["1 call"])
    opts8 = hand.options(8)
    assert opts8 is not None and opts8.raise_ is None and opts8.call == 772


def test_show_01_first_actor_of_a_checked_last_round_folded() -> None:
    """SHOW-01: nobody bet on the last round and its first actor (the best hand showing,
    seat 4) folded: the showdown starts with the next player clockwise from seat 4 (seat 7),
    not with the player left of the button (seat 0)."""
    rules = TableRules(structure="fixed_limit",
                       stakes=Stakes(ante=2, bring_in=5, small_bet=10, big_bet=20))
    # button 7: order 0, 4, 7. Down cards, then 3rd-street up cards (7 shows 2c: bring-in)
    top = ["3h", "4h", "6d", "Kh", "Ks", "2c",
           "X", "Qh", "Qs", "3c",  # burn, 4th street up
           "X", "Jh", "Js", "5c",  # burn, 5th
           "X", "9h", "9s", "7c"]  # burn, the last round of Five Card Stud
    named = [c for c in top if c != "X"]
    burns = [c for c in STUD5.card_set if c not in named][:3]
    it = iter(burns)
    deck = full_deck(STUD5, [next(it) if c == "X" else c for c in top])
    hand = Hand(STUD5, rules, {0: 500, 4: 500, 7: 500}, button=7, deck=deck, num_seats=10)
    hand.start()
    play(hand, ["7 bring_in", "0 call", "4 call"])
    assert hand.to_act == 4  # Ks Qs over Kh Qh (spades beat hearts on the tie)
    play(hand, ["4 check", "7 check", "0 check"])
    assert hand.to_act == 4
    play(hand, ["4 check", "7 check", "0 check"])
    assert hand.to_act == 4  # last round: the first actor folds with nothing to call
    events = play(hand, ["4 fold", "7 check", "0 check"])
    shown = [e.seat for e in of(events, Showdown)]
    assert shown == [7, 0]  # 7 (seven high) first, then 0 must show its flush


def test_bet_12_min_raise_is_rounded_up_onto_the_chip_grid() -> None:
    """BET-12: with a 5-chip grid, a minimum raise that would fall off it (41 after a short
    all-in) is offered rounded up to the grid, or as the all-in total, never off the grid."""
    rules = TableRules(structure="pot_limit", stakes=Stakes(blinds=(5, 20), chip=5))
    hand, _ = holdem({0: 1, 1: 21, 2: 1, 3: 30, 4: 1, 5: 42, 6: 1}, button=3, rules=rules)
    for step in ("call", "call", "raise 21", "call", "call"):
        play(hand, [f"{hand.to_act} {step}"])
    seat = hand.to_act
    assert seat is not None
    opts = hand.options(seat)
    assert opts is not None and opts.raise_ is not None
    lo, hi = opts.raise_
    all_in = hand.bets[seat] + hand.stacks[seat]
    assert lo % 5 == 0 or lo == all_in
    assert hi % 5 == 0 or hi == all_in
    hand.act(seat, "raise", lo)  # the offered minimum is accepted
