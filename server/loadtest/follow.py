"""One client connection of the load tester, and how it follows its tables when they change
process in a cluster (docs/protocol.md, "Tables that change process").

Rule of this module (as of the whole ``server.loadtest`` package): it imports only
``protocol``, ``websockets`` and the standard library.

A :class:`Client` is one WebSocket at a time: a reader task, requests answered by rid, every
other frame handed to ``_on_event``. After each new connection it *rejoins*: ``_arrived``
(a bot's ``hello`` with its token), then a ``resume`` of every table it follows
(``_resumes``). It comes back on a new connection in three cases:

* an answer ``moved`` to a request (:meth:`Client.follow`): a connection to its ``url``, the
  rejoin, the request again (at most :data:`MAX_MOVES` times);
* a pushed ``moved`` (an ``error`` frame without ``rid``, naming a table it follows): a
  connection to its ``url`` and the rejoin. One move at a time: a pushed ``moved`` that
  arrives during one is followed after it, and everything followed is resumed again there;
* the connection dropped by itself (the process died, the network): a new connection to the
  current URL, and after :data:`FALLBACK_AFTER` failed attempts in a row to the home URL
  (the first one it was given: the cluster's public address), with backoff between
  attempts (:attr:`Client.backoff`), at most :data:`RECONNECT_ATTEMPTS` attempts.

A ``resume`` answered ``moved`` during a rejoin is followed in turn (at most
:data:`MAX_MOVES` hops per recovery). A ``resume`` answered ``ok`` is handed to
``_resumed`` as its answer is read, before the replay that follows it (a bot takes up a turn
it held when its connection went: :class:`~server.loadtest.bots.Bot`). Counted in
:class:`~server.loadtest.tracking.Stats`: each ``moved`` followed is a move, a drop is a
disconnect and the rejoin after it a reconnect; none of them is an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.frames import Frame, Opcode
from websockets.protocol import Event
from websockets.typing import Subprotocol

from protocol import ProtocolError, codec_for

from .tracking import Stats

__all__ = ["FALLBACK_AFTER", "MAX_MOVES", "RECONNECT_ATTEMPTS", "REQUEST_TIMEOUT", "Client",
           "FrameConnection", "moved_url", "open_connection"]

Msg = dict[str, Any]

#: Seconds any single request may wait for its answer before the run gives up on it.
REQUEST_TIMEOUT = 15.0
#: `moved` answers one request (or one recovery) may follow before it is given up on (a
#: cluster whose processes disagree for a moment sends a client on at most once or twice).
MAX_MOVES = 3
#: Failed reconnection attempts in a row to the current URL before the home URL is tried.
FALLBACK_AFTER = 2
#: Reconnection attempts (after a drop, or to a move's url) before a client gives up.
RECONNECT_ATTEMPTS = 12
#: Seconds before the next attempt after the n-th failure in a row (the last one repeats).
RECONNECT_BACKOFF = (0.1, 0.25, 0.5, 1.0, 2.0)

#: What a failed connection attempt (or a connection lost during the rejoin) raises.
_CONNECT_FAILED = (OSError, WebSocketException, TimeoutError)
_jitter = random.Random()  # not a bot's seeded rng: its choices stay fixed by its seed


def moved_url(msg: Msg) -> str | None:
    """The ``url`` of a ``moved`` error that can be followed, else None."""
    if msg.get("type") != "error" or msg.get("code") != "moved":
        return None
    url = msg.get("url")
    return url if isinstance(url, str) and url.startswith(("ws://", "wss://")) else None


class FrameConnection(ClientConnection):
    """A client connection that hands each data frame to ``on_frame`` as soon as websockets
    has parsed it (text as ``str``, binary as ``bytes``), instead of queueing it for
    ``recv()``: no message assembler and no reader task wake-up per frame (the load
    tester's receive path; about 40% of a bot's CPU went there). The server never fragments
    a message; a fragment, or a frame before ``on_frame`` is set, takes websockets' own path."""

    on_frame: Callable[[str | bytes], None] | None = None

    def process_event(self, event: Event) -> None:
        on_frame = self.on_frame
        if (on_frame is not None and isinstance(event, Frame) and event.fin
                and (event.opcode is Opcode.TEXT or event.opcode is Opcode.BINARY)):
            data = event.data
            on_frame(bytes(data).decode() if event.opcode is Opcode.TEXT else bytes(data))
            return
        super().process_event(event)


