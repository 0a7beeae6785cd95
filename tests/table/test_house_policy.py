"""GEN-09 / GEN-10 / CSP-13: house revenue and the jackpot terms are the operator's (the
``house policy`` section of ``Config``), never a table creator's; the ceilings of stakes,
buy-ins and the pool; the waiting list refuses a bad buy-in at once."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from protocol.errors import ProtocolError
from server.config import Config
from server.table.settings import HouseSpec, PotSpec
from tests.table.helpers import Harness, round_of
from tests.table.test_table_behaviour import CFG

HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [50, 100]}, "seats": 6}
CSP: dict[str, Any] = {"variant": "caribbean", "stakes": {"min": 10, "max": 100}, "seats": 5}


def refused(h: Harness, **fields: Any) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        h.create(**fields)
    return info.value


@pytest.mark.parametrize("fields", [
    {**CSP, "stakes": {"min": 10, "max": 100, "jackpot_wager": 1}},
    {**CSP, "settings": {"reset_amount": 2**53 - 1}},
    {**CSP, "settings": {"pool_share_bp": 10_000}},
    {**CSP, "settings": {"split_pools": True, "minor_share_bp": 10_000}},
    {**CSP, "settings": {"minor_reset_amount": 1}},
    {**CSP, "settings": {"royal_minimum": 1}},
    {**CSP, "settings": {"jackpot_royal_minimum": 1}},
    {**CSP, "settings": {"paytable": [10_000, 1_000, 1, 1, 1]}},
    {**HOLDEM, "settings": {"rake_bp": 20_000}},
    {**HOLDEM, "settings": {"rake_bp": 1}},
])
async def test_gen10_csp13_a_creator_cannot_set_house_terms(fields: dict[str, Any]) -> None:
    """The jackpot terms and a rake above the operator's maximum are refused with
    ``house_policy``; no table opens."""
    h = Harness(config=CFG)
    assert refused(h, **fields).code == "house_policy"
    assert h.registry.tables() == []


async def test_csp13_every_caribbean_table_has_the_operators_terms() -> None:
    cfg = dataclasses.replace(CFG, jackpot_wager=25, jackpot_reset=50_000,
                              jackpot_royal_minimum=80_000, jackpot_pool_share_bp=6_000,
                              jackpot_paytable=(10_000, 500, 4_000, 2_000, 1_000))
    h = Harness(config=cfg)
    a = h.create(**CSP)
    b = h.create(**{**CSP, "stakes": {"min": 50, "max": 500},
                    "settings": {"dealing_mode": "shoe"}})
    for t in (a, b):
        assert isinstance(t.spec, HouseSpec)
        terms = t.spec.caribbean
        assert (terms.jackpot_wager, terms.reset_amount, terms.pool_share_bp) == (25, 50_000,
                                                                                 6_000)
        assert (terms.jackpot.straight_flush_bp, terms.jackpot.flush) == (500, 1_000)
        assert terms.max_pool == cfg.max_pool
        assert terms.royal_minimum == 80_000  # CSP-09: its own term, not the reset
    assert isinstance(b.spec, HouseSpec) and b.spec.caribbean.ante_min == 50  # the creator's
    entries = {e["table"]: e for e in h.registry.tables()}
    assert entries[a.table_id]["jackpot_terms"] == {
        "wager": 25, "reset": 50_000, "royal_min": 80_000, "share_bp": 6_000,
        "paytable": {"royal_flush_bp": 10_000, "straight_flush_bp": 500,
                     "four_of_a_kind": 4_000, "full_house": 2_000, "flush": 1_000}}
    assert entries[a.table_id]["rake"] == {"bp": 0, "cap": 0}


async def test_csp09_the_royal_minimum_is_shown_with_the_jackpot_terms() -> None:
    """CSP-09: the royal flush minimum is a jackpot term of its own that players see in every
    Caribbean lobby entry (``royal_min``, $10,000 by default), apart from the reset amount:
    an operator who reseeds at $5,000 still shows (and pays) a $10,000 minimum."""
    for reset, minimum in ((1_000_000, None), (500_000, None), (2_000_000, 1_500_000)):
        changes: dict[str, Any] = {"jackpot_reset": reset}
        if minimum is not None:
            changes["jackpot_royal_minimum"] = minimum
        h = Harness(config=dataclasses.replace(CFG, **changes))
        t = h.create(**CSP)
        [entry] = h.registry.tables()
        want = 1_000_000 if minimum is None else minimum
        assert (entry["jackpot_terms"]["reset"], entry["jackpot_terms"]["royal_min"]) == (
            reset, want)
        assert isinstance(t.spec, HouseSpec) and t.spec.caribbean.royal_minimum == want


async def test_gen09_gen10_rake_within_the_operators_bounds_and_shown_in_the_lobby() -> None:
    cfg = dataclasses.replace(CFG, rake_bp=500, rake_cap=300, max_rake_bp=1_000,
                              max_rake_cap=500)
    h = Harness(config=cfg)
    house = h.create(**HOLDEM)  # the operator's default
    low = h.create(**{**HOLDEM, "settings": {"rake_bp": 250, "rake_cap": 100}})
    assert refused(h, **{**HOLDEM, "settings": {"rake_bp": 1_001}}).code == "house_policy"
    assert refused(h, **{**HOLDEM, "settings": {"rake_cap": 501}}).code == "house_policy"
    assert refused(h, **{**HOLDEM, "settings": {"rake_cap": 0}}).code == "house_policy"
    rake = {e["table"]: e["rake"] for e in h.registry.tables()}
    assert rake == {house.table_id: {"bp": 500, "cap": 300},
                    low.table_id: {"bp": 250, "cap": 100}}
    assert isinstance(house.spec, PotSpec) and house.spec.rules.rake_on(100_000, 1) == 300


def test_gen10_config_refuses_an_incoherent_house_policy() -> None:
    for bad in ({"rake_bp": 100}, {"max_rake_bp": 20_000}, {"max_pool": 2**53 - 1},
                {"jackpot_reset": 10**12}, {"jackpot_paytable": (1, 2, 3)},
                {"jackpot_royal_minimum": -1}, {"jackpot_royal_minimum": 9 * 10**11 + 1},
                {"jackpot_royal_minimum": True},
                {"jackpot_wager": 0}, {"max_balance": 2**53}, {"jackpot_pool_share_bp": -1},
                {"jackpot_minor_share_bp": 6_000, "jackpot_major_share_bp": 6_000},
                {"starting_balance": 10, "max_balance": 5}):
        with pytest.raises(ValueError):
            Config(**bad)


async def test_gen10_stakes_and_buy_ins_past_the_ceilings_are_refused() -> None:
    cfg = dataclasses.replace(CFG, max_stake=1_000, max_buy_in=50_000)
    h = Harness(config=cfg)
    assert refused(h, **{**HOLDEM, "stakes": {"blinds": [500, 1_001]}}).code == "limit_exceeded"
    assert refused(h, **{**CSP, "stakes": {"min": 10, "max": 1_001}}).code == "limit_exceeded"
    assert refused(h, **{**HOLDEM, "settings": {"max_buy_in": 50_001}}).code \
        == "limit_exceeded"
    t = h.create(**{**HOLDEM, "stakes": {"blinds": [500, 1_000]}})
    assert (t.spec.min_buy_in, t.spec.max_buy_in) == (20_000, 50_000)  # 100 bb clamped


async def test_waiting_list_refuses_an_invalid_buy_in_at_once() -> None:
    """A sit on a full table with a buy-in outside the limits is refused (``bad_buy_in``) and
    not queued; a valid one is queued and seated later with exactly that buy-in."""
    h = Harness(config=CFG)
    t = h.create(**{**HOLDEM, "seats": 2})
    alice, bob = h.player("alice"), h.player("bob")
    await h.send(t, alice, "sit", seat=0, buy_in=5_000)
    await h.send(t, bob, "sit", seat=1, buy_in=5_000)
    carol, dave = h.player("carol"), h.player("dave")
    for buy_in in (1, 10_001):
        answer = await h.send(t, carol, "sit", seat=0, buy_in=buy_in)
        assert answer["code"] == "bad_buy_in", answer
    assert t.seats.waiting == []
    assert (await h.send(t, dave, "sit", seat=0, buy_in=7_000))["code"] == "table_full"
    assert [w.player_id for w in t.seats.waiting] == ["dave"]
    await h.send(t, bob, "leave")
    await h.advance(t, 1.0)
    seated = {s.player_id: s.stack for s in t.seats if s is not None}
    assert seated.get("dave") == 7_000 and h.wallet.balance("dave") == 100_000 - 7_000


async def test_gen10_a_jackpot_wager_is_refused_while_the_pool_is_at_the_ceiling() -> None:
    cfg = dataclasses.replace(CFG, jackpot_wager=5, jackpot_reset=1_000, max_pool=1_000)
    h = Harness(config=cfg)
    t = h.create(**CSP)
    alice = h.player("alice")
    await h.send(t, alice, "sit", seat=0, buy_in=1_000)
    await h.advance(t, 2.0)
    assert t.engine is not None and round_of(t).phase == "antes"
    answer = await h.send(t, alice, "act", action="ante", amount=20, jackpot=True)
    assert answer["code"] == "limit_exceeded", answer
    assert (await h.send(t, alice, "act", action="ante", amount=20))["type"] == "ok"
    assert t.seats[0] is not None


def test_gen10_the_house_policy_is_set_from_the_command_line() -> None:
    """`poker-server --set jackpot_paytable=...` (tuple) and the other fields coerce and
    validate like every Config field."""
    from server.main import _coerce

    assert _coerce("jackpot_paytable", "10000, 500, 1, 2, 3") == (10_000, 500, 1, 2, 3)
    assert _coerce("max_rake_bp", "500") == 500 and _coerce("jackpot_split", "on") is True
    cfg = Config(jackpot_paytable=_coerce("jackpot_paytable", "10000,500,1,2,3"))
    assert cfg.jackpot_paytable[1] == 500
