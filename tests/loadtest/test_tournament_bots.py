"""The load tester's tournament mode (issue 27): 180 of its bots play a no-limit hold'em
tournament (9-seat tables, the hyper preset, think 0) to the end against one in-process
server, and the tournament's own log, read through the operator's admin API
(``GET /admin/tournaments/{id}/log``), is refereed by ``tests/tournament/checker.py``.

Checked: it finishes; no error answer (a bot's watch or unwatch of a table broken meanwhile
is answered ``unknown_table``/``table_closed``, docs/protocol.md's "the table is gone": the
bot expects it and counts it apart, in the report's notes); the log breaks no rule
(``check_log == []``: TOUR-02..15, chips conserved at every hand and every decision); places
1..N each covered once, tied players sharing the best of their places (TOUR-11); the payouts
sum to the pool and nobody is paid twice (TOUR-12); each bot got exactly one
``tournament_result``, whose place and prize are the log's; every chip is accounted for
(balances read back through the protocol, and the ledger sums to 0).

The bots' choices are seeded (``seed``); the server's shuffles and draws are its own
(``secrets``), so the hands differ from run to run and every assertion is one that holds
whatever the cards. Measured on the 2-core machine: 16-36 s (hence ``slow``).
"""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from server.loadtest.cli import build_parser, tournament_config_from_args
from server.loadtest.tourney_run import TournamentConfig, check_places, run_tournament
from tests.net.conftest import start_live, test_config
from tests.operator.conftest import TOKEN, admin, chips_check
from tests.tournament.checker import check_log

ENTRANTS = 180
#: The limits a load run lifts (as the load tester's spawned server, `SPAWN_ARGS`): every
#: bot connects from this one address at a rate no human reaches.
LOAD_LIMITS: dict[str, Any] = {
    "request_rate": 1e6, "request_burst": 1_000_000, "max_connections_per_ip": 1_000_000,
    "guests_per_ip_per_minute": 1_000_000, "hand_pause": 0.0}


def _places_of(log: list[dict[str, Any]]) -> dict[str, int]:
    places: dict[str, int] = {}
    for rec in log:
        if rec["kind"] == "out":
            for player, place in rec["places"].items():
                assert player not in places, f"{player} placed twice (TOUR-11)"
                places[player] = int(place)
    return places


@pytest.mark.slow
@pytest.mark.asyncio
async def test_180_bots_play_a_hyper_turbo_to_the_end_tour_03_06_08_11_12(
        tmp_path: Path) -> None:
    """TOUR-03 (a scheduled start with its minimum field), TOUR-04/06/08 (draw, balancing,
    breaking: the bots follow every `tournament_seat`), TOUR-11/12 (places and prizes)."""
    server = await start_live(test_config(tmp_path, operator_token=TOKEN,
                                          operator_fail_limit=1000, operator_fail_delay=0.0,
                                          **LOAD_LIMITS))
    try:
        progress = io.StringIO()
        report = await run_tournament(TournamentConfig(
            url=server.ws_url, entrants=ENTRANTS, seats=9, preset="hyper", variant="holdem",
            structure="no_limit", buy_in=100, fee=10, think=0.0, seed=27, lead=3.0,
            timeout=90.0), err=progress)
        status, body = await admin(server, "GET", f"/admin/tournaments/{report.tournament}/log")
        assert status == 200, body
        log: list[dict[str, Any]] = body["log"]
        violations = check_log(log)  # first: a stalled tournament's log says why
        assert violations == [], violations
        assert report.finished, (report.notes, progress.getvalue()[-2000:])
        assert report.settings["kind"] == "auto" and report.entrants == ENTRANTS
        assert report.errors == {}, report.errors
        assert report.disconnects == 0
        assert report.problems == [], report.problems
        assert report.chips["balanced"], report.chips
        assert report.chips["end"] == report.chips["start"] - 10 * ENTRANTS
        assert report.hands > ENTRANTS // 9 and report.latency.count == report.actions > 0
        assert sum(lv["hands"] for lv in report.levels) == report.hands

        start = log[0]
        assert start["kind"] == "start" and len(start["entries"]) == ENTRANTS
        assert len(start["draw"]) == ENTRANTS

        # places 1..N, each covered once; a tie of k at place p covers p..p+k-1 (TOUR-11)
        places = _places_of(log)
        winners = set(start["entries"]) - set(places)
        assert len(winners) == 1, winners  # the last player with chips: never `out`
        places[winners.pop()] = 1
        counts = Counter(places.values())
        covered = [p + i for p, k in counts.items() for i in range(k)]
        assert sorted(covered) == list(range(1, ENTRANTS + 1))

        # payouts: sum to the pool, nobody paid twice, the finish agrees (TOUR-12)
        payouts = [rec for rec in log if rec["kind"] == "payout"]
        paid = Counter(rec["player"] for rec in payouts)
        assert all(n == 1 for n in paid.values()), paid
        finish = log[-1] if log[-1]["kind"] == "finish" else next(
            rec for rec in log if rec["kind"] == "finish")
        pool = finish["pool"]
        assert pool == report.pool == 100 * ENTRANTS
        assert sum(rec["amount"] for rec in payouts) == pool
        assert {p: a for p, a in finish["paid"].items() if a} == {
            rec["player"]: rec["amount"] for rec in payouts if rec["amount"]}
        assert all(places[rec["player"]] == rec["place"] for rec in payouts)

        # each bot: exactly one result, and it is the log's place and prize
        assert all(r["results"] == 1 for r in report.results)
        amounts = {rec["player"]: rec["amount"] for rec in payouts}
        for r in report.results:
            assert r["place"] == places[r["player"]], r
            assert r["prize"] == amounts.get(r["player"], 0), r
        await chips_check(server)
    finally:
        await server.close()


