"""Fixtures shared by every test package."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.redis_helpers import RedisProcess

# Deterministic tests: every hypothesis test draws the same examples on every run (no example
# database, no wall-clock deadline on a shared machine); a test's own @settings still adds to it.
settings.register_profile("deterministic", derandomize=True, database=None, deadline=None,
                          print_blob=True)
settings.load_profile("deterministic")


@pytest.fixture(autouse=True)
def _guard_table_writes() -> Iterator[None]:
    """``POKER_GUARD_WRITES=1``: every write of a table actor's field outside its task raises
    (``TableActor.guard_writes``; tests/table/test_actor_ownership.py runs suites so)."""
    if os.environ.get("POKER_GUARD_WRITES") != "1":
        yield
        return
    from server.table.actor import TableActor
    TableActor.guard_writes(True)
    try:
        yield
    finally:
        TableActor.guard_writes(False)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisProcess]:
    """A fresh redis-server of this test's own (append-only persistence on)."""
    server = RedisProcess(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.kill()
