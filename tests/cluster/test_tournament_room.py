"""Issue 27: tournaments across the room's processes, over the wire (two in-process cluster
processes on the test's own redis-server).

Every process lists every tournament of the room; a request for one owned by another process
is answered ``moved`` with its owner's URL, and the same request there is answered; a private
tournament stays invisible elsewhere exactly as a missing one (``unknown_tournament``) to anyone
its owner would not admit; a stopping process hands its open tournaments to another, which
takes them up with their entries (TOUR-15).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.operator.errors import AdminError
from server.tournament.hall import Hall
from tests.cluster import test_directory
from tests.cluster.test_directory import Node, follow, guest, settled
from tests.net.conftest import Client, Live, open_client

pytestmark = pytest.mark.redis

node = test_directory.node  # the fixture: a cluster process on the test's redis-server

SNG: dict[str, Any] = {"name": "Across", "game": "holdem", "structure": "no_limit",
                       "kind": "sng", "buy_in": 100, "fee": 10, "capacity": 3,
                       "settings": {"seats": 3, "preset": "hyper"}}


async def create(c: Client, **fields: Any) -> dict[str, Any]:
    """``create_tournament`` (its field ``kind`` is the request helper's own name)."""
    rid = next(c.rids)
    await c.send({"type": "create_tournament", "rid": rid, **SNG, **fields})
    return await c.answer(rid)


def hall(live: Live) -> Hall:
    assert live.app.router.tournaments is not None
    h = live.app.router.tournaments.hall
    assert h.room is not None
    h.room.cache = 0.0  # type: ignore[attr-defined]  # (the test reads its list at once)
    return h


async def test_listed_everywhere_and_moved_to_its_process_tour_01(node: Node) -> None:
    a, b = await node("a"), await node("b")
    await settled(a, b)
    host = await guest(a, "Host")
    made = await create(host)
    assert made["type"] == "ok", made
    tid = made["tournament"]
    hall(b)
    ann = await guest(b, "Ann")
    listed = await ann.request("tournaments")
    assert listed["type"] == "ok"
    rows = (await ann.event("tournaments"))["tournaments"]
    assert [(r["id"], r["state"], r["entrants"]) for r in rows] == [(tid, "registering", 0)]
    assert all(not k.startswith("_") for r in rows for k in r)

    asked = await ann.request("tournament", tournament=tid)  # on b: moved to a
    assert asked["code"] == "moved" and asked["url"] == a.app.config.public_url, asked
    there, answer = await follow(ann, asked, "tournament_register", tournament=tid)
    assert answer["type"] == "ok", answer
    assert tid in hall(a).directors and tid not in hall(b).directors
    assert (await there.request("tournament", tournament=tid))["type"] == "ok"
    shown = await there.event("tournament")
    assert shown["entrants"] == 1 and shown["you"]["entered"] is True
    # b's list shows the entry (the owner's summary, saved with its state)
    bob = await guest(b, "Bob")
    await bob.request("tournaments")
    rows = (await bob.event("tournaments"))["tournaments"]
    assert [(r["id"], r["entrants"]) for r in rows] == [(tid, 1)]
    missing = await bob.request("tournament", tournament="T9-nothere1")
    assert missing["code"] == "unknown_tournament"
    # the operator of either process reads its log; only its own cancels it
    assert a.app.operator is not None and b.app.operator is not None
    mine = await a.app.operator.tournament_log(tid)
    assert await b.app.operator.tournament_log(tid) == mine
    with pytest.raises(AdminError, match="ask that process's operator listener"):
        await b.app.operator.cancel_tournament("ops", tid, "testing")


async def test_a_private_tournament_is_unknown_elsewhere_but_to_its_people(
        node: Node) -> None:
    a, b = await node("a"), await node("b")
    await settled(a, b)
    host = await guest(a, "Host")
    made = await create(host, private=True)
    tid, invite = made["tournament"], made["invite"]
    hall(b)
    stranger = await guest(b, "Stranger")
    await stranger.request("tournaments")
    assert (await stranger.event("tournaments"))["tournaments"] == []
    refused = await stranger.request("tournament", tournament=tid)
    assert refused["code"] == "unknown_tournament", refused  # word for word as a missing one
    wrong = await stranger.request("tournament", tournament=tid, invite="not-the-invite")
    assert wrong["code"] == "unknown_tournament"
    invited = await stranger.request("tournament", tournament=tid, invite=invite)
    assert invited["code"] == "moved", invited
    # its host, on b, sees it listed and is sent to it
    back = await open_client(b)
    back_token = host.token
    assert back_token is not None
    again = await back.request("hello", token=back_token)
    assert again["type"] == "ok"
    await back.event("welcome")
    await back.request("tournaments")
    rows = (await back.event("tournaments"))["tournaments"]
    assert [r["id"] for r in rows] == [tid] and "_invite" not in rows[0]
    assert (await back.request("tournament", tournament=tid))["code"] == "moved"


async def test_a_stopping_process_hands_its_tournaments_over_tour_15(node: Node) -> None:
    a, b = await node("a"), await node("b")
    await settled(a, b)
    host = await guest(a, "Host")
    tid = (await create(host))["tournament"]
    ann = await guest(a, "Ann")
    assert (await ann.request("tournament_register", tournament=tid))["type"] == "ok"
    taken: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    hb = hall(b)
    restore_one = hb._restore_one

    async def watched(state: dict[str, Any], records: list[dict[str, Any]]) -> int:
        n = await restore_one(state, records)
        if n and not taken.done():
            taken.set_result(state["id"])
        return n
    hb._restore_one = watched  # type: ignore[method-assign]  # (the take, observed)
    await a.close()  # a graceful stop: a drain
    assert await asyncio.wait_for(taken, 10.0) == tid
    d = hb.directors[tid]
    assert d.state == "registering" and d.info.name == "Across"
    assert list(d.entry_no) == [ann.player_id]
    bob = await guest(b, "Bob")
    assert (await bob.request("tournament_register", tournament=tid))["type"] == "ok"


async def test_numbers_and_a_hosts_limit_are_the_rooms(node: Node) -> None:
    """Tournaments are numbered room-wide (no two ``T1-...`` in the room's list), and a
    host's three open tournaments are counted across processes, not three per process."""
    a, b = await node("a"), await node("b")
    await settled(a, b)
    hall(a), hall(b)
    host = await guest(a, "Host")
    first, second = await create(host, name="One"), await create(host, name="Two")
    there = await open_client(b)
    assert host.token is not None
    assert (await there.request("hello", token=host.token))["type"] == "ok"
    await there.event("welcome")
    third = await create(there, name="Three")
    assert [x["type"] for x in (first, second, third)] == ["ok"] * 3, (first, second, third)
    numbers = [x["tournament"].split("-")[0] for x in (first, second, third)]
    assert numbers == ["T1", "T2", "T3"]
    await there.request("tournaments")
    listed = sorted(r["id"] for r in (await there.event("tournaments"))["tournaments"])
    assert listed == sorted(x["tournament"] for x in (first, second, third))
    over = await create(there, name="Four")  # the fourth, on the other process
    assert over["code"] == "limit_exceeded", over
    assert "at most 3" in over["message"]
