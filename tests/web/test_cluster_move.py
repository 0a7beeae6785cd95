"""Issue 17 in the browser: a table changes process under a person who plays at it.

Two in-process cluster servers (`a`, `b`) share the test's own redis-server. Alice plays in
Chromium, her page from `a`; Bob is a protocol client. Bob opens a Hold'em table on `a` (a
fixed deck), Alice joins it from the lobby and sits, Bob sits, Alice folds the first hand.
Between hands `a` stops gracefully (`await a.close()`, the SIGTERM path): the table moves to
`b`, both are pushed `moved`, and Alice's page follows it by itself (js/socket.js). What she
must see: the same table, her seat, her name and her stack, no banner, no 'table gone',
online; the next hand dealt on `b` (her new cards, then her turn), her clicks played there.

The processes sit behind one origin (`Front`, a small reverse proxy standing in for
deploy/nginx.conf: `/ws` and the page to a live process, `/node/<name>/ws` to each, the Host
header kept), as README "Running a cluster" deploys them: the page's CSP (`connect-src` its
own host) and each process's Origin check allow only that. The tests at the end keep the
faults found on the way (fixed since): a cluster whose processes each have their own origin
(the `node` fixture's) is followed by a browser too (the CSP and the Origin check know the
room's processes); a move whose connection the browser blocks ends back at the home URL;
deploy/nginx.conf's Host header keeps the port; a stopping process's directory task stops
when it is cancelled as it is woken.

Test decks do not travel with a table (server/table/handoff.py `create_of`), so `b` deals
the second hand from its own shuffle, which this test replaces with a fixed deck.

Nothing sleeps: every wait is on the page (Playwright's `expect`, `wait_for_function`) or on
a protocol message or a socket, each bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from server.rules.cards import make_deck
from server.table.actor import TableActor
from server.table.registry import TableRegistry
from tests.cluster.test_directory import Node, directory, guest, node, settled
from tests.cluster.test_moves import follow_push
from tests.cluster.test_nginx import nginx_binary, nginx_conf, wait_port
from tests.net.conftest import TIMEOUT, Client, Live, start_live, test_config
from tests.redis_helpers import RedisProcess, free_port
from tests.web.conftest import OpenPlayer, Player, create, host

pytestmark = [pytest.mark.browser, pytest.mark.redis]
__all__ = ["node"]  # the fixture, shared with tests/cluster/test_directory.py


def deck(*first: str) -> list[str]:
    return [*first, *(c for c in make_deck(lowest_rank=2) if c not in first)]


# Dealt one card at a time from the left of the button (HOLD-01): the first hand's button is
# Bob's seat 1 (Alice, Bob, Alice, Bob: as tests/web/test_holdem.py), the second's Alice's.
FIRST_HAND = deck("As", "Kc", "Ad", "Kd", "2c", "Ah", "7s", "8d", "3c", "9h", "4c", "Jc")
SECOND_HAND = deck("5s", "Qh", "6s", "Qd", "2d", "Th", "7c", "8h", "3d", "9c", "4d", "Js")
TABLE_NAME = "Moving day"
META = "No Limit Texas Hold'em · 50/100"
HOLDEM = {"variant": "holdem", "structure": "no_limit", "stakes": {"blinds": [50, 100]},
          "seats": 6, "name": TABLE_NAME, "settings": {"pause": 3.0}}
"""A 3 s pause between hands: the table is between hands when `a` is told to stop, and the
page is back before the next hand on `b`."""

SOCKET_STATE = """() => { const s = window.__poker.socket;
    return {url: s.url, home: s.home, moves: s.moves, reconnects: s.reconnects,
            open: !!s.ws && s.ws.readyState === 1, followed: [...s.followed],
            status: s.status}; }"""


# --------------------------------------------------------------------------------------------
# One origin in front of the cluster
# --------------------------------------------------------------------------------------------


class Front:
    """A reverse proxy on one loopback port, as deploy/nginx.conf: `/node/<name>/ws` to that
    process's `/ws`, anything else (the page, `/ws`) to the first process that accepts the
    connection. The request head's path is rewritten, nothing else (the Host header is the
    front's: the page's origin); then bytes go both ways unchanged (WebSocket frames too)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.nodes: dict[str, tuple[str, int]] = {}  # name -> its process's (host, port)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def ws_url(self, name: str) -> str:
        return f"ws://127.0.0.1:{self.port}/node/{name}/ws"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for w in list(self._writers):
            w.close()
        if self._server is not None:
            await self._server.wait_closed()

    async def _backend(self, path: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter,
                                                 str]:
        """The connection to the process for `path`, and the path to ask it for."""
        for name, address in self.nodes.items():
            if path == f"/node/{name}/ws":
                reader, writer = await asyncio.open_connection(*address)
                return reader, writer, "/ws"
        for address in self.nodes.values():  # nginx's `upstream poker`: any live process
            with contextlib.suppress(OSError):
                reader, writer = await asyncio.open_connection(*address)
                return reader, writer, path
        raise OSError("no process accepts")

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
            line, rest = head.split(b"\r\n", 1)
            method, target, version = line.split(b" ", 2)
            path, query = (target.split(b"?", 1) + [b""])[:2]
            up_reader, up_writer, new_path = await self._backend(path.decode())
            self._writers.add(up_writer)
            new_target = new_path.encode() + (b"?" + query if query else b"")
            up_writer.write(b" ".join((method, new_target, version)) + b"\r\n" + rest)
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError):
            pass
        finally:
            writer.close()
            self._writers.discard(writer)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(1 << 16):
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()  # one side gone: the other goes too (the proxy keeps nothing)
            self._writers.discard(writer)


