"""Betting scripted hands: BET-01..12, BLIND-02, ALLIN-01, ALLIN-02, ALLIN-04, timeouts."""

from __future__ import annotations

import pytest

from server.rules import errors
from server.rules.events import (
    Acted,
    BetReturned,
    BoardDealt,
    Burned,
    PotAwarded,
    TurnStarted,
)
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.structure import (
    FIXED_LIMIT,
    HALF_POT,
    NO_LIMIT,
    POT_LIMIT,
    SPREAD_LIMIT,
    Stakes,
)
from server.rules.variant import TableRules
from tests.rules.scripted import Script, fill_deck, like, opts, refuse, run

FOUR = {1: 1000, 2: 1000, 3: 1000, 4: 1000}  # button 4: 1 small blind, 2 big blind, 3 first
THREE = {1: 1000, 2: 1000, 3: 1000}  # button 3: 1 small blind, 2 big blind, 3 first
FIXED = Stakes(blinds=(5, 10), small_bet=10, big_bet=20)
SPREAD = Stakes(blinds=(5, 10), min_bet=10, max_bet=40)
CHECKS = [(s, "check") for _ in range(3) for s in (1, 2, 3)]


def test_bet_01_out_of_turn_refused_and_the_hand_is_unchanged() -> None:
    """BET-01: only the player whose turn it is may act; others are refused, state unchanged."""
    result = run(Script(
        stacks=FOUR, button=4,
        actions=[refuse(4, "call", reason="not_your_turn"),
                 refuse(2, "check", reason="not_your_turn"),
                 refuse(1, "fold", reason="not_your_turn"),
                 refuse(3, "check"), refuse(3, "shove"), refuse(3, "bet", 30),
                 (3, "fold"), refuse(3, "call", reason="not_your_turn"),
                 (4, "fold"), (1, "fold")],
        final={1: 995, 2: 1005, 3: 1000, 4: 1000},
    ))
    with pytest.raises(errors.IllegalAction) as exc:
        result.hand.act(2, "check")
    assert exc.value.reason == errors.NO_HAND
    fresh = Hand(HOLDEM, TableRules(structure=NO_LIMIT, stakes=Stakes(blinds=(5, 10))),
                 FOUR, button=4, deck=fill_deck([], HOLDEM.card_set))
    with pytest.raises(errors.IllegalAction) as exc:
        fresh.act(3, "call")
    assert exc.value.reason == errors.NO_HAND


def test_bet_02_first_round_starts_left_of_last_blind_and_passes_on_folds() -> None:
    """BET-02 BET-11 BLIND-02: left of the big blind may call, raise or fold; folds pass the
    option clockwise; when everyone folds to the big blind (a walk) the blind wins."""
    run(Script(
        stacks=FOUR, button=4,
        actions=[opts(3, kinds=("fold", "call", "raise"), call=10, to_call=10),
                 (3, "fold"), opts(4, kinds=("fold", "call", "raise")), (4, "fold"),
                 opts(1, call=10, to_call=5), (1, "fold")],
        events=[TurnStarted(3, 0), TurnStarted(4, 0), TurnStarted(1, 0),
                BetReturned(2, 5, 995), PotAwarded(0, 10, {2: 10}, None)],
        final={1: 995, 2: 1005, 3: 1000, 4: 1000},
    ))


def test_blind_02_blind_is_live_and_big_blind_has_the_option() -> None:
    """BLIND-02 BET-03: the small blind completes by calling the rest; when the action returns
    unraised the big blind may check or raise, and a raise reopens the round."""
    run(Script(
        stacks=THREE, button=3,
        actions=[(3, "call"), (1, "call"),
                 opts(2, kinds=("fold", "check", "raise"), raise_=(20, 1000)),
                 (2, "raise", 30), opts(3, call=30, to_call=20), (3, "call"), (1, "fold")],
        events=[like(Acted, seat=3, action="call", amount=10),
                like(Acted, seat=1, action="call", amount=10, stack=990),
                like(Acted, seat=2, action="raise", amount=30, stack=970),
                like(Acted, seat=3, action="call", amount=30, stack=970),
                like(Acted, seat=1, action="fold")],
    ))


