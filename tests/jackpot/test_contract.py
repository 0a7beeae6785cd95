"""The jackpot coordinator contract (CSP-08..CSP-12), run on both coordinators (in-process and
Redis): exactly-once contributions, one global order with leases, payouts in that order by the
CSP-09 arithmetic, reseeds, durable payout records and the pool's history."""

from __future__ import annotations

from server.jackpot.base import Claim, Coordinator, PoolState
from server.rules.caribbean_payout import CaribbeanSettings, Contribution
from tests.jackpot.conftest import LEASE, FakeClock

S = CaribbeanSettings(reset_amount=10_000, royal_minimum=10_000)  # a small world: $100 each
SPLIT = CaribbeanSettings(split_pools=True, reset_amount=10_000, minor_reset_amount=2_000)


def contribution(hand: str, seat: int, wager: int = 100, s: CaribbeanSettings = S
                 ) -> Contribution:
    minor, major, house = s.split_wager(wager)
    return Contribution(hand, seat, wager, minor + major, minor, major, house)


def balanced(st: PoolState) -> bool:
    return st.contributed + st.seeded == st.paid + st.minor + st.major


async def test_csp12_contributions_are_added_exactly_once_whatever_retries(
        coord: Coordinator) -> None:
    """CSP-12: a contribution is keyed by hand and seat; retries and repeats add nothing."""
    await coord.register("t1.1", owner="p")
    cs = [contribution("t1.1", 0), contribution("t1.1", 2, 1000)]
    for _ in range(3):
        await coord.report("t1.1", owner="p", table="t1", settings=S, contributions=cs,
                           claims=[])
    await coord.report("t1.2", owner="p", table="t1", settings=S, contributions=cs[:1],
                       claims=[])
    st = await coord.state()
    assert st.major == 70 + 700 and st.contributed == 770 and st.house == 30 + 300
    assert balanced(st)
    entries = [e for e in await coord.history() if e.kind == "contribution"]
    assert [(e.key, e.amount, e.after) for e in entries] == [("t1.1:0", 70, 70),
                                                             ("t1.1:2", 700, 770)]


async def test_csp10_register_gives_one_global_order_idempotently(coord: Coordinator) -> None:
    """CSP-10: tickets follow registration order; a retried registration keeps its ticket."""
    a = await coord.register("t1.1", owner="p")
    b = await coord.register("t2.1", owner="q")
    assert await coord.register("t1.1", owner="p") == a
    assert b > a


async def test_csp10_claims_paid_in_eligibility_order_not_report_order(
        coord: Coordinator) -> None:
    """CSP-10: the later hand reports first and waits; the earlier hand's claim is paid first,
    against the pool as it stood, then the later one against what is left."""
    await coord.report("seed", owner="p", table="t0", settings=S,
                       contributions=[contribution("seed", s, 10_000) for s in range(5)],
                       claims=[])
    assert (await coord.state()).major == 35_000
    await coord.register("t1.1", owner="p")
    await coord.register("t2.1", owner="q")
    sf = Claim("t2.1", 4, "bob", "straight_flush", 4)
    assert await coord.report("t2.1", owner="q", table="t2", settings=S, contributions=[],
                              claims=[sf]) == []
    assert await coord.due() == []
    royal = Claim("t1.1", 0, "ann", "royal_flush", 0)
    paid = await coord.report("t1.1", owner="p", table="t1", settings=S, contributions=[],
                              claims=[royal])
    assert [(p.key, p.player, p.amount) for p in paid] == [("t1.1:0", "ann", 35_000),
                                                           ("t2.1:4", "bob", 1_000)]
    assert paid[0].ticket < paid[1].ticket and paid[1].owner == "q" and paid[1].table == "t2"
    st = await coord.state()
    # the royal emptied the pool -> reseeded to 10,000; the straight flush took 10% of that
    assert st.major == 10_000 and st.paid == 36_000 and st.seeded == 10_000 + 1_000
    assert balanced(st)
    kinds = [(e.kind, e.hand, e.amount) for e in await coord.history() if e.kind != "contribution"]
    assert kinds == [("payout", "t1.1", 35_000), ("reseed", "t1.1", 10_000),
                     ("payout", "t2.1", 1_000), ("reseed", "t2.1", 1_000)]


