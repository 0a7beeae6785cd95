"""Who may hold a socket open: the connection caps, the file-descriptor budget, and log lines
whose number an attacker cannot drive.

Rule of this module: a refusal costs the server a few microseconds and no log line of its
own. Every accepted TCP connection of the public listener (plain HTTP or WebSocket) is
counted at `connection_made`, per client address (`peer_key`: the IPv4 address, an IPv6
/64) and in total; one over `Config.max_connections_per_ip` or `Config.max_connections`
gets a fixed `503` written and its socket closed at once, before any handshake parsing
(`Admission.admit`). Behind a reverse proxy (`Config.trusted_proxies`) the TCP peer is the
proxy: a trusted proxy's connections count only in the total at accept, and the per-address
cap counts the client it forwards once the WebSocket handshake's headers are read
(`Admission.admit_forwarded`, `server.net.forwarded`). Refusals, accept() failures
(EMFILE...) and deadline closes are counted for `/metrics` and summarized in at most one log
line per
`Config.accept_error_log_interval` each (`Summary`); per-request lines go through a
`LogBudget`.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
import resource
import time
from collections.abc import Callable
from typing import Any

from server.config import Config
from server.net.forwarded import trusted
from server.net.metrics import Metrics

__all__ = ["PROXIED", "Admission", "LogBudget", "Summary", "accept_error_handler",
           "apply_fd_limit", "peer_key"]

log = logging.getLogger("server.net.admission")

_REFUSED_BODY = b"too many connections\n"
REFUSED_RESPONSE = (b"HTTP/1.1 503 Service Unavailable\r\n"
                    b"Content-Type: text/plain; charset=utf-8\r\n"
                    b"Content-Length: " + str(len(_REFUSED_BODY)).encode() + b"\r\n"
                    b"Retry-After: 5\r\nConnection: close\r\n\r\n" + _REFUSED_BODY)
"""What a refused connection gets: one write, then the socket is closed."""

PROXIED = "proxy"
"""The admission key of a trusted proxy's connection: counted in the total only."""

ACCEPT_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


def peer_key(address: Any) -> str:
    """The address a per-IP cap counts: the IPv4 address (an IPv4-mapped IPv6 one as IPv4),
    the /64 of an IPv6 address, `?` when unknown."""
    if not isinstance(address, tuple) or not address:
        return "?"
    host = str(address[0])
    if ":" not in host:
        return host
    try:
        ip = ipaddress.IPv6Address(host.split("%", 1)[0])
    except ValueError:
        return host
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))