Cluster = Callable[[str], Awaitable[Live]]


@pytest.fixture
async def front() -> AsyncIterator[Front]:
    proxy = Front()
    await proxy.start()
    yield proxy
    await proxy.close()


@pytest.fixture
async def behind_front(tmp_path: Path, redis_server: RedisProcess,
                       front: Front) -> AsyncIterator[Cluster]:
    """`await behind_front("a")`: a cluster process on the test's Redis, as the `node`
    fixture's, whose public URL is its path on the front (README "Running a cluster")."""
    started: list[Live] = []

    async def factory(name: str) -> Live:
        config = test_config(tmp_path / name, port=free_port(), redis_url=redis_server.url,
                             node=name, public_url=front.ws_url(name),
                             cluster_lobby_refresh_ms=50)
        live = await start_live(config)
        front.nodes[name] = live.host_port
        started.append(live)
        return live

    yield factory
    for live in reversed(started):
        await live.close()


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def actors(live: Live) -> dict[str, TableActor]:
    registry = live.app.registry
    assert isinstance(registry, TableRegistry)
    return registry.actors


def fixed_shuffle(cards: Sequence[str]) -> list[str]:
    """`b`'s shuffle from now on: the second hand's deck (checked against the table's set)."""
    assert sorted(cards) == sorted(SECOND_HAND)
    return list(SECOND_HAND)


async def alice_sits_and_folds(alice: Player, page_url: str, bob: Client,
                               table: str) -> dict[str, Any]:
    """Alice, a guest in the browser, joins the table from the lobby and sits at seat 0 with
    5,000; Bob sits at seat 1; the first hand (the button on seat 1, the highest: GEN-05;
    Alice, left of it, the small blind, acts first): Alice folds. Its `hand_ended`."""
    await alice.goto(page_url)
    await alice.hello("Alice")
    row = alice.page.locator(f"tr[data-table='{table}']")
    await expect(row).to_contain_text(TABLE_NAME)
    await row.get_by_role("link", name="Join").click()
    await alice.sit(0, 5000)
    sat = await bob.request("sit", table=table, seat=1, buy_in=5000)
    assert sat["type"] == "ok", sat
    for card in ("As", "Ad"):
        await expect(alice.page.locator(f".seat.me [data-card='{card}']")).to_be_visible()
    await alice.act("fold")
    ended = await asyncio.wait_for(bob.event("hand_ended", table=table), TIMEOUT)
    assert ended["stacks"] == {"0": 4950, "1": 5050}, ended
    return ended


async def on_screen_as_before(alice: Player, table: str, stack: str) -> None:
    """The same table, Alice at seat 0 with her name and `stack`, Bob at seat 1, no banner,
    no 'table gone', online."""
    page = alice.page
    assert page.url.endswith(f"#/table/{table}"), page.url
    await expect(page.locator("#table-title")).to_have_text(TABLE_NAME)
    await expect(page.locator("#table-meta")).to_have_text(META)
    me = page.locator(".seat.me[data-seat='0']")
    await expect(me.locator(".name")).to_contain_text("Alice")
    await expect(me.locator(".stack")).to_have_text(stack)
    await expect(page.locator(".seat[data-seat='1'] .name")).to_have_text("Bob")
    await expect(page.locator("#table-main")).to_be_visible()
    await expect(page.locator("#gone")).to_be_hidden()
    await expect(page.locator("#banner")).to_be_hidden()
    await expect(page.locator("body[data-status='online']")).to_have_count(1)


