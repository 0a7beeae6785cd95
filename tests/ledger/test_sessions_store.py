"""Revocable sessions, name aliases and guests' activity on both stores (``store`` is
parametrised), and `Sessions` over them: logout, change_password, the idle-guest sweep."""

from __future__ import annotations

import pytest

from protocol import ChangePassword, Hello, Login, ProtocolError, Register
from server.ledger.accounts import Accounts
from server.ledger.journal import BANK, Ledger, player_account
from server.ledger.store import Store, UserRecord
from server.ledger.wallet import LedgerWallet
from server.net.sessions import Sessions


async def test_sessions_put_get_revoke_purge(store: Store) -> None:
    await store.sessions.put("s1", "u_a", 100.0)
    await store.sessions.put("s2", "u_a", 200.0)
    await store.sessions.put("s3", "u_b", 50.0)
    assert await store.sessions.get("s1") == ("u_a", 100.0)
    await store.sessions.put("s1", "u_a", 300.0)  # extended
    assert await store.sessions.get("s1") == ("u_a", 300.0)
    await store.sessions.put("s1", "u_x", 999.0)  # another player's id: ignored
    assert await store.sessions.get("s1") == ("u_a", 300.0)
    await store.sessions.revoke("s2")
    assert await store.sessions.get("s2") is None
    assert await store.sessions.purge(60.0) == 1  # s3 expired
    assert await store.sessions.get("s3") is None
    assert await store.sessions.revoke_all("u_a") == 1
    assert await store.sessions.get("s1") is None


async def test_user_aliases_are_one_atomic_name(store: Store) -> None:
    rec = UserRecord("u_1", "Alice", b"s", b"d", {"n": 2})
    assert await store.add_user("alice", rec, aliases=["allce"])
    assert not await store.add_user("x", UserRecord("u_2", "X", b"s", b"d"), aliases=["allce"])
    assert await store.user("x") is None
    assert (await store.user("allce")).player_id == "u_1"  # type: ignore[union-attr]
    assert await store.update_user("allce", UserRecord("u_1", "Alice", b"s2", b"d2", {"n": 4}))
    for key in ("alice", "allce"):
        assert (await store.user(key)).digest == b"d2"  # type: ignore[union-attr]
    assert not await store.update_user("nobody", rec)


async def test_guest_activity(store: Store) -> None:
    await store.sessions.guest_seen("g_1", 10.0)
    await store.sessions.guest_seen("g_2", 20.0)
    await store.sessions.guest_seen("g_1", 5.0)  # never goes back
    assert await store.sessions.idle_guests(15.0, 10) == ["g_1"]
    assert await store.sessions.idle_guests(25.0, 10) == ["g_1", "g_2"]
    await store.sessions.guest_forget("g_1")
    assert await store.sessions.idle_guests(25.0, 10) == ["g_2"]


@pytest.fixture
def clock() -> list[float]:
    return [1_000_000.0]


@pytest.fixture
async def sessions(ledger: Ledger, clock: list[float]) -> Sessions:
    s = Sessions(LedgerWallet(ledger), starting_balance=1000,
                 accounts=Accounts(ledger, starting_balance=1000), clock=lambda: clock[0],
                 guest_idle_expiry=100.0)
    await s.start()
    return s


async def test_logout_and_change_password_end_sessions(sessions: Sessions) -> None:
    me = await sessions.register(Register(rid=1, name="Erin", password="erin-pass-1"))
    other = await sessions.login(Login(rid=2, name="erin", password="erin-pass-1"))
    assert me.session != other.session
    assert await sessions.logout(me.player_id, other.session, everywhere=False) == 1
    with pytest.raises(ProtocolError, match="bad_token"):
        await sessions.hello(Hello(rid=3, token=other.token))
    assert (await sessions.hello(Hello(rid=4, token=me.token))).session == me.session
    fresh = await sessions.change_password(me.player_id, "Erin", ChangePassword(
        rid=5, old_password="erin-pass-1", new_password="erin-pass-2"))
    with pytest.raises(ProtocolError, match="bad_token"):
        await sessions.hello(Hello(rid=6, token=me.token))
    assert (await sessions.hello(Hello(rid=7, token=fresh.token))).player_id == me.player_id
    with pytest.raises(ProtocolError, match="bad_credentials"):
        await sessions.login(Login(rid=8, name="Erin", password="erin-pass-1"))


async def test_idle_guests_go_back_to_the_bank(sessions: Sessions, ledger: Ledger,
                                              clock: list[float]) -> None:
    idle = await sessions.hello(Hello(rid=1, guest="Idle"))
    online = await sessions.hello(Hello(rid=2, guest="Online"))
    seated = await sessions.hello(Hello(rid=3, guest="Seated"))
    await ledger.buy_in(seated.player_id, "t1", 400, reason="buy_in t1")
    clock[0] += 50.0
    assert await sessions.sweep([online.player_id]) == []
    clock[0] += 60.0  # idle for 110 s, online seen 60 s ago
    assert await sessions.sweep([]) == [idle.player_id]
    assert await ledger.balance(player_account(idle.player_id)) == 0
    assert await ledger.balance(BANK) == -2000  # 3 x 1000 opened, 1000 back
    with pytest.raises(ProtocolError, match="bad_token"):
        await sessions.hello(Hello(rid=4, token=idle.token))
    clock[0] += 100.0
    assert await sessions.sweep([]) == [online.player_id]  # the seated guest stays
    assert await ledger.total() == 0
    rows = await ledger.store.journal()
    assert [r.reason for r in rows].count("guest_expired") == 2
