"""A tournament's director end to end on a fake clock: sit-and-gos and multi-table
tournaments played to the end by test players, every log refereed by the checker
(docs/rules.md section 5)."""

from __future__ import annotations

import functools

import pytest

from server.tournament.director import Director
from tests.tournament.checker import check_log
from tests.tournament.driver import Room

pytestmark = pytest.mark.asyncio


def _create(room: Room, **fields: object) -> Director:
    base: dict[str, object] = {"name": "Test", "game": "holdem", "structure": "no_limit",
                               "kind": "sng", "buy_in": 100, "fee": 10, "capacity": 6,
                               "settings": {"starting_stack": 1000, "seats": 6,
                                            "preset": "turbo"}}
    base.update(fields)
    return room.hall.create(base, host=None)


async def _enter(room: Room, d: Director, players: list[str]) -> None:
    for p in players:
        room.wallet.ensure(p, 10_000)
        code = await d.ask(functools.partial(d.register, p, p.title()))
        assert code is None, code


async def test_a_sit_and_go_plays_to_the_end_tour_03_11_12() -> None:
    """TOUR-03 (starts when full), TOUR-11 (places), TOUR-12 (prizes sum to the pool)."""
    room = Room(seed=3, all_in=0.05)
    d = _create(room)
    await _enter(room, d, [f"p{i}" for i in range(6)])
    assert d.state == "running"
    await room.run(d)
    assert d.state == "finished"
    assert_places(d, 6)
    assert sum(d.prizes.values()) == d.pool == 600
    assert check_log(d.log) == []


def assert_places(d: Director, n: int) -> None:
    """Every place 1..n covered once: a group tied at place p covers p..p+k-1."""
    covered: list[int] = []
    by_place: dict[int, int] = {}
    for pl in d.places.values():
        by_place[pl] = by_place.get(pl, 0) + 1
    for pl, k in by_place.items():
        covered += range(pl, pl + k)
    assert sorted(covered) == list(range(1, n + 1)), d.places


@pytest.mark.parametrize(("game", "structure", "seed"), [
    ("holdem", "no_limit", 1), ("holdem", "no_limit", 2), ("manila", "pot_limit", 3),
    ("stud7", "fixed_limit", 4), ("draw", "fixed_limit", 5), ("manila3", "no_limit", 6),
    ("stud5", "fixed_limit", 7),
])
async def test_a_multi_table_tournament_balances_breaks_and_finishes(
        game: str, structure: str, seed: int) -> None:
    """TOUR-04 (the draw), TOUR-06/07 (balancing), TOUR-08 (breaking, the final table),
    TOUR-09 (movers dealt in), TOUR-10 (hand-for-hand), TOUR-11/12, refereed by the checker
    on every decision."""
    room = Room(seed=seed, all_in=0.15)
    n = 27
    d = _create(room, game=game, structure=structure, kind="scheduled", capacity=40,
                starts_at=room.clock.wall() + 60, min_field=10,
                settings={"starting_stack": 1500, "seats": 5, "preset": "turbo"})
    await _enter(room, d, [f"p{i:02d}" for i in range(n)])
    await d.ask(d.start_scheduled)
    assert d.state == "running" and len(d.tables) == 6
    await room.run(d)
    assert d.state == "finished"
    assert_places(d, n)
    assert sum(d.prizes.values()) == d.pool == 100 * n
    kinds = {r["kind"] for r in d.log}
    assert {"move", "close_table", "payout", "finish"} <= kinds, kinds
    assert check_log(d.log) == []
    if seed == 1:  # (this draw reaches the bubble on two tables)
        assert "hand_for_hand" in kinds


async def test_an_away_player_is_dealt_in_posts_and_is_folded_tour_13() -> None:
    """TOUR-13: a player who never acts (away, or sitting out) is still dealt every hand,
    posts every blind, and is folded (or checked) when the clock runs out, until out."""
    room = Room(seed=8, all_in=0.0)
    d = _create(room, capacity=4, settings={"starting_stack": 600, "seats": 4,
                                             "preset": "hyper"})
    room.idle = {"p3"}
    await _enter(room, d, ["p0", "p1", "p2", "p3"])
    await room.run(d, until=lambda: "p3" in d.places or d.state == "finished")
    dealt = [r for r in d.log if r["kind"] == "hand_start" and "p3" in r["players"]]
    starts = [r for r in d.log if r["kind"] == "hand_start"]
    assert len(dealt) == len(starts) >= 3  # every hand until out
    assert "p3" in d.places  # blinded away, never folded out of the tournament
    assert check_log(d.log) == []


async def test_late_entries_and_re_entries_are_seated_tour_14() -> None:
    """TOUR-14: registration stays open to the end of level `late_until`; a late entrant is
    seated at the table with the fewest players, and a player out may enter again."""
    room = Room(seed=9, all_in=0.2)
    d = _create(room, kind="scheduled", capacity=30, min_field=4,
                starts_at=room.clock.wall() + 10,
                settings={"starting_stack": 1000, "seats": 6, "preset": "turbo",
                          "late_until": 3, "re_entries": 1})
    await _enter(room, d, [f"p{i}" for i in range(10)])
    await d.ask(d.start_scheduled)
    assert [r["kind"] for r in d.log if r["kind"] == "prizes"] == []  # not fixed yet
    await room.run(d, until=lambda: len(d.places) >= 1)
    out = next(iter(d.places))
    late = "late1"
    room.wallet.ensure(late, 10_000)
    assert await d.ask(lambda: d.register(late, "Late")) is None
    assert await d.ask(lambda: d.register(out, out)) is None  # a re-entry
    assert await d.ask(lambda: d.register(out, out)) in ("already_registered",)
    kinds = [(r["kind"], r.get("why")) for r in d.log]
    assert ("enter", "late") in kinds and ("enter", "re_entry") in kinds
    await room.run(d)
    assert d.state == "finished"
    assert d.pool == 100 * 12
    assert sum(d.prizes.values()) == d.pool
    assert [r for r in d.log if r["kind"] == "prizes"][0]["pool"] == 1200
    assert check_log(d.log) == []


