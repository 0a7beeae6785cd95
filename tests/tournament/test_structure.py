"""The tournament structure: presets, building from untrusted data, the level clock
(TOUR-05 levels and breaks, TOUR-13's time bank refill setting, TOUR-14's entry settings)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.rules.structure import STRUCTURES, Stakes, check_stakes
from server.rules.variants import VARIANTS
from server.tournament.structure import (
    PRESETS,
    Break,
    ClockState,
    Level,
    LevelClock,
    Structure,
    StructureError,
    build_structure,
    preset_levels,
)

NL = "no_limit"


def _timed(*minutes: float) -> tuple[Level, ...]:
    return tuple(Level(i, "holdem", NL, Stakes(blinds=(i, 2 * i)), m)
                 for i, m in enumerate(minutes, start=1))


# --- presets -------------------------------------------------------------------------------


def test_tour05_regular_preset_holdem_hand_worked() -> None:
    """TOUR-05: regular = 20 levels of 15 minutes, big blind from a hundredth of the stack,
    about 1.5x a level, antes of about bb/8 from level 4."""
    levels = preset_levels("regular", game="holdem", structure=NL, starting_stack=10_000)
    assert len(levels) == 20
    assert [lv.number for lv in levels] == list(range(1, 21))
    assert all(lv.minutes == 15.0 and lv.hands == 0 for lv in levels)
    assert [lv.stakes.blinds for lv in levels[:6]] == [
        (50, 100), (75, 150), (125, 250), (200, 400), (300, 600), (500, 1000)]
    assert [lv.stakes.ante for lv in levels[:6]] == [0, 0, 0, 50, 60, 120]
    assert levels[-1].stakes.blinds == (300_000, 600_000)


def test_tour05_turbo_and_hyper_presets() -> None:
    turbo = preset_levels("turbo", game="holdem", structure=NL, starting_stack=10_000)
    hyper = preset_levels("hyper", game="holdem", structure=NL, starting_stack=10_000)
    assert {lv.minutes for lv in turbo} == {8.0}
    assert {lv.minutes for lv in hyper} == {4.0}
    assert turbo[0].stakes.blinds == (50, 100)
    assert hyper[0].stakes.blinds == (100, 200)  # a 50th of the stack


def test_tour05_stud_preset_has_antes_bring_in_and_limits_not_blinds() -> None:
    levels = preset_levels("regular", game="stud7", structure="fixed_limit",
                           starting_stack=10_000)
    first = levels[0].stakes
    assert first == Stakes(ante=20, bring_in=30, small_bet=100, big_bet=200)
    assert all(not lv.stakes.blinds and lv.stakes.ante > 0 for lv in levels)
    assert all(lv.stakes.bring_in <= lv.stakes.small_bet for lv in levels)


def test_tour05_limit_presets_set_their_bets() -> None:
    fixed = preset_levels("regular", game="holdem", structure="fixed_limit",
                          starting_stack=1500)
    assert fixed[0].stakes == Stakes(blinds=(10, 20), small_bet=20, big_bet=40)
    spread = preset_levels("regular", game="draw", structure="spread_limit",
                           starting_stack=1500)
    assert spread[0].stakes == Stakes(blinds=(10, 20), min_bet=20, max_bet=80)
    stud = preset_levels("turbo", game="stud5", structure="spread_limit", starting_stack=1500)
    assert stud[0].stakes.min_bet == 20 and stud[0].stakes.max_bet == 80


def test_preset_with_a_tiny_or_huge_stack_stays_in_bounds() -> None:
    tiny = preset_levels("regular", game="holdem", structure=NL, starting_stack=7)
    assert tiny[0].stakes.blinds == (1, 2)
    huge = preset_levels("regular", game="stud7", structure="spread_limit",
                         starting_stack=10**12)
    assert max(lv.stakes.max_bet for lv in huge) <= 10**12
    assert huge[-1].stakes == huge[-2].stakes  # capped: flat at the top


@pytest.mark.parametrize("name, game, structure, stack, message", [
    ("slow", "holdem", NL, 1000, "unknown preset"),
    ("regular", "holdem", "limitless", 1000, "unknown structure"),
    ("regular", "holdem", NL, 0, "starting_stack"),
    ("regular", "caribbean", NL, 1000, "unknown game"),
])
def test_preset_refusals(name: str, game: str, structure: str, stack: int,
                         message: str) -> None:
    with pytest.raises(StructureError, match=message):
        preset_levels(name, game=game, structure=structure, starting_stack=stack)


@given(game=st.sampled_from(sorted(VARIANTS)), structure=st.sampled_from(STRUCTURES),
       name=st.sampled_from(sorted(PRESETS)), stack=st.integers(1, 10**12))
def test_tour05_every_preset_is_playable_and_never_falls(game: str, structure: str,
                                                         name: str, stack: int) -> None:
    """Every preset level passes check_stakes for its structure; amounts never decrease."""
    levels = preset_levels(name, game=game, structure=structure, starting_stack=stack)
    for lv in levels:
        assert check_stakes(lv.structure, lv.stakes) is None
        assert lv.stakes.chip == 1
    for a, b in zip(levels, levels[1:], strict=False):
        for field in ("ante", "bring_in", "small_bet", "big_bet", "min_bet", "max_bet"):
            assert getattr(a.stakes, field) <= getattr(b.stakes, field)
        assert a.stakes.blinds <= b.stakes.blinds or not a.stakes.blinds


# --- build_structure -------------------------------------------------------------------------


def test_build_defaults_to_the_regular_preset() -> None:
    s = build_structure({}, game="holdem", structure=NL)
    assert s.starting_stack == 10_000 and s.seats == 9 and len(s.levels) == 20
    assert s.levels == tuple(preset_levels("regular", game="holdem", structure=NL,
                                           starting_stack=10_000))
    assert (s.late_until, s.re_entries, s.rebuy_until, s.add_on, s.breaks) == (0, 0, 0, 0, ())
    assert build_structure({}, game="stud7", structure="fixed_limit").seats == 8  # GEN-07
    hyper = build_structure({"preset": "hyper", "starting_stack": 500}, game="holdem",
                            structure=NL)
    assert hyper.levels[0].minutes == 4.0 and hyper.levels[0].stakes.blinds == (5, 10)


def test_build_explicit_levels_breaks_and_entry_settings() -> None:
    data: dict[str, Any] = {
        "levels": [
            {"blinds": [10, 20], "minutes": 10},
            {"blinds": [15, 30], "ante": 5, "minutes": 12.5},
            {"blinds": [20, 40], "small_bet": 40, "big_bet": 80, "structure": "fixed_limit",
             "hands": 30},
            {"game": "stud7", "ante": 10, "bring_in": 20, "small_bet": 60, "big_bet": 120,
             "structure": "fixed_limit", "minutes": 15},
        ],
        "breaks": [{"after_level": 4, "minutes": 5}, {"after_level": 2, "minutes": 10}],
        "starting_stack": 3000, "seats": 6, "late_until": 2, "re_entries": 1,
        "rebuy_until": 2, "add_on": 3000, "time_bank_refill": 15,
        "buy_in": 100, "shares": [10000],
    }
    s = build_structure(data, game="holdem", structure=NL, ignore=("buy_in",))
    assert s.levels[0] == Level(1, "holdem", NL, Stakes(blinds=(10, 20)), 10.0)
    assert s.levels[1].stakes.ante == 5 and s.levels[1].minutes == 12.5
    assert s.levels[2].hands == 30 and s.levels[2].minutes == 0.0
    assert s.levels[2].structure == "fixed_limit"
    assert s.levels[3].game == "stud7"
    assert s.breaks == (Break(2, 10.0), Break(4, 5.0))  # sorted by level
    assert (s.starting_stack, s.seats, s.late_until, s.re_entries) == (3000, 6, 2, 1)
    assert (s.rebuy_until, s.add_on, s.time_bank_refill) == (2, 3000, 15.0)
    assert s.add_on_break() == 2  # TOUR-14: the first break at or after the rebuy period
    assert s.break_after(4) == Break(4, 5.0) and s.break_after(3) is None
    assert s.seats <= VARIANTS["stud7"].max_seats


def test_tour05_mixed_rotation_names_each_levels_game() -> None:
    s = build_structure({"rotation": ["holdem", "stud7", "draw"]}, game="mixed",
                        structure="fixed_limit")
    assert [lv.game for lv in s.levels[:7]] == ["holdem", "stud7", "draw"] * 2 + ["holdem"]
    assert s.levels[1].stakes.bring_in > 0 and not s.levels[1].stakes.blinds
    assert s.seats == 8  # the fewest any of its games deals to
    given_levels = build_structure(
        {"rotation": ["manila", "holdem"], "levels": [
            {"blinds": [1, 2], "minutes": 5}, {"blinds": [2, 4], "minutes": 5},
            {"blinds": [3, 6], "minutes": 5, "game": "manila3"}]},
        game="mixed", structure=NL)
    assert [lv.game for lv in given_levels.levels] == ["manila", "holdem", "manila3"]
    assert given_levels.seats == 9  # manila3 seats at most 9


def _bad(**over: Any) -> dict[str, Any]:
    level = {"blinds": [10, 20], "minutes": 10}
    level.update(over)
    return {"levels": [level]}


@pytest.mark.parametrize("data, message", [
    ({"colour": "red"}, "unknown structure keys"),
    ({"levels": [], "preset": "turbo"}, "not both"),
    ({"levels": []}, "`levels` must be a list of 1..100"),
    ({"levels": [{"blinds": [1, 2], "minutes": 1}] * 101}, "`levels` must be a list"),
    ({"levels": "fast"}, "`levels` must be a list"),
    ({"levels": [7]}, "level 1: must be an object"),
    (_bad(colour=1), r"level 1: unknown keys \['colour'\]"),
    (_bad(blinds=[10]), "`blinds` must be"),
    (_bad(blinds=[True, 20]), "`blinds` must be"),
    (_bad(blinds="10/20"), "`blinds` must be"),
    (_bad(blinds=[10, 10**12 + 1]), "`blinds` must be"),
    (_bad(ante=-1), "`ante` must be an integer"),
    (_bad(ante=True), "`ante` must be an integer"),
    (_bad(ante=2.5), "`ante` must be an integer"),
    (_bad(minutes=0), "`minutes` must be a number"),
    (_bad(minutes=1441), "`minutes` must be a number"),
    (_bad(minutes=math.nan), "`minutes` must be a number"),
    (_bad(minutes=math.inf), "`minutes` must be a number"),
    (_bad(minutes="10"), "`minutes` must be a number"),
    (_bad(minutes=True), "`minutes` must be a number"),
    (_bad(hands=10), "`minutes` or `hands`, not both"),
    (_bad(hands=10_001), "`hands` must be an integer"),
    ({"levels": [{"blinds": [1, 2]}]}, "needs `minutes`"),
    (_bad(game="stud7", bring_in=5, small_bet=20, big_bet=40), "not blinds"),
    ({"levels": [{"game": "stud7", "small_bet": 20, "big_bet": 40, "minutes": 5}]},
     "needs a bring_in"),
    ({"levels": [{"game": "stud5", "bring_in": 5, "small_bet": 20, "big_bet": 10,
                  "minutes": 5}]}, "small_bet <= big_bet"),
    ({"levels": [{"game": "stud7", "bring_in": 30, "small_bet": 20, "big_bet": 40,
                  "minutes": 5}]}, "must not exceed the small_bet"),
    ({"levels": [{"minutes": 5}]}, r"needs `blinds`"),
    (_bad(blinds=[0, 20]), r"needs `blinds`"),
    (_bad(bring_in=5), "for stud games only"),
    (_bad(blinds=[20, 10]), "must not decrease"),
    (_bad(structure="fixed_limit"), "fixed limit needs small_bet"),
    (_bad(game="caribbean"), "unknown game"),
    (_bad(structure="limitless"), "unknown structure"),
    ({"seats": 1}, "`seats` must be an integer in 2..10"),
    ({"seats": 11}, "`seats` must be an integer in 2..10"),
    ({"starting_stack": 0}, "`starting_stack`"),
    ({"late_until": 21}, "`late_until` must be an integer in 0..20"),
    ({"re_entries": 2}, "re-entries need late registration"),
    ({"re_entries": 101, "late_until": 3}, "`re_entries`"),
    ({"rebuy_until": 21}, "`rebuy_until`"),
    ({"add_on": 5000}, "add a break"),
    ({"add_on": 5000, "rebuy_until": 6, "breaks": [{"after_level": 4, "minutes": 5}]},
     "add a break"),
    ({"add_on": -1}, "`add_on`"),
    ({"time_bank_refill": -1}, "time_bank_refill"),
    ({"time_bank_refill": 3601}, "time_bank_refill"),
    ({"time_bank_refill": "5"}, "time_bank_refill"),
    ({"breaks": {"after_level": 1}}, "`breaks` must be a list"),
    ({"breaks": [{"after_level": 1, "minutes": 5}] * 51}, "`breaks` must be a list"),
    ({"breaks": [5]}, "break 1: must be an object"),
    ({"breaks": [{"after_level": 1, "minutes": 5, "x": 1}]}, "break 1: must be an object"),
    ({"breaks": [{"after_level": 0, "minutes": 5}]}, "break 1: `after_level`"),
    ({"breaks": [{"after_level": 21, "minutes": 5}]}, "break 1: `after_level`"),
    ({"breaks": [{"after_level": 3, "minutes": 5}, {"after_level": 3, "minutes": 5}]},
     "break 2: two breaks after level 3"),
    ({"breaks": [{"after_level": 3}]}, "break 1: `minutes`"),
    ({"rotation": ["holdem"]}, "`rotation` is for a mixed tournament only"),
    ({"preset": "glacial"}, "unknown preset"),
])
def test_build_refuses_bad_data_with_a_reason(data: dict[str, Any], message: str) -> None:
    with pytest.raises(StructureError, match=message) as info:
        build_structure(data, game="holdem", structure=NL)
    assert info.value.code == "bad_structure"
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("data, game, structure, message", [
    ({}, "caribbean", NL, "unknown game"),
    ({}, "holdem", "limitless", "unknown structure"),
    ({"seats": 9}, "stud7", "fixed_limit", r"`seats` must be an integer in 2..8"),
    ({}, "mixed", NL, "needs `rotation`"),
    ({"rotation": []}, "mixed", NL, "needs `rotation`"),
    ({"rotation": ["holdem", "caribbean"]}, "mixed", NL, "rotation: unknown game"),
])
def test_build_refuses_bad_games_and_seats(data: dict[str, Any], game: str, structure: str,
                                           message: str) -> None:
    with pytest.raises(StructureError, match=message):
        build_structure(data, game=game, structure=structure)


def test_build_refuses_what_is_not_an_object() -> None:
    with pytest.raises(StructureError, match="must be an object"):
        build_structure([], game="holdem", structure=NL)  # type: ignore[arg-type]


# --- the Structure value ---------------------------------------------------------------------


def test_structure_checks_its_levels() -> None:
    with pytest.raises(StructureError, match="at least one level"):
        Structure((), (), 1000, 9)
    with pytest.raises(StructureError, match="numbered"):
        Structure(_timed(10, 10)[1:], (), 1000, 9)
    with pytest.raises(StructureError, match="minutes or some hands"):
        Structure((Level(1, "holdem", NL, Stakes(blinds=(1, 2)), 0.0),), (), 1000, 9)


def test_tour05_past_the_last_level_the_last_level_repeats() -> None:
    s = Structure(_timed(10, 20), (), 1000, 9)
    assert s.level(2).minutes == 20
    assert s.level(7) == Level(7, "holdem", NL, Stakes(blinds=(2, 4)), 20)
    with pytest.raises(ValueError, match="numbered from 1"):
        s.level(0)
    assert s.add_on_break() is None
    no_break = Structure(_timed(10, 20), (Break(1, 5),), 1000, 9, rebuy_until=2, add_on=500)
    assert no_break.add_on_break() is None  # built directly, no break after the rebuys


# --- the level clock -------------------------------------------------------------------------


def test_tour05_clock_by_time_with_a_break_that_stops_the_level_clock() -> None:
    """Levels of 10 and 20 minutes, a 5-minute break after level 1: the break is its own
    stretch of running time, no level's minutes run during it."""
    clock = LevelClock(Structure(_timed(10, 20), (Break(1, 5),), 1000, 9))
    assert clock.at(0) == ClockState(1, False, 600.0)
    assert clock.at(599.5) == ClockState(1, False, 0.5)
    assert clock.at(600) == ClockState(1, True, 300.0)
    assert clock.at(899) == ClockState(1, True, 1.0)
    assert clock.at(900) == ClockState(2, False, 1200.0)
    assert clock.at(2100) == ClockState(3, False, 1200.0)  # level 2 repeats as level 3
    assert clock.at(2100 + 1200 * 50 + 7) == ClockState(53, False, 1193.0)


