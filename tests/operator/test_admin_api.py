"""The admin API on the operator listener: the credential, each action, its bounds, the audit
log; every chip accounted for after each test (`operator_server`'s teardown)."""

from __future__ import annotations

import asyncio
import urllib.request
from typing import Any

import pytest

from server.ledger.journal import player_account
from tests.net.test_play import HOLDEM, ok
from tests.operator.conftest import TOKEN, OperatorFactory, admin, player, seat_two

# every admin call, with a body that would be valid (nothing exists: refused before that)
CALLS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/admin/tables", None),
    ("POST", "/admin/tables/t1/close", {"reason": "r"}),
    ("POST", "/admin/tables/t1/remove", {"player": "p", "reason": "r"}),
    ("GET", "/admin/accounts", None),
    ("GET", "/admin/accounts/p", None),
    ("POST", "/admin/accounts/p/freeze", {"reason": "r"}),
    ("POST", "/admin/accounts/p/unfreeze", {"reason": "r"}),
    ("POST", "/admin/accounts/p/mute", {"reason": "r"}),
    ("POST", "/admin/accounts/p/unmute", {"reason": "r"}),
    ("POST", "/admin/accounts/p/adjust", {"amount": 5, "reason": "r"}),
    ("POST", "/admin/notice", {"text": "hi", "reason": "r"}),
    ("GET", "/admin/hands/t1.1", None),
    ("GET", "/admin/jackpot", None),
    ("GET", "/admin/metrics", None),
    ("GET", "/admin/audit", None),
    ("GET", "/admin/collusion?a=p&b=q", None),
]


def code(answer: tuple[int, dict[str, Any]]) -> tuple[int, str]:
    status, body = answer
    return status, body.get("error", {}).get("code", "")


async def test_every_admin_call_needs_the_credential(operator_server: OperatorFactory) -> None:
    server = await operator_server()
    table, alice, bob = await seat_two(server)
    before = await server.app.wallet.ledger.store.balances()
    for method, path, body in CALLS:
        assert code(await admin(server, method, path, body, token=None)) == \
            (401, "credential_required"), path
        assert code(await admin(server, method, path, body, token="wrong-token-0123456789")) \
            == (401, "bad_credential"), path
        assert code(await admin(server, method, path, body, token=None,
                                headers={"Authorization": f"Basic {TOKEN}"})) == \
            (401, "bad_credential"), path
    assert code(await admin(server, "POST", "/admin/session", {"operator": "eve"},
                            token="wrong-token-0123456789")) == (401, "bad_credential")
    # nothing changed: the table still runs, the same balances, no audit record
    assert server.app.registry.get(table) is not None
    assert await server.app.wallet.ledger.store.balances() == before
    assert (await admin(server, "GET", "/admin/audit"))[1]["total"] == 0
    await alice.ws.close()
    await bob.ws.close()


async def test_without_a_token_the_admin_api_is_off(operator_server: OperatorFactory) -> None:
    server = await operator_server(operator_token=None)
    for method, path, body in CALLS:
        assert code(await admin(server, method, path, body)) == (403, "admin_disabled"), path
    assert code(await admin(server, "POST", "/admin/session", {})) == (403, "admin_disabled")
    url = (server.app.operator_url or "").rstrip("/")
    response = await asyncio.to_thread(urllib.request.urlopen, url + "/metrics", None, 10)
    assert response.status == 200  # as before the admin API: open without a token
    response.close()


async def test_sessions_expire_and_name_the_operator(operator_server: OperatorFactory) -> None:
    server = await operator_server(operator_session_ttl=0.5)
    status, opened = await admin(server, "POST", "/admin/session", {"operator": "carol"})
    assert status == 200 and opened["operator"] == "carol"
    session = opened["session"]
    guest = await player(server, "Dave")
    status, _ = await admin(server, "POST", f"/admin/accounts/{guest.player_id}/mute",
                            {"reason": "spam"}, token=session)
    assert status == 200
    entries = (await admin(server, "GET", "/admin/audit", token=session))[1]["entries"]
    assert [(e["who"], e["action"], e["target"], e["reason"]) for e in entries] == \
        [("carol", "mute", guest.player_id, "spam")]
    assert isinstance(entries[0]["at"], float) and entries[0]["seq"] == 1
    # a session cannot open another; the token names the operator with X-Operator
    assert code(await admin(server, "POST", "/admin/session", {}, token=session)) == \
        (401, "bad_credential")
    assert code(await admin(server, "GET", "/admin/tables",
                            headers={"X-Operator": "bad name!"})) == (400, "bad_operator")
    await asyncio.sleep(0.6)
    assert code(await admin(server, "GET", "/admin/tables", token=session)) == \
        (401, "credential_expired")
    await guest.ws.close()