class Summary:
    """Counts of one kind of event, logged as one line per `interval` at most: the first event
    after a quiet interval is logged at once, later ones wait for the next line
    (`event=NAME count=N ...`, the count since the previous line). `flush()` writes what is
    pending (a timer calls it, so the last burst is reported too)."""

    def __init__(self, name: str, interval: float, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self.interval = interval
        self._clock = clock
        self._last = -float("inf")
        self._pending: dict[str, int] = {}
        self._timer: asyncio.TimerHandle | None = None
        self.lines = 0

    def add(self, detail: str = "", count: int = 1) -> None:
        """Count `count` events (`detail`: e.g. the reason or errno, a key of the line)."""
        self._pending[detail] = self._pending.get(detail, 0) + count
        now = self._clock()
        if now - self._last >= self.interval:
            self.flush()
        elif self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._timer = loop.call_later(self._last + self.interval - now, self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        pending, self._pending = self._pending, {}
        self._last = self._clock()
        self.lines += 1
        parts = " ".join(f"{k or 'count'}={v}" for k, v in sorted(pending.items()))
        log.warning("event=%s %s total=%d interval=%s", self.name, parts,
                    sum(pending.values()), self.interval)


class LogBudget:
    """At most `lines` log lines per `interval` seconds for one kind of line; `allow()` says
    whether this one may go out, and `suppressed()` (called when it may) gives the number
    held back since the last line that went out."""

    def __init__(self, lines: int, interval: float, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.lines = lines
        self.interval = interval
        self._clock = clock
        self._start = -float("inf")
        self._used = 0
        self._held = 0

    def allow(self) -> bool:
        now = self._clock()
        if now - self._start >= self.interval:
            self._start, self._used = now, 0
        if self._used < self.lines:
            self._used += 1
            return True
        self._held += 1
        return False

    def suppressed(self) -> int:
        held, self._held = self._held, 0
        return held


class Admission:
    """The caps of one listener: `admit(peer)` at accept, `release(key)` when it ends."""

    def __init__(self, config: Config, metrics: Metrics, *,
                 max_connections: int | None = None) -> None:
        self.per_ip = config.max_connections_per_ip
        self.total = config.max_connections if max_connections is None else max_connections
        self.metrics = metrics
        self.open = 0
        self.by_peer: dict[str, int] = {}
        self.refusals = Summary("connections_refused", config.accept_error_log_interval)
        self.proxies = trusted(config.trusted_proxies)

    def admit(self, address: Any) -> str | None:
        """The peer key to `release` later when the connection may stay; None (counted) when
        it is over a cap. A trusted proxy's connection (key `PROXIED`) counts in the total
        only: `admit_forwarded` counts its client."""
        key = peer_key(address)
        if self.proxies and isinstance(address, tuple) and address \
                and self.proxies.is_proxy(str(address[0])):
            key, held = PROXIED, 0
        else:
            held = self.by_peer.get(key, 0)
        if held >= self.per_ip:
            reason = "per_ip"
        elif self.open >= self.total:
            reason = "total"
        else:
            if key != PROXIED:
                self.by_peer[key] = held + 1
            self.open += 1
            return key
        self.metrics.refused(reason)
        self.refusals.add(reason)
        return None

    def admit_forwarded(self, client_ip: str | None) -> str | None:
        """Count one client a trusted proxy forwarded (its address from the handshake's
        headers) against the per-address cap: the key to `release_forwarded` later, or
        None (counted as `per_ip`) when it is over it."""
        key = peer_key((client_ip or "?",))
        held = self.by_peer.get(key, 0)
        if held >= self.per_ip:
            self.metrics.refused("per_ip")
            self.refusals.add("per_ip")
            return None
        self.by_peer[key] = held + 1
        return key

    def release_forwarded(self, key: str) -> None:
        held = self.by_peer.get(key, 0) - 1
        if held > 0:
            self.by_peer[key] = held
        else:
            self.by_peer.pop(key, None)

    def release(self, key: str) -> None:
        self.open -= 1
        if key == PROXIED:
            return
        held = self.by_peer.get(key, 0) - 1
        if held > 0:
            self.by_peer[key] = held
        else:
            self.by_peer.pop(key, None)


def apply_fd_limit(config: Config) -> int:
    """The total connection cap to apply: `Config.max_connections`, with the soft
    RLIMIT_NOFILE raised (up to the hard limit) to fit it plus `Config.fd_reserve`, and
    clamped to what the limit leaves; logs what was applied (`event=connection_limits`).
    Raises ValueError when the limit leaves no connection at all."""
    wanted = config.max_connections + config.fd_reserve
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("event=nofile_raise_failed wanted=%d error=%r", target, str(exc))
    room = wanted if soft == resource.RLIM_INFINITY else soft - config.fd_reserve
    applied = min(config.max_connections, room)
    if applied < 1:
        raise ValueError(f"RLIMIT_NOFILE {soft} leaves no connection after fd_reserve "
                         f"{config.fd_reserve}")
    level = logging.WARNING if applied < config.max_connections else logging.INFO
    log.log(level, "event=connection_limits max_connections=%d requested=%d nofile=%s "
            "hard=%s fd_reserve=%d per_ip=%d hello_deadline=%s", applied,
            config.max_connections, soft, hard, config.fd_reserve,
            config.max_connections_per_ip, config.hello_deadline)
    return applied


def accept_error_handler(metrics: Metrics, interval: float
                         ) -> Callable[[asyncio.AbstractEventLoop, dict[str, Any]], None]:
    """An event-loop exception handler: a failed `accept()` for lack of resources (asyncio
    reports one and retries a second later) is counted (`poker_accept_errors_total`) and
    summarized once per `interval`; anything else goes to the default handler."""
    summary = Summary("accept_errors", interval)

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        message = str(context.get("message", ""))
        if isinstance(exc, OSError) and exc.errno in ACCEPT_ERRNOS and (
                "accept" in message or "incoming connection" in message):
            metrics.accept_errors_total += 1
            summary.add(errno.errorcode.get(exc.errno or 0, str(exc.errno)))
            return
        loop.default_exception_handler(context)

    return handler
