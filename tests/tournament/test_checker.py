"""The tournament referee (tests/tournament/checker.py) against hand-built logs: a realistic log
that keeps every rule of docs/rules.md section 5 passes, and each mutated log is caught with
the rule it breaks (TOUR-02, 04, 05, 06, 07, 08, 09, 10, 11, 12, 14, 15; GEN-05 for the mover).

Rule of this module: every log is data written by the test (log_builder only numbers records
and keeps the seats and stacks); every mutated log must produce a violation naming its rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.tournament.checker import Violation, assert_log_ok, check_log
from tests.tournament.log_builder import LogBuilder, Record, renumber

POOL = 1010
SHARES = [5000, 2700, 1500, 800]  # 505, 272, 151, 80: 1008, the 2 left over go to first


def bubble_log() -> list[Record]:
    """Ten players, three tables of four seats, four places paid: a balance move, a break,
    a scheduled break, hand-for-hand at the bubble with two tables dealing at once, a break to
    the final table with a player waiting in the dead zone, a tie in the money, payouts."""
    b = LogBuilder()
    b.start(seats=4, paid=4, stack=1000, draw={
        "p01": ("1", 0), "p02": ("1", 1), "p03": ("1", 2), "p04": ("1", 3),
        "p05": ("2", 0), "p06": ("2", 1), "p07": ("2", 3),
        "p08": ("3", 0), "p09": ("3", 2), "p10": ("3", 3)})
    b.add("prizes", pool=POOL, shares=SHARES)
    b.level(1, small=10, big=20)
    # table 2: p06 (big blind, seat 1) loses everything; 9 left
    b.hand("2", button=3, blinds=[0, 1], result={"p06": -1000, "p07": 1000})
    b.out({"p06": 10})
    # table 1 ends a hand with 4 players, table 2 has 2: the player due the big blind (seat 2,
    # after the big blind at seat 1) moves to table 2's worst free seat: 2 (seat 1 posted
    # table 2's last big blind and is never given)
    b.hand("1", button=3, blinds=[0, 1], result={"p01": -20, "p02": 20})
    b.move("p03", ("2", 2))
    # table 3: p10 is out, 8 left fit on two tables: table 3 (fewest) breaks
    b.hand("3", button=3, blinds=[0, 2], result={"p10": -1000, "p08": 1000})
    b.out({"p10": 9})
    b.move("p08", ("1", 2), why="break")   # tables 1 and 2 both had 3: either one
    b.move("p09", ("2", 1), why="break")   # table 2 now has the fewest
    b.add("close_table", table="3")
    b.level(2, small=20, big=40)
    b.add("break", level=2)
    b.add("resume", level=2)
    # table 2: big blind to seat 2 (p03, moved in), small blind seat 1 (p09, from the break)
    b.hand("2", button=0, blinds=[1, 2], result={"p05": -1000, "p07": 1000})
    b.out({"p05": 8})
    # table 1: p08 (from the break) takes the big blind at once (TOUR-09)
    b.hand("1", button=0, blinds=[1, 2], result={"p04": -1000, "p08": 1000})
    b.out({"p04": 7})
    b.hand("2", button=1, blinds=[2, 3], result={"p03": -1000, "p07": 1000})
    b.out({"p03": 6})
    b.add("hand_for_hand", on=True)          # 5 left = paid + 1, two tables
    # hand-for-hand round: both tables deal, p01 busts first but is placed at the round's end
    b.hand_start("1", button=1, blinds=[2, 0])
    b.hand_start("2", button=2, blinds=[3, 1])
    b.hand_end("1", {"p01": -980, "p02": 980})
    b.hand_end("2", {"p09": 1000, "p07": -1000})
    b.out({"p01": 5}, hand="h7")
    b.move("p07", ("1", 3), why="break")     # 4 left fit on one table: table 2 breaks
    b.move("p09", ("1", 0), why="break")
    b.add("close_table", table="2")
    b.add("hand_for_hand", on=False)
    # final table: p07 (seat 3) sits between the button (2) and the small blind (0): waits
    b.hand("1", button=2, blinds=[0, 1], waiting=["p07"],
           result={"p09": -2000, "p02": -2000, "p08": 4000})
    b.out({"p02": 3, "p09": 3}, tie_odd_chip="p02")   # 151 + 80 shared: 116 and 115
    b.hand("1", button=0, blinds=[None, 2], result={"p07": -3000, "p08": 3000})
    b.out({"p07": 2})
    b.payouts([("p08", 1, 507), ("p07", 2, 272), ("p02", 3, 116), ("p09", 3, 115)], POOL)
    b.add("close_table", table="1")
    return b.records


def find(records: list[Record], kind: str, nth: int = 0, **match: Any) -> int:
    """The index of the ``nth`` record of ``kind`` whose fields include ``match``."""
    hits = [i for i, r in enumerate(records)
            if r["kind"] == kind and all(r.get(k) == v for k, v in match.items())]
    return hits[nth]


def rules_of(records: list[Record]) -> set[str]:
    return {v.rule for v in check_log(renumber(records))}


def test_bubble_log_passes_every_rule() -> None:
    """TOUR-02, 04 ... 12: the realistic log keeps every rule the referee checks."""
    records = bubble_log()
    assert check_log(records) == []
    assert_log_ok(records)


def test_assert_log_ok_lists_every_violation() -> None:
    records = bubble_log()
    records[0]["n"] = 7
    with pytest.raises(AssertionError, match="#1 LOG: record 1 is numbered 7"):
        assert_log_ok(records)


def test_structure_gap_and_unknown_kind() -> None:
    """5.1: records are numbered 1.. without gaps; an unknown kind is a violation."""
    records = bubble_log()
    del records[5]
    found = check_log(records)
    assert Violation("LOG", 6, "record 6 is numbered 7") in found
    records = renumber(bubble_log())
    records.insert(3, {"n": 4, "kind": "deal_me_in"})
    assert "LOG" in {v.rule for v in check_log(renumber(records))}


def mutate(fn: Callable[[list[Record]], None]) -> list[Violation]:
    records = bubble_log()
    fn(records)
    return check_log(renumber(records))


def test_tour06_wrong_mover_is_caught() -> None:
    """TOUR-06 / GEN-05: the mover is the player due the big blind (p03), not p04."""
    def wrong(rs: list[Record]) -> None:
        m = rs[find(rs, "move", why="balance")]
        m.update(player="p04", **{"from": ["1", 3]})
    found = mutate(wrong)
    assert any(v.rule == "TOUR-06" and "due the big blind is p03" in v.message for v in found)


def test_tour06_mover_into_the_last_big_blind_seat_is_caught() -> None:
    """TOUR-06: seat 1 posted table 2's last big blind; a mover is never put there."""
    found = mutate(lambda rs: rs[find(rs, "move", why="balance")].update(to=["2", 1]))
    assert any(v.rule == "TOUR-06" and "last big blind" in v.message for v in found)


