"""The admin API's HTTP routes (JSON), on the operator listener only (docs/operator.md).

Rule of this module: a call is authenticated first (`OperatorAuth.who`), then its body and
query are checked against their types and the operator's bounds, then the action runs
(`OperatorService`); any refusal is an :class:`AdminError` answered with its status and
``{"error": {"code", "message"}}`` and nothing changed. Every answer is a JSON object. A body
nested deeper than `Config.operator_json_depth` is refused `bad_json` before it is parsed
(the listener has checked the credential before reading it: `server.net.operator_http`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from server.operator.auth import OperatorAuth
from server.operator.errors import AdminError
from server.operator.service import OperatorService

__all__ = ["AdminApi"]

log = logging.getLogger("server.operator")

_Call = Callable[[str, list[str], Mapping[str, str], dict[str, Any]],
                 Awaitable[dict[str, Any]]]
_ID = r"([A-Za-z0-9_.:-]{1,64})"


class AdminApi:
    """`handle(method, path, query, headers, body)` for `server.net.operator_http`."""

    def __init__(self, service: OperatorService, auth: OperatorAuth, *,
                 json_depth: int = 16) -> None:
        self.service = service
        self.auth = auth
        self.json_depth = json_depth
        s = service
        self._routes: list[tuple[str, re.Pattern[str], _Call]] = [
            ("GET", re.compile(r"/admin/tables"), lambda w, a, q, b: _now(s.tables())),
            ("POST", re.compile(rf"/admin/tables/{_ID}/close"),
             lambda w, a, q, b: s.close_table(w, a[0], b.get("reason"))),
            ("POST", re.compile(rf"/admin/tables/{_ID}/remove"),
             lambda w, a, q, b: s.remove_player(w, a[0], b.get("player"), b.get("reason"))),
            ("GET", re.compile(r"/admin/accounts"), lambda w, a, q, b: s.accounts()),
            ("GET", re.compile(rf"/admin/accounts/{_ID}"), lambda w, a, q, b: s.account(a[0])),
            ("POST", re.compile(rf"/admin/accounts/{_ID}/(freeze|unfreeze|mute|unmute)"),
             self._flag),
            ("POST", re.compile(rf"/admin/accounts/{_ID}/adjust"),
             lambda w, a, q, b: s.adjust(w, a[0], b.get("amount"), b.get("reason"))),
            ("POST", re.compile(r"/admin/drain"), lambda w, a, q, b: s.drain(w, b.get("reason"))),
            ("POST", re.compile(r"/admin/notice"),
             lambda w, a, q, b: s.notice(w, b.get("text"), b.get("table"), b.get("reason"))),
            ("GET", re.compile(rf"/admin/hands/{_ID}"), lambda w, a, q, b: s.hand(a[0])),
            ("GET", re.compile(r"/admin/jackpot"),
             lambda w, a, q, b: s.jackpot(_int(q, "start", 0, 0, 2**53),
                                          _int(q, "count", 100, 0, 1000))),
            ("GET", re.compile(r"/admin/metrics"), lambda w, a, q, b: _now(s.counters())),
            ("GET", re.compile(r"/admin/house"), lambda w, a, q, b: s.house()),
            ("GET", re.compile(r"/admin/tournaments"), lambda w, a, q, b: _now(s.tournaments())),
            ("POST", re.compile(r"/admin/tournaments"),
             lambda w, a, q, b: s.create_tournament(w, dict(b))),
            ("POST", re.compile(rf"/admin/tournaments/{_ID}/cancel"),
             lambda w, a, q, b: s.cancel_tournament(w, a[0], b.get("reason"))),
            ("GET", re.compile(rf"/admin/tournaments/{_ID}/log"),
             lambda w, a, q, b: s.tournament_log(a[0])),
            ("GET", re.compile(r"/admin/audit"), self._audit),
            ("GET", re.compile(r"/admin/collusion"),
             lambda w, a, q, b: s.collusion(q.get("a"), q.get("b"))),
        ]

    async def handle(self, method: str, path: str, query: Mapping[str, str],
                     headers: Mapping[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
        try:
            return 200, await self._handle(method, path, query, headers, body)
        except AdminError as exc:
            return exc.status, exc.body()

    async def _handle(self, method: str, path: str, query: Mapping[str, str],
                      headers: Mapping[str, str], body: bytes) -> dict[str, Any]:
        authorization, operator = headers.get("authorization"), headers.get("x-operator")
        if path == "/admin/session":
            if method != "POST":
                raise AdminError("method_not_allowed")
            return self.auth.open_session(authorization,
                                          _body(body, self.json_depth).get("operator", operator))
        who = self.auth.who(authorization, operator)
        allowed = False
        for verb, pattern, call in self._routes:
            match = pattern.fullmatch(path)
            if match is None:
                continue
            if verb != method:
                allowed = True
                continue
            data = _body(body, self.json_depth) if method == "POST" else {}
            answer = await call(who, list(match.groups()), query, data)
            if method == "POST":
                log.info("event=operator_action who=%s path=%s", who, path)
            return answer
        raise AdminError("method_not_allowed" if allowed else "unknown_endpoint")

    async def _flag(self, who: str, args: list[str], query: Mapping[str, str],
                    body: dict[str, Any]) -> dict[str, Any]:
        flag, on = {"freeze": ("frozen", True), "unfreeze": ("frozen", False),
                    "mute": ("muted", True), "unmute": ("muted", False)}[args[1]]
        return await self.service.set_flag(who, args[0], flag, on, body.get("reason"),
                                           body.get("end_sessions", False))

    async def _audit(self, who: str, args: list[str], query: Mapping[str, str],
                     body: dict[str, Any]) -> dict[str, Any]:
        return await self.service.audit.page(_int(query, "since", 0, 0, 2**53),
                                             _int(query, "limit", 100, 1, 1000))


async def _now(value: dict[str, Any]) -> dict[str, Any]:
    return value


def _body(body: bytes, depth: int) -> dict[str, Any]:
    """A POST body: a JSON object (empty body: {}) nested at most `depth` deep, else
    `bad_json`."""
    if not body.strip():
        return {}
    if _depth(body) > depth:
        raise AdminError("bad_json", f"the body is nested deeper than {depth}")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise AdminError("bad_json") from None
    if not isinstance(data, dict):
        raise AdminError("bad_json")
    return data


def _depth(body: bytes) -> int:
    """The deepest nesting of arrays and objects in a JSON text (strings skipped), without
    parsing it: one pass over the bytes."""
    deepest = level = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            level += 1
            deepest = max(deepest, level)
        elif byte in (0x5D, 0x7D):  # ] }
            level -= 1
    return deepest


def _int(query: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    text = query.get(name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        raise AdminError("bad_field", f"{name} must be an integer") from None
    if not low <= value <= high:
        raise AdminError("bad_field", f"{name} must be {low}..{high}")
    return value
