"""A tournament's structure: its levels, breaks and entry settings (TOUR-05, TOUR-14).

Rule of this module: a :class:`Structure` is a checked value. :func:`build_structure` is the one
way in from untrusted data (a JSON object from the network): it checks every field's type and
range and every level's stakes against its game and betting structure, and raises
:class:`StructureError` (code ``bad_structure``) with a message saying what is wrong; nothing
half-checked comes out. :class:`LevelClock` answers which level or break runs after so many
seconds of running time; it reads no clock (the caller passes the elapsed seconds).

Running time: the seconds the tournament has run since its start, not counting the operator's
pauses. A break is a segment of that time of its own, after the level it follows, so no level's
clock runs during a break (TOUR-05). A level by hands ends when the table that deals most has
dealt that many hands in it; the caller records the running time at which that happened and
passes it to :meth:`LevelClock.at`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from server.rules.structure import (
    FIXED_LIMIT,
    SPREAD_LIMIT,
    STRUCTURES,
    Stakes,
    check_stakes,
)
from server.rules.variants import VARIANTS

MAX_LEVELS = 100
MAX_BREAKS = 50
MAX_AMOUNT = 10**12
MAX_MINUTES = 1440.0
MAX_HANDS = 10_000
MAX_RE_ENTRIES = 100
MAX_TIME_BANK_REFILL = 3600.0
MIXED = "mixed"
PRESETS: dict[str, tuple[float, int]] = {  # name: (minutes per level, starting stack per bb)
    "regular": (15.0, 100),
    "turbo": (8.0, 100),
    "hyper": (4.0, 50),
}
PRESET_LEVELS = 20
ANTES_FROM = 4  # pot games with blinds: antes from this level of a preset
DEFAULT_SEATS = 9

_TOP_KEYS = frozenset({
    "levels", "preset", "rotation", "breaks", "starting_stack", "seats", "late_until",
    "re_entries", "rebuy_until", "add_on", "time_bank_refill",
})
_SKIPPED_KEYS = frozenset({"shares"})  # the prize table: prizes.check_shares is its check
_LEVEL_KEYS = frozenset({
    "blinds", "ante", "bring_in", "small_bet", "big_bet", "min_bet", "max_bet", "minutes",
    "hands", "game", "structure",
})
_AMOUNT_KEYS = ("ante", "bring_in", "small_bet", "big_bet", "min_bet", "max_bet")
_BREAK_KEYS = frozenset({"after_level", "minutes"})


class StructureError(ValueError):
    """A tournament structure (or a table of prize shares) cannot be used; the message says
    why. ``code`` is always ``bad_structure`` (the protocol's error code)."""

    code = "bad_structure"


@dataclass(frozen=True, slots=True)
class Level:
    """One level: its game, betting structure and stakes, and how long it lasts (TOUR-05):
    ``minutes`` of running time, or, when ``hands`` > 0, that many hands at the table that
    deals most (``minutes`` is then 0)."""

    number: int
    game: str
    structure: str
    stakes: Stakes
    minutes: float
    hands: int = 0


@dataclass(frozen=True, slots=True)
class Break:
    """A break of ``minutes`` after level ``after_level`` ends (TOUR-05)."""

    after_level: int
    minutes: float


@dataclass(frozen=True, slots=True)
class Structure:
    """Levels (numbered 1 .. n, in order), breaks (by ``after_level``, ascending) and the entry
    settings of TOUR-14: registration open to the end of level ``late_until`` (0: closes at
    the start), ``re_entries`` per player, rebuys to the end of level ``rebuy_until`` (0:
    none), an add-on of ``add_on`` chips (0: none); ``time_bank_refill`` seconds added to each
    time bank at every new level (TOUR-13)."""

    levels: tuple[Level, ...]
    breaks: tuple[Break, ...]
    starting_stack: int
    seats: int
    late_until: int = 0
    re_entries: int = 0
    rebuy_until: int = 0
    add_on: int = 0
    time_bank_refill: float = 0.0

    def __post_init__(self) -> None:
        if not self.levels:
            raise StructureError("a structure needs at least one level")
        if [lv.number for lv in self.levels] != list(range(1, len(self.levels) + 1)):
            raise StructureError("levels must be numbered 1, 2, ... in order")
        if any(lv.minutes <= 0 and lv.hands <= 0 for lv in self.levels):
            raise StructureError("every level lasts some minutes or some hands")

    def level(self, number: int) -> Level:
        """Level ``number`` (1 ..); past the last level, the last level repeats under the
        asked number."""
        if number < 1:
            raise ValueError(f"no level {number}: levels are numbered from 1")
        if number <= len(self.levels):
            return self.levels[number - 1]
        return replace(self.levels[-1], number=number)

    def break_after(self, number: int) -> Break | None:
        """The break that follows level ``number``, if any."""
        for br in self.breaks:
            if br.after_level == number:
                return br
        return None

    def add_on_break(self) -> int | None:
        """TOUR-14: the level after which the add-on is taken (the first break after the
        rebuy period); None when the structure has no add-on."""
        if not self.add_on:
            return None
        for br in self.breaks:
            if br.after_level >= self.rebuy_until:
                return br.after_level
        return None  # only a Structure built directly: build_structure refuses it


@dataclass(frozen=True, slots=True)
class ClockState:
    """Where the clock stands: ``level`` is running (or, ``on_break``, the break after
    ``level``), with ``left`` seconds to go. A level by hands has no time limit: ``by_hands``
    is True and ``left`` is ``math.inf`` until the caller reports it ended (never write it
    to JSON as it is)."""

    level: int
    on_break: bool
    left: float
    by_hands: bool = False


class LevelClock:
    """Which level (or break) is running after ``elapsed`` seconds of running time, and the
    time left in it. Pure: :meth:`at` takes the elapsed seconds and, for levels by hands, the
    running time at which each of them ended."""

    def __init__(self, structure: Structure) -> None:
        self.structure = structure

    def at(self, elapsed: float, *, ended: Mapping[int, float] | None = None) -> ClockState:
        """The state after ``elapsed`` running seconds. ``ended`` maps a level by hands to the
        running time at which it ended (TOUR-05: its hand count reached at the table that
        deals most); a level by hands missing from it is still running."""
        if not math.isfinite(elapsed) or elapsed < 0:
            raise ValueError("elapsed must be a finite number of seconds >= 0")
        done = ended or {}
        st = self.structure
        last = st.levels[-1]
        t = 0.0
        n = 1
        while True:
            if n > len(st.levels) and not last.hands:  # the last level repeats: skip ahead
                span = last.minutes * 60.0
                skip = max(0, int((elapsed - t) // span) - 1)
                n += skip
                t += skip * span
            lv = st.level(n)
            if lv.hands:
                end = done.get(n)
                if end is None or elapsed < end:
                    return ClockState(n, False, math.inf, by_hands=True)
                t = max(t, end)
            else:
                end = t + lv.minutes * 60.0
                if elapsed < end:
                    return ClockState(n, False, end - elapsed)
                t = end
            br = st.break_after(n)
            if br is not None:
                end = t + br.minutes * 60.0
                if elapsed < end:
                    return ClockState(n, True, end - elapsed)
                t = end
            n += 1


# ---------------------------------------------------------------------------------------------
# presets


_MANTISSAS = (10, 12, 15, 20, 25, 30, 40, 50, 60, 80)


def _nice_values(limit: int) -> list[int]:
    """Every "round" chip amount up to the first one >= ``limit``: 1, 2, 3, 4, 5, 6, 8, then
    10, 12, 15, 20, 25, 30, 40, 50, 60, 80 times a power of ten."""
    out = [1, 2, 3, 4, 5, 6, 8]
    scale = 1
    while out[-1] < limit:
        out.extend(m * scale for m in _MANTISSAS)
        scale *= 10
    return out


def _nice_even(value: int) -> int:
    """The smallest even round amount >= ``value`` (a big blind whose half is whole)."""
    return next(v for v in _nice_values(2 * value + 2) if v >= value and v % 2 == 0)


def _nice_down(value: int) -> int:
    """The largest round amount <= ``value`` (at least 1)."""
    return max(v for v in _nice_values(value) if v <= max(1, value))


def _units(first: int, count: int) -> list[int]:
    """A rising series of big blinds (or stud small bets): ``first`` (at least 2) then about
    1.5 times the one before, each an even round amount, capped at a quarter of MAX_AMOUNT (so
    every amount a level derives from it, up to 4 units, stays within MAX_AMOUNT)."""
    out = [min(MAX_AMOUNT // 4, _nice_even(max(2, first)))]
    while len(out) < count:
        prev = out[-1]
        out.append(min(MAX_AMOUNT // 4, _nice_even(max(prev + 1, prev * 3 // 2))))
    return out


def _preset_stakes(game: str, structure: str, number: int, unit: int) -> Stakes:
    spread = structure == SPREAD_LIMIT
    min_bet, max_bet = (unit, 4 * unit) if spread else (0, 0)
    if VARIANTS[game].is_stud:  # antes, a bring-in and the limits (STUD-01, STUD-02)
        return Stakes(ante=_nice_down(unit // 5), bring_in=_nice_down(unit // 3),
                      small_bet=unit, big_bet=2 * unit, min_bet=min_bet, max_bet=max_bet)
    ante = _nice_down(unit // 8) if number >= ANTES_FROM else 0
    blinds = (unit // 2, unit)
    if structure == FIXED_LIMIT:
        return Stakes(blinds=blinds, ante=ante, small_bet=unit, big_bet=2 * unit)
    return Stakes(blinds=blinds, ante=ante, min_bet=min_bet, max_bet=max_bet)


def _preset(name: str, games: Callable[[int], str], structure: str,
            starting_stack: int) -> list[Level]:
    if name not in PRESETS:
        raise StructureError(f"unknown preset {name!r}: one of {sorted(PRESETS)}")
    if structure not in STRUCTURES:
        raise StructureError(f"unknown structure {structure!r}: one of {list(STRUCTURES)}")
    if type(starting_stack) is not int or not 1 <= starting_stack <= MAX_AMOUNT:
        raise StructureError(f"starting_stack must be an int in 1..{MAX_AMOUNT}")
    minutes, per_bb = PRESETS[name]
    units = _units(starting_stack // per_bb, PRESET_LEVELS)
    levels = []
    for i, unit in enumerate(units, start=1):
        game = games(i)
        if game not in VARIANTS:
            raise StructureError(f"unknown game {game!r}: one of {sorted(VARIANTS)}")
        level = Level(i, game, structure, _preset_stakes(game, structure, i, unit), minutes)
        _check_level_stakes(level, f"preset level {i}: ")
        levels.append(level)
    return levels


def preset_levels(name: str, *, game: str, structure: str, starting_stack: int) -> list[Level]:
    """The levels of preset ``name`` ("regular": 15-minute levels, "turbo": 8, "hyper": 4 and
    a first big blind of a 50th of the stack) for one game: 20 levels, the first big blind
    (stud: small bet) about ``starting_stack / 100``, each about 1.5 times the one before,
    every amount a round whole number of chips and nondecreasing. Blind games: blinds
    (bb/2, bb) and, from level 4, antes of about bb/8 (fixed limit: bets bb and 2 bb; spread
    limit: bb to 4 bb). Stud: ante about a fifth and bring-in about a third of the small bet,
    big bet twice it (spread limit: bets of one to four small bets)."""
    return _preset(name, lambda _: game, structure, starting_stack)


# ---------------------------------------------------------------------------------------------
# building from untrusted data


def _int(data: Mapping[str, Any], key: str, lo: int, hi: int, default: int, where: str) -> int:
    value = data.get(key, default)
    if type(value) is not int or not lo <= value <= hi:
        raise StructureError(f"{where}`{key}` must be an integer in {lo}..{hi}")
    return value


def _number(value: object) -> float | None:
    """``value`` as a finite float when it is a JSON number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _minutes(value: object, where: str) -> float:
    minutes = _number(value)
    if minutes is None or not 0 < minutes <= MAX_MINUTES:
        raise StructureError(f"{where}`minutes` must be a number in (0, {MAX_MINUTES:g}]")
    return minutes


def _name(value: object, choices: Collection[str], what: str, where: str) -> str:
    if not isinstance(value, str) or value not in choices:
        raise StructureError(f"{where}unknown {what} {value!r}: one of {sorted(choices)}")
    return value


def _check_level_stakes(lv: Level, where: str) -> None:
    st = lv.stakes
    if VARIANTS[lv.game].is_stud:
        if st.blinds:
            raise StructureError(f"{where}{lv.game} has antes and a bring-in, not blinds")
        if st.bring_in <= 0 or st.small_bet <= 0 or st.big_bet < st.small_bet:
            raise StructureError(f"{where}{lv.game} needs a bring_in and small_bet <= big_bet")
        if st.bring_in > st.small_bet:
            raise StructureError(f"{where}the bring_in must not exceed the small_bet")
    else:
        if len(st.blinds) != 2 or st.blinds[0] <= 0:
            raise StructureError(f"{where}{lv.game} needs `blinds`: [small, big], both > 0")
        if st.bring_in:
            raise StructureError(f"{where}a bring_in is for stud games only")
    problem = check_stakes(lv.structure, st)
    if problem:
        raise StructureError(f"{where}{problem}")


def _level(raw: object, number: int, game: str, structure: str) -> Level:
    where = f"level {number}: "
    if not isinstance(raw, Mapping):
        raise StructureError(f"{where}must be an object")
    unknown = set(raw) - _LEVEL_KEYS
    if unknown:
        raise StructureError(f"{where}unknown keys {sorted(map(str, unknown))}")
    game = _name(raw.get("game", game), VARIANTS, "game", where)
    structure = _name(raw.get("structure", structure), STRUCTURES, "structure", where)
    blinds: tuple[int, ...] = ()
    if "blinds" in raw:
        value = raw["blinds"]
        if (not isinstance(value, list | tuple) or len(value) != 2
                or any(type(b) is not int or not 0 <= b <= MAX_AMOUNT for b in value)):
            raise StructureError(f"{where}`blinds` must be [small, big], integers in "
                                 f"0..{MAX_AMOUNT}")
        blinds = tuple(value)
    amounts = {k: _int(raw, k, 0, MAX_AMOUNT, 0, where) for k in _AMOUNT_KEYS}
    hands = _int(raw, "hands", 0, MAX_HANDS, 0, where)
    if hands:
        if "minutes" in raw:
            raise StructureError(f"{where}a level lasts `minutes` or `hands`, not both")
        minutes = 0.0
    elif "minutes" in raw:
        minutes = _minutes(raw["minutes"], where)
    else:
        raise StructureError(f"{where}needs `minutes` (or `hands`)")
    lv = Level(number, game, structure, Stakes(blinds=blinds, **amounts), minutes, hands)
    _check_level_stakes(lv, where)
    return lv


def _games(data: Mapping[str, Any], game: str) -> Callable[[int], str]:
    if game != MIXED:
        _name(game, VARIANTS, "game", "")
        if "rotation" in data:
            raise StructureError("`rotation` is for a mixed tournament only (game 'mixed')")
        return lambda _: game
    rotation = data.get("rotation")
    if (not isinstance(rotation, list | tuple) or not 1 <= len(rotation) <= MAX_LEVELS):
        raise StructureError(f"a mixed tournament needs `rotation`: a list of 1..{MAX_LEVELS} "
                             "games")
    games = tuple(_name(g, VARIANTS, "game", "rotation: ") for g in rotation)
    return lambda i: games[(i - 1) % len(games)]


def _breaks(data: Mapping[str, Any], levels: int) -> tuple[Break, ...]:
    raw = data.get("breaks", [])
    if not isinstance(raw, list | tuple) or len(raw) > MAX_BREAKS:
        raise StructureError(f"`breaks` must be a list of at most {MAX_BREAKS} breaks")
    out: dict[int, Break] = {}
    for i, item in enumerate(raw, start=1):
        where = f"break {i}: "
        if not isinstance(item, Mapping) or set(item) - _BREAK_KEYS:
            raise StructureError(f"{where}must be an object with `after_level` and `minutes`")
        after = _int(item, "after_level", 1, levels, 0, where)
        if after in out:
            raise StructureError(f"{where}two breaks after level {after}")
        out[after] = Break(after, _minutes(item.get("minutes"), where))
    return tuple(out[k] for k in sorted(out))


def build_structure(data: Mapping[str, Any], *, game: str, structure: str,
                    ignore: Collection[str] = ()) -> Structure:
    """A checked :class:`Structure` from untrusted ``data`` (a JSON object), for a tournament
    of ``game`` (a key of VARIANTS, or "mixed": ``data["rotation"]`` lists the games, level i
    plays ``rotation[(i - 1) % len]``) under betting ``structure`` (each level may name its
    own ``game`` and ``structure``). Keys: ``levels`` (a list of level objects; omitted: the
    ``preset``, "regular" unless named), ``breaks`` ([{after_level, minutes}]),
    ``starting_stack`` (default 10000), ``seats`` (default 9, at most the fewest any of its
    games deals to, GEN-07), ``late_until``, ``re_entries``, ``rebuy_until``, ``add_on``,
    ``time_bank_refill`` (seconds). ``shares`` (the prize table, checked by
    :func:`server.tournament.prizes.check_shares`) and keys in ``ignore`` are the caller's and
    are skipped; any other unknown key is refused. Raises :class:`StructureError` on anything
    wrong."""
    if not isinstance(data, Mapping):
        raise StructureError("the structure must be an object")
    unknown = set(data) - _TOP_KEYS - _SKIPPED_KEYS - set(ignore)
    if unknown:
        raise StructureError(f"unknown structure keys {sorted(map(str, unknown))}")
    games = _games(data, game)
    structure = _name(structure, STRUCTURES, "structure", "")
    stack = _int(data, "starting_stack", 1, MAX_AMOUNT, 10_000, "")
    if "levels" in data:
        if "preset" in data:
            raise StructureError("give `levels` or a `preset`, not both")
        raw = data["levels"]
        if not isinstance(raw, list | tuple) or not 1 <= len(raw) <= MAX_LEVELS:
            raise StructureError(f"`levels` must be a list of 1..{MAX_LEVELS} levels")
        levels = [_level(item, i, games(i), structure) for i, item in enumerate(raw, start=1)]
    else:
        preset = data.get("preset", "regular")
        levels = _preset(_name(preset, PRESETS, "preset", ""), games, structure, stack)
    n = len(levels)
    most = min(VARIANTS[lv.game].max_seats for lv in levels)
    seats = _int(data, "seats", 2, most, min(DEFAULT_SEATS, most), "")
    late_until = _int(data, "late_until", 0, n, 0, "")
    re_entries = _int(data, "re_entries", 0, MAX_RE_ENTRIES, 0, "")
    if re_entries and not late_until:
        raise StructureError("re-entries need late registration (`late_until` > 0, TOUR-14)")
    rebuy_until = _int(data, "rebuy_until", 0, n, 0, "")
    add_on = _int(data, "add_on", 0, MAX_AMOUNT, 0, "")
    refill = _number(data.get("time_bank_refill", 0.0))
    if refill is None or not 0 <= refill <= MAX_TIME_BANK_REFILL:
        raise StructureError(f"`time_bank_refill` must be seconds in 0..{MAX_TIME_BANK_REFILL:g}")
    breaks = _breaks(data, n)
    if add_on and not any(br.after_level >= rebuy_until for br in breaks):
        raise StructureError("an add-on is taken at the first break after the rebuys: "
                             "add a break at or after level `rebuy_until` (TOUR-14)")
    return Structure(tuple(levels), breaks, stack, seats, late_until=late_until,
                     re_entries=re_entries, rebuy_until=rebuy_until, add_on=add_on,
                     time_bank_refill=refill)
