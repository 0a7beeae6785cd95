"""A minimal RESP2 client on a plain asyncio stream, for what ``asyncio-redis`` cannot do.

:mod:`server.redisio` is the only user. It speaks RESP itself for the Sentinel side of the
adapter (``SENTINEL get-master-addr-by-name``, ``ROLE``, the sentinels' ``+switch-master``
channel), for subscriptions through Sentinel (a dropped connection must end the read, not
reconnect to the dead address behind our back as ``asyncio-redis`` does), and for settling
writes (a script then ``WAIT`` on the same connection: ``asyncio-redis`` has no ``WAIT``).

Replies are plain Python values, as :mod:`server.redisio` returns them: simple and bulk
strings as ``str`` (UTF-8), integers as ``int``, nil as ``None``, arrays as lists; an error
reply is a :class:`RespError` *value* (returned, not raised, so a pipeline's later replies are
still read). A dropped connection raises ``ConnectionError`` (an ``OSError``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

__all__ = ["RespConnection", "RespError"]


class RespError(Exception):
    """An error reply; ``str()`` is Redis's message (``NOSCRIPT ...``, ``READONLY ...``)."""


class RespConnection:
    """One TCP connection to a Redis server or sentinel."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    @classmethod
    async def open(cls, host: str, port: int, *, timeout: float = 2.0,
                   password: str | None = None, db: int = 0) -> RespConnection:
        """Connect (and ``AUTH``, ``SELECT`` when asked), all within ``timeout`` seconds;
        raises ``OSError`` or ``TimeoutError``, or :class:`RespError` when refused."""
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        conn = cls(reader, writer)
        try:
            setup: list[Sequence[Any]] = []
            if password:
                setup.append(("AUTH", password))
            if db:
                setup.append(("SELECT", db))
            for reply in await asyncio.wait_for(conn.request(*setup), timeout):
                if isinstance(reply, RespError):
                    raise reply
        except BaseException:
            conn.close()
            raise
        return conn

    def write(self, *commands: Sequence[Any]) -> None:
        """Send ``commands`` (pipelined) without reading their replies."""
        self._writer.write(b"".join(_encode(c) for c in commands))

    async def request(self, *commands: Sequence[Any]) -> list[Any]:
        """Send ``commands`` in one write and read one reply for each, in order."""
        if not commands:
            return []
        self.write(*commands)
        await self._writer.drain()
        return [await self.read() for _ in commands]

    async def read(self) -> Any:
        """The next reply (or pushed pub/sub message)."""
        line = await self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RespError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            size = int(rest)
            if size < 0:
                return None
            data = await self._exactly(size + 2)
            return data[:-2].decode()
        if kind == b"*":
            count = int(rest)
            return None if count < 0 else [await self.read() for _ in range(count)]
        raise ConnectionError(f"not a RESP reply: {line[:40]!r}")

    async def _line(self) -> bytes:
        try:
            return (await self._reader.readuntil(b"\r\n"))[:-2]
        except asyncio.IncompleteReadError as exc:
            raise ConnectionError("connection closed by Redis") from exc
        except asyncio.LimitOverrunError as exc:
            raise ConnectionError("reply line too long") from exc

    async def _exactly(self, size: int) -> bytes:
        try:
            return await self._reader.readexactly(size)
        except asyncio.IncompleteReadError as exc:
            raise ConnectionError("connection closed by Redis") from exc

    def close(self) -> None:
        """Close the socket; a pending :meth:`read` then raises ``ConnectionError``."""
        self._writer.close()
        self._reader.feed_eof()


def _encode(command: Sequence[Any]) -> bytes:
    parts = [f"*{len(command)}\r\n".encode()]
    for arg in command:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)
