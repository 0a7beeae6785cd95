"""Places and prizes: default share tables and their checks (TOUR-12), the prize of each place
(TOUR-12), the places of players out together and the shared prizes of ties with POT-01's odd
chip (TOUR-11)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.tournament.prizes import (
    MAX_PAID,
    Out,
    check_shares,
    default_shares,
    odd_chip_holder,
    place_outs,
    prizes,
    share_prizes,
)
from server.tournament.structure import StructureError

AS = (14, 3)  # ace of spades
AC = (14, 0)
KS = (13, 3)


@pytest.mark.parametrize("entries, shares", [
    (1, (10000,)), (4, (10000,)),
    (5, (6500, 3500)), (8, (6500, 3500)),
    (9, (5000, 3000, 2000)), (18, (5000, 3000, 2000)),
    (19, (4000, 2500, 1700, 1100, 700)), (27, (4000, 2500, 1700, 1100, 700)),
    (28, (3300, 2100, 1500, 1100, 800, 600, 600)),
    (45, (3300, 2100, 1500, 1100, 800, 600, 600)),
    (46, (2800, 1800, 1300, 1000, 800, 700, 600, 500, 500)),
    (90, (2800, 1800, 1300, 1000, 800, 700, 600, 500, 500)),
    (91, (2500, 1600, 1150, 900, 750, 600, 500, 400, 320, 160, 160, 160, 160, 160, 120, 120,
          120, 120)),
    (180, (2500, 1600, 1150, 900, 750, 600, 500, 400, 320, 160, 160, 160, 160, 160, 120, 120,
           120, 120)),
])
def test_tour12_default_tables_up_to_180(entries: int, shares: tuple[int, ...]) -> None:
    assert default_shares(entries) == shares
    check_shares(shares, entries)


def test_tour12_default_table_above_180_hand_worked() -> None:
    """181 entries: 28 paid (15%, rounded up); the last place the floor of 15000 // 181."""
    shares = default_shares(181)
    assert len(shares) == 28
    assert shares[-1] == 15000 // 181 == 82
    assert shares[:3] == (2620, 1304, 866)
    assert len(default_shares(10**6)) == MAX_PAID
    with pytest.raises(ValueError, match="at least one entry"):
        default_shares(0)


@given(entries=st.integers(181, 200_000))
def test_tour12_default_tables_above_180_are_valid(entries: int) -> None:
    shares = default_shares(entries)
    check_shares(shares, entries)  # sum 10000, each > 0, never rising, no more than entries
    assert len(shares) == min(math.ceil(entries * 15 / 100), MAX_PAID)


@pytest.mark.parametrize("shares, entries, message", [
    ((), 5, "non-empty list"),
    ("10000", 5, "non-empty list"),
    ((10000, 0), 5, "integer > 0"),
    ((9999, True), 5, "integer > 0"),
    ((5000.0, 5000), 5, "integer > 0"),
    ((6000, 3000), 5, "sum to 10000, not 9000"),
    ((3000, 7000), 5, "must not exceed"),
    ((5000, 3000, 2000), 2, "3 places paid but only 2 entries"),
])
def test_tour12_bad_share_tables_are_refused(shares: tuple[int, ...], entries: int,
                                            message: str) -> None:
    with pytest.raises(StructureError, match=message) as info:
        check_shares(shares, entries)
    assert info.value.code == "bad_structure"


def test_tour12_prizes_round_down_and_first_takes_the_remainder() -> None:
    assert prizes(1001, (5000, 3000, 2000)) == [501, 300, 200]
    assert prizes(0, (10000,)) == [0]
    assert prizes(7, [3334, 3333, 3333]) == [3, 2, 2]
    with pytest.raises(ValueError, match="pool"):
        prizes(-1, (10000,))
    with pytest.raises(StructureError):
        prizes(100, (6000, 3000))


@given(pool=st.integers(0, 10**15), entries=st.integers(1, 3000))
def test_tour12_prizes_sum_to_the_pool(pool: int, entries: int) -> None:
    table = prizes(pool, default_shares(entries))
    assert sum(table) == pool
    assert all(a >= b >= 0 for a, b in zip(table, table[1:], strict=False))


# --- places (TOUR-11) ------------------------------------------------------------------------


def test_tour11_places_by_start_stack_ties_share_the_best_place() -> None:
    """Seven left; three out in one hand: the two who started with 50 tie for places 7 and
    6 (best 6), the one with 100 takes 5."""
    outs = [Out("a", 100, AS), Out("b", 50, KS), Out("c", 50, AC)]
    assert place_outs(outs, 7) == [(6, ["b", "c"]), (5, ["a"])]
    assert place_outs([Out("z", 10, AS)], 2) == [(2, ["z"])]
    assert place_outs([], 5) == []


