"""The real server as a subprocess (``.venv/bin/poker-server``), SIGKILLed in the middle of a
hand and restarted on the same store: the hand that ended keeps its result, the interrupted
one is void, every balance is exactly right and the journal says so. Once on the embedded
SQLite store, once on a redis-server of the test's own (append-only, fsync always) that is
SIGKILLed too."""

from __future__ import annotations

import asyncio
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from server.ledger.journal import Ledger, player_account
from server.ledger.redis_store import RedisStore
from server.ledger.sqlite_store import SqliteStore
from server.ledger.store import Store, is_checked
from server.rules.cards import make_deck
from tests.net.conftest import Client
from tests.redis_helpers import RedisProcess

ROOT = Path(__file__).resolve().parents[2]
LISTENING = "poker-server listening on "
# seat 0: As Ad, seat 1: Kc Kd; board Ah 7s 8d 9h Jc
FIRST = ["As", "Kc", "Ad", "Kd", "2c", "Ah", "7s", "8d", "3c", "9h", "4c", "Jc"]
DECK = [*FIRST, *(c for c in make_deck() if c not in FIRST)]
HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [50, 100]}, "seats": 6, "settings": {"pause": 0}}


def server_command() -> list[str]:
    script = Path(sys.executable).parent / "poker-server"
    return [str(script)] if script.exists() else [sys.executable, "-m", "server.main"]


@dataclass
class Server:
    proc: subprocess.Popen[str]
    ws_url: str
    lines: list[str] = field(default_factory=list)
    ended: threading.Event = field(default_factory=threading.Event)  # stderr read to its end


