"""A home game under attack, against a real `poker-server` without test mode: guessing a
private table's invite code, a stranger's host controls, a flood of seat requests from many
accounts, and out-of-bounds changes by the host are each refused with a specific code, the
table goes on and no chip is created or lost (docs/protocol.md, "Private games"). Issue 23:
a private table leaks nothing to whom it does not admit (every request naming it is answered
exactly as for a table that does not exist: `mute` no longer tells a taken seat or a seated
name), and walking the sequential table ids finds no private table."""

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
    assert set(codes) <= {"unknown_table", "rate_limited"} and "rate_limited" in codes
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


def nothing_at(table: str, rid: Any) -> dict[str, Any]:
    """The answer to a request naming a table that does not exist."""
    return {"type": "error", "rid": rid, "code": "unknown_table",
            "message": f"no table {table!r}"}


PROBES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("mute", {"seat": 0}), ("mute", {"seat": 1}), ("mute", {"seat": 0, "on": False}),
    ("mute", {"name": "Host"}), ("mute", {"name": "Friend"}), ("mute", {"name": "Nobody"}),
    ("watch", {}), ("resume", {"since": 0}), ("unwatch", {}), ("chat", {"text": "hi"}),
    ("sit", {"seat": 0, "buy_in": 300}), ("sit", {"seat": 1, "buy_in": 300}),
    ("leave", {}), ("sit_out", {}), ("sit_in", {}), ("act", {"action": "fold"}),
    ("show_hands", {"hand": "h1"}), ("host", {"action": "pause"}),
    ("host", {"action": "ledger"}),
)


async def test_without_the_code_a_private_table_answers_like_no_table(
        hostile_server: ServerFactory) -> None:
    """The attacker's probe (issue 23): `mute` by seat and by name used to tell whether a
    seat is taken (`bad_seat` or `ok`) and whether someone of that name sits there. Now every
    request naming the private table gets, byte for byte but the id, the answer a table that
    does not exist gets."""
    srv = hostile_server("--set", "request_rate=1000", "--set", "request_burst=1000")
    host = await client(srv)
    await host.hello("Host")
    created = await host.request("create_table", **HOME, settings={"approve_seats": False})
    table, code = created["table"], created["code"]
    assert (await host.request("sit", table=table, seat=0, buy_in=500))["type"] == "ok"
    friend = await client(srv)
    await friend.hello("Friend")
    assert (await friend.request("sit", table=table, seat=2, buy_in=500,
                                 code=code))["type"] == "ok"
    prober = await client(srv)
    await prober.hello("Prober")
    missing = f"{table[:-3]}zzz" if not table.endswith("zzz") else f"{table[:-3]}yyy"
    for kind, fields in PROBES:
        for target in (table, missing):
            rid = next(prober.rids)
            await prober.send({"type": kind, "rid": rid, "table": target, **fields})
            assert await prober.answer(rid) == nothing_at(target, rid), (kind, fields, target)
    assert not [e for e in prober.events if e.get("table") == table]
    # the prober is not admitted by having asked; the table plays on for those who are
    assert (await friend.request("chat", table=table, text="still here"))["type"] == "ok"
    muted = await friend.request("mute", table=table, seat=0)
    assert muted["type"] == "ok", muted
    for c in (host, friend, prober):
        await c.ws.close()
    assert ledger_sum(srv) == 0


async def test_walking_the_table_ids_finds_no_private_table(
        hostile_server: ServerFactory) -> None:
    """Table ids are sequential (`t1`, `t2`, ...): a walk of them used to reach every private
    table. A private table's id carries a random suffix (its number, shown to people, stays
    in the sequence), so the walk finds the public tables only, and a private table is
    reached by its invite link (id and code) alone."""
    srv = hostile_server("--set", "request_rate=1000", "--set", "request_burst=1000",
                         "--set", "max_tables_per_account=20", "--set", "max_tables_per_ip=20")
    host = await client(srv)
    await host.hello("Host")
    public: list[str] = []
    private: dict[str, str] = {}
    for i in range(6):
        if i % 2:
            made = await host.request("create_table", **{**HOME, "private": False})
            assert made["type"] == "ok" and "code" not in made, made
            public.append(made["table"])
        else:
            made = await host.request("create_table", **HOME)
            assert made["type"] == "ok", made
            private[made["table"]] = made["code"]
    for table_id in private:
        number, _, suffix = table_id[1:].partition("-")
        assert number.isdigit() and len(suffix) >= 12, table_id  # ~72 random bits
    walker = await client(srv)
    await walker.hello("Walker")
    found = []
    for n in range(1, 20):
        for kind, fields in (("watch", {}), ("mute", {"seat": 0})):
            answer = await walker.request(kind, table=f"t{n}", **fields)
            if answer["code" if answer["type"] == "error" else "type"] != "unknown_table":
                found.append(f"t{n}")
            else:
                assert answer["message"] == f"no table {f't{n}'!r}", answer
    assert sorted(set(found)) == sorted(public), found
    # the invite link (id and code) still opens each private table
    guest = await client(srv)
    await guest.hello("Guest")
    for table_id, invite in private.items():
        assert (await guest.request("watch", table=table_id, code=invite))["type"] == "ok"
        snapshot = await guest.event("snapshot", table=table_id)
        assert snapshot["table"] == table_id
    for c in (host, walker, guest):
        await c.ws.close()
    assert ledger_sum(srv) == 0
