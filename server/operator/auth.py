"""The operator credential: a token given at start-up, and sessions opened with it.

Rule of this module: there is no default credential. Without `Config.operator_token` the
admin API is off (every call: `admin_disabled`); with one, a call carries
`Authorization: Bearer <credential>`, the token itself or a session from
`POST /admin/session` (valid `Config.operator_session_ttl` seconds). Missing:
`credential_required`; anything else that does not match (compared in constant time):
`bad_credential`; a session past its time: `credential_expired`. Who acts is the session's
operator name, or with the token the `X-Operator` header (default `operator`).
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
from collections.abc import Callable

from server.operator.errors import AdminError

__all__ = ["MAX_SESSIONS", "OperatorAuth"]

MAX_SESSIONS = 1000
"""Live operator sessions kept; past it the oldest is forgotten."""

_NAME = re.compile(r"^[A-Za-z0-9._@-]{1,32}$")


class OperatorAuth:
    """See the module docstring. ``token``: `Config.operator_token` (None: admin API off)."""

    def __init__(self, token: str | None, *, session_ttl: float,
                 clock: Callable[[], float] = time.time) -> None:
        self._token = None if token is None else token.encode("utf-8")
        self.session_ttl = session_ttl
        self._clock = clock
        self._sessions: dict[str, tuple[str, float]] = {}  # session -> (operator, expires)

    @property
    def enabled(self) -> bool:
        return self._token is not None

    def allows(self, header: str | None) -> bool:
        """For `/metrics` and `/jackpot/history`: no token configured, or a valid credential."""
        if self._token is None:
            return True
        try:
            self.who(header, None)
        except AdminError:
            return False
        return True

    def who(self, header: str | None, operator: str | None) -> str:
        """The operator a call with this `Authorization` header (and `X-Operator`) is from;
        raises :class:`AdminError` (see the module docstring)."""
        if self._token is None:
            raise AdminError("admin_disabled")
        if header is None:
            raise AdminError("credential_required")
        scheme, _, given = header.partition(" ")
        secret = given.strip()
        if scheme.lower() != "bearer" or not secret:
            raise AdminError("bad_credential")
        if hmac.compare_digest(secret.encode("utf-8", "replace"), self._token):
            name = "operator" if operator is None else operator.strip()
            if not _NAME.match(name):
                raise AdminError("bad_operator")
            return name
        return self._session(secret)

    def _session(self, secret: str) -> str:
        found = None
        for sid, value in self._sessions.items():  # constant time per comparison
            if hmac.compare_digest(sid.encode("utf-8"), secret.encode("utf-8", "replace")):
                found = (sid, value)
        if found is None:
            raise AdminError("bad_credential")
        sid, (name, expires) = found
        if self._clock() >= expires:
            del self._sessions[sid]
            raise AdminError("credential_expired")
        return name

    def open_session(self, header: str | None, operator: str | None) -> dict[str, object]:
        """`POST /admin/session`: with the token itself (not a session), a new session for
        `operator` (1..32 letters, digits or ._@-)."""
        name = self.who(header, operator)
        secret = (header or "").partition(" ")[2].strip()
        if not hmac.compare_digest(secret.encode("utf-8", "replace"), self._token or b""):
            raise AdminError("bad_credential", "a session is opened with the token itself")
        now = self._clock()
        self._sessions = {s: v for s, v in self._sessions.items() if v[1] > now}
        while len(self._sessions) >= MAX_SESSIONS:
            del self._sessions[next(iter(self._sessions))]
        sid = secrets.token_urlsafe(32)
        expires = now + self.session_ttl
        self._sessions[sid] = (name, expires)
        return {"session": sid, "operator": name, "expires": expires}
