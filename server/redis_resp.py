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

*Redis Cluster* (issue 26): :class:`ClusterRouter` keeps the slot map (``CLUSTER SLOTS``), one
:class:`Pipe` per primary (many tasks share it: requests written in order, replies read in
order by one reader task) and sends each command to the primary owning its slot
(:func:`key_slot`), following ``MOVED`` (the map is read again) and ``ASK`` (``ASKING`` then
the command, on the importing node); ``TRYAGAIN`` and ``CLUSTERDOWN`` are retried a few times
with a short backoff.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Sequence
from typing import Any

__all__ = ["ClusterRouter", "Pipe", "RespConnection", "RespError", "key_slot"]


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
        async with asyncio.timeout(timeout):  # (not wait_for: on 3.11 it can swallow a cancel)
            reader, writer = await asyncio.open_connection(host, port)
        conn = cls(reader, writer)
        try:
            setup: list[Sequence[Any]] = []
            if password:
                setup.append(("AUTH", password))
            if db:
                setup.append(("SELECT", db))
            async with asyncio.timeout(timeout):
                replies = await conn.request(*setup)
            for reply in replies:
                if isinstance(reply, RespError):
                    raise reply
        except BaseException:
            conn.close()
            raise
        return conn

    def write(self, *commands: Sequence[Any]) -> None:
        """Send ``commands`` (pipelined) without reading their replies."""
        self._writer.write(b"".join(_encode(c) for c in commands))

    async def drain(self) -> None:
        await self._writer.drain()

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


ACK_LAG = 2
"""Seconds since a replica's last acknowledgement (it sends one a second) past which it does
not count as online: a replica that stopped answering is one Sentinel does not promote, and
waiting for it would hold every settling write for the whole timeout."""


def online_replicas(info: Any, before: int) -> int:
    """How many replicas a primary's ``INFO replication`` lists as online (past their initial
    sync, acknowledging within :data:`ACK_LAG` s: the ones ``WAIT`` counts and Sentinel
    promotes); ``before`` when the reply is not a primary's (an error, a node demoted)."""
    if not isinstance(info, str) or "role:master" not in info:
        return before
    online = 0
    for line in info.splitlines():
        if line.startswith("slave") and "state=online" in line:
            fields = dict(f.split("=", 1) for f in line.split(":", 1)[1].split(",") if "=" in f)
            lag = fields.get("lag", "0")
            if lag.isdigit() and int(lag) <= ACK_LAG:
                online += 1
    return online


# --- Redis Cluster ----------------------------------------------------------------------------

SLOTS = 16384


def _crc16_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021 if crc & 0x8000 else crc << 1) & 0xFFFF
        table.append(crc)
    return table


_CRC16 = _crc16_table()


def key_slot(key: str) -> int:
    """A key's hash slot: CRC16-XMODEM of its hash tag (the text between the first ``{`` and
    the next ``}``, when not empty) or of the whole key, modulo 16384."""
    data = key.encode()
    start = data.find(b"{")
    if start >= 0:
        end = data.find(b"}", start + 1)
        if end > start + 1:
            data = data[start + 1:end]
    crc = 0
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC16[(crc >> 8) ^ byte]
    return crc % SLOTS


class Pipe:
    """One connection shared by many tasks: each request's commands are written at once and
    their replies resolved in order by one reader task. A dropped connection fails every
    waiting request with ``ConnectionError`` and the pipe stays :attr:`closed`."""

    def __init__(self, conn: RespConnection) -> None:
        self._conn = conn
        self._waiting: deque[asyncio.Future[Any]] = deque()
        self.closed = False
        self._reader = asyncio.get_running_loop().create_task(self._read(), name="redis-pipe")

    async def request(self, *commands: Sequence[Any]) -> list[Any]:
        if self.closed:
            raise ConnectionError("connection to Redis closed")
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in commands]
        self._waiting.extend(futures)
        self._conn.write(*commands)  # (no await between the futures and the write: in order)
        await self._conn.drain()
        return list(await asyncio.gather(*futures))

    async def _read(self) -> None:
        error: BaseException = ConnectionError("connection to Redis closed")
        try:
            while True:
                reply = await self._conn.read()
                future = self._waiting.popleft()
                if not future.done():  # (its caller may have given up: the reply is dropped)
                    future.set_result(reply)
        except (OSError, IndexError) as exc:
            error = exc if isinstance(exc, OSError) else ConnectionError(f"unasked reply {exc}")
        finally:
            self.closed = True
            self._conn.close()
            while self._waiting:
                future = self._waiting.popleft()
                if not future.done():
                    future.set_exception(ConnectionError(str(error)))

    def close(self) -> None:
        self.closed = True
        self._conn.close()


Addr = tuple[str, int]


