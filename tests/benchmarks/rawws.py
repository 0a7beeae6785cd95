"""A minimal WebSocket client for the network benchmarks: thousands of connections in one
process, at a few microseconds of client CPU per received frame.

Why not websockets' own client: the fan-out benchmark measures a server that delivers
~100,000 frames a second; a full-featured client spends more CPU per frame than the server
does, so the clients, not the server, would be measured. This client speaks just enough of
RFC 6455 for a benchmark: the opening handshake (no extensions: compression is never
negotiated, no subprotocol offered: the poker server answers in JSON text frames), masked
text frames out, unmasked frames in (any length), ping answered with pong, close answered
with close. Each received data frame's payload goes to `on_message` (bytes; text frames are
not decoded). Nothing here trusts the server beyond what a benchmark needs.
"""

from __future__ import annotations

import asyncio
import base64
import os
import resource
import struct
from collections.abc import Callable

__all__ = ["RawClient", "open_clients", "raise_nofile"]


def raise_nofile() -> int:
    """Raise this process's RLIMIT_NOFILE soft limit to its hard limit; return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = 1 << 20
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def _mask(payload: bytes, key: bytes) -> bytes:
    n = len(payload)
    if n == 0:
        return payload
    repeated = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big")


def encode_frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """One masked client frame (FIN set) carrying `payload`."""
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 65536:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    key = os.urandom(4)
    return header + key + _mask(payload, key)


class RawClient(asyncio.Protocol):
    """One WebSocket connection. `ready` resolves once the handshake is answered with 101
    (or fails); `closed` resolves when the TCP connection is gone."""

    def __init__(self, host: str, port: int, path: str,
                 on_message: Callable[[bytes], None]) -> None:
        self.on_message = on_message
        self._request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n\r\n"
        ).encode()
        self._buf = b""
        self._upgraded = False
        loop = asyncio.get_running_loop()
        self.ready: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.transport: asyncio.Transport | None = None

    # --- asyncio.Protocol ------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self._request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ready.done():
            self.ready.set_exception(ConnectionError(f"closed before the handshake: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        buf = self._buf + data if self._buf else data
        if not self._upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                self._buf = buf
                return
            status = buf[:buf.find(b"\r\n")]
            if b" 101 " not in status + b" ":
                if not self.ready.done():
                    self.ready.set_exception(ConnectionError(status.decode(errors="replace")))
                assert self.transport is not None
                self.transport.close()
                return
            self._upgraded = True
            buf = buf[end + 4:]
            if not self.ready.done():
                self.ready.set_result(None)
        pos, size = 0, len(buf)
        on_message = self.on_message
        while size - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            length = b1 & 0x7F
            start = pos + 2
            if length == 126:
                if size - pos < 4:
                    break
                length = (buf[pos + 2] << 8) | buf[pos + 3]
                start = pos + 4
            elif length == 127:
                if size - pos < 10:
                    break
                (length,) = struct.unpack_from("!Q", buf, pos + 2)
                start = pos + 10
            end = start + length
            if end > size:
                break
            opcode = b0 & 0x0F
            if opcode == 0x1 or opcode == 0x2:
                on_message(buf[start:end])
            elif opcode == 0x9:  # ping: answer pong with the same payload
                self.write_frame(buf[start:end], opcode=0xA)
            elif opcode == 0x8:  # close: answer it; the server then closes TCP
                self.write_frame(buf[start:start + 2], opcode=0x8)
            pos = end
        self._buf = buf[pos:] if pos < size else b""

    # --- sending ---------------------------------------------------------------------
    def write_frame(self, payload: bytes, opcode: int = 0x1) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(encode_frame(payload, opcode))

    def send_text(self, text: str | bytes) -> None:
        self.write_frame(text.encode() if isinstance(text, str) else text)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def open_clients(
    host: str, port: int, count: int, factory: Callable[[int], Callable[[bytes], None]],
    *, path: str = "/ws", concurrency: int = 200, timeout: float = 30.0,
) -> list[RawClient]:
    """Open `count` connections (at most `concurrency` handshakes in flight); connection i
    hands its messages to `factory(i)`. Raises if any handshake fails or times out."""
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(concurrency)
    clients: list[RawClient] = [None] * count  # type: ignore[list-item]

    async def one(i: int) -> None:
        async with gate:
            _, client = await loop.create_connection(
                lambda: RawClient(host, port, path, factory(i)), host, port)
            await client.ready
            clients[i] = client

    await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(count))), timeout)
    return clients
