"""The operator listener: a small HTTP/1.1 server of its own, loopback by default.

Rule of this module: it serves the operator's paths only, and nothing of them is on the public
listener (`server.net.http` answers them 404 there):

- `GET /healthz`, `GET /readyz`: for probes, no credential;
- `GET /metrics`, `GET /jackpot/history`: behind the operator credential when one is
  configured (`Config.operator_token`: `Authorization: Bearer <token or session>`, 401
  otherwise, as before the admin API);
- `/admin/...` (GET and POST, JSON bodies): the admin API, handed whole to `admin`
  (`server.operator.api.AdminApi.handle`), which checks the credential itself;
- `GET /operator/...`: the operator page, static files from `Config.static_dir / "operator"`
  (`/operator` redirects to `/operator/`), with a strict Content-Security-Policy;
- anything else: 404.

Before anything is read past the headers or any route runs (`OperatorEndpoints.check`):

- the `Host` header must name this listener (`host_allowed`: an IP literal, `localhost`,
  `Config.operator_host` or one of `Config.operator_host_names`), else 421: a DNS-rebinding
  page (a hostile name resolving to the listener's address) reads nothing;
- on a credential path (`/metrics` and `/jackpot/history` when a token is configured, every
  `/admin/...`) the credential is checked before the body is read: a locked client address
  is refused `operator_locked` (429, `Retry-After`) without a look at its credential; a bad
  one (`bad_credential`) is counted against its address (`server.operator.auth.
  OperatorGuard`: `Config.operator_fail_limit` per `operator_fail_window`, then a lockout),
  counted in `/metrics`, answered after `Config.operator_fail_delay` seconds, and a lockout
  it starts is an audit record (`on_lockout`). The client address is the TCP peer, or
  behind a trusted proxy the forwarded one (`server.net.forwarded`).

websockets' own HTTP handling (the public listener's) takes only bodiless GET requests, so
this listener parses requests itself (`read_request`): one request per connection
(`Connection: close`), a request line and headers of bounded size, a body only with
`Content-Length` up to `max_body` bytes (413 beyond, 501 for `Transfer-Encoding`), the whole
request within `timeout` seconds (then the socket is closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlsplit

from server.net.forwarded import parse_ip, trusted
from server.net.http import CONTENT_TYPES, METRICS_CONTENT_TYPE, HttpEndpoints, resolve_static
from server.net.loginguard import address_key
from server.operator.auth import OperatorAuth, OperatorGuard
from server.operator.errors import AdminError

__all__ = ["HttpReply", "HttpRequest", "OperatorEndpoints", "OperatorServer", "host_allowed",
           "read_request"]

log = logging.getLogger("server.net.operator_http")

MAX_LINE = 8192
"""Bytes of the request line and of each header line."""
MAX_HEADERS = 64
"""Header lines of one request."""

PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
            "frame-ancestors 'none'")
"""The operator page's Content-Security-Policy: everything from this listener only."""

AdminHandler = Callable[[str, str, Mapping[str, str], Mapping[str, str], bytes],
                        Awaitable[tuple[int, dict[str, Any]]]]
"""`(method, path, query, headers, body) -> (HTTP status, JSON body)`; headers lower-cased
(a repeated header is given as "")."""


class HttpError(Exception):
    """A request this server refuses before any handler (its status and text)."""

    def __init__(self, status: HTTPStatus, text: str) -> None:
        super().__init__(text)
        self.status = status


@dataclass(slots=True)
class HttpRequest:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes = b""
    peer: str | None = None
    """The TCP peer's address (set by `OperatorServer`)."""
    length: int = 0
    """The body's announced length (`Content-Length`), read after `check`."""

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> dict[str, str]:
        """The query string's first value of each name."""
        return {k: v[0] for k, v in parse_qs(urlsplit(self.target).query).items()}


@dataclass(slots=True)
class HttpReply:
    status: int
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def text(cls, status: HTTPStatus, text: str) -> HttpReply:
        return cls(status.value, text.encode("utf-8"))

    @classmethod
    def json(cls, status: int, body: dict[str, Any]) -> HttpReply:
        return cls(status, json.dumps(body).encode("utf-8"), "application/json")

    def encode(self) -> bytes:
        try:
            phrase = HTTPStatus(self.status).phrase
        except ValueError:
            phrase = "Unknown"
        lines = [f"HTTP/1.1 {self.status} {phrase}", f"Content-Type: {self.content_type}",
                 f"Content-Length: {len(self.body)}", "Connection: close",
                 "X-Content-Type-Options: nosniff", "Cache-Control: no-store",
                 "Referrer-Policy: no-referrer", "X-Frame-Options: DENY"]
        lines += [f"{name}: {value}" for name, value in self.headers]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + self.body


