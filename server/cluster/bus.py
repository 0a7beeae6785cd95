"""The process's subscriptions (issue 26): one task owns every pub/sub channel of the process.

Rule of this module: no other part of the cluster subscribes to anything. A part registers a
handler for a channel (:meth:`Subscriptions.on`, and :meth:`Subscriptions.off` when it is done)
and this part's one task, on one connection of its own (:meth:`server.redisio.Redis.subscriber`),
sends ``SUBSCRIBE``/``UNSUBSCRIBE`` as the set of channels changes and hands each message to
the handlers of its channel, in the order Redis delivered them. A handler is a plain call in
that task: it must not block (one that has Redis work to do starts a task of its own); one that
raises is logged, the others still get the message.

``ready`` (given with a handler) is called once the channel is subscribed: at once when it is
already, else when Redis confirms it, and again after every reconnection (messages published
while the connection was down are lost: the part asks again for what it may have missed).

The parts and their channels: the directory's ``changed`` (read the room again), moves'
``inbox:<node>`` (offers and answers), the spectators' ``ask`` and ``said:<node>`` (the owner's
side and chats' answers) and one ``frames`` channel per remote table watched here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from server.cluster.tasks import cancel_all
from server.redis_resp import RespConnection, RespError
from server.redisio import Redis, RedisUnavailable

__all__ = ["Handler", "Subscriptions"]

log = logging.getLogger("server.cluster")

Handler = Callable[[str, str], None]
"""``handler(channel, message)``, in the subscriptions' task; non-blocking."""

RETRY = (0.05, 1.0)
"""Seconds between two connection attempts while Redis does not answer: the first pause, then
doubling up to the second (a Sentinel promotion takes seconds; no tight reconnect loop)."""


class Subscriptions:
    """Every pub/sub channel of this process, on one connection and one task (see the module
    docstring). ``redis()``: the process's adapter (once it is connected)."""

    def __init__(self, redis: Callable[[], Redis | None], name: str = "-") -> None:
        self._redis = redis
        self.name = name
        self._handlers: dict[str, list[tuple[Handler, Callable[[], None] | None]]] = {}
        self._pending: dict[str, int] = {}  # SUBSCRIBEs sent and not confirmed yet
        self._live: set[str] = set()  # subscribed, as Redis confirmed
        self._conn: RespConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()  # every channel asked for so far is subscribed
        self.messages = 0  # messages dispatched (tests)

    # ------------------------------------------------------------------ the parts' port
    def on(self, channel: str, handler: Handler, ready: Callable[[], None] | None = None) -> None:
        """``handler`` gets every message of ``channel`` from now on; ``ready()`` once the
        channel is subscribed (and after each reconnection)."""
        handlers = self._handlers.setdefault(channel, [])
        handlers.append((handler, ready))
        if len(handlers) == 1:
            self._subscribe(channel)
        elif channel in self._live and ready is not None:
            asyncio.get_running_loop().call_soon(self._call, ready)

    def off(self, channel: str, handler: Handler) -> None:
        """``handler`` gets nothing more of ``channel`` (unsubscribed with its last one)."""
        handlers = self._handlers.get(channel)
        if handlers is None:
            return
        handlers[:] = [h for h in handlers if h[0] != handler]  # (bound methods: ==)
        if handlers:
            return
        del self._handlers[channel]
        self._live.discard(channel)
        if self._conn is not None:
            self._conn.write(("UNSUBSCRIBE", channel))

    async def publish(self, channel: str, message: str) -> int:
        """Publish ``message`` on ``channel`` (through the adapter's pool); how many
        subscribers got it."""
        redis = self._redis()
        if redis is None:
            raise RedisUnavailable("not connected yet")
        return await redis.publish(channel, message)

    def channels(self) -> set[str]:
        """The channels some part listens to (tests)."""
        return set(self._handlers)

    # ------------------------------------------------------------------ life
    async def start(self, timeout: float = 10.0) -> None:
        """Start the task; return once every channel registered so far is subscribed."""
        self._task = asyncio.get_running_loop().create_task(self._run(),
                                                            name=f"subscriptions:{self.name}")
        await asyncio.wait_for(self.connected.wait(), timeout)

    async def close(self) -> None:
        await cancel_all([self._task])
        self._task = None
        self._handlers.clear()

    # ------------------------------------------------------------------ the task
    def _subscribe(self, channel: str) -> None:
        if self._conn is None:
            return  # (subscribed with the others when the connection opens)
        self._pending[channel] = self._pending.get(channel, 0) + 1
        self.connected.clear()
        self._conn.write(("SUBSCRIBE", channel))

    async def _run(self) -> None:
        pause, down = RETRY[0], False
        while True:
            redis = self._redis()
            conn = None
            try:
                if redis is None:
                    raise RedisUnavailable("not connected yet")
                conn = await redis.subscriber()
                self._conn, self._live, self._pending = conn, set(), {}
                channels = list(self._handlers)
                if channels:
                    self._pending = dict.fromkeys(channels, 1)
                    conn.write(("SUBSCRIBE", *channels))
                else:
                    self.connected.set()
                if down:
                    log.info("event=subscriptions_up node=%s channels=%d", self.name,
                             len(channels))
                pause, down = RETRY[0], False
                while True:
                    self._dispatch(await conn.read())
            except (OSError, TimeoutError, RespError, RedisUnavailable) as exc:
                if not down:  # (once an outage: the attempts that follow are not logged)
                    log.warning("event=subscriptions_down node=%s error=%r", self.name, exc)
                down = True
            finally:
                self._conn = None
                self.connected.clear()
                if conn is not None:
                    conn.close()
            await asyncio.sleep(pause)  # a back-off, not a wait for an event (a cancel ends it)
            pause = min(RETRY[1], pause * 2)

    def _dispatch(self, msg: object) -> None:
        if not isinstance(msg, list) or len(msg) < 3:
            return
        kind, channel = msg[0], str(msg[1])
        if kind == "message":
            self.messages += 1
            for handler, _ in list(self._handlers.get(channel, ())):
                self._call(handler, channel, str(msg[2]))
        elif kind == "subscribe":
            left = self._pending.get(channel, 1) - 1
            if left > 0:
                self._pending[channel] = left
                return
            self._pending.pop(channel, None)
            if channel in self._handlers:
                self._live.add(channel)
                for _, ready in list(self._handlers[channel]):
                    if ready is not None:
                        self._call(ready)
            if not self._pending:
                self.connected.set()

    def _call(self, fn: Callable[..., None], *args: str) -> None:
        try:
            fn(*args)
        except Exception:
            log.exception("event=subscription_handler_failed node=%s", self.name)
