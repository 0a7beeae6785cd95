"""The security harness itself: a server without test mode refuses scripted decks, answers
pings, and its ledger sums to zero after a guest's session."""

from __future__ import annotations

from tests.security.conftest import ServerFactory, client, ledger_sum, round_trip


async def test_server_without_test_mode_serves_and_balances(
        hostile_server: ServerFactory) -> None:
    srv = hostile_server()
    c = await client(srv)
    await c.hello("Mallory")
    answer = await c.request("create_table", variant="holdem", structure="no_limit",
                             stakes={"blinds": [5, 10]}, seats=6,
                             decks=[["As"] * 52])
    assert answer["type"] == "error" and answer["code"] in ("test_mode_only", "bad_deck")
    assert await round_trip(srv) < 5.0
    await c.ws.close()
    assert ledger_sum(srv) == 0