async def open_connection(url: str, encoding: str) -> FrameConnection:
    """A WebSocket to ``url`` speaking ``poker.v1.<encoding>``, no compression."""
    sub = Subprotocol(f"poker.v1.{encoding}")
    ws = await connect(url, subprotocols=[sub], compression=None, ping_interval=None,
                       max_size=2**22, open_timeout=REQUEST_TIMEOUT,
                       create_connection=FrameConnection)
    assert isinstance(ws, FrameConnection)
    return ws


class Client:
    """One connection (see the module docstring); subclasses say what they follow."""

    #: Seconds before the next reconnection attempt after the n-th failure in a row.
    backoff: tuple[float, ...] = RECONNECT_BACKOFF

    def __init__(self, url: str, *, encoding: str, stats: Stats) -> None:
        self.url = url
        self.home = url  # the first URL: where a client falls back when its process is gone
        self.encoding = encoding
        self.stats = stats
        self.ws: FrameConnection | None = None
        self.codec = codec_for(f"poker.v1.{encoding}")
        self._rids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Msg]] = {}
        self._expected: dict[int, frozenset[str]] = {}  # rid -> error codes not counted
        self._on_answer: dict[int, Callable[[Msg], None]] = {}  # rid -> called as it is read
        self._reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.dropping = False  # an intended drop (churn, a move or the end): not a disconnect
        self.stopped = False  # closed for good: no reconnection
        self.closed = asyncio.Event()
        self.recovering = False  # coming back on a new connection (a move or after a drop)
        self._recovery: asyncio.Task[None] | None = None
        self._next_url: str | None = None  # a pushed `moved` received during a recovery
        self.player_id: str | None = None
        self.token: str | None = None
        self._welcome: asyncio.Future[Msg] | None = None  # resolved by a subclass's reader

    async def say_hello(self, name: str) -> Msg:
        """``hello`` (as guest ``name`` the first time, with the token afterwards); returns
        the ``welcome`` (a subclass's event handler resolves ``_welcome`` with it)."""
        self._welcome = asyncio.get_running_loop().create_future()
        hello: Msg = {"type": "hello"}
        if self.token is None:
            hello["guest"] = name
        else:
            hello["token"] = self.token
        answer = await self.request(hello)
        if answer["type"] != "ok":
            raise RuntimeError(f"hello refused: {answer}")
        welcome = await asyncio.wait_for(self._welcome, REQUEST_TIMEOUT)
        self.player_id, self.token = welcome["player_id"], welcome["token"]
        return welcome

    async def open(self) -> None:
        self.ws = await open_connection(self.url, self.encoding)
        self.codec = codec_for(self.ws.subprotocol)
        self.closed = asyncio.Event()
        self.dropping = False
        self._reader = asyncio.get_running_loop().create_task(self._read(self.ws))

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def send(self, msg: Msg) -> None:
        assert self.ws is not None
        self.stats.frames_in += 1
        await self.ws.send(self.codec.encode(msg, check=False))

    async def request(self, msg: Msg, timeout: float = REQUEST_TIMEOUT, *,
                      expected: frozenset[str] = frozenset(),
                      on_answer: Callable[[Msg], None] | None = None) -> Msg:
        """Send ``msg`` with a fresh rid and return its answer (``ok``/``error``/``pong``).
        An error answer whose code is in ``expected`` is an outcome the caller handles, not
        counted as an error (a tournament bot's watch of a table being broken).
        ``on_answer(answer)`` is called as the answer is read, before any frame after it
        (the caller resumes only later, maybe after some of them)."""
        rid = next(self._rids)
        future: asyncio.Future[Msg] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        if expected:
            self._expected[rid] = expected
        if on_answer is not None:
            self._on_answer[rid] = on_answer
        try:
            await self.send({**msg, "rid": rid})
            return await asyncio.wait_for(future, timeout)
        finally:
            self._pending.pop(rid, None)
            self._expected.pop(rid, None)
            self._on_answer.pop(rid, None)

    async def follow(self, msg: Msg, timeout: float = REQUEST_TIMEOUT, *,
                     expected: frozenset[str] = frozenset()) -> Msg:
        """:meth:`request`, following ``moved`` (docs/protocol.md, wave 2): a new
        connection to its ``url``, the rejoin (a bot says ``hello`` with its token), then
        the same request again; at most :data:`MAX_MOVES` times."""
        answer = await self.request(msg, timeout, expected=expected)
        for _ in range(MAX_MOVES):
            url = moved_url(answer)
            if url is None:
                return answer
            await self.move(url)
            answer = await self.request(msg, timeout, expected=expected)
        return answer

    async def move(self, url: str) -> None:
        """Close this connection on purpose, open one to ``url`` and rejoin there (a
        ``resume`` answered ``moved`` there is left to the request sent again)."""
        self.stats.moves += 1
        await self._disconnect()
        self.url = url
        await self.open()
        await self._rejoin()

    async def fire(self, msg: Msg) -> int:
        """Send ``msg`` with a fresh rid without waiting (an error answer is still counted
        and handed to ``_on_error``); returns the rid."""
        rid = next(self._rids)
        await self.send({**msg, "rid": rid})
        return rid

    # --- following tables ---------------------------------------------------------------
    def _resumes(self) -> list[Msg]:
        """The ``resume`` requests of the tables this client follows (none here)."""
        return []

    async def _arrived(self) -> None:
        """A new connection, before the tables are resumed (a bot's ``hello``)."""

    def _lost(self) -> None:
        """The connection is about to be replaced (a bot acts on no turn until it resumed)."""

    def _resumed(self, table: str) -> None:
        """A ``resume`` of ``table`` was answered ``ok`` (called as the answer is read,
        before the replay or snapshot that follows it)."""

    def _resume_answer(self, table: str) -> Callable[[Msg], None]:
        def answered(answer: Msg) -> None:
            if answer.get("type") == "ok":
                self._resumed(table)
        return answered

    async def _rejoin(self) -> str | None:
        """On a new connection: ``_arrived``, then ``resume`` every table followed. Returns
        the ``url`` of the first ``resume`` answered ``moved`` (None when all were resumed);
        a ``resume`` refused otherwise raises RuntimeError (its error is counted)."""
        await self._arrived()
        moved: str | None = None
        for resume in self._resumes():
            answer = await self.request(resume, on_answer=self._resume_answer(resume["table"]))
            url = moved_url(answer)
            if url is not None:
                moved = moved or url
            elif answer.get("type") != "ok":
                raise RuntimeError(f"resume refused: {answer}")
        return moved

    def _pushed_moved(self, msg: Msg) -> None:
        """A pushed ``moved`` (no rid): follow it when it names a table followed."""
        url = moved_url(msg)
        table = msg.get("table")
        if url is None or self.stopped or all(r["table"] != table for r in self._resumes()):
            return
        self.dropping = True  # the process may close this connection now: not a disconnect
        if self.recovering:
            self._next_url = url  # one move at a time: this one after it
            return
        self._start_recovery(url, dropped=False)

    def _start_recovery(self, url: str | None, *, dropped: bool) -> None:
        self.recovering = True  # at once: a drop or a pushed `moved` now joins this one
        task = asyncio.get_running_loop().create_task(self._recover_quietly(url, dropped))
        self._recovery = task

    async def _recover_quietly(self, url: str | None, dropped: bool) -> None:
        try:
            await self.recover(url, dropped=dropped)
        except RuntimeError:
            pass  # a refused hello or resume: its error answer is counted already
        except _CONNECT_FAILED:
            self.stats.error("reconnect_failed", self.stats.clock())
        finally:
            self._recovery = None

    async def recover(self, url: str | None, *, dropped: bool) -> None:
        """Come back on a new connection: to ``url`` (a move), else to the current URL (a
        drop; the home URL after :data:`FALLBACK_AFTER` failures in a row), rejoin, follow
        a ``resume`` answered ``moved`` (module docstring). ``dropped``: counts a reconnect
        when done. Raises the last connection error after :data:`RECONNECT_ATTEMPTS`."""
        self.recovering = True
        try:
            await self._recover(url)
            if dropped:
                self.stats.reconnects += 1
        finally:
            self.recovering = False
            self._next_url = None

    async def _recover(self, url: str | None) -> None:
        failures = hops = attempts = 0
        while not self.stopped:
            url, self._next_url = url or self._next_url, None
            if url is not None:
                if hops == MAX_MOVES:
                    self.stats.error("too_many_moves", self.stats.clock())
                    return
                hops += 1  # (failures kept: a moved url may be a process that just died,
                # whose lease has not run out yet: the backoff grows until its takeover)
                self.stats.moves += 1
                self.url, url = url, None
            elif failures >= FALLBACK_AFTER:
                self.url = self.home
            await self._disconnect()
            try:
                await self.open()
                url = await self._rejoin()
            except _CONNECT_FAILED:  # (a moved url whose process died: the hops start
                # again, bounded by the attempts; the room is changing owners)
                failures, attempts, hops = failures + 1, attempts + 1, 0
                if attempts >= RECONNECT_ATTEMPTS:
                    raise
                await asyncio.sleep(self._delay(failures))
                continue
            if url is None and self._next_url is None:
                return

    def _delay(self, failures: int) -> float:
        base = self.backoff[min(failures, len(self.backoff)) - 1]
        return base * (0.8 + 0.4 * _jitter.random())

    # --- the connection -----------------------------------------------------------------
    async def _read(self, ws: FrameConnection) -> None:
        """Take the connection's frames (``_on_frame``, called as each is parsed) until it
        closes; then fail the requests still waiting, and come back when it dropped by
        itself (a disconnect; not during a recovery, which tries again by itself)."""
        ws.on_frame = self._on_frame
        try:
            async for frame in ws:  # only what arrived before on_frame was set (nothing)
                self._on_frame(frame)
        except ConnectionClosed:
            pass
        finally:
            ws.on_frame = None
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("connection closed"))
            self.closed.set()
            if not (self.dropping or self.stopped or self.recovering):
                self.stats.disconnects += 1
                self._lost()
                self._start_recovery(None, dropped=True)

    def _on_frame(self, frame: str | bytes) -> None:
        stats = self.stats
        now = stats.clock()
        stats.frames_out += 1
        try:
            msg = self.codec.decode(frame, max_bytes=1 << 22, trusted=True)  # server frames
        except ProtocolError:
            stats.error("undecodable_frame", now)
            return
        kind = msg.get("type")
        if kind == "ok" or kind == "error" or kind == "pong":
            if kind == "error":
                code = msg.get("code")
                if code != "moved":  # a cluster's redirection, not a failure
                    if code not in self._expected.get(msg.get("rid"), ()):  # type: ignore[arg-type]
                        stats.error(str(code), now)
                elif "rid" not in msg:  # pushed: a table followed changes process
                    self._pushed_moved(msg)
                    return
                self._on_error(msg)
            hook = self._on_answer.pop(msg.get("rid"), None)  # type: ignore[arg-type]
            if hook is not None:
                hook(msg)
            future = self._pending.get(msg.get("rid"))  # type: ignore[arg-type]
            if future is not None and not future.done():
                future.set_result(msg)
            return
        try:
            self._on_event(msg, kind, now)
        except Exception:  # a bug of the bot: counted, never into websockets' reader
            stats.error("bot_failed", now)

    def _on_event(self, msg: Msg, kind: Any, now: float) -> None:
        raise NotImplementedError

    def _on_error(self, msg: Msg) -> None:
        """An ``error`` answer arrived (already counted)."""

    async def _disconnect(self) -> None:
        """Close the connection on purpose and wait for the reader to end; the tasks of the
        connection (a bot's pending act) are cancelled."""
        self.dropping = True
        self._lost()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5.0)
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 5.0)
        for task in list(self._tasks):
            task.cancel()

    async def close(self) -> None:
        """Close for good (no reconnection), and wait for the reader to end."""
        self.stopped = True
        recovery = self._recovery
        if recovery is not None and recovery is not asyncio.current_task():
            recovery.cancel()
            await asyncio.wait([recovery], timeout=5.0)
        await self._disconnect()