async def test_a_mixed_rotation_plays_a_game_per_level_tour_05() -> None:
    """TOUR-05: in a mixed tournament each level names its game; a table changes game only
    between hands."""
    room = Room(seed=10, all_in=0.1)
    d = _create(room, game="holdem", structure="fixed_limit", capacity=6,
                settings={"starting_stack": 2000, "seats": 6, "preset": "turbo",
                          "rotation": ["holdem", "stud7", "draw"]})
    await _enter(room, d, [f"p{i}" for i in range(6)])
    await room.run(d)
    assert d.state == "finished"
    games = [r["game"] for r in d.log if r["kind"] == "level"]
    assert games[:3] == ["holdem", "stud7", "draw"]
    hands = [r for r in d.log if r["kind"] == "hand_start"]
    by_level = {r["level"] for r in hands}
    assert len(by_level) >= 2
    assert check_log(d.log) == []


async def test_rebuys_and_an_add_on_buy_chips_between_hands_tour_14() -> None:
    """TOUR-14: a rebuy (at most the starting stack, until the end of level `rebuy_until`)
    and one add-on per entry at the break after the rebuys; each pays the buy-in to the pool
    and gives its chips; out of their windows they are refused `not_allowed`."""
    room = Room(seed=12, all_in=0.0)
    d = _create(room, capacity=3, settings={
        "starting_stack": 1000, "seats": 3, "rebuy_until": 1, "add_on": 1500,
        "levels": [{"blinds": [2, 4], "minutes": 3}, {"blinds": [20, 40], "minutes": 2},
                   {"blinds": [40, 80], "minutes": 5}],
        "breaks": [{"after_level": 1, "minutes": 1}]})
    await _enter(room, d, ["p0", "p1", "p2"])
    await room.settle(d)
    assert await d.ask(lambda: d.buy_chips("p0", "add_on")) == "not_allowed"  # not yet

    def short() -> str | None:  # a player at most at the starting stack, between hands
        if any(t.in_hand for t in d.tables.values()) or d.level != 1:
            return None
        return next((p for p in ("p0", "p1", "p2") if 0 < d.stacks.get(p, 0) <= 1000), None)
    await room.run(d, until=lambda: short() is not None and max(d.stacks.values()) > 1000)
    who = short()
    assert who is not None
    rich = next(p for p in ("p0", "p1", "p2") if d.stacks.get(p, 0) > 1000)
    assert await d.ask(lambda: d.buy_chips(rich, "rebuy")) == "not_allowed"  # too many chips
    you = room.hall.state_for(d, who)["you"]  # what the page shows: the Rebuy button
    assert you["rebuy"] is True and you["add_on"] is False
    assert room.hall.state_for(d, rich)["you"]["rebuy"] is False
    assert await d.ask(lambda: d.buy_chips(who, "rebuy")) is None
    assert d.pool == 400
    await room.run(d, until=lambda: d.on_break and not any(
        t.in_hand for t in d.tables.values()))
    assert await d.ask(lambda: d.buy_chips(who, "rebuy")) == "not_allowed"  # level 1 over
    taker = next(p for p in ("p0", "p1", "p2") if p in d.stacks)
    assert await d.ask(lambda: d.buy_chips(taker, "add_on")) is None
    assert await d.ask(lambda: d.buy_chips(taker, "add_on")) == "not_allowed"  # once
    assert d.pool == 500 and d.bought == 2500
    await room.run(d)
    assert d.state == "finished" and sum(d.prizes.values()) == 500
    assert [(r["player"], r["why"]) for r in d.log if r["kind"] == "chips"] == [
        (who, "rebuy"), (taker, "add_on")]
    assert check_log(d.log) == []


async def test_the_time_bank_is_refilled_at_each_new_level_tour_13() -> None:
    """TOUR-13: each new level tops every seated player's time bank up by the structure's
    `time_bank_refill`, never above the table's cap (`Config.time_bank`)."""
    room = Room(seed=14, all_in=0.0)
    d = _create(room, capacity=3, settings={
        "starting_stack": 5000, "seats": 3, "time_bank_refill": 2.0,
        "levels": [{"blinds": [5, 10], "minutes": 1}, {"blinds": [10, 20], "minutes": 30}]})
    await _enter(room, d, ["p0", "p1", "p2"])
    await room.settle(d)
    (table,) = d.tables.values()
    seats = [st for _, st in table.actor.seats.occupied()]
    for st in seats:  # as if each had used most of their bank
        st.bank = 1.0
    await room.run(d, until=lambda: d.level == 2 and table.level == 2)
    assert all(st.bank == pytest.approx(3.0) for st in seats), [st.bank for st in seats]
    for st in seats:
        st.bank = 4.5  # near the cap of 5 seconds: topped up to the cap only
    await room.run(d, until=lambda: d.level == 3 and table.level == 3)
    assert all(st.bank == pytest.approx(5.0) for st in seats)
