"""A home game under attack, against a real `poker-server` without test mode: guessing a
private table's invite code, a stranger's host controls, a flood of seat requests from many
accounts, and out-of-bounds changes by the host are each refused with a specific code, the
table goes on and no chip is created or lost (docs/protocol.md, "Private games")."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.security.conftest import ServerFactory, client, ledger_sum

HOME: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                        "stakes": {"blinds": [5, 10]}, "seats": 6, "private": True}


async def test_guessing_the_invite_code_gets_nothing_and_is_rate_limited(
        hostile_server: ServerFactory) -> None:
    srv = hostile_server("--set", "request_rate=20", "--set", "request_burst=20")
    host = await client(srv)
    await host.hello("Host")
    created = await host.request("create_table", **HOME)
    table, code = created["table"], created["code"]
    assert len(code) >= 16  # ~96 random bits
    guesser = await client(srv)
    await guesser.hello("Guesser")
    rids = [f"g{i}" for i in range(60)]
    for i, rid in enumerate(rids):  # pipelined: 60 guesses at once
        await guesser.send({"type": "watch", "rid": rid, "table": table,
                            "code": f"{code[:-4]}{i:04d}"})
    codes = [(await guesser.answer(rid))["code"] for rid in rids]
    assert set(codes) <= {"invite_required", "rate_limited"} and "rate_limited" in codes
    assert not any(e["type"] == "snapshot" for e in guesser.events)
    # the lobby does not list it, and the host's table plays on for the invited
    assert table not in [t["table"] for t in (await host.request("tables"))["tables"]]
    friend = await client(srv)
    await friend.hello("Friend")
    assert (await friend.request("watch", table=table, code=code))["type"] == "ok"
    for c in (host, guesser, friend):
        await c.ws.close()
    assert ledger_sum(srv) == 0


async def test_nobody_but_the_host_controls_the_game_and_requests_are_bounded(
        hostile_server: ServerFactory) -> None:
    srv = hostile_server("--set", "guests_per_ip_per_minute=1000", "--set", "request_rate=1000",
                         "--set", "request_burst=1000")
    host = await client(srv)
    await host.hello("Host")
    created = await host.request("create_table", **HOME)
    table, code = created["table"], created["code"]
    assert (await host.request("sit", table=table, seat=0, buy_in=500))["type"] == "ok"
    mallory = await client(srv)
    await mallory.hello("Mallory")
    assert (await mallory.request("watch", table=table, code=code))["type"] == "ok"
    for action, extra in (("pause", {}), ("close", {}), ("rotate_code", {}), ("ledger", {}),
                          ("remove", {"seat": 0}), ("transfer", {"seat": 0}),
                          ("change", {"stakes": {"blinds": [1, 2]}}),
                          ("approve", {"player": "p_nobody"})):
        answer = await mallory.request("host", table=table, action=action, **extra)
        assert answer["code"] == "not_host", (action, answer)
    # the host's own changes are bounded like a new table's
    for stakes, settings, want in (({"blinds": [5, 10**12]}, None, "limit_exceeded"),
                                   ({"blinds": [10, 5]}, None, "bad_stakes"),
                                   (None, {"action_clock": 0}, "bad_settings"),
                                   (None, {"pause": -1}, "bad_settings"),
                                   (None, {"jackpot_wager": 1}, "bad_settings")):
        fields = {k: v for k, v in (("stakes", stakes), ("settings", settings)) if v}
        answer = await host.request("host", table=table, action="change", **fields)
        assert answer["code"] == want, (fields, answer)
    # seat requests from many accounts: at most MAX_REQUESTS wait, the rest are refused
    askers = []
    for i in range(55):
        c = await client(srv)
        await c.hello(f"Asker{i}")
        askers.append(c)
    answers = await asyncio.gather(*(c.request("sit", table=table, seat=1 + i % 5,
                                               buy_in=300, code=code)
                                     for i, c in enumerate(askers)))
    pending = [a for a in answers if a.get("pending")]
    assert len(pending) == 50 and {a.get("code") for a in answers if not a.get("pending")} \
        == {"table_full"}
    assert (await host.request("host", table=table, action="pause"))["type"] == "ok"
    for c in (host, mallory, *askers):
        await c.ws.close()
    assert ledger_sum(srv) == 0  # nothing was taken for a request never approved