@pytest.mark.parametrize(("facing", "timed_out"), [(False, "check"), (True, "fold")])
def test_timeout_checks_when_free_else_folds(facing: bool, timed_out: str) -> None:
    """Timeouts: the clock checks for a player who owes nothing (the big blind's option,
    BLIND-02) and folds one who faces a bet."""
    first = [(3, "raise", 30)] if facing else [(3, "call")]
    steps = [*first, (1, "fold"), (2, "timeout")]
    result = run(Script(stacks=THREE, button=3, actions=steps))
    last = [e for e in result.events if isinstance(e, Acted)][-1]
    assert (last.seat, last.action, last.timeout) == (2, timed_out, True)
    assert (2 in result.hand.folded) == facing


def test_bet_03_call_matches_highest_bet_short_call_all_in() -> None:
    """BET-03 ALLIN-03 ALLIN-04: a call matches the highest bet; a short stack calls all-in,
    the excess nobody matched goes back, and no more betting follows."""
    run(Script(
        stacks={1: 1000, 2: 1000, 3: 1000, 4: 25}, button=4,
        holes={3: "As Ad", 4: "Ks Kd"}, board="2h 7d 9c Jh 4s",
        actions=[(3, "raise", 40), opts(4, kinds=("fold", "call"), call=25, to_call=25),
                 (4, "call"), (1, "fold"), (2, "fold")],
        events=[like(Acted, seat=3, action="raise", amount=40),
                like(Acted, seat=4, action="call", amount=25, stack=0, all_in=True),
                like(Acted, seat=1, action="fold"), like(Acted, seat=2, action="fold"),
                BetReturned(3, 15, 975), PotAwarded(0, 65, {3: 65}, None, "pair of aces")],
        final={1: 995, 2: 990, 3: 1040, 4: 0},
    ))


def test_bet_04_later_rounds_open_left_of_button_and_folding_for_free_is_allowed() -> None:
    """BET-04: the first active player left of the button opens (bet, check or fold); the
    small blind has folded so the big blind opens; folding with nothing to call is allowed."""
    run(Script(
        stacks=FOUR, button=4,
        actions=[(3, "call"), (4, "call"), (1, "fold"), (2, "check"),
                 opts(2, kinds=("fold", "check", "bet"), bet=(10, 990)), (2, "fold"),
                 opts(3, kinds=("fold", "check", "bet")), (3, "bet", 20),
                 opts(4, kinds=("fold", "call", "raise"), call=20), (4, "fold")],
        events=[TurnStarted(3, 0), TurnStarted(4, 0), TurnStarted(1, 0), TurnStarted(2, 0),
                TurnStarted(2, 1), TurnStarted(3, 1), TurnStarted(4, 1),
                BetReturned(3, 20, 990), PotAwarded(0, 35, {3: 35}, None)],
        final={1: 995, 2: 990, 3: 1025, 4: 990},
    ))


def test_bet_05_raise_at_least_the_largest_raise_except_tapping_out() -> None:
    """BET-05 ALLIN-01 ALLIN-02: a raise is at least the largest bet or raise so far; a short
    stack may tap out for less; the earlier full raise reopened the round for the first
    raiser, but the last full raiser may only call the short all-in."""
    run(Script(
        stacks={1: 120, 2: 1000, 3: 1000, 4: 1000}, button=4,
        holes={1: "As Ad", 3: "Kc Qd", 4: "8s 8c"}, board="2h 7d 9c Jh 4s",
        actions=[(3, "raise", 30), opts(4, raise_=(50, 1000)),
                 refuse(4, "raise", 49, reason="bad_amount"), (4, "raise", 100),
                 opts(1, call=100, raise_=(120, 120)),
                 refuse(1, "raise", 110, reason="bad_amount"), (1, "raise", 120),
                 opts(2, raise_=(190, 1000)), (2, "fold"),
                 opts(3, kinds=("fold", "call", "raise")), (3, "call"),
                 opts(4, kinds=("fold", "call"), call=120), (4, "call"),
                 *[(s, "check") for _ in range(3) for s in (3, 4)]],
        events=[PotAwarded(0, 370, {1: 370}, None, "pair of aces")],
        final={1: 370, 2: 990, 3: 880, 4: 880},
    ))


