"""Where a table hand's CPU goes: `bench_table --profile` (issue 25: profile before optimising).

One table run of `bench_table` (six players, a spectator, both codecs, fake clock) under
cProfile after a warm-up; every function's own time (cProfile's ``tottime``) is put in one
category by where it lives, and each category's share is applied to the same run's measured
CPU per hand without the profiler (cProfile slows call-heavy code more than the rest, so the
µs are an estimate; the shares are what to act on).
"""

from __future__ import annotations

import asyncio
import cProfile
import pstats
import time
from collections.abc import Callable
from typing import Any

# (category, test on the function's file path and name), first match wins
_RULES: list[tuple[str, Callable[[str, str], bool]]] = [
    ("commitment and shuffle", lambda f, n: f.endswith(("rules/commitment.py",
                                                         "table/shuffle.py", "/random.py"))
     or "sha256" in n or "digest" in n or n == "shuffle_with"),
    ("engine (server/rules)", lambda f, n: "/server/rules/" in f),
    ("projection per viewer", lambda f, n: f.endswith(("table/projection.py",
                                                        "table/snapshot.py"))),
    ("encoding (protocol codecs)", lambda f, n: f.endswith("protocol/codec.py")
     or "orjson" in n or "msgpack" in f or "packb" in n),
    ("recording and hand history", lambda f, n: f.endswith(("table/recording.py",
                                                             "ledger/history.py"))),
    ("ledger batch and wallet", lambda f, n: "/server/ledger/" in f),
    ("event loop (asyncio)", lambda f, n: "/asyncio/" in f or "select" in n
     or "epoll" in n or "_contextvars" in n),
    ("bench driver (sinks, requests)", lambda f, n: "/tests/benchmarks/" in f
     or f.endswith("protocol/requests.py")),
    ("table actor and desks", lambda f, n: "/server/table/" in f),
]


def categorise(stats: pstats.Stats) -> dict[str, float]:
    """Seconds of own time per category (everything else: 'other (builtins, stdlib)')."""
    out: dict[str, float] = {}
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    for (filename, _line, name), (_cc, _nc, tottime, _ct, _callers) in raw.items():
        category = "other (builtins, stdlib)"
        for cat, test in _RULES:
            if test(filename, name):
                category = cat
                break
        out[category] = out.get(category, 0.0) + tottime
    return out


def profile(hands: int, table_run: Callable[[int, int], Any]) -> None:
    """Print the breakdown of `hands` hands (see the module docstring)."""
    asyncio.run(table_run(60, 3))  # warm-up: imports, caches
    cpu, played = asyncio.run(table_run(hands, 7))
    per_hand = 1e6 * cpu / played
    prof = cProfile.Profile()
    start = time.process_time()
    prof.enable()
    asyncio.run(table_run(hands, 7))
    prof.disable()
    profiled = time.process_time() - start
    cats = categorise(pstats.Stats(prof))
    total = sum(cats.values())
    print(f"{played} hands; {per_hand:,.0f} µs CPU per hand unprofiled "
          f"({1e6 * profiled / played:,.0f} under cProfile)")
    print(f"{'where':<34}{'share':>8}{'≈ µs/hand':>12}")
    for cat, secs in sorted(cats.items(), key=lambda kv: -kv[1]):
        share = secs / total
        print(f"{cat:<34}{share:>8.1%}{share * per_hand:>12,.0f}")
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(25)
