"""Many clients buying in and cashing out at once, over the wire, against the real ledger
(embedded SQLite store): no account is ever overdrawn, no player holds two seats of one table,
and when everyone has left every balance is back where it started and the ledger sums to 0."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from server.ledger.journal import player_account
from server.table import TableRegistry
from tests.net.conftest import Client, open_client, start_live, test_config

STAKES: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [50, 100]}, "seats": 9,
                          "settings": {"pause": 3600}}  # no hand starts: chips stay put


async def test_concurrent_buy_ins_and_cash_outs_never_overdraw(tmp_path: Path) -> None:
    live = await start_live(test_config(tmp_path))
    try:
        owner = await open_client(live)
        await owner.hello("Owner")
        tables = [(await owner.request("create_table", **STAKES))["table"] for _ in range(4)]
        clients: list[Client] = []
        for i in range(8):  # fewer players than seats: nobody lands on a waiting list
            c = await open_client(live)
            await c.hello(f"P{i}")
            clients.append(c)
        ledger = live.app.wallet.ledger

        async def burst(c: Client, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
            """Send every request at once, then read the answers."""
            rids = []
            for fields in requests:
                rid = next(c.rids)
                rids.append(rid)
                await c.send({"rid": rid, **fields})
            return [await c.answer(rid) for rid in rids]

        async def greedy(i: int, c: Client) -> None:
            # 10000 chips, four tables asking 4000 each, and two more seats at the first table,
            # all at once: at most two buy-ins can be paid, and one per table
            sits = [{"type": "sit", "table": t, "seat": i % 9, "buy_in": 4000} for t in tables]
            sits += [{"type": "sit", "table": tables[0], "seat": (i + k) % 9, "buy_in": 4000}
                     for k in (1, 2)]
            answers = await burst(c, sits)
            refused = {a["code"] for a in answers if a["type"] == "error"}
            assert refused <= {"insufficient_funds", "seat_taken"}, refused

        await asyncio.gather(*(greedy(i, c) for i, c in enumerate(clients)))
        registry = live.app.registry
        assert isinstance(registry, TableRegistry)
        total_seated = 0
        for c in clients:
            actors = [registry.get(t) for t in tables]
            mine = [[st for st in actor.seats if st is not None and st.player_id == c.player_id]
                    for actor in actors if actor is not None]
            seats = [st for per in mine for st in per]
            per_table = [len(per) for per in mine]
            assert max(per_table) <= 1  # never two seats at one table
            assert len(seats) <= 2 and all(st.stack == 4000 for st in seats)
            have = await ledger.balance(player_account(str(c.player_id)))
            assert have == 10000 - 4000 * len(seats), (have, len(seats))  # never overdrawn
            total_seated += len(seats)
        assert total_seated >= len(clients)  # everyone got in somewhere
        leaves = await asyncio.gather(*(burst(c, [{"type": "leave", "table": t}
                                                  for t in tables]) for c in clients))
        assert {a.get("code") for ans in leaves for a in ans if a["type"] == "error"} <= \
            {"not_seated"}
        for c in clients:  # the answers come after the chips moved back
            assert await ledger.balance(player_account(str(c.player_id))) == 10000
        assert await ledger.total() == 0
        table_chips = await ledger.store.balances("table:")
        assert not {a: v for a, v in table_chips.items() if v}
    finally:
        await live.close()
