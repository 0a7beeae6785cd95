"""Caribbean Stud's clock on the wire (issue 24): an ante phase or a decision the clock ran
out on is an ``acted`` with ``timeout: true``, as at a pot game, so a page tells it from a
leaver's fold (``acted`` ``fold`` without ``timeout``)."""

from __future__ import annotations

from server.config import Config
from tests.table.helpers import Harness

CFG = Config(test_mode=True, hand_pause=2.0, action_clock=10.0, time_bank=60.0)


async def test_a_caribbean_timeout_is_marked_and_a_leavers_fold_is_not() -> None:
    h = Harness(config=CFG)
    t = h.create(variant="caribbean", stakes={"min": 10, "max": 100}, seats=3)
    a, b, c = h.player("a"), h.player("b"), h.player("c")
    for seat, who in enumerate((a, b, c)):
        await h.send(t, who, "sit", seat=seat, buy_in=1000)
    await h.advance(t, 2.0)
    assert t.in_hand
    assert (await h.send(t, a, "leave"))["pending"] is True  # folded at once
    assert (await h.send(t, b, "act", action="ante", amount=10))["type"] == "ok"
    while t.in_hand:  # c never answers: the ante phase's clock, then b never decides
        await h.advance(t, 5.0)
    acted = {m["seat"]: m for m in c.of("acted") if m["action"] == "fold"}
    assert "timeout" not in acted[0]  # the leaver's
    assert acted[2]["timeout"] is True  # the ante phase ran out: sat out of the round
    assert acted[1]["timeout"] is True  # the decision ran out: folded
