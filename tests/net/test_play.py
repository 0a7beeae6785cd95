"""Playing over the wire: lobby → watch → sit → a full Hold'em hand of two protocol clients
(fixed deck, test mode), both encodings; errors at the table while the hand plays on; a
spectator that stops reading is cut while the table keeps its pace; SIGTERM mid-hand."""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import socket
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from server.rules.cards import make_deck
from tests.net.conftest import (
    TIMEOUT,
    Client,
    Live,
    LiveFactory,
    open_client,
    start_subprocess,
)
from tests.net.test_edge import scrape


def fixed_deck(*first: str) -> list[str]:
    return [*first, *(c for c in make_deck() if c not in first)]


# Seat 0 gets As Ad (deck positions 0, 2), seat 1 Kc Kd (1, 3); burn 2c; flop Ah 7s 8d;
# burn 3c; turn 9h; burn 4c; river Jc. Seat 0 wins with three aces.
DECK = fixed_deck("As", "Kc", "Ad", "Kd", "2c", "Ah", "7s", "8d", "3c", "9h", "4c", "Jc")
HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [50, 100]}, "seats": 6,
                          "settings": {"pause": 0}}
ENCODING_PAIRS = [
    (SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK),
    (SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON),
    (SUBPROTOCOL_JSON, SUBPROTOCOL_JSON),
    (SUBPROTOCOL_MSGPACK, SUBPROTOCOL_MSGPACK),
]


async def ok(client: Client, kind: str, **fields: Any) -> dict[str, Any]:
    answer = await client.request(kind, **fields)
    assert answer["type"] == "ok", (kind, fields, answer)
    return answer


async def seat_two(server: Live, enc_a: str, enc_b: str, *, deck: list[str] | None = None,
                   buy_in: int = 5000) -> tuple[str, Client, Client]:
    """Alice (seat 0) and Bob (seat 1) at a new hold'em table with the fixed deck."""
    alice, bob = await open_client(server, enc_a), await open_client(server, enc_b)
    await alice.hello("Alice")
    await bob.hello("Bob")
    table = (await ok(alice, "create_table", **HOLDEM, decks=[deck or DECK]))["table"]
    await ok(alice, "sit", table=table, seat=0, buy_in=buy_in)
    await ok(bob, "sit", table=table, seat=1, buy_in=buy_in)
    return table, alice, bob


async def my_turn(client: Client, seat: int) -> dict[str, Any]:
    """Wait for the `turn` event of `seat` (with options, since it is this client's)."""
    turn = await client.event("turn", seat=seat)
    assert "options" in turn
    return turn


# --- lobby --------------------------------------------------------------------------------
@pytest.mark.parametrize("encoding", [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK])
async def test_tables_create_watch_sit(live: Live, encoding: str) -> None:
    owner = await open_client(live, encoding)
    await owner.hello("Owner")
    table = (await ok(owner, "create_table", **HOLDEM))["table"]
    listed = (await ok(owner, "tables"))["tables"]
    assert [t["table"] for t in listed] == [table]
    entry = listed[0]
    assert entry["variant"] == "holdem" and entry["seats"] == 6 and entry["players"] == 0

    watcher = await open_client(live, encoding)  # no hello: may watch
    await ok(watcher, "watch", table=table)
    snap = await watcher.event("snapshot", table=table)
    assert snap["seats"] == [None] * 6 and "you" not in snap

    await ok(owner, "sit", table=table, seat=2, buy_in=3000)
    mine = await owner.event("snapshot", table=table)
    assert mine["you"] == 2 and mine["seats"][2]["stack"] == 3000
    seated = await watcher.event("seated", table=table)
    assert seated["seat"] == 2 and seated["name"] == "Owner" and seated["stack"] == 3000
    assert (await ok(watcher, "tables"))["tables"][0]["players"] == 1
    assert (await owner.request("create_table", variant="holdem", structure="no_limit",
                                stakes={"blinds": [50, 100]}, seats=6,
                                decks=[["As", "As"]]))["code"] == "bad_deck"


async def test_decks_need_test_mode(live_server: LiveFactory) -> None:
    server = await live_server(test_mode=False)
    client = await open_client(server)
    await client.hello("Prod")
    answer = await client.request("create_table", **HOLDEM, decks=[DECK])
    assert answer["code"] == "test_mode_only"


