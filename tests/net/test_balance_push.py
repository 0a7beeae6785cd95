"""PROTOCOL (wave 2): `{"type": "balance", "balance": N}` is pushed to every connection of a
player whenever their account balance changes: buy-in, cash-out (leaving), rebuy."""

from __future__ import annotations

from tests.net.conftest import Live, open_client


async def test_balance_is_pushed_to_every_connection_of_the_player(live: Live) -> None:
    first = await open_client(live)
    welcome = await first.hello("Alice")
    start = welcome["balance"]
    second = await open_client(live)  # a second tab: the same player through the token
    answer = await second.request("hello", token=first.token)
    assert answer["type"] == "ok"
    await second.event("welcome")
    other = await open_client(live)
    await other.hello("Bob")
    created = await first.request("create_table", variant="holdem", structure="no_limit",
                                  stakes={"blinds": [5, 10]}, seats=6)
    table = created["table"]
    assert (await first.request("sit", table=table, seat=0, buy_in=500))["type"] == "ok"
    for conn in (first, second):
        pushed = await conn.event("balance")
        assert pushed["balance"] == start - 500
    assert (await first.request("leave", table=table))["type"] == "ok"
    for conn in (first, second):
        pushed = await conn.event("balance")
        assert pushed["balance"] == start
    ping = await other.request("ping")  # Bob's connection got none of Alice's balances
    assert ping["type"] == "pong"
    assert not [e for e in other.events if e["type"] == "balance"]