def test_tour06_missing_balance_move_is_caught() -> None:
    """TOUR-06: table 1 ended a hand two players above table 2: one move is required."""
    def drop(rs: list[Record]) -> None:
        del rs[find(rs, "move", why="balance")]
    found = mutate(drop)
    assert any(v.rule == "TOUR-06" and "balance move is missing" in v.message for v in found)


def test_tour06_extra_balance_move_is_caught() -> None:
    """TOUR-06: as few players move as possible: a move between balanced tables is extra."""
    def extra(rs: list[Record]) -> None:
        i = find(rs, "out", places={"p04": 7})
        rs.insert(i + 1, {"n": 0, "kind": "move", "player": "p08", "from": ["1", 2],
                          "to": ["2", 0], "why": "balance"})
    found = mutate(extra)
    assert any(v.rule == "TOUR-06" and "not required" in v.message for v in found)


def break_log(first_mover_to: tuple[str, int] = ("2", 4)) -> list[Record]:
    """13 players at three tables of six (5, 4, 4); table 3 loses one, 12 fit on two tables:
    table 3 breaks and each of its players goes to a table with the fewest at that moment."""
    b = LogBuilder()
    b.start(seats=6, paid=2, stack=100, draw={
        **{f"a{i}": ("1", i) for i in range(5)}, **{f"b{i}": ("2", i) for i in range(4)},
        **{f"c{i}": ("3", i) for i in range(4)}})
    b.level(1, small=1, big=2)
    b.hand("3", button=3, blinds=[0, 1], result={"c0": -100, "c3": 100})
    b.out({"c0": 13})
    b.move("c1", first_mover_to, why="break")
    b.move("c2", ("1", 5), why="break")
    b.move("c3", ("2", 5), why="break")
    b.add("close_table", table="3")
    return b.records


