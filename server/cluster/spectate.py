"""Spectators across processes (issue 17): watch any table of the room from any process.

Rule of this module: a table's owner publishes each PUBLIC frame once, whatever the number
of remote spectators and processes; every other process fans it out to its own watchers.
All of it goes through :mod:`server.redisio` (pub/sub):

* ``<p>:table:{<table>}:frames``: the table's public stream, one message per frame (its JSON),
  in ``seq`` order, and the public ``snapshot`` when someone asked for it;
* ``<p>:{room}:ask``: a table id; the process owning that table answers by publishing the
  table's public snapshot on its frames channel (in the stream's order, so a receiver drops
  every frame whose ``seq`` the snapshot already holds).

The owner's side (:class:`Spectate` is the table fan-out's
:class:`~server.table.fanout.Relay`): a table's frames are published only while they are
wanted: from an ``ask`` on, until a publish reaches no subscriber (Redis's own count of
``PUBLISH``). One queue and one task publish them in order; the table never awaits Redis.
At a table with a spectator delay the owner publishes the already-delayed public stream (and
the snapshot, delayed alike), so remote spectators see what local ones see, when they see it.

The receiving side (:class:`RemoteTable`, one per table watched here and owned elsewhere):
subscribes to the frames channel, asks for a snapshot, sends each new watcher the first
snapshot that arrives after it came (then the frames with a higher ``seq``), encodes each frame
once per codec, and unsubscribes when its last watcher leaves. A watcher still waiting for its
snapshot after ``ASK_RETRY`` seconds asks again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import orjson

from server.cluster.tasks import cancel_all
from server.redisio import Redis, RedisScriptError, RedisUnavailable
from server.table.api import Sink
from server.table.registry import TableRegistry

__all__ = ["ASK_RETRY", "RemoteTable", "Spectate"]

log = logging.getLogger("server.cluster")

ASK_RETRY = 2.0
"""Seconds a new remote watcher waits for its snapshot before the ask is sent again."""


class RemoteTable:
    """A table owned by another process, served to this process's watchers (see the module
    docstring). Built and dropped by :class:`Spectate`."""

    def __init__(self, spectate: Spectate, table_id: str) -> None:
        self.spectate = spectate
        self.table_id = table_id
        self.sinks: dict[int, Sink] = {}  # live: snapshot sent, frames follow
        self.pending: dict[int, Sink] = {}  # waiting for their snapshot
        self.seq = 0  # the highest seq sent to the live watchers
        self.frames = 0  # frames received (tests)
        self.subscribed = asyncio.Event()
        self._asked = asyncio.Event()  # a new watcher came: ask (again)
        self._snapshot = asyncio.Event()  # a snapshot arrived
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read(), name=f"remote:{self.table_id}"),
                       loop.create_task(self._ask(), name=f"remote-ask:{self.table_id}")]

    async def close(self) -> None:
        await cancel_all(self._tasks)
        self._tasks = []

    def add(self, sink: Sink) -> None:
        self.sinks.pop(sink.conn_id, None)
        self.pending[sink.conn_id] = sink
        self._asked.set()

    def remove(self, conn_id: int) -> bool:
        return (self.sinks.pop(conn_id, None) or self.pending.pop(conn_id, None)) is not None

    @property
    def watchers(self) -> int:
        return len(self.sinks) + len(self.pending)

    async def _read(self) -> None:
        redis = self.spectate.redis
        channel = self.spectate.frames_channel(self.table_id)

        def ready() -> None:
            self.subscribed.set()
            self._asked.set()  # (again after a reconnection: frames may have been lost)

        async for _, text in redis.subscribe(channel, ready=ready):
            try:
                msg = orjson.loads(text)
            except orjson.JSONDecodeError:
                log.warning("event=remote_frame_bad table=%s", self.table_id)
                continue
            self.deliver(msg)

    def deliver(self, msg: dict[str, Any]) -> None:
        """One message of the table's stream to this process's watchers: a snapshot to
        those waiting for one (and to the live watchers too when it is newer than what they
        have), a frame newer than what the live watchers have to them."""
        self.frames += 1
        seq = int(msg.get("seq", 0))
        if msg.get("type") == "snapshot":
            if seq > self.seq and self.sinks:  # the live view fell behind (the table moved,
                self._fan(msg, list(self.sinks.values()))  # or a failover reopened it)
            if not self.pending:
                self.seq = max(self.seq, seq)
                return
            if self.sinks and seq < self.seq:
                return  # older than the live view: wait for the next one
            waiting, self.pending = self.pending, {}
            self._fan(msg, waiting.values())
            self.sinks.update(waiting)
            self.seq = max(self.seq, seq)
            self._snapshot.set()
            return
        if seq <= self.seq:
            return  # the snapshot (or an earlier frame) holds it already
        self.seq = seq
        self._fan(msg, list(self.sinks.values()))
        if msg.get("type") == "table_closed":
            self.spectate.forget(self.table_id)

    def _fan(self, msg: dict[str, Any], sinks: Any) -> None:
        frames: dict[int, str | bytes] = {}
        for sink in list(sinks):
            frame = frames.get(id(sink.codec))
            if frame is None:
                frame = frames[id(sink.codec)] = sink.codec.encode(msg, check=False)
            try:
                sink.send(frame)
            except Exception as exc:
                log.warning("event=sink_failed table=%s conn=%s error=%r", self.table_id,
                            sink.conn_id, exc)
                self.remove(sink.conn_id)

    async def _ask(self) -> None:
        await self.subscribed.wait()
        while True:
            await self._asked.wait()
            self._asked.clear()
            if not self.pending:
                continue
            self._snapshot.clear()
            try:
                await self.spectate.redis.publish(self.spectate.ask_channel, self.table_id)
            except (RedisUnavailable, RedisScriptError) as exc:
                log.warning("event=remote_ask_failed table=%s error=%r", self.table_id, exc)
            with contextlib.suppress(TimeoutError):  # (asyncio.timeout: a cancel is never lost)
                async with asyncio.timeout(ASK_RETRY):
                    await self._snapshot.wait()
            if self.pending:
                self._asked.set()


class Spectate:
    """Both sides of cross-process spectating for one process (see the module docstring).

    ``redis()``: the directory's connection (once it started); ``registry``: this process's
    tables (the owner's side answers asks for them)."""

    def __init__(self, redis: Callable[[], Redis | None], *, registry: TableRegistry,
                 prefix: str = "dir") -> None:
        self._redis = redis
        self.registry = registry
        self.prefix = prefix
        self.ask_channel = f"{prefix}:{{room}}:ask"
        self.remote: dict[str, RemoteTable] = {}  # tables watched here, owned elsewhere
        self.published = 0  # frames and snapshots published (tests)
        self.listening = asyncio.Event()  # the ask channel is subscribed
        self._wanted: set[str] = set()
        self._gen: dict[str, int] = {}
        self._out: asyncio.Queue[tuple[str, int, str]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._closing: set[asyncio.Task[None]] = set()

    @property
    def redis(self) -> Redis:
        redis = self._redis()
        assert redis is not None, "Spectate used before the directory started"
        return redis

    def frames_channel(self, table_id: str) -> str:
        return f"{self.prefix}:table:{{{table_id}}}:frames"

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._publish(), name="spectate:publish"),
                       loop.create_task(self._listen(), name="spectate:asks")]
        await asyncio.wait_for(self.listening.wait(), 10.0)

    async def close(self) -> None:
        for remote in list(self.remote.values()):
            await remote.close()
        self.remote.clear()
        await cancel_all([*self._tasks, *self._closing])
        self._tasks = []

    # ------------------------------------------------------------------ the owner (Relay)
    def wanted(self, table_id: str) -> bool:
        return table_id in self._wanted

    def asked(self, table_id: str) -> None:
        self._gen[table_id] = self._gen.get(table_id, 0) + 1
        self._wanted.add(table_id)

    def send(self, table_id: str, msg: dict[str, Any]) -> None:
        try:
            text = orjson.dumps(msg).decode("utf-8")
        except TypeError:
            log.exception("event=relay_encode_failed table=%s", table_id)
            return
        self._out.put_nowait((table_id, self._gen.get(table_id, 0), text))

    async def _publish(self) -> None:
        while True:
            table_id, gen, text = await self._out.get()
            try:
                got = await self.redis.publish(self.frames_channel(table_id), text)
            except (RedisUnavailable, RedisScriptError) as exc:
                log.warning("event=relay_publish_failed table=%s error=%r", table_id, exc)
                continue
            finally:
                self._out.task_done()
            self.published += 1
            if got == 0 and self._gen.get(table_id) == gen:
                self._wanted.discard(table_id)  # nobody listens: quiet until the next ask

    async def flushed(self, timeout: float = 10.0) -> None:
        """Wait until everything handed to :meth:`send` so far is published (tests)."""
        await asyncio.wait_for(self._out.join(), timeout)

    async def _listen(self) -> None:
        async for _, table_id in self.redis.subscribe(self.ask_channel,
                                                      ready=self.listening.set):
            actor = self.registry.get(table_id)
            if actor is not None:
                actor.call(actor.fanout.relay_snapshot)

    # ------------------------------------------------------------------ the receiving side
    def watch(self, table_id: str, sink: Sink) -> RemoteTable:
        """``sink`` watches ``table_id`` (owned elsewhere) from here: its snapshot, then the
        table's public frames."""
        remote = self.remote.get(table_id)
        if remote is None:
            remote = self.remote[table_id] = RemoteTable(self, table_id)
            remote.start()
        remote.add(sink)
        return remote

    def unwatch(self, table_id: str, conn_id: int) -> bool:
        """False when that connection was not watching ``table_id`` here."""
        remote = self.remote.get(table_id)
        if remote is None or not remote.remove(conn_id):
            return False
        if remote.watchers == 0:
            self.forget(table_id)
        return True

    def detach(self, sink: Sink) -> None:
        """The connection closed: it watches no remote table any more."""
        for table_id in list(self.remote):
            self.unwatch(table_id, sink.conn_id)

    def forget(self, table_id: str) -> None:
        """Drop the remote table (no watcher left, or it closed): unsubscribe."""
        remote = self.remote.pop(table_id, None)
        if remote is None:
            return
        task = asyncio.get_running_loop().create_task(remote.close(),
                                                      name=f"remote-close:{table_id}")
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)
