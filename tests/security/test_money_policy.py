"""Money: house policy is the operator's, never a table creator's (GEN-09, GEN-10, CSP-13),
run against a real `poker-server` without test mode (docs/security.md "Money: house policy").

Each test is one attack of the issue: a guest choosing the jackpot terms or a rake, one-chip
jackpot wagers to farm the fixed payouts, a pool pushed past what JSON and MessagePack carry,
integers beyond 2**53 - 1, and a waiting-list request with an invalid buy-in."""

from __future__ import annotations

import asyncio
from typing import Any

from protocol.constants import MAX_SAFE_INT
from tests.net.conftest import Client
from tests.security.conftest import (
    SERVED_BOUND,
    ServerFactory,
    client,
    ledger_sum,
    round_trip,
    while_attacking,
)

CSP: dict[str, Any] = {"variant": "caribbean", "stakes": {"min": 10, "max": 100}, "seats": 5,
                       "settings": {"pause": 0.0, "ante_time": 5.0}}


async def guest(srv: Any, name: str) -> Client:
    c = await client(srv)
    await c.hello(name)
    return c


async def test_gen10_csp13_a_guest_cannot_set_the_jackpot_terms_or_the_rake(
        hostile_server: ServerFactory) -> None:
    """The attack: `create_table` with a one-chip `jackpot_wager`, a `reset_amount` of
    2**53 - 1, a 100% `pool_share_bp`, a split, or `rake_bp: 20000`. Every one is refused with
    `house_policy`; the lobby shows the operator's terms and every table's rake."""
    srv = hostile_server()
    c = await guest(srv, "Mallory")
    attacks = [
        {**CSP, "stakes": {"min": 1, "max": 1, "jackpot_wager": 1}},
        {**CSP, "settings": {"reset_amount": MAX_SAFE_INT}},
        {**CSP, "settings": {"pool_share_bp": 10_000}},
        {**CSP, "settings": {"split_pools": True, "minor_reset_amount": MAX_SAFE_INT}},
        {"variant": "holdem", "structure": "no_limit", "stakes": {"blinds": [5, 10]},
         "seats": 6, "settings": {"rake_bp": 20_000}},
        {"variant": "holdem", "structure": "no_limit", "stakes": {"blinds": [5, 10]},
         "seats": 6, "settings": {"rake_bp": 500, "rake_cap": 0}},
    ]
    for fields in attacks:
        answer = await c.request("create_table", **fields)
        assert answer["type"] == "error" and answer["code"] == "house_policy", (fields, answer)
    assert (await c.request("create_table", **CSP))["type"] == "ok"
    assert (await c.request("create_table", variant="holdem", structure="no_limit",
                            stakes={"blinds": [5, 10]}, seats=6))["type"] == "ok"
    tables = (await c.request("tables"))["tables"]
    assert len(tables) == 2 and all(t["rake"] == {"bp": 0, "cap": 0} for t in tables)
    [csp] = [t for t in tables if t["variant"] == "caribbean"]
    assert csp["jackpot_terms"]["wager"] == 100 and csp["jackpot_terms"]["reset"] == 1_000_000
    assert csp["jackpot_terms"]["royal_min"] == 1_000_000  # CSP-09: its own term, on the wire
    assert csp["jackpot_terms"]["paytable"] == {
        "royal_flush_bp": 10_000, "straight_flush_bp": 1_000, "four_of_a_kind": 50_000,
        "full_house": 10_000, "flush": 5_000}
    await c.ws.close()
    assert ledger_sum(srv) == 0


