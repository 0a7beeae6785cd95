"""`X-Forwarded-For` against a real `poker-server` (no test mode), issue 23: the header is
believed only from a trusted proxy (`--trusted-proxies`). A client that forges it to pass for
many addresses is still one address; behind the proxy, the per-address connection cap counts
each forwarded client, not the proxy."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from websockets.exceptions import ConnectionClosed

from tests.net.conftest import Client
from tests.security.conftest import (
    SERVED_BOUND,
    TIMEOUT,
    HostileServer,
    ServerFactory,
    client,
    ledger_sum,
    round_trip,
)


async def from_ip(srv: HostileServer, ip: str, forwarded: str | None = None) -> Client:
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    return await client(srv, local_addr=(ip, 0), additional_headers=headers)


async def guests(srv: HostileServer, ip: str, count: int, *, forge: bool) -> list[Any]:
    answers = []
    for i in range(count):
        c = await from_ip(srv, ip, f"198.51.100.{i}" if forge else None)
        answers.append((await c.request("hello", guest=f"G{ip[-1]}x{i}")).get("code", "ok"))
        await c.ws.close()
    return answers


async def test_a_forged_header_from_an_untrusted_peer_is_ignored(
        hostile_server: ServerFactory) -> None:
    for extra in ((), ("--trusted-proxies", "127.0.0.1/32")):
        srv = hostile_server("--set", "guests_per_ip_per_minute=3", *extra)
        # a new forged address on every connection: still 127.0.0.2 (untrusted peer)
        assert await guests(srv, "127.0.0.2", 5, forge=True) == ["ok"] * 3 + [
            "too_many_guests"] * 2
        assert await guests(srv, "127.0.0.3", 1, forge=False) == ["ok"]
        assert ledger_sum(srv) == 0


async def test_behind_the_proxy_each_forwarded_client_counts(hostile_server: ServerFactory
                                                             ) -> None:
    srv = hostile_server("--trusted-proxies", "127.0.0.1/32", "--set",
                         "max_connections_per_ip=3", "--set", "guests_per_ip_per_minute=2")
    idle = min([await round_trip(srv) for _ in range(3)])
    # the proxy (127.0.0.1) holds 6 sockets: three for each of two clients, at the cap
    held = [await from_ip(srv, "127.0.0.1", f"6.6.6.6, {client_ip}")
            for client_ip in ("198.51.100.7", "198.51.100.8") for _ in range(3)]
    for c in held:
        assert (await c.request("ping"))["type"] == "pong"
    # a fourth for one of them is closed (1013) once its handshake is read
    extra = await from_ip(srv, "127.0.0.1", "198.51.100.7")
    with contextlib.suppress(ConnectionClosed):
        await asyncio.wait_for(extra.ws.recv(), TIMEOUT)
    assert extra.ws.close_code == 1013 and extra.ws.close_reason == "too many connections"
    # another forwarded client, and the proxy's own probe, still get in
    other = await from_ip(srv, "127.0.0.1", "198.51.100.9")
    assert (await other.request("ping"))["type"] == "pong"
    assert await round_trip(srv) <= idle + SERVED_BOUND
    # the guest limit counts the forwarded client (6.6.6.6 on the left is the client's own)
    answers = [(await c.request("hello", guest=f"P{i}")).get("code", "ok")
               for i, c in enumerate(held[:3])]
    assert answers == ["ok", "ok", "too_many_guests"], answers
    assert (await held[3].request("hello", guest="Q"))["type"] == "ok"  # 198.51.100.8
    for c in [*held, other]:
        await c.ws.close()
    # a socket released is counted no more
    again = await from_ip(srv, "127.0.0.1", "198.51.100.7")
    assert (await again.request("ping"))["type"] == "pong"
    await again.ws.close()
    assert ledger_sum(srv) == 0
