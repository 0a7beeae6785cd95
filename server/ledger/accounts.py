"""Player accounts: guests, named accounts with a password, and the server's token secret.

Rule of this module: a password is never stored, only its ``hashlib.scrypt`` digest with a
fresh random salt per account (n=2**14, r=8, p=1: 16 MiB, tens of milliseconds, run off the
event loop); digests are compared with ``hmac.compare_digest``. A name is unique among named
accounts, compared case-insensitively after Unicode NFKC normalisation. Every new account
(guest or named) gets ``starting`` chips from the ledger's ``bank`` exactly once; a guest may
not take a registered account's name (guest names need not be unique otherwise). The token
secret is created once and kept in the store (setting ``token_secret``), so session tokens
survive restarts and work on every process sharing the store.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import unicodedata
from dataclasses import dataclass

from server.ledger.journal import Ledger
from server.ledger.store import UserRecord

__all__ = ["SCRYPT", "Account", "AccountError", "Accounts", "MIN_PASSWORD"]

SCRYPT = {"n": 2**14, "r": 8, "p": 1}
"""scrypt cost parameters for new accounts (stored with each digest, so they can be raised)."""

MIN_PASSWORD = 8
"""Shortest password accepted by ``register`` (``weak_password`` below it)."""


class AccountError(Exception):
    """A refusal with a protocol error code: ``name_taken``, ``bad_credentials``,
    ``weak_password``."""

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
    """The uniqueness key of a display name."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def _digest(password: str, salt: bytes, params: dict[str, int]) -> bytes:
    n, r, p = params["n"], params["r"], params["p"]
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p,
                          maxmem=256 * r * n + 1024 * 1024, dklen=32)


class Accounts:
    """Accounts over a :class:`~server.ledger.journal.Ledger` and its store."""

    def __init__(self, ledger: Ledger, *, starting_balance: int) -> None:
        self.ledger = ledger
        self.store = ledger.store
        self.starting = starting_balance
        # a fixed dummy digest to spend the same time on unknown names (no user enumeration)
        self._dummy_salt = secrets.token_bytes(16)

    async def secret(self) -> bytes:
        """The server's token secret (created on first use, then the same forever)."""
        return bytes.fromhex(await self.store.setting("token_secret", secrets.token_hex(32)))

    async def guest(self, name: str) -> Account:
        """A new guest account; ``name_taken`` when a named account has that name (a guest
        may not pass for a registered player)."""
        if await self.store.user(name_key(name)) is not None:
            raise AccountError("name_taken")
        player_id = f"g_{secrets.token_hex(8)}"
        balance = await self.ledger.open_player(player_id, self.starting)
        return Account(player_id, name, True, balance)

    async def resume(self, player_id: str, name: str, *, guest: bool) -> Account:
        """A token's account (opened now if the store has never seen it, e.g. a fresh store)."""
        balance = await self.ledger.open_player(player_id, self.starting)
        return Account(player_id, name, guest, balance)

    async def register(self, name: str, password: str) -> Account:
        if len(password) < MIN_PASSWORD or password.isspace():
            raise AccountError("weak_password")
        key = name_key(name)
        if not key:
            raise AccountError("name_taken")
        salt = secrets.token_bytes(16)
        params = dict(SCRYPT)
        digest = await asyncio.to_thread(_digest, password, salt, params)
        player_id = f"u_{secrets.token_hex(8)}"
        if not await self.store.add_user(key, UserRecord(player_id, name.strip(), salt, digest,
                                                         params)):
            raise AccountError("name_taken")
        balance = await self.ledger.open_player(player_id, self.starting)
        return Account(player_id, name.strip(), False, balance)

    async def login(self, name: str, password: str) -> Account:
        user = await self.store.user(name_key(name))
        if user is None:
            await asyncio.to_thread(_digest, password, self._dummy_salt, SCRYPT)
            raise AccountError("bad_credentials")
        digest = await asyncio.to_thread(_digest, password, user.salt, user.params or SCRYPT)
        if not hmac.compare_digest(digest, user.digest):
            raise AccountError("bad_credentials")
        balance = await self.ledger.open_player(user.player_id, self.starting)
        return Account(user.player_id, user.name, False, balance)