async def test_gen09_gen10_the_operator_allows_a_rake_and_bounds_it(
        hostile_server: ServerFactory) -> None:
    """With `--set max_rake_bp=500 --set max_rake_cap=300` a creator may pick a rake up to
    5% capped at 300, never above; the lobby shows it."""
    srv = hostile_server("--set", "max_rake_bp=500", "--set", "max_rake_cap=300")
    c = await guest(srv, "Mallory")
    base: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                            "stakes": {"blinds": [5, 10]}, "seats": 6}
    for settings in ({"rake_bp": 501, "rake_cap": 300}, {"rake_bp": 500, "rake_cap": 301},
                     {"rake_bp": 20_000}):
        answer = await c.request("create_table", **base, settings=settings)
        assert answer.get("code") == "house_policy", (settings, answer)
    made = await c.request("create_table", **base, settings={"rake_bp": 500, "rake_cap": 300})
    assert made["type"] == "ok", made
    [entry] = (await c.request("tables"))["tables"]
    assert entry["rake"] == {"bp": 500, "cap": 300}
    await c.ws.close()
    assert ledger_sum(srv) == 0


async def play_rounds(c: Client, table: str, seat: int, rounds: int) -> list[int]:
    """Ante 10 with the jackpot wager and play, `rounds` times; the jackpot results."""
    results: list[int] = []
    for _ in range(rounds):
        while True:
            turn = await c.event("turn", table=table, seat=seat)
            if "ante" in (turn.get("options") or {}):
                break
        answer = await c.request("act", table=table, action="ante", amount=10, jackpot=True)
        if answer["type"] != "ok":  # the stack no longer covers ante, wager and call
            break
        while True:
            turn = await c.event("turn", table=table, seat=seat)
            if "play" in (turn.get("options") or {}):
                break
        assert (await c.request("act", table=table, action="play"))["type"] == "ok"
        settled = await c.event("settled", table=table)
        results.append(settled["results"][str(seat)]["jackpot"])
    return results


async def test_csp13_one_chip_rounds_cannot_create_chips(
        hostile_server: ServerFactory) -> None:
    """The attack of the issue: guests on a table whose jackpot wager is 1 chip play many
    rounds to farm the absolute payouts. The creator cannot set the wager (it stays the
    house's 100), every settled wager is the house's, and the ledger sums to 0 after
    every chip went back to the players (conservation, CSP-12)."""
    srv = hostile_server()
    players = [await guest(srv, f"Farmer{i}") for i in range(3)]
    refused = await players[0].request("create_table", **{
        **CSP, "stakes": {"min": 1, "max": 1, "jackpot_wager": 1}})
    assert refused["code"] == "house_policy"
    made = await players[0].request("create_table", **CSP)
    table = made["table"]
    for seat, p in enumerate(players):
        assert (await p.request("sit", table=table, seat=seat, buy_in=1000))["type"] == "ok"
    results = await asyncio.wait_for(asyncio.gather(
        *(play_rounds(p, table, seat, 8) for seat, p in enumerate(players))), 120)
    assert all(r in (-100, 0) for rs in results for r in rs), results  # the house's wager
    assert sum(len(rs) for rs in results) >= 3
    probe = await client(srv)
    assert max(await while_attacking(asyncio.sleep(0.3), probe)) < SERVED_BOUND
    for p in players:
        assert (await p.request("leave", table=table))["type"] == "ok"
        await p.ws.close()
    await probe.ws.close()
    assert ledger_sum(srv) == 0


async def test_gen10_the_pool_cannot_be_pushed_past_its_ceiling_and_the_meter_flows(
        hostile_server: ServerFactory) -> None:
    """With the pool opened at its ceiling (`--set max_pool=1000000`, the reset amount), a
    jackpot wager is refused with `limit_exceeded` (nothing is taken), an ante without it
    plays; the meter and the lobby keep answering with the pool at the ceiling."""
    srv = hostile_server("--set", "max_pool=1000000")
    c = await guest(srv, "Mallory")
    table = (await c.request("create_table", **CSP))["table"]
    assert (await c.request("sit", table=table, seat=0, buy_in=1000))["type"] == "ok"
    while "ante" not in ((await c.event("turn", table=table, seat=0)).get("options") or {}):
        pass
    answer = await c.request("act", table=table, action="ante", amount=10, jackpot=True)
    assert answer["type"] == "error" and answer["code"] == "limit_exceeded", answer
    assert (await c.request("act", table=table, action="ante", amount=10))["type"] == "ok"
    [entry] = (await c.request("tables"))["tables"]
    assert entry["jackpot"]["pool"] <= 1_000_000
    assert await round_trip(srv) < SERVED_BOUND
    await c.ws.close()
    assert ledger_sum(srv) == 0


