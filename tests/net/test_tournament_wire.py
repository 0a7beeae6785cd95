"""Tournaments over the wire (issue 27): a sit-and-go created by a host, entered by three
players (JSON and MessagePack), played to the end through the tables the server seats them
at; entry fees and prizes in the players' balances; cancelling refunds (TOUR-01, TOUR-03,
TOUR-12)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from protocol import SUBPROTOCOL_MSGPACK
from protocol.messages import check_server_message
from tests.net.conftest import Client, Live, open_client

pytestmark = pytest.mark.asyncio

SNG = {"name": "Friday SNG", "game": "holdem", "structure": "no_limit", "kind": "sng",
       "buy_in": 100, "fee": 10, "capacity": 3,
       "settings": {"starting_stack": 300, "seats": 3, "preset": "hyper"}}


async def _player(live: Live, name: str, msgpack: bool = False) -> Client:
    c = await open_client(live, SUBPROTOCOL_MSGPACK if msgpack else "poker.json.v1")
    welcome = await c.hello(name)
    c.events.append({"type": "balance", "balance": welcome["balance"]})
    return c


async def _create(c: Client, fields: dict[str, Any]) -> dict[str, Any]:
    """`create_tournament` (its `kind` field shadows `Client.request`'s first argument)."""
    rid = next(c.rids)
    await c.send({"type": "create_tournament", "rid": rid, **fields})
    return await c.answer(rid)


async def _balance(c: Client) -> int:
    answer = await c.request("tournaments")
    assert answer["type"] == "ok"
    b = [e for e in c.events if e["type"] == "balance"]
    return int(b[-1]["balance"]) if b else -1


async def test_a_sit_and_go_over_the_wire_tour_01_03_12(live: Live) -> None:
    """TOUR-03: it starts when the third player registers; each is told their seat
    (`tournament_seat`), plays there, and is told their place (`tournament_result`);
    TOUR-01/TOUR-12: buy-ins and fees leave the balances, the pool is paid out."""
    host = await _player(live, "Hostess")
    created = await _create(host, SNG)
    assert created["type"] == "ok", created
    tid = created["tournament"]
    listed = await host.request("tournaments")
    assert listed["type"] == "ok"
    listing = await host.event("tournaments")
    check_server_message(listing)
    summary = listing["tournaments"]
    assert [t["id"] for t in summary] == [tid] and summary[0]["state"] == "registering"
    players = [host, await _player(live, "Bob", msgpack=True), await _player(live, "Cy")]
    for p in players:
        answer = await p.request("tournament_register", tournament=tid)
        assert answer["type"] == "ok", answer
    again = await host.request("tournament_register", tournament=tid)
    assert again["code"] in ("already_registered", "registration_closed")
    seats: dict[str, dict[str, Any]] = {}
    for p in players:
        seat = await p.event("tournament_seat", tournament=tid)
        assert seat["why"] == "start"
        assert p.player_id is not None
        seats[p.player_id] = seat
        answer = await p.request("watch", table=seat["table"])
        assert answer["type"] == "ok", answer
    rnd = random.Random(7)
    results: dict[str, dict[str, Any]] = {}

    async def play(p: Client) -> None:
        """Act on every turn offered to ``p`` until told its place."""
        assert p.player_id is not None
        while True:
            e = await p.event_any()
            check_server_message(e)  # every message keeps the wire contract
            if e["type"] == "tournament_result":
                results[p.player_id] = e
                return
            if e["type"] == "snapshot":  # (the hand may have started before we watched)
                opts = (e.get("turn") or {}).get("options")
                e = {"table": e["table"]}
            else:
                opts = e.get("options") if e["type"] == "turn" else None
            if not opts:
                continue
            if opts.get("raise") and rnd.random() < 0.5:
                move: dict[str, Any] = {"action": "raise", "amount": opts["raise"]["max"]}
            elif opts.get("check"):
                move = {"action": "check"}
            elif opts.get("call") is not None:
                move = {"action": "call"}
            else:
                move = {"action": "fold"}
            await p.send({"type": "act", "table": e["table"], **move})

    await asyncio.wait_for(asyncio.gather(*(play(p) for p in players)), 60)
    assert len(results) == 3, results
    assert sorted(r["place"] for r in results.values()) in ([1, 2, 3], [1, 2, 2])
    winner = next(pid for pid, r in results.items() if r["place"] == 1)
    assert results[winner]["prize"] == 300  # 3 entries of 100: one place paid (TOUR-12)
    info = await host.request("tournament", tournament=tid)
    assert info["type"] == "ok"
    state = await host.event("tournament", id=tid, state="finished")  # (after older pushes)
    check_server_message(state)
    assert state["state"] == "finished" and state["pool"] == 300
    assert [p[0] for p in state["places"]] == sorted(r["place"] for r in results.values())


async def test_cancelling_refunds_every_entry_tour_01(live: Live) -> None:
    """TOUR-01: the host cancels before the start; every buy-in and fee comes back."""
    host = await _player(live, "Hostess")
    created = await _create(host, SNG | {"capacity": 5})
    tid = created["tournament"]
    bob = await _player(live, "Bob")
    before = [await _balance(host), await _balance(bob)]
    for p in (host, bob):
        assert (await p.request("tournament_register", tournament=tid))["type"] == "ok"
    during = [await _balance(host), await _balance(bob)]
    assert during == [b - 110 for b in before]
    refused = await bob.request("cancel_tournament", tournament=tid)
    assert refused["code"] == "not_host"
    assert (await host.request("cancel_tournament", tournament=tid))["type"] == "ok"
    assert [await _balance(host), await _balance(bob)] == before
    late = await bob.request("tournament_register", tournament=tid)
    assert late["code"] == "registration_closed"


async def test_unknown_and_private_tournaments_answer_alike(live: Live) -> None:
    """A private tournament is invisible without its invite: `unknown_tournament`, as for
    one that does not exist; the invite lets a player in."""
    host = await _player(live, "Hostess")
    created = await _create(host, SNG | {"private": True})
    assert created["type"] == "ok" and created["invite"]
    tid = created["tournament"]
    eve = await _player(live, "Eve")
    a = await eve.request("tournament", tournament=tid)
    b = await eve.request("tournament", tournament="T999-zzzzzzzz")
    assert a["code"] == b["code"] == "unknown_tournament"
    assert {k: v for k, v in a.items() if k != "rid"} == {
        k: v for k, v in b.items() if k != "rid"}
    ok = await eve.request("tournament_register", tournament=tid, invite=created["invite"])
    assert ok["type"] == "ok", ok


async def test_a_host_opens_at_most_three_tournaments_and_bad_ones_are_refused(
        live: Live) -> None:
    """Attack: a guest opening tournament after tournament gets `limit_exceeded` from the
    fourth; a structure the poker cannot play gets `bad_structure`, a malformed request its
    protocol code; the server goes on."""
    host = await _player(live, "Spammer")
    for _ in range(3):
        assert (await _create(host, SNG))["type"] == "ok"
    over = await _create(host, SNG)
    assert over["code"] == "limit_exceeded"
    other = await _player(live, "Other")
    bad = await _create(other, SNG | {"settings": {"starting_stack": 100, "seats": 3,
                                                    "levels": [{"blinds": [50, 20],
                                                                "minutes": 5}]}})
    assert bad["code"] == "bad_structure"
    huge = await _create(other, SNG | {"buy_in": -5})
    assert huge["code"] in ("bad_amount", "bad_field")
    deep: Any = {}
    for _ in range(50):
        deep = {"x": deep}
    nested = await _create(other, SNG | {"settings": deep})
    assert nested["type"] == "error"
    assert (await _create(other, SNG))["type"] == "ok"  # the server goes on
