"""One process of the multi-process jackpot test (``python -m tests.jackpot.mp_worker``): its
own event loop, a :class:`JackpotService` over the Redis coordinator, ``tables`` simulated
Caribbean tables each playing ``rounds`` rounds with random lengths (so reports arrive out of
order) and forced qualifying hands every ``FORCED`` rounds on every table of every process
(claims at close times).  Payouts are credited to an idempotent test ledger in Redis.

Prints JSON lines: ``{"claims": ...}`` per hand with claims, ``{"paid": key}`` per credit,
``{"progress": n}``,
``{"registered": hand}`` (``--doomed``: register one hand, then wait to be SIGKILLed) and
finally ``{"done": ..., "contributed": n, "waits": [...]}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time

from server.jackpot.base import Claim, Payout
from server.jackpot.meter import Meter
from server.jackpot.redis_coord import RedisCoordinator
from server.jackpot.service import JackpotService
from server.rules.caribbean_payout import CaribbeanSettings, Contribution

S = CaribbeanSettings(reset_amount=10_000)
FORCED = 40
KINDS = ["flush", "flush", "full_house", "four_of_a_kind", "straight_flush", "royal_flush"]

# the test's ledger: a payout applies once per key (SET NX); every attempt is counted
CREDIT = """
redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('INCRBY', KEYS[3], ARGV[2])
end
return 1
"""


def out(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def main(a: argparse.Namespace) -> None:
    coord = await RedisCoordinator.connect(a.url, lease=a.lease)
    if a.doomed:  # a live table with a hand in play (its lease renewed) until SIGKILL
        svc = JackpotService(coord, owner=f"p{a.proc}", meter=Meter(interval=0))
        await svc.start()
        svc.hand_eligible(f"doomed{a.proc}.1")
        await svc.drain()
        out({"registered": f"doomed{a.proc}.1"})
        await asyncio.Event().wait()
    credit_script = coord.redis.script(CREDIT)
    reported: dict[str, float] = {}
    waits: list[tuple[str, float, float]] = []

    async def credit(p: Payout) -> None:
        await credit_script(keys=["test:ledger", "test:attempts", "test:credited"],
                            args=[p.key, p.amount])
        waits.append((p.key, reported[p.key], time.time()))
        out({"paid": p.key})

    svc = JackpotService(coord, owner=f"p{a.proc}", credit=credit, meter=Meter(interval=0))
    await svc.start()
    rng = random.Random(a.seed)
    contributed = 0
    done = 0

    async def table(ti: int) -> None:
        nonlocal contributed, done
        for r in range(a.rounds):
            hand = f"p{a.proc}t{ti}.{r}"
            svc.hand_eligible(hand)
            await asyncio.sleep(rng.random() * a.delay)  # the round is played
            seats = rng.sample(range(9), rng.randint(1, 3))
            claims, contribs = [], []
            for i, seat in enumerate(seats):
                if (r % FORCED == FORCED - 1 and i == 0) or rng.random() < 0.02:
                    kind = KINDS[(r // FORCED + ti + a.proc) % len(KINDS)] \
                        if r % FORCED == FORCED - 1 else rng.choice(KINDS)
                    claims.append(Claim(hand, seat, f"u{a.proc}.{ti}.{seat}", kind, i))
                else:
                    minor, major, house = S.split_wager(100)
                    contribs.append(Contribution(hand, seat, 100, minor + major, minor, major,
                                                 house))
                    contributed += minor + major
            now = time.time()
            for c in claims:
                reported[c.key] = now
            if claims:
                out({"claims": hand, "c": [[c.seat, c.kind, c.eligible_at] for c in claims]})
            svc.hand_settled(hand, table=f"p{a.proc}t{ti}", settings=S, contributions=contribs,
                             claims=claims)
            done += 1
            if done % (a.rounds * a.tables // 10) == 0:
                out({"progress": done})

    await asyncio.gather(*(table(ti) for ti in range(a.tables)))
    try:
        await svc.all_paid(timeout=30)
    except TimeoutError:  # diagnostics for a failing run
        head = await coord.redis.call("ZRANGE", f"{coord.prefix}:{{room}}:pending", 0, 3,
                                      "WITHSCORES")
        sys.stderr.write(f"STUCK waiting={sorted(svc.waiting)[:5]} ops={len(svc._ops)} "
                         f"open={sorted(svc.open)[:5]} head={head} "
                         f"due={[p.key for p in await coord.due()][:5]}\n")
        raise
    out({"done": done, "contributed": contributed, "waits": waits,
         "credited": len(svc.payouts)})
    await svc.close()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--proc", type=int, required=True)
    p.add_argument("--tables", type=int, default=4)
    p.add_argument("--rounds", type=int, default=250)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lease", type=float, default=1.5)
    p.add_argument("--delay", type=float, default=0.01)
    p.add_argument("--doomed", action="store_true")
    asyncio.run(main(p.parse_args()))
