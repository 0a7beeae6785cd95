"""Issue 17: spectators watch any table from any process (`server.cluster.spectate`).

Three (or two) in-process servers on the test's own redis-server; a table owned by `a`,
spectators on every process. Every wait is on an event with a timeout (an answer or an event
on a socket, a directory read, the owner's publish queue): never a sleep.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.cluster import Directory
from tests.cluster.test_directory import HOLDEM, Node, directory, guest, node, settled
from tests.net.conftest import Client, Live

pytestmark = pytest.mark.redis

__all__ = ["node"]  # (the fixture, imported)


async def watching(c: Client, table: str) -> dict[str, Any]:
    answer = await c.request("watch", table=table)
    assert answer["type"] == "ok", answer
    snapshot = await c.event("snapshot", table=table)
    assert all(s is None or not s.get("cards") or set(s["cards"]) == {None}
               for s in snapshot["seats"]), snapshot
    return snapshot


async def until(c: Client, kind: str) -> list[dict[str, Any]]:
    """Every event up to and including the first of type `kind`."""
    seen: list[dict[str, Any]] = []
    while not seen or seen[-1]["type"] != kind:
        seen.append(await c.event_any())
    return seen


def spectate(live: Live) -> Any:
    d: Directory = directory(live)
    return d.spectate


async def play_one_hand(table: str, alice: Client, bob: Client) -> None:
    """Alice and Bob sit; whoever acts first folds."""
    for c, seat in ((alice, 0), (bob, 1)):
        sat = await c.request("sit", table=table, seat=seat, buy_in=500)
        assert sat["type"] == "ok", sat
    await alice.event("hand_started", table=table)
    turn = await alice.event("turn", table=table)
    actor = alice if turn["seat"] == 0 else bob
    folded = await actor.request("act", table=table, action="fold")
    assert folded["type"] == "ok", folded


async def test_a_spectator_on_each_of_three_processes_sees_the_same_public_stream(
        node: Node) -> None:
    a, b, c = await node("a"), await node("b"), await node("c")
    alice, bob = await guest(a, "Alice"), await guest(a, "Bob")
    table = (await alice.request("create_table", **HOLDEM))["table"]
    await settled(a, b, c)
    viewers = [await guest(live, f"V{i}") for i, live in enumerate((a, b, c))]
    snaps = [await watching(v, table) for v in viewers]
    assert len({s["seq"] for s in snaps}) == 1 and snaps[1] == snaps[2]
    assert table in spectate(b).remote and table in spectate(c).remote
    # players still go to the owner
    moved = await viewers[1].request("sit", table=table, seat=2, buy_in=500)
    assert moved["code"] == "moved" and moved["url"] == directory(a).url
    await play_one_hand(table, alice, bob)
    streams = [await until(v, "hand_ended") for v in viewers]
    assert streams[0] == streams[1] == streams[2]
    seqs = [m["seq"] for m in streams[0]]
    assert seqs == sorted(seqs) and seqs[0] == snaps[0]["seq"] + 1
    assert len(set(seqs)) == len(seqs)
    for message in streams[0]:  # the public forms only
        if message["type"] == "dealt":
            assert set(message["cards"]) == {None}, message
        assert "options" not in message
    # the owner published each public frame once, whatever the number of processes watching
    await spectate(a).flushed()
    published = spectate(a).published
    said = await alice.request("chat", table=table, text="gl")
    assert said["type"] == "ok", said
    chats = [await v.event("chat", table=table) for v in viewers]
    assert chats[0] == chats[1] == chats[2]
    await spectate(a).flushed()
    assert spectate(a).published == published + 1

    # unwatch stops them; the process's subscription ends with its last watcher
    left = await viewers[1].request("unwatch", table=table)
    assert left["type"] == "ok", left
    assert table not in spectate(b).remote
    again = await viewers[1].request("unwatch", table=table)
    assert again["type"] == "error"
    await alice.request("chat", table=table, text="still here")
    for v in (viewers[0], viewers[2]):
        assert (await v.event("chat", table=table))["text"] == "still here"
    pong = await viewers[1].request("ping")
    assert pong["type"] == "pong" and viewers[1].events == []
    # a closed connection leaves too
    await viewers[2].ws.close()
    await settled(c)  # (the close has been handled: the directory task turned twice since)
    assert table not in spectate(c).remote


async def test_a_late_watcher_gets_a_snapshot_then_newer_frames_only(node: Node) -> None:
    a, b = await node("a"), await node("b")
    alice, bob = await guest(a, "Alice"), await guest(a, "Bob")
    table = (await alice.request("create_table", **HOLDEM))["table"]
    await settled(a, b)
    first = await guest(b, "First")
    await watching(first, table)
    await play_one_hand(table, alice, bob)
    await until(first, "hand_ended")
    late = await guest(b, "Late")
    snap = await watching(late, table)
    assert {s["name"] for s in snap["seats"] if s} == {"Alice", "Bob"}
    await alice.request("chat", table=table, text="hi")
    chat = await late.event("chat", table=table)
    assert chat["seq"] > snap["seq"]
    assert (await first.event("chat", table=table)) == chat


async def test_a_spectators_process_restarting_does_not_disturb_the_owner(
        node: Node) -> None:
    a, b = await node("a"), await node("b")
    alice, bob = await guest(a, "Alice"), await guest(a, "Bob")
    table = (await alice.request("create_table", **HOLDEM))["table"]
    local = await guest(a, "Local")
    await watching(local, table)
    await settled(a, b)
    remote = await guest(b, "Remote")
    await watching(remote, table)
    await b.close()
    await settled(a)
    await play_one_hand(table, alice, bob)
    ended = await until(local, "hand_ended")
    await spectate(a).flushed()
    assert not spectate(a).wanted(table)  # nobody listens any more: the owner went quiet
    # the spectator's process comes back and watches again
    b2 = await node("b")
    await settled(b2)
    back = await guest(b2, "Remote")
    snap = await watching(back, table)
    assert snap["seq"] >= ended[-1]["seq"]
    await alice.request("chat", table=table, text="welcome back")
    assert (await back.event("chat", table=table))["text"] == "welcome back"
    assert (await local.event("chat", table=table))["text"] == "welcome back"


async def test_a_delayed_table_is_relayed_delayed_alike(node: Node) -> None:
    """The owner relays the already-delayed public stream: a remote spectator gets the same
    frames as a local one, after the same delayed snapshot."""
    a, b = await node("a"), await node("b")
    alice, bob = await guest(a, "Alice"), await guest(a, "Bob")
    made = await alice.request("create_table", **HOLDEM, settings={"spectator_delay": 0.2})
    assert made["type"] == "ok", made
    table = made["table"]
    await settled(a, b)
    local, remote = await guest(a, "Local"), await guest(b, "Remote")
    snaps = [await watching(v, table) for v in (local, remote)]
    assert snaps[0]["seq"] == snaps[1]["seq"]
    await play_one_hand(table, alice, bob)
    ended = await alice.event("hand_ended", table=table)
    streams = [await until(v, "hand_ended") for v in (local, remote)]
    assert streams[0] == streams[1] and streams[0][-1]["seq"] == ended["seq"]