def test_tour08_break_moves_each_player_to_a_table_with_the_fewest() -> None:
    """TOUR-08: a break's movers fill the tables with the fewest players, one by one."""
    assert check_log(break_log()) == []
    found = check_log(break_log(first_mover_to=("1", 5)))
    assert any(v.rule == "TOUR-08" and "the fewest is 4" in v.message for v in found)


def test_tour08_missing_break_is_caught() -> None:
    """TOUR-08: 8 players left fit on two tables of four: table 3 must break at once."""
    def skip(rs: list[Record]) -> None:
        i = find(rs, "close_table", table="3")
        del rs[i - 2:i + 1]
    found = mutate(skip)
    assert any(v.rule == "TOUR-08" and "must be broken now" in v.message for v in found)


def test_tour07_hand_at_a_held_table_is_caught() -> None:
    """TOUR-07: a table three players short of the largest does not deal until balanced."""
    b = LogBuilder()
    b.start(seats=6, paid=2, stack=100, draw={
        **{f"a{i}": ("1", i) for i in range(6)}, **{f"b{i}": ("2", i) for i in range(5)}})
    b.level(1, small=1, big=2)
    b.hand_start("1", button=5, blinds=[0, 1])
    b.hand("2", button=4, blinds=[0, 1], result={"b0": -100, "b1": -100, "b2": 200})
    b.out({"b0": 10, "b1": 10}, tie_odd_chip="b0")
    assert check_log(b.records) == []
    b.hand_start("2", button=0, blinds=[2, 3])   # 3 players against table 1's 6
    found = check_log(b.records)
    assert [v.rule for v in found] == ["TOUR-07"]


def test_tour04_draw_must_seat_everyone_once_on_balanced_tables() -> None:
    """TOUR-04: every entry drawn once, seats in range and unique, ceil(n/seats) tables of
    sizes within one; a table's first button is its highest-numbered occupied seat."""
    def lopsided(rs: list[Record]) -> None:
        rs[0]["draw"]["p10"] = ["1", 2]        # seat taken by p03
        rs[0]["draw"]["p09"] = ["2", 2]        # table 3 keeps one player: sizes 4, 4, 1 ...
    found = mutate(lopsided)
    assert any(v.rule == "TOUR-04" and "no such free seat" in v.message for v in found)
    assert any(v.rule == "TOUR-04" and "differ by more than one" in v.message for v in found)
    found = mutate(lambda rs: rs[find(rs, "hand_start", table="3")].update(button=2))
    assert any(v.rule == "TOUR-04" and "first button" in v.message for v in found)


def test_tour05_hand_during_a_break_and_at_the_wrong_level() -> None:
    """TOUR-05: no table deals during a break; every hand carries the current level."""
    def no_resume(rs: list[Record]) -> None:
        del rs[find(rs, "resume")]
        rs.insert(find(rs, "hand_start", 3) + 2, {"n": 0, "kind": "resume", "level": 2})
    found = mutate(no_resume)
    assert [v.rule for v in found] == ["TOUR-05"]
    assert "during a break" in found[0].message
    found = mutate(lambda rs: rs[find(rs, "hand_start", 3)].update(level=1))
    assert [v.rule for v in found] == ["TOUR-05"]


def test_tour02_chips_created_in_a_hand_are_caught() -> None:
    """TOUR-02: a hand's end sums to its start; the chips in play never change."""
    def inflate(rs: list[Record]) -> None:
        rs[find(rs, "hand_end", table="1")]["stacks"]["p02"] += 1
    found = mutate(inflate)
    assert any(v.rule == "TOUR-02" and "ends with 4001" in v.message for v in found)
    assert any(v.rule == "TOUR-02" and "10001, not 10000" in v.message for v in found)


def test_tour09_player_in_the_dead_zone_dealt_in_is_caught() -> None:
    """TOUR-09: p07, seated by the break between the button and the small blind, waits."""
    def deal_in(rs: list[Record]) -> None:
        start = rs[find(rs, "hand_start", 8)]
        start["players"]["p07"] = 3
        start["stacks"]["p07"] = 3000
    found = mutate(deal_in)
    assert any(v.rule == "TOUR-09" and "p07" in v.message and "wait" in v.message
               for v in found)


