"""Seats and lobby requests: sit (buy-in, rebuy, seat change), leave, the waiting list,
sit out / sit in, chat, show hands, watch / unwatch / resume, a connection's detach, and the
``snapshot`` a viewer gets on joining.

The decisions these follow (blinds owed on return, GEN-04 seat change, GEN-06 rebuy,
disconnection) are documented in :mod:`server.table.actor`.
"""

from __future__ import annotations

from typing import Any

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.requests import Chat, Leave, Mute, Resume, ShowHands, Sit
from server.ledger.accounts import guest_tag
from server.rules.pots import build_pots
from server.table.api import Envelope, Sink
from server.table.projection import Draft, Msg
from server.table.state import SeatState, TableState, _builder, _Waiter


class SeatingMixin(TableState):
    """Seat and lobby behaviour of :class:`~server.table.actor.TableActor`."""

    # ================================================================ requests
    def _bind(self, sink: Sink) -> None:
        """A request from a seated player's (new) connection makes it their connection."""
        seat = self._seat_of(sink.player_id)
        if seat is None:
            return
        st = self.seats[seat]
        assert st is not None
        if st.sink is not sink:
            st.sink = sink
            st.grace_token += 1
            self.sinks[sink.conn_id] = sink

    async def _watch(self, env: Envelope) -> None:
        self.sinks[env.sink.conn_id] = env.sink
        self.fanout.answer(env, m.ok(env.request.rid))
        self.fanout.send_snapshot(env.sink)

    async def _unwatch(self, env: Envelope) -> None:
        if self.sinks.pop(env.sink.conn_id, None) is None:
            self.fanout.answer(env, m.error(env.request.rid, "not_watching"))
            return
        self.fanout.answer(env, m.ok(env.request.rid))

    async def _sit(self, env: Envelope) -> None:
        req = env.request
        assert isinstance(req, Sit)
        pid, rid = env.sink.player_id, req.rid
        if pid is None:
            return self.fanout.answer(env, m.error(rid, "unauthorized"))
        if self.closing:
            return self.fanout.answer(env, m.error(rid, "table_closed"))
        if not 0 <= req.seat < self.spec.seats:
            return self.fanout.answer(env, m.error(rid, "bad_seat"))
        mine = self._seat_of(pid)
        if mine is not None:
            return await self._sit_again(env, mine, req)
        if self.seats[req.seat] is not None:
            if all(s is not None for s in self.seats):
                if not self.spec.min_buy_in <= req.buy_in <= self.spec.max_buy_in:
                    # refused at once, never changed later (a waiter buys in what they asked)
                    return self.fanout.answer(env, m.error(
                        rid, "bad_buy_in",
                        f"buy-in must be {self.spec.min_buy_in}..{self.spec.max_buy_in}"))
                if all(w.player_id != pid for w in self.waiting):
                    self.waiting.append(_Waiter(pid, env.sink.name or pid, req.buy_in, env.sink))
                return self.fanout.answer(env, m.error(rid, "table_full",
                                                 "The table is full; you are on the waiting "
                                                 "list."))
            return self.fanout.answer(env, m.error(rid, "seat_taken"))
        if not self.spec.min_buy_in <= req.buy_in <= self.spec.max_buy_in:
            return self.fanout.answer(env, m.error(
                rid, "bad_buy_in",
                f"buy-in must be {self.spec.min_buy_in}..{self.spec.max_buy_in}"))
        if not await self.wallet.buy_in(pid, self.table_id, req.buy_in,
                                        reason=f"buy_in {self.table_id}"):
            return self.fanout.answer(env, m.error(rid, "insufficient_funds"))
        self.waiting = [w for w in self.waiting if w.player_id != pid]
        self._seat_player(req.seat, pid, env.sink.name or pid, req.buy_in, env.sink)
        self.fanout.answer(env, m.ok(rid, seat=req.seat))
        self.fanout.send_snapshot(env.sink)

    async def _sit_again(self, env: Envelope, mine: int, req: Sit) -> None:
        st = self.seats[mine]
        assert st is not None
        rid = req.rid
        if req.seat == mine:  # rebuy (GEN-06)
            if st.stack + st.topup + req.buy_in > self.spec.max_buy_in:
                return self.fanout.answer(env, m.error(rid, "bad_buy_in",
                                                 f"at most {self.spec.max_buy_in} at the table"))
            if not await self.wallet.buy_in(st.player_id, self.table_id, req.buy_in,
                                            reason=f"rebuy {self.table_id}"):
                return self.fanout.answer(env, m.error(rid, "insufficient_funds"))
            if self.in_hand and mine in self.start_stacks:
                st.topup += req.buy_in
                return self.fanout.answer(env, m.ok(rid, seat=mine, pending=True))
            st.stack += req.buy_in
            self.fanout.answer(env, m.ok(rid, seat=mine))
            self.fanout.publish(Draft(_builder(m.seated, seat=mine, name=st.name, stack=st.stack,
                                         guest=guest_tag(st.player_id))))
            return None
        # seat change request (GEN-04)
        self.changes = [c for c in self.changes if c[0] != st.player_id]
        if self.seats[req.seat] is None and not (self.in_hand and mine in self.start_stacks):
            self._move(mine, req.seat)
            return self.fanout.answer(env, m.ok(rid, seat=req.seat))
        self.changes.append((st.player_id, req.seat))
        return self.fanout.answer(env, m.ok(rid, seat=mine, queued=True))

    async def _leave(self, env: Envelope) -> None:
        req = env.request
        assert isinstance(req, Leave)
        seat = self._seat_of(env.sink.player_id)
        if seat is None:
            pid = env.sink.player_id
            before = len(self.waiting)
            self.waiting = [w for w in self.waiting if w.player_id != pid]
            if len(self.waiting) != before:
                return self.fanout.answer(env, m.ok(req.rid))
            return self.fanout.answer(env, m.error(req.rid, "not_seated"))
        st = self.seats[seat]
        assert st is not None
        self.changes = [c for c in self.changes if c[0] != st.player_id]
        if self.in_hand and seat in self.start_stacks:
            st.leaving = True
            return self.fanout.answer(env, m.ok(req.rid, pending=True))
        self.fanout.answer(env, m.ok(req.rid))
        await self._remove(seat)
        await self._fill_seats()

    async def _sit_out(self, env: Envelope) -> None:
        seat = self._seat_of(env.sink.player_id)
        if seat is None:
            return self.fanout.answer(env, m.error(env.request.rid, "not_seated"))
        self.fanout.answer(env, m.ok(env.request.rid))
        self._set_sitting_out(seat, True)

    async def _sit_in(self, env: Envelope) -> None:
        seat = self._seat_of(env.sink.player_id)
        if seat is None:
            return self.fanout.answer(env, m.error(env.request.rid, "not_seated"))
        st = self.seats[seat]
        assert st is not None
        self.fanout.answer(env, m.ok(env.request.rid))
        st.timeouts = 0
        self._set_sitting_out(seat, False)

    def _set_sitting_out(self, seat: int, value: bool) -> None:
        st = self.seats[seat]
        assert st is not None
        if st.sitting_out == value:
            return
        st.sitting_out = value  # (GEN-05: one whom the big blind passed meanwhile waits for it)
        builder = m.sat_out if value else m.sat_in
        self.fanout.publish(Draft(_builder(builder, seat=seat)))

    async def _chat(self, env: Envelope) -> None:
        req = env.request
        assert isinstance(req, Chat)
        if env.sink.player_id is None:
            return self.fanout.answer(env, m.error(req.rid, "unauthorized"))
        seat = self._seat_of(env.sink.player_id)
        if not self.spec.chat or (seat is None and not self.spec.spectator_chat):
            return self.fanout.answer(env, m.error(req.rid, "chat_disabled"))
        if not self.chat_bucket.take():  # the table's own limit (everyone's chat together)
            return self.fanout.answer(env, m.error(req.rid, "chat_limited"))
        self.fanout.answer(env, m.ok(req.rid))
        # players who muted the sender do not get it (the fan-out skips their sinks)
        skip = self.mutes.muters_of(env.sink.player_id) if self.mutes is not None else None
        if seat is not None:
            self.fanout.publish(Draft(_builder(m.chat, text=req.text, seat=seat)), skip=skip)
        else:
            self.fanout.publish(Draft(_builder(m.chat, text=req.text,
                                         guest=guest_tag(env.sink.player_id or ""),
                                         name=env.sink.name or env.sink.player_id)), skip=skip)

    async def _mute(self, env: Envelope) -> None:
        """``mute``: the player at ``seat`` (or the viewer who chats as ``name``) is muted
        (``on``) or unmuted for the sender, on every table and connection (the registry's
        :class:`~server.table.lobby.Mutes`)."""
        req = env.request
        assert isinstance(req, Mute)
        pid = env.sink.player_id
        if pid is None:
            return self.fanout.answer(env, m.error(req.rid, "unauthorized"))
        target: str | None = None
        if req.seat is not None:
            st = self.seats[req.seat] if 0 <= req.seat < self.spec.seats else None
            if st is None:
                return self.fanout.answer(env, m.error(req.rid, "bad_seat", "nobody sits there"))
            target = st.player_id
        else:
            for sink in self.sinks.values():
                if sink.player_id is not None and (sink.name or sink.player_id) == req.name:
                    target = sink.player_id
                    break
            if target is None:
                return self.fanout.answer(env, m.error(req.rid, "bad_field",
                                                 "nobody of that name is at this table"))
        if self.mutes is None:
            return self.fanout.answer(env, m.error(req.rid, "unsupported"))
        try:
            muted = self.mutes.set(pid, target, req.on)
        except ProtocolError as exc:
            return self.fanout.answer(env, m.error(req.rid, exc.code, exc.message))
        self.fanout.answer(env, m.ok(req.rid, muted=muted))

    async def _show_hands(self, env: Envelope) -> None:
        """SHOW-02: a seated player asks to see the hands given up unseen in the last hand's
        showdown; each is revealed to the table as a ``showdown`` marked with that hand's id,
        only until the next hand starts (then ``next_hand_started``). A request naming another
        hand is refused: ``hand_in_progress`` for the hand being played, else
        ``unknown_hand``."""
        req = env.request
        assert isinstance(req, ShowHands)
        if self._seat_of(env.sink.player_id) is None:
            return self.fanout.answer(env, m.error(req.rid, "not_seated"))
        hand, last = self.last_hand, self.last_hand_id
        asked = str(req.hand)
        if hand is None or last is None or asked != last or not hand.is_over:
            if self.in_hand and asked == self.hand_id:
                return self.fanout.answer(env, m.error(req.rid, "hand_in_progress"))
            return self.fanout.answer(env, m.error(
                req.rid, "unknown_hand",
                f"only the last hand's cards can be shown ({last})" if last else None))
        if self.hand_id != last:  # a later hand has started (even if it was voided since)
            return self.fanout.answer(env, m.error(req.rid, "next_hand_started"))
        self.fanout.answer(env, m.ok(req.rid))
        for event in hand.reveal_mucked(req.seats):
            self.fanout.publish(Draft(_builder(m.showdown, seat=event.seat, cards=list(event.cards),
                                         hand=last, value=event.hand)))

    async def _resume(self, env: Envelope) -> None:
        req = env.request
        assert isinstance(req, Resume)
        sink = env.sink
        self.sinks[sink.conn_id] = sink
        self.fanout.answer(env, m.ok(req.rid))
        self.fanout.replay(sink, req.since)

    # ================================================================ seats
    def _seat_player(self, seat: int, pid: str, name: str, stack: int, sink: Sink) -> None:
        self.seats[seat] = st = SeatState(pid, name, stack, self.config.time_bank, sink=sink)
        if self.blinds.positions is not None and self.spec.uses_blinds:  # GEN-05: a late entrant
            st.wait_for_bb = True
            st.post_bb = self.spec.post_to_enter
        self.sinks[sink.conn_id] = sink
        self.fanout.publish(Draft(_builder(m.seated, seat=seat, name=name, stack=stack,
                                     guest=guest_tag(pid))))

    def _move(self, old: int, new: int) -> None:
        st = self.seats[old]
        assert st is not None and self.seats[new] is None
        self.seats[old] = None
        self.seats[new] = st
        self.fanout.publish(Draft(_builder(m.left, seat=old, name=st.name)))
        self.fanout.publish(Draft(_builder(m.seated, seat=new, name=st.name, stack=st.stack,
                                     guest=guest_tag(st.player_id))))

    async def _remove(self, seat: int) -> None:
        st = self.seats[seat]
        assert st is not None
        self.seats[seat] = None
        amount = st.stack + st.topup
        st.stack = st.topup = 0
        await self.wallet.cash_out(st.player_id, self.table_id, amount,
                                   reason=f"cash_out {self.table_id}")
        self.fanout.publish(Draft(_builder(m.left, seat=seat, name=st.name)))

    async def _fill_seats(self) -> None:
        """GEN-04: a free seat goes first to a seated player who asked for it, then to the
        waiting list (in order; a waiter who can no longer pay is dropped). A waiter buys in
        exactly what they asked for, checked against the table's limits when they joined the
        list (never silently changed)."""
        moved = True
        while moved:
            moved = False
            for pid, want in list(self.changes):
                cur = self._seat_of(pid)
                if cur is None:
                    self.changes.remove((pid, want))
                    continue
                if self.seats[want] is None and not (self.in_hand and cur in self.start_stacks):
                    self.changes.remove((pid, want))
                    self._move(cur, want)
                    moved = True
        while self.waiting and None in self.seats:
            w = self.waiting.pop(0)
            if self._seat_of(w.player_id) is not None:
                continue
            buy = w.buy_in
            if not self.spec.min_buy_in <= buy <= self.spec.max_buy_in:
                continue
            if not await self.wallet.buy_in(w.player_id, self.table_id, buy,
                                            reason=f"buy_in {self.table_id}"):
                continue
            free = self.seats.index(None)
            self._seat_player(free, w.player_id, w.name, buy, w.sink)
            self.fanout.send_snapshot(w.sink)

    def _detach(self, sink: Sink) -> None:
        self.sinks.pop(sink.conn_id, None)
        self.waiting = [w for w in self.waiting if w.sink is not sink]
        for seat, st in enumerate(self.seats):
            if st is not None and st.sink is sink:
                st.sink = None
                st.grace_token += 1
                self._schedule("grace", self.config.reconnect_grace, st.grace_token, seat)

    # ================================================================ snapshot
    def snapshot_for(self, player_id: str | None) -> Msg:
        """The ``snapshot`` as ``player_id`` (None: a spectator) may see it."""
        me = self._seat_of(player_id)
        proj = self.projector
        seats: list[dict[str, Any] | None] = []
        for i, st in enumerate(self.seats):
            if st is None:
                seats.append(None)
                continue
            entry: dict[str, Any] = {"seat": i, "name": st.name, "stack": st.stack, "bet": 0,
                                     "state": "sitting_out" if st.sitting_out else "waiting",
                                     "cards": [], "up": []}
            tag = guest_tag(st.player_id)
            if tag is not None:  # a guest account: marked, and told apart by its tag
                entry["guest"], entry["tag"] = True, tag
            if self.in_hand and i in self.start_stacks and proj is not None:
                stack = self._live_stack(i)
                entry["stack"] = stack
                state = "active"
                if self.hand is not None:
                    entry["bet"] = self.hand.bets.get(i, 0)
                    if i in self.hand.folded:
                        state = "folded"
                    elif stack == 0:
                        state = "all_in"
                hole = proj.hole(i) if self.hand_owner.get(i) == player_id else None
                count = len(proj.down.get(i, ()))
                entry["cards"] = hole if hole is not None else [None] * count
                entry["up"] = list(proj.up.get(i, []))
                entry["state"] = state
            seats.append(entry)
        turn: Msg | None = None
        if self.hand is not None and self.turn_seat is not None:
            turn = {"seat": self.turn_seat, "deadline": self.turn_wall}
            if me == self.turn_seat:
                opts = self.hand.options(self.turn_seat)
                if opts is not None:
                    turn["options"] = opts.to_wire()
        elif self.round is not None and me is not None:
            ropts = self.round.options(me)
            if ropts is not None:
                turn = {"seat": me, "deadline": self.turn_wall, "options": ropts.to_wire()}
        board = list(self.hand.board) if self.hand is not None else []
        pots: list[Msg] = []
        if self.hand is not None:  # the rounds before this one: its bets are the seats' ``bet``
            bets = self.hand.bets
            before = {s: c - bets.get(s, 0) for s, c in self.hand.contrib.items()}
            pots = [{"amount": p.amount, "eligible": p.eligible}
                    for p in build_pots(before, self.hand.live)]
        return m.snapshot(self.table_id, self.seq, variant=self.spec.variant_name,
                          structure=self.spec.structure, stakes=self.spec.stakes_wire,
                          seats=seats, board=board, pots=pots, button=self.button, turn=turn,
                          hand=self.hand_id if self.in_hand else None, name=self.spec.name,
                          settings=self.spec.settings_wire, you=me)