# --------------------------------------------------------------------------------------------
# The move, as the person sees it
# --------------------------------------------------------------------------------------------


async def test_a_table_that_changes_process_stays_on_screen_and_plays_on(
        behind_front: Cluster, front: Front, open_player: OpenPlayer) -> None:
    a, b = await behind_front("a"), await behind_front("b")
    await settled(a, b)
    url_a, url_b = directory(a).url, directory(b).url
    assert (url_a, url_b) == (front.ws_url("a"), front.ws_url("b"))
    bob = await guest(a, "Bob")
    table = await create(bob, **HOLDEM, decks=[FIRST_HAND])
    assert table in actors(a)  # the first table of the room: where it was asked

    alice = await open_player()
    console: list[str] = []
    alice.page.on("console", lambda msg: console.append(msg.text) if msg.type == "error"
                  else None)
    ended = await alice_sits_and_folds(alice, front.url, bob, table)  # the page from a
    page = alice.page
    await on_screen_as_before(alice, table, "4,950")
    before = await page.evaluate(SOCKET_STATE)
    assert before["url"] == before["home"] == f"ws://127.0.0.1:{front.port}/ws", before
    statuses = len(await page.evaluate("() => window.__poker.statuses"))

    # Between hands, a stops: the table moves to b; Bob and the page follow it.
    registry_b = b.app.registry
    assert isinstance(registry_b, TableRegistry)
    registry_b.shuffle = fixed_shuffle
    closing = asyncio.create_task(a.close())
    bob_b, snap = await follow_push(bob, table)
    await page.wait_for_function("""(url) => { const s = window.__poker.socket;
        return s.url === url && !s._moving && !!s.ws && s.ws.readyState === 1; }""",
                                 arg=url_b)
    await asyncio.wait_for(closing, TIMEOUT)
    assert table in actors(b) and table not in actors(a)
    assert {s["seat"]: (s["name"], s["stack"]) for s in snap["seats"] if s} == {
        0: ("Alice", 4950), 1: ("Bob", 5050)}

    # What Alice sees: nothing happened.
    await on_screen_as_before(alice, table, "4,950")
    after = await page.evaluate(SOCKET_STATE)
    assert after == {**before, "url": url_b, "moves": 1, "reconnects": 1}, after
    assert after["followed"] == [table] and after["status"] == "online"
    shown = (await page.evaluate("() => window.__poker.statuses"))[statuses:]
    assert "reconnecting" not in shown and "offline" not in shown, shown
    # b has her seated with her stack, her page's connection bound to her seat.
    me = await page.evaluate("() => window.__poker.store.state.me.player_id")
    seat = actors(b)[table].seats[0]
    assert seat is not None and seat.player_id == me and seat.stack == 4950
    assert seat.sink is not None and seat.sink.player_id == me
    assert not getattr(seat.sink, "detached", False)

    # The next hand, dealt on b: the button moved on to her seat (it travelled with the
    # table: a new table would put it on seat 1 again), her new cards, Bob's small blind.
    started = await asyncio.wait_for(bob_b.event("hand_started", table=table), TIMEOUT)
    assert started["button"] == 0 and started["hand"] != ended["hand"], started
    for card in ("Qh", "Qd"):
        await expect(page.locator(f".seat.me [data-card='{card}']")).to_be_visible()
    await expect(page.locator(".seat.me .dealer-button")).to_have_count(1)
    await expect(page.locator(".seat.me .stack")).to_have_text("4,850")  # her big blind
    await asyncio.wait_for(bob_b.event("turn", table=table, seat=1), TIMEOUT)
    assert (await bob_b.request("act", table=table, action="call"))["type"] == "ok"
    # her turn, on b
    await expect(page.locator("#actions .your-turn")).to_be_visible()
    await expect(page.locator("#actions [data-act='check']")).to_be_enabled()
    await expect(page.locator("#banner")).to_be_hidden()
    await alice.shot("cluster-move-desktop")

    # Her clicks are played on b: she checks preflop and on the flop, Bob folds on the turn.
    await alice.act("check")
    await expect(page.locator(".board [data-card]")).to_have_count(3)
    await expect(page.locator(".board [data-card='Th']")).to_be_visible()
    await asyncio.wait_for(bob_b.event("turn", table=table, seat=1), TIMEOUT)
    assert (await bob_b.request("act", table=table, action="check"))["type"] == "ok"
    await alice.act("check")
    await asyncio.wait_for(bob_b.event("turn", table=table, seat=1), TIMEOUT)
    assert (await bob_b.request("act", table=table, action="fold"))["type"] == "ok"
    done = await asyncio.wait_for(bob_b.event("hand_ended", table=table), TIMEOUT)
    assert done["hand"] == started["hand"] and done["stacks"] == {"0": 5050, "1": 4950}, done
    await expect(page.locator(".seat.me .stack")).to_have_text("5,050")
    await expect(page.locator("#banner")).to_be_hidden()
    await expect(page.locator("#gone")).to_be_hidden()
    assert console == [], console  # no CSP refusal, no failed handshake