class ClusterRouter:
    """The primaries of a Redis Cluster and which slot each serves (see the module docstring).
    ``seeds``: addresses to read the slot map from (any node of the cluster)."""

    def __init__(self, seeds: Sequence[Addr], *, password: str | None = None,
                 timeout: float = 5.0) -> None:
        self.seeds = list(seeds)
        self.password = password
        self.timeout = timeout
        self.slots: list[Addr | None] = [None] * SLOTS
        self._pipes: dict[Addr, Pipe] = {}
        self._opening: dict[Addr, asyncio.Lock] = {}
        self._refreshing = asyncio.Lock()
        self.refreshes = 0
        self.redirects = 0

    async def refresh(self) -> None:
        """Read the slot map (``CLUSTER SLOTS``) from the first node that answers (the known
        primaries, then the seeds); ``ConnectionError`` when none does."""
        async with self._refreshing:
            problems = []
            known = [a for a in dict.fromkeys(self.slots) if a is not None]
            for addr in dict.fromkeys([*known, *self.seeds]):
                try:
                    conn = await RespConnection.open(*addr, timeout=self.timeout,
                                                     password=self.password)
                    try:
                        async with asyncio.timeout(self.timeout):
                            [reply] = await conn.request(("CLUSTER", "SLOTS"))
                    finally:
                        conn.close()
                except (OSError, TimeoutError, RespError) as exc:
                    problems.append(f"{addr}: {exc!r}")
                    continue
                if isinstance(reply, RespError) or not reply:
                    problems.append(f"{addr}: {reply!r}")
                    continue
                slots: list[Addr | None] = [None] * SLOTS
                for start, end, primary, *_ in reply:
                    host = str(primary[0]) or addr[0]
                    slots[int(start):int(end) + 1] = [(host, int(primary[1]))] * (
                        int(end) - int(start) + 1)
                self.slots = slots
                self.refreshes += 1
                for gone in set(self._pipes) - set(slots):
                    self._pipes.pop(gone).close()
                return
            raise ConnectionError("no node of the Redis Cluster answers: " + "; ".join(problems))

    def owner(self, slot: int) -> Addr:
        addr = self.slots[slot]
        if addr is None:
            raise ConnectionError(f"no node serves slot {slot}")
        return addr

    async def pipe(self, addr: Addr) -> Pipe:
        pipe = self._pipes.get(addr)
        if pipe is not None and not pipe.closed:
            return pipe
        async with self._opening.setdefault(addr, asyncio.Lock()):
            pipe = self._pipes.get(addr)
            if pipe is None or pipe.closed:
                conn = await RespConnection.open(*addr, timeout=self.timeout,
                                                 password=self.password)
                pipe = self._pipes[addr] = Pipe(conn)
            return pipe

    async def execute(self, command: Sequence[Any], slot: int) -> Any:
        """``command``'s reply from the primary serving ``slot`` (see :meth:`execute_all`)."""
        return (await self.execute_all((command,), slot))[0]

    async def execute_all(self, commands: Sequence[Sequence[Any]], slot: int) -> list[Any]:
        """The replies (a :class:`RespError` value for an error reply) of ``commands``, sent
        together on one connection to the primary serving ``slot``, the first one's
        redirections followed; ``ConnectionError`` or ``TimeoutError`` when that primary
        cannot be reached (the map is read again for the next command)."""
        addr, asking, message = self.owner(slot), False, ""
        for attempt in range(6):
            try:
                pipe = await self.pipe(addr)
                sent = (("ASKING",), *commands) if asking else tuple(commands)
                async with asyncio.timeout(2 * self.timeout):  # (wait_for may swallow a cancel)
                    replies = await pipe.request(*sent)
            except (OSError, TimeoutError):
                with contextlib.suppress(OSError):
                    await self.refresh()  # a primary down: its replica may be promoted
                raise
            replies = replies[1:] if asking else replies
            first = replies[0]
            message = str(first) if isinstance(first, RespError) else ""
            if message.startswith("MOVED "):
                self.redirects += 1
                await self.refresh()
                addr, asking = self.owner(slot), False
            elif message.startswith("ASK "):
                self.redirects += 1
                host, _, port = message.split()[2].rpartition(":")
                addr, asking = (host or addr[0], int(port)), True
            elif message.startswith(("TRYAGAIN", "CLUSTERDOWN")):
                await asyncio.sleep(0.05 * 2 ** attempt)
                with contextlib.suppress(OSError):
                    await self.refresh()
                addr, asking = self.owner(slot), False
            else:
                return list(replies)
        raise ConnectionError(f"Redis Cluster: slot {slot} still redirected ({message})")

    def close(self) -> None:
        for pipe in self._pipes.values():
            pipe.close()
        self._pipes.clear()
