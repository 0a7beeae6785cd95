"""The inbound half of a WebSocket connection: whole messages handed over as they are parsed.

Rule of this module: `EdgeConnection` only turns websockets' parsed frames into whole messages
(text as `str`, binary as `bytes`) and hands each to one callback, inside websockets'
`data_received`; what is done with a message (decode, rate limit, answer, order behind a
request that waits) is `server.net.edge.Connection.receive`'s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import Event

__all__ = ["EdgeConnection"]

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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_message: Callable[[str | bytes], None] | None = None
        self._early: list[str | bytes] = []
        self._fragments: list[bytes] | None = None
        self._fragments_text = False
        self.lost: asyncio.Future[None] = self.loop.create_future()  # the TCP connection ended

    def connection_lost(self, exc: Exception | None) -> None:
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