def test_check_places_finds_a_gap_a_double_result_and_a_short_pool_tour_11_12() -> None:
    """The run's own check (TOUR-11 ties share the best place; TOUR-12 prizes = pool)."""
    def r(name: str, place: int, prize: int, results: int = 1) -> dict[str, Any]:
        return {"name": name, "place": place, "prize": prize, "results": results}

    good = [r("a", 1, 70), r("b", 2, 15), r("c", 2, 15), r("d", 4, 0)]
    assert check_places(good, 100, 4) == []
    gap = [r("a", 1, 70), r("b", 2, 30), r("c", 4, 0), r("d", 4, 0)]
    assert check_places(gap, 100, 4) == ["place 4 where 3 was next"]
    twice = [r("a", 1, 100), r("b", 2, 0, results=2)]
    assert check_places(twice, 100, 2) == ["b got 2 tournament_result messages"]
    short = [r("a", 1, 60), r("b", 2, 30)]
    assert check_places(short, 100, 2) == ["prizes sum to 90, the pool is 100"]


def test_tournament_options_tour_03() -> None:
    """`--tournament N`: a sit-and-go while N fits ten tables (a sit-and-go's limit), else a
    scheduled tournament whose minimum field is N, starting `--lead` seconds on (TOUR-03)."""
    def parse(*argv: str) -> TournamentConfig:
        return tournament_config_from_args(build_parser().parse_args(list(argv)))

    cfg = parse("--spawn", "--tournament", "90", "--seats", "9", "--preset", "turbo")
    fields = cfg.create_fields(1000.0)
    assert fields["kind"] == "sng" and fields["capacity"] == 90 and "starts_at" not in fields
    assert fields["settings"] == {"seats": 9, "preset": "turbo"}
    cfg = parse("--url", "ws://127.0.0.1:9/ws", "--tournament", "1000", "--lead", "7",
                "--starting-stack", "3000", "--fee", "5", "--variant", "stud7",
                "--structure", "fixed_limit")
    fields = cfg.create_fields(1000.0)
    assert (fields["kind"], fields["starts_at"], fields["min_field"]) == ("scheduled", 1008, 1000)
    assert (fields["game"], fields["structure"], fields["fee"]) == ("stud7", "fixed_limit", 5)
    assert fields["settings"]["starting_stack"] == 3000
    with pytest.raises(ValueError, match="tournament deals"):
        TournamentConfig(spawn=True, entrants=9, variant="caribbean")
    with pytest.raises(ValueError, match="shove"):
        TournamentConfig(spawn=True, entrants=9, shove=1.5)
