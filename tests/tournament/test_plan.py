"""Seating decisions: the draw (TOUR-04), balancing (TOUR-06), holding (TOUR-07), breaking
(TOUR-08), the dead zone of a moved player (TOUR-09), hand-for-hand (TOUR-10) and entries
(TOUR-14), with hand-worked tables and properties over random ones."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.tournament.plan import (
    Move,
    Pick,
    TableView,
    balance_move,
    break_moves,
    choose,
    draw_seats,
    entry_seat,
    hand_for_hand,
    held,
    next_big_blind,
    shuffled,
    table_to_break,
    waits_for_button,
    worst_free_seat,
)


def first(n: int) -> int:
    """A pick that always draws the first option."""
    return 0


def last(n: int) -> int:
    return n - 1


def never(n: int) -> int:
    raise AssertionError(f"no random choice expected here (pick({n}))")


def view(number: int, seats: int, players: Mapping[int, str], bb: int | None = None, *,
         stud: bool = False, dealt: bool = True, in_hand: bool = False) -> TableView:
    return TableView(number, seats, dict(players), bb, uses_blinds=not stud, dealt=dealt,
                     in_hand=in_hand)


def full(number: int, count: int, seats: int = 9, bb: int | None = 0, **kw: bool) -> TableView:
    """Table ``number`` with players ``t<number>s<seat>`` in seats 0 .. count - 1."""
    return view(number, seats, {s: f"t{number}s{s}" for s in range(count)}, bb, **kw)


# --- random helpers and the draw (TOUR-04) ---------------------------------------------------


def test_shuffle_and_choose_draw_through_pick_only() -> None:
    assert shuffled("abc", first) == ["b", "c", "a"]  # Fisher-Yates from the end
    assert shuffled("abc", last) == ["a", "b", "c"]
    assert choose(["x"], never) == "x"  # one option: no draw
    assert choose(["x", "y", "z"], last) == "z"
    with pytest.raises(ValueError, match="pick"):
        choose(["x", "y"], lambda n: n)
    with pytest.raises(ValueError, match="pick"):
        choose(["x", "y"], lambda n: True)


def test_tour04_draw_hand_worked() -> None:
    """Three entrants, two seats a table: ceil(3/2) = 2 tables dealt in turn, then each
    table's seats drawn."""
    assert draw_seats(["a", "b", "c"], 2, first) == {"b": (1, 1), "a": (1, 0), "c": (2, 1)}


def test_tour04_draw_sizes_and_refusals() -> None:
    entries = [f"p{i}" for i in range(20)]
    seated = draw_seats(entries, 9, random.Random(4).randrange)
    assert Counter(t for t, _ in seated.values()) == {1: 7, 2: 7, 3: 6}
    assert draw_seats([], 9, never) == {}
    assert draw_seats(["solo"], 9, first) == {"solo": (1, 1)}
    with pytest.raises(ValueError, match="at least 2 seats"):
        draw_seats(["a", "b"], 1, first)
    with pytest.raises(ValueError, match="twice"):
        draw_seats(["a", "a"], 9, first)


