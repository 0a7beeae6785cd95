"""The operator credential: a token given at start-up, and sessions opened with it.

Rule of this module: there is no default credential. Without `Config.operator_token` the
admin API is off (every call: `admin_disabled`); with one, a call carries
`Authorization: Bearer <credential>`, the token itself or a session from
`POST /admin/session` (valid `Config.operator_session_ttl` seconds). Missing:
`credential_required`; anything else that does not match (compared in constant time):
`bad_credential`; a session past its time: `credential_expired`, every time it is shown
until it is forgotten (a session ttl after it expired, or as the oldest of `MAX_SESSIONS`).
Who acts is the session's operator name, or with the token the `X-Operator` header (default
`operator`).

Guessing is bounded per client address (:class:`OperatorGuard`): failed credentials within
`Config.operator_fail_window` are counted, and at `Config.operator_fail_limit` the address is
locked (every call refused `operator_locked` without looking at its credential) for
`Config.operator_lockout` seconds, doubled by each further failure up to
`Config.operator_lockout_max`.
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
from collections.abc import Callable

from server.operator.errors import AdminError
from server.ratelimit import Lockouts

__all__ = ["MAX_SESSIONS", "OperatorAuth", "OperatorGuard"]

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

    def check(self, header: str | None) -> None:
        """Raise :class:`AdminError` unless `header` carries a valid credential (the token
        or a live session; the operator's name is checked later, by `who`)."""
        self.who(header, "operator")

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
        _, (name, expires) = found
        if self._clock() >= expires:  # (kept: it says `credential_expired` every time)
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
        self._sessions = {s: v for s, v in self._sessions.items()
                          if v[1] + self.session_ttl > now}  # expired ones: a ttl more
        while len(self._sessions) >= MAX_SESSIONS:
            del self._sessions[next(iter(self._sessions))]
        sid = secrets.token_urlsafe(32)
        expires = now + self.session_ttl
        self._sessions[sid] = (name, expires)
        return {"session": sid, "operator": name, "expires": expires}


class OperatorGuard:
    """Failed operator credentials per client address, and the lockouts they earn (see the
    module docstring). Answers from memory; at most `tracked` addresses, the oldest
    forgotten first."""

    def __init__(self, *, limit: int, window: float, lockout: float, lockout_max: float,
                 tracked: int = 4096, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        # the same failure counts and doubling lockouts as the players' logins
        self._lockouts = Lockouts(limit=limit, window=window, lockout=lockout,
                                  lockout_max=lockout_max, tracked=tracked, clock=clock)

    def retry_after(self, address: str) -> float:
        """Seconds until `address` may present a credential again (0: now)."""
        return self._lockouts.retry_after(address)

    def failed(self, address: str) -> tuple[int, float]:
        """Count one failed credential from `address`: (its failures in the window, the
        lockout it starts now in seconds, 0 for none)."""
        lock = self._lockouts.failed(address)
        return self._lockouts.failures(address), lock
