"""Clocks and timeouts: the action clock of a turn, the time bank after it, wakeups from the
table's :class:`~server.table.api.Clock` (stale ones are dropped by token), reconnect grace
and consecutive timeouts.

Timers only enqueue a wakeup; :meth:`TurnClockMixin._wake` handles it in the actor's task.
"""

from __future__ import annotations

from typing import Any

from server.rules import events as ev
from server.table.api import Timer
from server.table.projection import Draft
from server.table.state import TableState, _Wake


class TurnClockMixin(TableState):
    """Clock behaviour of :class:`~server.table.actor.TableActor`."""

    def _next_token(self) -> int:
        self._token += 1
        return self._token

    def _schedule(self, kind: str, delay: float, token: int, arg: Any = None) -> Timer:
        timer = self.clock.call_later(delay, lambda: self.inbox.put_nowait(_Wake(kind, token,
                                                                                 arg)))
        if kind != "grace":
            self._timers.append(timer)
        return timer

    def _cancel_timers(self) -> None:
        for t in self._timers:
            t.cancel()
        self._timers.clear()
        self._token += 1
        self.in_bank = False

    def _start_turn(self, seat: int) -> None:
        self._cancel_timers()
        self.turn_seat = seat
        self.turn_deadline = self.clock.now() + self.config.action_clock
        self.turn_wall = self.clock.wall() + self.config.action_clock
        self._schedule("turn", self.config.action_clock, self._token, seat)

    def _turn_drafts(self, e: ev.TurnStarted, *, in_bank: bool = False) -> list[Draft]:
        """The ``turn`` announcement: options to the player, the deadline and bank to all."""
        assert self.hand is not None and self.projector is not None
        opts = self.hand.options(e.seat)
        st = self.seats[e.seat]
        return self.projector.project(
            e, deadline=self.turn_wall, options=opts.to_wire() if opts else {},
            time_bank=round(st.bank, 3) if st is not None else None, in_bank=in_bank)

    async def _wake(self, w: _Wake) -> None:
        if w.kind == "next_hand":
            await self._start_hand()
            return
        if w.kind == "grace":
            st = self.seats[w.arg] if 0 <= w.arg < len(self.seats) else None
            if st is not None and st.sink is None and st.grace_token == w.token:
                self._set_sitting_out(w.arg, True)
            return
        if w.token != self._token:
            return  # stale
        if w.kind == "turn" and self.hand is not None:
            st = self.seats[w.arg]
            if st is not None and st.bank > 0 and not self.in_bank:
                self.in_bank = True
                self._schedule("bank", st.bank, self._token, w.arg)
                # announce the bank: the same turn, its deadline moved to the bank's end
                self.turn_wall = self.clock.wall() + st.bank
                for d in self._turn_drafts(ev.TurnStarted(w.arg, self.hand.street),
                                           in_bank=True):
                    self.fanout.publish(d)
                return
            await self._timeout(w.arg)
        elif w.kind == "bank" and self.hand is not None:
            st = self.seats[w.arg]
            if st is not None:
                st.bank = 0.0
            await self._timeout(w.arg)
        elif w.kind in ("ante_deadline", "decide_deadline") and self.round is not None:
            for s in self.round.deciding():
                self._note_timeout(s)
            await self._apply(self.round.expire())

    def _note_timeout(self, seat: int) -> None:
        st = self.seats[seat]
        if st is not None:
            st.timeouts += 1
            if st.timeouts >= self.config.consecutive_timeouts_to_sit_out:
                self._set_sitting_out(seat, True)

    async def _timeout(self, seat: int) -> None:
        assert self.hand is not None
        self._cancel_timers()
        self._note_timeout(seat)
        await self._apply(list(self.hand.timeout(seat)))