async def read_request(reader: asyncio.StreamReader, max_body: int) -> HttpRequest:
    """One request from `reader` (see the module docstring); raises `HttpError`, or
    `asyncio.IncompleteReadError` / `EOFError` when the client went away."""
    request = await read_head(reader, max_body)
    await read_body(reader, request)
    return request


async def read_body(reader: asyncio.StreamReader, request: HttpRequest) -> None:
    """Read the body `read_head` announced into `request.body`."""
    if request.length:
        request.body = await reader.readexactly(request.length)


async def read_head(reader: asyncio.StreamReader, max_body: int) -> HttpRequest:
    """A request's line and headers (its body is `read_body`'s): the same refusals as
    `read_request`, the body's length checked but nothing of it read."""
    line = await _line(reader)
    if not line:
        raise EOFError
    try:
        method, target, version = line.decode("ascii").split(" ")
    except (UnicodeDecodeError, ValueError):
        raise HttpError(HTTPStatus.BAD_REQUEST, "bad request line\n") from None
    if version not in ("HTTP/1.1", "HTTP/1.0") or not target.startswith("/"):
        raise HttpError(HTTPStatus.BAD_REQUEST, "bad request line\n")
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADERS + 1):
        raw = await _line(reader)
        if not raw:
            break
        name, sep, value = raw.decode("latin-1").partition(":")
        if not sep:
            raise HttpError(HTTPStatus.BAD_REQUEST, "bad header\n")
        key = name.strip().lower()
        headers[key] = "" if key in headers else value.strip()  # repeated: ""
    else:
        raise HttpError(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "too many headers\n")
    if "transfer-encoding" in headers:
        raise HttpError(HTTPStatus.NOT_IMPLEMENTED, "transfer codings are not supported\n")
    length_text = headers.get("content-length", "0") or "x"
    if not length_text.isdigit():
        raise HttpError(HTTPStatus.BAD_REQUEST, "bad content-length\n")
    length = int(length_text)
    if length > max_body:
        raise HttpError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "body too large\n")
    return HttpRequest(method.upper(), target, headers, length=length)


_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})


def host_allowed(host: str | None, names: frozenset[str]) -> bool:
    """Does a `Host` header name this listener? Its host part (port and a trailing dot
    dropped, any case) must be an IP literal, a loopback name or one of `names` (lower
    case). DNS rebinding needs a name of the attacker's: an address is always safe."""
    if not host:
        return False
    text = host.strip().lower()
    if text.startswith("["):
        name, sep, rest = text[1:].partition("]")
        if not sep or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return False
        return parse_ip(name) is not None
    name, _, port = text.partition(":")
    if port and not port.isdigit():
        return False
    name = name.rstrip(".")
    return parse_ip(name) is not None or name in _LOOPBACK_NAMES or name in names


async def _line(reader: asyncio.StreamReader) -> bytes:
    """One CRLF-terminated line without its ending (b"" for an empty line or at EOF)."""
    try:
        raw = await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError:
        raise HttpError(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "line too long\n") from None
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise HttpError(HTTPStatus.BAD_REQUEST, "incomplete request\n") from None
        return b""
    return raw.rstrip(b"\r\n")


