"""Redis Sentinel figures (issue 26): how long writes stop when the primary dies, and what a
settling write's ``WAIT`` costs.

Each round starts a primary, two replicas and three sentinels on loopback
(tests/redis_helpers.py ``SentinelGroup``, ``down-after-milliseconds`` = ``--down-after``)
and one adapter connected through them (``redis-sentinel://``):

- *WAIT cost*: the same one-key Lua script run ``--writes`` times each way, in alternating
  blocks of 100: through the pool (``await script(...)``), as a settling write with WAIT 1
  and with WAIT 2 (``Redis.settle``: the script then ``WAIT`` on the dedicated connection);
  the median per write of each, one write at a time.
- *failover*: a writer does one write every 10 ms (``RedisUnavailable`` counted and retried);
  the primary is SIGKILLed; the figure is the time from the kill to the first write that
  succeeds on the promoted replica, beside Sentinel's down-after time (the detection alone,
  which no failover can beat).

Run:

    .venv/bin/python -m tests.benchmarks.bench_sentinel [--rounds 3] [--writes 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from server.redisio import Redis, RedisUnavailable
from tests.redis_helpers import SentinelGroup

INCR = "return redis.call('INCR', KEYS[1])"


async def wait_cost(redis: Redis, writes: int) -> dict[str, float]:
    """Median microseconds per write: plain script, settle with WAIT 1, settle with WAIT 2."""
    script = redis.script(INCR)
    kinds: dict[str, list[float]] = {"script": [], "wait 1": [], "wait 2": []}
    for _ in range(max(1, writes // 100)):
        for kind, samples in kinds.items():
            for _ in range(100):
                started = time.perf_counter()
                if kind == "script":
                    await script(keys=["n"])
                else:
                    _, acked = await redis.settle(script, ["n"], replicas=int(kind[-1]),
                                                  timeout_ms=1000)
                    assert acked >= int(kind[-1]), (kind, acked)
                samples.append((time.perf_counter() - started) * 1e6)
    return {kind: statistics.median(samples) for kind, samples in kinds.items()}


async def failover(group: SentinelGroup, redis: Redis) -> tuple[float, int]:
    """Seconds from the primary's SIGKILL to the first successful write after it, and the
    writes refused (RedisUnavailable) in between."""
    script = redis.script(INCR)
    await script(keys=["w"])
    group.kill_primary()
    killed = time.perf_counter()
    refused = 0
    while True:
        try:
            await script(keys=["w"])
            return time.perf_counter() - killed, refused
        except RedisUnavailable:
            refused += 1
            await asyncio.sleep(0.01)  # a writer's pace, not a wait for an event


async def one_round(tmp: Path, writes: int, down_after: int) -> tuple[dict[str, float], float,
                                                                        int]:
    group = SentinelGroup(tmp, down_after_ms=down_after, failover_timeout_ms=3000)
    group.start()
    try:
        redis = await Redis.connect(group.url)
        try:
            costs = await wait_cost(redis, writes)
            seconds, refused = await failover(group, redis)
        finally:
            await redis.close()
    finally:
        group.stop()
    return costs, seconds, refused


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--down-after", type=int, default=1000, metavar="MS")
    args = parser.parse_args()
    times = []
    for n in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            costs, seconds, refused = await one_round(Path(tmp), args.writes, args.down_after)
        times.append(seconds)
        print(f"round {n + 1}: kill -> first write {seconds:.2f} s "
              f"({refused} writes refused meanwhile; down-after {args.down_after} ms); "
              f"per write: script {costs['script']:.0f} us, settle WAIT 1 "
              f"{costs['wait 1']:.0f} us (+{costs['wait 1'] - costs['script']:.0f}), "
              f"WAIT 2 {costs['wait 2']:.0f} us (+{costs['wait 2'] - costs['script']:.0f})")
    print(f"kill -> first write: median {statistics.median(times):.2f} s, "
          f"max {max(times):.2f} s over {len(times)} rounds")


if __name__ == "__main__":
    asyncio.run(main())
