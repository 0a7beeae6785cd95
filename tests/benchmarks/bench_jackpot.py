"""Jackpot coordinator throughput through Redis: contributions plus claims per second from
three processes at once against one ``redis-server`` (started here, append-only with
``appendfsync always``, as in the tests).

Run from the repository root::

    .venv/bin/python -m tests.benchmarks.bench_jackpot [--rounds N] [--procs P]

Each process plays ``rounds`` Caribbean rounds on 16 simulated tables through the server's own
path (:class:`server.jackpot.service.JackpotService`: a registration when a round is dealt, a
report when it settles, batched per process into one Lua script per round trip), 3 jackpot
wagers per round, one claim every 20 rounds; it stops when every claim is paid and credited.
Then the same without batching (``direct``: one ``register`` and one ``report`` script per
round, 16 in flight per process).  The figure: (contributions + claims) / wall time from the
first process's start to the last one's end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from server.jackpot.base import Claim
from server.jackpot.meter import Meter
from server.jackpot.redis_coord import RedisCoordinator
from server.jackpot.service import JackpotService
from server.rules.caribbean_payout import CaribbeanSettings, Contribution

S = CaribbeanSettings(reset_amount=10_000)
TABLES = 16


def round_of(proc: int, table: int, r: int) -> tuple[str, list[Contribution], list[Claim]]:
    hand = f"b{proc}t{table}.{r}"
    minor, major, house = S.split_wager(100)
    contribs = [Contribution(hand, seat, 100, minor + major, minor, major, house)
                for seat in range(3)]
    claims = [Claim(hand, 5, f"u{proc}", "flush", 0)] if r % 20 == 0 else []
    return hand, contribs, claims


async def worker(url: str, proc: int, rounds: int, mode: str) -> dict[str, float]:
    coord = await RedisCoordinator.connect(url, prefix=f"bench-{mode}")
    counted = 0
    start = time.time()
    if mode == "service":
        svc = JackpotService(coord, owner=f"p{proc}", meter=Meter(interval=1.0))
        await svc.start()

        async def table(t: int) -> None:
            nonlocal counted
            for r in range(rounds // TABLES):
                hand, contribs, claims = round_of(proc, t, r)
                svc.hand_eligible(hand)
                svc.hand_settled(hand, table=f"t{t}", settings=S, contributions=contribs,
                                 claims=claims)
                counted += len(contribs) + len(claims)
                if r % 8 == 0:
                    await asyncio.sleep(0)  # let the worker send a batch

        await asyncio.gather(*(table(t) for t in range(TABLES)))
        await svc.all_paid(timeout=300)
        end = time.time()
        await svc.close()
    else:
        async def direct(t: int) -> None:
            nonlocal counted
            for r in range(rounds // TABLES):
                hand, contribs, claims = round_of(proc, t, r)
                await coord.register(hand, owner=f"p{proc}")
                await coord.report(hand, owner=f"p{proc}", table=f"t{t}", settings=S,
                                   contributions=contribs, claims=claims)
                counted += len(contribs) + len(claims)

        await asyncio.gather(*(direct(t) for t in range(TABLES)))
        end = time.time()
        await coord.close()
    return {"start": start, "end": end, "items": counted}


def run_mode(url: str, procs: int, rounds: int, mode: str) -> tuple[float, int, float]:
    children = [subprocess.Popen(
        [sys.executable, "-m", "tests.benchmarks.bench_jackpot", "--worker", str(i),
         "--url", url, "--rounds", str(rounds), "--mode", mode],
        stdout=subprocess.PIPE) for i in range(procs)]
    results = [json.loads(c.communicate(timeout=600)[0]) for c in children]
    wall = max(r["end"] for r in results) - min(r["start"] for r in results)
    items = sum(int(r["items"]) for r in results)
    return items / wall, items, wall


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=4000, help="rounds per process")
    p.add_argument("--procs", type=int, default=3)
    p.add_argument("--worker", type=int, default=None)
    p.add_argument("--url", default="")
    p.add_argument("--mode", default="service", choices=["service", "direct"])
    a = p.parse_args()
    if a.worker is not None:
        print(json.dumps(asyncio.run(worker(a.url, a.worker, a.rounds, a.mode))))
        return
    from tests.redis_helpers import RedisProcess

    with tempfile.TemporaryDirectory() as tmp:
        server = RedisProcess(Path(tmp) / "redis")
        server.start()
        try:
            for mode in ("service", "direct"):
                rate, items, wall = run_mode(server.url, a.procs, a.rounds, mode)
                print(f"{mode:<8} procs={a.procs} rounds/proc={a.rounds} items={items} "
                      f"wall={wall:.2f}s contributions+claims/s={rate:,.0f}")
        finally:
            server.kill()


if __name__ == "__main__":
    main()
