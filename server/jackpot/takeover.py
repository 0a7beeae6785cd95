"""The jackpot side of a failover (issue 17): what a lost process left, taken over.

Rule of this module: :func:`take_over` is called once by the one survivor that took the lost
process ``node`` over (``server.cluster.failover``), before it reopens that process's
tables. From then on this process credits ``node``'s payouts as its own (records still due
now, and those its claims earn later, when the CSP-10 order reaches them: the service's
``adopted`` owners), and it books the reports ``node`` made durable in the ledger's outbox
but never saw booked (a report is idempotent per round, so a report booked meanwhile is not
booked twice; a payout is credited once by its claim key whoever credits it). The pool
itself is never touched here: every wager reaches it once, every payout leaves it once
(CSP-12).
"""

from __future__ import annotations

import logging

from server.jackpot.service import OUTBOX, JackpotService, _Op, decode_report, round_node

__all__ = ["take_over"]

log = logging.getLogger("server.jackpot")


async def take_over(service: JackpotService, node: str) -> int:
    """Credit ``node``'s due payouts from now on and replay its outbox; the number of
    reports replayed."""
    service.adopted.add(node)
    replayed = 0
    ledger = service.ledger
    if ledger is not None and hasattr(ledger, "outbox") and service.memory is None:
        for key, text in await ledger.outbox(OUTBOX):
            if round_node(key) != node:
                continue
            args = decode_report(text)
            args["owner"] = service.owner
            service.waiting.update(c.key for c in args["claims"])
            service._push(_Op("report", key[len(OUTBOX):], args, outbox=key))
            replayed += 1
            log.info("event=jackpot_report_taken_over key=%s node=%s", key, node)
    if service.coord is not None:
        await service._sweep()
    service._wake.set()
    return replayed
