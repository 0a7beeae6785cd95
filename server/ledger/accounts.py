"""Player accounts: guests, named accounts with a password, and the server's token secret.

Rule of this module: a password is never stored, only its ``hashlib.scrypt`` digest with a
fresh random salt per account (n=2**14, r=8, p=1: 16 MiB, tens of milliseconds, run off the
event loop); digests are compared with ``hmac.compare_digest``. A name is unique among named
accounts as a reader sees it: compared by its confusables skeleton keys
(:func:`server.ledger.names.name_keys`: "AIice", "Аlice" with a Cyrillic А and "Alicé" are all
"Alice"), every key stored with the account so that the check and the insert are one atomic
step (``name_taken``); a reserved name (``Config.reserved_names``), compared the same way, is
``name_reserved``; a name with an invisible code point or without a visible letter or digit
is ``bad_field`` (:func:`server.ledger.names.invisible_reason`). Accounts made before
skeleton keys are still found under their old key (:func:`name_key`).

Every new account (guest or named) gets ``starting`` chips from the ledger's ``bank`` exactly
once. A guest may not take a registered or reserved name (guest names need not be unique
otherwise: two guests called Bob are told apart by their :func:`guest_tag`, which every
public event carries with ``guest: true``). The token secret is created once and kept in the
store (setting ``token_secret``), so session tokens survive restarts and work on every
process sharing the store.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace

from protocol import ProtocolError
from server.ledger.journal import Ledger
from server.ledger.names import ReservedNames, invisible_reason, name_keys
from server.ledger.store import UserRecord

__all__ = ["SCRYPT", "Account", "AccountError", "Accounts", "MIN_PASSWORD"]

SCRYPT = {"n": 2**14, "r": 8, "p": 1}
"""scrypt cost parameters for new accounts (stored with each digest, so they can be raised)."""

MIN_PASSWORD = 8
"""Shortest password accepted by ``register`` (``weak_password`` below it)."""


class AccountError(Exception):
    """A refusal with a protocol error code: ``name_taken``, ``name_reserved``,
    ``bad_credentials``, ``weak_password``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class Account:
    player_id: str
    name: str
    guest: bool
    balance: int


def name_key(name: str) -> str:
    """The uniqueness key of a display name before skeleton keys (still looked up, so older
    accounts keep working)."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def _digest(password: str, salt: bytes, params: dict[str, int]) -> bytes:
    n, r, p = params["n"], params["r"], params["p"]
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p,
                          maxmem=256 * r * n + 1024 * 1024, dklen=32)


def is_guest_id(player_id: str) -> bool:
    """Whether ``player_id`` is a guest account's (guest ids start with ``g_``)."""
    return player_id.startswith("g_")


def is_bot_id(player_id: str | None) -> bool:
    """Whether ``player_id`` is a practice table's bot's (``b_`` + 16 hex digits, issued by
    the server itself, never by a ``hello``; issue 24). A bot has no balance: it plays only
    a practice table's play money."""
    return player_id is not None and player_id.startswith("b_")


def guest_tag(player_id: str) -> str | None:
    """A guest's short public tag (4 hex digits of its id: two guests called Bob at one
    table differ but once in 65,536), None for a named account."""
    return player_id[2:6] if is_guest_id(player_id) else None


