"""Ledger fixtures: the same contract runs on both stores (``store`` is parametrised).

Every ``ledger`` a test uses is checked when the test ends: the sum over all accounts is
exactly zero (no chip created or destroyed) and no protected account is negative.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.ledger.journal import Ledger
from server.ledger.redis_store import RedisStore
from server.ledger.sqlite_store import SqliteStore
from server.ledger.store import Store, is_checked
from server.redisio import Redis
from tests.redis_helpers import RedisProcess


async def assert_invariant(store: Store) -> None:
    balances = await store.balances()
    assert sum(balances.values()) == 0, f"chips created or destroyed: {balances}"
    negative = {a: b for a, b in balances.items() if is_checked(a) and b < 0}
    assert not negative, f"overdrawn: {negative}"


@pytest.fixture(params=["sqlite", "redis"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def store(store_kind: str, tmp_path: Path,
                request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    if store_kind == "sqlite":
        sq = SqliteStore(tmp_path / "ledger.db")
        await sq.open()
        try:
            yield sq
            await assert_invariant(sq)
        finally:
            await sq.close()
        return
    server: RedisProcess = request.getfixturevalue("redis_server")
    redis = await Redis.connect(server.url, poolsize=8)
    rs = RedisStore(redis)
    await rs.open()
    try:
        yield rs
        await assert_invariant(rs)
    finally:
        await redis.close()


@pytest.fixture
async def ledger(store: Store) -> Ledger:
    return Ledger(store, node="n1", run="r1")
