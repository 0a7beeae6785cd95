"""The home games' house rules in the engine (docs/rules.md "House rules (home games only)"):
the straddle (STRAD-01) and run it twice (RIT-01..04), with fixed decks."""

from __future__ import annotations

import pytest

from server.rules.errors import IllegalAction
from server.rules.events import Acted, BoardDealt, Burned, Posted, PotAwarded, Showdown
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.manila import MANILA3
from server.rules.options import Options
from server.rules.runout import run_share
from server.rules.structure import Stakes
from server.rules.stud import STUD7
from server.rules.variant import TableRules
from tests.rules.variant_helpers import cards, full_deck, of, play, stud_rules

NL = Stakes(blinds=(5, 10), small_bet=10)


def opt(hand: Hand, seat: int) -> Options:
    o = hand.options(seat)
    assert o is not None
    return o


def nl(*, straddle: bool = False, run_twice: bool = False) -> TableRules:
    return TableRules(structure="no_limit", stakes=NL, straddle=straddle, run_twice=run_twice)


# --------------------------------------------------------------------------- straddle
def straddling(stacks: dict[int, int] | None = None, *, at_once: bool = False) -> Hand:
    return Hand(HOLDEM, nl(straddle=True), stacks or {0: 500, 1: 500, 2: 500, 3: 500},
                button=3, deck=full_deck(HOLDEM, []), ask_over_blind=not at_once,
                over_blind=at_once)


def test_strad01_the_seat_left_of_the_big_blind_is_asked_and_posts_a_straddle() -> None:
    """STRAD-01: after the blinds (seats 0, 1; button 3) seat 2 is asked before the deal;
    its straddle is exactly twice the big blind, posted as ``straddle``; the first round
    then starts left of the straddle and the straddler acts last, with the option to raise."""
    hand = straddling()
    hand.start()
    assert hand.to_act == 2
    opts = hand.options(2)
    assert opts == Options(2, over_blind=20, decline=True, stack=500, straddle=True)
    assert opts.to_wire() == {"fold": False, "check": False, "over_blind": 20,
                              "decline": True, "stack": 500, "straddle": True}
    events = hand.act(2, "over_blind")
    assert [(p.seat, p.kind, p.amount) for p in of(events, Posted)] == [(2, "straddle", 20)]
    assert hand.to_act == 3
    assert opt(hand, 3).call == 20 and opt(hand, 3).raise_ == (40, 500)
    play(hand, ["3 call", "0 call", "1 call"])
    assert hand.to_act == 2 and hand.street == 0
    assert opt(hand, 2).check and opt(hand, 2).raise_ == (40, 500)


def test_strad01_declined_or_timed_out_is_no_straddle() -> None:
    """STRAD-01: no answer (the clock) is no straddle; the round starts left of the big
    blind as usual."""
    hand = straddling()
    hand.start()
    events = hand.timeout(2)
    assert of(events, Acted) == [Acted(2, "decline", 0, 500, timeout=True)]
    assert hand.to_act == 2 and opt(hand, 2).call == 10


def test_strad01_posted_at_once_when_the_table_says_so_and_never_heads_up() -> None:
    """STRAD-01: ``over_blind=True`` posts it without asking; heads-up nobody is left of the
    big blind but the blinds themselves, so there is no straddle."""
    hand = straddling(at_once=True)
    events = hand.start()
    assert [(p.seat, p.kind) for p in of(events, Posted)][-1] == (2, "straddle")
    hu = straddling({0: 500, 1: 500})
    hu.start()
    assert opt(hu, hu.to_act or 0) is not None and hu.over_blind_ask is None


def test_strad01_off_without_the_house_rule() -> None:
    """Without ``straddle`` (or ``over_blind``) in the rules, asking does nothing."""
    hand = Hand(HOLDEM, nl(), {0: 500, 1: 500, 2: 500}, button=2,
                deck=full_deck(HOLDEM, []), ask_over_blind=True)
    hand.start()
    opts = hand.options(hand.to_act or 0)
    assert hand.over_blind_ask is None and opts is not None and opts.fold


# ----------------------------------------------------------------------- run it twice
# seats 0 (small blind), 1 (big blind), 2 (button); 1: aces, 2: kings
HOLES = cards("7c As Ks 2d Ad Kd")
RUN1 = cards("3c 2c 7h 9d 4c Jc 5c 3s")          # burn, flop, burn, turn, burn, river
RUN2 = cards("6c Kc 4h 8d 6d Tc 6h 5s")          # the same streets again: kings make a set
STACKS = {0: 100, 1: 100, 2: 100}