# --------------------------------------------------------------------------------------------
# Faults found on the way (fixed; kept as their tests)
# --------------------------------------------------------------------------------------------


async def test_a_move_to_a_process_on_another_origin_is_followed(
        node: Node, open_player: OpenPlayer) -> None:
    a, b = await node("a"), await node("b")
    await settled(a, b)
    bob = await guest(a, "Bob")
    table = await create(bob, **HOLDEM, decks=[FIRST_HAND])
    alice = await open_player()
    await alice_sits_and_folds(alice, a.url, bob, table)
    closing = asyncio.create_task(a.close())
    await follow_push(bob, table)
    await asyncio.wait_for(closing, TIMEOUT)
    await alice.page.wait_for_function("""(url) => { const s = window.__poker.socket;
        return s.url === url && !!s.ws && s.ws.readyState === 1; }""", arg=directory(b).url)
    await expect(alice.page.locator(".seat.me [data-card]")).to_have_count(2)


async def test_a_move_the_browser_blocks_ends_back_at_the_home_url(
        live: Live, open_player: OpenPlayer) -> None:
    """A standalone server; the page is pushed `moved` for its table (the frame a stopping
    process sends, given to the socket as it arrives) to a URL its CSP forbids. Expected
    (docs/protocol.md): the failed connection is a drop; after two failed attempts the client
    goes on at its home URL, resumes, and the page works again."""
    creator = await host(live, "Bob")
    table = await create(creator, **HOLDEM)
    alice = await open_player()
    await alice.goto(live.url)
    await alice.hello("Alice")
    await alice.goto(live.url, f"#/table/{table}")
    await alice.sit(0, 5000)
    page = alice.page
    await page.evaluate("""(table) => { const s = window.__poker.socket;
        s._receive(JSON.stringify({type: "error", code: "moved", table,
                                   url: "ws://127.0.0.1:9/ws"}), s.ws); }""", table)
    await page.wait_for_function("() => window.__poker.socket.moves === 1")
    await page.wait_for_function("""() => { const s = window.__poker.socket;
        return s.url === s.home && !s._moving && !!s.ws && s.ws.readyState === 1; }""",
                                 timeout=30_000)
    await page.fill("#chat-input", "still here")
    await page.press("#chat-input", "Enter")
    await expect(page.locator("#chat-lines")).to_contain_text("still here")


async def test_the_page_connects_through_deploy_nginx_conf(
        tmp_path: Path, live: Live, open_player: OpenPlayer) -> None:
    binary = nginx_binary()
    if binary is None:
        pytest.skip("nginx is not installed (python3 dev.py test installs it)")
    listen, port = free_port(), live.host_port[1]
    conf = nginx_conf(tmp_path, listen, {f"server-{i}": port for i in (1, 2, 3)})
    nginx = subprocess.Popen([binary, "-p", str(tmp_path), "-c", str(conf), "-e", "stderr",
                              "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        await asyncio.to_thread(wait_port, listen, nginx)
        alice = await open_player()
        await alice.goto(f"http://127.0.0.1:{listen}/")
        await alice.hello("Alice")  # says hello over /ws: its name shows once it is answered
    finally:
        nginx.terminate()
        await asyncio.to_thread(nginx.wait, 10)


async def test_the_directory_task_stops_when_cancelled_as_it_is_woken(node: Node) -> None:
    """What happens when a stopping process's table changes as the directory is closed (the
    browser's connection going away, here): the wake and the cancellation in one turn."""
    a = await node("a")
    d = directory(a)
    task = d._task
    assert task is not None
    try:
        d.table_changed("t1")  # sets the task's wake event
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=2.0)
        assert task in done, task
    finally:
        task.cancel()  # (the wake event is clear now: this one is not lost)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, TIMEOUT)
