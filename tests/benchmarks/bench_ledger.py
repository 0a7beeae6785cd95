"""Ledger transfers per second on each store (SQLite, Redis), durable as the server runs them.

Run from the repository root::

    .venv/bin/python -m tests.benchmarks.bench_ledger [--seconds S] [--concurrency C]

For each store, for ``--seconds`` each:

* ``transfer``: one-transfer batches (a buy-in: player → table), awaited one after another;
* ``transfer xC``: the same with C coroutines at once (C tables buying in together);
* ``hand``: six-player hand results (``hand_started`` + ``hand_result`` of 7 transfers with
  rake: two batches per hand), awaited one after another at one table, reported as hands/s
  and transfers/s; ``hand xC``: C tables playing at once.

SQLite runs in a temporary directory with the server's settings (WAL, ``synchronous=FULL``:
every commit is fsynced), then as ``sqlite-nofsync`` (``--no-ledger-fsync``: ``NORMAL``).
Redis is a ``redis-server`` of the benchmark's own with append-only persistence and
``appendfsync always`` (as the tests run it); skipped when it is not installed. Wall-clock
rates, single process.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from server.ledger.journal import Ledger, hand_entries
from server.ledger.redis_store import RedisStore
from server.ledger.sqlite_store import SqliteStore
from server.ledger.store import Store
from tests.redis_helpers import RedisProcess

PLAYERS = [f"p{i}" for i in range(6)]


async def rate(seconds: float, step: Callable[[], Awaitable[int]], workers: int = 1) -> float:
    """Units (as returned by ``step``) per wall second, ``workers`` loops at once."""
    done = 0
    stop = time.perf_counter() + seconds

    async def loop() -> None:
        nonlocal done
        while time.perf_counter() < stop:
            n = await step()  # (not `done += await ...`: that reads `done` before the await)
            done += n

    start = time.perf_counter()
    await asyncio.gather(*(loop() for _ in range(workers)))
    return done / (time.perf_counter() - start)


async def bench_store(name: str, store: Store, seconds: float, concurrency: int) -> None:
    await store.open()
    try:
        ledger = Ledger(store, node="bench", run=name)
        for p in PLAYERS:
            await ledger.open_player(p, 10**15)
        tables = itertools.count()

        async def one() -> int:
            ok = await ledger.buy_in(PLAYERS[0], f"b{next(tables) % 64}", 1, reason="buy_in")
            assert ok
            return 1

        seq = await rate(seconds, one)
        conc = await rate(seconds, one, concurrency)
        stacks = {p: 1000 for p in PLAYERS}
        end = {p: 900 for p in PLAYERS[1:]} | {PLAYERS[0]: 1490}
        entries = hand_entries(stacks, end, rake=10)
        back = hand_entries(end, stacks | {PLAYERS[0]: 990}, rake=0)
        tables_in_use = itertools.count()

        def table_loop() -> Callable[[], Awaitable[int]]:
            """Hands at one table of its own, one after another (as a table plays them)."""
            table = f"h{next(tables_in_use)}"
            hands = itertools.count()
            seated = False

            async def hand() -> int:
                nonlocal seated
                if not seated:
                    for p in PLAYERS:
                        await ledger.buy_in(p, table, 1000, reason="buy_in")
                    seated = True
                n = next(hands)
                current, result = (stacks, entries) if n % 2 == 0 else (end, back)
                await ledger.hand_started(table, f"{table}.{n}", current)
                await ledger.hand_result(table, f"{table}.{n}", result)
                if n % 2 == 1:  # keep the stacks bounded: refill the 10 raked chips
                    await ledger.buy_in(PLAYERS[0], table, 10, reason="rebuy")
                return 1
            return hand

        hand_rate = await rate(seconds, table_loop())
        loops = [table_loop() for _ in range(concurrency)]
        picks = itertools.count()

        async def any_table() -> int:
            return await loops[next(picks) % concurrency]()

        hands_conc = await rate(seconds, any_table, concurrency)
        assert await ledger.total() == 0
        print(f"{name:14s} transfer            {seq:10,.0f} transfers/s")
        print(f"{name:14s} transfer x{concurrency:<3d}        {conc:10,.0f} transfers/s")
        print(f"{name:14s} 6-player hand       {hand_rate:10,.0f} hands/s "
              f"({hand_rate * len(entries):,.0f} transfers/s in hand batches)")
        print(f"{name:14s} 6-player hand x{concurrency:<3d}  {hands_conc:10,.0f} hands/s "
              f"({hands_conc * len(entries):,.0f} transfers/s in hand batches)")
    finally:
        await store.close()


async def main(seconds: float, concurrency: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        await bench_store("sqlite", SqliteStore(Path(tmp) / "ledger.db"), seconds, concurrency)
        await bench_store("sqlite-nofsync", SqliteStore(Path(tmp) / "nofsync.db", fsync=False),
                          seconds, concurrency)
        redis = RedisProcess(Path(tmp) / "redis")
        try:
            redis.start()
        except RuntimeError as exc:
            print(f"redis   skipped: {exc}")
            return
        try:
            await bench_store("redis", RedisStore(redis.url), seconds, concurrency)
        finally:
            redis.kill()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    asyncio.run(main(args.seconds, args.concurrency))
