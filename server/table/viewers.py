"""Viewers of one table: watch, unwatch and resume; chat and mute; SHOW-02's request to see
the last hand's mucked cards.

Rule of this module: :class:`ViewerDesk` handles those requests for the table actor, in its
task, through its :class:`~server.table.ports.ViewerPort`; it never changes a seat or a
stack. A spectator on another process of a cluster chats
through :meth:`ViewerDesk.remote_chat` (``server.cluster.spectate`` forwards it): the same
checks, the table's own limit and mutes as a local spectator's chat.
"""

from __future__ import annotations

from typing import Any

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.requests import Chat, Mute, Resume, ShowHands, Watch
from server.ledger.accounts import guest_tag
from server.table.api import Envelope
from server.table.fanout import draft
from server.table.ports import ViewerPort

__all__ = ["REMOTE_NAMES", "ViewerDesk"]

REMOTE_NAMES = 256
"""Names of other processes' spectators who chatted here, remembered for ``mute`` by name."""


class ViewerDesk:
    """Viewer requests of one table (see the module docstring)."""

    def __init__(self, port: ViewerPort) -> None:
        self.port = port
        self.remote_names: dict[str, str] = {}  # chat name -> player id (remote chatters)

    async def watch(self, env: Envelope) -> None:
        t = self.port
        req = env.request
        assert isinstance(req, Watch)  # admitted (a private table's code: the actor's check)
        t.sinks[env.sink.conn_id] = env.sink
        t.fanout.answer(env, m.ok(env.request.rid))
        t.fanout.send_snapshot(env.sink)

    async def unwatch(self, env: Envelope) -> None:
        t = self.port
        if t.sinks.pop(env.sink.conn_id, None) is None:
            t.fanout.answer(env, m.error(env.request.rid, "not_watching"))
            return
        t.fanout.answer(env, m.ok(env.request.rid))

    async def resume(self, env: Envelope) -> None:
        t = self.port
        req = env.request
        assert isinstance(req, Resume)
        sink = env.sink
        t.sinks[sink.conn_id] = sink
        t.fanout.answer(env, m.ok(req.rid))
        t.fanout.replay(sink, req.since)

    async def chat(self, env: Envelope) -> None:
        t = self.port
        req = env.request
        assert isinstance(req, Chat)
        if env.sink.player_id is None:
            return t.fanout.answer(env, m.error(req.rid, "unauthorized"))
        seat = t.seats.seat_of(env.sink.player_id)
        refused = self._refusal(seat)
        if refused is not None:
            return t.fanout.answer(env, m.error(req.rid, refused))
        t.fanout.answer(env, m.ok(req.rid))
        self._say(env.sink.player_id, env.sink.name or env.sink.player_id, req.text, seat)

    def remote_chat(self, player_id: str, name: str, text: str) -> dict[str, Any]:
        """A ``chat`` of a spectator on another process (forwarded by
        ``server.cluster.spectate``, which spent the connection's and the account's tokens
        there): checked and published as a local one; the answer (``ok`` or ``error``,
        without ``rid``) that process sends on. A private table is never watched from
        elsewhere: ``unknown_table``, as to anyone it does not admit."""
        t = self.port
        if t.private:
            return ProtocolError.unknown_table(t.table_id).to_message()
        seat = t.seats.seat_of(player_id)
        refused = self._refusal(seat)
        if refused is not None:
            return m.error(None, refused)
        if seat is None:  # (``mute`` by name finds them, as it finds a local spectator)
            self.remote_names.pop(name, None)
            self.remote_names[name] = player_id
            while len(self.remote_names) > REMOTE_NAMES:
                del self.remote_names[next(iter(self.remote_names))]
        self._say(player_id, name, text, seat)
        return m.ok(None)

    def _refusal(self, seat: int | None) -> str | None:
        """Why a chat from ``seat`` (None: a spectator) is refused now, if it is: the table's
        settings, then its own limit (everyone's chat together: one token spent)."""
        t = self.port
        if not t.spec.chat or (seat is None and not t.spec.spectator_chat):
            return "chat_disabled"
        if not t.chat_bucket.take():
            return "chat_limited"
        return None

    def _say(self, player_id: str, name: str, text: str, seat: int | None) -> None:
        """Publish the chat. Players who muted the sender do not get it: the fan-out skips
        their sinks, and other processes skip their own muters (``sender``)."""
        t = self.port
        skip = t.mutes.muters_of(player_id) if t.mutes is not None else None
        if seat is not None:
            t.fanout.publish(draft(m.chat, text=text, seat=seat), skip=skip, sender=player_id)
        else:
            t.fanout.publish(draft(m.chat, text=text, guest=guest_tag(player_id), name=name),
                             skip=skip, sender=player_id)

    async def mute(self, env: Envelope) -> None:
        """``mute``: the player at ``seat`` (or the viewer who chats as ``name``) is muted
        (``on``) or unmuted for the sender, on every table and connection (the registry's
        :class:`~server.table.lobby.Mutes`)."""
        t = self.port
        req = env.request
        assert isinstance(req, Mute)
        pid = env.sink.player_id
        if pid is None:
            return t.fanout.answer(env, m.error(req.rid, "unauthorized"))
        target: str | None = None
        if req.seat is not None:
            st = t.seats[req.seat] if 0 <= req.seat < t.spec.seats else None
            if st is None:
                return t.fanout.answer(env, m.error(req.rid, "bad_seat", "nobody sits there"))
            target = st.player_id
        else:
            for sink in t.sinks.values():
                if sink.player_id is not None and (sink.name or sink.player_id) == req.name:
                    target = sink.player_id
                    break
            else:  # a spectator on another process who chatted here
                target = self.remote_names.get(req.name or "")
            if target is None:
                return t.fanout.answer(env, m.error(req.rid, "bad_field",
                                                 "nobody of that name is at this table"))
        if t.mutes is None:
            return t.fanout.answer(env, m.error(req.rid, "unsupported"))
        try:
            muted = t.mutes.set(pid, target, req.on)
        except ProtocolError as exc:
            return t.fanout.answer(env, m.error(req.rid, exc.code, exc.message))
        t.fanout.answer(env, m.ok(req.rid, muted=muted))

    async def show_hands(self, env: Envelope) -> None:
        """SHOW-02: a seated player asks to see the hands given up unseen in the last hand's
        showdown; each is revealed to the table as a ``showdown`` marked with that hand's id,
        only until the next hand starts (then ``next_hand_started``). A request naming another
        hand is refused: ``hand_in_progress`` for the hand being played, else
        ``unknown_hand``."""
        t = self.port
        req = env.request
        assert isinstance(req, ShowHands)
        if t.seats.seat_of(env.sink.player_id) is None:
            return t.fanout.answer(env, m.error(req.rid, "not_seated"))
        shown = t.last_hand()
        hand, last = shown.hand, shown.hand_id
        asked = str(req.hand)
        if hand is None or last is None or asked != last or not hand.is_over:
            if t.in_hand and asked == shown.current:
                return t.fanout.answer(env, m.error(req.rid, "hand_in_progress"))
            return t.fanout.answer(env, m.error(
                req.rid, "unknown_hand",
                f"only the last hand's cards can be shown ({last})" if last else None))
        if shown.current != last:  # a later hand has started (even if it was voided since)
            return t.fanout.answer(env, m.error(req.rid, "next_hand_started"))
        t.fanout.answer(env, m.ok(req.rid))
        for event in hand.reveal_mucked(req.seats):
            t.fanout.publish(draft(m.showdown, seat=event.seat, cards=list(event.cards),
                                   hand=last, value=event.hand, best=list(event.best)))

