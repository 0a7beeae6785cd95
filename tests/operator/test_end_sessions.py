"""A freeze that ends the account's sessions (issue 23; `end_sessions`), on a standalone
server: every socket of the account is pushed `bad_token` and closed, its tokens no longer
work, the player may log in again (frozen: may watch, not sit); `end_sessions` is refused on
anything but a freeze. (Across a cluster's processes: tests/cluster/test_room_limits.py.)"""

from __future__ import annotations

import asyncio
import contextlib

from websockets.exceptions import ConnectionClosed

from server.ledger.journal import player_account
from tests.net.conftest import TIMEOUT, Client, open_client
from tests.operator.conftest import OperatorFactory, admin, player


async def closed_with_bad_token(c: Client) -> None:
    error = await asyncio.wait_for(c.event("error", code="bad_token"), TIMEOUT)
    assert "rid" not in error, error
    with contextlib.suppress(ConnectionClosed):
        async with asyncio.timeout(TIMEOUT):
            while True:
                await c.receive()
    assert c.ws.close_code == 1000


async def test_a_freeze_with_end_sessions_closes_every_socket_of_the_account(
        operator_server: OperatorFactory) -> None:
    server = await operator_server()
    dora, other = await player(server, "Dora"), await player(server, "Other")
    again = await open_client(server)  # a second socket on Dora's token
    assert (await again.request("hello", token=dora.token))["type"] == "ok"
    path = f"/admin/accounts/{dora.player_id}"
    status, body = await admin(server, "POST", path + "/mute",
                               {"reason": "r", "end_sessions": True})
    assert (status, body["error"]["code"]) == (400, "bad_field")
    status, body = await admin(server, "POST", path + "/freeze",
                               {"reason": "r", "end_sessions": "yes"})
    assert (status, body["error"]["code"]) == (400, "bad_field")
    status, body = await admin(server, "POST", path + "/freeze",
                               {"reason": "stolen token", "end_sessions": True})
    assert status == 200 and body["frozen"] is True and body["sessions_ended"] == 1, body
    for c in (dora, again):
        await closed_with_bad_token(c)
    assert (await other.request("ping"))["type"] == "pong"  # nobody else
    token = await open_client(server)
    assert (await token.request("hello", token=dora.token))["code"] == "bad_token"
    entries = (await admin(server, "GET", "/admin/audit"))[1]["entries"]
    assert entries[-1]["action"] == "freeze" and entries[-1]["details"]["end_sessions"]
    balance = await server.app.wallet.ledger.balance(player_account(str(dora.player_id)))
    assert balance == 10000  # a frozen player keeps every chip
