"""Hand histories: each hand played through the TableActor is recorded (every variant) with the
commitment published in ``hand_started``, every engine event and the result; ``hand_ended``
reveals openings that verify; no frame and no player's copy of a history (as data, PokerStars
text or PHH) carries a card its receiver did not see at the table; both stores keep the same
contract; ``history`` and ``hand`` over the wire."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from protocol.cards import ALL_CARDS
from server.ledger.export import export
from server.ledger.history import (
    HISTORY_FILE,
    HandRecord,
    HistoryStore,
    MemoryHistory,
    RedisHistory,
    SqliteHistory,
    player_copy,
)
from server.rules.commitment import opening_from_wire, verify_opening
from server.verify import verify_record
from tests.ledger.play import VARIANTS, frames_of_hand, play
from tests.net.conftest import (  # noqa: F401  (fixtures)
    Live,
    LiveFactory,
    fast_send,
    live,
    live_server,
    open_client,
)
from tests.net.test_play import DECK, HOLDEM, ok
from tests.redis_helpers import RedisProcess
from tests.table.test_privacy import cards_in


@pytest.mark.parametrize("variant", VARIANTS)
async def test_every_hand_is_recorded_with_its_commitment_events_and_result(
        variant: str) -> None:
    p = await play(variant, hands=6, seed=1)
    assert len(p.records) >= 5
    for record in p.records:
        frames = frames_of_hand(p.spectator, record.hand)
        started = next(m for m in frames if m["type"] == "hand_started")
        ended = next(m for m in frames if m["type"] == "hand_ended")
        assert (record.hand, record.commitment) == (started["hand"], started["commitment"])
        assert record.table == p.table.table_id and record.variant == variant
        assert record.result["stacks"] == ended["stacks"]
        assert record.deck_size == len(p.table.spec.card_set)
        assert {int(s) for s in record.players} == {int(s) for s in ended["stacks"]}
        for seat, info in record.players.items():
            assert info["player"] == f"p{seat}" and info["stack"] > 0
        assert record.events[-1]["e"] in ("HandEnded", "RoundEnded")
        assert record.audit is not None and len(record.audit["salts"]) == record.deck_size
        assert all(len(bytes.fromhex(s)) >= 16 for s in record.audit["salts"])
        assert len(set(record.audit["salts"])) == record.deck_size  # a fresh salt per card


def text_cards(text: str, commitment: str) -> set[str]:
    """Every card in an exported text: "[As Kd]" (PokerStars) and "AsKd" (PHH) alike."""
    words = re.split(r"[^0-9A-Za-z]+", text.replace(commitment, " "))
    return {w[k:k + 2] for w in words if len(w) % 2 == 0 for k in range(0, len(w), 2)
            if w[k:k + 2] in ALL_CARDS}


def _allowed(truth: Any, seat: int | None) -> set[str]:
    own: set[str] = truth.own.get(seat, set()) if seat is not None else set()
    return set(truth.public) | own


@pytest.mark.parametrize("variant", VARIANTS)
async def test_no_frame_and_no_player_copy_carries_an_unseen_card(variant: str) -> None:
    """The privacy style of tests/table/test_privacy.py, extended to hand_ended.reveal and to
    every player's copy of the history, as data and as exported text."""
    p = await play(variant, hands=8, seed=2)
    assert len(p.records) >= 6
    sinks = [(p.spectator, None), *((s, seat) for seat, s in p.players.items())]
    hidden_somewhere = 0
    for record in p.records:
        truth = p.truths[record.hand]
        for sink, seat in sinks:
            allowed = _allowed(truth, seat)
            for msg in frames_of_hand(sink, record.hand):
                leaked = cards_in(msg) - allowed
                assert not leaked, (variant, seat, msg["type"], leaked)
        for seat_key, info in record.players.items():
            seat = int(seat_key)
            mine = player_copy(record, str(info["player"]))
            assert mine is not None and mine.audit is None and mine.viewer == seat
            allowed = _allowed(truth, seat)
            found = cards_in(mine.to_dict())
            for fmt in ("pokerstars", "phh"):
                found |= text_cards(export(mine, fmt), record.commitment)
            leaked = found - allowed
            assert not leaked, (variant, seat, leaked)
            hidden_somewhere += len(cards_in(record.to_dict()) - allowed)
    assert hidden_somewhere > 0  # the audit records do hold cards the players never saw


