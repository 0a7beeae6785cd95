"""Both jackpot coordinators behind one fixture (``coord``), each with an injected lease
clock (``clock``), so the contract tests run unchanged on both."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.jackpot.base import Coordinator
from server.jackpot.memory import MemoryCoordinator
from server.jackpot.redis_coord import RedisCoordinator
from tests.redis_helpers import RedisProcess

LEASE = 3.0


class FakeClock:
    """Seconds that move only when a test says so."""

    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["memory", "redis"])
async def coord(request: pytest.FixtureRequest, clock: FakeClock) -> AsyncIterator[Coordinator]:
    """The contract's arithmetic counted from an empty pool (``seed=0``: an explicit opening
    amount); a pool opening at the reset amount (CSP-08) is tested in test_pool_seed.py."""
    if request.param == "memory":
        yield MemoryCoordinator(lease=LEASE, now=clock, seed=0)
        return
    server: RedisProcess = request.getfixturevalue("redis_server")
    c = await RedisCoordinator.connect(server.url, lease=LEASE, now=clock, seed=0)
    try:
        yield c
    finally:
        await c.close()