class Accounts:
    """Accounts over a :class:`~server.ledger.journal.Ledger` and its store."""

    def __init__(self, ledger: Ledger, *, starting_balance: int,
                 reserved: Iterable[str] = ()) -> None:
        self.ledger = ledger
        self.store = ledger.store
        self.starting = starting_balance
        self.reserved = ReservedNames(reserved)
        # a fixed dummy digest to spend the same time on unknown names (no user enumeration)
        self._dummy_salt = secrets.token_bytes(16)

    async def secret(self) -> bytes:
        """The server's token secret (created on first use, then the same forever)."""
        return bytes.fromhex(await self.store.setting("token_secret", secrets.token_hex(32)))

    def check_name(self, name: str) -> tuple[str, ...]:
        """The name's keys; ``bad_field`` (field ``name``, a `ProtocolError`: the wire's
        refusal of a bad name) for a name with an invisible code point or no visible letter
        or digit (:func:`server.ledger.names.invisible_reason`), ``name_reserved`` for a
        reserved name, ``name_taken`` for a name with nothing visible."""
        reason = invisible_reason(name)
        if reason is not None:
            raise ProtocolError("bad_field", f"`name`: {reason}", field="name")
        if name in self.reserved:
            raise AccountError("name_reserved")
        keys = name_keys(name)
        if not keys:
            raise AccountError("name_taken")
        return keys

    async def find(self, name: str) -> tuple[str, UserRecord] | None:
        """The named account that ``name`` designates (any of its keys, or the old key) and
        the key it was found under."""
        for key in (*name_keys(name), name_key(name)):
            if key:
                user = await self.store.user(key)
                if user is not None:
                    return key, user
        return None

    async def guest(self, name: str) -> Account:
        """A new guest account; ``name_taken`` when a named account has that name (by
        skeleton), ``name_reserved`` for a reserved one (a guest may not pass for a
        registered player or for the house)."""
        self.check_name(name)
        if await self.find(name) is not None:
            raise AccountError("name_taken")
        player_id = f"g_{secrets.token_hex(8)}"
        balance = await self.ledger.open_player(player_id, self.starting)
        return Account(player_id, name, True, balance)

    async def resume(self, player_id: str, name: str, *, guest: bool) -> Account:
        """A token's account (opened now if the store has never seen it, e.g. a fresh store;
        a practice bot's is never opened: it has no balance)."""
        if is_bot_id(player_id):
            return Account(player_id, name, guest, 0)
        balance = await self.ledger.open_player(player_id, self.starting)
        return Account(player_id, name, guest, balance)

    async def register(self, name: str, password: str) -> Account:
        if len(password) < MIN_PASSWORD or password.isspace():
            raise AccountError("weak_password")
        keys = self.check_name(name)
        if await self.store.user(name_key(name)) is not None:  # an account of before
            raise AccountError("name_taken")
        salt = secrets.token_bytes(16)
        params = dict(SCRYPT)
        digest = await asyncio.to_thread(_digest, password, salt, params)
        player_id = f"u_{secrets.token_hex(8)}"
        if not await self.store.add_user(keys[0], UserRecord(player_id, name.strip(), salt,
                                                             digest, params),
                                         aliases=keys[1:]):
            raise AccountError("name_taken")
        balance = await self.ledger.open_player(player_id, self.starting)
        return Account(player_id, name.strip(), False, balance)

    async def verify(self, user: UserRecord | None, password: str) -> Account:
        """The account if ``password`` is ``user``'s (None: an unknown name, which costs the
        same hash); ``bad_credentials`` otherwise."""
        if user is None:
            await asyncio.to_thread(_digest, password, self._dummy_salt, SCRYPT)
            raise AccountError("bad_credentials")
        digest = await asyncio.to_thread(_digest, password, user.salt, user.params or SCRYPT)
        if not hmac.compare_digest(digest, user.digest):
            raise AccountError("bad_credentials")
        balance = await self.ledger.open_player(user.player_id, self.starting)
        return Account(user.player_id, user.name, False, balance)

    async def login(self, name: str, password: str) -> Account:
        found = await self.find(name)
        return await self.verify(None if found is None else found[1], password)

    async def set_password(self, key: str, user: UserRecord, password: str) -> None:
        """Give ``user`` (found under ``key``) a new password (``weak_password``)."""
        if len(password) < MIN_PASSWORD or password.isspace():
            raise AccountError("weak_password")
        salt = secrets.token_bytes(16)
        params = dict(SCRYPT)
        digest = await asyncio.to_thread(_digest, password, salt, params)
        if not await self.store.update_user(key, replace(user, salt=salt, digest=digest,
                                                         params=params)):
            raise AccountError("bad_credentials")