def test_tour09_seated_player_left_out_is_caught() -> None:
    """TOUR-09: a player seated by a break outside the dead zone is dealt in at once."""
    def leave_out(rs: list[Record]) -> None:
        start = rs[find(rs, "hand_start", 4)]   # table 1: p08 from the break takes the blind
        del start["players"]["p08"]
        del start["stacks"]["p08"]
    found = mutate(leave_out)
    assert any(v.rule == "TOUR-09" and "p08" in v.message and "not dealt in" in v.message
               for v in found)


def test_tour10_overlapping_hand_for_hand_rounds_are_caught() -> None:
    """TOUR-10: during hand-for-hand no table deals its next hand until the round ended."""
    def overlap(rs: list[Record]) -> None:
        i = find(rs, "hand_end", table="1", hand="h7")
        rs.insert(i + 1, {"n": 0, "kind": "hand_start", "table": "1", "hand": "h7b",
                          "level": 2, "players": {"p02": 1, "p08": 2},
                          "stacks": {"p02": 2000, "p08": 3000}, "button": 2, "blinds": [0, 1]})
    found = mutate(overlap)
    assert any(v.rule == "TOUR-10" and "before the hand-for-hand round ended" in v.message
               for v in found)


def test_tour10_hand_for_hand_on_and_off_exactly_at_the_bubble() -> None:
    """TOUR-10: it must turn on at paid + 1 players left on two tables, and off when a
    round ends with the players left no more than the places paid."""
    def never_on(rs: list[Record]) -> None:
        del rs[find(rs, "hand_for_hand", on=True)]
    found = mutate(never_on)
    assert any(v.rule == "TOUR-10" and "should turn on" in v.message for v in found)

    def early(rs: list[Record]) -> None:
        rs.insert(find(rs, "out", places={"p04": 7}) + 1,
                  {"n": 0, "kind": "hand_for_hand", "on": True})
    found = mutate(early)
    assert any(v.rule == "TOUR-10" and "not due" in v.message for v in found)


def test_tour11_out_early_during_hand_for_hand_and_wrong_order() -> None:
    """TOUR-11: during hand-for-hand players are placed at the round's end; more chips at
    the hand's start, the better place; equal stacks share the best place."""
    def early(rs: list[Record]) -> None:
        out = rs.pop(find(rs, "out", places={"p01": 5}))
        rs.insert(find(rs, "hand_end", table="1", hand="h7") + 1, out)
    found = mutate(early)
    assert any(v.rule == "TOUR-11" and "no players are due" in v.message for v in found)
    found = mutate(lambda rs: rs[find(rs, "out", places={"p02": 3, "p09": 3})].update(
        places={"p02": 3, "p09": 4}))
    assert any(v.rule == "TOUR-11" and "by start-of-hand stacks" in v.message for v in found)


def test_tour11_wrong_place_order_by_start_stacks() -> None:
    """TOUR-11: two players out in one hand: the bigger start-of-hand stack places better."""
    b = LogBuilder()
    b.start(seats=6, paid=1, stack=100, draw={f"a{i}": ("1", i) for i in range(4)})
    b.level(1, small=1, big=2)
    b.hand("1", button=3, blinds=[0, 1], result={"a0": 60, "a1": -60})
    b.hand("1", button=0, blinds=[1, 2], result={"a1": -40, "a2": -100, "a3": 140})
    b.out({"a2": 3, "a1": 4})
    assert check_log(b.records) == []
    b.records[-1]["places"] = {"a1": 3, "a2": 4}
    found = check_log(b.records)
    assert [v.rule for v in found] == ["TOUR-11"]


def test_tour11_tie_odd_chip_must_name_a_tied_player() -> None:
    """TOUR-11: the odd chip of a tie goes to one of the tied players; no tie, no odd chip."""
    found = mutate(lambda rs: rs[find(rs, "out", places={"p02": 3, "p09": 3})].update(
        tie_odd_chip="p08"))
    assert any(v.rule == "TOUR-11" and "tie_odd_chip" in v.message for v in found)
    found = mutate(lambda rs: rs[find(rs, "out", places={"p07": 2})].update(tie_odd_chip="p07"))
    assert any(v.rule == "TOUR-11" and "tie_odd_chip" in v.message for v in found)