def test_tour05_clock_levels_by_hands_end_when_the_caller_says() -> None:
    levels = (Level(1, "holdem", NL, Stakes(blinds=(1, 2)), 0.0, hands=10),
              Level(2, "holdem", NL, Stakes(blinds=(2, 4)), 10.0))
    clock = LevelClock(Structure(levels, (Break(1, 1),), 1000, 9))
    assert clock.at(5000) == ClockState(1, False, math.inf, by_hands=True)
    assert clock.at(299, ended={1: 300.0}) == ClockState(1, False, math.inf, by_hands=True)
    assert clock.at(330, ended={1: 300.0}) == ClockState(1, True, 30.0)
    assert clock.at(360, ended={1: 300.0}) == ClockState(2, False, 600.0)
    by_hands_last = LevelClock(Structure(levels[:1], (), 1000, 9))
    assert by_hands_last.at(50, ended={1: 10.0, 2: 30.0}) == ClockState(3, False, math.inf,
                                                                         by_hands=True)


def test_clock_refuses_impossible_times() -> None:
    clock = LevelClock(Structure(_timed(10), (), 1000, 9))
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="elapsed"):
            clock.at(bad)


@given(minutes=st.lists(st.integers(1, 30), min_size=1, max_size=6),
       elapsed=st.floats(0, 10**6, allow_nan=False))
def test_tour05_clock_left_is_within_the_running_level(minutes: list[int],
                                                      elapsed: float) -> None:
    s = Structure(_timed(*minutes), (), 1000, 9)
    state = LevelClock(s).at(elapsed)
    assert 0 < state.left <= s.level(state.level).minutes * 60 + 1e-6
    assert not state.on_break
