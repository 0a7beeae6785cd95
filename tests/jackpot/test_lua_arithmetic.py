"""CSP-09/CSP-11: the Lua payout arithmetic of the Redis coordinator equals the Python one
(:mod:`server.rules.caribbean_payout`) on random pools, schedules and claims."""

from __future__ import annotations

import asyncio
import random

from server.jackpot.base import Claim
from server.jackpot.redis_coord import RedisCoordinator
from server.rules.caribbean_payout import (
    CaribbeanSettings,
    JackpotClaim,
    JackpotSchedule,
    jackpot_payouts,
    split_jackpot_payouts,
)
from tests.redis_helpers import RedisProcess

KINDS = ["royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush"]


def random_case(rng: random.Random) -> tuple[CaribbeanSettings, list[Claim], int, int]:
    split = rng.random() < 0.4
    schedule = JackpotSchedule(
        royal_flush_bp=rng.choice([10_000, 5_000, rng.randrange(1, 10_001)]),
        straight_flush_bp=rng.choice([1_000, rng.randrange(1, 10_001)]),
        four_of_a_kind=rng.choice([50_000, rng.randrange(1, 10**7)]),
        full_house=rng.choice([10_000, rng.randrange(1, 10**6)]),
        flush=rng.choice([5_000, rng.randrange(1, 10**5)]),
    )
    s = CaribbeanSettings(jackpot=schedule, split_pools=split,
                          reset_amount=rng.choice([1_000_000, rng.randrange(0, 10**8)]),
                          royal_minimum=rng.choice([1_000_000, rng.randrange(0, 10**8)]),
                          minor_reset_amount=rng.randrange(0, 10**6))
    seats = rng.sample(range(9), rng.randrange(1, 10))
    positions = rng.sample(range(50), len(seats))
    claims = [Claim("r.1", seat, f"p{seat}", rng.choice(KINDS), pos)
              for seat, pos in zip(seats, positions, strict=True)]
    big = rng.random() < 0.5
    minor = rng.randrange(0, 10**11 if big else 10**5)
    major = rng.randrange(0, 10**11 if big else 10**6)
    return s, claims, minor, major


async def test_csp09_lua_payouts_equal_the_python_function_on_random_inputs(
        redis_server: RedisProcess) -> None:
    """CSP-09/CSP-11: 400 random rounds (single and split pools, every jackpot hand, pools up
    to 10**11 chips, shortfalls and reseeds): same payouts, shortfalls, seeds and pools."""
    rng = random.Random(20261129)
    coord = await RedisCoordinator.connect(redis_server.url)
    try:
        cases = [random_case(rng) for _ in range(400)]
        results = await asyncio.gather(*(coord.compute(*c) for c in cases))
        for (s, claims, minor, major), (amounts, pools) in zip(cases, results, strict=True):
            jc = [JackpotClaim(c.hand, c.seat, c.kind, c.eligible_at, "shoe") for c in claims]
            if s.split_pools:
                sp = split_jackpot_payouts(minor, major, jc, s)
                want = [("minor", sp.minor), ("major", sp.major)]
                payouts = sp.payouts
            else:
                jp = jackpot_payouts(major, jc, s)
                want, payouts = [("major", jp.pool)], jp.payouts
            assert amounts == payouts, (s, claims, minor, major)
            assert pools == [(n, o.paid, o.house_shortfall, o.seed, o.after) for n, o in want]
    finally:
        await coord.close()
