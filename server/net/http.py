"""Plain HTTP on the server's port: health, readiness and the static browser client.

Rule of this module: it answers every request that is not the WebSocket upgrade at `/ws`, and
it never serves a file outside `Config.static_dir` (paths are percent-decoded, `..` segments are
refused and the resolved file must lie inside the static root).

Use `HttpEndpoints.process_request` as the `process_request` hook of
`websockets.asyncio.server.serve`: it returns a `Response` for plain HTTP, or None to let the
WebSocket handshake go on (only for `/ws`). Set `ready` to True once the server can serve
players, and back to False when it starts shutting down.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

log = logging.getLogger("server.net.http")

WS_PATH = "/ws"
"""The only path that upgrades to a WebSocket (PROTOCOL.md, Transport)."""

CONTENT_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".ico": "image/x-icon",
}
"""Suffixes served from the static directory; any other file is 404."""

METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""Prometheus text exposition format 0.0.4."""


def make_response(
    status: HTTPStatus,
    body: bytes,
    content_type: str = "text/plain; charset=utf-8",
    *,
    extra_headers: list[tuple[str, str]] | None = None,
) -> Response:
    """Build a complete HTTP response; websockets sends it and closes the connection."""
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Connection", "close"),
            ("X-Content-Type-Options", "nosniff"),
            ("Cache-Control", "no-cache"),
        ]
    )
    for name, value in extra_headers or []:
        headers[name] = value
    return Response(status.value, status.phrase, headers, body)


def text_response(status: HTTPStatus, text: str) -> Response:
    """A plain-text response, e.g. `text_response(HTTPStatus.OK, "ok\\n")`."""
    return make_response(status, text.encode("utf-8"))


def resolve_static(root: Path, request_path: str) -> Path | None:
    """Map a request target to a file inside `root`, or None when it must be a 404.

    `request_path` is the raw target (it may carry a query string and percent escapes).
    `/` and any path ending in `/` mean that directory's `index.html`. Refused: `..` or `.`
    segments (before or after decoding), backslashes, NUL bytes, hidden files, unknown
    suffixes, and anything whose resolved location (symlinks followed) leaves `root`.
    """
    raw = urlsplit(request_path).path
    if not raw.startswith("/"):
        return None
    decoded = unquote(raw, errors="strict") if "%" in raw else raw
    if "\x00" in decoded or "\\" in decoded:
        return None
    if decoded.endswith("/"):
        decoded += "index.html"
    parts = [part for part in decoded.split("/") if part]
    for part in parts:
        if part in (".", "..") or part.startswith("."):
            return None
    if not parts:
        return None
    try:
        root_resolved = root.resolve(strict=True)
        candidate = root_resolved.joinpath(*parts).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return None
    if not candidate.is_relative_to(root_resolved) or not candidate.is_file():
        return None
    if candidate.suffix.lower() not in CONTENT_TYPES:
        return None
    return candidate


class HttpEndpoints:
    """Answers plain HTTP requests; hands `/ws` on to the WebSocket handshake.

    Routes: `GET /healthz` (200 "ok" while the process runs), `GET /readyz` (200 when `ready`,
    else 503), `GET /metrics` (the Prometheus text exposition from `metrics()`, 404 when no
    `metrics` callable was given), `GET /jackpot/history?start=N&count=M` (the jackpot pool's
    history as JSON, from `jackpot_history`; count at most 1000), `GET /` and static files from
    `static_dir`, 404 for anything else.
    """

    def __init__(self, *, static_dir: Path, metrics: Callable[[], str] | None = None) -> None:
        self.static_dir = static_dir
        self.metrics = metrics
        self.ready = False
        self.jackpot_history: Callable[[int, int], Awaitable[Any]] | None = None

    def process_request(self, connection: ServerConnection, request: Request
                        ) -> Response | Awaitable[Response] | None:
        """The `process_request` hook: a Response for plain HTTP, None to upgrade `/ws`."""
        path = urlsplit(request.path).path
        if path == WS_PATH:
            return None
        if path == "/jackpot/history" and self.jackpot_history is not None:
            return self._jackpot_history(request.path)
        response = self.route(request.path)
        log.info(
            "event=http path=%s status=%d remote=%s",
            _quote_for_log(request.path),
            response.status_code,
            _remote(connection),
        )
        return response

    async def _jackpot_history(self, request_path: str) -> Response:
        """`GET /jackpot/history?start=N&count=M`: JSON `{"state": {...}, "entries": [...]}`
        (every contribution, payout, shortfall and reseed with hand ids; oldest first)."""
        assert self.jackpot_history is not None
        query = parse_qs(urlsplit(request_path).query)
        try:
            start = max(0, int(query.get("start", ["0"])[0]))
            count = min(1000, max(0, int(query.get("count", ["100"])[0])))
        except ValueError:
            return text_response(HTTPStatus.BAD_REQUEST, "start and count are integers\n")
        try:
            body = await self.jackpot_history(start, count)
        except Exception:
            log.exception("event=jackpot_history_failed")
            return text_response(HTTPStatus.SERVICE_UNAVAILABLE, "jackpot unavailable\n")
        return make_response(HTTPStatus.OK, json.dumps(body).encode("utf-8"),
                             "application/json")

    def route(self, request_path: str) -> Response:
        """Answer one plain HTTP GET for `request_path` (raw target, query allowed)."""
        path = urlsplit(request_path).path
        if path == "/healthz":
            return text_response(HTTPStatus.OK, "ok\n")
        if path == "/readyz":
            if self.ready:
                return text_response(HTTPStatus.OK, "ready\n")
            return text_response(HTTPStatus.SERVICE_UNAVAILABLE, "not ready\n")
        if path == "/metrics" and self.metrics is not None:
            return make_response(HTTPStatus.OK, self.metrics().encode("utf-8"),
                                 METRICS_CONTENT_TYPE)
        try:
            target = resolve_static(self.static_dir, request_path)
        except UnicodeDecodeError:
            target = None
        if target is None:
            return text_response(HTTPStatus.NOT_FOUND, "not found\n")
        try:
            body = target.read_bytes()
        except OSError:
            return text_response(HTTPStatus.NOT_FOUND, "not found\n")
        return make_response(HTTPStatus.OK, body, CONTENT_TYPES[target.suffix.lower()])


def _remote(connection: ServerConnection) -> str:
    try:
        address = connection.remote_address
    except Exception:  # the transport may already be gone
        return "-"
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{address[0]}:{address[1]}"
    return str(address)


def _quote_for_log(text: str) -> str:
    """Keep a log line one line with no spaces: escape control characters and spaces."""
    return "".join(ch if ch.isprintable() and ch != " " else f"\\x{ord(ch):02x}" for ch in text)
