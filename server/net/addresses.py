"""The address players open: what the start-up line names and what the page's links use.

Rule of this module: one answer to "where do friends reach this server?", used both for the
`Players open ...` start-up lines (`server.main`) and for the address written into the page
(`server.net.http`, the invite and watch links of `client_web/js/home.js`):

1. `Config.public_address` when the operator gave one (a LAN name, a TLS reverse proxy);
2. else, bound to every interface (`--host 0.0.0.0` or `::`), the machine's LAN addresses
   (`lan_addresses`, standard library only: the source address of a UDP socket "connected"
   to a documentation address, which sends no packet, and the host name's addresses) with
   the bound port;
3. else the listening address itself, which on the loopback (the default `127.0.0.1`)
   reaches this computer only: the start-up line says so and how to open the game to others.

The page gets an address only when the one it was loaded from would not do for friends: the
public address always, a LAN address when it was opened on the loopback (or at `0.0.0.0`),
else nothing (the page then uses its own location).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PLAYERS_PREFIX", "PlayerAddress", "is_loopback", "is_wildcard", "lan_addresses",
           "page_address", "player_addresses", "players_lines"]

PLAYERS_PREFIX = "Players open "
"""The start-up line(s) naming the address players open (after `poker-server listening on` and
`poker-server operator on`, which tests parse and which stay as they are)."""

_PROBE = ("192.0.2.1", 9)
"""TEST-NET-1 (RFC 5737): a UDP `connect` to it picks the outgoing interface; nothing is sent."""

LOOPBACK_NOTE = ("this computer only; for friends on other machines restart with "
                 "--host 0.0.0.0 (home network) or --public-address URL (internet), "
                 "see README \"Play with friends\"")


@dataclass(frozen=True, slots=True)
class PlayerAddress:
    """One address players may open (`url`, ending in `/`) and what it is for (`note`)."""

    url: str
    note: str


def is_wildcard(host: str) -> bool:
    """Does `--host` bind every interface (`0.0.0.0`, `::`, empty)?"""
    return host.strip("[]") in ("", "0.0.0.0", "::")


def is_loopback(host: str) -> bool:
    """Is `host` (a name or an IP literal, brackets allowed) this computer only?"""
    bare = host.strip("[]").lower()
    if bare == "localhost" or bare.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def _usable(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast)


def lan_addresses() -> tuple[str, ...]:
    """This machine's IPv4 addresses that others may reach it by, the outgoing interface's
    first; empty when there is none (no network, or loopback only)."""
    found: list[str] = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_PROBE)  # UDP: chooses a route, sends nothing
            found.append(str(probe.getsockname()[0]))
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    except OSError:
        pass
    return tuple(dict.fromkeys(a for a in found if _usable(a)))


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def player_addresses(*, host: str, port: int, public_address: str | None,
                     lan: Callable[[], tuple[str, ...]] = lan_addresses
                     ) -> tuple[PlayerAddress, ...]:
    """Where players open the game, in the order of the module's rule (`port`: the bound
    one)."""
    if public_address is not None:
        return (PlayerAddress(public_address.rstrip("/") + "/",
                              "send this address to your friends"),)
    if is_wildcard(host):
        found = lan()
        if found:
            return tuple(PlayerAddress(_url(a, port), "on this network: send it to your "
                                       "friends") for a in found)
        return (PlayerAddress(_url("127.0.0.1", port), "this computer only: no network "
                              "address found; friends need --public-address URL"),)
    if is_loopback(host):
        return (PlayerAddress(_url(host, port), LOOPBACK_NOTE),)
    return (PlayerAddress(_url(host, port), "send this address to your friends"),)


def players_lines(addresses: tuple[PlayerAddress, ...]) -> list[str]:
    """The start-up lines: `Players open URL (note)`, one per address, then who the
    operator's URL is for."""
    lines = [f"{PLAYERS_PREFIX}{a.url} ({a.note})" for a in addresses]
    lines.append("(the operator URL above is for you, the operator: metrics and the admin "
                 "page; never send it to players)")
    return lines


def page_address(*, public_address: str | None, request_host: str | None,
                 lan_url: str | None) -> str | None:
    """The address written into the page for its links, without a trailing `/`: the public
    address; else the LAN URL when the page was opened on the loopback (`request_host`: its
    `Host` header); else None (the page uses its own location)."""
    if public_address is not None:
        return public_address.rstrip("/")
    if lan_url is None or request_host is None:
        return None
    host = request_host.strip()
    host = host[: host.find("]") + 1] if host.startswith("[") else host.partition(":")[0]
    local = is_loopback(host) or host == "0.0.0.0"  # (a browser may open 0.0.0.0 too)
    return lan_url.rstrip("/") if local else None