class OperatorEndpoints:
    """The operator listener's routes (see the module docstring). `authorized(header)`: does
    this `Authorization` header value (None: absent) carry the operator credential (always
    True when no token is configured)? `admin`: the admin API's handler, or None (404)."""

    def __init__(self, public: HttpEndpoints, *,
                 authorized: Callable[[str | None], bool] = lambda header: True,
                 admin: AdminHandler | None = None, auth: OperatorAuth | None = None,
                 guard: OperatorGuard | None = None, host_names: tuple[str, ...] = (),
                 trusted_proxies: tuple[str, ...] = (), fail_delay: float = 0.0) -> None:
        self.public = public
        self.authorized = authorized if auth is None else auth.allows
        self.admin = admin
        self.auth = auth
        self.guard = guard
        self.host_names = frozenset(h.lower().rstrip(".") for h in host_names)
        self.proxies = trusted(trusted_proxies)
        self.fail_delay = fail_delay
        self.page_dir = public.static_dir / "operator"
        self.on_lockout: Callable[[str, int, float], Awaitable[Any]] | None = None
        """Called when a client address is locked (address, failures, seconds): the audit
        record (`server.main`)."""
        self.auth_failures_total = 0
        self.lockouts_total = 0
        self.locked_refusals_total = 0
        self.host_refusals_total = 0

    def metrics_lines(self) -> str:
        """This listener's counters in the Prometheus text format (appended to
        `/metrics`)."""
        rows = (("poker_operator_auth_failures_total", "Operator credentials refused as bad.",
                 self.auth_failures_total),
                ("poker_operator_lockouts_total",
                 "Client addresses locked for failed operator credentials.",
                 self.lockouts_total),
                ("poker_operator_locked_refusals_total",
                 "Operator calls refused from a locked address.", self.locked_refusals_total),
                ("poker_operator_host_refused_total",
                 "Operator requests refused (421) for their Host header.",
                 self.host_refusals_total))
        return "".join(f"# HELP {name} {text}\n# TYPE {name} counter\n{name} {value}\n"
                       for name, text, value in rows)

    def client(self, request: HttpRequest) -> str:
        """The client's address: the TCP peer, or the forwarded one behind a trusted
        proxy; `-` when unknown."""
        forwarded = request.headers.get("x-forwarded-for")
        address = self.proxies.client_ip(request.peer, [forwarded] if forwarded else [])
        return address_key(address)

    async def check(self, request: HttpRequest) -> HttpReply | None:
        """What is decided from the request's head alone, before its body is read (see the
        module docstring): a refusal, or None to go on."""
        path = request.path
        admin = path.startswith("/admin/")
        if not host_allowed(request.headers.get("host"), self.host_names):
            self.host_refusals_total += 1
            return _refusal(admin, HTTPStatus.MISDIRECTED_REQUEST, "host_not_allowed",
                            "host not allowed\n")
        if self.auth is None or not self.auth.enabled or not (
                admin or path in ("/metrics", "/jackpot/history")):
            return None  # (without a token the admin API answers `admin_disabled` itself)
        address = self.client(request)
        if self.guard is not None:
            wait = self.guard.retry_after(address)
            if wait > 0:
                self.locked_refusals_total += 1
                reply = _refusal(admin, HTTPStatus.TOO_MANY_REQUESTS, "operator_locked",
                                 "too many failed credentials from your address\n")
                reply.headers.append(("Retry-After", str(max(1, math.ceil(wait)))))
                return reply
        try:
            self.auth.check(request.headers.get("authorization"))
        except AdminError as exc:
            if exc.code == "bad_credential":
                await self._failed(address)
            if admin:
                return HttpReply.json(exc.status, exc.body())
            reply = HttpReply.text(HTTPStatus.UNAUTHORIZED, "operator token required\n")
            reply.headers.append(("WWW-Authenticate", 'Bearer realm="poker-operator"'))
            return reply
        return None

    async def _failed(self, address: str) -> None:
        """One bad credential from `address`: counted (now, before any wait), the lockout it
        starts audited, and the answer slowed."""
        self.auth_failures_total += 1
        failures, lock = (0, 0.0) if self.guard is None else self.guard.failed(address)
        if lock > 0:
            self.lockouts_total += 1
            log.warning("event=operator_locked address=%s failures=%d seconds=%.0f",
                        address, failures, lock)
            if self.on_lockout is not None:
                try:
                    await self.on_lockout(address, failures, lock)
                except Exception:
                    log.exception("event=operator_lockout_audit_failed")
        if self.fail_delay > 0:
            await asyncio.sleep(self.fail_delay)

    async def handle(self, request: HttpRequest) -> HttpReply:
        path = request.path
        if path.startswith("/admin/") and self.admin is not None:
            status, body = await self.admin(request.method, path, request.query,
                                            request.headers, request.body)
            return HttpReply.json(status, body)
        if request.method not in ("GET", "HEAD"):
            return HttpReply.text(HTTPStatus.METHOD_NOT_ALLOWED, "method not allowed\n")
        if path in ("/metrics", "/jackpot/history"):
            return await self._protected(request)
        if path in ("/healthz", "/readyz"):
            response = self.public.route(path)
            return HttpReply(response.status_code, bytes(response.body))
        if path == "/operator":
            return HttpReply(HTTPStatus.FOUND.value, b"", headers=[("Location", "/operator/")])
        if path.startswith("/operator/"):
            return self._page(request.target[len("/operator"):])
        return HttpReply.text(HTTPStatus.NOT_FOUND, "not found\n")

    async def _protected(self, request: HttpRequest) -> HttpReply:
        """`/metrics` and `/jackpot/history`, behind the credential."""
        if not self.authorized(request.headers.get("authorization")):
            reply = HttpReply.text(HTTPStatus.UNAUTHORIZED, "operator token required\n")
            reply.headers.append(("WWW-Authenticate", 'Bearer realm="poker-operator"'))
            return reply
        if request.path == "/metrics" and self.public.metrics is not None:
            text = self.public.metrics() + self.metrics_lines()
            return HttpReply(HTTPStatus.OK.value, text.encode("utf-8"), METRICS_CONTENT_TYPE)
        if request.path == "/jackpot/history" and self.public.jackpot_history is not None:
            response = await self.public._jackpot_history(request.target)
            return HttpReply(response.status_code, bytes(response.body),
                             response.headers.get("Content-Type", "text/plain"))
        return HttpReply.text(HTTPStatus.NOT_FOUND, "not found\n")

    def _page(self, rest: str) -> HttpReply:
        """A file of the operator page (`client_web/operator/`), never one outside it."""
        try:
            target = resolve_static(self.page_dir, rest)
        except UnicodeDecodeError:
            target = None
        if target is None:
            return HttpReply.text(HTTPStatus.NOT_FOUND, "not found\n")
        try:
            body = target.read_bytes()
        except OSError:
            return HttpReply.text(HTTPStatus.NOT_FOUND, "not found\n")
        return HttpReply(HTTPStatus.OK.value, body, CONTENT_TYPES[target.suffix.lower()],
                         headers=[("Content-Security-Policy", PAGE_CSP)])


