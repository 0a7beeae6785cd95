"""CSP-09 (Gazette r12.2(c)): each royal flush gets the larger of the royal flush minimum
($10,000) or an equal share of what remains of the pool; that minimum is its own term, never
the pool's reset amount (CSP-08), so an operator who reseeds lower or higher does not change
it; what the pool lacks is the house's (``house_shortfall``).

Amounts in chips, 100 chips a dollar: $10,000 is 1,000,000 (the default of both terms).
"""

from __future__ import annotations

import pytest

from server.rules.caribbean_payout import (
    CaribbeanSettings,
    JackpotClaim,
    jackpot_payouts,
    split_jackpot_payouts,
)

ROYAL_MIN = 1_000_000  # $10,000
LOW_RESET = CaribbeanSettings(reset_amount=500_000)  # reseeds at $5,000
HIGH_RESET = CaribbeanSettings(reset_amount=2_000_000)  # reseeds at $20,000


def royal(seat: int) -> JackpotClaim:
    return JackpotClaim("t1.7", seat, "royal_flush", seat, "shuffler")


def test_csp09_the_royal_minimum_is_10000_by_default_and_not_the_reset_amount() -> None:
    """CSP-09: the default terms carry a $10,000 royal minimum beside the $10,000 reset; an
    operator's reset changes only the reset."""
    assert CaribbeanSettings().royal_minimum == ROYAL_MIN
    assert LOW_RESET.royal_minimum == HIGH_RESET.royal_minimum == ROYAL_MIN


def test_csp09_one_royal_under_a_low_reset_gets_10000_the_house_paying_the_rest() -> None:
    """CSP-09: reset $5,000, pool $7,000, one royal flush: the royal gets $10,000 (not the
    $7,000 pool), $3,000 of it from the house; the empty pool is reseeded to $5,000."""
    res = jackpot_payouts(700_000, [royal(2)], LOW_RESET)
    assert res.payouts == {2: 1_000_000}
    assert res.house_shortfall == 300_000
    assert (res.pool.paid, res.seed, res.pool_after) == (1_000_000, 500_000, 500_000)
    p = res.pool
    assert p.before + p.house_shortfall + p.seed == p.after + p.paid  # no chip created


def test_csp09_one_royal_takes_the_whole_pool_when_it_is_above_the_minimum() -> None:
    """CSP-09: the whole of what remains goes to a lone royal flush when it is worth more than
    $10,000, whatever the reset amount ($5,000 here): nothing from the house."""
    res = jackpot_payouts(1_234_567, [royal(0)], LOW_RESET)
    assert res.payouts == {0: 1_234_567} and res.house_shortfall == 0
    assert res.seed == 500_000 and res.pool_after == 500_000


@pytest.mark.parametrize(("pool", "each", "shortfall"), [
    (3_000_000, 1_500_000, 0),  # $30,000: an equal share of $15,000 each, not $20,000
    (1_500_000, 1_000_000, 500_000),  # $15,000: a share of $7,500 < $10,000: $10,000 each
])
def test_csp09_two_royals_under_a_high_reset_each_get_max_of_10000_or_an_equal_share(
        pool: int, each: int, shortfall: int) -> None:
    """CSP-09: reset $20,000; two royal flushes in one round each get the larger of $10,000
    or half of what remains, never the $20,000 reset; a shortfall is the house's; then the
    pool is reseeded to $20,000."""
    res = jackpot_payouts(pool, [royal(1), royal(4)], HIGH_RESET)
    assert res.payouts == {1: each, 4: each}
    assert res.house_shortfall == shortfall
    assert (res.pool.paid, res.seed, res.pool_after) == (2 * each, 2_000_000, 2_000_000)
    p = res.pool
    assert p.before + p.house_shortfall + p.seed == p.after + p.paid


def test_csp09_csp11_split_pools_keep_the_royal_minimum_apart_from_the_major_reset() -> None:
    """CSP-09/CSP-11: with split pools the major pool's reset ($5,000) is not the royal
    minimum either: a $6,000 major pool pays a royal $10,000, $4,000 from the house."""
    s = CaribbeanSettings(split_pools=True, reset_amount=500_000)
    res = split_jackpot_payouts(100_000, 600_000, [royal(3)], s)
    assert res.payouts == {3: 1_000_000}
    assert res.major.house_shortfall == 400_000 and res.major.after == 500_000
    assert res.minor.paid == 0 and res.minor.after == 100_000


def test_csp09_an_operators_own_royal_minimum_is_used() -> None:
    """CSP-09: the minimum is a term of its own: an operator who sets it (here $12,000) gets
    it, whatever the reset; a minimum of 0 pays the plain equal share."""
    res = jackpot_payouts(700_000, [royal(0)], CaribbeanSettings(royal_minimum=1_200_000))
    assert res.payouts == {0: 1_200_000} and res.house_shortfall == 500_000
    res = jackpot_payouts(700_000, [royal(0), royal(1)], CaribbeanSettings(royal_minimum=0))
    assert res.payouts == {0: 350_000, 1: 350_000} and res.house_shortfall == 0
