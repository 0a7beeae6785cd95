"""Tables, lobby and chat limits on the fake clock: table caps, idle close, the lobby listing
built once per change (paged, filtered), the table's chat limit and mutes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from protocol import ProtocolError, parse_request
from server.config import Config
from tests.table.helpers import Harness

HOLDEM = {"variant": "holdem", "structure": "no_limit", "stakes": {"blinds": [50, 100]},
          "seats": 6}


def cfg(**kw: Any) -> Config:
    return Config(test_mode=True, hand_pause=2.0, action_clock=10.0, time_bank=5.0, **kw)


def create(h: Harness, owner: str = "owner", ip: str | None = None, **fields: Any) -> str:
    req = parse_request({"type": "create_table", **HOLDEM, **fields})
    return h.registry.create(req, owner=owner, ip=ip)  # type: ignore[arg-type]


def page(h: Harness, **fields: Any) -> dict[str, Any]:
    return h.registry.page(parse_request({"type": "tables", **fields}))


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_caps_per_account_per_ip_and_global() -> None:
    h = Harness(config=cfg(max_tables_per_account=2, max_tables_per_ip=3, max_tables=4))
    create(h, "a", "1.2.3.4")
    create(h, "a", "1.2.3.4")
    with pytest.raises(ProtocolError) as exc:
        create(h, "a", "1.2.3.4")
    assert exc.value.code == "too_many_tables" and "account" in exc.value.message
    create(h, "b", "1.2.3.4")
    with pytest.raises(ProtocolError) as exc:
        create(h, "c", "1.2.3.4")
    assert exc.value.code == "too_many_tables" and "address" in exc.value.message
    create(h, "d", "5.6.7.8")
    with pytest.raises(ProtocolError) as exc:
        create(h, "e", "9.9.9.9")
    assert exc.value.code == "too_many_tables" and "server" in exc.value.message


async def test_an_empty_table_closes_after_idle_table_close_and_frees_its_creators_cap() -> None:
    h = Harness(config=cfg(idle_table_close=30.0, max_tables_per_account=1))
    table_id = create(h, "a", "1.2.3.4")
    actor = h.registry.get(table_id)
    assert actor is not None
    watcher = h.player("w")
    await h.send(actor, watcher, "watch")
    await h.advance(actor, 29.0)
    assert h.registry.get(table_id) is actor
    await h.advance(actor, 1.5)
    await settle()
    assert h.registry.get(table_id) is None
    closed = watcher.of("table_closed")
    assert closed and closed[0]["table"] == table_id and closed[0]["reason"] == "idle"
    assert page(h)["tables"] == [] and page(h)["total"] == 0
    create(h, "a", "1.2.3.4")  # the cap counts open tables only


async def test_a_seated_table_stays_and_its_count_restarts_when_everyone_leaves() -> None:
    h = Harness(config=cfg(idle_table_close=30.0))
    actor = h.create(**HOLDEM)
    alice = h.player("alice")
    await h.advance(actor, 20.0)
    await h.send(actor, alice, "sit", seat=0, buy_in=5000)
    await h.advance(actor, 100.0)
    assert h.registry.get(actor.table_id) is actor  # seated: never idle
    await h.send(actor, alice, "leave")
    await h.advance(actor, 29.0)
    assert h.registry.get(actor.table_id) is actor
    await h.advance(actor, 1.5)
    await settle()
    assert h.registry.get(actor.table_id) is None
    assert h.wallet.balance("alice") == 100_000  # cashed out on leaving


async def test_a_request_queued_behind_the_close_is_answered_table_closed() -> None:
    h = Harness(config=cfg(idle_table_close=5.0))
    actor = h.create(**HOLDEM)
    sink = h.player("late")
    h.clock.advance(5.0)  # the close is queued, not yet handled
    from server.table import Envelope
    actor.submit_nowait(Envelope(parse_request({"type": "watch", "rid": 1,
                                                "table": actor.table_id}), sink))
    await actor.idle()
    await settle()
    assert sink.last_answer()["code"] == "table_closed"
    assert h.registry.get(actor.table_id) is None


async def test_the_lobby_is_built_once_per_change_not_per_request() -> None:
    h = Harness(config=cfg(max_tables_per_account=100))
    actors = [h.registry.get(create(h)) for _ in range(10)]
    lobby = h.registry.lobby
    assert page(h)["total"] == 10
    built = lobby.builds
    for _ in range(50):
        assert page(h, limit=3)["total"] == 10
    assert lobby.builds == built  # no change: no rebuild
    alice = h.player("alice")
    actor = actors[4]
    assert actor is not None
    await h.send(actor, alice, "sit", seat=0, buy_in=5000)
    entry = next(t for t in page(h, limit=50)["tables"] if t["table"] == actor.table_id)
    assert entry["players"] == 1
    assert lobby.builds == built + 1
    for _ in range(20):
        page(h, free_seats=6)
    assert lobby.builds == built + 1


async def test_lobby_pages_filters_and_bounds() -> None:
    h = Harness(config=cfg(max_tables_per_account=100, lobby_page_size=4, lobby_max_page=6))
    ids = [create(h) for _ in range(9)]
    ids.append(create(h, **{**HOLDEM, "stakes": {"blinds": [500, 1000]}}))
    ids.append(create(h, variant="stud7", structure="fixed_limit",
                      stakes={"ante": 10, "bring_in": 25, "small_bet": 100, "big_bet": 200},
                      seats=8))
    first = page(h)
    assert [t["table"] for t in first["tables"]] == ids[:4] and first["total"] == 11
    second = page(h, cursor=first["next"])
    assert [t["table"] for t in second["tables"]] == ids[4:8]
    assert page(h, limit=1000)["tables"].__len__() == 6  # cut to lobby_max_page
    last = page(h, cursor=ids[-2])
    assert [t["table"] for t in last["tables"]] == ids[-1:] and last["next"] is None
    assert [t["table"] for t in page(h, variant="stud7")["tables"]] == [ids[-1]]
    assert [t["table"] for t in page(h, min_big_blind=1000)["tables"]] == [ids[-2]]
    assert page(h, max_big_blind=100)["total"] == 10
    assert page(h, free_seats=7)["total"] == 1  # only the 8-seat stud table
    with pytest.raises(ProtocolError):
        page(h, cursor="zz")
    # the old answer shape is kept: every entry has the lobby fields
    assert {"table", "name", "variant", "structure", "stakes", "seats", "players",
            "spectators"} <= set(first["tables"][0])


async def test_the_tables_chat_limit_and_a_mute() -> None:
    h = Harness(config=cfg(chat_rate_per_table=0.001, chat_burst_per_table=3))
    actor = h.create(**HOLDEM)
    alice, bob, carol = h.player("alice"), h.player("bob"), h.player("carol")
    for i, p in enumerate((alice, bob, carol)):
        await h.send(actor, p, "sit", seat=i, buy_in=5000)
    assert (await h.send(actor, bob, "mute", seat=0))["muted"] is True
    assert (await h.send(actor, alice, "chat", text="hi"))["type"] == "ok"
    assert [c["text"] for c in carol.of("chat")] == ["hi"]
    assert bob.of("chat") == []  # bob muted alice
    assert (await h.send(actor, carol, "chat", text="yo"))["type"] == "ok"
    assert [c["text"] for c in bob.of("chat")] == ["yo"]
    assert (await h.send(actor, bob, "mute", seat=0, on=False))["muted"] is False
    assert (await h.send(actor, alice, "chat", text="back"))["type"] == "ok"
    assert [c["text"] for c in bob.of("chat")] == ["yo", "back"]
    refused = await h.send(actor, carol, "chat", text="more")  # the table's burst is spent
    assert refused["code"] == "chat_limited"
    assert (await h.send(actor, alice, "mute", seat=0))["code"] == "not_allowed"  # herself
    assert (await h.send(actor, alice, "mute", seat=5))["code"] == "bad_seat"