@given(n=st.integers(1, 80), seats=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_tour04_draw_seats_everyone_once_with_sizes_within_one(n: int, seats: int,
                                                               seed: int) -> None:
    entries = [f"p{i}" for i in range(n)]
    seated = draw_seats(entries, seats, random.Random(seed).randrange)
    assert sorted(seated) == sorted(entries)
    assert len(set(seated.values())) == n  # no seat twice
    sizes = Counter(t for t, _ in seated.values())
    assert sorted(sizes) == list(range(1, -(-n // seats) + 1))
    assert max(sizes.values()) - min(sizes.values()) <= 1
    assert all(0 <= s < seats for _, s in seated.values())


# --- GEN-05's next big blind and TOUR-06's worst seat ----------------------------------------


def test_gen05_next_big_blind_clockwise_after_the_last_one() -> None:
    t = view(1, 9, {0: "a", 3: "b", 7: "c"}, 3)
    assert next_big_blind(t) == "c"
    assert next_big_blind(view(1, 9, {0: "a", 3: "b", 7: "c"}, 7)) == "a"  # seat 0 wraps
    assert next_big_blind(view(1, 9, {0: "a", 3: "b", 7: "c"}, 5)) == "c"  # its seat empty now
    assert next_big_blind(view(1, 9, {0: "a", 3: "b", 7: "c"}, 8)) == "a"
    assert next_big_blind(view(1, 9, {4: "a"}, 4)) == "a"  # alone: itself


def test_gen05_next_big_blind_before_the_first_hand() -> None:
    """Button on the highest occupied seat, the big blind the second player to its left;
    heads-up the button posts it (BLIND-01 as written)."""
    assert next_big_blind(view(1, 9, {0: "a", 3: "b", 7: "c"}, dealt=False)) == "b"
    assert next_big_blind(view(1, 9, {2: "a", 5: "b"}, dealt=False)) == "b"
    assert next_big_blind(view(1, 9, {}, dealt=False)) is None
    assert next_big_blind(view(1, 9, {0: "a", 3: "b"}, 0, stud=True)) is None


def test_tour06_worst_free_seat_hand_worked() -> None:
    players = {0: "a", 1: "b", 3: "c"}
    assert worst_free_seat(view(1, 6, players, 1), never) == 2  # right after the big blind
    assert worst_free_seat(view(1, 6, players, 3), never) == 4
    assert worst_free_seat(view(1, 6, players, 0), never) == 2
    # the big blind busted: its seat is never given (it is the small blind next)
    assert worst_free_seat(view(1, 6, players, 5), never) == 2
    assert worst_free_seat(view(1, 6, {0: "a", 1: "b", 3: "c", 4: "d"}, 5), never) == 2
    assert worst_free_seat(view(1, 6, players, None, dealt=False), never) == 2  # lowest free
    assert worst_free_seat(view(1, 6, players, None, dealt=True), never) == 2
    assert worst_free_seat(view(1, 3, {0: "a", 1: "b"}, 2), never) is None  # only the bb seat
    assert worst_free_seat(full(1, 9), never) is None
    # heads-up tables
    assert worst_free_seat(view(1, 2, {0: "a"}, 0), never) == 1
    assert worst_free_seat(view(1, 2, {0: "a"}, 1), never) is None


def test_tour06_worst_free_seat_in_stud_is_drawn() -> None:
    stud = view(1, 8, {0: "a", 2: "b"}, None, stud=True)
    assert worst_free_seat(stud, first) == 1
    assert worst_free_seat(stud, last) == 7


# --- balancing (TOUR-06) and holding (TOUR-07) -----------------------------------------------


def test_tour06_balance_moves_the_next_big_blind_to_the_worst_seat() -> None:
    tables = {1: full(1, 9, bb=4), 2: view(2, 9, {s: f"b{s}" for s in (0, 2, 3, 5, 6, 8, 1)},
                                           bb=3)}
    assert balance_move(tables, 1, never) == Move("t1s5", (1, 5), (2, 4), "balance")
    assert balance_move(tables, 2, never) is None  # the short table itself
    tables[1] = full(1, 8, bb=4)
    assert balance_move(tables, 1, never) is None  # one more only


def test_tour06_ties_go_to_the_lowest_numbered_short_table() -> None:
    tables = {3: full(3, 9, bb=8), 1: full(1, 7, bb=None, dealt=False), 2: full(2, 7, bb=2)}
    move = balance_move(tables, 3, never)
    assert move == Move("t3s0", (3, 0), (1, 7), "balance")  # seat 0 after bb 8; lowest free


def test_tour06_stud_mover_and_seat_are_drawn() -> None:
    tables = {1: full(1, 8, seats=8, bb=None, stud=True), 2: full(2, 6, seats=8, bb=None,
                                                                  stud=True)}
    assert balance_move(tables, 1, last) == Move("t1s7", (1, 7), (2, 7), "balance")
    assert balance_move(tables, 1, first) == Move("t1s0", (1, 0), (2, 6), "balance")


def test_tour06_no_move_when_the_short_table_has_no_seat_for_a_mover() -> None:
    tables = {1: full(1, 3, seats=3, bb=0), 2: view(2, 2, {0: "x"}, 1)}
    assert balance_move(tables, 1, never) is None


def test_tour07_held_three_short_of_the_most() -> None:
    tables = {1: full(1, 9), 2: full(2, 6), 3: full(3, 7)}
    assert held(tables, 2)
    assert not held(tables, 3)
    assert not held(tables, 1)


def _hand_ended(t: TableView) -> TableView:
    """The table after a hand: the big blind moved on (GEN-05)."""
    if not t.players:
        return t
    nxt = next_big_blind(t)
    seat = t.seat_of(nxt) if nxt is not None else None
    return TableView(t.number, t.seats, t.players, seat, t.uses_blinds, True, False)


def _apply(tables: dict[int, TableView], move: Move) -> None:
    assert move.src is not None
    (a, sa), (b, sb) = move.src, move.dst
    src, dst = tables[a], tables[b]
    assert src.players[sa] == move.player and sb not in dst.players
    tables[a] = TableView(a, src.seats, {s: p for s, p in src.players.items() if s != sa},
                          src.last_big_blind, src.uses_blinds, src.dealt, src.in_hand)
    tables[b] = TableView(b, dst.seats, {**dst.players, sb: move.player},
                          dst.last_big_blind, dst.uses_blinds, dst.dealt, dst.in_hand)


@given(sizes=st.lists(st.integers(1, 9), min_size=2, max_size=6), stud=st.booleans(),
       seed=st.integers(0, 2**32))
def test_tour06_repeated_balancing_evens_the_tables(sizes: list[int], stud: bool,
                                                   seed: int) -> None:
    """Tables end hands in turn; after enough hands no table is two short of another, and no
    mover ever sits on the seat that posted the short table's last big blind."""
    rng = random.Random(seed)
    pick: Pick = rng.randrange
    tables: dict[int, TableView] = {}
    for number, size in enumerate(sizes, start=1):
        seats = rng.sample(range(9), size)
        tables[number] = view(number, 9, {s: f"t{number}s{s}" for s in seats},
                              None if stud else rng.choice(range(9)), stud=stud)
    total = sum(sizes)
    for _ in range(4 * len(tables) * 9):
        for number in sorted(tables):
            tables[number] = _hand_ended(tables[number])
            move = balance_move(tables, number, pick)
            if move is not None:
                dst = tables[move.dst[0]]
                assert move.dst[1] != dst.last_big_blind or stud
                _apply(tables, move)
    counts = [len(t.players) for t in tables.values()]
    assert max(counts) - min(counts) <= 1
    assert sum(counts) == total


# --- breaking (TOUR-08) ----------------------------------------------------------------------


def test_tour08_table_to_break() -> None:
    assert table_to_break({1: full(1, 9), 2: full(2, 9), 3: full(3, 8)}) is None
    assert table_to_break({1: full(1, 6), 2: full(2, 6), 3: full(3, 6)}) == 3  # 18 <= 2*9
    assert table_to_break({1: full(1, 7), 2: full(2, 5), 3: full(3, 5)}) == 3
    assert table_to_break({1: full(1, 4), 2: full(2, 9)}) is None  # 13 > 9
    assert table_to_break({1: full(1, 9)}) is None  # the final table
    # hand-for-hand: two players lost everything but are not placed until the round ends
    assert table_to_break({1: full(1, 7), 2: full(2, 5), 3: full(3, 5)}, left=19) is None
    assert table_to_break({1: full(1, 9), 2: full(2, 9), 3: full(3, 1)}, left=18) == 3


def test_tour08_break_moves_hand_worked() -> None:
    """Table 3's players (in seat order c0, c4) in a random order, each to a table with the
    fewest (counted again after each), to a random free seat."""
    tables = {1: full(1, 7), 2: full(2, 8), 3: view(3, 9, {0: "c0", 4: "c4"})}
    assert break_moves(tables, 3, first) == [
        Move("c4", (3, 4), (1, 7), "break"),  # table 1 has 7 (fewest)
        Move("c0", (3, 0), (1, 8), "break"),  # 8 and 8 now: a draw (first: table 1)
    ]
    assert break_moves(tables, 3, last) == [
        Move("c0", (3, 0), (1, 8), "break"),  # no swap: c0 first, the last free seat
        Move("c4", (3, 4), (2, 8), "break"),  # 8 and 8: a draw (last: table 2)
    ]


def test_tour08_break_refusals() -> None:
    with pytest.raises(ValueError, match="in a hand"):
        break_moves({1: full(1, 2), 2: full(2, 2, in_hand=True)}, 2, first)
    with pytest.raises(ValueError, match="do not fit"):
        break_moves({1: full(1, 8), 2: full(2, 2)}, 2, first)


@given(sizes=st.lists(st.integers(0, 9), min_size=2, max_size=6), seats=st.integers(2, 10),
       seed=st.integers(0, 2**32))
def test_tour08_breaking_leaves_sizes_within_one_and_never_overfills(sizes: list[int],
                                                                     seats: int,
                                                                     seed: int) -> None:
    """When TOUR-08 names a table, its players all fit; before the break the tables are
    balanced (TOUR-06), and after it they still differ by at most one."""
    rng = random.Random(seed)
    total = sum(min(s, seats) for s in sizes)
    count = len(sizes)
    base, extra = divmod(total, count)  # balanced tables (TOUR-06's result)
    tables = {n: view(n, seats, {s: f"t{n}s{s}" for s in rng.sample(range(seats),
                                                                    base + (n <= extra))})
              for n in range(1, count + 1)}
    broken = table_to_break(tables)
    if broken is None:
        assert total > (count - 1) * seats or count < 2
        return
    moves = break_moves(tables, broken, rng.randrange)
    assert sorted(m.player for m in moves) == sorted(tables[broken].players.values())
    after = Counter(m.dst[0] for m in moves)
    sizes_after = [len(t.players) + after[n] for n, t in tables.items() if n != broken]
    assert max(sizes_after) - min(sizes_after) <= 1
    assert max(sizes_after) <= seats
    assert len({m.dst for m in moves}) == len(moves)
    assert all(m.dst[1] not in tables[m.dst[0]].players for m in moves)


# --- entries (TOUR-14) -----------------------------------------------------------------------


def test_tour14_entry_takes_the_worst_seat_of_the_shortest_table() -> None:
    tables = {1: full(1, 8, bb=2), 2: full(2, 7, bb=3)}
    assert entry_seat(tables, "new", "late", never) == Move("new", None, (2, 7), "late")
    assert entry_seat(tables, "new", "re_entry", never) == Move("new", None, (2, 7),
                                                                "re_entry")


def test_tour14_entry_takes_the_last_big_blinds_seat_when_it_is_the_only_one() -> None:
    """The fewest (lowest-numbered) table's only free seat posted its last big blind: the
    entry sits there rather than opening a table while a seat is free."""
    a = view(1, 3, {0: "a", 1: "b"}, 2)  # only seat 2 free: it posted the big blind
    b = view(2, 3, {0: "c", 2: "d"}, 0)
    assert entry_seat({1: a, 2: b}, "new", "late", never) == Move("new", None, (1, 2), "late")
    assert entry_seat({2: b, 1: a}, "new", "late", never) == Move("new", None, (1, 2), "late")
    assert entry_seat({1: full(1, 9), 2: full(2, 9)}, "new", "late", never) is None
    assert entry_seat({}, "new", "late", never) is None


def test_tour14_entry_refusals_and_stud() -> None:
    with pytest.raises(ValueError, match="'late' or 're_entry'"):
        entry_seat({1: full(1, 2)}, "new", "balance", never)
    with pytest.raises(ValueError, match="already seated"):
        entry_seat({1: full(1, 2)}, "t1s0", "late", never)
    stud = {1: full(1, 5, seats=8, bb=None, stud=True)}
    assert entry_seat(stud, "new", "late", last) == Move("new", None, (1, 7), "late")


# --- TOUR-09, TOUR-10 ------------------------------------------------------------------------


def test_tour09_a_moved_player_waits_between_button_and_small_blind() -> None:
    t = full(1, 2)
    assert [s for s in range(9) if waits_for_button(t, s, 2, 5)] == [3, 4]
    assert [s for s in range(9) if waits_for_button(t, s, 8, 1)] == [0]  # across seat 0
    assert not any(waits_for_button(t, s, 2, 3) for s in range(9))  # no gap
    assert not any(waits_for_button(t, s, 4, None) for s in range(9))  # stud
    assert not any(waits_for_button(t, s, 4, 4) for s in range(9))  # button posts the sb


@pytest.mark.parametrize("left, paid, tables, on, expected", [
    (10, 9, 2, False, True),    # places paid plus one: it starts
    (11, 9, 2, False, False),
    (9, 9, 2, False, False),    # already in the money
    (10, 9, 2, True, True),     # a round ended with nobody out: it goes on
    (9, 9, 2, True, False),     # a round ended in the money: it ends
    (10, 9, 1, False, False),   # one table: never
    (10, 9, 1, True, False),
    (2, 0, 2, False, False),    # nothing paid
])
def test_tour10_hand_for_hand(left: int, paid: int, tables: int, on: bool,
                              expected: bool) -> None:
    assert hand_for_hand(left, paid, tables, on) is expected


# --- the values ------------------------------------------------------------------------------


def test_views_and_moves_validate() -> None:
    with pytest.raises(ValueError, match="at least 2 seats"):
        TableView(1, 1, {}, None)
    with pytest.raises(ValueError, match="outside"):
        TableView(1, 6, {6: "a"}, None)
    with pytest.raises(ValueError, match="last big blind"):
        TableView(1, 6, {0: "a"}, 6)
    with pytest.raises(KeyError):
        full(1, 2).seat_of("nobody")
    with pytest.raises(ValueError, match="reason"):
        Move("a", None, (1, 0), "whim")
