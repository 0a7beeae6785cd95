"""The one adapter between the server and Redis (through ``asyncio-redis``).

Rule of this module: nothing else in the server imports ``asyncio_redis``.  Stores and
coordinators talk to Redis only through :class:`Redis`:

- ``await Redis.connect(url)``: ``redis://127.0.0.1:6379/0``, Sentinel's
  ``redis-sentinel://HOST:PORT[,...]/SERVICE[?db=N&password=P]`` or a Redis Cluster's
  ``redis-cluster://HOST:PORT[,...][?password=P]`` (see *Sentinel* and *Cluster* below);
- ``await r.call("HGET", key, field)``: any scriptable Redis command, run atomically on the
  server (sent as a tiny Lua script: one code path and one reply conversion);
- ``script = r.script(LUA)`` then ``await script(keys=[...], args=[...])``: a server-side
  Lua script, atomic, cached by SHA and re-sent after ``NOSCRIPT`` (a restart);
- ``reply, acked = await r.settle(script, keys, args, replicas=N, timeout_ms=T)``: the
  script, then ``WAIT`` for N or all online, T ms a round, again while fewer than N have it;
- ``await r.publish(channel, text)``, ``async for msg in r.subscribe(channel)``, ``r.close()``.

Replies come back as Python values: strings (UTF-8), ints, lists and ``None``.  A lost
connection raises :class:`RedisUnavailable` for the command in flight; the connection
reconnects by itself, so the caller may retry (idempotent scripts make that safe).

*Sentinel.* With a ``redis-sentinel://`` URL the primary is the address the sentinels name
(``SENTINEL get-master-addr-by-name``, asked in turn) that answers ``ROLE`` ``master``. A
command that fails on a dropped connection or ``READONLY`` (a demoted node) raises
:class:`RedisUnavailable` and forgets the pool; the next one finds the primary again (one
discovery at a time, a backoff of 50 ms doubling to 500 ms). ``+switch-master`` is followed
too (the pool, the settling connection and the subscriptions move at once). A subscription
finds the primary at each reconnection and calls ``ready()`` again.

*Cluster* (issue 26). With ``redis-cluster://`` the adapter reads the slot map (``CLUSTER
SLOTS``) and speaks RESP itself (:class:`server.redis_resp.ClusterRouter`, one shared
connection per primary): a script goes to the primary of its ``KEYS``' slot (keys of several
slots are refused here, ``CROSSSLOT``), a command to its key's; ``MOVED`` and ``ASK`` are
followed. Keyless commands, ``PUBLISH`` and every subscription go to the owner of ``{room}``'s
slot (a ``PUBLISH`` counts only its own node's subscribers: all are there). ``KEYS`` answers
that node's keys only. A settling write sends the script and one ``WAIT`` together there.

*What WAIT guarantees.* That replicas received the writes, not that they are on disk (WAIT
"does not make Redis strongly consistent"). Sentinel may promote any replica (on offsets read
seconds before), so a settling write waits for every replica online, and for at least the
number asked until they have it: a write the caller tells players survives losing the primary.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

import asyncio_redis
from asyncio_redis import exceptions as rexc

from server.redis_resp import ClusterRouter, RespConnection, RespError, key_slot, online_replicas

_CALL = "return redis.call(unpack(ARGV))"
_INFO = ("INFO", "replication")  # (read with each settling write: the replicas online)
log = logging.getLogger("server.redis")


class RedisUnavailable(ConnectionError):
    """Redis could not be reached or the connection dropped during a command."""


class RedisScriptError(RuntimeError):
    """A script or command was refused by Redis (the message is Redis's)."""


SENTINEL_SCHEME = "redis-sentinel"
CLUSTER_SCHEME = "redis-cluster"
_HOME = key_slot("{room}")
"""In a Redis Cluster: the slot whose primary takes keyless scripts, PUBLISH and SUBSCRIBE."""
_KEYLESS = frozenset({"PING", "PUBLISH", "TIME", "INFO", "KEYS", "DBSIZE", "ECHO", "SCAN",
                      "FLUSHALL", "FLUSHDB", "CLUSTER", "WAIT"})
_MULTI_KEY = frozenset({"MGET", "DEL", "EXISTS", "UNLINK", "TOUCH"})
_MOVED = ("READONLY", "MASTERDOWN", "LOADING")
"""Error replies meaning "not the writable primary (any more)": through Sentinel, the pool is
forgotten and the primary found again."""


@dataclass(frozen=True, slots=True)
class RedisURL:
    host: str = "127.0.0.1"
    port: int = 6379
    db: int = 0
    password: str | None = None
    sentinels: tuple[tuple[str, int], ...] = ()
    """Through Sentinel: the sentinels' addresses (``host``/``port`` then unused)."""
    service: str | None = None
    """Through Sentinel: the name the sentinels monitor the primary under."""
    cluster: tuple[tuple[str, int], ...] = ()
    """A Redis Cluster: nodes to read its slot map from (``host``/``port`` then unused)."""

    @classmethod
    def parse(cls, url: str) -> RedisURL:
        """``redis://[:password@]host[:port][/db]`` or
        ``redis-sentinel://HOST[:PORT][,HOST[:PORT]...]/SERVICE[?db=N&password=P]`` (a
        sentinel's port defaults to 26379) or
        ``redis-cluster://HOST[:PORT][,HOST[:PORT]...][?password=P]`` (a node's port defaults
        to 6379; a cluster has database 0 only); raises ``ValueError``."""
        u = urlparse(url)
        if u.scheme == SENTINEL_SCHEME:
            return cls._parse_sentinel(url, u.netloc, u.path, u.query)
        if u.scheme == CLUSTER_SCHEME:
            nodes = _addresses(url, u.netloc, 6379)
            params = {k: v[-1] for k, v in parse_qs(u.query, keep_blank_values=True).items()}
            if set(params) - {"password"} or u.path.strip("/"):
                raise ValueError(f"{url!r}: only ?password= may follow a cluster's nodes")
            return cls(password=params.get("password") or None, cluster=tuple(nodes))
        if u.scheme not in ("redis", ""):
            raise ValueError(f"not a redis:// URL: {url!r}")
        db = int(u.path.strip("/") or 0)
        return cls(u.hostname or "127.0.0.1", u.port or 6379, db, u.password)

    @classmethod
    def _parse_sentinel(cls, url: str, netloc: str, path: str, query: str) -> RedisURL:
        sentinels = _addresses(url, netloc, 26379)
        service = path.strip("/")
        if not service or "/" in service:
            raise ValueError(f"{url!r} names no service (redis-sentinel://HOSTS/SERVICE)")
        params = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        unknown = set(params) - {"db", "password"}
        if unknown:
            raise ValueError(f"unknown parameter(s) {sorted(unknown)} in {url!r}")
        db = params.get("db", "0")
        if not db.isdigit():
            raise ValueError(f"db must be a number in {url!r}")
        password = params.get("password") or None
        return cls(db=int(db), password=password, sentinels=tuple(sentinels),
                   service=unquote(service))


def _addresses(url: str, netloc: str, default_port: int) -> list[tuple[str, int]]:
    out = []
    for item in netloc.split(","):
        host, sep, port = item.strip().rpartition(":")
        if not sep or "]" in port:
            host, port = item.strip(), str(default_port)
        host = host.strip("[]")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"bad address {item!r} in {url!r}")
        out.append((host, int(port)))
    return out


