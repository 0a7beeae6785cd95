"""The one adapter between the server and Redis (through ``asyncio-redis``).

Rule of this module: nothing else in the server imports ``asyncio_redis``.  Stores and
coordinators talk to Redis only through :class:`Redis`:

- ``await Redis.connect("redis://127.0.0.1:6379/0")``;
- ``await r.call("HGET", key, field)``: any scriptable Redis command, run atomically on the
  server (it is sent as a tiny Lua script, so every command has one code path and one
  reply conversion);
- ``script = r.script(LUA)`` then ``await script(keys=[...], args=[...])``: a server-side
  Lua script, the way to make a multi-step change atomic.  Scripts are cached by SHA and
  re-sent when Redis has forgotten them (``NOSCRIPT`` after a restart);
- ``await r.publish(channel, text)`` and ``async for msg in r.subscribe(channel)``;
- ``await r.close()``.

Replies come back as Python values: strings (UTF-8), ints, lists and ``None``.  A lost
connection raises :class:`RedisUnavailable` for the command in flight; the connection
reconnects by itself, so the caller may retry (idempotent scripts make that safe).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import asyncio_redis
from asyncio_redis import exceptions as rexc

_CALL = "return redis.call(unpack(ARGV))"


class RedisUnavailable(ConnectionError):
    """Redis could not be reached or the connection dropped during a command."""


class RedisScriptError(RuntimeError):
    """A script or command was refused by Redis (the message is Redis's)."""


@dataclass(frozen=True, slots=True)
class RedisURL:
    host: str = "127.0.0.1"
    port: int = 6379
    db: int = 0
    password: str | None = None

    @classmethod
    def parse(cls, url: str) -> RedisURL:
        """``redis://[:password@]host[:port][/db]``."""
        u = urlparse(url)
        if u.scheme not in ("redis", ""):
            raise ValueError(f"not a redis:// URL: {url!r}")
        db = int(u.path.strip("/") or 0)
        return cls(u.hostname or "127.0.0.1", u.port or 6379, db, u.password)


class Script:
    """A Lua script bound to a :class:`Redis`; call it with ``keys`` and ``args``."""

    def __init__(self, redis: Redis, code: str) -> None:
        self._redis = redis
        self.code = code
        self.sha = hashlib.sha1(code.encode()).hexdigest()

    async def __call__(self, keys: Sequence[str] = (), args: Sequence[Any] = ()) -> Any:
        return await self._redis._run(self, [str(k) for k in keys], [str(a) for a in args])


class Redis:
    """A connection pool to one Redis server (see the module docstring)."""

    def __init__(self, pool: Any, url: RedisURL) -> None:
        self._pool = pool
        self.url = url
        self._loaded: set[str] = set()
        self._call = Script(self, _CALL)
        self._subs: list[Any] = []

    @classmethod
    async def connect(cls, url: str, *, poolsize: int = 4) -> Redis:
        """Open a pool to ``url``; raises :class:`RedisUnavailable` when nobody answers."""
        u = RedisURL.parse(url)
        try:  # asyncio-redis retries an unreachable server forever: ask the port first
            _, writer = await asyncio.wait_for(asyncio.open_connection(u.host, u.port), 5.0)
            writer.close()
        except (OSError, TimeoutError) as exc:
            raise RedisUnavailable(f"cannot connect to {url}: {exc}") from exc
        try:
            pool = await asyncio_redis.Pool.create(
                host=u.host, port=u.port, db=u.db,
                password=u.password.encode() if u.password else None, poolsize=poolsize)
        except (OSError, rexc.Error) as exc:
            raise RedisUnavailable(f"cannot connect to {url}: {exc}") from exc
        return cls(pool, u)

    def script(self, code: str) -> Script:
        """A server-side Lua script (atomic on the server)."""
        return Script(self, code)

    async def call(self, *args: Any) -> Any:
        """Run one Redis command, e.g. ``await r.call("INCRBY", "k", 5)``."""
        return await self._call(keys=(), args=[str(a) for a in args])

    async def _run(self, script: Script, keys: list[str], args: list[str]) -> Any:
        for attempt in range(2):
            try:
                if script.sha not in self._loaded:
                    await self._pool.register_script(script.code)
                    self._loaded.add(script.sha)
                reply = await self._pool.evalsha(script.sha, keys, args)
                return _plain(await reply.return_value())
            except rexc.NoAvailableConnectionsInPoolError as exc:
                raise RedisUnavailable(str(exc)) from exc
            except (rexc.NotConnectedError, OSError) as exc:
                raise RedisUnavailable(str(exc)) from exc
            except (rexc.ErrorReply, rexc.ScriptKilledError) as exc:
                # asyncio-redis turns every EVALSHA error into ScriptKilledError; Redis's own
                # message is on the ErrorReply it was raised from.
                message = str(exc.__context__ if isinstance(exc, rexc.ScriptKilledError)
                              and exc.__context__ is not None else exc)
                if "NOSCRIPT" in message and attempt == 0:
                    self._loaded.discard(script.sha)  # Redis restarted: send it again
                    continue
                raise RedisScriptError(message) from exc
        raise AssertionError("unreachable")

    async def publish(self, channel: str, message: str) -> int:
        """Publish ``message`` on ``channel``; returns how many subscribers got it."""
        return int(await self.call("PUBLISH", channel, message))

    async def subscribe(self, *channels: str,
                        ready: Callable[[], None] | None = None
                        ) -> AsyncIterator[tuple[str, str]]:
        """Yield ``(channel, message)`` for every message on ``channels`` (reconnecting).
        ``ready()`` is called each time the subscription is in place (first, and after each
        reconnection: messages published while it was not are lost)."""
        while True:
            try:
                conn = await asyncio_redis.Connection.create(
                    host=self.url.host, port=self.url.port, db=self.url.db,
                    password=self.url.password.encode() if self.url.password else None)
            except (OSError, rexc.Error):
                await asyncio.sleep(0.2)  # Redis is down: try again shortly
                continue
            self._subs.append(conn)
            try:
                sub = await conn.start_subscribe()
                await sub.subscribe(list(channels))
                if ready is not None:
                    ready()
                while True:
                    msg = await sub.next_published()
                    yield msg.channel, msg.value
            except (rexc.NotConnectedError, OSError):
                continue
            finally:
                conn.close()
                if conn in self._subs:
                    self._subs.remove(conn)

    async def close(self) -> None:
        for conn in list(self._subs):
            conn.close()
        self._pool.close()


def _plain(value: Any) -> Any:
    """Lua replies as plain Python values (lists recursively)."""
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