async def test_gen10_integers_beyond_2_53_and_past_the_ceilings_are_refused(
        hostile_server: ServerFactory) -> None:
    """2**53 anywhere in a request is refused with a code (`malformed`, the rid kept) and the
    connection stays usable; stakes and buy-ins past the operator's ceilings are refused with
    `limit_exceeded` / `bad_buy_in`; no chip moves."""
    srv = hostile_server("--set", "max_stake=100000", "--set", "max_buy_in=1000000")
    c = await guest(srv, "Mallory")
    for frame in ({"type": "sit", "rid": 1, "table": "t1", "seat": 0, "buy_in": 2**53},
                  {"type": "create_table", "rid": 2, "variant": "holdem",
                   "structure": "no_limit", "stakes": {"blinds": [5, 2**53]}, "seats": 6},
                  {"type": "act", "rid": 3, "table": "t1", "action": "raise",
                   "amount": -(2**60)}):
        await c.send(frame)
        answer = await c.answer(frame["rid"])
        assert answer["type"] == "error" and answer["code"] in ("malformed", "bad_field",
                                                                "bad_amount"), answer
    big = await c.request("create_table", variant="holdem", structure="no_limit",
                          stakes={"blinds": [MAX_SAFE_INT, MAX_SAFE_INT]}, seats=6)
    assert big["code"] == "limit_exceeded", big
    over = await c.request("create_table", variant="holdem", structure="no_limit",
                           stakes={"blinds": [5, 10]}, seats=6,
                           settings={"max_buy_in": MAX_SAFE_INT})
    assert over["code"] == "limit_exceeded", over
    table = (await c.request("create_table", variant="holdem", structure="no_limit",
                             stakes={"blinds": [5, 10]}, seats=6))["table"]
    sit = await c.request("sit", table=table, seat=0, buy_in=MAX_SAFE_INT)
    assert sit["code"] == "bad_buy_in", sit
    assert (await c.request("ping"))["type"] == "pong"
    await c.ws.close()
    assert ledger_sum(srv) == 0


async def test_waiting_list_refuses_an_invalid_buy_in_at_once(
        hostile_server: ServerFactory) -> None:
    """The attack: queue on a full table with a buy-in of 1 (or of the whole balance) so that
    the server silently changes it when a seat frees. It is refused at once (`bad_buy_in`);
    a valid request is queued and seated later with exactly its buy-in."""
    srv = hostile_server()
    a, b, m, v = [await guest(srv, n) for n in ("Alice", "Bob", "Mallory", "Victor")]
    table = (await a.request("create_table", variant="holdem", structure="no_limit",
                             stakes={"blinds": [5, 10]}, seats=2))["table"]
    assert (await a.request("sit", table=table, seat=0, buy_in=500))["type"] == "ok"
    assert (await b.request("sit", table=table, seat=1, buy_in=500))["type"] == "ok"
    for buy_in in (1, 10_000):
        answer = await m.request("sit", table=table, seat=0, buy_in=buy_in)
        assert answer["code"] == "bad_buy_in", answer
    assert (await v.request("sit", table=table, seat=0, buy_in=700))["code"] == "table_full"
    assert (await b.request("leave", table=table))["type"] == "ok"
    snap = await v.event("snapshot", table=table)
    assert any(s and str(s["name"]).startswith("Victor") and s["stack"] == 700
               for s in snap["seats"]), snap["seats"]
    for c in (a, b, m, v):
        await c.ws.close()
    assert ledger_sum(srv) == 0
