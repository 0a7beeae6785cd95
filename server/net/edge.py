"""The WebSocket edge: one `Connection` per socket, the frame loop, the outbox and its writer.

Rule of this module: nothing on the table side ever awaits a socket. Tables call
`Connection.send(frame)`, which never blocks: it writes the frame to the socket at once when
nothing is waiting and the socket takes data (the fan-out fast path, as websockets'
`broadcast()` writes), and otherwise appends it to a bounded outbox (`Config.outbox_size`
frames) that one writer task per connection drains to the socket, awaiting flow control.
When the outbox is full the connection is a slow consumer and is cut at once:

* close code **1013** (try again later) with reason `slow consumer`, sent if the socket can
  still take it; if the closing handshake does not finish within `Config.slow_close_timeout`
  seconds (a client that does not read never sees the close frame) the TCP connection is
  aborted (the client then sees 1006). The client reconnects and `resume`s from a snapshot.
* counted in `poker_slow_consumer_disconnects_total`.

Every received message goes through `Router.handle_now` (decode, parse, rate limit, route) the
moment websockets has parsed it (`EdgeConnection`: no message queue and no task wake-up per
message).
Both fast paths (the direct write, the message handed over as parsed) rely on websockets'
internals, all in `server.net.fastpath`; `Config.fast_send = False` takes websockets' public
path instead (every frame through the outbox and `await ws.send()`, every message through
`async for message in ws`), with the same behaviour on the wire.
A request that must wait (`hello`, `login`, `register`, `history`, `hand`) is
finished in a task, and the connection's later messages wait behind it, in order
(`Connection.receive`; reading pauses after `Config.inbound_high_water` of them). A frame never
crashes the handler: protocol failures are answered with their error code, an unexpected
exception is logged and answered `internal_error`, and the connection goes on.
A connection that keeps sending after being rate limited (`FloodGuard`) is closed with
**1008** (policy violation). At shutdown, `Edge.close_all` flushes each outbox (bounded) and
closes with **1001** (going away).

Frames and the write budget (`server.net.fastpath.EdgeConnection`, set up by `Edge.handle`):
every frame a client sends (data, continuation, ping, pong, close) takes a token of the
connection's frame bucket (`Config.frame_rate`, `Config.frame_burst`, or the request bucket's
`request_rate` and `request_burst` when larger) as websockets parses it; a refusal is a
`FloodGuard` strike like a refused request, and a flooding connection is closed with **1008**
at that frame. A message in more than `Config.max_fragments` pieces closes with **1009**;
either way the rest of the read is discarded unparsed and the socket is read no more (aborted
after `Config.slow_close_timeout`). Every write counts against a per-connection budget: the
transport's write buffer (our frames, the pongs websockets answers to pings, close frames)
plus the outbox's frames; over `Config.max_write_buffer` bytes, or
with writes paused for `Config.write_stall_timeout` seconds, the TCP connection is aborted at
once (a client that does not read would never see a close frame), counted in
`poker_write_budget_disconnects_total{reason="buffer"|"stall"}`.

Frame size (`ws_max_size`): websockets refuses messages over `Config.max_frame_bytes` plus a
margin (a quarter, at least 4 KiB) by closing with **1009** (message too big); a message
between the two limits reaches the codec, which answers `oversized` with the request's rid
unknown (`null`), and the connection stays open.

Admission (`server.net.admission`, `Edge.connection_class`): connections over
`Config.max_connections_per_ip` or `Config.max_connections` are refused at accept with a
`503`; a socket that has not identified (`hello`, `login`, `register`) nor watched a table
(`Connection.settle`, called by the router) within `Config.hello_deadline` seconds of its
accept is closed with **1008** and the reason `hello deadline`. Per-connection log lines
(`ws_open`, `ws_closed`) are bounded by `Config.log_lines_per_interval`. Behind a trusted
reverse proxy (`Config.trusted_proxies`) `Connection.remote_ip` is the client the proxy
forwarded (`server.net.forwarded`), counted against `Config.max_connections_per_ip` once the
handshake is read (one over: closed with **1013** `too many connections`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import OrderedDict, deque
from collections.abc import Callable, Coroutine
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from protocol import codec_for
from protocol.codec import JsonCodec, MsgpackCodec
from protocol.frames import deliver
from server.config import Config
from server.net import fastpath
from server.net.admission import PROXIED, Admission, LogBudget, Summary
from server.net.fastpath import PENDING, WIRE, EdgeConnection, FastWriter, flush_pending
from server.net.forwarded import FORWARDED_FOR, trusted
from server.net.metrics import Metrics
from server.net.ratelimit import FloodGuard, TokenBucket

__all__ = [
    "Connection", "Edge", "EdgeConnection", "ws_max_size",
]

log = logging.getLogger("server.net.edge")

CLOSE_SLOW_CONSUMER = CloseCode.TRY_AGAIN_LATER  # 1013
CLOSE_FLOOD = CloseCode.POLICY_VIOLATION  # 1008
CLOSE_SHUTDOWN = CloseCode.GOING_AWAY  # 1001
CLOSE_HELLO_DEADLINE = CloseCode.POLICY_VIOLATION  # 1008, reason `hello deadline`

def ws_max_size(config: Config) -> int:
    """websockets' `max_size`: the protocol limit plus a margin (see the module doc)."""
    return config.max_frame_bytes + max(4096, config.max_frame_bytes // 4)


# Cheap recognition of the frames the metrics care about, without decoding every frame.
# `protocol.messages` builders put `type` first; orjson and msgpack keep key order.
def _json_prefix(kind: str) -> str:
    return '{"type":"' + kind + '"'


def _msgpack_prefix(kind: str) -> bytes:
    body = kind.encode()
    return b"\xa4type" + bytes([0xA0 | len(body)]) + body


_JSON_OK, _JSON_ERROR = map(_json_prefix, ("ok", "error"))
_MP_OK, _MP_ERROR = map(_msgpack_prefix, ("ok", "error"))


def _frame_kind(frame: str | bytes) -> str | None:
    """`ok`, `error` or None (anything else), from the frame's first bytes."""
    if isinstance(frame, str):
        if frame.startswith(_JSON_OK):
            return "ok"
        if frame.startswith(_JSON_ERROR):
            return "error"
        return None
    if frame[:1] and (frame[0] & 0xF0) == 0x80:  # fixmap header
        if frame.startswith(_MP_OK, 1):
            return "ok"
        if frame.startswith(_MP_ERROR, 1):
            return "error"
    return None


class _LastKind:
    """`_frame_kind` of the last frame asked (a one-entry memo): found once for a run of sends
    of the same frame (a fan-out). Read `kind` when `frame is _KIND.frame`."""

    __slots__ = ("frame", "kind")

    def __init__(self) -> None:
        self.frame: object = object()
        self.kind: str | None = None

    def of(self, frame: str | bytes) -> str | None:
        if self.frame is not frame:
            self.frame, self.kind = frame, _frame_kind(frame)
        return self.kind


_KIND = _LastKind()


FrameHandler = Callable[["Connection", str | bytes], Coroutine[Any, Any, None] | None]
"""`Router.handle_now`: answers a message, or returns the coroutine that finishes it."""


class Connection:
    """One WebSocket client: the `Sink` a table sends to, plus the edge's per-client state.

    `conn_id` is unique in the process; `player_id`/`name` are set by `hello`; `codec` is the
    negotiated encoding. `send(frame)` never blocks (see the module doc for a full outbox).
    """

    def __init__(
        self,
        ws: ServerConnection,
        *,
        conn_id: int,
        codec: JsonCodec | MsgpackCodec,
        config: Config,
        metrics: Metrics,
        spawn: Callable[[Any, str], None],
        clock: Callable[[], float],
    ) -> None:
        self.ws = ws
        self.conn_id = conn_id
        peer = getattr(ws, "remote_address", None)  # the client's IP (per-IP table caps)
        peer_ip = str(peer[0]) if isinstance(peer, tuple) and peer else None
        request = getattr(ws, "request", None)  # behind a trusted proxy: the forwarded one
        self.remote_ip: str | None = trusted(config.trusted_proxies).client_ip(
            peer_ip, request.headers.get_all(FORWARDED_FOR) if request is not None else ())
        self.player_id: str | None = None
        self.name: str | None = None
        self.codec: JsonCodec | MsgpackCodec = codec
        self.outbox: asyncio.Queue[str | bytes] = asyncio.Queue(maxsize=config.outbox_size)
        self.requests = TokenBucket(rate=config.request_rate, burst=config.request_burst,
                                    clock=clock)
        self.chats = TokenBucket(rate=config.chat_rate, burst=config.chat_burst, clock=clock)
        self.flood = FloodGuard(limit=config.flood_limit, window=config.flood_window,
                                clock=clock)
        # (a message is at least one frame: never tighter than the request bucket, so a
        # server that raises `request_rate`, e.g. for zero-think bots, raises this too)
        self.frames = TokenBucket(rate=max(config.frame_rate, config.request_rate),
                                  burst=max(config.frame_burst, config.request_burst),
                                  clock=clock)
        # the socket's write budget (`EdgeConnection.queued`: the outbox's bytes)
        self._edge: EdgeConnection | None = ws if isinstance(ws, EdgeConnection) else None
        self._high_water = config.inbound_high_water
        self._slow_close = config.slow_close_timeout
        self.closing = False
        self._backlog = 0  # frames on the outbox or being written by the writer task
        self._batch: list[str | bytes] | None = None  # frames of this turn (see `send`)
        self._wires: list[bytes] | None = None  # the same, as bytes on the wire
        # the fast send path (None: every frame through the outbox and `ws.send()`)
        self._fast = FastWriter(ws) if config.fast_send and fastpath.AVAILABLE else None
        self._loop = asyncio.get_running_loop()
        self._metrics = metrics
        self._spawn = spawn
        self._clock = clock
        self._pending_acts: OrderedDict[Any, float] = OrderedDict()
        self.handle_now: FrameHandler | None = None  # set by the edge (`Router.handle_now`)
        # messages waiting behind a request being finished (None: nothing being finished)
        self._inbound: deque[str | bytes] | None = None
        self._reading_paused = False

    def __repr__(self) -> str:
        return f"<Connection {self.conn_id} player={self.player_id}>"

    # --- the Sink ----------------------------------------------------------------------
    def send(self, frame: str | bytes) -> None:
        """Write or queue one encoded frame; cut the connection (1013) if its outbox is full.

        Fast path (fan-out): when nothing is queued or being written, the frame joins this
        connection's *batch*: every frame sent to it in the same event-loop turn (one actor
        step sends about ten to each player) is written by `_flush_batch`, called (by
        `fastpath.flush_pending`: one `call_soon` per loop turn for every connection with a
        batch) once per batch, as ONE transport write of the concatenated WebSocket frames (one
        `send()` system call instead of one per frame), through websockets' protocol object
        as its own `broadcast()` does (`fastpath.FastWriter`): no task switch per frame. When
        the socket does not take data then (websockets' flow control is paused), the batch
        joins the outbox, in order, for the writer task, which waits on flow control.
        Otherwise (frames already queued or being written, or `Config.fast_send` off) the
        frame joins the outbox behind them. Frames keep their order either way."""
        if self.closing:
            return
        batch = self._batch
        if batch is not None:
            batch.append(frame)
            wires = self._wires
            if wires is not None:  # (`WIRE`'s memo, looked up here: once per frame)
                wires.append(WIRE.value if WIRE.frame is frame else WIRE.build(frame))
        elif self._backlog or self._fast is None:
            if not self._queue(frame):
                return
        else:
            self._batch = [frame]
            if self._fast.shares_wire:
                self._wires = [WIRE.value if WIRE.frame is frame else WIRE.build(frame)]
            else:
                self._wires = None
            loop = self._loop
            pending = PENDING.get(loop)
            if pending is None:
                PENDING[loop] = [self]
                loop.call_soon(flush_pending, loop)
            else:
                pending.append(self)
        self._metrics.messages_out_total += 1
        kind = _KIND.kind if _KIND.frame is frame else _KIND.of(frame)
        if kind is not None:
            self._observe(kind, frame)

    def _queue(self, frame: str | bytes) -> bool:
        """Put `frame` on the outbox; False (and the connection cut) when it is full."""
        try:
            self.outbox.put_nowait(frame)
            self._backlog += 1
            edge = self._edge
            if edge is not None:
                edge.queued += len(frame)
                if edge.over_budget():
                    edge.cut("buffer")
                    return False
        except asyncio.QueueFull:
            self._metrics.slow_consumer_disconnects_total += 1
            log.info("event=slow_consumer conn=%d player=%s outbox=%d",
                     self.conn_id, self.player_id, self.outbox.maxsize)
            self.close_soon(CLOSE_SLOW_CONSUMER, "slow consumer",
                            abort_after=self._slow_close)
            return False
        return True

    def _flush_batch(self) -> None:
        """Write the frames batched by `send` (see there) in one transport write, or queue
        them on the outbox when the socket does not take data now."""
        batch, self._batch = self._batch, None
        wires, self._wires = self._wires, None
        if not batch or self.closing:
            return
        fast = self._fast
        if not self._backlog and fast is not None:
            try:
                if fast.write(batch, wires):
                    return
            except Exception as exc:  # the socket is going away: drop, as a closed writer does
                log.debug("event=write_failed conn=%d error=%r", self.conn_id, exc)
                self.closing = True
                return
        for frame in batch:
            if not self._queue(frame):
                return

    def settle(self) -> None:
        """This connection identified or watches a table: no hello deadline any more."""
        settle = getattr(self.ws, "settle", None)
        if settle is not None:
            settle()

    def keep_alive(self) -> None:
        """An anonymous lobby request: the hello deadline counts again from now."""
        rearm = getattr(self.ws, "rearm", None)
        if rearm is not None:
            rearm()

    def reply(self, message: dict[str, Any]) -> None:
        """Encode and send one answer built by `protocol.messages` (edge answers)."""
        self.send(self.codec.encode(message, check=False))

    # --- receiving ---------------------------------------------------------------------
    def receive(self, message: str | bytes) -> None:
        """One message from the client (`EdgeConnection`, inside websockets' `data_received`):
        answered now when nothing is being finished, else queued behind it. Never raises."""
        self._metrics.messages_in_total += 1
        if self.closing:
            return
        inbound = self._inbound
        if inbound is not None:
            inbound.append(message)
            if len(inbound) >= self._high_water and not self._reading_paused:
                self._reading_paused = True
                fastpath.pause_reading(self.ws)
            return
        assert self.handle_now is not None
        try:
            rest = self.handle_now(self, message)
        except Exception:  # (`handle_now` never raises; a bug must not break websockets)
            log.exception("event=receive_failed conn=%d", self.conn_id)
            return
        if rest is not None:
            self._inbound = deque()
            self._spawn(self._finish_inbound(rest), f"request-{self.conn_id}")

    async def _finish_inbound(self, rest: Coroutine[Any, Any, None]) -> None:
        """Finish a request that must wait, then the messages queued behind it, in order."""
        inbound = self._inbound
        assert inbound is not None and self.handle_now is not None
        try:
            await rest
            while inbound and not self.closing:
                next_rest = self.handle_now(self, inbound.popleft())
                if next_rest is not None:
                    await next_rest
        finally:
            self._inbound = None
            if self._reading_paused:
                self._reading_paused = False
                fastpath.resume_reading(self.ws)

    # --- metrics taps ------------------------------------------------------------------
    def act_received(self, rid: Any) -> None:
        """Start the action latency clock for the act with `rid` (stopped by its answer)."""
        key = ("rid", rid)
        self._pending_acts[key] = self._clock()
        while len(self._pending_acts) > 64:
            self._pending_acts.popitem(last=False)

    def _observe(self, kind: str, frame: str | bytes) -> None:
        if kind == "error" or self._pending_acts:
            message = self._decode_own(frame)
            if message is None:
                return
            if kind == "error":
                self._metrics.error(str(message.get("code")))
            started = self._pending_acts.pop(("rid", message.get("rid")), None)
            if started is not None:
                self._metrics.observe_action_latency(self._clock() - started)

    def _decode_own(self, frame: str | bytes) -> dict[str, Any] | None:
        try:
            return self.codec.decode(frame, max_bytes=1 << 24, trusted=True)
        except Exception:  # our own frame; never let a metrics tap break a send
            return None

    # --- limits ------------------------------------------------------------------------
    def frame_refused(self) -> bool:
        """A frame over the frame bucket (`EdgeConnection._recv_frame`): a flood strike; True
        when there are too many (as for refused requests): the connection floods, and
        `EdgeConnection` closes it with 1008 at once. Counted and logged once."""
        if not self.flood.strike():
            return False
        if not self.closing:
            self.closing = True
            self._metrics.flood_disconnects_total += 1
            log.info("event=flood_disconnect conn=%d player=%s frames=%.0f/s",
                     self.conn_id, self.player_id, self.frames.rate)
        return True

    def write_budget_exceeded(self, reason: str) -> None:
        """The socket is cut over its write budget (`EdgeConnection.cut`, which aborts it):
        counted, and nothing more is sent to it."""
        self.closing = True
        self._metrics.write_budget_disconnects_total[reason] += 1
        log.info("event=write_budget_disconnect conn=%d player=%s reason=%s",
                 self.conn_id, self.player_id, reason)

    # --- lifecycle ---------------------------------------------------------------------
    def close_soon(self, code: int, reason: str, *, abort_after: float | None = None) -> None:
        """Stop sending and close the socket with `code` in the background (idempotent)."""
        if self.closing:
            return
        self._flush_batch()  # frames sent before the close go out before it
        self.closing = True
        self._spawn(self._close(code, reason, abort_after), f"close-{self.conn_id}")

    async def _close(self, code: int, reason: str, abort_after: float | None) -> None:
        try:
            if abort_after is None:
                await self.ws.close(code, reason)
            else:
                await asyncio.wait_for(self.ws.close(code, reason), abort_after)
        except TimeoutError:
            fastpath.abort(self.ws)

    async def flush(self, timeout: float) -> None:
        """Wait (at most `timeout` seconds) until the writer has written every queued frame."""
        self._flush_batch()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.outbox.join(), timeout)

    async def writer(self) -> None:
        """Drain the outbox to the socket until the connection closes (one per connection)."""
        ws, outbox = self.ws, self.outbox
        try:
            while True:
                frame = await outbox.get()  # (`send` queues behind it until it is written)
                try:
                    await ws.send(frame)
                finally:
                    self._backlog -= 1
                    if self._edge is not None:
                        self._edge.queued -= len(frame)
                    outbox.task_done()
        except ConnectionClosed:
            self.closing = True  # gone: later sends are dropped, not counted as slow