def _refusal(admin: bool, status: HTTPStatus, code: str, text: str) -> HttpReply:
    """A refusal of `check`: the admin API's JSON error on `/admin/...`, else text."""
    if admin:
        error = AdminError(code)
        return HttpReply.json(error.status, error.body())
    return HttpReply.text(status, text)


class OperatorServer:
    """Serves `handler` on `host:port` (see the module docstring): `await start()` returns
    the bound port; `close()` then `await wait_closed()`. `check` (optional) sees each
    request's head before its body is read and may answer it instead of `handler`."""

    def __init__(self, handler: Callable[[HttpRequest], Awaitable[HttpReply]], *, host: str,
                 port: int, max_body: int, timeout: float = 10.0,
                 check: Callable[[HttpRequest], Awaitable[HttpReply | None]] | None = None
                 ) -> None:
        self.handler = handler
        self.check = check
        self.host, self.port = host, port
        self.max_body = max_body
        self.timeout = timeout
        self._server: asyncio.Server | None = None
        self._clients: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._client, self.host, self.port,
                                                  limit=MAX_LINE)
        for sock in self._server.sockets:
            address = sock.getsockname()
            if isinstance(address, tuple) and len(address) >= 2:
                return int(address[1])
        return self.port

    def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def wait_closed(self) -> None:
        for task in list(self._clients):
            task.cancel()
        if self._clients:
            await asyncio.wait(list(self._clients), timeout=1.0)
        if self._server is not None:
            await self._server.wait_closed()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._clients.add(task)
        try:
            peer = writer.get_extra_info("peername")
            reply = await self._answer(reader, str(peer[0]) if isinstance(peer, tuple)
                                       and peer else None)
            if reply is not None:
                writer.write(reply.encode())
                await asyncio.wait_for(writer.drain(), self.timeout)
        except (OSError, TimeoutError, asyncio.IncompleteReadError):
            pass
        finally:
            if task is not None:
                self._clients.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1.0)

    async def _answer(self, reader: asyncio.StreamReader, peer: str | None
                      ) -> HttpReply | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        try:
            request = await asyncio.wait_for(read_head(reader, self.max_body), self.timeout)
        except HttpError as exc:
            return HttpReply.text(exc.status, str(exc))
        except (EOFError, TimeoutError, asyncio.IncompleteReadError):
            return None
        request.peer = peer
        try:
            refused = None if self.check is None else await self.check(request)
            if refused is not None:
                return refused
            await asyncio.wait_for(read_body(reader, request),
                                   max(0.0, deadline - loop.time()))
        except (TimeoutError, asyncio.IncompleteReadError):
            return None
        except Exception:
            log.exception("event=operator_http_failed path=%s", request.path[:100])
            return HttpReply.text(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error\n")
        try:
            reply = await self.handler(request)
        except Exception:
            log.exception("event=operator_http_failed path=%s", request.path[:100])
            return HttpReply.text(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error\n")
        if request.method == "HEAD":
            reply.body = b""
        return reply