def test_tour12_payout_off_by_one_chip_is_caught() -> None:
    """TOUR-12: first place gets 505 plus the 2 chips of rounding; the tie shares 151 + 80."""
    def off(rs: list[Record]) -> None:
        rs[find(rs, "payout", player="p08")]["amount"] = 506
        rs[find(rs, "finish")]["paid"]["p08"] = 506
    found = mutate(off)
    assert any(v.rule == "TOUR-12" and "paid 506, due [507]" in v.message for v in found)
    assert any(v.rule == "TOUR-12" and "sum to 1009" in v.message for v in found)

    def odd_chip(rs: list[Record]) -> None:
        rs[find(rs, "out", places={"p02": 3, "p09": 3})]["tie_odd_chip"] = "p09"
    found = mutate(odd_chip)
    assert {v.rule for v in found} == {"TOUR-12"}
    assert any("p02 (place 3) paid 116, due [115]" in v.message for v in found)


def test_tour12_player_paid_twice_and_unpaid_place() -> None:
    """TOUR-12: every payout is booked once; every paid place is paid."""
    def twice(rs: list[Record]) -> None:
        i = find(rs, "payout", player="p07")
        rs.insert(i + 1, dict(rs[i]))
    found = mutate(twice)
    assert any(v.rule == "TOUR-12" and "p07 is paid twice" in v.message for v in found)

    def unpaid(rs: list[Record]) -> None:
        del rs[find(rs, "payout", player="p09")]
        del rs[find(rs, "finish")]["paid"]["p09"]
    found = mutate(unpaid)
    assert any(v.rule == "TOUR-12" and "places not paid: ['p09']" in v.message for v in found)


def test_tour12_shares_sum_to_10000_and_finish_matches_payouts() -> None:
    """TOUR-12: the share table sums to 10000 basis points; finish.paid is the payouts."""
    found = mutate(lambda rs: rs[find(rs, "prizes")].update(shares=[5000, 2700, 1500, 700]))
    assert any(v.rule == "TOUR-12" and "sum to 9900" in v.message for v in found)
    found = mutate(lambda rs: rs[find(rs, "finish")]["paid"].update(p07=271))
    assert any(v.rule == "TOUR-12" and "finish.paid" in v.message for v in found)


def test_tour12_tournament_must_finish_with_one_player_left() -> None:
    """TOUR-11/12: with one player left the tournament finishes (payouts, finish)."""
    def unfinished(rs: list[Record]) -> None:
        del rs[find(rs, "payout"):]
    found = mutate(unfinished)
    assert any(v.rule == "TOUR-12" and "does not finish" in v.message for v in found)


def stud_log(mover: str = "a2", to: tuple[str, int] = ("2", 0)) -> list[Record]:
    """Seven Card Stud, two tables of four: table 2 drops to two players, table 1 (four)
    sends one player, drawn at random, to a free seat drawn at random (TOUR-06, no blinds)."""
    b = LogBuilder()
    b.start(seats=4, paid=2, stack=100, draw={
        "a0": ("1", 0), "a1": ("1", 1), "a2": ("1", 2), "a3": ("1", 3),
        "b0": ("2", 0), "b1": ("2", 1), "b3": ("2", 3)})
    b.level(1, small=1, big=2, game="seven_card_stud")
    b.hand("2", button=None, blinds=[], result={"b0": -100, "b3": 100})
    b.out({"b0": 7})
    b.hand("1", button=None, blinds=[], result={"a0": -5, "a3": 5})
    b.move(mover, to)
    b.hand("2", button=None, blinds=[])
    return b.records


def test_tour06_stud_mover_is_any_player_of_the_table_to_any_free_seat() -> None:
    """TOUR-06 in stud: any mover from the long table, any free seat at the short one."""
    assert check_log(stud_log()) == []
    assert check_log(stud_log(mover="a0", to=("2", 2))) == []
    found = check_log(stud_log(to=("2", 1)))
    assert any(v.rule == "TOUR-06" and "not a free seat" in v.message for v in found)


