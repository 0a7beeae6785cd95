"""The inbound half of a WebSocket connection: whole messages handed over as they are parsed.

Rule of this module: `EdgeConnection` only turns websockets' parsed frames into whole messages
(text as `str`, binary as `bytes`) and hands each to one callback, inside websockets'
`data_received`; what is done with a message (decode, rate limit, answer, order behind a
request that waits) is `server.net.edge.Connection.receive`'s.

It also applies the admission rules of the public listener at TCP accept (`admission`, a
class attribute the edge sets on its subclass, `Edge.connection_class`): a connection over a
cap gets `server.net.admission.REFUSED_RESPONSE` and is closed before websockets sees a
byte; an admitted one must `settle()` (identify or watch) within `hello_deadline` seconds of
its accept, or `on_deadline` (the edge: close with 1008) is called; still in the handshake
then, it is aborted.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from websockets.asyncio.connection import Connection as _WsConnection
from websockets.asyncio.server import ServerConnection
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import Event

from server.net.admission import REFUSED_RESPONSE, Admission

__all__ = ["EdgeConnection"]

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
    `data_received`: no message assembler, no `recv()`, no handler task wake-up per message
    (about a tenth of the server's CPU at full load went there). A fragmented message is
    joined here (websockets' protocol caps its total size, `max_fragments` its pieces);
    invalid UTF-8 in a text message closes with 1007, as `recv()` would. Messages that
    arrive before `on_message` is set are kept and handed over when it is. `lost` is done
    when the TCP connection has ended (`wait_closed()` without a shield per connection)."""

    max_fragments = 1024  # (the edge sets `Config.max_fragments` on each connection)
    admission: Admission | None = None  # (set on the edge's subclass: the listener's caps)
    hello_deadline: float | None = None  # (likewise: `Config.hello_deadline`)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_message: Callable[[str | bytes], None] | None = None
        self._early: list[str | bytes] = []
        self._fragments: list[bytes] | None = None
        self._fragments_text = False
        self.lost: asyncio.Future[None] = self.loop.create_future()  # the TCP connection ended
        self.peer: str | None = None  # the admission key held while open
        self.refused = False
        self.settled = False
        self.on_deadline: Callable[[], None] | None = None
        self._deadline: asyncio.TimerHandle | None = None

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
        if not self.refused:
            super().data_received(data)

    def settle(self) -> None:
        """The connection identified or watches a table: the hello deadline no longer
        applies."""
        self.settled = True
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

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
        if self.peer is not None and self.admission is not None:
            self.admission.release(self.peer)
            self.peer = None
        super().connection_lost(exc)
        if not self.lost.done():
            self.lost.set_result(None)

    def set_on_message(self, on_message: Callable[[str | bytes], None]) -> None:
        self._on_message = on_message
        early, self._early = self._early, []
        for message in early:
            on_message(message)

    def process_event(self, event: Event) -> None:
        if (self.request is None or not isinstance(event, Frame)
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
                if len(fragments) > self.max_fragments:
                    self._fail(CloseCode.MESSAGE_TOO_BIG, "too many fragments")
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
        self._fragments = None
        self.protocol.fail(code, reason)
        self.send_data()
