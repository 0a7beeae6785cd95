"""Who the client is behind a reverse proxy: the address every per-address limit uses.

Rule of this module: a forwarding header is believed only from a trusted proxy. A connection's
client address is its TCP peer, unless that peer is in `Config.trusted_proxies`; then it is
read from `X-Forwarded-For`, walking the entries from the right (the last one was written by
the proxy that connected to us) past every entry that is itself a trusted proxy, and the
first one that is not is the client (what Go's, Express's and werkzeug's proxy helpers do:
entries to its left were written by the client or by untrusted hops and prove nothing). When
every entry is a trusted proxy the left-most is taken; an entry that is not an IP address
stops the walk at the last address vouched for (the trusted hop that wrote it). No header
(a probe from the proxy's host, a health check): the peer itself.

`TrustedProxies` is built once per `Config` (`trusted(config)`, cached); `client_ip` gives
the address as text (IPv6 without brackets, an IPv4-mapped one as IPv4).
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable

__all__ = ["FORWARDED_FOR", "MAX_HOPS", "TrustedProxies", "parse_ip", "trusted"]

FORWARDED_FOR = "X-Forwarded-For"

MAX_HOPS = 32
"""Entries of `X-Forwarded-For` looked at, from the right; past them the walk stops (a long
header costs nothing more)."""

_Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_ip(text: str) -> _Address | None:
    """An address of a header entry or a peer: `1.2.3.4`, `::1`, `[::1]`, `[::1]:443`,
    `1.2.3.4:443` (a port is dropped), an IPv4-mapped IPv6 address as IPv4; None if it is
    none of these."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.partition(":")[0]
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


class TrustedProxies:
    """`Config.trusted_proxies` as networks; see the module docstring."""

    def __init__(self, networks: Iterable[str]) -> None:
        self.networks = tuple(ipaddress.ip_network(n, strict=False) for n in networks)

    def __bool__(self) -> bool:
        return bool(self.networks)

    def contains(self, ip: _Address | None) -> bool:
        """Is `ip` one of the trusted proxies?"""
        return ip is not None and any(ip.version == n.version and ip in n
                                      for n in self.networks)

    def is_proxy(self, peer: str | None) -> bool:
        """Is the TCP peer `peer` (text) a trusted proxy?"""
        return bool(self.networks) and peer is not None and self.contains(parse_ip(peer))

    def client_ip(self, peer: str | None, forwarded: Iterable[str]) -> str | None:
        """The client's address for a connection from `peer` whose `X-Forwarded-For`
        header lines are `forwarded` (several lines are one list, in order)."""
        if not self.is_proxy(peer):
            return peer
        entries = [e for line in forwarded for e in line.split(",")][-MAX_HOPS:]
        vouched = peer
        for entry in reversed(entries):
            ip = parse_ip(entry)
            if ip is None:
                return vouched  # garbage: the trusted hop that wrote it is all we know
            vouched = str(ip)
            if not self.contains(ip):
                return vouched
        return vouched  # every hop a trusted proxy: the furthest one


@functools.lru_cache(maxsize=16)
def trusted(networks: tuple[str, ...]) -> TrustedProxies:
    """The `TrustedProxies` of `Config.trusted_proxies` (built once per value)."""
    return TrustedProxies(networks)
