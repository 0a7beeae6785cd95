"""The hand as a table of phases (issue 25): the street table's plans, the phase a hand is in
at each kind of decision, the records' shape (no class over ~25 methods, no mixins), and the
quicker construction of the frozen events and options."""

from __future__ import annotations

import copy
import dataclasses
import enum
import inspect
import pickle
from typing import Protocol

import pytest

from server.rules import (
    betting,
    dealing,
    drawing,
    forced,
    frozen,
    hand,
    phase,
    runout,
    showdown,
    state,
)
from server.rules.draw import DRAW
from server.rules.errors import IllegalAction
from server.rules.events import Acted, HandEnded, PotAwarded
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.options import Options
from server.rules.phase import Phase, Step, plan
from server.rules.structure import Stakes
from server.rules.stud import STUD7
from server.rules.variant import TableRules
from tests.rules.variant_helpers import full_deck

NL = TableRules(structure="no_limit", stakes=Stakes(blinds=(5, 10)))


def phase_of(h: Hand) -> Phase:
    return h.phase  # (read through a call: each act moves it on)


def test_plan_of_holdem_is_its_street_table() -> None:
    plans = plan(HOLDEM)
    assert [p.index for p in plans] == [0, 1, 2, 3]
    assert [p.street for p in plans] == list(HOLDEM.streets)
    assert all(p.steps == (Step.DEAL, Step.BET) for p in plans)
    assert [p.last for p in plans] == [False, False, False, True]
    assert all(p.board_only_after for p in plans)
    assert [p.cards_after for p in plans] == [4 + 1 + 1 + 2, 2 + 2, 2, 0]
    assert [p.own_deal for p in plans] == [(("down", 2),), (), (), ()]
    assert [p.board_deal for p in plans] == [(), (3,), (1,), (1,)]
    assert plan(HOLDEM) is plans  # made once per variant


def test_plan_of_draw_and_stud() -> None:
    assert [p.steps for p in plan(DRAW)] == [(Step.DEAL, Step.BET),
                                            (Step.DEAL, Step.DRAW, Step.BET)]
    assert plan(DRAW)[0].board_only_after is False  # the draw comes after the first street
    assert [p.board_only_after for p in plan(STUD7)] == [False, False, False, False, True]
    plans = plan(STUD7)
    assert copy.deepcopy(plans) is plans  # immutable values, shared by a copied hand


def test_phases_of_a_hand_before_during_and_after() -> None:
    h = Hand(HOLDEM, NL, {0: 100, 1: 100, 2: 100}, button=2, deck=full_deck(HOLDEM, []))
    assert phase_of(h) is Phase.READY and h.street == 0 and h.to_act is None
    with pytest.raises(IllegalAction):
        h.act(0, "fold")
    h.start()
    assert phase_of(h) is Phase.BETTING and h.to_act == 2  # left of the big blind (seat 1)
    h.act(2, "fold")
    h.act(0, "fold")
    assert phase_of(h) is Phase.OVER and h.is_over and h.to_act is None and h.deciding() == ()


def test_the_questions_are_phases_of_their_own() -> None:
    rules = TableRules(structure="no_limit", stakes=Stakes(blinds=(5, 10)), straddle=True,
                       run_twice=True, show_uncontested=True)
    h = Hand(HOLDEM, rules, {0: 100, 1: 100, 2: 100, 3: 100}, button=3,
             deck=full_deck(HOLDEM, []), ask_over_blind=True)
    h.start()
    assert phase_of(h) is Phase.OVER_BLIND and h.to_act == 2 and h.over_blind_ask == 2
    h.act(2, "decline")
    assert phase_of(h) is Phase.BETTING
    for seat in (2, 3, 0):
        h.act(seat, "raise", 100) if seat == 2 else h.act(seat, "call")
    h.act(1, "fold")
    assert phase_of(h) is Phase.RUNOUT and h.runout_ask == [0, 2, 3] and h.to_act == 0
    for seat in (0, 2, 3):
        h.act(seat, "run_twice")
    assert h.is_over and h.runs == 2

    h = Hand(HOLDEM, rules, {0: 100, 1: 100, 2: 100}, button=2, deck=full_deck(HOLDEM, []))
    h.start()
    h.act(2, "fold")
    h.act(0, "fold")
    assert phase_of(h) is Phase.SHOW and h.show_ask == 1 and h.to_act == 1
    h.act(1, "muck")
    assert h.is_over


