"""The operator closes a table in the middle of a hand, on both stores: the hand is voided,
every player gets their stack from before it, everyone is cashed out, every chip accounted
for (the ledger sums to 0; the players hold exactly what they started with)."""

from __future__ import annotations

from typing import Any

import pytest

from server.ledger.journal import player_account
from tests.net.test_play import ok
from tests.operator.conftest import OperatorFactory, admin, seat_two
from tests.redis_helpers import RedisProcess


async def close_mid_hand(operator_server: OperatorFactory, **overrides: Any) -> None:
    server = await operator_server(**overrides)
    table, alice, bob = await seat_two(server)
    await alice.event("hand_started", table=table)
    turn = await alice.event("turn", table=table)
    mover = alice if turn["seat"] == 0 else bob
    await ok(mover, "act", table=table, action="raise", amount=1000)  # chips in the pot
    status, body = await admin(server, "POST", f"/admin/tables/{table}/close",
                               {"reason": "dispute"})
    assert status == 200, body
    assert sorted(body["cashed_out"]) == sorted([str(alice.player_id), str(bob.player_id)])
    for client in (alice, bob):
        closed = await client.event("table_closed", table=table)
        assert closed["reason"] == "operator"
    ledger = server.app.wallet.ledger
    for client in (alice, bob):  # the void refunded the hand; the cash-out the stack
        assert await ledger.balance(player_account(str(client.player_id))) == 10000
    tables = await ledger.store.balances(prefix="table:")
    assert all(v == 0 for v in tables.values()), tables
    assert await ledger.total() == 0
    assert (await admin(server, "GET", "/admin/tables"))[1]["tables"] == []
    assert (await alice.request("sit", table=table, seat=0, buy_in=3000))["code"] == \
        "unknown_table"
    again = await admin(server, "POST", f"/admin/tables/{table}/close", {"reason": "again"})
    assert again[0] == 404 and again[1]["error"]["code"] == "unknown_table"
    entries = (await admin(server, "GET", "/admin/audit"))[1]["entries"]
    assert [(e["action"], e["target"], e["reason"], e["details"]["in_hand"])
            for e in entries] == [("close_table", table, "dispute", True)]
    await alice.ws.close()
    await bob.ws.close()


async def test_close_mid_hand_sqlite(operator_server: OperatorFactory) -> None:
    await close_mid_hand(operator_server)


@pytest.mark.redis
async def test_close_mid_hand_redis(redis_server: RedisProcess,
                                    operator_server: OperatorFactory) -> None:
    """(`redis_server` first: it stops after the server and its ledger check.)"""
    await close_mid_hand(operator_server, redis_url=redis_server.url)


@pytest.mark.redis
async def test_audit_log_in_redis_is_append_only(redis_server: RedisProcess,
                                                 operator_server: OperatorFactory) -> None:
    server = await operator_server(redis_url=redis_server.url)
    _, alice, bob = await seat_two(server)
    for action in ("freeze", "unfreeze"):
        assert (await admin(server, "POST", f"/admin/accounts/{alice.player_id}/{action}",
                            {"reason": action}))[0] == 200
    page = (await admin(server, "GET", "/admin/audit?since=1&limit=5"))[1]
    assert page["total"] == 2 and [e["seq"] for e in page["entries"]] == [2]
    assert await server.app.wallet.ledger.store.audit_count() == 2
    await alice.ws.close()
    await bob.ws.close()