def test_bet_06_fixed_limit_every_bet_is_the_set_amount() -> None:
    """BET-06: structured limit: the small bet pre-flop and on the flop, the big bet on the
    turn and river; any other amount is refused."""
    run(Script(
        stacks=THREE, button=3, structure=FIXED_LIMIT, stakes=FIXED,
        actions=[opts(3, call=10, raise_=(20, 20)), refuse(3, "raise", 25, reason="bad_amount"),
                 (3, "raise", 20), (1, "call"), (2, "call"),
                 opts(1, bet=(10, 10)), refuse(1, "bet", 20, reason="bad_amount"),
                 (1, "bet", 10), opts(2, raise_=(20, 20)), (2, "call"), (3, "call"),
                 opts(1, bet=(20, 20)), (1, "bet", 20), (2, "fold"), (3, "call"),
                 (1, "check"), opts(3, bet=(20, 20)), (3, "bet", 20), (1, "fold")],
        events=[BetReturned(3, 20, 950), PotAwarded(0, 130, {3: 130}, None)],
        final={1: 950, 2: 970, 3: 1080},
    ))


def test_bet_07_spread_limit_minimum_maximum_and_raise_at_least_last() -> None:
    """BET-07: spread limit: a bet from the table minimum to the maximum; each raise at least
    the last bet or raise and at most the maximum above the bet it raises."""
    run(Script(
        stacks=THREE, button=3, structure=SPREAD_LIMIT, stakes=SPREAD,
        actions=[opts(3, raise_=(20, 50)), refuse(3, "raise", 51, reason="bad_amount"),
                 (3, "raise", 40), opts(1, raise_=(70, 80)), (1, "call"), (2, "fold"),
                 opts(1, bet=(10, 40)), refuse(1, "bet", 5, reason="bad_amount"),
                 refuse(1, "bet", 45, reason="bad_amount"), (1, "bet", 15),
                 opts(3, raise_=(30, 55)), (3, "fold")],
        events=[BetReturned(1, 15, 960)],
        final={1: 1050, 2: 990, 3: 960},
    ))


def test_bet_08_pot_limit_maximum_includes_the_call() -> None:
    """BET-08: pot limit: add the call to the pot first; the raise may then be that pot.
    Blinds 5/10: the first raise is at most to 10 + (15 + 10) = 35; facing 35 with 50 in
    the pot, at most to 35 + (50 + 35) = 120; the small blind facing 120 with 170 in the
    pot and 115 to call, at most to 120 + 285 = 405."""
    run(Script(
        stacks=FOUR, button=4, structure=POT_LIMIT,
        actions=[opts(3, raise_=(20, 35)), refuse(3, "raise", 36, reason="bad_amount"),
                 (3, "raise", 35), opts(4, raise_=(60, 120)), (4, "raise", 120),
                 opts(1, call=120, raise_=(205, 405)), refuse(1, "raise", 406,
                                                              reason="bad_amount"),
                 (1, "fold"), (2, "fold"), (3, "fold")],
        events=[BetReturned(4, 85, 965), PotAwarded(0, 85, {4: 85}, None)],
        final={1: 995, 2: 990, 3: 965, 4: 1050},
    ))


def test_bet_08_half_pot_limit_and_pot_limit_opening_bet() -> None:
    """BET-08: half-pot limit: the raise is up to half of (pot + call): first raise at most
    to 10 + (15 + 10) // 2 = 22; facing 22 with 37 in, at most 22 + (37 + 22) // 2 = 51."""
    run(Script(
        stacks=FOUR, button=4, structure=HALF_POT,
        actions=[opts(3, raise_=(20, 22)), (3, "raise", 22), opts(4, raise_=(34, 51)),
                 (4, "fold"), (1, "fold"), (2, "call"),
                 opts(2, bet=(10, 24)), (2, "bet", 24), (3, "fold")],
        final={1: 995, 2: 1027, 3: 978, 4: 1000},
    ))
    run(Script(
        stacks=THREE, button=3, structure=POT_LIMIT,
        actions=[(3, "call"), (1, "call"), (2, "check"), opts(1, bet=(10, 30)),
                 refuse(1, "bet", 31, reason="bad_amount"), (1, "bet", 30),
                 opts(2, raise_=(60, 120)), (2, "fold"), (3, "fold")],
        final={1: 1020, 2: 990, 3: 990},
    ))


