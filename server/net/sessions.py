"""Identity at the edge: `hello` as a guest or with a token, logins, and the tokens themselves.

Rule of this module: a token is `<payload>.<mac>` where `payload` is the base64url JSON
`{"p": player_id, "n": name, "e": expiry, "s": session}` and `mac` the base64url HMAC-SHA256 of
`payload` under the server secret; nothing but a valid MAC ever turns a token back into an
identity, tokens are compared in constant time, and a token past its expiry (Unix seconds,
`Config.token_ttl` after it was issued) or without one is `bad_token`. A token is also only
good while its *session* `s` lives in the store (`Store.sessions.get`): `logout` ends this
connection's session (`all`: every session of the account), `change_password` ends every
session of the account and opens a fresh one for the requester, an expired guest's sessions
end with it; a token whose session ended is `bad_token` however validly signed (so a token
that leaked can be revoked, not just waited out). Every `hello` with a valid token is
answered with a fresh token of the same session (its expiry slides, in the store too).

With `accounts` (a :class:`server.ledger.accounts.Accounts`, the server's case) the secret is
the one kept in the store (`await sessions.start()` loads it), so tokens survive restarts and
work on every process sharing the store; accounts are opened in the ledger (starting balance
from its bank, once per player), and `register`/`login` serve named accounts (the payload then
carries `"g": false`). Without `accounts` (tools, old tests) the secret is random per process
unless given as `secret=`, sessions live in this process's memory and balances come from
`wallet.ensure`. A guest hello creates a new player id (`g_` + 16 hex digits); a token hello
resumes the same id and name.

Abuse (`server.net.loginguard.LoginGuard`, with `guard`): a password check runs only after
the account's and the address's lockouts allow it and inside a bounded hashing slot; a
failure counts against both; guest creation is limited per address. Guests idle (no
connection, no chips at a table) for `Config.guest_idle_expiry` seconds are expired by
`sweep` (run by `GuestSweeper` every `Config.guest_sweep_interval`): their chips go back to
`bank` in one journal entry (`guest_expired`), their sessions end.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import orjson

from protocol import ChangePassword, Hello, Login, ProtocolError, Register
from server.ledger.accounts import Account, AccountError, Accounts, is_bot_id, is_guest_id
from server.ledger.journal import BANK, player_account
from server.ledger.names import name_keys
from server.ledger.wallet import Wallet
from server.net.loginguard import LoginGuard

__all__ = ["GuestSweeper", "Identity", "Sessions"]

log = logging.getLogger("server.net.sessions")


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a connection is after `hello`: `player_id`, display `name`, resume `token`,
    current off-table `balance`, and whether it is a `guest` account."""

    player_id: str
    name: str
    token: str
    balance: int
    guest: bool = True
    session: str = ""
    """The server-side session id the token carries (what `logout` revokes)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    """Issues and checks session tokens; answers `hello`, `login`, `register`, `logout` and
    `change_password`.

    Build one per process: `Sessions(wallet, starting_balance=config.starting_balance)`.
    """

    def __init__(self, wallet: Wallet, *, starting_balance: int, secret: bytes | None = None,
                 accounts: Accounts | None = None, token_ttl: float = 30 * 86400.0,
                 clock: Callable[[], float] = time.time, guard: LoginGuard | None = None,
                 guest_idle_expiry: float = 86400.0) -> None:
        self._wallet = wallet
        self._ttl = token_ttl
        self._clock = clock
        self._starting = starting_balance
        self._secret = secret if secret is not None else secrets.token_bytes(32)
        self.accounts = accounts
        self.guard = guard
        self.guest_idle_expiry = guest_idle_expiry
        self._memory: dict[str, tuple[str, float]] = {}  # sessions without a store

    async def start(self) -> None:
        """Load the stored token secret (with `accounts`); call once before serving."""
        if self.accounts is not None:
            self._secret = await self.accounts.secret()

    def _mac(self, payload: str) -> str:
        return _b64(hmac.new(self._secret, payload.encode("ascii"), hashlib.sha256).digest())

    def issue(self, player_id: str, name: str, *, guest: bool = True,
              session: str | None = None) -> str:
        """A token that `verify` turns back into (`player_id`, `name`), of `session` (a new
        session id when None; the caller records it: `_open`)."""
        fields: dict[str, object] = {"p": player_id, "n": name,
                                     "e": int(self._clock() + self._ttl),
                                     "s": session or _new_session()}
        if not guest:
            fields["g"] = False
        payload = _b64(orjson.dumps(fields))
        return f"{payload}.{self._mac(payload)}"

    def verify(self, token: str) -> tuple[str, str]:
        """(`player_id`, `name`) of a well-signed, unexpired token this server issued (its
        session is not looked up: `hello` does that); else `bad_token`."""
        player_id, name, _, _ = self._verify(token)
        return player_id, name

    def _verify(self, token: str) -> tuple[str, str, bool, str]:
        payload, dot, mac = token.partition(".")
        if not dot or not payload or not mac:
            raise ProtocolError("bad_token")
        if not hmac.compare_digest(mac.encode("ascii"), self._mac(payload).encode("ascii")):
            raise ProtocolError("bad_token")
        try:
            data = orjson.loads(_unb64(payload))
        except (binascii.Error, ValueError):
            raise ProtocolError("bad_token") from None
        if not isinstance(data, dict):
            raise ProtocolError("bad_token")
        player_id, name, session = data.get("p"), data.get("n"), data.get("s")
        if not isinstance(player_id, str) or not isinstance(name, str):
            raise ProtocolError("bad_token")
        if not isinstance(session, str) or not session:
            raise ProtocolError("bad_token", "the token has no session (issued before "
                                "revocable sessions): log in again")
        expiry = data.get("e")
        if type(expiry) is not int or expiry < self._clock():
            raise ProtocolError("bad_token", "the token has expired")
        guest = data.get("g", True) is not False
        return player_id, name, guest, session

    # --- sessions in the store (or in memory without one) --------------------------------
    async def _open(self, player_id: str, name: str, *, guest: bool,
                    session: str | None = None) -> tuple[str, str]:
        """Record (or extend) a session and return (`token`, `session`)."""
        sid = session or _new_session()
        now = self._clock()
        expires = now + self._ttl
        if self.accounts is None:
            self._memory[sid] = (player_id, expires)
        else:
            await self.accounts.store.sessions.put(sid, player_id, expires)
            if guest:
                await self.accounts.store.sessions.guest_seen(player_id, now)
        return self.issue(player_id, name, guest=guest, session=sid), sid

    async def bot_token(self, name: str) -> tuple[str, str]:
        """A practice table's bot (issue 24): a new ``b_`` player id and a token of a new
        session for it (its ``hello``); no account, no balance, no guest limit spent."""
        player_id = f"b_{secrets.token_hex(8)}"
        token, _ = await self._open(player_id, name, guest=False)
        return player_id, token

    async def _live(self, session: str, player_id: str) -> bool:
        """Whether `session` of `player_id` still lives (not revoked, not expired)."""
        if self.accounts is None:
            found = self._memory.get(session)
        else:
            found = await self.accounts.store.sessions.get(session)
        return found is not None and found[0] == player_id and found[1] >= self._clock()

    async def alive(self, session: str, player_id: str) -> bool:
        """Whether `session` of `player_id` still lives (the cluster's re-check of live
        sockets, `server.net.roomwide`)."""
        return await self._live(session, player_id)

    async def revoke(self, player_id: str, session: str | None) -> int:
        """End `session` (None: every session of `player_id`); returns how many ended."""
        if self.accounts is None:
            gone = [sid for sid, (pid, _) in self._memory.items()
                    if pid == player_id and (session is None or sid == session)]
            for sid in gone:
                del self._memory[sid]
            return len(gone)
        store = self.accounts.store
        if session is None:
            return await store.sessions.revoke_all(player_id)
        found = await store.sessions.get(session)
        if found is None or found[0] != player_id:
            return 0
        await store.sessions.revoke(session)
        return 1

    # --- requests ------------------------------------------------------------------------
    async def hello(self, request: Hello, address: str = "-") -> Identity:
        """The identity for a `hello` request (guest or token); `bad_token` on a bad token
        (or one whose session ended), `too_many_guests` past the address's guest limit.

        The caller answers `ok` then `welcome` built from the returned `Identity`.
        """
        if request.token is not None:
            player_id, name, guest, session = self._verify(request.token)
            if not await self._live(session, player_id):
                raise ProtocolError("bad_token", "the session has ended (logged out, or the "
                                    "password changed)")
            if self.accounts is not None:  # (a fresh token: the expiry slides)
                account = await self.accounts.resume(player_id, name, guest=guest)
                return await self._identity(account, session=session)
            token, session = await self._open(player_id, name, guest=guest, session=session)
        else:
            assert request.guest is not None  # Hello validates: exactly one of the two
            if self.guard is not None:
                await self.guard.guest(address)
            if self.accounts is not None:
                try:
                    return await self._identity(await self.accounts.guest(request.guest))
                except AccountError as exc:
                    raise ProtocolError(exc.code) from None
            player_id, name, guest = f"g_{secrets.token_hex(8)}", request.guest, True
            token, session = await self._open(player_id, name, guest=True)
        balance = 0 if is_bot_id(player_id) else self._wallet.ensure(player_id, self._starting)
        return Identity(player_id=player_id, name=name, token=token, balance=balance,
                        guest=guest, session=session)

    async def register(self, request: Register, address: str = "-") -> Identity:
        """A new named account (`name_taken`, `name_reserved`, `weak_password`), logged in."""
        accounts = self._need_accounts(request.TYPE)
        if self.guard is not None:
            await self.guard.check(None, address)
        try:
            async with self._hash_slot(address):
                account = await accounts.register(request.name, request.password)
        except AccountError as exc:
            raise ProtocolError(exc.code) from None
        return await self._identity(account)

    async def login(self, request: Login, address: str = "-") -> Identity:
        """A named account's identity (`bad_credentials`, `login_locked`, `server_busy`,
        `rate_limited`)."""
        accounts = self._need_accounts(request.TYPE)
        guard = self.guard
        if guard is not None:
            await guard.check(None, address)  # a locked address costs not even a store read
        found = await accounts.find(request.name)
        key = _lock_key(request.name, None if found is None else found[1].player_id)
        if guard is not None:
            await guard.check(key, address)
        try:
            async with self._hash_slot(address), self._attempt(key, address):
                account = await accounts.verify(None if found is None else found[1],
                                                request.password)
        except AccountError as exc:  # (a failure is counted by the guard's attempt)
            log.info("event=login_failed key=%s address=%s", key[:40], address)
            raise ProtocolError(exc.code) from None
        if guard is not None:
            await guard.succeeded(key)
        return await self._identity(account)

    async def logout(self, player_id: str, session: str | None, *, everywhere: bool) -> int:
        """`logout`: end this connection's `session` (or, `everywhere`, all of the account's
        sessions); returns how many ended."""
        if everywhere or not session:
            return await self.revoke(player_id, None)
        return await self.revoke(player_id, session)

    async def change_password(self, player_id: str, name: str, request: ChangePassword,
                              address: str = "-") -> Identity:
        """`change_password` of the named account `player_id` (display `name`): check the
        old password (lockouts count it like a login), store the new one, end every session
        and open a fresh one (the returned identity's token)."""
        accounts = self._need_accounts(request.TYPE)
        if is_guest_id(player_id):
            raise ProtocolError("not_allowed", "a guest account has no password")
        guard = self.guard
        key = _lock_key(name, player_id)
        if guard is not None:
            await guard.check(key, address)
        found = await accounts.find(name)
        if found is None or found[1].player_id != player_id:
            raise ProtocolError("not_allowed", "this account has no password here")
        try:
            async with self._hash_slot(address):
                async with self._attempt(key, address):  # (counts a bad_credentials)
                    account = await accounts.verify(found[1], request.old_password)
                await accounts.set_password(found[0], found[1], request.new_password)
        except AccountError as exc:
            raise ProtocolError(exc.code) from None
        if guard is not None:
            await guard.succeeded(key)
        ended = await self.revoke(player_id, None)
        log.info("event=password_changed player=%s sessions_revoked=%d", player_id, ended)
        return await self._identity(account)

    def _need_accounts(self, kind: str) -> Accounts:
        if self.accounts is None:
            raise ProtocolError("unsupported", f"`{kind}` needs the ledger")
        return self.accounts

    def _attempt(self, key: str, address: str) -> contextlib.AbstractAsyncContextManager[None]:
        """The guard's one password check of `key` at a time (lockouts checked again, a
        failure counted inside), or nothing without a guard."""
        if self.guard is None:
            return contextlib.nullcontext()
        return self.guard.attempt(key, address)

    def _hash_slot(self, address: str) -> contextlib.AbstractAsyncContextManager[None]:
        if self.guard is None:
            return contextlib.nullcontext()
        return self.guard.hashes.slot(address)

    async def _identity(self, account: Account, *, session: str | None = None) -> Identity:
        token, session = await self._open(account.player_id, account.name,
                                          guest=account.guest, session=session)
        self._wallet.ensure(account.player_id, account.balance)
        return Identity(player_id=account.player_id, name=account.name, token=token,
                        balance=account.balance, guest=account.guest, session=session)

    # --- guests' expiry --------------------------------------------------------------------
    async def sweep(self, active: Iterable[str] = (), *, limit: int = 500) -> list[str]:
        """Expire the guests idle for `guest_idle_expiry` seconds: not in `active` (the
        players connected to this process), without chips at any table (of any process
        sharing the store). Each one's chips go back to `bank` (one journal entry
        `guest_expired`, applied once), its sessions end. Also forgets expired sessions.
        Returns the expired guests' ids."""
        if self.accounts is None:
            return []
        store = self.accounts.store
        ledger = self.accounts.ledger
        now = self._clock()
        for player_id in set(active):
            if is_guest_id(player_id):
                await store.sessions.guest_seen(player_id, now)
        expired: list[str] = []
        idle = await store.sessions.idle_guests(now - self.guest_idle_expiry, limit)
        if idle:
            seated = {account.rsplit(":", 1)[1]
                      for account, amount in (await store.balances("table:")).items()
                      if amount > 0}
            for player_id in idle:
                if player_id in seated:
                    continue  # chips at a table: not idle (looked at again next sweep)
                await store.sessions.revoke_all(player_id)
                balance = await ledger.balance(player_account(player_id))
                if balance > 0 and not await ledger.transfer(
                        player_account(player_id), BANK, balance, reason="guest_expired",
                        key=f"guest_expired:{player_id}"):
                    continue  # (the balance moved meanwhile: next sweep)
                await store.sessions.guest_forget(player_id)
                expired.append(player_id)
                log.info("event=guest_expired player=%s returned=%d", player_id, balance)
        purged = await store.sessions.purge(now)
        if purged:
            log.info("event=sessions_purged count=%d", purged)
        return expired


class GuestSweeper:
    """The owned periodic task that runs `Sessions.sweep` every `interval` seconds
    (`start`/`stop`; a failed sweep is logged and the next one runs as usual). `active` is
    called each time for the players connected to this process."""

    def __init__(self, sessions: Sessions, *, interval: float,
                 active: Callable[[], Iterable[str]] = lambda: ()) -> None:
        self.sessions = sessions
        self.interval = interval
        self.active = active
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(),
                                                                name="guest-sweeper")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)  # a period, not a wait for an event
            try:
                await self.sessions.sweep(list(self.active()))
            except Exception:
                log.exception("event=guest_sweep_failed")


def _new_session() -> str:
    return secrets.token_urlsafe(16)


def _lock_key(name: str, player_id: str | None) -> str:
    """What a login lockout counts under: the account when the name designates one (however
    it is spelt), else the name's primary skeleton key."""
    if player_id is not None:
        return f"id:{player_id}"
    keys = name_keys(name)
    return f"name:{keys[0] if keys else ''}"