def all_in(rules: TableRules | None = None, *, run2: list[str] | None = None) -> Hand:
    deck = full_deck(HOLDEM, HOLES + RUN1 + (RUN2 if run2 is None else run2))
    hand = Hand(HOLDEM, rules or nl(run_twice=True), dict(STACKS), button=2, deck=deck)
    hand.start()
    play(hand, ["2 raise 100", "0 fold", "1 call"])
    return hand


def test_rit01_rit02_every_player_still_in_is_asked_in_turn() -> None:
    """RIT-01/RIT-02: nobody can bet and the flop is still to come: seat 1 then seat 2 are
    asked (``run_twice`` or ``run_once``, nothing else) before any board card."""
    hand = all_in()
    assert hand.board == [] and hand.to_act == 1
    opts = hand.options(1)
    assert opts == Options(1, run_twice=True, stack=0)
    assert opts.kinds == ("run_twice", "run_once")
    assert opts.to_wire() == {"fold": False, "check": False, "run_twice": True,
                              "run_once": True, "stack": 0}
    with pytest.raises(IllegalAction):
        hand.act(1, "check")
    events = hand.act(1, "run_twice")
    assert of(events, Acted) == [Acted(1, "run_twice", 0, 0)]
    assert hand.to_act == 2 and hand.board == []


def test_rit03_rit04_both_agree_two_boards_each_half_won_on_its_own() -> None:
    """RIT-03/RIT-04: the first run (aces hold) then the second run from the rest of the deck
    with its own burns (kings make a set); the pot of 205 is halved, the first run taking the
    odd chip: 103 to seat 1, 102 to seat 2; both hands shown; chips conserved."""
    hand = all_in()
    events = play(hand, ["1 run_twice", "2 run_twice"])
    assert hand.is_over and hand.runs == 2
    assert hand.board == cards("2c 7h 9d Jc 3s")
    assert hand.board2 == cards("Kc 4h 8d Tc 5s")
    second = [e for e in of(events, BoardDealt) if e.run == 1]
    assert [e.cards for e in second] == [("Kc", "4h", "8d"), ("Tc",), ("5s",)]
    assert second[-1].board == tuple(hand.board2)
    assert [b.card for b in of(events, Burned)][-3:] == ["6c", "6d", "6h"]
    assert [s.seat for s in of(events, Showdown)] == [2, 1]  # the caller's opponent first
    awards = [(a.run, a.amount, a.winners) for a in of(events, PotAwarded)]
    assert awards == [(0, 103, {1: 103}), (1, 102, {2: 102})]
    assert hand.stacks == {0: 95, 1: 103, 2: 102}
    assert sum(hand.stacks.values()) == sum(STACKS.values())


def test_rit02_one_no_runs_it_once() -> None:
    """RIT-02: a ``run_once`` ends the question (the next player is not asked): one board."""
    hand = all_in()
    events = play(hand, ["1 run_twice", "2 run_once"])
    assert hand.is_over and hand.runs == 1 and hand.board2 == []
    assert all(e.run == 0 for e in of(events, BoardDealt))
    assert hand.stacks == {0: 95, 1: 205, 2: 0}


def test_rit02_no_answer_is_no() -> None:
    """RIT-02: the clock's default is ``run_once``."""
    hand = all_in()
    events = hand.timeout(1)
    assert of(events, Acted)[0] == Acted(1, "run_once", 0, 0, timeout=True)
    assert hand.is_over and hand.runs == 1


def test_rit01_not_asked_without_the_house_rule_or_without_cards_to_come() -> None:
    """RIT-01: off by default; with it on, an all-in called on the river has nothing to run;
    a Stud all-in deals players' cards, never a board, so it is never asked."""
    off = all_in(nl())
    assert off.is_over and off.runs == 1
    river = Hand(HOLDEM, nl(run_twice=True), dict(STACKS), button=2,
                 deck=full_deck(HOLDEM, HOLES + RUN1))
    river.start()
    play(river, ["2 call", "0 call", "1 check", "0 check", "1 check", "2 check",
                 "0 check", "1 check", "2 check", "0 check", "1 bet 90", "2 call", "0 fold"])
    assert river.is_over and river.runs == 1
    stud = Hand(STUD7, stud_rules(run_twice=True), {0: 12, 1: 12}, button=1,
                deck=full_deck(STUD7, []))
    stud.start()
    while not stud.is_over:
        seat = stud.to_act
        assert seat is not None
        opts = stud.options(seat)
        assert opts is not None and not opts.run_twice
        stud.act(seat, opts.kinds[-1] if opts.complete is not None else
                 ("call" if opts.call is not None else opts.kinds[1]),
                 opts.complete if opts.complete is not None else
                 (opts.bring_in if "bring_in" in opts.kinds and opts.call is None else None))
    assert stud.runs == 1


