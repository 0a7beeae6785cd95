"""Fan-out: how a table's events, answers and snapshots reach its connections.

Rule of this module: a table never awaits a socket. :meth:`Fanout.publish` gives an event its
``seq``, logs it for ``resume``, projects it once per audience (public, and each player's
private form), encodes each form once per codec and hands the same frame object to every sink
of that audience (``Sink.send`` never blocks). A sink that raises is dropped at once and
reported to the actor (``on_sink_failed``), and the others go on. With a spectator delay,
spectators get public frames (and their snapshot) ``spectator_delay`` seconds late, so the
delayed view stays consistent; those timers run their work through the actor's inbox
(``run_in_actor``) and are cancelled by :meth:`Fanout.close`.

In a cluster, a :class:`Relay` (``Fanout.relay``, set by the registry) carries the public
stream to other processes' spectators: while ``relay.wanted(table)`` each public frame is
handed to ``relay.send`` once (``spectator_delay`` seconds late at a delayed table: the
relayed stream is the already-delayed public one), and :meth:`Fanout.relay_snapshot` hands it
the public snapshot (delayed alike), so the receiver's view starts consistent. A chat goes
with its sender's player id (``sender``), for the other processes to skip their own muters.

:class:`Fanout` owns its state (``seq``, the event log, the sinks, the pending delayed
snapshots and timers) and is the table's outbox: the actor builds it and hands it to the
desks through their ports, so every call into it (the actor's, a desk's, a move's hand-off)
runs in the actor's own task, one inbox item at a time (its spectator-delay timers too:
they go through ``run_in_actor``). The encoding itself is
:mod:`protocol.frames`'s, the one "encode once per codec, send to many".
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol.frames import EncodedOnce, deliver
from server.table.api import Clock, Envelope, Sink, Timer
from server.table.projection import Draft, Msg

__all__ = ["EVENT_LOG_SIZE", "Fanout", "LogEntry", "Relay", "builder", "draft"]

log = logging.getLogger("server.table")

EVENT_LOG_SIZE = 1024
"""Table events kept for ``resume``; older ones are answered with a fresh snapshot."""


def builder(fn: Callable[..., Msg], **fields: Any) -> Callable[[str, int], Msg]:
    """A message builder waiting for its table and ``seq`` (``fn`` from
    :mod:`protocol.messages`)."""
    def build(table: str, seq: int) -> Msg:
        return fn(table, seq, **fields)
    return build


def draft(fn: Callable[..., Msg], **fields: Any) -> Draft:
    """A table event every viewer sees alike."""
    return Draft(builder(fn, **fields))


class Relay(Protocol):
    """Where a table's public stream goes beyond this process (``server.cluster``).

    ``wanted(table)``: is some other process watching it now (asked at each event, so it must
    be cheap); ``send(table, msg, sender)``: one public frame or snapshot, in the table's
    order (never blocks: the relay queues it; ``sender``: a chat's sender, else None);
    ``asked(table)``: a snapshot was handed over (from now on
    the table's frames are wanted)."""

    def wanted(self, table_id: str) -> bool: ...

    def send(self, table_id: str, msg: Msg, sender: str | None = None) -> None: ...

    def asked(self, table_id: str) -> None: ...


@dataclass(slots=True)
class LogEntry:
    seq: int
    public: Msg | None
    private: dict[str, Msg] = field(default_factory=dict)
    skip: frozenset[str] | None = None  # players who do not get it (muted the chat's sender)


class Fanout:
    """One table's connections and event log (see the module docstring).

    ``seated()``: the player ids seated now (asked only with a spectator delay);
    ``snapshot_for(player_id)``: the viewer's ``snapshot``; ``run_in_actor(fn)``: run ``fn``
    in the actor's task (its inbox); ``on_sink_failed(sink)``: a sink raised (forget it as a
    seat's connection too).
    """

    def __init__(self, table_id: str, *, delay: float, clock: Clock,
                 seated: Callable[[], Collection[str]],
                 snapshot_for: Callable[[str | None], Msg],
                 run_in_actor: Callable[[Callable[[], Any]], None],
                 on_sink_failed: Callable[[Sink], None]) -> None:
        self.table_id = table_id
        self.delay = delay
        self.clock = clock
        self.seated = seated
        self.snapshot_for = snapshot_for
        self.run_in_actor = run_in_actor
        self.on_sink_failed = on_sink_failed
        self.seq = 0
        self.events: deque[LogEntry] = deque(maxlen=EVENT_LOG_SIZE)
        self.sinks: dict[int, Sink] = {}
        self.snapshot_pending: set[int] = set()  # delayed spectators whose snapshot is due
        self._timers: set[Timer] = set()  # spectator-delay timers not fired yet
        self.relay: Relay | None = None  # other processes' spectators (cluster mode only)

    # ---------------------------------------------------------------- sending
    def answer(self, env: Envelope, msg: Msg) -> None:
        try:
            frame = env.sink.codec.encode(msg)
        except Exception:
            log.exception("event=encode_failed table=%s", self.table_id)
            return
        self.send(env.sink, frame)

    def send(self, sink: Sink, frame: str | bytes) -> None:
        try:
            sink.send(frame)
        except Exception as exc:
            self._sink_failed(sink, exc)

    def _sink_failed(self, sink: Sink, exc: Exception) -> None:
        log.warning("event=sink_failed table=%s conn=%s error=%r", self.table_id,
                    sink.conn_id, exc)
        self.sinks.pop(sink.conn_id, None)  # no more frames to it, at once
        self.on_sink_failed(sink)  # and forget it as a seat's connection, in the actor task

    def resume_from(self, seq: int) -> None:
        """A moved table goes on from the ``seq`` it had (before its task starts: a client
        resuming with the number it saw gets nothing it already has)."""
        self.seq = seq

    def publish(self, draft: Draft, skip: frozenset[str] | None = None,
                sender: str | None = None) -> None:
        """Give ``draft`` the next ``seq``, log it, project once per audience and send.
        ``skip``: players whose sinks do not get it (a chat's sender's muters; still encoded
        once per audience, the others' frames are the same objects); ``sender``: a chat's
        sender, for the relay (other processes skip their own muters)."""
        self.seq += 1
        public, private = draft.render(self.table_id, self.seq)
        self.events.append(LogEntry(self.seq, public, private, skip or None))
        delay = self.delay
        seated = self.seated() if delay > 0 else ()
        # the public form encoded once per codec; a player's private form likewise, once per
        # codec of their own connections (it is theirs alone)
        everyone = EncodedOnce(public, check=False) if public is not None else None
        made = everyone.frames if everyone is not None else {}  # (a hit costs no call)
        own: dict[str, EncodedOnce] = {}
        delayed = False
        for sink in list(self.sinks.values()):
            pid = sink.player_id
            if skip and pid in skip:
                continue
            if private and pid in private:
                mine = own.get(pid)
                if mine is None:
                    mine = own[pid] = EncodedOnce(private[pid], check=False)
                frame = mine.frame(sink.codec)
            else:
                if delay > 0 and pid not in seated:
                    delayed = True
                    continue
                if everyone is None:
                    continue
                frame = made.get(id(sink.codec)) or everyone.frame(sink.codec)
            try:  # (`send`, inline: once per sink per event)
                sink.send(frame)
            except Exception as exc:
                self._sink_failed(sink, exc)
        if delayed and public is not None:
            self._later(lambda: self._send_delayed(public, skip))
        relay = self.relay
        if relay is not None and public is not None and relay.wanted(self.table_id):
            if delay > 0:
                self._later(lambda: relay.send(self.table_id, public, sender))
            else:
                relay.send(self.table_id, public, sender)

    def relay_snapshot(self) -> None:
        """Another process asked for this table's public stream: hand the relay the public
        snapshot of now (``spectator_delay`` seconds late at a delayed table, like the
        frames), after which it gets every public frame with a higher ``seq``."""
        relay = self.relay
        if relay is None:
            return
        snap = self.snapshot_for(None)
        relay.asked(self.table_id)
        if self.delay > 0:
            self._later(lambda: relay.send(self.table_id, snap))
        else:
            relay.send(self.table_id, snap)

    def _send_delayed(self, msg: Msg, skip: frozenset[str] | None = None) -> None:
        seated = self.seated()
        pending = self.snapshot_pending
        deliver(msg, [s for s in list(self.sinks.values())
                      if s.player_id not in seated and s.conn_id not in pending
                      # (a pending watcher's delayed snapshot already holds this event)
                      and not (skip and s.player_id in skip)],
                check=False, failed=self._sink_failed)

    def send_snapshot(self, sink: Sink) -> None:
        """The viewer's snapshot. A spectator of a delayed table gets the public snapshot of
        now, ``spectator_delay`` seconds late, and from then on the delayed events after it:
        a consistent view, as it was ``spectator_delay`` seconds ago."""
        if self.delay <= 0 or sink.player_id in self.seated():
            self.send(sink, sink.codec.encode(self.snapshot_for(sink.player_id)))
            return
        snap = self.snapshot_for(None)
        self.snapshot_pending.add(sink.conn_id)

        def deliver() -> None:
            self.snapshot_pending.discard(sink.conn_id)
            if self.sinks.get(sink.conn_id) is sink:
                self.send(sink, sink.codec.encode(snap))

        self._later(deliver)

    # ---------------------------------------------------------------- resume
    def replay(self, sink: Sink, since: int) -> None:
        """``resume``: the events after ``since`` as this viewer got them (or, when the log no
        longer reaches back that far, or ``since`` is ahead of this table's, a fresh
        snapshot)."""
        if since == self.seq:
            return
        oldest = self.events[0].seq if self.events else self.seq + 1
        if since + 1 < oldest or since > self.seq:  # (ahead: another history, a failover's)
            self.send_snapshot(sink)
            return
        pid = sink.player_id
        for entry in self.events:
            if entry.seq <= since or (entry.skip and pid in entry.skip):
                continue
            msg = entry.private.get(pid, entry.public) if pid is not None else entry.public
            if msg is not None:
                self.send(sink, sink.codec.encode(msg))

    # ---------------------------------------------------------------- delay timers
    def _later(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` in the actor's task ``delay`` seconds from now (cancelled by close)."""
        holder: list[Timer] = []

        def fire() -> None:
            if holder:
                self._timers.discard(holder[0])
            self.run_in_actor(fn)

        timer = self.clock.call_later(self.delay, fire)
        holder.append(timer)
        self._timers.add(timer)

    def close(self) -> None:
        """The table closed: cancel every spectator-delay timer still to fire."""
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        self.snapshot_pending.clear()
