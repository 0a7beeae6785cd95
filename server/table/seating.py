"""Seats: sit (buy-in, rebuy, seat change), leave, the waiting list, sit out / sit in, a
seat's connection (bound on each request, detached on close) and its reconnect grace.

A seat's connection dropping is announced at once (``presence`` ``online: false``, and the
snapshot's ``disconnected``), its coming back too (``online: true``); the seat is sat out
only when ``Config.reconnect_grace`` runs out.

Rule of this module: :class:`SeatDesk` handles those requests for the table actor, in its
task, and reaches the table only through its :class:`~server.table.ports.SeatPort` (the
actor asks the host, the dealer or the game when a seat's change concerns them); it changes
seats only through the table's :class:`~server.table.seatmap.SeatMap`, moves chips only
through the wallet (buy-in, cash-out) and announces each change with one event.

Decisions documented here:

* **Blinds owed on return.** A player who comes back from sitting out (``sit_in``) at a blinds
  table waits for the big blind: they are dealt in only on the hand where they would post the
  last blind, unless the hand could not start without them. A newly seated player plays at
  once.
* **Seat change (GEN-04).** The protocol has no seat-change message: a ``sit`` by a seated
  player at another seat is a change request (moved at once when that seat is free and no hand
  involves them, otherwise queued; ``ok`` with ``queued: true``). When a seat frees, queued
  changers asking for it come first, then the waiting list (filled by ``table_full`` refusals).
* **Rebuy (GEN-06).** A ``sit`` by a seated player at their own seat adds ``buy_in`` chips
  (the total stays within the table's maximum); during a hand they are in, it is applied when
  the hand ends.
* **Disconnection.** A seated player's sink detached: everyone is told at once
  (``presence``); the seat stays, the clock runs, and their turn times out at the action
  clock (their time bank is spent only at a table with ``bank_when_disconnected``); after
  ``Config.reconnect_grace`` without a new connection the player is sat out (keeps the
  seat). Any later request from the same player id rebinds (``presence`` online again).
* **Leaving mid-hand.** A ``leave`` during a hand the player is in folds their hand at once
  if they have a decision now, else at their next turn, with no clock and no ``turn``
  (:meth:`~server.table.dealer.Dealer.fold_leaver`); they are cashed out when it ends.
* **Rebuy event.** A rebuy applied between hands is announced as ``seated`` with the new stack.
"""

from __future__ import annotations

from protocol import messages as m
from protocol.requests import Leave, Sit
from server.ledger.accounts import guest_tag, is_bot_id
from server.table.api import Envelope, Sink
from server.table.fanout import draft
from server.table.ports import SeatPort
from server.table.seatmap import SeatRequest, SeatState, Waiter
from server.table.wake import WakeKind

__all__ = ["SeatDesk"]