class Edge:
    """All connections of the process, and the WebSocket handler (`Edge.handle`).

    Build it with the frame handler (`Router.handle_now`); pass `Edge.handle` to
    `websockets.asyncio.server.serve` with `create_connection=Edge.connection_class()`.
    `connections` maps conn_id to `Connection`.
    """

    def __init__(
        self,
        config: Config,
        metrics: Metrics,
        *,
        on_close: Callable[[Connection], None] = lambda conn: None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.config = config
        self.metrics = metrics
        self.connections: dict[int, Connection] = {}
        self.handle_now: FrameHandler | None = None
        self._on_close = on_close
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._clock = clock
        self.admission = Admission(config, metrics)
        metrics.tcp_gauge = lambda: self.admission.open
        self._deadlines = Summary("hello_deadline_closes", config.accept_error_log_interval)
        self._open_log = LogBudget(config.log_lines_per_interval,
                                   config.accept_error_log_interval)
        self._closed_log = LogBudget(config.log_lines_per_interval,
                                     config.accept_error_log_interval)

    def connection_class(self) -> type[EdgeConnection]:
        """The `create_connection` of the public listener: `EdgeConnection` with this edge's
        caps (`admission`) and `Config.hello_deadline`."""
        edge = self

        class PublicConnection(EdgeConnection):
            admission = edge.admission
            hello_deadline = edge.config.hello_deadline
            fast_receive = edge.config.fast_send and fastpath.AVAILABLE
            max_write_buffer = edge.config.max_write_buffer
            write_stall_timeout = edge.config.write_stall_timeout
            fail_timeout = edge.config.slow_close_timeout

        return PublicConnection

    def _hello_deadline(self, conn: Connection) -> None:
        """`conn` neither identified nor watched in time: close it (1008)."""
        if conn.closing:
            return
        self.metrics.hello_deadline_closes_total += 1
        self._deadlines.add()
        conn.close_soon(CLOSE_HELLO_DEADLINE, "hello deadline",
                        abort_after=self.config.slow_close_timeout)

    def spawn(self, coro: Any, name: str) -> None:
        """Run `coro` as a task this edge owns: kept referenced, failures logged."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("event=task_failed task=%s error=%r", task.get_name(), task.exception())

    async def handle(self, ws: ServerConnection) -> None:
        """Serve one WebSocket connection until it closes."""
        assert self.handle_now is not None, "set Edge.handle_now before serving"
        assert isinstance(ws, EdgeConnection), "serve with create_connection=EdgeConnection"
        codec = codec_for(ws.subprotocol)
        fastpath.tune_socket(ws, self.config)
        ws.max_fragments = self.config.max_fragments
        conn = Connection(ws, conn_id=next(self._ids), codec=codec, config=self.config,
                          metrics=self.metrics, spawn=self.spawn,
                          clock=self._clock or asyncio.get_running_loop().time)
        forwarded = None  # a trusted proxy's client, counted per address now (admission)
        if ws.peer == PROXIED:
            forwarded = self.admission.admit_forwarded(conn.remote_ip)
            if forwarded is None:
                await ws.close(CLOSE_SLOW_CONSUMER, "too many connections")
                return
        self.connections[conn.conn_id] = conn
        # The handler owns its writer: cancelled and awaited below, whatever happens.
        writer = asyncio.get_running_loop().create_task(conn.writer(),
                                                        name=f"writer-{conn.conn_id}")
        if self._open_log.allow():
            log.info("event=ws_open conn=%d subprotocol=%s suppressed=%d", conn.conn_id,
                     codec.subprotocol, self._open_log.suppressed())
        conn.handle_now = self.handle_now
        ws.on_deadline = lambda: self._hello_deadline(conn)
        ws.frame_limit, ws.on_frame_refused = conn.frames, conn.frame_refused
        ws.on_cut = conn.write_budget_exceeded
        try:
            if ws.fast_receive:
                ws.set_on_message(conn.receive)
            else:  # websockets' public path: its message assembler, one message at a time
                with contextlib.suppress(ConnectionClosed):
                    async for message in ws:
                        conn.receive(message)
            await ws.lost
        finally:
            conn.closing = True
            del self.connections[conn.conn_id]
            if forwarded is not None:
                self.admission.release_forwarded(forwarded)
            try:
                self._on_close(conn)
            except Exception:
                log.exception("event=detach_failed conn=%d", conn.conn_id)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
            if self._closed_log.allow():
                log.info("event=ws_closed conn=%d code=%s player=%s suppressed=%d",
                         conn.conn_id, ws.close_code, conn.player_id,
                         self._closed_log.suppressed())

    def send_to_player(self, player_id: str, message: dict[str, Any]) -> None:
        """Send `message` to every connection signed in as `player_id` (e.g. `balance`)."""
        deliver(message, [conn for conn in list(self.connections.values())
                          if conn.player_id == player_id and not conn.closing])

    def broadcast(self, message: dict[str, Any]) -> None:
        """Send `message` to every connection, encoded once per codec (e.g. `jackpot`)."""
        deliver(message, list(self.connections.values()))

    async def close_all(self, code: int = CLOSE_SHUTDOWN, reason: str = "server shutdown",
                        timeout: float | None = None) -> None:
        """Flush every outbox (at most `timeout` s, default `Config.close_flush_timeout`), then
        close every connection with `code`."""
        if timeout is None:
            timeout = self.config.close_flush_timeout
        conns = list(self.connections.values())
        if conns:
            await asyncio.gather(*(conn.flush(timeout) for conn in conns))
        for conn in conns:
            conn.close_soon(code, reason, abort_after=timeout)
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout + 1.0)
