"""Spectators across processes (issue 17): watch any table of the room from any process.

Rule of this module: a table's owner publishes each PUBLIC frame once, whatever the number
of remote spectators and processes; every other process fans it out to its own watchers.
All of it goes through pub/sub, the channels subscribed by the process's one subscriptions
part (:mod:`server.cluster.bus`: this part registers handlers, it never subscribes itself):

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

Remote spectators chat and count (issue 23). A remote spectator's ``chat`` (the router spent
the connection's and the account's chat tokens here) is forwarded on the ask channel as JSON
(``{"op": "chat", "table", "node", "id", "player", "name", "text"}``); the owner checks it
and publishes it as a local spectator's chat (the table's own limit, its settings, its mutes:
:meth:`~server.table.viewers.ViewerDesk.remote_chat`) and answers on the asker's
``<p>:{room}:said:<node>`` channel (``{"id", "answer"}``); no answer within
:data:`CHAT_TIMEOUT`: ``server_busy``. A relayed chat carries its sender's id (``_from``,
removed before the fan-out), so each process skips its own muters of the sender; a remote
spectator's ``mute`` names a player who chatted in that stream and is kept here (mutes are
per process). Each process tells the owners how many watchers its remote tables have
(``{"op": "watchers", "table", "node", "count"}``): at once when a count changes, and every
half lease for all of them (so a table that moved, or reopened after a failover, learns them
again); an owner adds the counts heard within a lease to the lobby entry's ``spectators``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.frames import deliver
from protocol.requests import Chat, Mute
from server.cluster.ports import Bus
from server.cluster.tasks import cancel_all
from server.redisio import Redis, RedisScriptError, RedisUnavailable
from server.table.api import Sink
from server.table.registry import TableRegistry

PUBLISH_BATCH = 64  # frames published in one round trip at most
_PUBLISH_MANY = """
local counts = {}
for i = 1, #ARGV, 2 do
  counts[#counts + 1] = redis.call('PUBLISH', ARGV[i], ARGV[i + 1])
end
return counts
"""

if TYPE_CHECKING:
    from server.table.actor import TableActor

__all__ = ["ASK_RETRY", "CHAT_TIMEOUT", "CHATTERS", "RemoteTable", "Spectate"]

log = logging.getLogger("server.cluster")

ASK_RETRY = 2.0
"""Seconds a new remote watcher waits for its snapshot before the ask is sent again."""

CHAT_TIMEOUT = 5.0
"""Seconds a remote spectator's ``chat`` waits for the owner's answer (then ``server_busy``)."""

CHATTERS = 256
"""Senders of a remote table's recent chats kept for its watchers' ``mute``."""


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
        self.chatters: dict[tuple[str, Any], str] = {}  # ("seat", n) / ("name", s) -> player
        self.subscribed = asyncio.Event()
        self._asked = asyncio.Event()  # a new watcher came: ask (again)
        self._snapshot = asyncio.Event()  # a snapshot arrived
        self._tasks: list[asyncio.Task[None]] = []
        self._channel = spectate.frames_channel(table_id)

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.spectate.bus.on(self._channel, self._heard, ready=self._ready)
        self._tasks = [loop.create_task(self._ask(), name=f"remote-ask:{self.table_id}")]

    async def close(self) -> None:
        self.spectate.bus.off(self._channel, self._heard)
        await cancel_all(self._tasks)
        self._tasks = []

    def add(self, sink: Sink) -> None:
        self.sinks.pop(sink.conn_id, None)
        self.pending[sink.conn_id] = sink
        self._asked.set()
        self.spectate.counted(self.table_id)

    def remove(self, conn_id: int) -> bool:
        gone = (self.sinks.pop(conn_id, None) or self.pending.pop(conn_id, None)) is not None
        if gone:
            self.spectate.counted(self.table_id)
        return gone

    def watches(self, conn_id: int) -> bool:
        return conn_id in self.sinks or conn_id in self.pending

    @property
    def watchers(self) -> int:
        return len(self.sinks) + len(self.pending)

    def _ready(self) -> None:
        self.subscribed.set()
        self._asked.set()  # (again after a reconnection: frames may have been lost)

    def _heard(self, _channel: str, text: str) -> None:
        try:
            msg = orjson.loads(text)
        except orjson.JSONDecodeError:
            log.warning("event=remote_frame_bad table=%s", self.table_id)
            return
        self.deliver(msg)

    def deliver(self, msg: dict[str, Any]) -> None:
        """One message of the table's stream to this process's watchers: a snapshot to
        those waiting for one (and to the live watchers too when it is newer than what they
        have), a frame newer than what the live watchers have to them."""
        self.frames += 1
        sender = msg.pop("_from", None)
        skip: frozenset[str] = frozenset()
        if isinstance(sender, str):  # a chat: this process's muters of its sender skip it
            skip = self.spectate.registry.mutes.muters_of(sender)
            seat = msg.get("seat")
            key = ("seat", seat) if seat is not None else ("name", msg.get("name"))
            self.chatters.pop(key, None)
            self.chatters[key] = sender
            while len(self.chatters) > CHATTERS:
                del self.chatters[next(iter(self.chatters))]
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
        self._fan(msg, [s for s in self.sinks.values() if s.player_id not in skip])
        if msg.get("type") == "table_closed":
            self.spectate.forget(self.table_id)

    def _fan(self, msg: dict[str, Any], sinks: Any) -> None:
        def failed(sink: Any, exc: Exception) -> None:
            log.warning("event=sink_failed table=%s conn=%s error=%r", self.table_id,
                        sink.conn_id, exc)
            self.remove(sink.conn_id)

        deliver(msg, list(sinks), check=False, failed=failed)

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

    ``redis()``: the directory's connection (once it started); ``bus``: the process's
    subscriptions; ``registry``: this process's tables (the owner's side answers asks for
    them)."""

    def __init__(self, redis: Callable[[], Redis | None], bus: Bus, *,
                 registry: TableRegistry, prefix: str = "dir", node: str = "-",
                 lease: float = 10.0) -> None:
        self._redis = redis
        self.bus = bus
        self.registry = registry
        self.prefix = prefix
        self.node = node
        self.lease = lease
        self.ask_channel = f"{prefix}:{{room}}:ask"
        self.said_channel = self.said(node)  # the owners' answers to this process's chats
        self._chat_ids = itertools.count(1)
        self._chats: dict[str, tuple[Sink, Any, asyncio.TimerHandle]] = {}  # id -> asker
        self._counted: set[str] = set()  # remote tables whose watcher count changed
        self._count_wake = asyncio.Event()
        self._count_busy = False
        self._count_idle = asyncio.Event()  # a round of count publishes ended
        self._heard: dict[str, dict[str, tuple[int, float]]] = {}  # table -> node -> count
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

    def said(self, node: str) -> str:
        """The channel of the owners' answers to ``node``'s forwarded chats."""
        return f"{self.prefix}:{{room}}:said:{node}"

    def start(self) -> None:
        """Listen to the ask and said channels (the subscriptions subscribe them once they
        start), publish and count."""
        loop = asyncio.get_running_loop()
        self.bus.on(self.ask_channel, self._message, ready=self.listening.set)
        self.bus.on(self.said_channel, self._message)
        self._tasks = [loop.create_task(self._publish(), name="spectate:publish"),
                       loop.create_task(self._count(), name="spectate:count")]

    async def close(self) -> None:
        self.bus.off(self.ask_channel, self._message)
        self.bus.off(self.said_channel, self._message)
        for remote in list(self.remote.values()):
            await remote.close()
        self.remote.clear()
        for _, _, timer in self._chats.values():
            timer.cancel()
        self._chats.clear()
        await cancel_all([*self._tasks, *self._closing])
        self._tasks = []

    # ------------------------------------------------------------------ the owner (Relay)
    def wanted(self, table_id: str) -> bool:
        return table_id in self._wanted

    def asked(self, table_id: str) -> None:
        self._gen[table_id] = self._gen.get(table_id, 0) + 1
        self._wanted.add(table_id)

    def send(self, table_id: str, msg: dict[str, Any], sender: str | None = None) -> None:
        try:
            text = orjson.dumps(msg if sender is None else {**msg, "_from": sender}).decode()
        except TypeError:
            log.exception("event=relay_encode_failed table=%s", table_id)
            return
        self._out.put_nowait((table_id, self._gen.get(table_id, 0), text))

    async def _publish(self) -> None:
        """Publish what :meth:`send` queued, in order: everything waiting in the queue goes
        in one round trip (one script of up to ``PUBLISH_BATCH`` ``PUBLISH`` es, issue 26:
        not one awaited ``PUBLISH`` after another), and a table whose frames reached nobody
        goes quiet until the next ask."""
        out = self._out
        publish_many = self.redis.script(_PUBLISH_MANY)
        while True:
            batch = [await out.get()]
            while len(batch) < PUBLISH_BATCH and not out.empty():
                batch.append(out.get_nowait())
            try:
                args: list[str] = []
                for table_id, _gen, text in batch:
                    args += (self.frames_channel(table_id), text)
                counts = await publish_many(args=args)
            except (RedisUnavailable, RedisScriptError) as exc:
                log.warning("event=relay_publish_failed tables=%s error=%r",
                            sorted({b[0] for b in batch}), exc)
                continue
            finally:
                for _ in batch:
                    out.task_done()
            self.published += len(batch)
            for (table_id, gen, _text), got in zip(batch, counts, strict=True):
                if int(got) == 0 and self._gen.get(table_id) == gen:
                    self._wanted.discard(table_id)  # nobody listens: quiet until next ask

    async def flushed(self, timeout: float = 10.0) -> None:
        """Wait until everything handed to :meth:`send` so far is published (tests)."""
        await asyncio.wait_for(self._out.join(), timeout)

    def _message(self, channel: str, text: str) -> None:
        if channel == self.said_channel:
            self._answered(text)
        elif text.startswith("{"):
            self._request(text)
        else:
            actor = self.registry.get(text)
            if actor is not None:
                actor.call(actor.fanout.relay_snapshot)

    def _request(self, text: str) -> None:
        """A chat or a watcher count from another process, for a table of this one (any
        other process ignores it)."""
        try:
            req = orjson.loads(text)
            op, table_id, node = str(req["op"]), str(req["table"]), str(req["node"])
        except (orjson.JSONDecodeError, KeyError, TypeError):
            log.warning("event=spectate_request_bad text=%r", text[:200])
            return
        actor = self.registry.get(table_id)
        if actor is None or actor.stopped:
            return
        if op == "chat":
            actor.call(functools.partial(self._chat, actor, req))
        elif op == "watchers":
            heard = self._heard.setdefault(table_id, {})
            heard[node] = (int(req["count"]), asyncio.get_running_loop().time())
            self._tally(table_id, actor)

    def _chat(self, actor: TableActor, req: dict[str, Any]) -> None:
        """In the table's task: the forwarded chat, checked and published; the answer back."""
        answer = actor.viewers.remote_chat(str(req["player"]), str(req["name"]),
                                           str(req["text"]))
        reply = orjson.dumps({"id": req.get("id"), "answer": answer}).decode()
        self._spawn(self.redis.publish(self.said(str(req["node"])), reply), "spectate:said")

    def _spawn(self, coro: Any, name: str) -> None:
        task = asyncio.get_running_loop().create_task(self._quietly(coro), name=name)
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    @staticmethod
    async def _quietly(coro: Any) -> None:
        try:
            await coro
        except (RedisUnavailable, RedisScriptError) as exc:  # (the asker's timeout answers)
            log.warning("event=spectate_publish_failed error=%r", exc)

    def _tally(self, table_id: str, actor: TableActor | None = None) -> None:
        """The table's remote spectators: the counts heard within a lease."""
        actor = actor or self.registry.get(table_id)
        heard = self._heard.get(table_id, {})
        oldest = asyncio.get_running_loop().time() - self.lease
        for node in [n for n, (_, when) in heard.items() if when < oldest]:
            del heard[node]
        if not heard:
            self._heard.pop(table_id, None)
        total = sum(n for n, _ in heard.values())
        if actor is not None and actor.remote_spectators != total:
            actor.call(functools.partial(setattr, actor, "remote_spectators", total))

    # ------------------------------------------------------------------ remote viewers' asks
    def viewer_request(self, sink: Sink, request: Chat | Mute) -> bool:
        """A ``chat`` or ``mute`` from a connection watching ``request.table`` here (owned
        elsewhere): handled (True), or not watching it here (False: answered as any request
        for another process's table)."""
        remote = self.remote.get(request.table)
        if remote is None or not remote.watches(sink.conn_id):
            return False
        if isinstance(request, Chat):
            self._forward(sink, request)
        else:
            self._mute(remote, sink, request)
        return True

    def _forward(self, sink: Sink, request: Chat) -> None:
        key = f"{self.node}:{next(self._chat_ids)}"
        timer = asyncio.get_running_loop().call_later(CHAT_TIMEOUT, self._expire, key)
        self._chats[key] = (sink, request.rid, timer)
        text = orjson.dumps({"op": "chat", "table": request.table, "node": self.node,
                             "id": key, "player": sink.player_id,
                             "name": sink.name or sink.player_id, "text": request.text})
        self._spawn(self.redis.publish(self.ask_channel, text.decode()), "spectate:chat")

    def _answered(self, text: str) -> None:
        try:
            reply = orjson.loads(text)
            key, answer = str(reply["id"]), dict(reply["answer"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            log.warning("event=spectate_answer_bad text=%r", text[:200])
            return
        asked = self._chats.pop(key, None)
        if asked is None:
            return  # (answered already: it timed out)
        sink, rid, timer = asked
        timer.cancel()
        self._answer(sink, {**answer, "rid": rid})

    def _expire(self, key: str) -> None:
        asked = self._chats.pop(key, None)
        if asked is not None:
            self._answer(asked[0], m.error(asked[1], "server_busy",
                                           "the table's server did not answer; try again"))

    def _answer(self, sink: Sink, msg: dict[str, Any]) -> None:
        try:
            sink.send(sink.codec.encode(msg))
        except Exception as exc:
            log.warning("event=sink_failed conn=%s error=%r", sink.conn_id, exc)

    def _mute(self, remote: RemoteTable, sink: Sink, request: Mute) -> None:
        """``mute`` of a player seen chatting in the remote table's stream, kept here (a
        process's mutes are its own; the fan-out above skips them)."""
        seat = request.seat
        target = remote.chatters.get(("seat", seat) if seat is not None else
                                     ("name", request.name))
        if target is None:
            code = "bad_seat" if seat is not None else "bad_field"
            return self._answer(sink, m.error(request.rid, code,
                                              "nobody of that name is at this table"
                                              if seat is None else
                                              "nobody there has chatted at this table"))
        if sink.player_id is None:
            return self._answer(sink, m.error(request.rid, "unauthorized"))
        try:
            muted = self.registry.mutes.set(sink.player_id, target, request.on)
        except ProtocolError as exc:
            return self._answer(sink, m.error(request.rid, exc.code, exc.message))
        self._answer(sink, m.ok(request.rid, muted=muted))

    # ------------------------------------------------------------------ watcher counts
    def counted(self, table_id: str) -> None:
        """A remote table's watchers changed: tell its owner soon (non-blocking)."""
        self._counted.add(table_id)
        self._count_wake.set()

    async def _count(self) -> None:
        """Publish the watcher counts that changed, and every half lease all of them (the
        owners forget a count not heard for a lease); expire the counts heard here."""
        loop = asyncio.get_running_loop()
        period = self.lease / 2
        next_all = loop.time() + period
        while True:
            with contextlib.suppress(TimeoutError):  # (asyncio.timeout: a cancel is kept)
                async with asyncio.timeout(max(0.0, next_all - loop.time())):
                    await self._count_wake.wait()
            self._count_wake.clear()
            self._count_busy = True
            tables, self._counted = self._counted, set()
            if loop.time() >= next_all:
                next_all = loop.time() + period
                tables |= set(self.remote)
                for table_id in list(self._heard):
                    self._tally(table_id)
            for table_id in tables:
                remote = self.remote.get(table_id)
                text = orjson.dumps({"op": "watchers", "table": table_id, "node": self.node,
                                     "count": 0 if remote is None else remote.watchers})
                try:
                    await self.redis.publish(self.ask_channel, text.decode())
                except (RedisUnavailable, RedisScriptError) as exc:
                    log.warning("event=spectate_count_failed table=%s error=%r", table_id, exc)
            self._count_busy = False
            self._count_idle.set()

    async def counts_sent(self, timeout: float = 10.0) -> None:
        """Wait until every watcher count changed so far is published (tests)."""
        async with asyncio.timeout(timeout):
            while self._counted or self._count_busy:
                self._count_idle.clear()
                await self._count_idle.wait()

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
