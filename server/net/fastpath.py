"""The websockets seam: every use of websockets' undocumented internals, in this one module.

Rule of this module: the rest of the edge (`server.net.edge`) speaks to websockets through
its public API (`serve`, `ServerConnection.send`/`close`/`subprotocol`/`close_code`, async
iteration) and through what this module exports; nothing else in the server touches
websockets' internals. What is here:

* `EdgeConnection`: websockets' `ServerConnection` subclassed (the `create_connection` of
  `serve`): admission at TCP accept (a refused socket is answered `503` and closed before
  websockets sees a byte), the hello deadline, `lost`, and (fast receive) each whole data
  message handed to one callback as websockets parses it, inside its `data_received`.
* `FastWriter`: the fast send path, frames written straight to the transport through
  websockets' Sans-I/O protocol object, as websockets' own `broadcast()` does, several frames
  in one transport write (`PENDING`, `flush_pending`: once per event-loop turn).
* `wire`: a frame as it goes on the wire (hand-built RFC 6455 header), built once for a
  fan-out of the same frame to many connections (a one-entry memo, `WIRE`).
* `tune_socket`, `pause_reading`, `resume_reading`, `abort`: the asyncio transport.
* The write budget (`EdgeConnection.over_budget`, `cut`): every write counts, ours and
  websockets' own (the pongs its protocol answers to pings, close frames): the transport's
  write buffer plus the edge's outbox (`queued`) over `Config.max_write_buffer` bytes, or
  writes paused (the transport above websockets' `write_limit`) for
  `Config.write_stall_timeout` seconds, aborts the TCP connection. Checked after every read
  (the pongs it produced) and every write while writes are paused, so the process's memory
  stays bounded whatever a client sends without reading.
* Frames (`EdgeConnection._recv_frame`, as websockets' parser parses each one): every frame
  a client sends, control frames too, takes a token of the connection's frame bucket
  (`frame_limit`, `Config.frame_rate`; a refusal calls `on_frame_refused`, a flood strike:
  a flooding connection is closed with 1008 at once), and a message in more than
  `max_fragments` pieces closes with 1009, on both receive paths. Either stops the parsing
  there: the rest of what was read is discarded unparsed (a 16 KiB read of one-byte
  fragments is ~2,300 frames; parsing them all cost ~10 ms of the event loop per read).

`Config.fast_send = False` (or `AVAILABLE` false: a websockets without these internals)
switches the edge to websockets' public path: every frame through `await ws.send()` (the
outbox and its writer task) and every message through `async for message in ws`
(`EdgeConnection.fast_receive = False`). Admission, the deadline and the transport helpers
have no public equivalent and stay in use either way.

What it relies on in websockets (`websockets.asyncio.connection.Connection`, the asyncio
implementation; checked in the source of 14.0, 15.0, 16.0, 17.0.1 and run with 17.4, the
version installed: `pyproject.toml` bounds it `>=15,<18`):

* `Connection.process_event(event)`: called by `data_received` for every parsed `Event`;
  overridden to take data frames (`Frame` with `Opcode.TEXT`/`BINARY`/`CONT`) before the
  message assembler; everything else goes to `super()`.
* `Connection.paused`: `True` between the transport's `pause_writing` and `resume_writing`
  (asyncio flow control), which the connection implements; `pause_writing` and
  `resume_writing` are extended (the stall timer), as are `data_received` (the budget after
  each read) and `connection_lost`.
* `Connection.transport`: the asyncio transport, set by `connection_made`.
* `Connection.send_data()`: writes `protocol.data_to_send()` to the transport (and handles
  an end of stream).
* `Connection.protocol`: the Sans-I/O `ServerProtocol`: `state` (`State.OPEN`), `extensions`
  (empty: nothing transforms frames, so the bytes on the wire are the same for every
  connection), `send_text`/`send_binary`, `data_to_send()`, `fail()`, and `writes` (the list
  of bytes `data_to_send()` returns: empty means nothing is waiting to go before ours);
  `recv_frame(frame)`, called by its parser for each frame as it is parsed (before the
  pong to a ping is queued), wrapped per connection (`EdgeConnection._recv_frame`: the
  frame limits act there, and `fail()` from it makes the parser discard the rest unparsed).
* `websockets.asyncio.connection.Connection.connection_made`: called directly (skipping
  `ServerConnection.connection_made`, which starts the handler task) for a refused socket.
* `Connection.loop`, `Connection.request` (None until the opening handshake is done).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import struct
from collections.abc import Callable
from typing import Any

from websockets.asyncio.connection import Connection as _WsConnection
from websockets.asyncio.server import ServerConnection
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import Event, State
from websockets.protocol import Protocol as _SansIO

from server.config import Config
from server.net.admission import REFUSED_RESPONSE, Admission
from server.net.http import method_refusal
from server.ratelimit import TokenBucket

__all__ = [
    "AVAILABLE", "PENDING", "WIRE", "EdgeConnection", "FastWriter", "abort", "flush_pending",
    "pause_reading", "resume_reading", "tune_socket", "wire",
]

#: True when the installed websockets has every internal the fast paths use (see the module
#: doc); when False the edge takes websockets' public path whatever `Config.fast_send` says.
AVAILABLE: bool = (
    all(callable(getattr(_WsConnection, name, None))
        for name in ("process_event", "send_data", "connection_made", "pause_writing"))
    and all(callable(getattr(_SansIO, name, None))
            for name in ("send_text", "send_binary", "data_to_send", "fail", "recv_frame"))
)


# --- the bytes on the wire ------------------------------------------------------------------
class _Wire:
    """A one-entry memo: the last frame given to `build` and its bytes on the wire. A fan-out
    sends the same frame object to many connections in a row: built once for all of them.
    Read `value` when `frame is WIRE.frame`, else call `build(frame)`."""

    __slots__ = ("frame", "value", "text", "utf8")

    def __init__(self) -> None:
        self.frame: object = object()
        self.value = b""
        self.text = ""
        self.utf8 = b""

    def build(self, frame: str | bytes) -> bytes:
        """`frame` as one unfragmented, unmasked WebSocket message (RFC 6455 5.2: a server's
        text or binary frame without extensions)."""
        if self.frame is not frame:
            if isinstance(frame, str):
                payload, opcode = frame.encode(), 0x81  # FIN + text
            else:
                payload, opcode = bytes(frame), 0x82  # FIN + binary
            n = len(payload)
            if n < 126:
                head = bytes((opcode, n))
            elif n < 1 << 16:
                head = struct.pack("!BBH", opcode, 126, n)
            else:
                head = struct.pack("!BBQ", opcode, 127, n)
            self.frame, self.value = frame, head + payload
        return self.value

    def encode(self, text: str) -> bytes:
        """`text` as UTF-8, encoded once for a run of sends of the same frame."""
        if self.text is not text:
            self.text, self.utf8 = text, text.encode()
        return self.utf8


WIRE = _Wire()


def wire(frame: str | bytes) -> bytes:
    """`frame` as one unfragmented, unmasked WebSocket message on the wire (see `_Wire`)."""
    return WIRE.value if WIRE.frame is frame else WIRE.build(frame)


# --- the fast send path ---------------------------------------------------------------------
#: Connections with a batch to flush, per event loop, in the order their batches began: the
#: first to begin one in a loop turn calls `loop.call_soon(flush_pending, loop)`, which
#: flushes them all (one callback per turn, not one per connection). (Looked up inline by
#: `Connection.send`, once per batch: no function call there.)
PENDING: dict[asyncio.AbstractEventLoop, list[Any]] = {}


def flush_pending(loop: asyncio.AbstractEventLoop) -> None:
    """Call `_flush_batch()` of every connection in `PENDING[loop]`, in order."""
    for conn in PENDING.pop(loop, ()):
        try:
            conn._flush_batch()
        except Exception as exc:  # as a callback of its own would: reported, the others go on
            loop.call_exception_handler({
                "message": "Exception in callback Connection._flush_batch()",
                "exception": exc,
            })


class FastWriter:
    """Writes frames to one connection's transport now, bypassing `ws.send()` (no task
    switch, one transport write for several frames), through websockets' protocol object as
    its `broadcast()` does. The edge never sends fragmented messages: none can be half sent."""

    __slots__ = ("ws", "protocol", "shares_wire", "edge")

    def __init__(self, ws: ServerConnection) -> None:
        self.ws = ws
        self.protocol = ws.protocol
        self.edge = ws if isinstance(ws, EdgeConnection) else None  # (its write budget)
        # without extensions (no compression) the bytes on the wire are the same for every
        # connection: built once per fan-out (`wire`), not by websockets per frame
        self.shares_wire = not ws.protocol.extensions

    def write(self, frames: list[str | bytes], wires: list[bytes] | None) -> bool:
        """Write `frames` in one transport write if the socket takes data now (not paused by
        flow control, the connection open); False: it does not (queue them). `wires`: the
        same frames on the wire (`wire`), when `shares_wire`. Raises when the socket is
        going away. Writes that leave the transport paused are checked against the write
        budget (`EdgeConnection.over_budget`: over it, the connection is cut)."""
        ws, protocol = self.ws, self.protocol
        if ws.paused or protocol.state is not State.OPEN:
            return False
        if wires is not None and not protocol.writes:
            ws.transport.write(b"".join(wires) if len(wires) > 1 else wires[0])
            if ws.paused:
                self._check()
            return True
        for frame in frames:
            if isinstance(frame, str):
                protocol.send_text(WIRE.encode(frame))
            else:
                protocol.send_binary(frame)
        chunks = protocol.data_to_send()
        if all(chunks):
            ws.transport.write(b"".join(chunks) if len(chunks) > 1 else chunks[0])
        else:  # an end of stream among them (never while OPEN): websockets' own path
            protocol.writes.extend(chunks)
            ws.send_data()
        if ws.paused:
            self._check()
        return True

    def _check(self) -> None:
        edge = self.edge
        if edge is not None and edge.over_budget():
            edge.cut("buffer")


# --- the transport --------------------------------------------------------------------------
def tune_socket(ws: ServerConnection, config: Config) -> None:
    """Cap the socket's send buffer (`Config.send_buffer_bytes`) and the transport's read size
    (`Config.read_chunk_bytes`; `max_size` is the attribute asyncio's selector transport
    reads)."""
    sock = ws.transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, config.send_buffer_bytes)
    if isinstance(getattr(ws.transport, "max_size", None), int):
        ws.transport.max_size = config.read_chunk_bytes  # type: ignore[attr-defined]


def pause_reading(ws: ServerConnection) -> None:
    """Stop reading from the socket (the client's messages wait in the kernel)."""
    ws.transport.pause_reading()


def resume_reading(ws: ServerConnection) -> None:
    with contextlib.suppress(Exception):
        ws.transport.resume_reading()


def abort(ws: ServerConnection) -> None:
    """Drop the TCP connection now (the client sees 1006)."""
    ws.transport.abort()


# --- the connection -------------------------------------------------------------------------
def _drain(transport: asyncio.BaseTransport) -> None:
    """Read away what a refused client already sent (its request, usually), so that closing
    the socket sends FIN after the 503, not a reset that may destroy the 503 in flight."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return
    try:
        fd = sock.fileno()
        for _ in range(4):
            if len(os.read(fd, 65536)) < 65536:
                return
    except OSError:  # nothing there (EAGAIN) or already gone
        return


class EdgeConnection(ServerConnection):
    """websockets' server connection, handing each whole data message (text as `str`, binary
    as `bytes`) to `on_message` as soon as websockets has parsed it, inside its
    `data_received` (`fast_receive`): no message assembler, no `recv()`, no handler task
    wake-up per message (about a tenth of the server's CPU at full load went there). A
    fragmented message is joined here (websockets' protocol caps its total size,
    `max_fragments` its pieces); invalid UTF-8 in a text message closes with 1007, as `recv()`
    would. Messages that arrive before `on_message` is set are kept and handed over when it
    is. With `fast_receive` False messages take websockets' own path (read them with
    `async for`). `lost` is done when the TCP connection has ended (`wait_closed()` without
    a shield per connection).

    Admission (`admission`, a class attribute the edge sets on its subclass,
    `Edge.connection_class`): a connection over a cap gets
    `server.net.admission.REFUSED_RESPONSE` and is closed before websockets sees a byte; an
    admitted one must `settle()` (identify or watch) within `hello_deadline` seconds of its
    accept, or `on_deadline` (the edge: close with 1008) is called; still in the handshake
    then, it is aborted.

    Limits (see the module doc): `max_fragments` pieces per message (1009 beyond, on both
    receive paths); every frame takes a token of `frame_limit` (a refusal calls
    `on_frame_refused`); the write budget `max_write_buffer` (bytes in the transport plus
    `queued`, the edge's outbox) and `write_stall_timeout` (writes paused that long): over
    either, `cut` calls `on_cut(reason)` and aborts the TCP connection. Frames that arrive
    with the handshake, before the edge sets `frame_limit`, are not counted (at most one
    read, `Config.read_chunk_bytes`)."""

    max_fragments = 16  # (the edge sets `Config.max_fragments` on each connection)
    admission: Admission | None = None  # (set on the edge's subclass: the listener's caps)
    hello_deadline: float | None = None  # (likewise: `Config.hello_deadline`)
    fast_receive = True  # (likewise: `Config.fast_send` and `AVAILABLE`)
    max_write_buffer: int | None = None  # (likewise: `Config.max_write_buffer`)
    write_stall_timeout: float | None = None  # (likewise: `Config.write_stall_timeout`)
    frame_limit: TokenBucket | None = None  # (the edge sets the connection's frame bucket)
    on_frame_refused: Callable[[], bool] | None = None  # (likewise: a strike; True: flood)
    on_cut: Callable[[str], None] | None = None  # (likewise: count and forget the connection)
    queued = 0  # bytes the edge's outbox holds for this socket (kept by the edge)
    _pieces = 0  # frames of the data message being received
    _failed: asyncio.TimerHandle | None = None  # closed by `_fail`: its abort, scheduled
    fail_timeout = 1.0  # (likewise: `Config.slow_close_timeout`)
    _stall: asyncio.TimerHandle | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_message: Callable[[str | bytes], None] | None = None
        self._early: list[str | bytes] = []
        self._fragments: list[bytes] | None = None
        self._fragments_text = False
        self.lost: asyncio.Future[None] = self.loop.create_future()  # the TCP connection ended
        self.peer: str | None = None  # the admission key held while open
        self._head: bytes | None = b""  # the request's first bytes, until its method is known
        self.refused = False
        self.settled = False
        self.on_deadline: Callable[[], None] | None = None
        self._deadline: asyncio.TimerHandle | None = None
        # every frame goes through `_recv_frame` as the protocol parses it (see there)
        self._sansio_recv_frame = self.protocol.recv_frame
        self.protocol.recv_frame = self._recv_frame  # type: ignore[method-assign]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        admission = self.admission
        if admission is not None:
            key = admission.admit(transport.get_extra_info("peername"))
            if key is None:  # over a cap: one write, closed, no handler task, no log line
                self.refused = True
                _WsConnection.connection_made(self, transport)
                _drain(transport)
                self.transport.write(REFUSED_RESPONSE)
                self.transport.close()
                return
            self.peer = key
        super().connection_made(transport)
        if self.hello_deadline is not None:
            self._deadline = self.loop.call_later(self.hello_deadline, self._deadline_passed)

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return
        if self._head is not None:  # websockets answers only GET (a body: it hangs up)
            data = self._head + data
            method, space, _ = data[:8].partition(b" ")
            if not space and len(data) < 8:
                self._head = data  # (the method is not complete yet)
                return
            if method not in (b"GET", b"HEAD"):
                line_end = data.find(b"\n")
                if line_end < 0 and len(data) < 8192:
                    self._head = data  # (the request line is not complete yet)
                    return
                self._head = None
                self._refuse(method_refusal(data[:line_end if line_end >= 0 else 8192]))
                return
            self._head = None
        super().data_received(data)  # (pongs to the pings it held are written now)
        if self.paused and self.over_budget():
            self.cut("buffer")

    # --- the write budget ---------------------------------------------------------------
    def over_budget(self) -> bool:
        """More than `max_write_buffer` bytes wait to be written: the transport's buffer
        (every write: ours, pongs, close frames) plus the edge's outbox (`queued`)."""
        limit = self.max_write_buffer
        return (limit is not None
                and self.transport.get_write_buffer_size() + self.queued > limit)

    def cut(self, reason: str) -> None:
        """Over the write budget (`reason`: `buffer` or `stall`): tell the edge (`on_cut`,
        once), then drop the TCP connection and everything waiting to be written."""
        on_cut, self.on_cut = self.on_cut, None
        if on_cut is not None:
            on_cut(reason)
        self.transport.abort()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.write_stall_timeout is not None and self._stall is None:
            self._stall = self.loop.call_later(self.write_stall_timeout, self._stalled)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None

    def _stalled(self) -> None:
        self._stall = None
        if self.paused:
            self.cut("stall")

    def _refuse(self, response: bytes) -> None:
        """Answer `response` and close (a request websockets would not have answered)."""
        self.refused = True
        _drain(self.transport)
        self.transport.write(response)
        self.transport.close()

    def settle(self) -> None:
        """The connection identified or watches a table: the hello deadline no longer
        applies."""
        self.settled = True
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def rearm(self) -> None:
        """A lobby page (an anonymous `tables`): the hello deadline starts again from now, so
        an open lobby lives while a socket that does nothing is still closed in time."""
        if self.settled or self._deadline is None or self.hello_deadline is None:
            return
        self._deadline.cancel()
        self._deadline = self.loop.call_later(self.hello_deadline, self._deadline_passed)

    def _deadline_passed(self) -> None:
        self._deadline = None
        if self.settled:
            return
        if self.on_deadline is not None:
            self.on_deadline()
        else:  # still in the opening handshake
            self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        if self._failed is not None:
            self._failed.cancel()
        if self.peer is not None and self.admission is not None:
            self.admission.release(self.peer)
            self.peer = None
        super().connection_lost(exc)
        if not self.lost.done():
            self.lost.set_result(None)

    def set_on_message(self, on_message: Callable[[str | bytes], None]) -> None:
        """Hand every data message to `on_message` from now on (and those kept until now)."""
        self._on_message = on_message
        early, self._early = self._early, []
        for message in early:
            on_message(message)

    def _recv_frame(self, frame: Frame) -> None:
        """Every frame the protocol parses, as it parses it (installed as the protocol's
        `recv_frame`): one token of `frame_limit` (a refusal: `on_frame_refused`, which
        answers whether the connection floods), the pieces of a message counted; a flood
        (1008) or a message over `max_fragments` (1009) fails the connection here, in the
        parser, which then discards the rest of what was read unparsed."""
        limit = self.frame_limit
        if (limit is not None and not limit.take() and self.on_frame_refused is not None
                and self.on_frame_refused()):
            self._fail(CloseCode.POLICY_VIOLATION, "flooding")
            return
        opcode = frame.opcode
        if opcode is Opcode.CONT:
            self._pieces += 1
            if self._pieces > self.max_fragments:
                self._fail(CloseCode.MESSAGE_TOO_BIG, "too many fragments")
                return
        elif opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            self._pieces = 1
        self._sansio_recv_frame(frame)

    def process_event(self, event: Event) -> None:
        if (not self.fast_receive or self.request is None or not isinstance(event, Frame)
                or event.opcode not in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT)):
            super().process_event(event)  # the handshake, pings and pongs, close
            return
        opcode = event.opcode
        if opcode is Opcode.CONT:
            fragments = self._fragments
            if fragments is None:  # (the protocol refuses a stray continuation first)
                return
            fragments.append(bytes(event.data))
            if not event.fin:
                return
            self._fragments = None
            data, text = b"".join(fragments), self._fragments_text
        elif not event.fin:
            self._fragments, self._fragments_text = [bytes(event.data)], opcode is Opcode.TEXT
            return
        else:
            data, text = bytes(event.data), opcode is Opcode.TEXT
        message: str | bytes
        if text:
            try:
                message = data.decode()
            except UnicodeDecodeError as exc:
                self._fail(CloseCode.INVALID_DATA, f"{exc.reason} at position {exc.start}")
                return
        else:
            message = data
        on_message = self._on_message
        if on_message is None:
            self._early.append(message)
        else:
            on_message(message)

    def _fail(self, code: CloseCode, reason: str) -> None:
        """Close with `code` now (the close frame and the end of our stream are written),
        read no more (what the client sends from now on would only be discarded), and abort
        the TCP connection `fail_timeout` seconds later if it has not ended by then."""
        self._fragments = None
        if self.protocol.state is State.OPEN or self.protocol.state is State.CLOSING:
            self.protocol.fail(code, reason)
            self.send_data()
        if self._failed is None:
            self.transport.pause_reading()  # (what it sends now would only be discarded)
            self._failed = self.loop.call_later(self.fail_timeout, self.transport.abort)