# --- a full hand ----------------------------------------------------------------------------
@pytest.mark.parametrize(("enc_a", "enc_b"), ENCODING_PAIRS)
async def test_full_holdem_hand_two_clients(live: Live, enc_a: str, enc_b: str) -> None:
    table, alice, bob = await seat_two(live, enc_a, enc_b)
    spectator = await open_client(live, enc_b)
    await ok(spectator, "watch", table=table)

    started = await alice.event("hand_started", table=table)
    assert started["button"] == 1 and started["commitment"]
    dealt = await alice.event("dealt", seat=0)
    assert dealt["cards"] == ["As", "Ad"]
    assert (await bob.event("dealt", seat=1))["cards"] == ["Kc", "Kd"]
    turn = await my_turn(alice, 0)
    assert turn["options"]["call"] == 100
    await ok(alice, "act", table=table, action="call")
    await my_turn(bob, 1)
    await ok(bob, "act", table=table, action="check")
    for street in range(3):  # flop, turn, river: seat 0 first
        if street == 2:  # bob leaves before his turn: folded there, no turn, chips back at
            left = await ok(bob, "leave", table=table)  # the end (issue 24)
            assert left["pending"] is True
        await my_turn(alice, 0)
        await ok(alice, "act", table=table, action="check")
        if street < 2:
            await my_turn(bob, 1)
            await ok(bob, "act", table=table, action="check")

    ended = await alice.event("hand_ended", table=table)
    await ok(alice, "leave", table=table)  # between hands: at once
    assert ended["stacks"] == {"0": 5100, "1": 4900}
    assert (await bob.event("hand_ended", table=table))["seq"] == ended["seq"]

    # the spectator saw the whole hand, in seq order, without a hole card
    seen: list[dict[str, Any]] = []
    while not seen or seen[-1]["type"] != "hand_ended":
        seen.append(await spectator.event_any())
    assert [m["seq"] for m in seen] == sorted(m["seq"] for m in seen)
    for message in seen:
        if message["type"] == "dealt":
            assert message["cards"] == [None, None]
    board = [m for m in seen if m["type"] == "board"][-1]
    assert board["cards"] == ["Ah", "7s", "8d", "9h", "Jc"]
    assert not [m for m in seen if m["type"] == "turn" and m["seat"] == 1
                and m["seq"] > board["seq"]]  # nobody waited on bob's river turn
    folded = [m for m in seen if m["type"] == "acted" and m["seat"] == 1][-1]
    assert folded["action"] == "fold" and "timeout" not in folded
    award = [m for m in seen if m["type"] == "pot_awarded"][0]
    assert award["winners"] == {"0": 200}

    # chips go back to the balance on leave; a fresh connection's welcome shows it
    await spectator.event("left", seat=1)
    await spectator.event("left", seat=0)
    for client, balance in ((alice, 10100), (bob, 9900)):
        again = await open_client(live, client.subprotocol)
        await ok(again, "hello", token=client.token)
        assert (await again.event("welcome"))["balance"] == balance
    assert live.app.wallet.total() == 20000

    metrics = await scrape(live)
    assert metrics["poker_hands_total"] == 1
    assert metrics["poker_tables"] == 1
    assert metrics["poker_action_latency_seconds_count"] == 7
    assert metrics['poker_action_latency_seconds_bucket{le="+Inf"}'] == 7


