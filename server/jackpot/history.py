"""The jackpot pool's history for operators: every contribution, payout, shortfall, reseed,
expired and late hand, with hand ids, oldest first.

    python -m server.jackpot.history --redis redis://127.0.0.1:6379/0 [--start N] [--count N]
                                     [--prefix jp] [--json]

prints the pools and totals, then one line per entry (or one JSON object with ``--json``, the
same body as ``GET /jackpot/history?start=N&count=N`` on a running server, which also serves
the in-process pool of that server).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence

from server.jackpot.redis_coord import RedisCoordinator
from server.jackpot.service import history_page


async def show(url: str, *, prefix: str, start: int, count: int, as_json: bool) -> int:
    coord = await RedisCoordinator.connect(url, prefix=prefix)
    try:
        page = await history_page(coord, start, count)
    finally:
        await coord.close()
    if as_json:
        print(json.dumps(page))
        return 0
    st = page["state"]
    print(" ".join(f"{k}={v}" for k, v in st.items()))
    for e in page["entries"]:
        print(f"{e['seq']:>8} {e['kind']:<12} hand={e['hand'] or '-'} key={e['key'] or '-'} "
              f"pool={e['pool'] or '-'} amount={e['amount']} after={e['after']} ts={e['ts']}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m server.jackpot.history",
                                description="The jackpot pool's history (Redis coordinator).")
    p.add_argument("--redis", required=True, metavar="URL")
    p.add_argument("--prefix", default="jp")
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    return asyncio.run(show(a.redis, prefix=a.prefix, start=a.start, count=a.count,
                            as_json=a.json))


if __name__ == "__main__":
    sys.exit(main())
