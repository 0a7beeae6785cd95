"""Where a table hand's CPU goes: `bench_table --profile` (issue 25: profile before optimising).

One table run of `bench_table` (six players, a spectator, both codecs, fake clock) after a
warm-up, sampled every half millisecond of the process's CPU time (a `SIGPROF` interval
timer; the handler is handed the frame running in the main thread): a sample goes to the
category of the innermost Python frame that belongs to one (a built-in such as `orjson.dumps`
counts for the Python function that called it). Each category's share is applied to the same
run's measured CPU per hand. Sampling costs a few per cent, spread evenly; cProfile, tried
first, tripled the time of call-heavy code and so overstated it (kept as `--cprofile`, for
the call counts).
"""

from __future__ import annotations

import asyncio
import cProfile
import pstats
import signal
import time
from collections import Counter
from collections.abc import Callable
from types import FrameType
from typing import Any

# (category, test on a frame's file path and function name), first match wins
_RULES: list[tuple[str, Callable[[str, str], bool]]] = [
    ("commitment and shuffle", lambda f, n: f.endswith(("rules/commitment.py",
                                                         "table/shuffle.py", "/random.py"))
     or n == "shuffle_with"),
    ("projection per viewer", lambda f, n: f.endswith(("table/projection.py",
                                                        "table/snapshot.py",
                                                        "protocol/messages.py",
                                                        "rules/visibility.py",
                                                        "rules/view.py"))),
    ("engine (server/rules)", lambda f, n: "/server/rules/" in f),
    ("encoding (protocol codecs)", lambda f, n: f.endswith(("protocol/codec.py",
                                                             "protocol/frames.py"))),
    ("recording and hand history", lambda f, n: f.endswith(("table/recording.py",
                                                             "ledger/history.py"))),
    ("ledger and wallet", lambda f, n: "/server/ledger/" in f),
    ("fan-out (seq, log, per-sink loop)", lambda f, n: f.endswith("table/fanout.py")),
    ("bench driver (sinks, requests)", lambda f, n: "/tests/benchmarks/" in f
     or f.endswith("protocol/requests.py")),
    ("table actor and desks", lambda f, n: "/server/table/" in f),
    ("event loop (asyncio)", lambda f, n: "/asyncio/" in f or f.endswith("selectors.py")),
]


def _category(frame: FrameType | None) -> str:
    while frame is not None:
        code = frame.f_code
        for cat, test in _RULES:
            if test(code.co_filename, code.co_name):
                return cat
        frame = frame.f_back
    return "other"


class Sampler:
    """Samples the main thread's stack every ``interval`` seconds of the process's CPU time:
    a ``SIGPROF`` interval timer (``setitimer(ITIMER_PROF)``) whose handler runs in the main
    thread between two bytecodes and is handed the frame running there."""

    def __init__(self, interval: float = 0.0005) -> None:
        self.interval = interval
        self.counts: Counter[str] = Counter()

    def _sample(self, signum: int, frame: FrameType | None) -> None:
        self.counts[_category(frame)] += 1

    def __enter__(self) -> Sampler:
        signal.signal(signal.SIGPROF, self._sample)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, signal.SIG_DFL)


def profile(hands: int, table_run: Callable[[int, int], Any], *, cprofile: bool = False) -> None:
    """Print the breakdown of `hands` hands (see the module docstring)."""
    asyncio.run(table_run(60, 3))  # warm-up: imports, caches
    cpu, played = asyncio.run(table_run(hands, 7))
    per_hand = 1e6 * cpu / played
    with Sampler() as sampler:
        start = time.process_time()
        asyncio.run(table_run(hands, 7))
        sampled = time.process_time() - start
    total = sum(sampler.counts.values()) or 1
    print(f"{played} hands; {per_hand:,.0f} µs CPU per hand unsampled "
          f"({1e6 * sampled / played:,.0f} while sampled; {total} samples)")
    print(f"{'where':<36}{'share':>8}{'≈ µs/hand':>12}")
    for cat, n in sampler.counts.most_common():
        print(f"{cat:<36}{n / total:>8.1%}{n / total * per_hand:>12,.0f}")
    if cprofile:
        prof = cProfile.Profile()
        prof.enable()
        asyncio.run(table_run(hands, 7))
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
