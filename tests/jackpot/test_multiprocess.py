"""CSP-10/CSP-12 across processes: three server-side jackpot clients (separate processes, each
its own event loop) play thousands of Caribbean rounds against one Redis, with random round
lengths (reports out of order) and forced qualifying hands at the same moments on every table;
a fourth process holding a registered hand is SIGKILLed, and Redis (append-only) is restarted
in the middle."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from server.jackpot.redis_coord import RedisCoordinator
from server.rules.caribbean_payout import JackpotClaim, jackpot_payouts
from tests.jackpot.mp_worker import S
from tests.redis_helpers import RedisProcess

ROOT = Path(__file__).resolve().parents[2]
LEASE = 1.5
WORKERS, TABLES, ROUNDS = 3, 4, 250  # 3,000 rounds
DELAY = 0.03  # a round lasts 0..30 ms: the run outlasts the lease and the restart


class Worker:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[dict[str, Any]] = []
        self.progress = 0
        self.changed = asyncio.Event()

    async def read(self) -> None:
        assert self.proc.stdout is not None
        async for raw in self.proc.stdout:
            msg = json.loads(raw)
            self.lines.append(msg)
            self.progress = msg.get("progress", self.progress)
            self.changed.set()
        self.changed.set()


async def spawn(url: str, proc: int, *extra: str) -> Worker:
    p = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.jackpot.mp_worker", "--url", url, "--proc", str(proc),
        "--tables", str(TABLES), "--rounds", str(ROUNDS), "--seed", str(proc * 7919),
        "--lease", str(LEASE), "--delay", str(DELAY), *extra, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    return Worker(p)


async def until(workers: list[Worker], ok: Any, timeout: float = 60.0) -> None:
    async def wait() -> None:
        while not ok():
            for w in workers:
                w.changed.clear()
            waiters = [asyncio.ensure_future(w.changed.wait()) for w in workers]
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for f in waiters:
                    f.cancel()
    await asyncio.wait_for(wait(), timeout)


async def test_csp10_csp12_three_processes_thousands_of_rounds_restart_and_sigkill(
        redis_server: RedisProcess) -> None:
    """CSP-10/CSP-12: payouts exactly in the global eligibility order, each once (also across
    a Redis restart), each equal to the Python CSP-09 payout against the pool as it stood;
    contributions == payouts + final pool - seeds to the chip; a SIGKILLed process's hand
    blocks the others no longer than its lease."""
    url = redis_server.url
    doomed = await spawn(url, 9, "--doomed")
    doomed_reader = asyncio.create_task(doomed.read())
    await until([doomed], lambda: any("registered" in m for m in doomed.lines))
    workers = [await spawn(url, i) for i in range(1, WORKERS + 1)]
    readers = [asyncio.create_task(w.read()) for w in workers]
    step = TABLES * ROUNDS // 10

    await until(workers, lambda: all(w.progress >= 2 * step for w in workers))
    doomed.proc.send_signal(signal.SIGKILL)
    killed_at = time.time()
    await doomed.proc.wait()
    doomed_reader.cancel()

    # every claim so far waits behind the killed process's hand (registered first): the first
    # credit anywhere means its lease ran out; only then is Redis restarted
    await until(workers, lambda: any("paid" in m for w in workers for m in w.lines))
    await until(workers, lambda: all(w.progress >= 7 * step for w in workers))
    assert not any("done" in m for w in workers for m in w.lines)  # mid-run
    down = time.time()
    await asyncio.to_thread(redis_server.restart)
    up = time.time()

    await until(workers, lambda: all(any("done" in m for m in w.lines) for w in workers), 90)
    assert [await w.proc.wait() for w in workers] == [0] * WORKERS
    await asyncio.gather(*readers)

    coord = await RedisCoordinator.connect(url, lease=LEASE)
    try:
        st = await coord.state()
        history = await coord.history(0, 10**7)
        tickets = {k: int(v) for k, v in _pairs(await coord.redis.call(
            "HGETALL", f"{coord.prefix}:{{room}}:tickets")).items()}
        ledger = {k: int(v) for k, v in _pairs(await coord.redis.call(
            "HGETALL", "test:ledger")).items()}
        due = await coord.due()
    finally:
        await coord.close()

    finals = [next(m for m in w.lines if "done" in m) for w in workers]
    assert [f["done"] for f in finals] == [TABLES * ROUNDS] * WORKERS
    claims = {m["claims"]: m["c"] for w in workers for m in w.lines if "claims" in m}
    claim_keys = {f"{h}:{seat}" for h, cs in claims.items() for seat, _, _ in cs}
    assert len(claims) > 100

    # nothing lost, nothing paid twice
    payouts = [e for e in history if e.kind == "payout"]
    assert sorted(e.key for e in payouts) == sorted(claim_keys)
    assert ledger == {e.key: e.amount for e in payouts} and due == []
    assert st.contributed == sum(f["contributed"] for f in finals)
    assert len([e for e in history if e.kind == "contribution"]) == len(
        {e.key for e in history if e.kind == "contribution"})
    seeds = sum(e.amount for e in history if e.kind in ("seed", "reseed", "shortfall"))
    assert st.seeded == seeds and st.paid == sum(ledger.values())
    assert st.contributed == st.paid + (st.major + st.minor) - seeds

    # paid exactly in the global order; each round by CSP-09 against the pool as it stood
    paid_tickets = [tickets[e.hand] for e in payouts]
    assert paid_tickets == sorted(paid_tickets)
    pool, i = 0, 0
    while i < len(history):
        e = history[i]
        if e.kind in ("contribution", "seed"):
            pool += e.amount
        elif e.kind == "payout":
            hand = e.hand
            jc = [JackpotClaim(hand, seat, kind, pos, "shoe") for seat, kind, pos in claims[hand]]
            want = jackpot_payouts(pool, jc, S)
            group = [x for x in history[i:i + len(jc)] if x.kind == "payout" and x.hand == hand]
            assert {int(x.key.rsplit(":", 1)[1]): x.amount for x in group} == want.payouts
            i += len(group)
            extra = [x for x in history[i:i + 2] if x.hand == hand
                     and x.kind in ("shortfall", "reseed")]
            assert sum(x.amount for x in extra if x.kind == "reseed") == want.seed
            assert sum(x.amount for x in extra if x.kind == "shortfall") == want.house_shortfall
            i += len(extra)
            pool = want.pool_after
            continue
        i += 1
    assert pool == st.major

    # the killed process's hand expired; nobody waited for it longer than the lease
    assert [e.hand for e in history if e.kind == "expired"] == ["doomed9.1"]
    # (the moment of a payout is its history entry's, Redis's clock; a credit attempt that
    # lost its reply in the restart is attempted again: the ledger applied each key once)
    tick = LEASE / 3
    reported = {key: rep for f in finals for key, rep, _ in f["waits"]}
    assert set(reported) == claim_keys
    paid_at = {e.key: e.ts / 1000 for e in payouts}
    blocked = [paid_at[k] - killed_at for k, rep in reported.items() if rep < killed_at]
    assert blocked and max(blocked) <= LEASE + tick + 0.5
    assert min(blocked) >= LEASE - tick - 0.2  # they really waited for the lease
    expired_at = min(paid_at.values())
    clear = [paid_at[k] - rep for k, rep in reported.items() if rep > expired_at]
    print(f"rounds={WORKERS * TABLES * ROUNDS} claims={len(reported)} "
          f"blocked_by_killed_max={max(blocked):.2f}s other_max_wait={max(clear, default=0):.3f}s "
          f"restart={up - down:.2f}s")


def _pairs(reply: Any) -> dict[str, str]:
    items = list(reply or [])
    return {str(items[i]): str(items[i + 1]) for i in range(0, len(items), 2)}