def entry_log() -> LogBuilder:
    """Two tables of four: a bust and its re-entry, a late entry, a rebuy, a hand voided by a
    restore and dealt again (TOUR-14, TOUR-15, TOUR-02 with bought chips)."""
    b = LogBuilder()
    b.start(seats=4, paid=2, stack=100, draw={
        "a0": ("1", 0), "a1": ("1", 1), "a2": ("1", 2),
        "b0": ("2", 0), "b1": ("2", 1), "b2": ("2", 2)})
    b.level(1, small=1, big=2)
    b.hand("1", button=2, blinds=[0, 1], result={"a0": -1, "a1": 1})
    b.hand("2", button=2, blinds=[0, 1], result={"b1": -100, "b2": 100})
    b.out({"b1": 6})
    # table 2 has the fewest: worst free seat clockwise after its last big blind (1): 3
    b.enter("b1", ("2", 3), 100, why="re_entry")
    # both tables have three: the lowest-numbered; after its big blind (1): seat 3
    b.enter("c0", ("1", 3), 100)
    b.chips("b0", 100)
    b.hand_start("1", button=0, blinds=[1, 2])
    b.void("1")
    b.hand("1", button=0, blinds=[1, 2], result={"c0": -2, "a2": 2})
    b.hand("2", button=0, blinds=[None, 2], result={"b0": 50, "b2": -50})
    return b


def test_tour14_entries_and_rebuys_keep_the_chip_count() -> None:
    """TOUR-14 / TOUR-02: late entries and re-entries are seated like balance movers with the
    starting stack; a rebuy's chips join the total; TOUR-15: a void restores the start."""
    assert check_log(entry_log().records) == []


def test_tour14_entry_at_the_wrong_table_or_seat_or_stack() -> None:
    """TOUR-14: an entry goes to the table with the fewest players (ties: the lowest), its
    worst free seat, with the starting stack (TOUR-02)."""
    rs = entry_log().records
    rs[find(rs, "enter", player="b1")]["to"] = ["2", 1]
    found = check_log(rs)
    assert any(v.rule == "TOUR-14" and "last big blind" in v.message for v in found)
    rs = entry_log().records
    rs[find(rs, "enter", player="c0")]["to"] = ["2", 1]
    found = check_log(rs)
    assert any(v.rule == "TOUR-14" and "the fewest are at 1" in v.message
               for v in found)
    rs = entry_log().records
    rs[find(rs, "enter", player="c0")]["stack"] = 150
    found = check_log(rs)
    assert any(v.rule == "TOUR-02" and "not the starting stack" in v.message for v in found)


def test_tour14_rebuy_during_a_hand_is_caught() -> None:
    """TOUR-14 (GEN-06): chips are bought between hands only."""
    rs = entry_log().records
    chips = rs.pop(find(rs, "chips"))
    rs.insert(find(rs, "hand_start", 1) + 1, chips)
    found = check_log(renumber(rs))
    assert any(v.rule == "TOUR-14" and "during a hand" in v.message for v in found)


def test_tour15_void_must_restore_the_hands_start() -> None:
    """TOUR-15: a voided hand gives back exactly the stacks at its start."""
    rs = entry_log().records
    rs[find(rs, "void")]["stacks"]["a0"] -= 1
    found = check_log(rs)
    assert [v.rule for v in found] == ["TOUR-15"]


def test_tour09_late_entrant_in_the_dead_zone_waits() -> None:
    """TOUR-09 / TOUR-14: a late entrant's worst seat (1, the first free one after the last
    big blind at 2) lies between the next button (0) and small blind (2): they wait a hand;
    dealt in at once, the referee objects."""
    b = LogBuilder()
    b.start(seats=4, paid=2, stack=100, draw={
        "a0": ("1", 0), "a1": ("1", 2), "a2": ("1", 3),
        "b0": ("2", 0), "b1": ("2", 1), "b2": ("2", 2)})
    b.level(1, small=1, big=2)
    b.hand("1", button=3, blinds=[0, 2], result={"a0": -1, "a1": 1})
    b.hand("2", button=2, blinds=[0, 1])
    b.enter("c0", ("1", 1), 100)
    b.hand("1", button=0, blinds=[2, 3], waiting=["c0"], result={"a1": -2, "a2": 2})
    assert check_log(b.records) == []
    start = b.records[find(b.records, "hand_start", 2)]
    start["players"]["c0"], start["stacks"]["c0"] = 1, 100
    found = check_log(b.records)
    assert [v.rule for v in found] == ["TOUR-09"]
    assert "c0, newly seated between the button and the small blind" in found[0].message