def test_tour11_place_refusals() -> None:
    with pytest.raises(ValueError, match="twice"):
        place_outs([Out("a", 1, AS), Out("a", 2, AS)], 5)
    with pytest.raises(ValueError, match="one must remain"):
        place_outs([Out("a", 1, AS), Out("b", 2, KS)], 2)


def test_tour11_a_tie_shares_its_places_prizes_odd_chip_to_the_highest_card() -> None:
    """Places 2 and 3 pay 301 + 200 = 501: 250 each, the odd chip to the ace of spades."""
    outs = [Out("b", 50, AC), Out("c", 50, AS)]
    groups = place_outs(outs, 3)
    assert groups == [(2, ["b", "c"])]
    assert share_prizes(groups, [500, 301, 200], outs) == ({"b": 250, "c": 251}, "c")
    # no odd chip, but the tie still names its POT-01 holder for the log's tie_odd_chip
    assert share_prizes(groups, [501, 300, 200], outs) == ({"b": 250, "c": 250}, "c")
    assert odd_chip_holder(["b", "c"], outs) == "c"


def test_tour11_no_tie_no_odd_chip_player() -> None:
    outs = [Out("a", 10, AS), Out("b", 20, KS)]
    groups = place_outs(outs, 4)
    assert groups == [(4, ["a"]), (3, ["b"])]
    assert share_prizes(groups, [60, 30, 7, 3], outs) == ({"a": 3, "b": 7}, None)


def test_tour11_places_beyond_the_table_pay_nothing() -> None:
    outs = [Out("x", 5, KS), Out("y", 5, AC), Out("z", 5, AS), Out("w", 9, KS)]
    groups = place_outs(outs, 6)  # x, y, z share 6, 5, 4; w takes 3
    assert groups == [(4, ["x", "y", "z"]), (3, ["w"])]
    prize, odd = share_prizes(groups, [600, 300, 100, 2], outs)
    assert prize == {"x": 0, "y": 0, "z": 2, "w": 100}  # only place 4 pays: 2 chips
    assert odd == "z"


def test_tour11_several_odd_groups_name_the_best_placed() -> None:
    outs = [Out("a", 1, KS), Out("b", 1, AS), Out("c", 2, AC), Out("d", 2, KS)]
    groups = place_outs(outs, 5)  # a, b share 5-4; c, d share 3-2
    prize, odd = share_prizes(groups, [10, 5, 4, 3, 0], outs)
    assert prize == {"a": 1, "b": 2, "c": 5, "d": 4}
    assert odd == "c"


def test_tour11_equal_high_cards_across_tables_go_to_the_first_id() -> None:
    outs = [Out("q", 7, AS), Out("p", 7, AS)]
    assert share_prizes(place_outs(outs, 3), [0, 3, 0], outs) == ({"p": 2, "q": 1}, "p")


def test_tour11_share_refusals() -> None:
    outs = [Out("a", 1, AS)]
    with pytest.raises(ValueError, match="players who are out"):
        share_prizes([(1, ["nobody"])], [10], outs)
    with pytest.raises(ValueError, match="place >= 1"):
        share_prizes([(0, ["a"])], [10], outs)


@given(stacks=st.lists(st.integers(1, 4), min_size=1, max_size=12),
       left_over=st.integers(1, 5), pool=st.integers(0, 10**6), entries=st.integers(1, 400))
def test_tour11_shared_prizes_sum_to_the_places_covered(stacks: list[int], left_over: int,
                                                        pool: int, entries: int) -> None:
    outs = [Out(f"p{i}", s, (2 + i % 13, i % 4)) for i, s in enumerate(stacks)]
    next_place = len(outs) + left_over
    groups = place_outs(outs, next_place)
    covered = sorted(p for best, players in groups for p in range(best, best + len(players)))
    assert covered == list(range(left_over + 1, next_place + 1))
    table = prizes(pool, default_shares(entries))
    prize, _ = share_prizes(groups, table, outs)
    assert sum(prize.values()) == sum(table[p - 1] for p in covered if p <= len(table))
    for _, players in groups:  # equal shares within a tie, the odd chips apart
        amounts = sorted(prize[p] for p in players)
        assert amounts[-1] - amounts[0] <= len(players) - 1
        assert amounts[:-1] == [amounts[0]] * (len(players) - 1)