@pytest.mark.parametrize("variant", ["holdem", "draw", "stud7", "caribbean"])
async def test_hand_ended_reveal_opens_public_cards_and_my_own(variant: str) -> None:
    p = await play(variant, hands=4, seed=4)
    for record in p.records:
        truth = p.truths[record.hand]
        for sink, seat in [(p.spectator, None), *((s, q) for q, s in p.players.items())]:
            frames = frames_of_hand(sink, record.hand)
            ended = next(m for m in frames if m["type"] == "hand_ended")
            opened = set()
            for raw in ended["reveal"]:
                o = opening_from_wire(raw)
                assert verify_opening(record.commitment, o.position, o.card, o.salt, o.proof)
                opened.add(o.card)
            assert opened == _allowed(truth, seat) | (
                set() if seat is None else _discarded(record, seat))


def _discarded(record: HandRecord, seat: int) -> set[str]:
    """A drawing player saw (and gets the openings of) the cards they discarded too."""
    return {c for e in record.events if e["e"] == "Drew" and e["seat"] == seat
            for c in e["discarded"]}


# ------------------------------------------------------------------------- stores
def _record(n: int, table: str, players: list[str]) -> HandRecord:
    return HandRecord(
        hand=f"{table}.{n}", table=table, variant="holdem", structure="no_limit",
        stakes={"blinds": [5, 10]}, settings={}, num_seats=6, button=0, started=1000.0 + n,
        ended=1001.0 + n, commitment="ab" * 32, deck_size=52,
        players={str(i): {"player": p, "name": p.title(), "stack": 100}
                 for i, p in enumerate(players)},
        result={"stacks": {str(i): 100 + (10 if i == 0 else -10 if i == 1 else 0)
                           for i in range(len(players))}})


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    s: HistoryStore
    if request.param == "memory":
        s = MemoryHistory()
    elif request.param == "sqlite":
        s = SqliteHistory.in_dir(tmp_path / "data")
    else:
        server = request.getfixturevalue("redis_server")
        s = RedisHistory(server.url)
    yield s
    await s.close()


async def test_store_contract_list_page_filter_fetch(store: HistoryStore) -> None:
    for n in range(1, 8):
        await store.save(_record(n, "t1" if n % 2 else "t2", ["alice", "bob"]))
    await store.save(_record(9, "t1", ["carol", "bob"]))
    hands, more = await store.hands_of("alice", limit=3)
    assert [h.hand for h in hands] == ["t1.7", "t2.6", "t1.5"] and more
    assert hands[0].net == 10 and hands[0].variant == "holdem" and hands[0].table == "t1"
    hands, more = await store.hands_of("alice", limit=3, before="t1.5")
    assert [h.hand for h in hands] == ["t2.4", "t1.3", "t2.2"] and more
    hands, more = await store.hands_of("alice", limit=10, before="t2.2")
    assert [h.hand for h in hands] == ["t1.1"] and not more
    hands, more = await store.hands_of("alice", limit=10, table="t2")
    assert [h.hand for h in hands] == ["t2.6", "t2.4", "t2.2"] and not more
    assert [h.hand for h in (await store.hands_of("bob", limit=1))[0]] == ["t1.9"]
    assert (await store.hands_of("carol", limit=5))[0][0].net == 10
    assert (await store.hands_of("nobody", limit=5)) == ([], False)
    got = await store.get("t2.4")
    assert got is not None and got.to_dict() == _record(4, "t2", ["alice", "bob"]).to_dict()
    assert await store.get("t9.9") is None
    # a hand id may recur (table ids restart with a process): each player gets their own
    await store.save(_record(4, "t2", ["dave", "erin"]))
    assert (await store.get("t2.4")).players["0"]["player"] == "dave"  # type: ignore[union-attr]
    mine = await store.get("t2.4", player_id="alice")
    assert mine is not None and mine.players["0"]["player"] == "alice"
    assert await store.get("t2.4", player_id="carol") is None
    hands, _ = await store.hands_of("alice", limit=2, before="t2.4")
    assert [h.hand for h in hands] == ["t1.3", "t2.2"]
    assert [h.hand for h in (await store.hands_of("erin", limit=5))[0]] == ["t2.4"]


