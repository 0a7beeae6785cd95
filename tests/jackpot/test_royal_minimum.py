"""CSP-09 (Gazette r12.2(c)) on both jackpot stores, the in-process one and Redis (its Lua
arithmetic): each royal flush gets the larger of the royal flush minimum ($10,000, its own
term) or an equal share of what remains, never the pool's reset amount; what the pool lacks
is a house ``shortfall``, booked ``jackpot:house`` -> ``jackpot:pool`` in the ledger, so the
ledger's pool is the coordinator's and every account still sums to 0.

Amounts in chips, 100 chips a dollar.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Any

import pytest

from server.jackpot.base import Claim, settings_args
from server.jackpot.memory import MemoryCoordinator
from server.jackpot.redis_coord import RedisCoordinator
from server.jackpot.service import JackpotService, credit_payout, decode_report, encode_report
from server.ledger.journal import JACKPOT_HOUSE, JACKPOT_POOL, Ledger
from server.ledger.sqlite_store import SqliteStore
from server.ledger.wallet import LedgerWallet
from server.rules.caribbean_payout import CaribbeanSettings
from tests.redis_helpers import RedisProcess

LOW_RESET = CaribbeanSettings(reset_amount=500_000)  # reseeds at $5,000
HIGH_RESET = CaribbeanSettings(reset_amount=2_000_000)  # reseeds at $20,000

Coord = MemoryCoordinator | RedisCoordinator


@dataclasses.dataclass
class Room:
    """A coordinator opened at ``pool`` chips, its service, and a ledger of its own."""

    coord: Coord
    svc: JackpotService
    ledger: Ledger

    async def play(self, hand: str, settings: CaribbeanSettings, *players: str) -> None:
        """One round whose seats 0.. hold royal flushes of ``players``; wait for the credits."""
        self.svc.hand_eligible(hand)
        claims = [Claim(hand, seat, p, "royal_flush", seat) for seat, p in enumerate(players)]
        self.svc.hand_settled(hand, table="t1", settings=settings, contributions=[],
                              claims=claims)
        await self.svc.all_paid()
        await self.svc.drain()

    async def bookings(self) -> list[tuple[str, str, str, int]]:
        return [(e.reason, e.src, e.dst, e.amount) for e in await self.ledger.store.journal(
            0, 1000) if e.reason.startswith("jackpot_")]


STORES = pytest.mark.parametrize("store", ["memory", "redis"])  # both, the same assertions


async def open_room(kind: str, tmp_path: Path, pool: int, terms: CaribbeanSettings,
                    request: pytest.FixtureRequest, players: tuple[str, ...]) -> Room:
    store_ = SqliteStore(tmp_path / "ledger.db")
    await store_.open()
    ledger = Ledger(store_, node="n1")
    for p in players:
        await ledger.open_player(p, 0)
    wallet = LedgerWallet(ledger)
    coord: Coord
    if kind == "memory":
        coord = MemoryCoordinator(seed=pool, terms=terms)
    else:
        server: RedisProcess = request.getfixturevalue("redis_server")
        coord = await RedisCoordinator.connect(server.url, seed=pool, terms=terms)
    svc = JackpotService(coord, owner="n1", ledger=ledger,
                         credit=functools.partial(credit_payout, wallet))
    await svc.start()
    return Room(coord, svc, ledger)


async def close_room(room: Room) -> None:
    await room.svc.close()
    await room.ledger.store.close()


@STORES
async def test_csp09_a_royal_under_a_low_reset_gets_10000_with_3000_from_the_house(
        store: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """CSP-09: reset $5,000, pool $7,000, one royal flush: the player is credited $10,000
    (not the $7,000 pool, nor a $5,000 minimum); $3,000 of it is a house shortfall, booked,
    then the pool is reseeded to $5,000 (booked too); ledger and coordinator agree, sum 0."""
    room = await open_room(store, tmp_path, 700_000, LOW_RESET, request, ("ann",))
    try:
        await room.play("t1.1", LOW_RESET, "ann")
        assert await room.ledger.balance("player:ann") == 1_000_000
        st = await room.coord.state()
        assert (st.major, st.paid) == (500_000, 1_000_000)
        assert st.seeded == 700_000 + 300_000 + 500_000 == -st.house
        assert [(e.kind, e.amount, e.after) for e in await room.coord.history()] == [
            ("seed", 700_000, 700_000), ("payout", 1_000_000, 0), ("shortfall", 300_000, 0),
            ("reseed", 500_000, 500_000)]
        assert await room.bookings() == [
            ("jackpot_seed", JACKPOT_HOUSE, JACKPOT_POOL, 700_000),
            ("jackpot_shortfall", JACKPOT_HOUSE, JACKPOT_POOL, 300_000),
            ("jackpot_reseed", JACKPOT_HOUSE, JACKPOT_POOL, 500_000),
            ("jackpot_payout", JACKPOT_POOL, "player:ann", 1_000_000)]
        assert await room.ledger.balance(JACKPOT_POOL) == st.major
        assert await room.ledger.balance(JACKPOT_HOUSE) == st.house
        assert await room.ledger.total() == 0
    finally:
        await close_room(room)


@STORES
@pytest.mark.parametrize(("pool", "each", "shortfall"), [
    (3_000_000, 1_500_000, 0),  # $30,000: half each ($15,000), not the $20,000 reset
    (1_500_000, 1_000_000, 500_000),  # $15,000: half is $7,500, so $10,000 each
])
async def test_csp09_two_royals_under_a_high_reset_get_max_10000_or_an_equal_share(
        store: str, tmp_path: Path, request: pytest.FixtureRequest, pool: int, each: int,
        shortfall: int) -> None:
    """CSP-09: reset $20,000, two royal flushes in one round: each is credited the larger of
    $10,000 or half of the pool, never the reset amount; any shortfall is the house's,
    booked; the pool is reseeded to $20,000; the ledger balances."""
    room = await open_room(store, tmp_path, pool, HIGH_RESET, request, ("ann", "bob"))
    try:
        await room.play("t1.1", HIGH_RESET, "ann", "bob")
        assert await room.ledger.balance("player:ann") == each
        assert await room.ledger.balance("player:bob") == each
        st = await room.coord.state()
        assert (st.major, st.paid) == (2_000_000, 2 * each)
        assert st.seeded == pool + shortfall + 2_000_000 == -st.house
        short = [(e.amount, e.reason) for e in await room.ledger.store.journal(0, 1000)
                 if e.reason == "jackpot_shortfall"]
        assert short == ([(shortfall, "jackpot_shortfall")] if shortfall else [])
        assert await room.ledger.balance(JACKPOT_POOL) == st.major
        assert await room.ledger.balance(JACKPOT_HOUSE) == st.house
        assert await room.ledger.total() == 0
    finally:
        await close_room(room)


async def test_csp09_the_royal_minimum_survives_the_outbox_record(
        redis_server: RedisProcess) -> None:
    """CSP-09: a report's outbox record (replayed after a crash) keeps the operator's royal
    minimum; a record written before the term existed decodes to its default, $10,000, and a
    report stored in Redis then (9 settings) is paid the same by the Lua arithmetic."""
    args: dict[str, Any] = {"owner": "n1", "table": "t1", "contributions": [],
            "settings": CaribbeanSettings(reset_amount=500_000, royal_minimum=1_200_000),
            "claims": [Claim("t1.1", 0, "ann", "royal_flush", 0)]}
    assert decode_report(encode_report(args))["settings"].royal_minimum == 1_200_000
    old = json.loads(encode_report(args))
    del old["settings"]["royal_minimum"]
    assert decode_report(json.dumps(old))["settings"] == LOW_RESET
    coord = await RedisCoordinator.connect(redis_server.url)
    try:
        cls = [[c.key, c.seat, c.player, c.kind, c.eligible_at] for c in args["claims"]]
        reply = json.loads(await coord._run(coord._compute,
                                            json.dumps(settings_args(LOW_RESET)[:9]),
                                            json.dumps(cls), 0, 700_000))
        assert reply[0] == [[0, "1000000"]]  # the default minimum, not the $5,000 reset
        assert reply[1] == [["major", "1000000", "300000", "500000", "500000"]]
    finally:
        await coord.close()