def test_the_draw_is_a_phase() -> None:
    rules = TableRules(structure="no_limit", stakes=Stakes(blinds=(5, 10)))
    h = Hand(DRAW, rules, {0: 100, 1: 100}, button=1, deck=full_deck(DRAW, []))
    h.start()
    h.act(0, "call")
    h.act(1, "check")
    assert phase_of(h) is Phase.DRAW and h.street == 1
    assert h.drawing.pending == {0, 1} and h.betting.pending == set()
    h.act(0, "draw", None, ())
    h.act(1, "draw", None, ())
    assert phase_of(h) is Phase.BETTING and h.drawing.pending == set()


def test_a_hand_attribute_reads_and_writes_its_record() -> None:
    h = Hand(HOLDEM, NL, {0: 100, 1: 100}, button=1, deck=full_deck(HOLDEM, []))
    h.start()
    assert h.stacks is h.seats.stacks and h.board is h.dealing.board
    h.pos = 3
    assert h.dealing.pos == 3


_MODULES = (hand, state, betting, dealing, drawing, forced, phase, runout, showdown, frozen)


def test_no_class_over_25_methods_and_no_mixins() -> None:
    for module in _MODULES:
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            own = [n for n, v in vars(cls).items()
                   if inspect.isfunction(v) or isinstance(v, property)]
            assert len(own) <= 25, f"{cls.__qualname__} has {len(own)} methods"
            assert cls.__bases__ in ((object,), (enum.Enum,), (Protocol,)), cls


def test_quick_init_keeps_events_and_options_frozen_values() -> None:
    a = Acted(1, "call", 10, 90)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.seat = 2  # type: ignore[misc]
    assert a == Acted(1, "call", 10, 90, all_in=False, timeout=False)
    assert hash(a) == hash(Acted(1, "call", 10, 90))
    assert pickle.loads(pickle.dumps(a)) == a == copy.deepcopy(a)
    assert repr(a) == ("Acted(seat=1, action='call', amount=10, stack=90, all_in=False, "
                       "timeout=False)")
    assert HandEnded("h", {1: 2}).shown == ()
    assert PotAwarded(0, 5, {1: 5}).run == 0
    assert Options(3, fold=True).kinds == ("fold",)
    assert str(inspect.signature(Acted.__init__)) == (
        "(self, seat, action, amount, stack, all_in=False, timeout=False) -> 'None'")
    with pytest.raises(TypeError):
        Acted(1)  # type: ignore[call-arg]


def test_a_copied_hand_plays_on_alone() -> None:
    h = Hand(HOLDEM, NL, {0: 100, 1: 100, 2: 100}, button=2, deck=full_deck(HOLDEM, []))
    h.start()
    probe = copy.deepcopy(h)
    probe.act(2, "fold")
    assert h.to_act == 2 and probe.to_act == 0
    assert probe.betting.rules is h.betting.rules  # frozen table values are shared
    assert probe.seats is not h.seats and probe.betting.seats is probe.seats


def test_a_hand_reads_the_same_after_a_deep_copy_before_and_after_the_start() -> None:
    """A hand's state prints the same once copied (the fingerprint the refusal tests use)."""
    h = Hand(HOLDEM, NL, {0: 100, 1: 100}, button=1, deck=full_deck(HOLDEM, []))

    def state_of(hand: Hand) -> str:
        return repr(sorted(copy.deepcopy(vars(hand)).items()))

    assert state_of(h) == state_of(copy.deepcopy(h)) and "nobody" in state_of(h)
    h.start()
    assert state_of(h) == state_of(copy.deepcopy(h))
    assert h.hole_cards(0) == h.cards_of(0) and len(h.hole_cards(0)) == 2


def test_pots_layers_keep_the_chips_above_the_top_live_level() -> None:
    """ALLIN-03: two live levels and a folded seat's chips above both stay in the last pot."""
    from server.rules.pots import Pot, build_pots
    assert build_pots({1: 100, 2: 50, 3: 30}, [2, 3]) == [Pot(90, (2, 3)), Pot(90, (2,))]
    assert build_pots({1: 100, 2: 50, 3: 30}, (3, 2)) == [Pot(90, (2, 3)), Pot(90, (2,))]
