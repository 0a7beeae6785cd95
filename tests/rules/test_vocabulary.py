"""The engine's vocabulary (`server.rules.vocabulary`): each closed set of names is a StrEnum
whose members equal the strings of the wire and the records, under their older names too."""

from __future__ import annotations

import json

from server.rules import options, variant
from server.rules.vocabulary import Action, CaribbeanPhase, DealKind, Opener


def test_members_are_the_strings_of_the_wire() -> None:
    assert options.ACTIONS == ("fold", "check", "call", "bet", "raise", "bring_in",
                               "complete", "draw", "over_blind", "decline", "run_twice",
                               "run_once", "show", "muck")
    from protocol.constants import ACTIONS as WIRE_ACTIONS
    assert set(options.ACTIONS) <= set(WIRE_ACTIONS)
    assert all(isinstance(a, Action) for a in options.ACTIONS)
    assert (variant.DOWN, variant.UP, variant.BOARD) == tuple(DealKind) == ("down", "up",
                                                                            "board")
    assert tuple(Opener) == (variant.BLINDS, variant.BUTTON, variant.BRING_IN, variant.SHOWING)
    assert tuple(CaribbeanPhase) == ("antes", "decisions", "ended", "void")
    assert json.dumps({Action.RAISE: Action.FOLD}) == '{"raise": "fold"}'
    assert f"{Action.BRING_IN}" == str(Action.BRING_IN) == "bring_in"
    assert Action("call") is options.CALL and {"call": 1}[options.CALL] == 1
