"""Identity attacks against a real `poker-server` (no test mode): revocation, confusable and
reserved names, guests passing for players, idle guests' chips."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from tests.net.conftest import Client
from tests.security.conftest import TIMEOUT, HostileServer, ServerFactory, client, ledger_sum


async def hello_token(srv: HostileServer, token: str) -> dict[str, Any]:
    c = await client(srv)
    try:
        return await c.request("hello", token=token)
    finally:
        await c.ws.close()


async def named(srv: HostileServer, kind: str, name: str, password: str) -> tuple[Client, str]:
    c = await client(srv)
    answer = await c.request(kind, name=name, password=password)
    assert answer["type"] == "ok", answer
    welcome = await c.event("welcome")
    return c, str(welcome["token"])


async def closed(c: Client) -> bool:
    """Whether the server closes `c` (bounded wait)."""
    try:
        while True:
            await c.receive()
    except (ConnectionClosed, TimeoutError):
        pass
    return c.ws.close_code is not None


async def test_logout_revokes_the_token(hostile_server: ServerFactory) -> None:
    srv = hostile_server()
    c = await client(srv)
    await c.hello("Gina")
    token = str(c.token)
    answer = await c.request("logout")
    assert answer["type"] == "ok" and answer["revoked"] == 1
    assert await closed(c)
    assert (await hello_token(srv, token))["code"] == "bad_token"
    assert ledger_sum(srv) == 0


async def test_logout_all_revokes_every_session_and_closes_them(
        hostile_server: ServerFactory) -> None:
    srv = hostile_server()
    first, token1 = await named(srv, "register", "Hank", "hank-password")
    second, token2 = await named(srv, "login", "Hank", "hank-password")
    assert (await second.request("logout", all=True))["revoked"] == 2
    assert await closed(first) and await closed(second)
    for token in (token1, token2):
        assert (await hello_token(srv, token))["code"] == "bad_token"
    assert ledger_sum(srv) == 0


async def test_change_password_revokes_every_other_session(
        hostile_server: ServerFactory) -> None:
    srv = hostile_server()
    mine, _ = await named(srv, "register", "Iris", "iris-password")
    stolen, stolen_token = await named(srv, "login", "Iris", "iris-password")
    answer = await mine.request("change_password", old_password="wrong-password",
                                new_password="iris-new-password")
    assert answer["code"] == "bad_credentials"
    answer = await mine.request("change_password", old_password="iris-password",
                                new_password="iris-new-password")
    assert answer["type"] == "ok" and answer["token"], answer
    assert await closed(stolen)
    assert (await hello_token(srv, stolen_token))["code"] == "bad_token"
    assert (await hello_token(srv, answer["token"]))["type"] == "ok"
    assert (await mine.request("ping"))["type"] == "pong"  # the requester stays on
    c = await client(srv)
    assert (await c.request("login", name="Iris", password="iris-password"))["code"] == \
        "bad_credentials"
    assert (await c.request("login", name="Iris", password="iris-new-password"))["type"] == \
        "ok"
    guest = await client(srv)
    await guest.hello("Jack")
    assert (await guest.request("change_password", old_password="x" * 8,
                                new_password="y" * 8))["code"] == "not_allowed"
    assert ledger_sum(srv) == 0


@pytest.mark.parametrize("lookalike", ["AIice", "\u0410lice", "Alic\u00e9", "ALICE",
                                       "\uff21lice", "Al\u0131ce"])
async def test_confusable_names_are_refused(hostile_server: ServerFactory,
                                            lookalike: str) -> None:
    srv = hostile_server()
    c, _ = await named(srv, "register", "Alice", "alice-password")
    other = await client(srv)
    answer = await other.request("register", name=lookalike, password="mallory-password")
    assert answer["code"] == "name_taken", (lookalike, answer)
    assert (await other.request("hello", guest=lookalike))["code"] == "name_taken"
    assert ledger_sum(srv) == 0


@pytest.mark.parametrize("name", ["admin", "Admin", "adrnin", "\u0410DMIN", "Dealer",
                                  "SUPPORT"])
async def test_reserved_names_are_refused(hostile_server: ServerFactory, name: str) -> None:
    srv = hostile_server("--set", "reserved_names=admin,dealer,support")
    c = await client(srv)
    assert (await c.request("register", name=name, password="mallory-password"))["code"] == \
        "name_reserved"
    assert (await c.request("hello", guest=name))["code"] == "name_reserved"
    assert ledger_sum(srv) == 0


async def test_guests_are_marked_in_public_events(hostile_server: ServerFactory) -> None:
    srv = hostile_server()
    player, _ = await named(srv, "register", "Bob", "bob-password")
    guest = await client(srv)
    welcome = await guest.hello("Bob2")
    assert welcome["guest"] is True
    other_guest = await client(srv)
    await other_guest.hello("Bob2")
    made = await player.request("create_table", variant="holdem", structure="no_limit",
                                stakes={"blinds": [50, 100]}, seats=6)
    assert made["type"] == "ok", made
    table = made["table"]
    assert (await player.request("watch", table=table))["type"] == "ok"
    assert (await player.request("sit", table=table, seat=0, buy_in=5000))["type"] == "ok"
    assert (await guest.request("sit", table=table, seat=1, buy_in=5000))["type"] == "ok"
    seated = await asyncio.wait_for(player.event("seated", seat=1), TIMEOUT)
    assert seated["guest"] is True and seated["name"] == "Bob2" and seated["tag"]
    mine = await asyncio.wait_for(player.event("seated", seat=0), TIMEOUT) \
        if any(e.get("seat") == 0 for e in player.events if e["type"] == "seated") else None
    assert mine is None or "guest" not in mine
    watcher = await client(srv)
    assert (await watcher.request("watch", table=table))["type"] == "ok"
    snap = await asyncio.wait_for(watcher.event("snapshot"), TIMEOUT)
    seats = {s["seat"]: s for s in snap["seats"] if s}
    assert seats[1]["guest"] is True and "guest" not in seats[0]
    # a spectator guest of the same name says something: marked, and told apart by its tag
    assert (await other_guest.request("watch", table=table))["type"] == "ok"
    assert (await other_guest.request("chat", table=table, text="hi"))["type"] == "ok"
    said = await asyncio.wait_for(watcher.event("chat", text="hi"), TIMEOUT)
    assert said["guest"] is True and said["name"] == "Bob2"
    assert said["tag"] != seated["tag"]
    for c in (player, guest, other_guest, watcher):
        await c.ws.close()
    assert ledger_sum(srv) == 0


async def test_idle_guests_expire_and_their_chips_go_back_to_the_bank(
        hostile_server: ServerFactory) -> None:
    srv = hostile_server("--set", "guest_idle_expiry=1", "--set", "guest_sweep_interval=0.25")
    idle = await client(srv)
    await idle.hello("Idle")
    token = str(idle.token)
    await idle.ws.close()
    staying = await client(srv)
    await staying.hello("Staying")
    for _ in range(40):  # the sweep runs every 0.25 s; the guest is idle after 1 s
        await asyncio.sleep(0.25)
        if any("event=guest_expired" in line and "returned=10000" in line
               for line in srv.stderr_lines()):
            break
    else:
        raise AssertionError("no guest expired")
    assert (await hello_token(srv, token))["code"] == "bad_token"
    assert (await staying.request("ping"))["type"] == "pong"
    assert (await hello_token(srv, str(staying.token)))["type"] == "ok"  # connected: kept
    await staying.ws.close()
    assert ledger_sum(srv) == 0
    assert sum("event=guest_expired" in line for line in srv.stderr_lines()) == 1