class SeatDesk:
    """Seat requests of one table (see the module docstring)."""

    def __init__(self, port: SeatPort) -> None:
        self.port = port

    # ================================================================ requests
    def bind(self, sink: Sink) -> None:
        """A request from a seated player's (new) connection makes it their connection."""
        t = self.port
        for w in t.seats.waiting:  # a waiter who came back from a moved table's old process
            if w.player_id == sink.player_id and getattr(w.sink, "detached", False):
                w.sink = sink
        seat = t.seats.seat_of(sink.player_id)
        if seat is None:
            return
        st = t.seats[seat]
        assert st is not None
        if st.sink is not sink:
            back = st.sink is None
            st.sink = sink
            st.grace_token += 1
            if back:  # everyone sees them online again (this connection: by its resume or
                t.fanout.publish(draft(m.presence, seat=seat, online=True))  # snapshot)
            t.sinks[sink.conn_id] = sink

    async def sit(self, env: Envelope) -> None:
        t = self.port
        req = env.request
        assert isinstance(req, Sit)
        pid, rid = env.sink.player_id, req.rid
        refusal = self._refusal(env, req)
        if refusal is not None:
            return t.fanout.answer(env, m.error(rid, refusal))
        assert pid is not None
        mine = t.seats.seat_of(pid)
        if mine is not None:
            return await self._sit_again(env, mine, req)
        limits = f"buy-in must be {t.spec.min_buy_in}..{t.spec.max_buy_in}"
        in_limits = t.spec.min_buy_in <= req.buy_in <= t.spec.max_buy_in
        if t.seats[req.seat] is not None:
            if not t.seats.is_full() or t.needs_approval(pid):
                return t.fanout.answer(env, m.error(rid, "seat_taken"))
            if not in_limits:  # refused at once, never changed later (a waiter buys in
                return t.fanout.answer(env, m.error(rid, "bad_buy_in", limits))  # its ask)
            t.seats.wait(Waiter(pid, env.sink.name or pid, req.buy_in, env.sink))
            return t.fanout.answer(env, m.error(
                rid, "table_full", "The table is full; you are on the waiting list."))
        if not in_limits:
            return t.fanout.answer(env, m.error(rid, "bad_buy_in", limits))
        if t.needs_approval(pid):  # a home game: the host says yes or no
            return t.request_seat(env, req)
        if not await t.wallet.buy_in(pid, t.table_id, req.buy_in,
                                     reason=f"buy_in {t.table_id}"):
            return t.fanout.answer(env, m.error(rid, "insufficient_funds"))
        t.seats.stop_waiting(pid)
        self.seat_player(req.seat, pid, env.sink.name or pid, req.buy_in, env.sink)
        t.fanout.answer(env, m.ok(rid, seat=req.seat))
        t.fanout.send_snapshot(env.sink)

    def _refusal(self, env: Envelope, req: Sit) -> str | None:
        """What refuses this ``sit`` before any seat is looked at (an error code)."""
        t = self.port
        pid = env.sink.player_id
        if pid is None:
            return "unauthorized"
        if t.closing:
            return "table_closed"
        if t.is_removed(pid):
            return "removed"
        if not 0 <= req.seat < t.spec.seats:
            return "bad_seat"
        return None

    async def seat_requested(self, asked: SeatRequest) -> str | None:
        """The host approved ``asked``: seat them (their buy-in taken now) and send them
        the snapshot; else the error code that stopped it."""
        t = self.port
        if t.closing:
            return "table_closed"
        sink = next((s for s in t.sinks.values() if s.player_id == asked.player_id), None)
        if sink is None:  # the asker is gone (every connection closed)
            return "no_request"
        if t.frozen(asked.player_id):
            return "account_frozen"
        if t.seats.seat_of(asked.player_id) is not None:
            return "already_seated"
        if t.seats[asked.seat] is not None:
            return "seat_taken"
        if not t.spec.min_buy_in <= asked.buy_in <= t.spec.max_buy_in:
            return "bad_buy_in"  # the host changed the limits meanwhile
        if not await t.wallet.buy_in(asked.player_id, t.table_id, asked.buy_in,
                                     reason=f"buy_in {t.table_id}"):
            return "insufficient_funds"
        self.seat_player(asked.seat, asked.player_id, asked.name, asked.buy_in, sink)
        t.fanout.send_snapshot(sink)
        return None

    async def take_off(self, seat: int) -> bool:
        """The host removes the player at ``seat``: at once between hands, else at the end
        of the hand they are in (True); chips back to their balance either way."""
        t = self.port
        st = t.seats[seat]
        assert st is not None
        t.seats.drop_change(st.player_id)
        if t.dealt_in(seat):
            st.leaving = True
            await t.fold_leaver(seat)  # the table stops asking them
            return True
        await self.remove(seat)
        await self.fill_seats()
        return False

    async def _sit_again(self, env: Envelope, mine: int, req: Sit) -> None:
        t = self.port
        st = t.seats[mine]
        assert st is not None
        rid = req.rid
        if req.seat == mine:  # rebuy (GEN-06)
            if not t.spec.rebuys:
                return t.fanout.answer(env, m.error(rid, "rebuys_off"))
            if st.stack + st.topup + req.buy_in > t.spec.max_buy_in:
                return t.fanout.answer(env, m.error(rid, "bad_buy_in",
                                                 f"at most {t.spec.max_buy_in} at the table"))
            if not await t.wallet.buy_in(st.player_id, t.table_id, req.buy_in,
                                            reason=f"rebuy {t.table_id}"):
                return t.fanout.answer(env, m.error(rid, "insufficient_funds"))
            if t.dealt_in(mine):
                st.topup += req.buy_in
                t.fanout.answer(env, m.ok(rid, seat=mine, pending=True))
                # everyone sees the chips waiting for the hand's end ("+1,000 next hand")
                t.fanout.publish(draft(m.seated, seat=mine, name=st.name, stack=st.stack,
                                       guest=guest_tag(st.player_id),
                                       bot=is_bot_id(st.player_id), topup=st.topup))
                return None
            st.stack += req.buy_in
            t.fanout.answer(env, m.ok(rid, seat=mine))
            t.fanout.publish(draft(m.seated, seat=mine, name=st.name, stack=st.stack,
                                         guest=guest_tag(st.player_id),
                                         bot=is_bot_id(st.player_id)))
            return None
        # seat change request (GEN-04)
        t.seats.drop_change(st.player_id)
        if t.seats[req.seat] is None and not (t.dealt_in(mine)):
            self.move(mine, req.seat)
            return t.fanout.answer(env, m.ok(rid, seat=req.seat))
        t.seats.ask_change(st.player_id, req.seat)
        return t.fanout.answer(env, m.ok(rid, seat=mine, queued=True))

    async def leave(self, env: Envelope) -> None:
        t = self.port
        req = env.request
        assert isinstance(req, Leave)
        seat = t.seats.seat_of(env.sink.player_id)
        if seat is None:
            if t.seats.stop_waiting(env.sink.player_id):
                return t.fanout.answer(env, m.ok(req.rid))
            return t.fanout.answer(env, m.error(req.rid, "not_seated"))
        st = t.seats[seat]
        assert st is not None
        t.seats.drop_change(st.player_id)
        if t.dealt_in(seat):
            # folded at once if they have a decision now, else at their next turn (no
            # clock, no `turn` to them); the chips come back when the hand ends
            st.leaving = True
            t.fanout.answer(env, m.ok(req.rid, pending=True))
            return await t.fold_leaver(seat)
        t.fanout.answer(env, m.ok(req.rid))
        await self.remove(seat)
        await self.fill_seats()

    async def sit_out(self, env: Envelope) -> None:
        t = self.port
        seat = t.seats.seat_of(env.sink.player_id)
        if seat is None:
            return t.fanout.answer(env, m.error(env.request.rid, "not_seated"))
        t.fanout.answer(env, m.ok(env.request.rid))
        self.set_sitting_out(seat, True)

    async def sit_in(self, env: Envelope) -> None:
        t = self.port
        seat = t.seats.seat_of(env.sink.player_id)
        if seat is None:
            return t.fanout.answer(env, m.error(env.request.rid, "not_seated"))
        st = t.seats[seat]
        assert st is not None
        post = getattr(env.request, "post_bb", False)
        if post and not (t.spec.post_to_enter or t.spec.private):  # GEN-05: the table's rule
            return t.fanout.answer(env, m.error(env.request.rid, "post_bb_off"))
        t.fanout.answer(env, m.ok(env.request.rid))
        st.timeouts = 0
        st.post_bb = post and st.wait_for_bb  # GEN-05: the player's choice, post or wait
        self.set_sitting_out(seat, False)

    def set_sitting_out(self, seat: int, value: bool) -> None:
        t = self.port
        st = t.seats[seat]
        assert st is not None
        if st.sitting_out == value:
            return
        st.sitting_out = value  # (GEN-05: one whom the big blind passed meanwhile waits for it)
        if value:
            t.fanout.publish(draft(m.sat_out, seat=seat))
        else:  # back: waiting for the big blind unless they post one (GEN-05)
            t.fanout.publish(draft(m.sat_in, seat=seat,
                                   wait_for_bb=st.wait_for_bb and not st.post_bb))

    def note_timeout(self, seat: int) -> None:
        """The seat's player timed out: after ``consecutive_timeouts_to_sit_out`` in a row
        they are sat out."""
        t = self.port
        st = t.seats[seat]
        if st is not None:
            st.timeouts += 1
            if st.timeouts >= t.config.consecutive_timeouts_to_sit_out:
                self.set_sitting_out(seat, True)

    # ================================================================ seats
    def seat_player(self, seat: int, pid: str, name: str, stack: int, sink: Sink) -> None:
        t = self.port
        st = SeatState(pid, name, stack, t.config.time_bank, sink=sink)
        t.seats.place(seat, st)
        t.game_seated(st)  # GEN-05: a late entrant may wait for the big blind
        if getattr(sink, "detached", False):  # a waiter not back yet (a moved table's):
            st.sink = None  # seated disconnected, their reconnection grace running
            t.turns.schedule(WakeKind.GRACE, t.config.reconnect_grace, seat,
                             token=st.grace_token)
        else:
            t.sinks[sink.conn_id] = sink
        t.fanout.publish(draft(m.seated, seat=seat, name=name, stack=stack,
                               guest=guest_tag(pid), bot=is_bot_id(pid),
                               wait_for_bb=st.wait_for_bb and not st.post_bb))
        if st.sink is None:
            t.fanout.publish(draft(m.presence, seat=seat, online=False))
        t.seats_changed()  # a home game's waiting requests update themselves

    def announce_stack(self, seat: int) -> None:
        """Chips added between hands (GEN-06's top-up, a tournament's rebuy), announced."""
        st = self.port.seats[seat]
        assert st is not None
        self.port.fanout.publish(draft(m.seated, seat=seat, name=st.name, stack=st.stack,
                                       guest=guest_tag(st.player_id),
                                       bot=is_bot_id(st.player_id)))

    def move(self, old: int, new: int) -> None:
        t = self.port
        st = t.seats.move(old, new)
        t.fanout.publish(draft(m.left, seat=old, name=st.name))
        t.fanout.publish(draft(m.seated, seat=new, name=st.name, stack=st.stack,
                                     guest=guest_tag(st.player_id), bot=is_bot_id(st.player_id)))

    async def remove(self, seat: int) -> None:
        t = self.port
        st = t.seats.vacate(seat)
        amount = st.stack + st.topup
        st.stack = st.topup = 0
        await t.wallet.cash_out(st.player_id, t.table_id, amount,
                                   reason=f"cash_out {t.table_id}")
        removed = "removed" if t.is_removed(st.player_id) else None
        t.fanout.publish(draft(m.left, seat=seat, name=st.name, reason=removed))
        t.seats_changed()

    async def fill_seats(self) -> None:
        """GEN-04: a free seat goes first to a seated player who asked for it, then to the
        waiting list (in order; a waiter who can no longer pay is dropped). A waiter buys in
        exactly what they asked for, checked against the table's limits when they joined the
        list (never silently changed)."""
        t = self.port
        moved = True
        while moved:
            moved = False
            for pid, want in list(t.seats.changes):
                cur = t.seats.seat_of(pid)
                if cur is None:
                    t.seats.changes.remove((pid, want))
                    continue
                if t.seats[want] is None and not (t.dealt_in(cur)):
                    t.seats.changes.remove((pid, want))
                    self.move(cur, want)
                    moved = True
        while t.seats.waiting and None in t.seats:
            w = t.seats.waiting.pop(0)
            if t.seats.seat_of(w.player_id) is not None or t.frozen(w.player_id):
                continue
            buy = w.buy_in
            if not t.spec.min_buy_in <= buy <= t.spec.max_buy_in:
                continue
            if not await t.wallet.buy_in(w.player_id, t.table_id, buy,
                                            reason=f"buy_in {t.table_id}"):
                continue
            free = t.seats.index(None)
            self.seat_player(free, w.player_id, w.name, buy, w.sink)
            t.fanout.send_snapshot(w.sink)

    def detach(self, sink: Sink) -> None:
        t = self.port
        t.sinks.pop(sink.conn_id, None)
        t.seats.forget_sink(sink)
        for seat, st in enumerate(t.seats):
            if st is not None and st.sink is sink:
                st.sink = None
                st.grace_token += 1
                t.turns.schedule(WakeKind.GRACE, t.config.reconnect_grace, seat,
                                 token=st.grace_token)
                # everyone sees it at once (not only when the grace ends)
                t.fanout.publish(draft(m.presence, seat=seat, online=False))

    def grace_over(self, seat: int, token: int) -> None:
        """A disconnected seat's grace ran out: still without a connection, it sits out."""
        t = self.port
        st = t.seats[seat] if 0 <= seat < len(t.seats) else None
        if st is not None and st.sink is None and st.grace_token == token:
            self.set_sitting_out(seat, True)

