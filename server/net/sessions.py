"""Identity at the edge: `hello` as a guest or with a token, and the tokens themselves.

Rule of this module: a token is `<payload>.<mac>` where `payload` is the base64url JSON
`{"p": player_id, "n": name}` and `mac` the base64url HMAC-SHA256 of `payload` under the
server secret; nothing but a valid MAC ever turns a token back into an identity, and tokens
are compared in constant time.

The secret is generated once per process (`secrets.token_bytes(32)`) unless one is given, so
for now tokens stop working when the process restarts; the ledger issue persists the secret
(pass it as `secret=`). A guest hello creates a new player id (`g_` + 16 hex digits) and opens
its wallet account with `Config.starting_balance` (`wallet.ensure`); a token hello resumes the
same id and name (and opens the account if this process has never seen it).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from dataclasses import dataclass

import orjson

from protocol import Hello, ProtocolError
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

    def __init__(self, wallet: Wallet, *, starting_balance: int, secret: bytes | None = None
                 ) -> None:
        self._wallet = wallet
        self._starting = starting_balance
        self._secret = secret if secret is not None else secrets.token_bytes(32)

    def _mac(self, payload: str) -> str:
        return _b64(hmac.new(self._secret, payload.encode("ascii"), hashlib.sha256).digest())

    def issue(self, player_id: str, name: str) -> str:
        """A token that `verify` turns back into (`player_id`, `name`)."""
        payload = _b64(orjson.dumps({"p": player_id, "n": name}))
        return f"{payload}.{self._mac(payload)}"

    def verify(self, token: str) -> tuple[str, str]:
        """(`player_id`, `name`) of a token this server issued; else `bad_token`."""
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
        return player_id, name

    def hello(self, request: Hello) -> Identity:
        """The identity for a `hello` request (guest or token); `bad_token` on a bad token.

        The caller answers `ok` then `welcome` built from the returned `Identity`.
        """
        if request.token is not None:
            player_id, name = self.verify(request.token)
            token = request.token
        else:
            assert request.guest is not None  # Hello validates: exactly one of the two
            player_id, name = f"g_{secrets.token_hex(8)}", request.guest
            token = self.issue(player_id, name)
        balance = self._wallet.ensure(player_id, self._starting)
        return Identity(player_id=player_id, name=name, token=token, balance=balance)
