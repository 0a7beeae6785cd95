"""The process's jackpot service: a round that never settles (voided, its table crashed) stops
being renewed after its time and blocks the others no longer than a lease (CSP-10)."""

from __future__ import annotations

import time

from server.jackpot.base import Claim
from server.jackpot.memory import MemoryCoordinator
from server.jackpot.service import JackpotService
from server.rules.caribbean_payout import CaribbeanSettings

S = CaribbeanSettings(reset_amount=10_000)
LEASE = 0.3


async def test_csp10_a_round_that_never_settles_blocks_no_longer_than_a_lease() -> None:
    """CSP-10: the table of void.1 dies; its registration is given up after max_seconds and
    expires within the lease; the claim behind it is then paid and credited."""
    coord = MemoryCoordinator(lease=LEASE)
    credited: list[str] = []

    async def credit(p: object) -> None:
        credited.append(p.key)  # type: ignore[attr-defined]

    svc = JackpotService(coord, owner="me", credit=credit)
    await svc.start()
    svc.hand_eligible("void.1", max_seconds=0.0)
    svc.hand_eligible("t2.1")
    t0 = time.monotonic()
    svc.hand_settled("t2.1", table="t2", settings=S, contributions=[],
                     claims=[Claim("t2.1", 1, "ann", "flush", 1)])
    assert credited == [] and svc.waiting == {"t2.1:1"}
    await svc.all_paid(timeout=5)
    waited = time.monotonic() - t0
    assert credited == ["t2.1:1"] and waited <= LEASE + LEASE / 3 + 0.5
    assert [(e.kind, e.hand) for e in await coord.history() if e.kind == "expired"] == [
        ("expired", "void.1")]
    await svc.close()
