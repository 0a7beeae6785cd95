"""What settling writes cost per hand (issue 26): hands/s of one `poker-server` on Redis with
`redis_wait_replicas=1` (a hand's result and a jackpot payout written through `Redis.settle`:
the script, then `WAIT 1`) against the same with 0 (no `WAIT`), in the same run.

    .venv/bin/python -m tests.benchmarks.bench_settle [--rounds 3] [--seconds 8] [--tables 8]
        [--think 0.02] [--no-pin] [--json PATH]

All on loopback: a primary `redis-server` and one replica of it (`--replicaof`; append-only,
`appendfsync always` on both), and for each window one fresh `poker-server --redis URL`
(tests/benchmarks/bench_cluster.py's processes, bots and window: `--tables` six-handed no-limit
Hold'em tables, 50/100, no pause, the load tester's bots with `--think` seconds per decision).
The two kinds alternate, round after round; a kind's figure is its median round. Servers and
both Redis processes are pinned to the first CPU, the bots to the second (`--no-pin`: none).
Second figure, less sensitive to the machine's load: the ledger's own writes of one hand
(`Ledger.hand_started` then `hand_result` of a six-player hand, through `RedisStore` on the same
primary), `--ledger-hands` hands each way in alternating blocks of 50, one hand at a time: the
median milliseconds per hand with `wait_replicas` 0 and 1 (the cost of `WAIT` per hand).

Hands: the server's `poker_hands_total` over the window (WAITs: the primary's count of `WAIT`
commands over the whole run of that server, its proof of the settling path); per hand, the
extra wall time of `WAIT 1` is (1/rate1 - 1/rate0) seconds of the table's time (tables play in
parallel, each waits for its own write).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import tests.benchmarks.bench_cluster as bc
from server.ledger.journal import BANK, Ledger, hand_entries
from server.ledger.redis_store import RedisStore
from server.ledger.store import Transfer
from tests.benchmarks.bench_capacity import commit, machine
from tests.benchmarks.rawws import raise_nofile
from tests.redis_helpers import RedisProcess

KINDS = {"WAIT 0": 0, "WAIT 1": 1}


def waits(redis: RedisProcess) -> int:
    """The primary's count of `WAIT` commands so far (proof that the settling path ran)."""
    stats = bc._redis(redis, b"INFO commandstats").splitlines()
    line = next((x for x in stats if x.startswith("cmdstat_wait:")), "calls=0,")
    return int(line.split("calls=")[1].split(",")[0])


def _row(kind: str, r: dict[str, Any], label: str = "") -> None:
    print(f"{kind:>8} {r['hands']:>6} {r['hands'] / r['wall_s']:>8.1f} {r['server_cpu_s']:>9.2f}"
          f" {r['redis_cpu_s']:>8.2f} {r['hands_per_cpu_s']:>11.1f} {r['waits']:>6}"
          + (f"  {label}" if label else ""), flush=True)


async def window(tmp: Path, redis: RedisProcess, setup: bc.Setup, cpu: int | None,
                 replicas: int) -> dict[str, Any]:
    """One server with `redis_wait_replicas=replicas`, one measured window."""
    caps = bc.CAPS
    bc.CAPS = (*caps, "--set", f"redis_wait_replicas={replicas}",  # type: ignore[assignment]
               "--set", "redis_wait_timeout_ms=1000")  # (bench_cluster builds its commands)
    try:
        before = waits(redis)
        with bc.running(tmp, "s", cpu, redis.url, 0) as nodes:
            result = await bc.hands_run(nodes, redis, setup, setup.thinks[0])
        return {**result, "waits": waits(redis) - before}
    finally:
        bc.CAPS = caps