async def test_csp10_a_dead_hand_blocks_no_longer_than_its_lease(
        coord: Coordinator, clock: FakeClock) -> None:
    """CSP-10/12: a registered hand that never reports blocks later claims only until its
    lease runs out; a live hand renews its lease; a late report still counts its wagers once
    and its claim is paid at the end of the order."""
    await coord.register("dead.1", owner="p")
    await coord.register("live.1", owner="q")
    await coord.register("t3.1", owner="q")
    flush = Claim("t3.1", 1, "cy", "flush", 9)
    assert await coord.report("t3.1", owner="q", table="t3", settings=S, contributions=[],
                              claims=[flush]) == []
    clock.advance(LEASE * 0.9)
    await coord.renew(["live.1"])
    assert await coord.advance() == []
    clock.advance(LEASE * 0.2)  # dead.1's lease is over; live.1 was renewed
    assert await coord.advance() == []
    await coord.report("live.1", owner="q", table="t2", settings=S, contributions=[],
                       claims=[])
    assert [p.key for p in await coord.due()] == ["t3.1:1"]
    late = await coord.report("dead.1", owner="p", table="t1", settings=S,
                              contributions=[contribution("dead.1", 0)],
                              claims=[Claim("dead.1", 0, "dee", "full_house", 0)])
    assert [(p.key, p.amount) for p in late] == [("dead.1:0", 10_000)]
    assert late[0].ticket > 3
    hist = await coord.history()
    assert [(e.kind, e.hand) for e in hist if e.kind in ("expired", "late")] == [
        ("expired", "dead.1"), ("late", "dead.1")]
    assert balanced(await coord.state())


async def test_csp12_payout_records_are_durable_until_credited(coord: Coordinator) -> None:
    """CSP-12: a payout record stays due until credited; crediting twice changes nothing and
    a repeated report pays nothing again."""
    await coord.register("t1.1", owner="p")
    claim = Claim("t1.1", 3, "ann", "flush", 3)
    first = await coord.report("t1.1", owner="p", table="t1", settings=S, contributions=[],
                               claims=[claim])
    again = await coord.report("t1.1", owner="p", table="t1", settings=S, contributions=[],
                               claims=[claim])
    assert [p.amount for p in first] == [5_000] and again == []
    assert await coord.due("q") == [] and await coord.due("p") == first
    await coord.credited("t1.1:3")
    await coord.credited("t1.1:3")
    assert await coord.due() == []
    st = await coord.state()
    assert st.paid == 5_000 and st.major == 10_000 and balanced(st)  # shortfall + reseed


async def test_csp09_one_round_several_claims_and_csp11_split_pools(
        coord: Coordinator) -> None:
    """CSP-09 in one round (fixed amounts first, then straight flush on what is left) and
    CSP-11 split pools: the minor pool pays flush/full house/quads, the major the flushes."""
    cs = [contribution("r.0", s, 100_000, SPLIT) for s in range(2)]
    await coord.report("r.0", owner="p", table="t1", settings=SPLIT, contributions=cs,
                       claims=[])
    st = await coord.state()
    assert (st.minor, st.major, st.split) == (40_000, 100_000, True)
    claims = [Claim("r.1", 0, "a", "flush", 0), Claim("r.1", 1, "b", "straight_flush", 1),
              Claim("r.1", 2, "c", "four_of_a_kind", 2)]
    await coord.register("r.1", owner="p")
    paid = await coord.report("r.1", owner="p", table="t1", settings=SPLIT, contributions=[],
                              claims=claims)
    assert {p.seat: p.amount for p in paid} == {0: 5_000, 1: 10_000, 2: 50_000}
    st = await coord.state()
    # minor 40,000 - 55,000: 15,000 shortfall, then reseeded to 2,000; major 90,000
    assert (st.minor, st.major) == (2_000, 90_000) and balanced(st)
    kinds = {(e.kind, e.pool, e.amount) for e in await coord.history()}
    assert {("shortfall", "minor", 15_000), ("reseed", "minor", 2_000)} <= kinds


async def test_history_lists_every_contribution_payout_and_reseed_with_hand_ids(
        coord: Coordinator) -> None:
    """Operators read the pool's history: kinds, hand ids, keys and amounts, paged."""
    await coord.register("t9.1", owner="p")
    await coord.report("t9.1", owner="p", table="t9", settings=S,
                       contributions=[contribution("t9.1", 1)],
                       claims=[Claim("t9.1", 0, "a", "four_of_a_kind", 0)])
    hist = await coord.history()
    assert [(e.seq, e.kind, e.hand, e.key) for e in hist] == [
        (0, "contribution", "t9.1", "t9.1:1"), (1, "payout", "t9.1", "t9.1:0"),
        (2, "shortfall", "t9.1", ""), (3, "reseed", "t9.1", "")]
    assert [e.seq for e in await coord.history(2, 5)] == [2, 3]
    assert hist[1].as_dict()["amount"] == 50_000
