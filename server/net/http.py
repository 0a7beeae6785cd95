"""Plain HTTP on the server's port: health, readiness and the static browser client (the
operator listener, its metrics, jackpot history, admin API and page, is
`server.net.operator_http`).

Rule of this module: it answers every request that is not the WebSocket upgrade at `/ws`, and
it never serves a file outside `Config.static_dir` (paths are percent-decoded, `..` segments are
refused and the resolved file must lie inside the static root).

The browser edge: every public response carries `BROWSER_HEADERS` and a Content-Security-Policy
(`content_security_policy`: scripts, styles and connections only from the server's own origin,
no framing); the WebSocket upgrade is refused with 403 when its `Origin` header is neither
the server's own origin (the `Host` header's) nor in `Config.allowed_origins` (no Origin
header: allowed, only browsers send one). `/metrics`, `/jackpot/history`, `/admin/...` and the
operator page (`/operator/...`, files of `client_web/operator/`) are 404 here: they are the
operator listener's, behind the operator credential (`Config.operator_token`). A request
with another method than GET or HEAD is answered before websockets parses it
(`method_refusal`, called by `server.net.fastpath.EdgeConnection`: websockets refuses a
request with a body by closing the connection): 404 for an operator path, else 405.

Behind a trusted reverse proxy (`Config.trusted_proxies`), the address logged is the
forwarded client's (`server.net.forwarded`).

The address players open (`Config.public_address`, or the LAN address of a page opened on
the loopback: `server.net.addresses.page_address`) is written into the page, in the
`<meta name="poker-public-address" content="">` of index.html (`PAGE_ADDRESS_META`), for
its invite and watch links; with none, the file is served as it is. A WebSocket whose Origin
is the public address is the server's own (a page loaded through the proxy).

Use `HttpEndpoints.process_request` as the `process_request` hook of
`websockets.asyncio.server.serve`: it returns a `Response` for plain HTTP, or None to let the
WebSocket handshake go on (only for `/ws`). Set `ready` to True once the server can serve
players, and back to False when it starts shutting down.
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.net.addresses import page_address
from server.net.admission import LogBudget, Summary
from server.net.forwarded import FORWARDED_FOR, trusted

log = logging.getLogger("server.net.http")

WS_PATH = "/ws"
"""The only path that upgrades to a WebSocket (docs/protocol.md, Transport)."""

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

OPERATOR_PATHS = frozenset({"/metrics", "/jackpot/history"})
"""Served only by the operator listener (404 on the public one), as is every path under
`OPERATOR_PREFIXES`."""

OPERATOR_PREFIXES = ("/admin/", "/operator/")

BROWSER_HEADERS: tuple[tuple[str, str], ...] = (
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)
"""Headers of every public response besides the CSP (`X-Content-Type-Options: nosniff` is in
every response already)."""

PAGE_ADDRESS_META = b'<meta name="poker-public-address" content="">'
"""The placeholder in an HTML page that receives the address players open (escaped)."""

_HOST = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def content_security_policy(host: str | None, room: tuple[str, ...] = ()) -> str:
    """The public pages' CSP: everything from the page's own origin only, the client's own
    WebSocket (`ws://HOST`/`wss://HOST`, spelled out for browsers whose `'self'` does not
    cover ws:), no plugins, no framing (`frame-ancestors 'none'`). Inline `<script>` and
    `<style>` elements are refused; style *attributes* are allowed (`style-src-attr`: the
    client positions seats with them; they cannot run script, and `img-src` keeps them from
    loading anything from elsewhere). ``room``: the host:port of every process of a cluster
    (their public URLs), which the client may be sent to."""
    connect = "'self'"
    for h in (host, *room):  # in a cluster, the room's processes too (`moved` goes there)
        if h is not None and _HOST.match(h):
            connect += f" ws://{h} wss://{h}"
    return ("default-src 'self'; script-src 'self'; style-src 'self'; "
            "style-src-attr 'unsafe-inline'; img-src 'self' data:; "
            f"connect-src {connect}; object-src 'none'; base-uri 'none'; "
            "form-action 'self'; frame-ancestors 'none'")


def _host_port(netloc: str, scheme: str) -> tuple[str, int] | None:
    """(host lowercased, port with the scheme's default) of `host[:port]`, None if bad."""
    if not _HOST.match(netloc):
        return None
    if netloc.startswith("["):
        host, _, rest = netloc[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port_text = netloc.partition(":")
    try:
        port = int(port_text) if port_text else _DEFAULT_PORTS.get(scheme, 80)
    except ValueError:
        return None
    return host.lower(), port


def origin_allowed(origin: str, host: str | None, allowed: tuple[str, ...]) -> bool:
    """May a handshake with this `Origin` header go on? With an allowlist: an exact entry
    (case-insensitive, a default port may be left out). Without one: the same host and
    port as the request's `Host` header (the server's own origin)."""
    scheme, sep, netloc = origin.strip().partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in ("http", "https"):
        return False  # `null` (sandboxed frames, file:) and anything odd
    mine = _host_port(netloc, scheme)
    if mine is None:
        return False
    if allowed:
        for entry in allowed:
            e_scheme, _, e_netloc = entry.partition("://")
            e_scheme = e_scheme.lower()
            if e_scheme == scheme and _host_port(e_netloc, e_scheme) == mine:
                return True
        return False
    if host is None:
        return False
    return _host_port(host.strip(), scheme) == mine


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
    else 503), `GET /` and static files from `static_dir`, 404 for anything else (`/metrics`,
    `/jackpot/history`, `/admin/...` and `/operator/...` included: the operator listener's
    `operator_http.OperatorEndpoints` serves them, from `metrics()` and `jackpot_history`,
    count at most 1000). `/ws` goes on to the handshake when its Origin is
    allowed (`origin_allowed`), else 403.
    """

    def __init__(self, *, static_dir: Path, metrics: Callable[[], str] | None = None,
                 allowed_origins: tuple[str, ...] = (), log_lines: int = 200,
                 log_interval: float = 10.0, trusted_proxies: tuple[str, ...] = ()) -> None:
        self.static_dir = static_dir
        self.proxies = trusted(trusted_proxies)
        self._operator_dir = (static_dir / "operator").resolve()  # the operator listener's
        self.metrics = metrics  # (served by `OperatorEndpoints`, not here)
        self.ready = False
        self.jackpot_history: Callable[[int, int], Awaitable[Any]] | None = None
        self.allowed_origins = allowed_origins
        self.on_origin_refused: Callable[[], None] = lambda: None
        self.room: Callable[[], tuple[str, ...]] = tuple
        """In a cluster: the host:port of every live process's public URL (the directory's
        copy). A page served by one may connect to any (CSP), and a handshake whose Origin
        is one of them is the room's own."""
        self.public_address: str | None = None
        """`Config.public_address`: written into the page; its origin may open `/ws`."""
        self.lan_url: str | None = None
        """Bound to every interface: `http://LAN:PORT/`, set once bound (`server.main`)."""
        self._log = LogBudget(log_lines, log_interval)
        self._origin_refusals = Summary("origin_refused", log_interval)

    def process_request(self, connection: ServerConnection, request: Request
                        ) -> Response | Awaitable[Response] | None:
        """The `process_request` hook: a Response for plain HTTP, None to upgrade `/ws`
        (403 instead when its Origin is not allowed)."""
        path = urlsplit(request.path).path
        host = _one_header(request.headers, "Host")
        if path == WS_PATH:
            try:
                origin = request.headers.get("Origin")
            except Exception:  # several Origin headers
                origin = "several"
            if origin is None or origin_allowed(origin, host, self.allowed_origins):
                return None
            public = self.public_address
            if public is not None and origin_allowed(origin, None, (public.rstrip("/"),)):
                return None  # a page loaded from the public address (e.g. a TLS proxy)
            room = self.room()
            if room and any(origin_allowed(origin, h, ()) for h in room):
                return None  # a page served by another process of the room
            self.on_origin_refused()
            self._origin_refusals.add()
            return self._secured(text_response(HTTPStatus.FORBIDDEN,
                                               "origin not allowed\n"), host)
        response = self._secured(self.route(request.path, host=host), host)
        if self._log.allow():
            log.info(
                "event=http path=%s status=%d remote=%s suppressed=%d",
                _quote_for_log(request.path),
                response.status_code,
                _remote(connection, self.proxies.client_ip if self.proxies else None,
                        request.headers.get_all(FORWARDED_FOR)),
                self._log.suppressed(),
            )
        return response

    def _secured(self, response: Response, host: str | None) -> Response:
        """`response` with the browser edge's headers (CSP, referrer, framing)."""
        response.headers["Content-Security-Policy"] = content_security_policy(host, self.room())
        for name, value in BROWSER_HEADERS:
            response.headers[name] = value
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

    def route(self, request_path: str, *, host: str | None = None) -> Response:
        """Answer one plain HTTP GET for `request_path` (raw target, query allowed); `host`:
        its `Host` header, for the address written into a page (`page_address`)."""
        path = urlsplit(request_path).path
        if path == "/healthz":
            return text_response(HTTPStatus.OK, "ok\n")
        if path == "/readyz":
            if self.ready:
                return text_response(HTTPStatus.OK, "ready\n")
            return text_response(HTTPStatus.SERVICE_UNAVAILABLE, "not ready\n")
        if (path in OPERATOR_PATHS or path in ("/admin", "/operator")
                or path.startswith(OPERATOR_PREFIXES)):  # the operator listener's
            return text_response(HTTPStatus.NOT_FOUND, "not found\n")
        try:
            target = resolve_static(self.static_dir, request_path)
        except UnicodeDecodeError:
            target = None
        if target is None or target.is_relative_to(self._operator_dir):
            return text_response(HTTPStatus.NOT_FOUND, "not found\n")  # (operator page too)
        try:
            body = target.read_bytes()
        except OSError:
            return text_response(HTTPStatus.NOT_FOUND, "not found\n")
        if target.suffix.lower() == ".html" and PAGE_ADDRESS_META in body:
            body = self._with_address(body, host)
        return make_response(HTTPStatus.OK, body, CONTENT_TYPES[target.suffix.lower()])

    def _with_address(self, body: bytes, host: str | None) -> bytes:
        """The page with the address players open in its placeholder (unchanged without)."""
        address = page_address(public_address=self.public_address, request_host=host,
                               lan_url=self.lan_url)
        if address is None:
            return body
        filled = PAGE_ADDRESS_META.replace(
            b'content=""', f'content="{html.escape(address, quote=True)}"'.encode())
        return body.replace(PAGE_ADDRESS_META, filled, 1)


