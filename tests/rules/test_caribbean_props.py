"""Caribbean Stud properties over random decks, seats, antes and decisions (CSP-01..CSP-12).

Money is conserved per round, in this precise sense (``initial`` = the stacks the round
started with; jackpot *payouts* never pass through a round, the coordinator pays them):

    sum(final stacks) + house_net + jackpot_collected == sum(initial stacks)

where ``house_net`` is the house's result on antes and call bets only and ``jackpot_collected``
the jackpot wagers collected (each split into pool share + house jackpot share by
``contributions()``).  The payout side balances per pool:
``before + house_shortfall + seed == after + paid``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from server.rules.cards import make_deck
from server.rules.caribbean import (
    MAX_PLAYERS,
    MINOR_KEYS,
    CaribbeanRound,
    CaribbeanSettings,
    JackpotClaim,
    RoundEnded,
    Settled,
    jackpot_payouts,
    split_jackpot_payouts,
)
from server.rules.errors import IllegalAction
from tests.rules.variant_helpers import house_options

SETTINGS = [
    CaribbeanSettings(),
    CaribbeanSettings(dealing_mode="shoe"),
    CaribbeanSettings(ante_min=5, ante_max=60, jackpot_wager=10),
    CaribbeanSettings(ante_min=5, ante_max=60, jackpot_wager=7, split_pools=True,
                      minor_share_bp=2_500, major_share_bp=4_999),
]
ABSENT_SEAT = 42

Action = tuple[str, tuple[Any, ...], dict[str, Any]]


def is_offered(rnd: CaribbeanRound, action: Action) -> bool:
    """Whether ``options()`` (and the phase, for ``deal``) offers exactly this action."""
    name, args, kw = action
    if name == "deal":
        return rnd.phase == "antes"
    opts: dict[str, Any] = house_options(rnd, args[0])
    if name == "ante":
        amount, jackpot = args[1], kw.get("jackpot", False)
        limits = opts.get("ante")
        if limits is None or not isinstance(amount, int):
            return False
        if jackpot:
            jp = opts.get("jackpot")
            return jp is not None and limits["min"] <= amount <= jp["max_ante"]
        return bool(limits["min"] <= amount <= limits["max"])
    if name == "timeout":
        return "sit_out" in opts or "fold" in opts
    return name in opts


def apply(rnd: CaribbeanRound, action: Action) -> list[Any]:
    name, args, kw = action
    return list(getattr(rnd, name)(*args, **kw))


def random_action(data: st.DataObject, rnd: CaribbeanRound, seats: list[int]) -> Action:
    """Any action at all, mostly near the legal ones."""
    s = rnd.settings
    name = data.draw(st.sampled_from(["ante", "sit_out", "play", "fold", "timeout", "deal"]))
    if name == "deal":
        return ("deal", (), {})
    seat = data.draw(st.sampled_from([*seats, ABSENT_SEAT]))
    if name != "ante":
        return (name, (seat,), {})
    amount = data.draw(st.one_of(
        st.integers(s.ante_min - 1, s.ante_max + 1),
        st.sampled_from([s.ante_min, s.ante_max, 0, -1, "100", None]),
    ))
    return ("ante", (seat, amount), {"jackpot": data.draw(st.booleans())})


def offered_action(data: st.DataObject, rnd: CaribbeanRound, seat: int) -> Action | None:
    """One of the actions ``options(seat)`` offers (None when it offers nothing)."""
    opts: dict[str, Any] = house_options(rnd, seat)
    if not opts:
        return None
    kinds = sorted(k for k in opts if k != "jackpot") + ["timeout"]
    if "ante" in opts:
        kinds = ["ante"] * 6 + kinds  # mostly ante, sometimes sit out or time out
    choice = data.draw(st.sampled_from(kinds))
    if choice != "ante":
        return (choice, (seat,), {})
    jp = opts["jackpot"]
    jackpot = jp is not None and data.draw(st.booleans())
    top = jp["max_ante"] if jackpot else opts["ante"]["max"]
    return ("ante", (seat, data.draw(st.integers(opts["ante"]["min"], top))), {"jackpot": jackpot})


def check_step(rnd: CaribbeanRound, action: Action) -> bool:
    """Apply ``action``: offered ones must be accepted, the rest refused with no change."""
    before = rnd.snapshot()
    if is_offered(rnd, action):
        apply(rnd, action)
        assert all(v >= 0 for v in rnd.stacks.values())
        return True
    try:
        apply(rnd, action)
    except IllegalAction as err:
        assert rnd.snapshot() == before
        event(f"refused {err.reason}")
        return False
    raise AssertionError(f"{action} was not offered but accepted")


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.large_base_example]
)
@given(
    deck=st.permutations(make_deck()),
    seats=st.lists(st.integers(0, 9), min_size=1, max_size=MAX_PLAYERS, unique=True),
    setting=st.sampled_from(SETTINGS),
    data=st.data(),
)
def test_csp01_to_csp08_random_rounds_conserve_chips_and_replay(
    deck: list[str], seats: list[int], setting: CaribbeanSettings, data: st.DataObject
) -> None:
    """CSP-01..CSP-08: every offered option is accepted, everything else refused unchanged;
    chips are conserved; the house wins what the players lose; replay is identical."""
    stacks = {s: data.draw(st.integers(0, 3_000), label=f"stack{s}") for s in seats}
    rnd = CaribbeanRound(setting, stacks, deck, round_id="p")
    script: list[Action] = []
    for step in range(60):  # the ante phase; the table closes it at the latest at step 59
        waiting = [s for s in seats if house_options(rnd, s)]
        action: Action | None
        if step < 59 and data.draw(st.integers(0, 3)) == 3:  # any action, legal or not
            action = random_action(data, rnd, seats)
        elif step == 59 or not waiting or data.draw(st.integers(0, 29)) == 29:
            action = ("deal", (), {})
        else:
            action = offered_action(data, rnd, data.draw(st.sampled_from(waiting)))
        assert action is not None
        if check_step(rnd, action):
            script.append(action)
        if rnd.phase != "antes":
            break
    for step in range(60):  # the decisions; the clock folds whoever is left at step 59
        if rnd.phase != "decisions":
            break
        waiting = [s for s in seats if house_options(rnd, s)]
        if step == 59:
            for seat in waiting:
                assert check_step(rnd, ("timeout", (seat,), {}))
                script.append(("timeout", (seat,), {}))
            break
        if data.draw(st.integers(0, 3)) == 3:
            action = random_action(data, rnd, seats)
        else:
            action = offered_action(data, rnd, data.draw(st.sampled_from(waiting)))
        assert action is not None
        if check_step(rnd, action):
            script.append(action)
    assert rnd.phase in ("ended", "void")
    event(f"dealt {sum(isinstance(e, Settled) for e in rnd.events)} seat(s)")
    event(f"ended {rnd.phase}, claims: {bool(rnd.jackpot_claims())}")

    end = rnd.events[-1]
    assert isinstance(end, RoundEnded) and end.stacks == rnd.stacks
    results = {e.seat: e for e in rnd.events if isinstance(e, Settled)}
    # chips conserved (module docstring) and the house wins what the players lose
    assert sum(rnd.stacks.values()) + end.house_net + end.jackpot_collected == sum(stacks.values())
    assert end.house_net == -sum(r.ante + r.play for r in results.values())
    for seat in seats:
        r = results.get(seat)
        change = r.ante + r.play + r.jackpot if r else 0
        assert rnd.stacks[seat] == stacks[seat] + change >= 0
    # jackpot flows: each collected wager once, split without loss; claims are real hands
    contributions = rnd.contributions()
    assert sum(c.wager for c in contributions) == end.jackpot_collected
    for c in contributions:
        assert c.to_pool + c.to_house == c.wager and c.to_minor + c.to_major == c.to_pool
        assert c.wager == setting.jackpot_wager and -results[c.seat].jackpot == c.wager
    for claim in rnd.jackpot_claims():
        r = results[claim.seat]
        assert not r.folded and r.jackpot == 0 and r.jackpot_hand == claim.hand
    # replay: same deck, same accepted actions -> identical events
    again = CaribbeanRound(setting, stacks, deck, round_id="p")
    for action in script:
        apply(again, action)
    assert again.events == rnd.events


HANDS = sorted(MINOR_KEYS) + ["straight_flush", "royal_flush"]


@given(
    pool=st.integers(0, 5_000_000),
    minor=st.integers(0, 500_000),
    hands=st.dictionaries(st.integers(0, 8), st.sampled_from(HANDS), max_size=9),
    split=st.booleans(),
)
def test_csp09_csp11_payouts_balance_and_pay_each_claim_once(
    pool: int, minor: int, hands: dict[int, str], split: bool
) -> None:
    """CSP-09/11/12: every claim paid once, in full, pools never negative, money balances."""
    claims = [JackpotClaim("r", seat, hand, seat, "shoe") for seat, hand in hands.items()]
    if split:
        setting = CaribbeanSettings(split_pools=True)
        res = split_jackpot_payouts(minor, pool, claims, setting)
        outcomes = [res.minor, res.major]
        payouts = res.payouts
    else:
        setting = CaribbeanSettings()
        single = jackpot_payouts(pool, claims, setting)
        outcomes, payouts = [single.pool], single.payouts
    assert sorted(payouts) == sorted(hands)
    assert sum(payouts.values()) == sum(o.paid for o in outcomes)
    for seat, hand in hands.items():
        if hand in MINOR_KEYS:
            assert payouts[seat] == setting.jackpot.fixed(hand)
        elif hand == "royal_flush":
            assert payouts[seat] >= setting.royal_minimum  # CSP-09: not the reset amount
    for o in outcomes:
        assert o.before + o.house_shortfall + o.seed == o.after + o.paid
        assert o.after >= 0 and o.house_shortfall >= 0 and o.seed >= 0
        if o.paid == 0:
            assert o.after == o.before and o.seed == 0
    if not split and payouts and single.pool.paid:  # CSP-08: a payout reseeds the pool
        assert single.pool_after >= setting.reset_amount
