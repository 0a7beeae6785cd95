"""Bots and spectators follow their table when it changes process (docs/protocol.md, "Tables
that change process"), against small fake server processes that speak just enough of the
JSON protocol: a pushed `moved` is followed (new connection, `hello` with the token,
`resume` from the last seq) and a seated bot plays on there; a `resume` answered `moved` is
followed; when its process dies a bot comes back through its home URL. None of it is an
error. No sleeps: every wait is on an event, with a timeout."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from server.loadtest.bots import Bot, Spectator, Stats, TableTrack
from server.loadtest.follow import moved_url

Msg = dict[str, Any]
WAIT = 5.0  # seconds any expected frame may take (the fakes answer at once)
TURN = {"seat": 1, "deadline": 0, "options": {"fold": True, "check": False, "call": 100}}


class FakeProcess:
    """One server process of a cluster, as far as a bot can tell: `hello` → `ok` +
    `welcome`, `sit`/`watch`/`act` → `ok`, `resume` → `ok` + a `snapshot` (seated at seat 1,
    its turn) or, when ``resume_to`` is set, `moved` there. Every frame received is kept."""

    def __init__(self) -> None:
        self.got: list[Msg] = []
        self.conns: list[ServerConnection] = []
        self.resume_to: str | None = None
        self.sit_to: str | None = None
        self.changed = asyncio.Condition()
        self.server: Server | None = None
        self.url = ""

    async def start(self) -> FakeProcess:
        self.server = await serve(self._serve, "127.0.0.1", 0,
                                  subprotocols=[Subprotocol("poker.v1.json")])
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/ws"
        return self

    async def stop(self) -> None:
        """The process dies: its connections close, and nothing listens at its port."""
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    async def push(self, msg: Msg) -> None:
        for ws in self.conns:
            if ws.state.name == "OPEN":
                await ws.send(json.dumps(msg))

    async def expect(self, kind: str, count: int = 1) -> Msg:
        """The ``count``-th frame of type ``kind`` this process received (waits for it)."""
        def seen() -> list[Msg]:
            return [m for m in self.got if m.get("type") == kind]
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(lambda: len(seen()) >= count), WAIT)
        return seen()[count - 1]

    async def _serve(self, ws: ServerConnection) -> None:
        self.conns.append(ws)
        try:
            async for raw in ws:
                msg = json.loads(raw)
                for answer in self._answers(msg):
                    await ws.send(json.dumps(answer))
                async with self.changed:  # after the answers: what a test saw was answered
                    self.got.append(msg)
                    self.changed.notify_all()
        except ConnectionClosed:
            pass

    def _answers(self, msg: Msg) -> list[Msg]:
        kind, rid, table = msg.get("type"), msg.get("rid"), msg.get("table")
        ok: Msg = {"type": "ok", "rid": rid}
        moved_to = self.resume_to if kind == "resume" else self.sit_to if kind == "sit" else None
        if moved_to is not None:
            return [{"type": "error", "rid": rid, "code": "moved", "table": table,
                     "url": moved_to, "message": "elsewhere"}]
        if kind == "hello":
            return [ok, {"type": "welcome", "player_id": "p1", "name": "Bea", "token": "tok",
                         "balance": 10000}]
        if kind == "sit":
            return [ok, {"type": "seated", "table": table, "seq": 5, "seat": 1, "stack": 500}]
        if kind == "resume":
            seats = [None, {"stack": 500, "cards": []}]
            return [ok, {"type": "snapshot", "table": table, "seq": 9, "you": 1,
                         "seats": seats, "turn": TURN}]
        return [ok]


@pytest.fixture
async def processes() -> AsyncIterator[Callable[[], Any]]:
    started: list[FakeProcess] = []

    async def start() -> FakeProcess:
        started.append(await FakeProcess().start())
        return started[-1]

    yield start
    for process in started:
        assert process.server is not None
        process.server.close()
        await process.server.wait_closed()


def a_bot(url: str, stats: Stats) -> Bot:
    bot = Bot(url, "Bea", TableTrack("t1", stats), seat=1, buy_in=500, rng=random.Random(1),
              think=0.0, encoding="json", stats=stats)
    bot.backoff = (0.0,)  # no waiting between reconnection attempts here
    return bot


async def seated(bot: Bot) -> None:
    await bot.open()
    await bot.hello()
    await bot.sit()


def test_only_a_ws_url_of_a_moved_error_is_followed() -> None:
    assert moved_url({"type": "error", "code": "moved", "url": "ws://b/ws"}) == "ws://b/ws"
    assert moved_url({"type": "error", "code": "moved", "url": "http://b/"}) is None
    assert moved_url({"type": "error", "code": "unknown_table", "url": "ws://b/ws"}) is None
    assert moved_url({"type": "ok", "url": "ws://b/ws"}) is None


async def test_a_pushed_moved_is_followed_and_the_bot_plays_on_there(processes: Any) -> None:
    a, b = await processes(), await processes()
    stats = Stats()
    bot = a_bot(a.url, stats)
    watcher = Spectator(a.url, bot.track, encoding="json", stats=stats)
    try:
        await seated(bot)
        await watcher.open()
        await watcher.watch()
        await a.push({"type": "chat", "table": "t1", "seq": 7, "name": "x", "text": "hi"})
        await a.push({"type": "error", "code": "moved", "table": "t1", "url": b.url})
        hello = await b.expect("hello")
        assert hello["token"] == "tok"  # the same account, not a new guest
        resumes = [await b.expect("resume", 1), await b.expect("resume", 2)]
        assert sorted((m["table"], m["since"]) for m in resumes) == [("t1", 7), ("t1", 7)]
        act = await b.expect("act")  # its turn came from the new process: it acts there
        assert act["table"] == "t1" and act["action"] in ("fold", "call")
        assert bot.url == watcher.url == b.url and bot.home == a.url
        assert stats.moves == 2 and not stats.errors  # a move each, not an error
        assert stats.disconnects == stats.reconnects == 0
        await b.push({"type": "error", "code": "moved", "table": "t9", "url": a.url})
        for client in (bot, watcher):  # an answer after it: the pushed frame was handled
            assert (await client.request({"type": "ping"}))["type"] == "ok"
        assert bot.url == watcher.url == b.url  # t9 is not a table they follow
        assert not a.conns[2:]
    finally:
        await bot.close()
        await watcher.close()


async def test_a_resume_answered_moved_is_followed(processes: Any) -> None:
    a, b = await processes(), await processes()
    stats = Stats()
    bot = a_bot(a.url, stats)
    try:
        await seated(bot)
        a.resume_to = b.url  # the table left a while the bot was away
        await bot.churn()
        assert (await a.expect("resume"))["since"] == 5
        assert (await b.expect("hello"))["token"] == "tok"
        assert (await b.expect("resume"))["since"] == 5
        await b.expect("act")
        assert bot.url == b.url and bot.seat == 1
        assert (stats.disconnects, stats.reconnects, stats.moves) == (1, 1, 1)
        assert not stats.errors
    finally:
        await bot.close()


async def test_when_its_process_dies_a_bot_comes_back_through_home(processes: Any) -> None:
    home, doomed, survivor = await processes(), await processes(), await processes()
    home.sit_to = doomed.url  # the cluster's address sends the bot to the table's process
    stats = Stats()
    bot = a_bot(home.url, stats)
    tried: list[str] = []
    real_open = bot.open

    async def open_and_note() -> None:
        tried.append(bot.url)
        await real_open()

    bot.open = open_and_note  # type: ignore[method-assign]
    try:
        await seated(bot)
        await doomed.expect("sit")
        assert bot.url == doomed.url and stats.moves == 1
        home.resume_to = survivor.url  # the survivor reopened the table
        await doomed.stop()
        assert (await home.expect("hello", 2))["token"] == "tok"
        assert (await home.expect("resume"))["since"] == 5
        assert (await survivor.expect("hello"))["token"] == "tok"
        assert (await survivor.expect("resume"))["since"] == 5
        await survivor.expect("act")
        assert bot.url == survivor.url and bot.home == home.url
        assert tried == [home.url, doomed.url, doomed.url, doomed.url, home.url, survivor.url]
        assert (stats.disconnects, stats.reconnects, stats.moves) == (1, 1, 2)
        assert not stats.errors
    finally:
        await bot.close()