def _one_header(headers: Headers, name: str) -> str | None:
    try:
        return headers.get(name)
    except Exception:  # several of them
        return None


def _remote(connection: ServerConnection,
            client_ip: Callable[[str | None, list[str]], str | None] | None = None,
            forwarded: list[str] | None = None) -> str:
    """`host:port` of the peer; behind a trusted proxy (`client_ip`), the forwarded client's
    address when it is not the proxy itself (`client>proxy:port`)."""
    try:
        address = connection.remote_address
    except Exception:  # the transport may already be gone
        return "-"
    if isinstance(address, tuple) and len(address) >= 2:
        text = f"{address[0]}:{address[1]}"
        if client_ip is not None:
            client = client_ip(str(address[0]), forwarded or [])
            if client != str(address[0]):
                return _quote_for_log(f"{client}>{text}")
        return text
    return str(address)


def method_refusal(request_line: bytes) -> bytes:
    """The whole response to a request whose method is not GET or HEAD (`request_line`: its
    first line, as received): 404 for an operator path (as for a GET), else 405 with
    `Allow: GET, HEAD`; with the public headers, closing the connection."""
    parts = request_line.split(b" ")
    path = urlsplit(parts[1].decode("latin-1")).path if len(parts) >= 2 else ""
    if (path in OPERATOR_PATHS or path in ("/admin", "/operator")
            or path.startswith(OPERATOR_PREFIXES)):
        response = text_response(HTTPStatus.NOT_FOUND, "not found\n")
    else:
        response = text_response(HTTPStatus.METHOD_NOT_ALLOWED, "method not allowed\n")
        response.headers["Allow"] = "GET, HEAD"
    response.headers["Content-Security-Policy"] = content_security_policy(None)
    for name, value in BROWSER_HEADERS:
        response.headers[name] = value
    head = f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n"
    return head.encode() + response.headers.serialize() + response.body


def _quote_for_log(text: str) -> str:
    """Keep a log line one line with no spaces: escape control characters and spaces."""
    return "".join(ch if ch.isprintable() and ch != " " else f"\\x{ord(ch):02x}" for ch in text)
