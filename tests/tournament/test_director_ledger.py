"""A tournament's money and chips in the real ledger (SQLite): entries, fees, prizes and
refunds booked, the tournament's chips conserved and retired (TOUR-01, TOUR-02, TOUR-12)."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.ledger.journal import HOUSE, Ledger, player_account, tourney_pool
from server.ledger.sqlite_store import SqliteStore
from server.ledger.tournaments import TournamentBook, TournamentChips, tournament_chips
from server.ledger.wallet import LedgerWallet
from tests.tournament.checker import check_log
from tests.tournament.driver import Room
from tests.tournament.test_director import _create, assert_places

pytestmark = pytest.mark.asyncio

PLAYERS = [f"p{i:02d}" for i in range(12)]


@pytest.fixture
async def ledger(tmp_path: Path) -> AsyncIterator[Ledger]:
    store = SqliteStore(tmp_path / "ledger.db")
    await store.open()
    try:
        yield Ledger(store, node="n1", run="r1")
    finally:
        await store.close()


async def _room(ledger: Ledger, seed: int) -> tuple[Room, LedgerWallet]:
    wallet = LedgerWallet(ledger)
    for p in PLAYERS:
        await ledger.open_player(p, 5_000)
        await wallet.refresh(p)
    return Room(seed=seed, wallet=wallet, book=TournamentBook(ledger), all_in=0.2), wallet


async def test_a_tournament_books_entries_fees_and_prizes_tour_01_02_12(
        ledger: Ledger) -> None:
    room, wallet = await _room(ledger, 11)
    d = _create(room, kind="sng", capacity=12, buy_in=200, fee=20,
                settings={"starting_stack": 1000, "seats": 6, "preset": "hyper"})
    for p in PLAYERS:
        assert await d.ask(functools.partial(d.register, p, p)) is None
    assert [wallet.balance(p) for p in PLAYERS] == [5_000 - 220] * 12
    assert await ledger.balance(tourney_pool(d.info.id)) == 2_400
    chips = TournamentChips(ledger, d.info.id)
    checked: list[int] = []

    async def conserved() -> bool:  # TOUR-02, between the director's steps
        if len(checked) < 50 or len(checked) % 25 == 0:
            assert await tournament_chips(ledger, d.info.id) == await chips.total_issued()
            assert await ledger.total() == 0
        checked.append(1)
        return False
    await room.run(d, until=None, check=conserved)
    assert d.state == "finished"
    assert_places(d, 12)
    assert sum(d.prizes.values()) == 2_400
    assert await ledger.balance(tourney_pool(d.info.id)) == 0  # paid out, to the chip
    assert await ledger.balance(HOUSE) == 12 * 20  # the fees: the house's (TOUR-01)
    for p in PLAYERS:
        assert await ledger.balance(player_account(p)) == 5_000 - 220 + d.prizes.get(p, 0)
        assert wallet.balance(p) == await ledger.balance(player_account(p))
    assert await tournament_chips(ledger, d.info.id) == 0  # every chip retired
    assert await chips.total_issued() == 0
    assert await ledger.total() == 0
    assert check_log(d.log) == []


async def test_cancelling_mid_way_refunds_every_entry_tour_01(ledger: Ledger) -> None:
    room, wallet = await _room(ledger, 12)
    d = _create(room, kind="sng", capacity=12, buy_in=200, fee=20,
                settings={"starting_stack": 1000, "seats": 6, "preset": "regular"})
    for p in PLAYERS:
        assert await d.ask(functools.partial(d.register, p, p)) is None
    await room.run(d, until=lambda: len(d.places) >= 3)  # some are out already
    assert d.state == "running"
    assert await d.ask(lambda: d.cancel("test")) is None
    await room.settle(d)
    assert d.state == "cancelled"
    for p in PLAYERS:
        assert await ledger.balance(player_account(p)) == 5_000
        assert wallet.balance(p) == 5_000
    assert await ledger.balance(tourney_pool(d.info.id)) == 0
    assert await tournament_chips(ledger, d.info.id) == 0
    assert await ledger.total() == 0
    assert all(a.stopped or a.closing for a in room.registry.actors.values())
    assert d.log[-1]["kind"] == "cancel"
    assert sum(d.log[-1]["refunds"].values()) == 12 * 220
