"""The operator's admin API against a real in-process server (`server.main.run`): its
operator listener, an operator token, and the ledger checked after every test.

- `operator_server(**config_overrides)` starts a server in test mode with `TOKEN` as the
  operator token (pass `operator_token=None` for none), failed credentials neither slowed
  nor locked (unless overridden); at teardown every chip is checked:
  the ledger sums to 0 and no player or table account is negative, then the server stops.
- `admin(server, method, path, body=None, token=TOKEN, headers=None)` -> (status, JSON).
- `seat_two(server)`: Alice (seat 0) and Bob (seat 1) at a new hold'em table (fixed deck).
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from protocol import SUBPROTOCOL_JSON
from tests.net.conftest import Client, Live, open_client, start_live, test_config
from tests.net.test_play import DECK, HOLDEM, ok

TOKEN = "operator-token-0123456789abcdef"
OperatorFactory = Callable[..., Awaitable[Live]]


def _call(url: str, method: str, body: bytes | None,
          headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw or b"{}")
        except ValueError:
            return error.code, {"text": raw.decode("utf-8", "replace")}


async def admin(server: Live, method: str, path: str, body: Any = None, *,
                token: str | None = TOKEN,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    """One admin call on `server`'s operator listener."""
    sent = dict(headers or {})
    if token is not None:
        sent.setdefault("Authorization", f"Bearer {token}")
    raw = None
    if body is not None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
        sent.setdefault("Content-Type", "application/json")
    url = (server.app.operator_url or "").rstrip("/") + path
    return await asyncio.to_thread(_call, url, method, raw, sent)


async def chips_check(server: Live) -> None:
    """The ledger invariant: every account sums to 0; none protected is negative."""
    ledger = server.app.wallet.ledger
    balances = await ledger.store.balances()
    assert sum(balances.values()) == 0, balances
    assert all(v >= 0 for k, v in balances.items() if k.startswith(("player:", "table:")))


@pytest.fixture
async def operator_server(tmp_path: Path) -> AsyncIterator[OperatorFactory]:
    servers: list[Live] = []

    async def factory(**overrides: Any) -> Live:
        overrides.setdefault("operator_token", TOKEN)
        # the calls' own checks, not guessing (tests/security/test_operator_listener.py):
        # bad credentials answered at once and never locking the tests' address
        overrides.setdefault("operator_fail_limit", 1000)
        overrides.setdefault("operator_fail_delay", 0.0)
        server = await start_live(test_config(tmp_path / f"s{len(servers)}", **overrides))
        servers.append(server)
        return server

    yield factory
    for server in servers:
        if server.task.done():  # closed by the test itself
            continue
        try:
            await chips_check(server)
        finally:
            await server.close()


async def player(server: Live, name: str) -> Client:
    client = await open_client(server, SUBPROTOCOL_JSON)
    await client.hello(name)
    return client


async def seat_two(server: Live, *, deck: list[str] | None = None,
                   buy_in: int = 5000) -> tuple[str, Client, Client]:
    alice, bob = await player(server, "Alice"), await player(server, "Bob")
    table = (await ok(alice, "create_table", **HOLDEM, decks=[deck or DECK]))["table"]
    await ok(alice, "sit", table=table, seat=0, buy_in=buy_in)
    await ok(bob, "sit", table=table, seat=1, buy_in=buy_in)
    return table, alice, bob