def test_rit01_not_asked_when_the_deck_cannot_serve_two_runs() -> None:
    """RIT-01: Three Card Manila with nine players all-in before the second card leaves 8 of
    36 cards; the rest of the board needs 8 (four burns, four cards): not two runs."""
    stacks = dict.fromkeys(range(9), 10)
    hand = Hand(MANILA3, TableRules(structure="no_limit", stakes=NL, run_twice=True), stacks,
                button=8, deck=full_deck(MANILA3, []), num_seats=9)
    hand.start()
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        opts = hand.options(seat)
        assert opts is not None and not opts.run_twice
        hand.act(seat, "call" if opts.call is not None else "check")
    assert hand.runs == 1 and sum(hand.stacks.values()) == 90


def test_rit04_a_pot_too_small_to_halve_goes_to_the_first_run() -> None:
    """RIT-04 with the rake (GEN-09, from the main pot first): seat 0's one-chip blind makes a
    main pot of 3, the rake of 2 leaves it 1 chip: the first run's whole; the side pot of 198
    is halved 99/99; chips conserved with the rake."""
    rules = TableRules(structure="no_limit", stakes=NL, run_twice=True, rake_bp=100)
    hand = Hand(HOLDEM, rules, {0: 1, 1: 100, 2: 100}, button=2,
                deck=full_deck(HOLDEM, HOLES + RUN1 + RUN2))
    hand.start()
    events = play(hand, ["2 raise 100", "1 call", "0 run_twice", "1 run_twice",
                         "2 run_twice"])
    awards = [(a.pot, a.run, a.amount) for a in of(events, PotAwarded)]
    assert awards == [(0, 0, 1), (1, 0, 99), (1, 1, 99)]
    assert hand.rake == 2 and sum(hand.stacks.values()) == 201 - 2


def test_rit04_halves_on_the_chip_grid() -> None:
    """RIT-04: halves are whole chips of the table's smallest chip; the first run takes the
    odd chip(s)."""
    assert (run_share(205, 0, 1), run_share(205, 1, 1)) == (103, 102)
    assert (run_share(30, 0, 5), run_share(30, 1, 5)) == (15, 15)
    assert (run_share(35, 0, 5), run_share(35, 1, 5)) == (20, 15)
    assert (run_share(1, 0, 1), run_share(1, 1, 1)) == (1, 0)


# ------------------------------------------------------------ show after an uncontested win
def uncontested() -> Hand:
    rules = TableRules(structure="no_limit", stakes=NL, show_uncontested=True)
    hand = Hand(HOLDEM, rules, dict(STACKS), button=2, deck=full_deck(HOLDEM, HOLES))
    hand.start()
    play(hand, ["2 raise 30", "0 fold", "1 fold"])
    return hand


def test_showwin01_the_uncontested_winner_is_asked_after_the_pot_is_paid() -> None:
    """SHOWWIN-01: everyone folded to seat 2: the pot is paid, then seat 2 alone is asked
    (``show`` or ``muck``, nothing else) before the hand ends; nothing is shown yet."""
    hand = uncontested()
    assert not hand.is_over and hand.to_act == 2 and hand.stacks[2] == 115
    opts = opt(hand, 2)
    assert opts == Options(2, show=True, stack=115) and opts.kinds == ("show", "muck")
    assert opts.to_wire() == {"fold": False, "check": False, "show": True, "muck": True,
                              "stack": 115}
    with pytest.raises(IllegalAction):
        hand.act(2, "fold")


def test_showwin01_show_reveals_to_everyone_muck_and_timeout_do_not() -> None:
    """SHOWWIN-01: ``show`` turns the winner's cards face up (a ``Showdown``, so every
    viewer sees them); ``muck`` or no answer ends the hand with nothing shown."""
    hand = uncontested()
    events = hand.act(2, "show")
    assert hand.is_over and hand.shown == [2]
    assert of(events, Showdown) == [Showdown(2, ("Ks", "Kd"), "", ())]
    assert of(events, Acted) == [Acted(2, "show", 0, 115)]
    for answer in ("muck", "timeout"):
        hand = uncontested()
        events = hand.timeout(2) if answer == "timeout" else hand.act(2, "muck")
        assert hand.is_over and not of(events, Showdown) and hand.shown == []
        assert of(events, Acted)[0].action == "muck"
        assert hand.stacks == {0: 95, 1: 90, 2: 115}
