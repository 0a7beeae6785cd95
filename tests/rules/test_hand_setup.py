"""Setups a pot-game hand refuses, and the calls it refuses once started or over (the
public API of server.rules.hand.Hand); every refusal is an IllegalAction with a reason."""

from __future__ import annotations

import pytest

from server.rules import errors
from server.rules.events import HandEnded, HandStarted, Posted
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.options import Options
from server.rules.structure import NO_LIMIT, Stakes
from server.rules.stud import STUD7
from server.rules.variant import TableRules, Variant

NL = TableRules(structure=NO_LIMIT, stakes=Stakes(blinds=(5, 10)))
TWO = {0: 1000, 1: 1000}


def _refused(variant: Variant = HOLDEM, rules: TableRules = NL,
             stacks: dict[int, int] | None = None, **kw: object) -> errors.IllegalAction:
    with pytest.raises(errors.IllegalAction) as exc:
        Hand(variant, rules, TWO if stacks is None else stacks, button=0,
             deck=list(variant.card_set), **kw)  # type: ignore[arg-type]
    return exc.value


def test_stakes_given_as_lists_are_checked_too() -> None:
    """The stakes check is the same for values a cache cannot hold (a list of blinds)."""
    listed = TableRules(structure=NO_LIMIT, stakes=Stakes(blinds=[5, 10]))  # type: ignore[arg-type]
    hand = Hand(HOLDEM, listed, TWO, button=0, deck=list(HOLDEM.card_set))
    assert isinstance(hand.start()[0], HandStarted)
    bad = TableRules(structure=NO_LIMIT, stakes=Stakes(blinds=[10, 5]))  # type: ignore[arg-type]
    refusal = _refused(rules=bad)
    assert refusal.reason == errors.BAD_SETUP and "must not decrease" in refusal.message


def test_a_hand_needs_two_players() -> None:
    assert _refused(stacks={0: 1000}).reason == errors.BAD_SETUP


def test_blind_01_more_blinds_than_players_is_refused() -> None:
    """BLIND-01: the blinds go to the players left of the button, one each: three blinds
    cannot be placed on two players."""
    three = TableRules(structure=NO_LIMIT, stakes=Stakes(blinds=(5, 10, 20)))
    refusal = _refused(rules=three)
    assert refusal.reason == errors.BAD_SETUP and "more blinds than players" in refusal.message


@pytest.mark.parametrize("blinds", [(None, None), (0,), (0, 0), (0, 7)])
def test_gen_05_bad_blind_positions_are_refused(blinds: tuple[int | None, ...]) -> None:
    """GEN-05: the big blind is never dead, each blind is posted by a different player of
    the hand, and there is one position per blind."""
    refusal = _refused(blinds=blinds)
    assert refusal.reason == errors.BAD_SETUP and "GEN-05" in refusal.message


def test_stud_02_stud_needs_a_bring_in() -> None:
    """STUD-02: the lowest card showing brings it in, so a stud table needs a bring-in."""
    no_bring_in = TableRules(structure=NO_LIMIT, stakes=Stakes(ante=5))
    refusal = _refused(variant=STUD7, rules=no_bring_in)
    assert refusal.reason == errors.BAD_SETUP and "bring-in" in refusal.message


def test_start_twice_and_void_after_the_end_are_refused() -> None:
    hand = Hand(HOLDEM, NL, TWO, button=0, deck=list(HOLDEM.card_set))
    hand.start()
    with pytest.raises(errors.IllegalAction) as again:
        hand.start()
    assert again.value.reason == errors.BAD_ACTION
    ended = hand.void("test")
    assert isinstance(ended[-1], HandEnded) and ended[-1].voided
    with pytest.raises(errors.IllegalAction) as over:
        hand.void("twice")
    assert over.value.reason == errors.NO_HAND
    assert repr(over.value) == "IllegalAction('no_hand', 'the hand is over')"


def test_gen_05_the_tables_blind_plan_a_dead_small_blind_and_an_entry_post() -> None:
    """GEN-05: the table hands the engine its blind positions; a dead small blind (None) is
    posted by nobody, the big blind by its seat, and a newcomer who asked to play at once
    posts a big blind too (the post to enter)."""
    three = {0: 1000, 2: 1000, 3: 1000}
    hand = Hand(HOLDEM, NL, three, button=0, deck=list(HOLDEM.card_set), blinds=(None, 2),
                entry_posts=(3,))
    posted = [(e.seat, e.amount) for e in hand.start() if isinstance(e, Posted)]
    assert posted == [(2, 10), (3, 10)]


def test_options_on_the_wire_for_a_pot_game() -> None:
    """The protocol's ``options`` object (docs/protocol.md ``turn``) of a pot-game decision:
    fold/check, call with what it costs, bet/raise ranges, bring-in, completion, draw."""
    assert Options(0, fold=True, call=10, to_call=5, raise_=(20, 1000), stack=1000).to_wire() \
        == {"fold": True, "check": False, "call": 10, "to_call": 5,
            "raise": {"min": 20, "max": 1000}, "stack": 1000}
    assert Options(1, check=True, bet=(10, 500), stack=500).to_wire() == {
        "fold": False, "check": True, "bet": {"min": 10, "max": 500}, "stack": 500}
    assert Options(2, fold=True, bring_in=5, complete=10, stack=90).to_wire() == {
        "fold": True, "check": False, "bring_in": 5, "complete": 10, "stack": 90}
    assert Options(3, draw=3, stack=90).to_wire() == {
        "fold": False, "check": False, "draw": {"max": 3}, "stack": 90}
