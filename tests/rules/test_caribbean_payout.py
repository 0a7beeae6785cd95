"""Caribbean Stud settings and jackpot payouts refused when malformed (CSP-04, CSP-09, CSP-12):
server.rules.caribbean_payout."""

from __future__ import annotations

from typing import Any

import pytest

from server.rules.caribbean_payout import (
    CaribbeanSettings,
    JackpotClaim,
    jackpot_payouts,
)


@pytest.mark.parametrize("field, value", [
    ("ante_min", -1), ("jackpot_wager", 2.5), ("max_pool", True), ("reset_amount", "1000"),
    ("royal_minimum", -1), ("royal_minimum", True),
])
def test_amounts_must_be_non_negative_ints(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=f"{field} must be a non-negative int"):
        CaribbeanSettings(**{field: value})


@pytest.mark.parametrize("qualifier", [(15, 13), (14, 1), (14.0, 13)])
def test_csp04_dealer_qualifier_is_ranks(qualifier: tuple[Any, ...]) -> None:
    """CSP-04: the dealer qualifies with ace-king (14, 13) or better; the setting is ranks."""
    assert CaribbeanSettings(dealer_qualifier=(13, 12)).dealer_qualifier == (13, 12)
    with pytest.raises(ValueError, match="dealer_qualifier"):
        CaribbeanSettings(dealer_qualifier=qualifier)


def _claim(seat: int, hand: str) -> JackpotClaim:
    return JackpotClaim(round_id="r1", seat=seat, hand=hand, eligible_at=seat,
                        dealing_mode="shuffler")


def test_csp09_only_jackpot_hands_claim_and_pools_are_non_negative() -> None:
    """CSP-09 pays the schedule's hands (flush and up) from a non-negative pool; a claim of
    any other hand, or a negative pool, is a caller's bug."""
    settings = CaribbeanSettings()
    assert jackpot_payouts(1_000_000, [_claim(0, "flush")], settings).payouts
    with pytest.raises(ValueError, match="not a jackpot hand"):
        jackpot_payouts(1_000_000, [_claim(0, "two_pair")], settings)
    with pytest.raises(ValueError, match="pools are non-negative"):
        jackpot_payouts(-1, [_claim(0, "flush")], settings)


def test_csp12_one_claim_per_seat_per_round() -> None:
    with pytest.raises(ValueError, match="only once per round"):
        jackpot_payouts(1_000_000, [_claim(0, "flush"), _claim(0, "full_house")],
                        CaribbeanSettings())