@pytest.mark.parametrize(("enc_a", "enc_b"), ENCODING_PAIRS[:2])
async def test_table_errors_get_their_code_and_the_hand_plays_on(
    live: Live, enc_a: str, enc_b: str
) -> None:
    table, alice, bob = await seat_two(live, enc_a, enc_b)
    kibitzer = await open_client(live, enc_a)
    await kibitzer.hello("Kibitzer")
    turn = await my_turn(alice, 0)
    raise_range = turn["options"]["raise"]

    async def code(client: Client, **fields: Any) -> str:
        answer = await client.request("act", table=table, **fields)
        assert answer["type"] == "error", answer
        return str(answer["code"])

    assert await code(bob, action="check") == "not_your_turn"  # out of turn
    assert await code(alice, action="raise", amount=raise_range["min"] - 1) == "bad_amount"
    assert await code(alice, action="raise", amount=raise_range["max"] + 1) == "bad_amount"
    assert await code(alice, action="check") == "bad_action"  # facing the big blind
    assert await code(kibitzer, action="fold") in ("not_seated", "not_in_hand")
    for frame in ("{", b"\x00", '{"type":"act"}', '{"type":"nope","rid":1}'):
        await alice.send_raw(frame if alice.subprotocol == SUBPROTOCOL_JSON else
                             (frame.encode() if isinstance(frame, str) else frame))
    # ... and it still plays: raise, call, then check it down
    await ok(alice, "act", table=table, action="raise", amount=raise_range["min"])
    await my_turn(bob, 1)
    await ok(bob, "act", table=table, action="call")
    for _ in range(3):
        await my_turn(alice, 0)
        await ok(alice, "act", table=table, action="check")
        await my_turn(bob, 1)
        await ok(bob, "act", table=table, action="check")
    ended = await alice.event("hand_ended", table=table)
    won = 2 * raise_range["min"]
    assert ended["stacks"] == {"0": 5000 + won // 2, "1": 5000 - won // 2}
    metrics = await scrape(live)
    assert metrics['poker_errors_total{code="not_your_turn"}'] == 1
    assert metrics['poker_errors_total{code="bad_amount"}'] == 2


@pytest.mark.parametrize("encoding", [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK])
async def test_a_dropped_player_resumes_with_the_right_cards_and_stacks(
    live: Live, encoding: str
) -> None:
    table, alice, bob = await seat_two(live, SUBPROTOCOL_JSON, encoding)
    started = await bob.event("hand_started", table=table)
    await bob.ws.close()  # dropped before seeing a card; the seat is kept (grace)
    await my_turn(alice, 0)
    await ok(alice, "act", table=table, action="call")

    back = await open_client(live, encoding)
    await ok(back, "hello", token=bob.token)
    await back.event("welcome")
    await ok(back, "resume", table=table, since=started["seq"])
    missed: list[dict[str, Any]] = []
    while not missed or missed[-1]["type"] != "acted":
        missed.append(await back.event_any())
    assert [m["seq"] for m in missed] == list(range(started["seq"] + 1, missed[-1]["seq"] + 1))
    dealt = {m["seat"]: m["cards"] for m in missed if m["type"] == "dealt"}
    assert dealt == {0: [None, None], 1: ["Kc", "Kd"]}  # exactly their own cards again
    assert missed[-1]["seat"] == 0 and missed[-1]["action"] == "call"
    await my_turn(back, 1)
    await ok(back, "act", table=table, action="check")
    for _ in range(3):
        await my_turn(alice, 0)
        await ok(alice, "act", table=table, action="check")
        await my_turn(back, 1)
        await ok(back, "act", table=table, action="check")
    assert (await back.event("hand_ended", table=table))["stacks"] == {"0": 5100, "1": 4900}


# --- slow consumer at a live table ------------------------------------------------------------
async def test_a_spectator_that_stops_reading_is_cut_and_the_table_keeps_its_pace(
    live_server: LiveFactory,
) -> None:
    server = await live_server(outbox_size=64, chat_rate=1e9, chat_burst=10**9,
                               chat_rate_per_account=1e9, chat_burst_per_account=10**9,
                               chat_rate_per_table=1e9, chat_burst_per_table=10**9,
                               request_rate=1e9, request_burst=10**9)
    table, alice, bob = await seat_two(server, SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK)
    # a spectator with a small receive buffer that stops reading once it has its snapshot
    sock = socket.create_connection(server.host_port)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    ws = await connect(server.ws_url, sock=sock, ping_interval=None, max_queue=1)
    stalled = Client(ws=ws, subprotocol=SUBPROTOCOL_JSON)
    await ok(stalled, "watch", table=table)
    await stalled.event("snapshot")
    ws.transport.pause_reading()

    await my_turn(alice, 0)
    metrics = server.app.metrics
    text = "x" * 200
    chats = 0
    while metrics.slow_consumer_disconnects_total == 0:  # the table produces events
        assert chats < 50_000, "the stalled spectator was never cut"
        rids = []
        for _ in range(20):  # 40 frames back to alice: within her outbox of 64
            rid = f"c{chats}"
            chats += 1
            rids.append(rid)
            await alice.send({"type": "chat", "rid": rid, "table": table, "text": text})
        for rid in rids:
            assert (await alice.answer(rid))["type"] == "ok"
        alice.events.clear()
    # the table did not wait for it: the hand plays on at once, for everyone else
    await ok(alice, "act", table=table, action="call")
    await my_turn(bob, 1)
    await ok(bob, "act", table=table, action="check")
    for _ in range(3):
        await my_turn(alice, 0)
        await ok(alice, "act", table=table, action="check")
        await my_turn(bob, 1)
        await ok(bob, "act", table=table, action="check")
    assert (await bob.event("hand_ended", table=table))["stacks"] == {"0": 5100, "1": 4900}
    assert metrics.slow_consumer_disconnects_total == 1
    assert not alice.ws.close_code and not bob.ws.close_code
    ws.transport.resume_reading()
    with contextlib.suppress(ConnectionClosed):
        while True:
            await asyncio.wait_for(ws.recv(), TIMEOUT)
    assert ws.close_code in (1013, 1006)


# --- SIGTERM mid-hand ---------------------------------------------------------------------------
BALANCES = re.compile(r"event=final_balances total=(\d+) accounts=(\d+) balances=(\S+)")


def final_balances(lines: list[str]) -> tuple[int, dict[str, int]]:
    for line in lines:
        if found := BALANCES.search(line):
            pairs = (item.rsplit(":", 1) for item in found.group(3).split(","))
            return int(found.group(1)), {player: int(chips) for player, chips in pairs}
    raise AssertionError("no final_balances line in the log:\n" + "".join(lines[-20:]))


async def _sigterm_mid_hand(tmp_path: Path, *, finish: bool) -> tuple[int, dict[str, int],
                                                                      Client, Client]:
    server = start_subprocess(tmp_path, "--shutdown-deadline", "3" if finish else "0.5")
    try:
        alice = Client(ws=await connect(server.ws_url, ping_interval=None),
                       subprotocol=SUBPROTOCOL_JSON)
        bob = Client(ws=await connect(server.ws_url, ping_interval=None,
                                      subprotocols=[SUBPROTOCOL_MSGPACK]),  # type: ignore[list-item]
                     subprotocol=SUBPROTOCOL_MSGPACK)
        await alice.hello("Alice")
        await bob.hello("Bob")
        table = (await ok(alice, "create_table", **HOLDEM, decks=[DECK]))["table"]
        await ok(alice, "sit", table=table, seat=0, buy_in=5000)
        await ok(bob, "sit", table=table, seat=1, buy_in=5000)
        await my_turn(alice, 0)
        await ok(alice, "act", table=table, action="raise", amount=300)
        await my_turn(bob, 1)  # mid-hand: 400 chips in the pot
        server.proc.send_signal(signal.SIGTERM)
        if finish:  # the running hand may finish within the deadline
            # ... but nobody new gets in (503 or a dropped handshake, or refused outright)
            with pytest.raises((InvalidHandshake, OSError)):
                for _ in range(100):  # until the signal has been handled
                    async with connect(server.ws_url, open_timeout=TIMEOUT):
                        pass
            await ok(bob, "act", table=table, action="fold")
            ended = await alice.event("hand_ended", table=table)
            assert ended["stacks"] == {"0": 5100, "1": 4900}
        for client in (alice, bob):  # then everyone is closed with 1001
            with pytest.raises(ConnectionClosed):
                while True:
                    await client.receive()
            assert client.ws.close_code == 1001
        code = await asyncio.to_thread(server.proc.wait, 30)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    total, balances = final_balances(server.stderr_lines())
    return code, {"total": total, **balances}, alice, bob


async def test_sigterm_mid_hand_voids_refunds_and_exits_zero(tmp_path: Path) -> None:
    code, balances, alice, bob = await _sigterm_mid_hand(tmp_path, finish=False)
    assert code == 0
    assert balances == {"total": 20000, alice.player_id: 10000, bob.player_id: 10000}


async def test_sigterm_lets_the_running_hand_finish(tmp_path: Path) -> None:
    code, balances, alice, bob = await _sigterm_mid_hand(tmp_path, finish=True)
    assert code == 0
    assert balances == {"total": 20000, alice.player_id: 10100, bob.player_id: 9900}
