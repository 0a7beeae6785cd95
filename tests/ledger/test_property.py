"""Property: thousands of random ledger operations (buy-ins, rebuys, hands with rake, cash-outs,
crashes mid-hand and restarts, across many tables) agree exactly with a plain Python model,
never overdraw, and keep the sum over all accounts at zero. The full run is on SQLite; a
smaller one on Redis."""

from __future__ import annotations

import asyncio
import itertools
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.ledger.journal import RAKE, Ledger, hand_entries, player_account
from server.ledger.redis_store import RedisStore
from server.ledger.sqlite_store import SqliteStore
from server.ledger.store import Store, is_checked
from tests.redis_helpers import RedisProcess

PLAYERS = [f"p{i}" for i in range(6)]
TABLES = [f"t{i}" for i in range(4)]
START = 1000

player = st.sampled_from(PLAYERS)
table = st.sampled_from(TABLES)
op = st.one_of(
    st.tuples(st.just("buy"), player, table, st.integers(1, 700)),
    st.tuples(st.just("hand"), table, st.lists(st.integers(0, 10**6), min_size=6, max_size=6),
              st.integers(0, 30), st.booleans()),
    st.tuples(st.just("out"), player, table),
    st.tuples(st.just("crash"), table, st.lists(st.integers(0, 10**6), min_size=6,
                                                max_size=6)),
)
ops = st.lists(op, min_size=20, max_size=120)


class Model:
    """The expected balances, kept with plain dict arithmetic."""

    def __init__(self) -> None:
        self.cash = {p: START for p in PLAYERS}
        self.seats: dict[str, dict[str, int]] = {t: {} for t in TABLES}
        self.rake = 0


def outcome(stacks: dict[str, int], weights: list[int], rake_max: int) -> tuple[dict[str, int],
                                                                                 int]:
    """A random hand result that conserves chips: losers pay, one or two winners take the rest
    of the pot after the rake."""
    names = sorted(stacks)
    end = dict(stacks)
    pot = 0
    for i, name in enumerate(names):
        loss = weights[i] % (stacks[name] + 1)
        end[name] -= loss
        pot += loss
    rake = min(pot, rake_max)
    pot -= rake
    first = names[weights[-1] % len(names)]
    second = names[weights[-2] % len(names)]
    end[first] += pot - pot // 2
    end[second] += pot // 2
    return end, rake


async def run_ops(store: Store, steps: list[tuple[object, ...]]) -> int:
    runs = itertools.count()
    ledger = Ledger(store, node="n", run=f"r{next(runs)}")
    model = Model()
    hand_no = itertools.count(1)
    for p in PLAYERS:
        await ledger.open_player(p, START)
    for step in steps:
        kind = step[0]
        if kind == "buy":
            p, t, amount = str(step[1]), str(step[2]), step[3]
            assert isinstance(amount, int)
            ok = await ledger.buy_in(p, t, amount, reason="buy_in")
            assert ok == (model.cash[p] >= amount)  # never an overdraft, never a false refusal
            if ok:
                model.cash[p] -= amount
                model.seats[t][p] = model.seats[t].get(p, 0) + amount
        elif kind == "out":
            p, t = str(step[1]), str(step[2])
            amount = model.seats[t].pop(p, 0)
            assert await ledger.cash_out(p, t, amount, reason="cash_out")
            model.cash[p] += amount
        elif kind in ("hand", "crash"):
            t, weights = str(step[1]), step[2]
            assert isinstance(weights, list)
            stacks = {p: s for p, s in model.seats[t].items() if s > 0}
            if len(stacks) < 2:
                continue
            hand = f"{t}.{next(hand_no)}"
            await ledger.hand_started(t, hand, stacks)
            if kind == "crash":  # the process dies mid-hand and restarts: the hand is void
                ledger = Ledger(store, node="n", run=f"r{next(runs)}")
                recovery = await ledger.recover()
                assert len(recovery.voided) == 1
                for seats in model.seats.values():
                    for p, s in seats.items():
                        model.cash[p] += s
                    seats.clear()
                continue
            rake_max, done = step[3], step[4]
            assert isinstance(rake_max, int)
            end, rake = outcome(stacks, weights, rake_max)
            await ledger.hand_result(t, hand, hand_entries(stacks, end, rake=rake))
            if done:  # a retried result changes nothing
                await ledger.hand_result(t, hand, hand_entries(stacks, end, rake=rake))
            model.seats[t].update(end)
            model.rake += rake
    balances = await store.balances()
    assert sum(balances.values()) == 0
    assert all(b >= 0 for a, b in balances.items() if is_checked(a))
    for p in PLAYERS:
        assert balances.get(player_account(p), 0) == model.cash[p]
        for t in TABLES:
            want = model.seats[t].get(p, 0)
            assert balances.get(ledger.table_account(t, p), 0) == want
    assert balances.get(RAKE, 0) == model.rake
    assert sum(model.cash.values()) + sum(sum(s.values()) for s in model.seats.values()) + \
        model.rake == START * len(PLAYERS)
    return len(steps)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=ops)
def test_random_operations_on_sqlite(steps: list[tuple[object, ...]]) -> None:
    async def scenario() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            store = SqliteStore(Path(tmp) / "ledger.db")
            await store.open()
            try:
                await run_ops(store, steps)
            finally:
                await store.close()
    asyncio.run(scenario())


_prefixes = itertools.count()


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=ops)
def test_random_operations_on_redis(redis_server: RedisProcess,
                                    steps: list[tuple[object, ...]]) -> None:
    async def scenario() -> None:
        store = RedisStore(redis_server.url, prefix=f"prop{next(_prefixes)}")
        await store.open()
        try:
            await run_ops(store, steps)
        finally:
            await store.close()
    asyncio.run(scenario())