def test_bet_09_no_limit_up_to_everything_in_front() -> None:
    """BET-09 GEN-06: no limit: a raise may go up to the whole stack, not one chip more."""
    run(Script(
        stacks=THREE, button=3,
        actions=[opts(3, raise_=(20, 1000)), refuse(3, "raise", 1001, reason="bad_amount"),
                 (3, "raise", 1000), opts(1, kinds=("fold", "call"), call=1000),
                 (1, "fold"), (2, "fold")],
        events=[like(Acted, seat=3, action="raise", amount=1000, all_in=True),
                like(Acted, seat=1, action="fold"), like(Acted, seat=2, action="fold"),
                BetReturned(3, 990, 990)],
        final={1: 995, 2: 990, 3: 1015},
    ))


def test_bet_10_three_raise_cap_in_fixed_limit_lifted_when_two_remain() -> None:
    """BET-10: fixed limit allows three raises a round while three players remain; when only
    two remain they may raise without a cap."""
    run(Script(
        stacks=THREE, button=3, structure=FIXED_LIMIT, stakes=FIXED,
        holes={1: "As Ad", 2: "Ks Kd", 3: "Qs Qd"}, board="2h 7d 9c Jh 4s",
        actions=[(3, "raise", 20), (1, "raise", 30), (2, "raise", 40),
                 opts(3, kinds=("fold", "call")), refuse(3, "raise", 50), (3, "call"),
                 (1, "call"),
                 (1, "bet", 10), (2, "raise", 20), (3, "raise", 30), (1, "raise", 40),
                 opts(2, kinds=("fold", "call")), (2, "fold"),
                 opts(3, raise_=(50, 50)), (3, "raise", 50), (1, "raise", 60),
                 opts(3, raise_=(70, 70)), (3, "call"),
                 *[(s, "check") for _ in range(2) for s in (1, 3)]],
        final={1: 1160, 2: 940, 3: 900},
    ))


def test_bet_10_heads_up_fixed_limit_has_no_cap() -> None:
    """BET-10: with only two players in the hand, fixed-limit raises are not capped."""
    run(Script(
        stacks={1: 1000, 2: 1000}, button=2, structure=FIXED_LIMIT, stakes=FIXED,
        actions=[(1, "raise", 20), (2, "raise", 30), (1, "raise", 40), (2, "raise", 50),
                 opts(1, raise_=(60, 60)), (1, "raise", 60), opts(2, raise_=(70, 70))],
    ))


@pytest.mark.parametrize(("structure", "stakes", "capped"), [
    (FIXED_LIMIT, FIXED, True), (SPREAD_LIMIT, SPREAD, True),
    (POT_LIMIT, Stakes(blinds=(5, 10)), False), (HALF_POT, Stakes(blinds=(5, 10)), False),
    (NO_LIMIT, Stakes(blinds=(5, 10)), False),
])
def test_bet_10_cap_only_in_limit_structures(structure: str, stakes: Stakes,
                                             capped: bool) -> None:
    """BET-10: three raises cap fixed and spread limit; pot, half-pot and no limit are not
    capped (three players, each raising the minimum)."""
    steps: list[object] = []
    level, size = 10, 10
    for seat in (3, 1, 2):
        level += size
        steps.append((seat, "raise", level))
    steps.append(opts(3, kinds=("fold", "call") if capped else ("fold", "call", "raise")))
    run(Script(stacks=THREE, button=3, structure=structure, stakes=stakes,
               actions=steps))  # type: ignore[arg-type]


def test_bet_11_everyone_folds_pot_at_once_no_more_cards() -> None:
    """BET-11: when one player remains they win at once and no more cards are dealt."""
    result = run(Script(
        stacks=THREE, button=3,
        actions=[(3, "call"), (1, "call"), (2, "check"), (1, "bet", 30), (2, "fold"),
                 (3, "fold")],
        events=[BetReturned(1, 30, 990), PotAwarded(0, 30, {1: 30}, None)],
        final={1: 1020, 2: 990, 3: 990},
    ))
    assert sum(isinstance(e, Burned) for e in result.events) == 1  # the flop's only
    assert sum(isinstance(e, BoardDealt) for e in result.events) == 1
    assert len(result.hand.board) == 3


