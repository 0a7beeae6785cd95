"""Where tournament players sit: the draw, balancing, breaking, entries (TOUR-04, 06-10, 14).

Rule of this module: pure decisions over :class:`TableView` snapshots. Nothing here moves a
player; each function answers who goes where (a :class:`Move`) or whether a table may deal,
and the caller applies it and writes the log (docs/rules.md 5.1). Every random choice goes
through the injected ``pick(n)`` (a uniform int in ``[0, n)``); ``pick`` is never asked to
choose among a single option, and options are always offered in a fixed order (seats and
table numbers ascending), so a run replays exactly from its picks.

Tables are numbered 1 .. in the order they opened; seats 0 .. ``seats - 1``, clockwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from server.rules.button import clockwise_after

Pick = Callable[[int], int]
T = TypeVar("T")
MOVE_REASONS = ("balance", "break", "late", "re_entry")
ENTRY_REASONS = ("late", "re_entry")


@dataclass(frozen=True, slots=True)
class TableView:
    """What the plan needs to know of one table now: its seats, who sits where (players with
    chips), the seat that posted the big blind in its last hand (None before its first hand,
    or in stud), whether it uses blinds (False: stud, TOUR-06's random mover), whether it has
    dealt a hand and whether a hand is running."""

    number: int
    seats: int
    players: Mapping[int, str]
    last_big_blind: int | None
    uses_blinds: bool = True
    dealt: bool = False
    in_hand: bool = False

    def __post_init__(self) -> None:
        if self.seats < 2:
            raise ValueError(f"table {self.number}: a table has at least 2 seats")
        if any(not 0 <= s < self.seats for s in self.players):
            raise ValueError(f"table {self.number}: a seat outside 0..{self.seats - 1}")
        if self.last_big_blind is not None and not 0 <= self.last_big_blind < self.seats:
            raise ValueError(f"table {self.number}: the last big blind is outside the table")

    def free_seats(self) -> list[int]:
        """The empty seats, ascending."""
        return [s for s in range(self.seats) if s not in self.players]

    def seat_of(self, player: str) -> int:
        """The seat of ``player`` at this table (KeyError when not here)."""
        for seat, who in self.players.items():
            if who == player:
                return seat
        raise KeyError(player)


@dataclass(frozen=True, slots=True)
class Move:
    """``player`` goes from ``src`` (table, seat; None for an entry) to ``dst`` (table,
    seat), for ``why``: "balance" (TOUR-06), "break" (TOUR-08), "late" or "re_entry"
    (TOUR-14)."""

    player: str
    src: tuple[int, int] | None
    dst: tuple[int, int]
    why: str

    def __post_init__(self) -> None:
        if self.why not in MOVE_REASONS:
            raise ValueError(f"unknown move reason {self.why!r}")


def _pick(pick: Pick, n: int) -> int:
    """One draw in ``[0, n)``, checked; no draw at all when there is one option."""
    if n == 1:
        return 0
    i = pick(n)
    if type(i) is not int or not 0 <= i < n:
        raise ValueError(f"pick({n}) gave {i!r}, not an int in [0, {n})")
    return i


def choose(options: Sequence[T], pick: Pick) -> T:
    """One of ``options`` (non-empty) drawn at random."""
    return options[_pick(pick, len(options))]


def shuffled(items: Sequence[T], pick: Pick) -> list[T]:
    """``items`` in a random order (Fisher-Yates, drawing from the end)."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = _pick(pick, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def draw_seats(entries: Sequence[str], seats: int, pick: Pick) -> dict[str, tuple[int, int]]:
    """TOUR-04: the entrants in a random order, dealt in turn to ``ceil(n / seats)`` tables
    (numbered 1 ..), so no table has more than one player more than another; then each
    table's seats drawn at random. Returns ``{player: (table, seat)}``."""
    if seats < 2:
        raise ValueError("a table has at least 2 seats")
    if len(set(entries)) != len(entries):
        raise ValueError("an entrant is listed twice")
    if not entries:
        return {}
    count = math.ceil(len(entries) / seats)
    tables: list[list[str]] = [[] for _ in range(count)]
    for i, player in enumerate(shuffled(entries, pick)):
        tables[i % count].append(player)
    out: dict[str, tuple[int, int]] = {}
    for number, players in enumerate(tables, start=1):
        drawn = shuffled(range(seats), pick)
        for player, seat in zip(players, drawn, strict=False):
            out[player] = (number, seat)
    return out


def _first_big_blind_seat(view: TableView) -> int:
    """GEN-05 and BLIND-01 for a table's first hand with two blinds: the button on the
    highest-numbered occupied seat, the big blind on the second player to its left (heads-up:
    the button itself, the other player posting the small blind)."""
    button = max(view.players)
    order = sorted(view.players, key=lambda s: (s - button - 1) % view.seats)
    return order[min(1, len(order) - 1)]


def next_big_blind(view: TableView) -> str | None:
    """GEN-05: the player due to post the big blind in the table's next hand, the next player
    clockwise after the seat that posted it last (that seat may be empty now). Before the
    table's first hand, the first hand's big blind. None in stud or at an empty table."""
    if not view.uses_blinds or not view.players:
        return None
    if view.last_big_blind is None:
        return view.players[_first_big_blind_seat(view)]
    seat = clockwise_after(view.last_big_blind, view.players.keys(), view.seats)
    assert seat is not None  # the table has players
    return view.players[seat]


def worst_free_seat(view: TableView, pick: Pick) -> int | None:
    """TOUR-06: the seat a mover takes. Free seats are ranked clockwise from the seat after
    the last big blind (the first would post the big blind soonest) and the seat that posted
    that big blind is never given (it posts the small blind next); a table that has dealt no
    hand (or has no last big blind) gives its lowest-numbered free seat; in stud a free seat
    is drawn at random. None when no free seat may be given."""
    free = view.free_seats()
    if not free:
        return None
    if not view.uses_blinds:
        return choose(free, pick)
    bb = view.last_big_blind
    if not view.dealt or bb is None:
        return free[0]
    ranked = sorted((s for s in free if s != bb), key=lambda s: (s - bb - 1) % view.seats)
    return ranked[0] if ranked else None


def _counts(tables: Mapping[int, TableView]) -> dict[int, int]:
    return {t: len(v.players) for t, v in tables.items()}


def balance_move(tables: Mapping[int, TableView], ended: int, pick: Pick) -> Move | None:
    """TOUR-06, after table ``ended`` ended a hand: when it has two or more players more than
    the table with the fewest (ties: the lowest-numbered), one player moves there: the player
    due to be its next big blind (stud: one drawn at random), to the short table's worst free
    seat. None when no move is due (or the short table has no seat a mover may take)."""
    counts = _counts(tables)
    fewest = min(counts.values())
    if counts[ended] - fewest < 2:
        return None
    short = min(t for t, c in counts.items() if c == fewest)
    src = tables[ended]
    if src.uses_blinds:
        player = next_big_blind(src)
        assert player is not None  # the table has players
    else:
        player = src.players[choose(sorted(src.players), pick)]
    seat = worst_free_seat(tables[short], pick)
    if seat is None:
        return None
    return Move(player, (ended, src.seat_of(player)), (short, seat), "balance")


def held(tables: Mapping[int, TableView], table: int) -> bool:
    """TOUR-07: True when ``table`` is three or more players short of the table with the most
    and so must not start a hand until balancing brings it within two."""
    counts = _counts(tables)
    return max(counts.values()) - counts[table] >= 3


def table_to_break(tables: Mapping[int, TableView], *, left: int | None = None) -> int | None:
    """TOUR-08: when the players left fit into one table fewer (``players <= (tables - 1) *
    seats``: into the other tables' seats), the table with the fewest players (ties: the
    highest-numbered) is to be broken; None otherwise (and always with one table left). The
    caller breaks it as soon as it is not in a hand. ``left`` is the number of players left
    when it differs from the seated players with chips (during a hand-for-hand round, players
    who lost everything count until the round ends and they are placed)."""
    if len(tables) < 2:
        return None
    counts = _counts(tables)
    fewest = min(counts.values())
    table = max(t for t, c in counts.items() if c == fewest)
    room = sum(v.seats for t, v in tables.items() if t != table)
    players = sum(counts.values()) if left is None else left
    return table if players <= room else None


def break_moves(tables: Mapping[int, TableView], broken: int, pick: Pick) -> list[Move]:
    """TOUR-08: the players of table ``broken`` (not in a hand), in a random order, each to a
    table with the fewest players (ties: drawn at random; counted again after each player
    placed), to a free seat drawn at random. Raises ValueError when the table is in a hand
    or its players do not fit into the others."""
    src = tables[broken]
    if src.in_hand:
        raise ValueError(f"table {broken} is in a hand: break it when the hand ends")
    taken = {t: set(v.players) for t, v in tables.items() if t != broken}
    if len(src.players) > sum(tables[t].seats - len(s) for t, s in taken.items()):
        raise ValueError(f"the players of table {broken} do not fit into the other tables")
    moves = []
    for player in shuffled([src.players[s] for s in sorted(src.players)], pick):
        open_tables = [t for t in sorted(taken) if len(taken[t]) < tables[t].seats]
        fewest = min(len(taken[t]) for t in open_tables)
        table = choose([t for t in open_tables if len(taken[t]) == fewest], pick)
        seat = choose([s for s in range(tables[table].seats) if s not in taken[table]], pick)
        taken[table].add(seat)
        moves.append(Move(player, (broken, src.seat_of(player)), (table, seat), "break"))
    return moves


def entry_seat(tables: Mapping[int, TableView], player: str, why: str,
               pick: Pick) -> Move | None:
    """TOUR-14: a late entry or re-entry (``why``: "late" or "re_entry") is seated as
    TOUR-06 seats a mover: at the table with the fewest players (ties: the lowest-numbered),
    its worst free seat. When that table's only free seat posted its last big blind, the entry
    takes it (the alternative, opening a table while a seat is free, is what TOUR-14's
    referee forbids). None when every table is full: the caller opens a new table."""
    if why not in ENTRY_REASONS:
        raise ValueError(f"an entry is 'late' or 're_entry', not {why!r}")
    if any(player in v.players.values() for v in tables.values()):
        raise ValueError(f"{player} is already seated")
    counts = _counts(tables)
    open_tables = [t for t in sorted(tables) if counts[t] < tables[t].seats]
    if not open_tables:
        return None
    table = min(open_tables, key=lambda t: counts[t])
    seat = worst_free_seat(tables[table], pick)
    if seat is None:
        seat = tables[table].free_seats()[0]  # the only free seat: the last big blind's
    return Move(player, None, (table, seat), why)


def waits_for_button(view: TableView, seat: int, button: int, small_blind: int | None) -> bool:
    """TOUR-09: True when a player just seated at ``seat`` must wait for the button to pass:
    the seat lies clockwise strictly after the ``button`` and strictly before the
    ``small_blind`` seat of the coming hand. When the small blind is dead, the caller passes
    the big blind's seat (the zone then runs to it); None means no zone (stud, or a table that
    has not dealt yet), and the answer is False."""
    if small_blind is None:
        return False
    n = view.seats
    return 0 < (seat - button) % n < (small_blind - button) % n


def hand_for_hand(players_left: int, paid: int, tables_playing: int, on: bool) -> bool:
    """TOUR-10: whether hand-for-hand is on from now, given whether it was (``on``). It
    starts once the players left number the places paid plus one, while more than one table
    plays; it ends when a round ends with the players left no more than the places paid
    (call this at a round's end while it is on), or when one table is left."""
    if tables_playing <= 1 or paid < 1:
        return False
    if on:
        return players_left > paid
    return players_left == paid + 1
