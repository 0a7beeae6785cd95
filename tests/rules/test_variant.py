"""Variants as data (server.rules.variant): what each game deals to a player (HOLD-01, MAN-01,
MAN3-01, DRAW-01, STUD-01)."""

from __future__ import annotations

import pytest

from server.rules.draw import DRAW
from server.rules.holdem import HOLDEM
from server.rules.manila import MANILA, MANILA3
from server.rules.stud import STUD5, STUD7
from server.rules.variant import Variant


@pytest.mark.parametrize("variant, own", [
    (HOLDEM, 2), (MANILA, 2), (MANILA3, 3), (DRAW, 5), (STUD5, 5), (STUD7, 7),
])
def test_own_card_count_is_every_card_dealt_to_a_player(variant: Variant, own: int) -> None:
    """HOLD-01/MAN-01/MAN3-01: hole cards only (the board is shared); DRAW-01: five; STUD-01:
    five or seven, face down and face up alike."""
    assert variant.own_card_count == own
