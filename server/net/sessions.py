"""Identity at the edge: `hello` as a guest or with a token, and the tokens themselves.

Rule of this module: a token is `<payload>.<mac>` where `payload` is the base64url JSON
`{"p": player_id, "n": name, "e": expiry}` and `mac` the base64url HMAC-SHA256 of `payload`
under the server secret; nothing but a valid MAC ever turns a token back into an identity,
tokens are compared in constant time, and a token past its expiry (Unix seconds,
`Config.token_ttl` after it was issued) or without one is `bad_token`. Every `hello` with a
valid token is answered with a fresh one (the `welcome`), so a player who keeps coming back
never sees theirs expire; a token that leaked stops working after `token_ttl`. (A guest whose
token expired starts again as a new guest; a named account logs in again.)

With `accounts` (a :class:`server.ledger.accounts.Accounts`, the server's case) the secret is
the one kept in the store (`await sessions.start()` loads it), so tokens survive restarts and
work on every process sharing the store; accounts are opened in the ledger (starting balance
from its bank, once per player), and `register`/`login` serve named accounts (the payload then
carries `"g": false`). Without `accounts` (tools, old tests) the secret is random per process
unless given as `secret=` and balances come from `wallet.ensure`. A guest hello creates a new
player id (`g_` + 16 hex digits); a token hello resumes the same id and name.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

import orjson

from protocol import Hello, Login, ProtocolError, Register
from server.ledger.accounts import Account, AccountError, Accounts
from server.ledger.wallet import Wallet

__all__ = ["Identity", "Sessions"]


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a connection is after `hello`: `player_id`, display `name`, resume `token`,
    current off-table `balance`, and whether it is a `guest` account."""

    player_id: str
    name: str
    token: str
    balance: int
    guest: bool = True


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    """Issues and checks session tokens; answers `hello`.

    Build one per process: `Sessions(wallet, starting_balance=config.starting_balance)`.
    """

    def __init__(self, wallet: Wallet, *, starting_balance: int, secret: bytes | None = None,
                 accounts: Accounts | None = None, token_ttl: float = 30 * 86400.0,
                 clock: Callable[[], float] = time.time) -> None:
        self._wallet = wallet
        self._ttl = token_ttl
        self._clock = clock
        self._starting = starting_balance
        self._secret = secret if secret is not None else secrets.token_bytes(32)
        self.accounts = accounts

    async def start(self) -> None:
        """Load the stored token secret (with `accounts`); call once before serving."""
        if self.accounts is not None:
            self._secret = await self.accounts.secret()

    def _mac(self, payload: str) -> str:
        return _b64(hmac.new(self._secret, payload.encode("ascii"), hashlib.sha256).digest())

    def issue(self, player_id: str, name: str, *, guest: bool = True) -> str:
        """A token that `verify` turns back into (`player_id`, `name`)."""
        fields: dict[str, object] = {"p": player_id, "n": name,
                                     "e": int(self._clock() + self._ttl)}
        if not guest:
            fields["g"] = False
        payload = _b64(orjson.dumps(fields))
        return f"{payload}.{self._mac(payload)}"

    def verify(self, token: str) -> tuple[str, str]:
        """(`player_id`, `name`) of a token this server issued; else `bad_token`."""
        player_id, name, _ = self._verify(token)
        return player_id, name

    def _verify(self, token: str) -> tuple[str, str, bool]:
        payload, dot, mac = token.partition(".")
        if not dot or not payload or not mac:
            raise ProtocolError("bad_token")
        if not hmac.compare_digest(mac.encode("ascii"), self._mac(payload).encode("ascii")):
            raise ProtocolError("bad_token")
        try:
            data = orjson.loads(_unb64(payload))
        except (binascii.Error, ValueError):
            raise ProtocolError("bad_token") from None
        player_id, name = (data.get("p"), data.get("n")) if isinstance(data, dict) else (0, 0)
        if not isinstance(player_id, str) or not isinstance(name, str):
            raise ProtocolError("bad_token")
        expiry = data.get("e")
        if type(expiry) is not int or expiry < self._clock():
            raise ProtocolError("bad_token", "the token has expired")
        guest = data.get("g", True) is not False
        return player_id, name, guest

    async def hello(self, request: Hello) -> Identity:
        """The identity for a `hello` request (guest or token); `bad_token` on a bad token.

        The caller answers `ok` then `welcome` built from the returned `Identity`.
        """
        if request.token is not None:
            player_id, name, guest = self._verify(request.token)
            if self.accounts is not None:  # (a fresh token: the expiry slides)
                return self._identity(await self.accounts.resume(player_id, name, guest=guest))
            token = self.issue(player_id, name, guest=guest)
        else:
            assert request.guest is not None  # Hello validates: exactly one of the two
            if self.accounts is not None:
                try:
                    return self._identity(await self.accounts.guest(request.guest))
                except AccountError as exc:
                    raise ProtocolError(exc.code) from None
            player_id, name, guest = f"g_{secrets.token_hex(8)}", request.guest, True
            token = self.issue(player_id, name)
        balance = self._wallet.ensure(player_id, self._starting)
        return Identity(player_id=player_id, name=name, token=token, balance=balance,
                        guest=guest)

    async def register(self, request: Register) -> Identity:
        """A new named account (`name_taken`, `weak_password`), logged in."""
        return await self._named(request, register=True)

    async def login(self, request: Login) -> Identity:
        """A named account's identity (`bad_credentials`)."""
        return await self._named(request, register=False)

    async def _named(self, request: Register | Login, *, register: bool) -> Identity:
        if self.accounts is None:
            raise ProtocolError("unsupported", f"`{request.TYPE}` needs the ledger")
        try:
            if register:
                account = await self.accounts.register(request.name, request.password)
            else:
                account = await self.accounts.login(request.name, request.password)
        except AccountError as exc:
            raise ProtocolError(exc.code) from None
        return self._identity(account)

    def _identity(self, account: Account) -> Identity:
        token = self.issue(account.player_id, account.name, guest=account.guest)
        self._wallet.ensure(account.player_id, account.balance)
        return Identity(player_id=account.player_id, name=account.name, token=token,
                        balance=account.balance, guest=account.guest)
