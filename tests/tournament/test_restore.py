"""TOUR-15: a tournament is restored, not voided, after its process dies mid-hand: the
running hands are voided (their chips back to the stacks they started with), and the level,
the clock, every stack, seat and place survive; it then plays to the end, refereed."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.ledger.journal import Ledger, player_account, tourney_pool
from server.ledger.sqlite_store import SqliteStore
from server.ledger.tournaments import TournamentBook, TournamentChips, tournament_chips
from server.ledger.wallet import LedgerWallet
from server.tournament.saved import SavedTournaments
from tests.tournament.checker import check_log
from tests.tournament.driver import Room
from tests.tournament.test_director import _create, assert_places

pytestmark = pytest.mark.asyncio

PLAYERS = [f"p{i:02d}" for i in range(18)]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = SqliteStore(tmp_path / "ledger.db")
    await s.open()
    try:
        yield s
    finally:
        await s.close()


def _room(ledger: Ledger, wallet: LedgerWallet, saved: Path, seed: int) -> Room:
    room = Room(seed=seed, wallet=wallet, book=TournamentBook(ledger), all_in=0.1)
    room.hall.saved = SavedTournaments(saved)
    return room


async def _crash(room: Room) -> None:
    """The process dies: every task stops where it is, nothing is cleaned up."""
    tasks = [*room.registry._tasks.values(),
             *(d._task for d in room.hall.directors.values() if d._task is not None)]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


@pytest.mark.parametrize("seed", [21, 22])
async def test_a_tournament_is_restored_after_a_crash_mid_hand_tour_15(
        store: SqliteStore, tmp_path: Path, seed: int) -> None:
    ledger = Ledger(store, node="n1", run="r1")
    wallet = LedgerWallet(ledger)
    for p in PLAYERS:
        await ledger.open_player(p, 5_000)
        await wallet.refresh(p)
    room = _room(ledger, wallet, tmp_path / "tournaments", seed)
    d = _create(room, kind="sng", capacity=18, buy_in=100, fee=10,
                settings={"starting_stack": 1000, "seats": 6, "preset": "turbo"})
    tid = d.info.id
    for p in PLAYERS:
        assert await d.ask(functools.partial(d.register, p, p)) is None
    await room.run(d, until=lambda: len(d.places) >= 4 and any(
        t.in_hand for t in d.tables.values()) and room.acts % 7 == 3)
    level, places = d.level, dict(d.places)
    running = [t.number for t in d.tables.values() if t.in_hand]
    assert running
    await _crash(room)

    after = Ledger(store, node="n1", run="r2")
    recovery = await after.recover()  # the crash's clean-up: hands voided, chips back
    assert recovery.voided
    wallet2 = LedgerWallet(after)
    for p in PLAYERS:
        await wallet2.refresh(p)
    room2 = _room(after, wallet2, tmp_path / "tournaments", seed + 100)
    assert await room2.hall.restore_all() == 1
    d2 = room2.hall.directors[tid]
    assert d2.state == "running" and d2.level == level and d2.places == places
    voids = [r for r in d2.log if r["kind"] == "void"]
    assert sorted(int(r["table"]) for r in voids) == sorted(running)
    chips = TournamentChips(after, tid)
    assert await tournament_chips(after, tid) == await chips.total_issued() == 18_000
    await room2.run(d2)
    assert d2.state == "finished"
    assert_places(d2, 18)
    assert sum(d2.prizes.values()) == d2.pool == 1_800
    assert await after.balance(tourney_pool(tid)) == 0
    for p in PLAYERS:
        assert await after.balance(player_account(p)) == 5_000 - 110 + d2.prizes.get(p, 0)
    assert await tournament_chips(after, tid) == 0
    assert await after.total() == 0
    assert check_log(d2.log) == []
    # and once more after the end: nothing to play, its standings still answered
    await _crash(room2)
    room3 = _room(after, wallet2, tmp_path / "tournaments", seed + 200)
    assert await room3.hall.restore_all() == 0
    d3 = room3.hall.directors[tid]
    assert (d3.state, d3.places, d3.prizes) == ("finished", d2.places, d2.prizes)
    assert d3.finished.is_set() and not d3.tables
    shown = await room3.hall.read(d3, lambda: room3.hall.state_for(d3, PLAYERS[0]))
    assert shown["state"] == "finished" and shown["you"]["place"] == d2.places[PLAYERS[0]]