def test_bet_12_off_grid_negative_over_stack_and_non_integer_amounts_refused() -> None:
    """BET-12: amounts are whole chips of the smallest denomination (here 5): off the grid,
    negative, above the stack, or not an int are refused with bad_amount; a tap-out of an
    odd stack is still allowed (ALLIN-01)."""
    run(Script(
        stacks={1: 1000, 2: 1000, 3: 1003}, button=3, stakes=Stakes(blinds=(5, 10), chip=5),
        actions=[refuse(3, "raise", 33, reason="bad_amount"),
                 refuse(3, "raise", -5, reason="bad_amount"),
                 refuse(3, "raise", 0, reason="bad_amount"),
                 refuse(3, "raise", 1005, reason="bad_amount"),
                 refuse(3, "raise", 30.0, reason="bad_amount"),
                 refuse(3, "raise", "30", reason="bad_amount"),
                 refuse(3, "raise", True, reason="bad_amount"),
                 refuse(3, "raise", None, reason="bad_amount"),
                 refuse(3, "call", 15, reason="bad_amount"),
                 refuse(3, "fold", 5, reason="bad_amount"),
                 opts(3, raise_=(20, 1003)), (3, "raise", 1003), (1, "fold"), (2, "fold")],
        final={1: 995, 2: 990, 3: 1018},
    ))


def test_allin_01_limit_all_in_is_at_most_a_legal_raise() -> None:
    """ALLIN-01 ALLIN-02 BET-10: in fixed limit a big stack may not tap out beyond the set
    raise; a short stack taps out for less; that incomplete raise does not count toward
    the cap, so a later player still makes the third raise."""
    run(Script(
        stacks={1: 35, 2: 1000, 3: 1000, 4: 1000}, button=4, structure=FIXED_LIMIT,
        stakes=FIXED,
        actions=[opts(3, raise_=(20, 20)), refuse(3, "raise", 1000, reason="bad_amount"),
                 (3, "raise", 20), (4, "raise", 30), opts(1, call=30, raise_=(35, 35)),
                 (1, "raise", 35), opts(2, raise_=(45, 45)), (2, "raise", 45),
                 opts(3, kinds=("fold", "call"), call=45)],
    ))


@pytest.mark.parametrize("reopen", [False, True])
def test_allin_02_incomplete_all_in_raise_does_not_reopen(reopen: bool) -> None:
    """ALLIN-02: after a bet of 100, an all-in to 150 is not a full raise: the bettor may only
    call or fold, unless a later full raise (to 300) reopens the betting."""
    later = [opts(3, raise_=(250, 990)), (3, "raise", 300) if reopen else (3, "call")]
    first = ("fold", "call", "raise") if reopen else ("fold", "call")
    run(Script(
        stacks={1: 1000, 2: 160, 3: 1000}, button=3,
        actions=[(3, "call"), (1, "call"), (2, "check"),
                 (1, "bet", 100), (2, "raise", 150), *later, opts(1, kinds=first)],
    ))


def test_allin_04_no_betting_when_at_most_one_player_can_bet() -> None:
    """ALLIN-04 POT-02: one player all-in and called: the board is dealt to the river with no
    more turns, and the hand is played to its end."""
    result = run(Script(
        stacks={1: 300, 2: 1000}, button=2,
        holes={1: "As Ad", 2: "Ks Kd"}, board="2h 7d 9c Jh 4s",
        actions=[(1, "raise", 300), (2, "call")],
        events=[TurnStarted(1, 0), TurnStarted(2, 0),
                PotAwarded(0, 600, {1: 600}, None, "pair of aces")],
        final={1: 600, 2: 700},
    ))
    assert len(result.hand.board) == 5


def test_bet_02_bet_04_seat_zero_and_gaps() -> None:
    """BET-02 BET-04 with seat 0 and gaps (seats 0, 4 and 7, button on 7): 0 posts the small
    blind, 4 the big blind, 7 acts first pre-flop; after the flop seat 0 opens."""
    run(Script(
        stacks={0: 1000, 4: 1000, 7: 1000}, button=7,
        actions=[opts(7, kinds=("fold", "call", "raise"), call=10), (7, "call"),
                 (0, "call"), opts(4, kinds=("fold", "check", "raise")), (4, "check"),
                 opts(0, kinds=("fold", "check", "bet")), (0, "bet", 10), (4, "fold"),
                 (7, "fold")],
        events=[TurnStarted(7, 0), TurnStarted(0, 0), TurnStarted(4, 0),
                TurnStarted(0, 1), TurnStarted(4, 1), TurnStarted(7, 1),
                BetReturned(0, 10, 990), PotAwarded(0, 30, {0: 30}, None)],
        final={0: 1020, 4: 990, 7: 990},
    ))
