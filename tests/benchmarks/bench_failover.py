"""Failover time (issue 17): how long a table is gone when the process that owns it dies.

Two real `poker-server` processes on a redis-server of the bench's own (all on loopback). A
hold'em table on `a` with two players mid-hand and a spectator on `b`; `a` is SIGKILLed; the
figure is the time from the kill until the spectator on `b` receives the reopened table's
snapshot (the survivor took `a` over: hands voided, chips moved, the table open again). The
anchor is the lease itself (`--lease`, the time a dead process's lease takes to lapse, which
no failover can beat): the bench prints each time, its ratio to the lease, and the time beyond
the lease (the detection and the takeover). Run:

    .venv/bin/python -m tests.benchmarks.bench_failover [--rounds 5] [--lease 2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from server.cluster.failover import SEQ_JUMP
from tests.cluster.test_failover import HOLDEM, guest, ok
from tests.ledger.test_crash import Server, start_server
from tests.redis_helpers import RedisProcess, free_port


def start_node(tmp: Path, name: str, redis: RedisProcess, lease: float) -> Server:
    port = free_port()
    return start_server(tmp / name, "--port", str(port), "--redis", redis.url, "--node", name,
                        "--public-url", f"ws://127.0.0.1:{port}/ws",
                        "--set", "cluster_lobby_refresh_ms=50", "--set", f"node_lease={lease}")


async def one_round(tmp: Path, lease: float) -> float:
    """Seconds from the SIGKILL of the table's process to the reopened table's snapshot."""
    redis = RedisProcess(tmp / "redis")
    redis.start()
    servers: list[Server] = []
    try:
        a = start_node(tmp, "a", redis, lease)
        servers.append(a)
        alice, bob = await guest(a.ws_url, "Alice"), await guest(a.ws_url, "Bob")
        table = (await ok(alice, "create_table", **HOLDEM))["table"]
        b = start_node(tmp, "b", redis, lease)
        servers.append(b)
        await ok(alice, "sit", table=table, seat=0, buy_in=5000)
        await ok(bob, "sit", table=table, seat=3, buy_in=5000)
        await alice.event("turn", table=table)
        sam = await guest(b.ws_url, "Sam")
        await ok(sam, "watch", table=table)
        await sam.event("snapshot", table=table)
        killed = time.monotonic()
        a.proc.kill()
        a.proc.wait(10)
        while True:
            snap: dict[str, Any] = await asyncio.wait_for(sam.event("snapshot", table=table),
                                                          lease + 30)
            if snap["seq"] > SEQ_JUMP:
                return time.monotonic() - killed
    finally:
        for server in servers:
            if server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait(10)
        redis.kill()


async def main(rounds: int, lease: float) -> dict[str, float]:
    times = []
    for n in range(rounds):
        with tempfile.TemporaryDirectory() as tmp:
            took = await one_round(Path(tmp), lease)
        times.append(took)
        print(f"round {n + 1}: {took:.3f} s = {took / lease:.2f} x the lease "
              f"({took - lease:+.3f} s beyond it)", flush=True)
    median = statistics.median(times)
    print(f"anchor: lease {lease:.2f} s; failover median {median:.3f} s "
          f"({median / lease:.2f} x the lease, {median - lease:+.3f} s beyond it), "
          f"max {max(times):.3f} s (target: lease + 2 s = {lease + 2:.2f} s)", flush=True)
    return {"lease": lease, "median": median, "max": max(times)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lease", type=float, default=2.0)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.lease))
