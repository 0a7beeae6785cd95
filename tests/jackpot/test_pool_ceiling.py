"""GEN-10 / CSP-13: the operator's pool ceiling (``Config.max_pool``, carried in the jackpot
terms as ``CaribbeanSettings.max_pool``) holds on both coordinators, checked inside the step
that adds a contribution (the Redis one inside its Lua script, atomically): a pool never passes
it, what a contribution would add above it is the house's (an ``overflow`` history entry), the
pools' money balance holds, and the meter can never be handed a value JSON or MessagePack
cannot carry."""

from __future__ import annotations

from protocol import JSON_CODEC, MSGPACK_CODEC
from protocol.constants import MAX_SAFE_INT
from server.jackpot.base import Coordinator, PoolState
from server.jackpot.meter import Meter
from server.rules.caribbean_payout import CaribbeanSettings, Contribution

CAP = 10_000
S = CaribbeanSettings(reset_amount=1_000, max_pool=CAP)
SPLIT = CaribbeanSettings(split_pools=True, reset_amount=1_000, minor_reset_amount=500,
                          max_pool=CAP)


def wager(hand: str, seat: int, amount: int, s: CaribbeanSettings = S) -> Contribution:
    minor, major, house = s.split_wager(amount)
    return Contribution(hand, seat, amount, minor + major, minor, major, house)


def balanced(st: PoolState) -> bool:
    return st.contributed + st.seeded == st.paid + st.minor + st.major


async def test_gen10_csp13_a_contribution_never_takes_the_pool_past_the_ceiling(
        coord: Coordinator) -> None:
    """The pool stops at ``max_pool``; the rest of the share goes to the house, booked as an
    ``overflow`` entry; a retry changes nothing (CSP-12); the totals stay balanced."""
    await coord.report("t1.1", owner="p", table="t1", settings=S,
                       contributions=[wager("t1.1", 0, 10_000)], claims=[])
    st = await coord.state()
    assert st.major == 7_000 and balanced(st)
    for _ in range(2):  # 7,000 more would pass 10,000: 3,000 go in, 4,000 to the house
        await coord.report("t1.2", owner="p", table="t1", settings=S,
                           contributions=[wager("t1.2", 0, 10_000)], claims=[])
    st = await coord.state()
    assert st.major == CAP and st.contributed == CAP and balanced(st)
    assert st.house == 3_000 + 3_000 + 4_000  # the houses' shares and the overflow
    over = [e for e in await coord.history() if e.kind == "overflow"]
    assert [(e.key, e.pool, e.amount, e.after) for e in over] == [("t1.2:0", "major", 4_000,
                                                                    CAP)]
    await coord.report("t1.3", owner="p", table="t1", settings=S,
                       contributions=[wager("t1.3", 0, 100)], claims=[])
    st = await coord.state()
    assert st.major == CAP and balanced(st)


async def test_gen10_csp11_each_split_pool_has_the_ceiling(coord: Coordinator) -> None:
    for i in range(12):  # 2,000 to the minor and 5,000 to the major pool each time
        await coord.report(f"t1.{i}", owner="p", table="t1", settings=SPLIT,
                           contributions=[wager(f"t1.{i}", 0, 10_000, SPLIT)], claims=[])
    st = await coord.state()
    assert st.minor == CAP and st.major == CAP and balanced(st)


def test_gen10_the_meter_never_freezes_on_a_pool_beyond_2_53() -> None:
    """A pool beyond 2**53 - 1 (a store written before the ceiling existed) is shown at that
    bound: every ``jackpot`` message and lobby entry still encodes in both codecs."""
    meter = Meter(interval=0)
    sent: list[dict[str, object]] = []
    meter.listeners.append(sent.append)
    meter.update(PoolState(0, 2**60, False))
    meter.update(PoolState(2**60, 2**60, True))
    assert len(sent) >= 1
    for msg in [*sent, meter.message(), {"type": "x", "j": meter.lobby()}]:
        for codec in (JSON_CODEC, MSGPACK_CODEC):
            codec.encode(msg)
    assert meter.state.pool <= MAX_SAFE_INT