async def ledger_cost(primary: RedisProcess, hands: int) -> dict[str, float]:
    """Median ms per hand of the ledger's two writes (start, result), WAIT 0 against WAIT 1."""
    stores = {k: RedisStore(primary.url, wait_replicas=v, wait_timeout_ms=1000)
              for k, v in KINDS.items()}
    players = [f"p{i}" for i in range(6)]
    samples: dict[str, list[float]] = {k: [] for k in KINDS}
    try:
        ledgers = {}
        for kind, store in stores.items():
            await store.open()
            ledgers[kind] = Ledger(store, node=kind.replace(" ", ""))
        for kind, ledger in ledgers.items():  # each one's table accounts, funded
            await ledger.apply([Transfer(BANK, ledger.table_account("t", p), 1_000_000, "buy")
                                for p in players], key=f"bench-open-{kind}")
        n = 0
        for block in range(max(1, hands // 50)):
            for kind in KINDS if block % 2 == 0 else tuple(reversed(KINDS)):
                ledger = ledgers[kind]
                for _ in range(50):
                    n += 1
                    start = dict.fromkeys(players, 100)
                    end = {**start, players[0]: 100 + 5 * 20, **{p: 80 for p in players[1:]}}
                    started = time.perf_counter()
                    await ledger.hand_started("t", f"h{n}", start)
                    await ledger.hand_result("t", f"h{n}", hand_entries(start, end))
                    samples[kind].append((time.perf_counter() - started) * 1000)
        settled = stores["WAIT 1"].settled, stores["WAIT 0"].settled
        assert settled == (n // 2, 0), settled  # every result settled with WAIT 1, none with 0
    finally:
        for store in stores.values():
            await store.close()
    return {k: statistics.median(v) for k, v in samples.items()}


async def bench(setup: bc.Setup, pin: bool, ledger_hands: int = 1000) -> dict[str, Any]:
    cpus = sorted(os.sched_getaffinity(0))
    server_cpu = cpus[0] if pin and len(cpus) > 1 else None
    if server_cpu is not None:
        os.sched_setaffinity(0, set(cpus[1:]))
    print(f"machine: {machine()}; commit {commit()}; " + (
        f"servers and Redis on CPU {server_cpu}, clients on CPU {cpus[1]}"
        if server_cpu is not None else "no pinning"), flush=True)
    print(f"{setup.tables} tables x 6 bots, think {setup.thinks[0] * 1000:g} ms, "
          f"{setup.seconds:g} s windows, {setup.rounds} rounds; a primary and one replica")
    print(f"{'kind':>8} {'hands':>6} {'hands/s':>8} {'srv CPU s':>9} {'Redis s':>8} "
          f"{'hands/CPU-s':>11} {'WAITs':>6}")
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in KINDS}
    with tempfile.TemporaryDirectory(prefix="bench_settle_") as name:
        tmp = Path(name)
        primary = RedisProcess(tmp / "primary")
        primary.start()
        replica = RedisProcess(tmp / "replica",
                               extra=("--replicaof", "127.0.0.1", str(primary.port)))
        replica.start()
        try:
            for proc in (primary.proc, replica.proc):
                if server_cpu is not None and proc is not None:
                    os.sched_setaffinity(proc.pid, {server_cpu})
            for _ in range(100):  # the replica's first sync (the primary's WAIT is the wait)
                if bc._redis(primary, b"WAIT 1 100").strip() == ":1":
                    break
            else:
                raise RuntimeError("the replica did not sync")
            cost = await ledger_cost(primary, ledger_hands)
            print(f"the ledger's writes of one hand (median of {ledger_hands} each, one at a "
                  f"time): WAIT 0 {cost['WAIT 0']:.3f} ms, WAIT 1 {cost['WAIT 1']:.3f} ms "
                  f"({(cost['WAIT 1'] - cost['WAIT 0']) * 1000:+.0f} µs a hand)", flush=True)
            for r in range(setup.rounds):
                for kind in KINDS if r % 2 == 0 else tuple(reversed(KINDS)):
                    bc._redis(primary, b"FLUSHALL")
                    runs[kind].append(await window(tmp, primary, setup, server_cpu,
                                                   KINDS[kind]))
                    _row(kind, runs[kind][-1], f"round {r + 1}")
        finally:
            replica.kill()
            primary.kill()
    medians = {k: sorted(v, key=lambda x: x["hands"] / x["wall_s"])[(len(v) - 1) // 2]
               for k, v in runs.items()}
    rate = {k: m["hands"] / m["wall_s"] for k, m in medians.items()}
    print("medians:")
    for kind in KINDS:
        _row(kind, medians[kind])
    per_hand_ms = (setup.tables / rate["WAIT 1"] - setup.tables / rate["WAIT 0"]) * 1000
    print(f"WAIT 1 / WAIT 0 hands/s = {rate['WAIT 1'] / rate['WAIT 0']:.3f}; a table's hand "
          f"takes {per_hand_ms:+.2f} ms more with WAIT 1", flush=True)
    return {"machine": machine(), "commit": commit(), "ledger_ms_per_hand": cost,
            "runs": runs, "medians": medians,
            "hands_per_s": rate, "ratio": rate["WAIT 1"] / rate["WAIT 0"],
            "extra_ms_per_table_hand": per_hand_ms}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds per window")
    parser.add_argument("--tables", type=int, default=8, help="tables of six bots")
    parser.add_argument("--think", type=float, default=0.02, help="bot think seconds")
    parser.add_argument("--ledger-hands", type=int, default=1000,
                        help="second figure: hands each way")
    parser.add_argument("--no-pin", action="store_true", help="no CPU pinning")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    args = parser.parse_args(argv)
    raise_nofile()
    setup = bc.Setup(rounds=args.rounds, seconds=args.seconds, warmup=1.0, tables=args.tables,
                     thinks=(args.think,), local=0, spectators=0, play_think=0.0)
    started = time.perf_counter()
    result = asyncio.run(bench(setup, pin=not args.no_pin, ledger_hands=args.ledger_hands))
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