class Script:
    """A Lua script bound to a :class:`Redis`; call it with ``keys`` and ``args``."""

    def __init__(self, redis: Redis, code: str) -> None:
        self._redis = redis
        self.code = code
        self.sha = hashlib.sha1(code.encode()).hexdigest()

    async def __call__(self, keys: Sequence[str] = (), args: Sequence[Any] = ()) -> Any:
        return await self._redis._run(self, [str(k) for k in keys], [str(a) for a in args])


class Redis:
    """A connection pool to one Redis server, or to the primary Sentinel names (see the
    module docstring)."""

    def __init__(self, pool: Any, url: RedisURL, *, addr: tuple[str, int] | None = None,
                 poolsize: int = 4) -> None:
        self._pool: Any | None = pool
        self.url = url
        self._addr = addr or (url.host, url.port)
        """The server the pool is connected to (through Sentinel: the primary found last)."""
        self._poolsize = poolsize
        self._loaded: set[str] = set()
        self._call = Script(self, _CALL)
        self._subs: list[Any] = []
        self._resp_subs: dict[RespConnection, tuple[str, int]] = {}
        """Through Sentinel: each subscription's connection and the primary it is on."""
        self._settler: RespConnection | None = None
        self._settle_lock = asyncio.Lock()
        self._online = 0  # replicas online at the primary at the last settling write
        self._discovery = asyncio.Lock()
        self._attempts = 0
        """Discovery attempts so far (a caller that waited for another's attempt uses it)."""
        self._backoff = 0.0
        self._next_try = 0.0
        self._switched = asyncio.Event()
        """Set (and replaced) when a sentinel announces a promotion: wakes every backoff."""
        self._watcher: asyncio.Task[None] | None = None
        self._closed = False
        self._cluster: ClusterRouter | None = None
        """A Redis Cluster's router (``redis-cluster://``; no pool then)."""

    @classmethod
    async def connect(cls, url: str, *, poolsize: int = 4) -> Redis:
        """Open a pool to ``url``; raises :class:`RedisUnavailable` when nobody answers."""
        u = RedisURL.parse(url)
        if u.cluster:
            router = ClusterRouter(u.cluster, password=u.password)
            try:
                await router.refresh()
            except OSError as exc:
                raise RedisUnavailable(f"cannot connect to {url}: {exc}") from exc
            redis = cls(None, u, addr=u.cluster[0], poolsize=poolsize)
            redis._cluster = router
            return redis
        if u.sentinels:
            addr = await _discover(u)
            redis = cls(await _open_pool(u, addr, poolsize), u, addr=addr, poolsize=poolsize)
            redis._watcher = asyncio.create_task(redis._watch_switches(),
                                                 name=f"sentinel-watch-{u.service}")
            return redis
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
        return cls(pool, u, poolsize=poolsize)

    def script(self, code: str) -> Script:
        """A server-side Lua script (atomic on the server)."""
        return Script(self, code)

    async def call(self, *args: Any) -> Any:
        """Run one Redis command, e.g. ``await r.call("INCRBY", "k", 5)``."""
        if self._cluster is not None:
            name = str(args[0]).upper()
            keys = ([] if name in _KEYLESS else
                    [str(a) for a in args[1:]] if name in _MULTI_KEY else [str(args[1])])
            [reply] = await self._cluster_run(tuple(args), keys)
            return reply
        return await self._call(keys=(), args=[str(a) for a in args])

    async def _cluster_run(self, command: tuple[Any, ...], keys: Sequence[str],
                           then: tuple[Any, ...] | None = None,
                           script: Script | None = None) -> list[Any]:
        """In a Redis Cluster: ``command`` (then ``then``, on the same connection) on the
        primary of ``keys``' slot; a ``NOSCRIPT`` reply to ``script``'s ``EVALSHA`` sends
        ``EVAL`` instead. Errors as for :meth:`_run`."""
        assert self._cluster is not None
        slots = {key_slot(k) for k in keys}
        if len(slots) > 1:
            raise RedisScriptError("CROSSSLOT keys of several hash slots: " + " ".join(keys))
        slot = slots.pop() if slots else _HOME
        commands = [command] if then is None else [command, then]
        try:
            replies = await self._cluster.execute_all(commands, slot)
            if script is not None and isinstance(replies[0], RespError) \
                    and str(replies[0]).startswith("NOSCRIPT"):
                commands[0] = ("EVAL", script.code, *command[2:])
                replies = await self._cluster.execute_all(commands, slot)
        except (OSError, TimeoutError) as exc:
            raise RedisUnavailable(f"Redis Cluster: {exc!r}") from exc
        for reply in replies:
            if isinstance(reply, RespError):
                raise RedisScriptError(str(reply)) from reply
        return [_plain(r) for r in replies]

    async def _run(self, script: Script, keys: list[str], args: list[str]) -> Any:
        if self._cluster is not None:
            [reply] = await self._cluster_run(("EVALSHA", script.sha, len(keys), *keys, *args),
                                              keys, script=script)
            return reply
        pool = await self._current_pool()
        for attempt in range(2):
            try:
                if script.sha not in self._loaded:
                    await pool.register_script(script.code)
                    self._loaded.add(script.sha)
                reply = await pool.evalsha(script.sha, keys, args)
                return _plain(await reply.return_value())
            except (rexc.NotConnectedError, OSError) as exc:  # with NoAvailableConnections...
                self._lost(pool)
                raise RedisUnavailable(str(exc)) from exc
            except (rexc.ErrorReply, rexc.ScriptKilledError) as exc:
                # asyncio-redis turns every EVALSHA error into ScriptKilledError; Redis's own
                # message is on the ErrorReply it was raised from.
                message = str(exc.__context__ if isinstance(exc, rexc.ScriptKilledError)
                              and exc.__context__ is not None else exc)
                if "NOSCRIPT" in message and attempt == 0:
                    self._loaded.discard(script.sha)  # Redis restarted: send it again
                    continue
                if self.url.sentinels and message.startswith(_MOVED):
                    self._lost(pool)  # demoted: nothing was written; find the primary
                    raise RedisUnavailable(message) from exc
                raise RedisScriptError(message) from exc
        raise AssertionError("unreachable")

    async def settle(self, script: Script, keys: Sequence[str] = (), args: Sequence[Any] = (),
                     *, replicas: int, timeout_ms: int, give_up_ms: int = 0) -> tuple[Any, int]:
        """``script`` then ``WAIT`` on the one settling connection (``WAIT`` counts its own
        connection's writes), again while fewer than ``replicas`` have it
        (``event=settle_waiting``), for ever or ``give_up_ms``; the reply and the replicas
        that acknowledged (fewer only once given up, or in a Redis Cluster: one ``WAIT`` on
        the node's shared connection). ``replicas`` 0: no ``WAIT``, ``(reply, 0)``. Errors
        as for a script; :class:`RedisUnavailable` may follow the script's run."""
        skeys, sargs = [str(k) for k in keys], [str(a) for a in args]
        if replicas <= 0:
            return await self._run(script, skeys, sargs), 0
        if self._cluster is not None:
            reply, acked = await self._cluster_run(
                ("EVALSHA", script.sha, len(skeys), *skeys, *sargs), skeys,
                then=("WAIT", replicas, timeout_ms), script=script)
            return reply, int(acked)
        async with self._settle_lock:
            pool = await self._current_pool()
            try:
                if self._settler is None:
                    host, port = self._addr
                    self._settler = await RespConnection.open(
                        host, port, timeout=5.0, password=self.url.password, db=self.url.db)
                wait = ("WAIT", max(replicas, self._online), timeout_ms)
                reply, acked, info = await asyncio.wait_for(self._settler.request(
                    ("EVALSHA", script.sha, len(skeys), *skeys, *sargs), wait, _INFO),
                    timeout_ms / 1000 + 5.0)
                if isinstance(reply, RespError) and str(reply).startswith("NOSCRIPT"):
                    reply, acked, info = await asyncio.wait_for(self._settler.request(
                        ("EVAL", script.code, len(skeys), *skeys, *sargs), wait, _INFO),
                        timeout_ms / 1000 + 5.0)
                self._online = online_replicas(info, self._online)
                waited = timeout_ms  # a write that stands unconfirmed is not told (issue 26)
                while (not isinstance(reply, RespError) and isinstance(acked, int)
                       and acked < replicas and (give_up_ms <= 0 or waited < give_up_ms)):
                    log.warning("event=settle_waiting replicas=%d of=%d waited_ms=%d", acked,
                                replicas, waited)
                    acked, info = await asyncio.wait_for(self._settler.request(
                        ("WAIT", replicas, timeout_ms), _INFO), timeout_ms / 1000 + 5.0)
                    self._online, waited = online_replicas(info, self._online), waited + timeout_ms
            except (OSError, TimeoutError, RespError) as exc:
                self._drop_settler()
                self._lost(pool)
                raise RedisUnavailable(f"settling write: {exc}") from exc
            except asyncio.CancelledError:
                self._drop_settler()  # a reply may still be on its way: not reusable
                raise
        for answer in (reply, acked):
            if isinstance(answer, RespError):
                if self.url.sentinels and str(answer).startswith(_MOVED):
                    self._lost(pool)
                    raise RedisUnavailable(str(answer)) from answer
                raise RedisScriptError(str(answer)) from answer
        return _plain(reply), int(acked)

    async def publish(self, channel: str, message: str) -> int:
        """Publish ``message`` on ``channel``; returns how many subscribers got it."""
        return int(await self.call("PUBLISH", channel, message))

    async def subscribe(self, *channels: str,
                        ready: Callable[[], None] | None = None
                        ) -> AsyncIterator[tuple[str, str]]:
        """Yield ``(channel, message)`` for every message on ``channels`` (reconnecting).
        ``ready()`` is called each time the subscription is in place (first, and after each
        reconnection: messages published while it was not are lost)."""
        if self.url.sentinels or self._cluster is not None:
            async for item in self._subscribe_primary(channels, ready):
                yield item
            return
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

    async def _subscribe_primary(self, channels: Sequence[str],
                                 ready: Callable[[], None] | None
                                 ) -> AsyncIterator[tuple[str, str]]:
        """Through Sentinel: subscribe on the primary found now; when the connection drops
        (or a promotion closes it), find the primary again, subscribe there, ``ready()``.
        In a Redis Cluster: the same on the primary of the slot of ``{room}``."""
        backoff = _BACKOFF_MIN
        while not self._closed:  # close() ends the subscription rather than moving it
            try:
                host, port = await (self._home() if self._cluster is not None
                                    else _discover(self.url))
                conn = await RespConnection.open(host, port, timeout=2.0,
                                                 password=self.url.password)
            except (RedisUnavailable, OSError, TimeoutError, RespError):
                await self._pause(backoff)  # no primary yet: a promotion is under way
                backoff = min(_BACKOFF_MAX * 2, backoff * 2)
                continue
            self._resp_subs[conn] = (host, port)
            try:
                conn.write(("SUBSCRIBE", *channels))
                for _ in channels:
                    await asyncio.wait_for(conn.read(), 2.0)
                backoff = _BACKOFF_MIN
                if ready is not None:
                    ready()
                while True:
                    msg = await conn.read()
                    if isinstance(msg, list) and len(msg) == 3 and msg[0] == "message":
                        yield msg[1], msg[2]
            except (OSError, TimeoutError):
                await self._pause(_BACKOFF_MIN)  # dropped: never a tight reconnect loop
            finally:
                conn.close()
                self._resp_subs.pop(conn, None)

    async def subscriber(self) -> RespConnection:
        """A connection of the caller's own for pub/sub whose channels change while it is
        open (``SUBSCRIBE``/``UNSUBSCRIBE`` on it: ``server.cluster.bus``): to the server, or
        through Sentinel to the primary found now. Raises ``OSError``, ``TimeoutError``,
        :class:`RedisUnavailable`. In a Redis Cluster: to the primary of the slot of
        ``{room}``, where every publish goes."""
        host, port = (await self._home() if self._cluster is not None else
                      await _discover(self.url) if self.url.sentinels else
                      (self.url.host, self.url.port))
        return await RespConnection.open(host, port, timeout=2.0, password=self.url.password)

    async def close(self) -> None:
        self._closed = True
        if self._watcher is not None:
            self._watcher.cancel()
        for conn in list(self._subs):
            conn.close()
        for rconn in list(self._resp_subs):
            rconn.close()
        self._drop_settler()
        if self._pool is not None:
            self._pool.close()
        if self._cluster is not None:
            self._cluster.close()

    async def _home(self) -> tuple[str, int]:
        """In a Redis Cluster: the primary of the slot of ``{room}`` (the map read again)."""
        assert self._cluster is not None
        try:
            await self._cluster.refresh()
            return self._cluster.owner(_HOME)
        except OSError as exc:
            raise RedisUnavailable(f"Redis Cluster: {exc}") from exc

    # --- Sentinel: following the primary ---------------------------------------------------

    async def _current_pool(self) -> Any:
        """The pool, or (through Sentinel, after a loss) a new one on the primary found now;
        one discovery at a time, attempts spaced by a bounded backoff (a promotion wakes the
        waiting one at once); raises :class:`RedisUnavailable` when there is none yet."""
        pool = self._pool
        if pool is not None:
            return pool
        attempts = self._attempts
        async with self._discovery:
            if self._pool is not None:
                return self._pool
            if self._closed:
                raise RedisUnavailable("closed")
            if self._attempts != attempts:  # another caller just tried, and failed
                raise RedisUnavailable("no Redis primary (rediscovering)")
            delay = self._next_try - asyncio.get_running_loop().time()
            if delay > 0:
                await self._pause(delay)
            self._attempts += 1
            try:
                addr = await _discover(self.url)
                pool = await _open_pool(self.url, addr, self._poolsize)
            except RedisUnavailable:
                self._backoff = min(_BACKOFF_MAX, max(_BACKOFF_MIN, self._backoff * 2))
                self._next_try = asyncio.get_running_loop().time() + self._backoff
                raise
            if addr != self._addr:
                self._drop_settler()
            self._addr, self._pool, self._backoff, self._next_try = addr, pool, 0.0, 0.0
            self._loaded.clear()
            return pool

    def _lost(self, pool: Any) -> None:
        """A command on ``pool`` found it dead or demoted: through Sentinel, forget it (the
        next command finds the primary again). Without Sentinel the pool reconnects alone."""
        current = self._pool
        if not self.url.sentinels or current is None or current is not pool:
            return
        self._pool = None
        current.close()
        self._drop_settler()

    def _drop_settler(self) -> None:
        if self._settler is not None:
            self._settler.close()
            self._settler = None

    async def _pause(self, delay: float) -> None:
        """Wait ``delay`` seconds of backoff, or less if a promotion is announced."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._switched.wait(), delay)

    def _switch(self, addr: tuple[str, int]) -> None:
        """A sentinel announced ``addr`` as the new primary: leave the old one now."""
        self._backoff, self._next_try = 0.0, 0.0
        switched, self._switched = self._switched, asyncio.Event()
        switched.set()
        if addr != self._addr and self._pool is not None:
            self._lost(self._pool)
        for conn, on in list(self._resp_subs.items()):
            if on != addr:
                conn.close()  # the subscription loop finds the new primary, calls ready()

    async def _watch_switches(self) -> None:
        """Follow the sentinels' ``+switch-master`` (one sentinel at a time, the next one
        when it drops) and move to the new primary as soon as one is announced."""
        backoff, turn = _BACKOFF_MIN, 0
        while not self._closed:
            host, port = self.url.sentinels[turn % len(self.url.sentinels)]
            turn += 1
            try:
                conn = await RespConnection.open(host, port, timeout=2.0)
            except (OSError, TimeoutError, RespError):
                await asyncio.sleep(backoff)
                backoff = min(_BACKOFF_MAX * 2, backoff * 2)
                continue
            try:
                conn.write(("SUBSCRIBE", "+switch-master"))
                await asyncio.wait_for(conn.read(), 2.0)
                backoff = _BACKOFF_MIN
                while True:
                    msg = await conn.read()
                    if isinstance(msg, list) and len(msg) == 3 and msg[0] == "message":
                        name, _, _, new_host, new_port = (str(msg[2]).split() + [""] * 5)[:5]
                        if name == self.url.service and new_port.isdigit():
                            self._switch((new_host, int(new_port)))
            except (OSError, TimeoutError):
                pass
            finally:
                conn.close()


_BACKOFF_MIN = 0.05
_BACKOFF_MAX = 0.5


async def _discover(url: RedisURL) -> tuple[str, int]:
    """The primary's address: the first sentinel (in order) that names one whose ``ROLE`` is
    ``master``; :class:`RedisUnavailable` when none does (e.g. during a promotion)."""
    problems, checked = [], set()
    for host, port in url.sentinels:
        try:
            conn = await RespConnection.open(host, port, timeout=1.0)
            try:
                [addr] = await asyncio.wait_for(conn.request(
                    ("SENTINEL", "get-master-addr-by-name", url.service)), 1.0)
            finally:
                conn.close()
            if not isinstance(addr, list) or len(addr) != 2:
                problems.append(f"{host}:{port} knows no {url.service!r}: {addr!r}")
                continue
            primary = (str(addr[0]), int(addr[1]))
            if primary in checked:  # several sentinels naming one dead primary: ask it once
                continue
            checked.add(primary)
            conn = await RespConnection.open(*primary, timeout=1.0, password=url.password)
            try:
                [role] = await asyncio.wait_for(conn.request(("ROLE",)), 1.0)
            finally:
                conn.close()
            if isinstance(role, list) and role and role[0] == "master":
                return primary
            problems.append(f"{host}:{port} names {primary}, whose role is {role!r}")
        except (OSError, TimeoutError, RespError, ValueError) as exc:
            problems.append(f"{host}:{port}: {exc!r}")
    raise RedisUnavailable(f"no primary for {url.service!r}: {'; '.join(problems)}")


async def _open_pool(url: RedisURL, addr: tuple[str, int], poolsize: int) -> Any:
    """A pool on the primary at ``addr`` that does not reconnect by itself (a dropped
    connection stays dropped: the adapter finds the primary again instead)."""
    try:
        return await asyncio.wait_for(asyncio_redis.Pool.create(
            host=addr[0], port=addr[1], db=url.db, poolsize=poolsize, auto_reconnect=False,
            password=url.password.encode() if url.password else None), 5.0)
    except (OSError, TimeoutError, rexc.Error) as exc:
        raise RedisUnavailable(f"cannot connect to the primary {addr}: {exc}") from exc


def _plain(value: Any) -> Any:
    """Lua replies as plain Python values (lists recursively)."""
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