def test_tour10_hand_for_hand_must_turn_off_when_the_bubble_bursts() -> None:
    """TOUR-10: the round that leaves no more players than places paid ends hand-for-hand."""
    def stays_on(rs: list[Record]) -> None:
        del rs[find(rs, "hand_for_hand", on=False)]
    found = mutate(stays_on)
    assert any(v.rule == "TOUR-10" and "should turn off" in v.message for v in found)


def test_malformed_record_is_reported_not_raised() -> None:
    """5.1: a record missing its fields is a LOG violation; the replay goes on."""
    found = mutate(lambda rs: rs[find(rs, "move", why="balance")].pop("to"))
    assert any(v.rule == "LOG" and "malformed move" in v.message for v in found)


def deferred_break_log() -> list[Record]:
    """Ten players at three tables of four; 8 left fit on two tables when table 2's hand ends,
    but table 3, the one to break (2 players, ties: the highest), is in a hand: it breaks when
    that hand ends (TOUR-08)."""
    b = LogBuilder()
    b.start(seats=4, paid=2, stack=100, draw={
        **{f"a{i}": ("1", i) for i in range(4)}, **{f"b{i}": ("2", i) for i in range(3)},
        **{f"c{i}": ("3", i) for i in range(3)}})
    b.level(1, small=1, big=2)
    b.hand("3", button=2, blinds=[0, 1], result={"c0": -100, "c1": 100})
    b.out({"c0": 10})
    b.hand_start("3", button=0, blinds=[1, 2])
    b.hand("2", button=2, blinds=[0, 1], result={"b0": -100, "b1": 100})
    b.out({"b0": 9})
    b.hand_end("3", {"c1": -10, "c2": 10})
    b.move("c1", ("2", 0), why="break")
    b.move("c2", ("2", 3), why="break")
    b.add("close_table", table="3")
    return b.records


def test_tour08_a_table_in_a_hand_breaks_when_its_hand_ends() -> None:
    """TOUR-08: the table to break is broken as soon as it is not in a hand, not before."""
    assert check_log(deferred_break_log()) == []
    rs = deferred_break_log()
    early = rs[-3:]
    del rs[-3:]
    i = find(rs, "out", places={"b0": 9}) + 1
    rs[i:i] = early
    found = check_log(renumber(rs))
    assert any(v.rule == "TOUR-08" and "during hand" in v.message for v in found)


def bubble_mid_hand_log() -> list[Record]:
    """Three places paid, two tables of three seats: hand-for-hand turns on while table 1 is
    in a hand; that hand is the round, its bust is placed at the round's end, which bursts
    the bubble: table 2 breaks and hand-for-hand turns off (TOUR-10, TOUR-11, TOUR-08)."""
    b = LogBuilder()
    b.start(seats=3, paid=3, stack=100, draw={
        **{f"a{i}": ("1", i) for i in range(3)}, **{f"b{i}": ("2", i) for i in range(3)}})
    b.level(1, small=1, big=2)
    b.hand_start("1", button=2, blinds=[0, 1])
    b.hand("2", button=2, blinds=[0, 1], result={"b0": -100, "b1": 100})
    b.out({"b0": 6})
    b.hand("2", button=0, blinds=[1, 2], result={"b2": -100, "b1": 100})
    b.out({"b2": 5})
    b.add("hand_for_hand", on=True)
    b.hand_end("1", {"a0": -100, "a1": 100})
    b.out({"a0": 4}, hand="h1")
    b.move("b1", ("1", 0), why="break")
    b.add("close_table", table="2")
    b.add("hand_for_hand", on=False)
    return b.records


def test_tour10_hands_in_play_when_hand_for_hand_starts_are_its_first_round() -> None:
    """TOUR-10: no table deals until the hands in play when hand-for-hand began have ended."""
    assert check_log(bubble_mid_hand_log()) == []
    rs = bubble_mid_hand_log()
    i = find(rs, "hand_for_hand", on=True) + 1
    rs.insert(i, {"n": 0, "kind": "hand_start", "table": "2", "hand": "x", "level": 1,
                  "players": {"b1": 1}, "stacks": {"b1": 300}, "button": 1, "blinds": [1]})
    found = check_log(renumber(rs))
    assert any(v.rule == "TOUR-10" and "before the hand-for-hand round ended" in v.message
               for v in found)
