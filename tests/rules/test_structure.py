"""Stakes a structure can or cannot work with (server.rules.structure.check_stakes), and the
smallest opening bet (BET-05..BET-07, BET-12, BLIND-03)."""

from __future__ import annotations

import pytest

from server.rules.structure import (
    FIXED_LIMIT,
    NO_LIMIT,
    POT_LIMIT,
    SPREAD_LIMIT,
    Stakes,
    check_stakes,
)


def test_good_stakes_pass_for_every_structure() -> None:
    assert check_stakes(NO_LIMIT, Stakes(blinds=(5, 10))) is None
    assert check_stakes(POT_LIMIT, Stakes(blinds=(5, 10), chip=5)) is None
    assert check_stakes(FIXED_LIMIT, Stakes(blinds=(5, 10), small_bet=10, big_bet=20)) is None
    assert check_stakes(SPREAD_LIMIT, Stakes(blinds=(5, 10), min_bet=10, max_bet=50)) is None


@pytest.mark.parametrize("structure, stakes, reason", [
    ("limitless", Stakes(blinds=(5, 10)), "unknown structure 'limitless'"),
    (NO_LIMIT, Stakes(blinds=(5, 10), chip=0), "amounts must be non-negative"),
    (NO_LIMIT, Stakes(blinds=(-5, 10)), "amounts must be non-negative"),
    # BET-12: every amount a multiple of the table's smallest chip
    (NO_LIMIT, Stakes(blinds=(5, 10), ante=3, chip=5), "multiple of the chip"),
    # BLIND-01: blinds from the first (smallest) to the last
    (NO_LIMIT, Stakes(blinds=(10, 5)), "must not decrease"),
    # BET-06: fixed limit has a small and a big bet
    (FIXED_LIMIT, Stakes(blinds=(5, 10), small_bet=10), "fixed limit needs"),
    # BET-07: spread limit needs 0 < min_bet <= max_bet
    (SPREAD_LIMIT, Stakes(blinds=(5, 10), min_bet=10, max_bet=5), "spread limit needs"),
    (SPREAD_LIMIT, Stakes(blinds=(5, 10)), "spread limit needs"),
    # BLIND-03: the last blind is at least the table minimum / the first-round bet
    (NO_LIMIT, Stakes(blinds=(5, 10), min_bet=20), "at least the table minimum"),
    (FIXED_LIMIT, Stakes(blinds=(5, 10), small_bet=20, big_bet=40), "first-round bet"),
])
def test_unworkable_stakes_are_refused_with_a_reason(structure: str, stakes: Stakes,
                                                     reason: str) -> None:
    refusal = check_stakes(structure, stakes)
    assert refusal is not None and reason in refusal


def test_opening_bet_without_blinds_or_bets_is_the_largest_forced_amount() -> None:
    """BET-05: the smallest full opening bet: the table minimum, else the round's fixed bet,
    else the last blind; a game with none of those opens at the largest of the chip, the
    ante and the bring-in."""
    assert Stakes(min_bet=25, blinds=(5, 10)).opening_bet(big=False) == 25
    assert Stakes(small_bet=10, big_bet=20).opening_bet(big=True) == 20
    assert Stakes(small_bet=10, big_bet=20).opening_bet(big=False) == 10
    assert Stakes(blinds=(5, 10)).opening_bet(big=True) == 10
    assert Stakes(ante=3, bring_in=2).opening_bet(big=False) == 3
    assert Stakes(bring_in=4, chip=2).opening_bet(big=False) == 4
    assert Stakes(chip=5).opening_bet(big=False) == 5
    assert Stakes(blinds=(5, 10)).fixed_size(big=True) == 10  # BET-06 without set bets