async def test_redis_store_survives_a_redis_restart(redis_server: RedisProcess) -> None:
    s = RedisHistory(redis_server.url)
    try:
        await s.save(_record(1, "t1", ["alice", "bob"]))
        redis_server.restart()  # append-only persistence: the record is still there
        s2 = RedisHistory(redis_server.url)
        try:
            got = await s2.get("t1.1")
            assert got is not None and got.players["1"]["player"] == "bob"
            assert [h.hand for h in (await s2.hands_of("bob"))[0]] == ["t1.1"]
        finally:
            await s2.close()
    finally:
        await s.close()


async def test_sqlite_store_is_durable_and_writes_off_the_loop(tmp_path: Path) -> None:
    s = SqliteHistory.in_dir(tmp_path)
    threads: list[str] = []
    original = s._save

    def spy(*args: Any) -> None:
        threads.append(threading.current_thread().name)
        original(*args)

    s._save = spy  # type: ignore[method-assign,assignment]
    await s.save(_record(1, "t1", ["alice", "bob"]))
    assert threads and threads[0].startswith("history-sqlite")
    assert threads[0] != threading.current_thread().name
    await s.close()
    assert (tmp_path / HISTORY_FILE).exists()
    again = SqliteHistory.in_dir(tmp_path)
    try:
        got = await again.get("t1.1")
        assert got is not None and got.players["0"]["player"] == "alice"
        mode = again._pool.submit(
            lambda: again._db().execute("PRAGMA journal_mode").fetchone()[0]).result()
        assert mode == "wal"
    finally:
        await again.close()


# ------------------------------------------------------------------------- the wire
async def test_history_and_hand_over_the_wire(live: Live) -> None:  # noqa: F811
    alice, bob = await open_client(live), await open_client(live)
    carol = await open_client(live)
    stranger = await open_client(live)
    assert (await stranger.request("history"))["code"] == "unauthorized"
    await alice.hello("Alice")
    await bob.hello("Bob")
    await carol.hello("Carol")
    table = (await ok(alice, "create_table", **HOLDEM, decks=[DECK]))["table"]
    await ok(alice, "sit", table=table, seat=0, buy_in=5000)
    await ok(bob, "sit", table=table, seat=1, buy_in=5000)
    started = await alice.event("hand_started", table=table)
    await alice.event("turn", seat=0)
    await ok(alice, "act", table=table, action="fold")  # Bob's Kc Kd are never shown
    ended = await alice.event("hand_ended", table=table)
    assert {o["card"] for o in ended["reveal"]} == {"As", "Ad"}  # mine only: no board
    bob_ended = await bob.event("hand_ended", table=table)
    assert {o["card"] for o in bob_ended["reveal"]} == {"Kc", "Kd"}

    listed = await ok(alice, "history")
    assert [h["hand"] for h in listed["hands"]] == [started["hand"]]
    assert listed["hands"][0]["net"] == -50 and listed["more"] is False
    answer = await ok(alice, "hand", hand=started["hand"])
    record = HandRecord.from_dict(answer["record"])
    assert answer["events"] == answer["record"]["events"]
    assert record.audit is None and record.viewer == 0
    assert "Kc" not in json.dumps(answer) and "As" in json.dumps(answer)
    assert verify_record(record, commitment=started["commitment"]).ok
    text = (await ok(alice, "hand", hand=started["hand"], format="pokerstars"))["text"]
    assert "Dealt to Alice [As Ad]" in text and "Kc" not in text and "Kd" not in text
    phh = (await ok(bob, "hand", hand=started["hand"], format="phh"))["text"]
    assert "KcKd" in phh and "????" in phh and "As" not in phh
    assert (await carol.request("hand", hand=started["hand"]))["code"] == "unknown_hand"
    assert (await carol.request("history"))["hands"] == []
    assert (await alice.request("hand", hand=started["hand"], format="xml"))["code"] \
        == "bad_field"