async def test_bad_bodies_and_paths(operator_server: OperatorFactory) -> None:
    server = await operator_server(operator_body_max=1024)
    assert code(await admin(server, "POST", "/admin/notice", b"{not json")) == (400, "bad_json")
    assert code(await admin(server, "POST", "/admin/notice", b"[1, 2]")) == (400, "bad_json")
    assert code(await admin(server, "GET", "/admin/nothing")) == (404, "unknown_endpoint")
    assert code(await admin(server, "GET", "/admin/notice")) == (405, "method_not_allowed")
    assert code(await admin(server, "GET", "/admin/audit?limit=5000")) == (400, "bad_field")
    status, _ = await admin(server, "POST", "/admin/notice", b"x" * 2000)
    assert status == 413
    # the public listener has none of it
    for path in ("/admin/tables", "/operator/", "/operator/index.html", "/operator/app.js"):
        request = urllib.request.Request(server.url.rstrip("/") + path,
                                         headers={"Authorization": f"Bearer {TOKEN}"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            await asyncio.to_thread(urllib.request.urlopen, request, None, 10)
        assert refused.value.code == 404, path


async def test_tables_with_players_and_load(operator_server: OperatorFactory) -> None:
    server = await operator_server()
    table, alice, bob = await seat_two(server)
    status, body = await admin(server, "GET", "/admin/tables")
    assert status == 200
    (entry,) = body["tables"]
    assert entry["table"] == table and entry["variant"] == "holdem"
    assert [(p["seat"], p["player_id"], p["name"], p["stack"]) for p in entry["players"]] == \
        [(0, alice.player_id, "Alice", 5000), (1, bob.player_id, "Bob", 5000)]
    assert {"queued", "connections", "in_hand"} <= set(entry)
    await alice.ws.close()
    await bob.ws.close()


async def test_remove_a_player_chips_back(operator_server: OperatorFactory) -> None:
    server = await operator_server()
    alice, bob = await player(server, "Alice"), await player(server, "Bob")
    table = (await ok(alice, "create_table", **HOLDEM))["table"]
    await ok(alice, "sit", table=table, seat=0, buy_in=3000)  # alone: no hand runs
    assert code(await admin(server, "POST", f"/admin/tables/{table}/remove",
                            {"player": bob.player_id, "reason": "r"})) == (409, "not_seated")
    assert code(await admin(server, "POST", "/admin/tables/t999/remove",
                            {"player": alice.player_id, "reason": "r"})) == \
        (404, "unknown_table")
    assert code(await admin(server, "POST", f"/admin/tables/{table}/remove",
                            {"player": alice.player_id})) == (400, "bad_reason")
    status, body = await admin(server, "POST", f"/admin/tables/{table}/remove",
                               {"player": alice.player_id, "reason": "abuse"})
    assert status == 200 and body["pending"] is False
    await alice.event("left", table=table, seat=0)
    assert await server.app.wallet.ledger.balance(player_account(str(alice.player_id))) == 10000
    await alice.ws.close()
    await bob.ws.close()


async def test_freeze_refuses_sit_and_chat_not_watch(operator_server: OperatorFactory) -> None:
    server = await operator_server()
    owner, carol = await player(server, "Owner"), await player(server, "Carol")
    table = (await ok(owner, "create_table", **HOLDEM))["table"]
    path = f"/admin/accounts/{carol.player_id}"
    assert code(await admin(server, "POST", path + "/freeze", {"reason": ""})) == \
        (400, "bad_reason")
    assert code(await admin(server, "POST", path + "/freeze", {"reason": "x" * 201})) == \
        (400, "bad_reason")
    assert code(await admin(server, "POST", "/admin/accounts/nobody/freeze",
                            {"reason": "r"})) == (404, "unknown_player")
    status, body = await admin(server, "POST", path + "/freeze", {"reason": "chargeback"})
    assert status == 200 and body["frozen"] is True and body["changed"] is True
    await ok(carol, "watch", table=table)
    refused = await carol.request("sit", table=table, seat=1, buy_in=3000)
    assert refused["type"] == "error" and refused["code"] == "account_frozen"
    refused = await carol.request("chat", table=table, text="hello")
    assert refused["code"] == "account_frozen"
    assert await server.app.wallet.ledger.balance(player_account(str(carol.player_id))) == 10000
    account = (await admin(server, "GET", path))[1]
    assert account["frozen"] is True and account["balance"] == 10000
    assert (await admin(server, "POST", path + "/unfreeze", {"reason": "paid"}))[0] == 200
    await ok(carol, "sit", table=table, seat=1, buy_in=3000)
    # muted: no chat, but sitting is fine
    assert (await admin(server, "POST", path + "/mute", {"reason": "insults"}))[0] == 200
    assert (await carol.request("chat", table=table, text="hey"))["code"] == "account_muted"
    assert (await admin(server, "POST", path + "/unmute", {"reason": "ok"}))[0] == 200
    actions = [e["action"] for e in (await admin(server, "GET", "/admin/audit"))[1]["entries"]]
    assert actions == ["freeze", "unfreeze", "mute", "unmute"]
    await owner.ws.close()
    await carol.ws.close()


async def test_frozen_accounts_survive_a_restart(operator_server: OperatorFactory,
                                                 tmp_path: Any) -> None:
    server = await operator_server(data_dir=tmp_path / "kept")
    carol = await player(server, "Carol")
    await admin(server, "POST", f"/admin/accounts/{carol.player_id}/freeze", {"reason": "r"})
    await carol.ws.close()
    await server.close()
    again = await operator_server(data_dir=tmp_path / "kept")
    assert carol.player_id in again.app.operator.flags.frozen  # type: ignore[union-attr]


async def test_adjust_a_balance_from_house(operator_server: OperatorFactory) -> None:
    server = await operator_server(operator_adjust_max=50_000)
    dave = await player(server, "Dave")
    path = f"/admin/accounts/{dave.player_id}/adjust"
    for amount in (0, True, 50_001, -50_001, "500", 1.5, None):
        assert code(await admin(server, "POST", path, {"amount": amount, "reason": "r"})) == \
            (400, "bad_amount"), amount
    assert code(await admin(server, "POST", path, {"amount": -20_000, "reason": "r"})) == \
        (409, "insufficient_balance")
    assert code(await admin(server, "POST", path, {"amount": 5})) == (400, "bad_reason")
    assert code(await admin(server, "POST", "/admin/accounts/ghost/adjust",
                            {"amount": 5, "reason": "r"})) == (404, "unknown_player")
    status, body = await admin(server, "POST", path, {"amount": 500, "reason": "refund #12"})
    assert status == 200 and body["balance"] == 10_500
    push = await dave.event("balance")
    assert push["balance"] == 10_500
    status, body = await admin(server, "POST", path, {"amount": -300, "reason": "correction"})
    assert status == 200 and body["balance"] == 10_200
    journal = await server.app.wallet.ledger.store.journal(0, 1000)
    moves = [(e.src, e.dst, e.amount) for e in journal if e.reason.startswith("operator_adjust")]
    account = player_account(str(dave.player_id))
    assert moves == [("house", account, 500), (account, "house", 300)]
    entries = (await admin(server, "GET", "/admin/audit"))[1]["entries"]
    assert [(e["action"], e["details"]["amount"], e["reason"]) for e in entries] == \
        [("adjust_balance", 500, "refund #12"), ("adjust_balance", -300, "correction")]
    await dave.ws.close()


async def test_notices_to_everyone_or_one_table(operator_server: OperatorFactory) -> None:
    server = await operator_server(operator_message_max=50)
    table, alice, bob = await seat_two(server)
    other = await player(server, "Eve")
    status, body = await admin(server, "POST", "/admin/notice",
                               {"text": "closing at midnight", "reason": "schedule"})
    assert status == 200
    for client in (alice, bob, other):
        assert (await client.event("notice"))["text"] == "closing at midnight"
    status, body = await admin(server, "POST", "/admin/notice",
                               {"text": "this table closes", "table": table, "reason": "r"})
    assert status == 200 and body["connections"] == 2
    note = await alice.event("notice")
    assert note == {"type": "notice", "text": "this table closes", "table": table}
    assert code(await admin(server, "POST", "/admin/notice",
                            {"text": "x" * 51, "reason": "r"})) == (400, "bad_text")
    assert code(await admin(server, "POST", "/admin/notice",
                            {"text": "hi", "table": "t999", "reason": "r"})) == \
        (404, "unknown_table")
    await asyncio.sleep(0.05)
    assert not [e for e in other.events if e["type"] == "notice"]
    for client in (alice, bob, other):
        await client.ws.close()


async def test_hand_record_jackpot_and_metrics(operator_server: OperatorFactory) -> None:
    server = await operator_server()
    table, alice, bob = await seat_two(server)
    started = await alice.event("hand_started", table=table)
    turn = await alice.event("turn", table=table)
    mover = alice if turn["seat"] == 0 else bob
    await ok(mover, "act", table=table, action="fold")
    await alice.event("hand_ended", table=table)
    await asyncio.sleep(0.1)  # the record is saved after the hand ends
    status, body = await admin(server, "GET", f"/admin/hands/{started['hand']}")
    assert status == 200 and body["record"]["audit"]["deck"]
    assert code(await admin(server, "GET", "/admin/hands/t1.999")) == (404, "unknown_hand")
    status, body = await admin(server, "GET", "/admin/jackpot?start=0&count=5")
    assert status == 200 and "entries" in body
    status, body = await admin(server, "GET", "/admin/metrics")
    assert status == 200 and body["metrics"]["poker_tcp_connections"] >= 2
    await alice.ws.close()
    await bob.ws.close()
