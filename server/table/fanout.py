"""Fan-out: how a table's events, answers and snapshots reach its connections.

Rule of this module: a table never awaits a socket. :meth:`FanoutMixin._publish` gives an
event its ``seq``, logs it for ``resume``, projects it once per audience (public, and each
player's private form), encodes each form once per codec and hands the same frame object to
every sink of that audience (``Sink.send`` never blocks). A sink that raises is detached and
the others go on. With a spectator delay, spectators get public frames (and their snapshot)
``spectator_delay`` seconds late, so the delayed view stays consistent.
"""

from __future__ import annotations

from server.table.api import Envelope, Sink
from server.table.projection import Draft, Msg
from server.table.state import TableState, _LogEntry, log

__all__ = ["FanoutMixin"]


class FanoutMixin(TableState):
    """Fan-out behaviour of :class:`~server.table.actor.TableActor`."""

    def _answer(self, env: Envelope, msg: Msg) -> None:
        try:
            frame = env.sink.codec.encode(msg)
        except Exception:
            log.exception("event=encode_failed table=%s", self.table_id)
            return
        self._send(env.sink, frame)

    def _send(self, sink: Sink, frame: str | bytes) -> None:
        try:
            sink.send(frame)
        except Exception as exc:
            self._sink_failed(sink, exc)

    def _sink_failed(self, sink: Sink, exc: Exception) -> None:
        log.warning("event=sink_failed table=%s conn=%s error=%r", self.table_id,
                    sink.conn_id, exc)
        self.sinks.pop(sink.conn_id, None)  # no more frames to it, at once
        self.detach(sink)  # and forget it as a seat's connection, in the actor task

    def _publish(self, draft: Draft, skip: frozenset[str] | None = None) -> None:
        """Give ``draft`` the next ``seq``, log it, project once per audience and send.
        ``skip``: players whose sinks do not get it (a chat's sender's muters; still encoded
        once per audience, the others' frames are the same objects)."""
        self.seq += 1
        public, private = draft.render(self.table_id, self.seq)
        self.events.append(_LogEntry(self.seq, public, private, skip or None))
        delay = self.spec.spectator_delay
        seated = {s.player_id for s in self.seats if s is not None} if delay > 0 else ()
        # public frames by codec; private frames by (player, codec) (a player's private form
        # is theirs alone: encoded once per codec of their own connections)
        frames: dict[int, str | bytes] = {}
        own_frames: dict[tuple[str, int], str | bytes] = {}
        delayed = False
        for sink in list(self.sinks.values()):
            pid = sink.player_id
            if skip and pid in skip:
                continue
            codec = sink.codec
            if pid is not None and pid in private:
                okey = (pid, id(codec))
                frame = own_frames.get(okey)
                if frame is None:
                    frame = own_frames[okey] = codec.encode(private[pid], check=False)
            else:
                if delay > 0 and pid not in seated:
                    delayed = True
                    continue
                if public is None:
                    continue
                frame = frames.get(id(codec))
                if frame is None:
                    frame = frames[id(codec)] = codec.encode(public, check=False)
            try:  # (`_send`, inline: once per sink per event)
                sink.send(frame)
            except Exception as exc:
                self._sink_failed(sink, exc)
        if delayed and public is not None:
            self.clock.call_later(delay, lambda: self._send_delayed(public, skip))

    def _send_delayed(self, msg: Msg, skip: frozenset[str] | None = None) -> None:
        seated = {s.player_id for s in self.seats if s is not None}
        frames: dict[int, str | bytes] = {}
        for sink in list(self.sinks.values()):
            if sink.player_id in seated or sink.conn_id in self.snapshot_pending:
                continue  # (a pending watcher's delayed snapshot already holds this event)
            if skip and sink.player_id in skip:
                continue
            frame = frames.get(id(sink.codec))
            if frame is None:
                frame = frames[id(sink.codec)] = sink.codec.encode(msg, check=False)
            self._send(sink, frame)

    def _send_snapshot(self, sink: Sink) -> None:
        """The viewer's snapshot. A spectator of a delayed table gets the public snapshot of
        now, ``spectator_delay`` seconds late, and from then on the delayed events after it:
        a consistent view, as it was ``spectator_delay`` seconds ago."""
        delay = self.spec.spectator_delay
        seated = {s.player_id for s in self.seats if s is not None}
        if delay <= 0 or sink.player_id in seated:
            self._send(sink, sink.codec.encode(self.snapshot_for(sink.player_id)))
            return
        snap = self.snapshot_for(None)
        self.snapshot_pending.add(sink.conn_id)

        def deliver() -> None:
            self.snapshot_pending.discard(sink.conn_id)
            if self.sinks.get(sink.conn_id) is sink:
                self._send(sink, sink.codec.encode(snap))

        self.clock.call_later(delay, deliver)
