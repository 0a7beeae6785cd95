"""Accounts over both stores: guests, named accounts (scrypt), unique names, credentials, the
token secret kept in the store, and tokens that survive a restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from protocol import Hello, Login, ProtocolError, Register
from server.ledger.accounts import AccountError, Accounts
from server.ledger.journal import Ledger, player_account
from server.ledger.sqlite_store import SqliteStore, StoreInUse
from server.ledger.store import Store
from server.ledger.wallet import LedgerWallet
from server.net.sessions import Sessions


@pytest.fixture
def accounts(ledger: Ledger) -> Accounts:
    return Accounts(ledger, starting_balance=5000)


async def test_guest_gets_the_starting_balance(accounts: Accounts) -> None:
    a = await accounts.guest("Alice")
    assert a.guest and a.balance == 5000 and a.player_id.startswith("g_")
    assert await accounts.ledger.balance(player_account(a.player_id)) == 5000


async def test_register_then_login(accounts: Accounts, store: Store) -> None:
    made = await accounts.register("Alice", "correct horse")
    assert not made.guest and made.balance == 5000
    user = await store.user("alice")
    assert user is not None and b"correct horse" not in user.digest + user.salt
    assert user.params == {"n": 2**14, "r": 8, "p": 1} and len(user.salt) == 16
    again = await accounts.login("ALICE", "correct horse")  # names compare case-insensitively
    assert again.player_id == made.player_id and again.balance == 5000  # funded once


async def test_name_taken_and_bad_credentials(accounts: Accounts) -> None:
    await accounts.register("Bob", "s3cret-pass")
    for call, code in [(accounts.register("bob", "other-pass"), "name_taken"),
                       (accounts.login("Bob", "wrong-pass"), "bad_credentials"),
                       (accounts.login("Nobody", "s3cret-pass"), "bad_credentials"),
                       (accounts.register("Carol", "short"), "weak_password")]:
        with pytest.raises(AccountError) as info:
            await call
        assert info.value.code == code


async def test_a_guest_may_not_take_a_registered_name(accounts: Accounts) -> None:
    await accounts.register("Frank", "frank-pass")
    with pytest.raises(AccountError) as info:
        await accounts.guest("FRANK")
    assert info.value.code == "name_taken"
    assert (await accounts.guest("Frankie")).guest  # any other name is fine
    assert (await accounts.guest("Frankie")).guest  # guest names need not be unique


async def test_concurrent_registrations_of_one_name(accounts: Accounts) -> None:
    results = await asyncio.gather(*(accounts.register("Dana", f"password-{i}")
                                     for i in range(5)), return_exceptions=True)
    winners = [r for r in results if not isinstance(r, BaseException)]
    assert len(winners) == 1
    assert all(isinstance(r, AccountError) and r.code == "name_taken"
               for r in results if r not in winners)


async def test_secret_is_created_once(accounts: Accounts) -> None:
    first = await accounts.secret()
    assert len(first) == 32 and await accounts.secret() == first


async def test_tokens_survive_a_restart(tmp_path: Path) -> None:
    async def server() -> tuple[SqliteStore, Sessions]:
        store = SqliteStore(tmp_path / "ledger.db")
        await store.open()
        ledger = Ledger(store)
        sessions = Sessions(LedgerWallet(ledger), starting_balance=100,
                            accounts=Accounts(ledger, starting_balance=100))
        await sessions.start()
        return store, sessions

    store, sessions = await server()
    named = await sessions.register(Register(rid=1, name="Erin", password="erin-pass-1"))
    guest = await sessions.hello(Hello(rid=2, guest="Gus"))
    await store.close()
    store, sessions = await server()
    try:
        back = await sessions.hello(Hello(rid=3, token=named.token))
        assert (back.player_id, back.name, back.guest) == (named.player_id, "Erin", False)
        assert (await sessions.hello(Hello(rid=4, token=guest.token))).player_id == \
            guest.player_id
        assert (await sessions.login(Login(rid=5, name="erin", password="erin-pass-1"))
                ).player_id == named.player_id
        with pytest.raises(ProtocolError) as info:
            await sessions.hello(Hello(rid=6, token=named.token[:-2] + "xx"))
        assert info.value.code == "bad_token"
        assert sum((await store.balances()).values()) == 0
    finally:
        await store.close()


async def test_one_process_per_sqlite_file(tmp_path: Path) -> None:
    first = SqliteStore(tmp_path / "ledger.db")
    await first.open()
    second = SqliteStore(tmp_path / "ledger.db")
    try:
        with pytest.raises(StoreInUse, match="in use"):
            await second.open()
    finally:
        await first.close()
    await second.open()  # free again
    await second.close()


async def test_tokens_expire_unless_used_and_each_hello_renews_them(tmp_path: Path) -> None:
    """A token is valid for `token_ttl` seconds after it was issued; a `hello` with it gets
    a fresh one (the expiry slides), so only a token left unused that long stops working
    (`bad_token`), as does one without an expiry (however validly signed)."""
    import base64
    import hashlib
    import hmac

    import orjson

    now = [1_000_000.0]
    store = SqliteStore(tmp_path / "ledger.db")
    await store.open()
    ledger = Ledger(store)
    sessions = Sessions(LedgerWallet(ledger), starting_balance=100,
                        accounts=Accounts(ledger, starting_balance=100), token_ttl=3600.0,
                        clock=lambda: now[0])
    await sessions.start()
    try:
        named = await sessions.register(Register(rid=1, name="Erin", password="erin-pass-1"))
        guest = await sessions.hello(Hello(rid=2, guest="Gus"))
        now[0] += 3000.0
        renewed = await sessions.hello(Hello(rid=3, token=named.token))
        assert renewed.player_id == named.player_id and renewed.token != named.token
        now[0] += 3000.0  # 6,000 s after the first tokens, 3,000 after the renewal
        for stale in (named.token, guest.token):
            with pytest.raises(ProtocolError) as info:
                await sessions.hello(Hello(rid=4, token=stale))
            assert info.value.code == "bad_token"
        again = await sessions.hello(Hello(rid=5, token=renewed.token))
        assert (again.player_id, again.guest) == (named.player_id, False)

        secret = await Accounts(ledger, starting_balance=100).secret()
        payload = base64.urlsafe_b64encode(orjson.dumps(
            {"p": named.player_id, "n": "Erin", "g": False})).rstrip(b"=").decode()
        mac = base64.urlsafe_b64encode(hmac.new(secret, payload.encode(), hashlib.sha256)
                                       .digest()).rstrip(b"=").decode()
        with pytest.raises(ProtocolError) as info:
            await sessions.hello(Hello(rid=6, token=f"{payload}.{mac}"))
        assert info.value.code == "bad_token"
    finally:
        await store.close()
