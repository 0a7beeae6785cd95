"""Caribbean Stud through the engine protocol (server.rules.caribbean.CaribbeanRound: start,
act, is_over): the refusals of the ante phase (CSP-01) and a round that nobody plays."""

from __future__ import annotations

import pytest

from server.rules.cards import make_deck
from server.rules.caribbean import CaribbeanRound
from server.rules.caribbean_payout import CaribbeanSettings
from server.rules.errors import BAD_ACTION, BAD_AMOUNT, NOT_YOUR_TURN, IllegalAction


def _round(settings: CaribbeanSettings | None = None) -> CaribbeanRound:
    rnd = CaribbeanRound(settings or CaribbeanSettings(), {0: 10_000, 1: 10_000}, make_deck(),
                         round_id="r")
    assert rnd.start() == [] and not rnd.is_over
    return rnd


def test_csp01_an_ante_needs_an_amount() -> None:
    with pytest.raises(IllegalAction) as exc:
        _round().act(0, "ante")
    assert exc.value.reason == BAD_AMOUNT


def test_csp01_no_jackpot_wager_where_the_table_takes_none() -> None:
    """CSP-01: the jackpot wager is optional and fixed by the table; a table whose wager is 0
    refuses it (and a non-boolean ``jackpot``)."""
    rnd = _round(CaribbeanSettings(jackpot_wager=0))
    with pytest.raises(IllegalAction) as exc:
        rnd.act(0, "ante", 100, jackpot=True)
    assert exc.value.reason == BAD_ACTION
    with pytest.raises(IllegalAction):
        _round().act(0, "ante", 100, jackpot=1)  # type: ignore[arg-type]
    rnd.act(0, "ante", 100)  # without the wager: accepted


def test_play_in_the_ante_phase_is_not_possible() -> None:
    with pytest.raises(IllegalAction) as exc:
        _round().act(0, "play")
    assert exc.value.reason == BAD_ACTION


def test_a_round_everybody_sits_out_is_over() -> None:
    rnd = _round()
    rnd.act(0, "fold")
    rnd.act(1, "fold")
    assert rnd.is_over and rnd.deciding() == ()


def test_csp03_fold_in_the_decision_phase_through_act() -> None:
    """CSP-03: after the deal each player plays (the call bet) or folds (losing the ante)."""
    rnd = _round()
    rnd.act(0, "ante", 100)
    rnd.act(1, "ante", 100)
    assert rnd.deciding() == (0, 1)
    rnd.act(0, "fold")
    assert rnd.deciding() == (1,)
    with pytest.raises(IllegalAction) as exc:
        rnd.act(0, "fold")
    assert exc.value.reason == NOT_YOUR_TURN  # seat 0 has already decided
