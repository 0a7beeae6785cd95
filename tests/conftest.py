"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.redis_helpers import RedisProcess


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisProcess]:
    """A fresh redis-server of this test's own (append-only persistence on)."""
    server = RedisProcess(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.kill()