def start_server(data_dir: Path, *extra: str, test_mode: bool = True) -> Server:
    """``poker-server`` as a subprocess (``test_mode``: with ``--test-mode``, which allows
    fixed decks; the cluster's outside checks run without it)."""
    mode = ["--test-mode"] if test_mode else []
    proc = subprocess.Popen(
        [*server_command(), "--port", "0", *mode, "--data-dir", str(data_dir),
         "--shutdown-deadline", "0.5", *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    out: queue.Queue[str | None] = queue.Queue()
    server = Server(proc, "")

    def pump_out() -> None:
        assert proc.stdout is not None
        for line in iter(proc.stdout.readline, ""):
            out.put(line)
        out.put(None)

    def pump_err() -> None:
        assert proc.stderr is not None
        for line in iter(proc.stderr.readline, ""):
            server.lines.append(line)
        server.ended.set()

    threading.Thread(target=pump_out, daemon=True).start()
    threading.Thread(target=pump_err, daemon=True).start()
    try:
        first = out.get(timeout=30)
    except queue.Empty:
        first = None
    if first is None or not first.startswith(LISTENING):
        proc.kill()
        proc.wait()
        pytest.fail(f"server did not start: {first!r}\n{''.join(server.lines[-20:])}")
    port = re.search(r":(\d+)/", first)
    assert port is not None
    server.ws_url = f"ws://127.0.0.1:{port.group(1)}/ws"
    return server


async def client(server: Server, subprotocol: str = SUBPROTOCOL_JSON) -> Client:
    ws = await asyncio.wait_for(connect(server.ws_url, subprotocols=[subprotocol],  # type: ignore[list-item]
                                        ping_interval=None), 10)
    return Client(ws=ws, subprotocol=subprotocol)


async def ok(c: Client, kind: str, **fields: Any) -> dict[str, Any]:
    answer = await c.request(kind, **fields)
    assert answer["type"] == "ok", (kind, answer)
    return answer


async def identify(c: Client, kind: str, **fields: Any) -> dict[str, Any]:
    await ok(c, kind, **fields)
    welcome = await c.event("welcome")
    c.player_id, c.token = welcome["player_id"], welcome["token"]
    return welcome


async def play_then_die(server: Server) -> tuple[Client, Client, str]:
    """Alice (named) and Bob (guest) play hand 1 to its end (Alice +100), start hand 2, put
    chips in its pot, and the server is SIGKILLed."""
    alice, bob = await client(server), await client(server, SUBPROTOCOL_MSGPACK)
    welcome = await identify(alice, "register", name="Alice", password="alice-secret")
    assert welcome["balance"] == 10000 and welcome["guest"] is False
    await identify(bob, "hello", guest="Bob")
    table = (await ok(alice, "create_table", **HOLDEM, decks=[DECK, DECK]))["table"]
    await ok(alice, "sit", table=table, seat=0, buy_in=5000)
    await ok(bob, "sit", table=table, seat=1, buy_in=5000)
    turn = await alice.event("turn", seat=0)
    assert "options" in turn
    await ok(alice, "act", table=table, action="raise", amount=300)
    await bob.event("turn", seat=1)
    await ok(bob, "act", table=table, action="fold")
    ended = await alice.event("hand_ended", table=table)
    assert ended["stacks"] == {"0": 5100, "1": 4900}
    # hand 2: whoever acts first raises; once the other's turn comes, chips are in the pot
    started = await alice.event("hand_started", table=table)
    assert started["hand"] != ended["hand"]
    first = await alice.event("turn", table=table)
    mover = alice if first["seat"] == 0 else bob
    await ok(mover, "act", table=table, action="raise", amount=400)
    await alice.event("turn", table=table, seat=1 - first["seat"])
    server.proc.send_signal(signal.SIGKILL)
    assert await asyncio.to_thread(server.proc.wait, 30) == -signal.SIGKILL
    return alice, bob, str(started["hand"])


async def after_restart(server: Server, alice: Client, bob: Client) -> None:
    """Both come back (login; token), find their balances exactly right, and play on."""
    alice2, bob2 = await client(server), await client(server)
    welcome = await identify(alice2, "login", name="alice", password="alice-secret")
    assert (welcome["player_id"], welcome["balance"]) == (alice.player_id, 10100)
    welcome = await identify(bob2, "hello", token=bob.token)
    assert (welcome["player_id"], welcome["balance"]) == (bob.player_id, 9900)
    table = (await ok(alice2, "create_table", **HOLDEM, decks=[DECK]))["table"]
    await ok(alice2, "sit", table=table, seat=0, buy_in=10000)
    answer = await bob2.request("sit", table=table, seat=1, buy_in=9901)
    assert answer["code"] == "insufficient_funds"  # not a chip more than he has
    await ok(bob2, "sit", table=table, seat=1, buy_in=5000)
    await alice2.event("turn", seat=0)
    await ok(alice2, "act", table=table, action="raise", amount=300)
    await bob2.event("turn", seat=1)
    await ok(bob2, "act", table=table, action="fold")
    await alice2.event("hand_ended", table=table)
    server.proc.send_signal(signal.SIGTERM)  # a clean stop cashes everyone out
    assert await asyncio.to_thread(server.proc.wait, 30) == 0


async def check_journal(store: Store, alice: Client, bob: Client, void_hand: str) -> None:
    balances = await store.balances()
    assert sum(balances.values()) == 0
    assert all(v >= 0 for a, v in balances.items() if is_checked(a))
    assert balances[player_account(str(alice.player_id))] == 10200
    assert balances[player_account(str(bob.player_id))] == 9800
    assert not {a: v for a, v in balances.items() if a.startswith("table:") and v}
    assert await store.open_hands() == []
    reasons = [e.reason for e in await store.journal(limit=10_000)]
    voids = [r for r in reasons if r.startswith("void ") and "restarted" in r]
    assert len(voids) == 1 and voids[0].split()[1].endswith(f":{void_hand}")
    ended = [r for r in reasons if r.startswith("hand_ended ")]
    assert len(ended) == 2  # hand 1 before the crash, one hand after it
    assert any(r.startswith("cash_out restart") for r in reasons)


@pytest.mark.parametrize("fsync", [[], ["--no-ledger-fsync"]], ids=["fsync", "no-fsync"])
async def test_sigkill_mid_hand_sqlite(tmp_path: Path, fsync: list[str]) -> None:
    data = tmp_path / "data"
    server = start_server(data, *fsync)
    try:
        alice, bob, hand = await play_then_die(server)
        server = start_server(data, *fsync)
        await after_restart(server, alice, bob)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    store = SqliteStore(data / "ledger.db")
    await store.open()
    try:
        await check_journal(store, alice, bob, hand)
        assert await Ledger(store).total() == 0
    finally:
        await store.close()


async def test_sigkill_mid_hand_redis(tmp_path: Path, redis_server: RedisProcess) -> None:
    data = tmp_path / "data"
    server = start_server(data, "--redis", redis_server.url)
    try:
        alice, bob, hand = await play_then_die(server)
        redis_server.kill()  # Redis dies too: its append-only file has every batch
        redis_server.start()
        server = start_server(data, "--redis", redis_server.url)
        await after_restart(server, alice, bob)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    store = RedisStore(redis_server.url)
    await store.open()
    try:
        await check_journal(store, alice, bob, hand)
    finally:
        await store.close()
    assert not (data / "ledger.db").exists()  # the embedded store was not used
