"""One table: one asyncio task, the only writer of that table's state.

Rule of this module: every change to a table happens in the actor's own task
(:meth:`TableActor.run`), one inbox item at a time (a request :class:`Envelope`, a clock wakeup, or
an internal call such as a detach). Clock callbacks and :meth:`TableActor.detach` only enqueue;
code outside the table (the cluster's moves and failover, the operator, the registry's supervision)
only sends the actor a message and awaits its answer (:meth:`~TableActor.call`,
:meth:`~TableActor.ask`, :meth:`~TableActor.hold_for_move`, :meth:`~TableActor.hand_end`,
:meth:`~TableActor.shut_down`). The table's lifecycle is one
:class:`~server.table.lifecycle.Lifecycle` (``closing``, ``hold``, ``stopped`` and
``closed_for_good`` are read-only views of its phase). While no task runs the table, and only then,
the registry writes it from outside: it builds it, wires it (:meth:`~TableActor.wire`), restores a
moved table's state (:func:`~server.table.handoff.restore_state`) before :meth:`~TableActor.run`,
and after its task died it recovers it (:meth:`~TableActor.recover`), closes it for good or cashes
it out. ``TableActor.guard_writes()`` checks all this in tests
(``tests/table/test_actor_ownership.py``). Fan-out goes through :mod:`~server.table.fanout`
(project once per audience, encode once per codec; never await a socket).

The decisions a table follows live with the desk that owns them: seats (GEN-04, GEN-06, blinds
owed, leaving) in :mod:`server.table.seating`, clocks in :mod:`server.table.turn_clock`.

The actor composes collaborators that own their state: :class:`~server.table.seatmap.SeatMap` (who
sits where, the waiting list, seat changes), :class:`~server.table.turn_clock.TurnClock`
(deadlines, time bank, wake-ups), :class:`~server.table.fanout.Fanout` (seq, the event log, sinks,
spectator delay), and the desks: :class:`~server.table.seating.SeatDesk`,
:class:`~server.table.viewers.ViewerDesk`, :class:`~server.table.host.HostDesk` and
:class:`~server.table.dealer.Dealer` (the running hand, its record and ledger entries; it calls the
table's :class:`~server.table.games.Game`, what a pot game and a house game do differently, at
fixed points of a hand). Each desk reaches the table only through its port
(:mod:`server.table.ports`), which the actor implements; no desk holds another, and where one
desk's work needs another (a leaver's fold, a host's approval, a timeout counted towards sitting
out) the actor makes the call: it is the only mediator (the import contract ``table-desks-ported``
keeps the desks off this module). This module keeps the inbox loop, dispatch, wake-ups, the ports
and the table's lifecycle (next hand, close, shutdown).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

from protocol import messages as m
from protocol import requests as rq
from protocol.errors import ProtocolError
from server.config import Config
from server.ledger.history import HistoryStore, MemoryHistory
from server.ledger.wallet import Wallet
from server.ratelimit import TokenBucket
from server.rules.engine import Engine
from server.rules.errors import InvariantError
from server.table import tourney
from server.table.api import Clock, Envelope, Sink
from server.table.dealer import Dealer
from server.table.fanout import EVENT_LOG_SIZE, Fanout, Relay, draft
from server.table.games import game_for
from server.table.host import HostDesk
from server.table.inbox import Inbox, WriteGuard
from server.table.jackpot import JackpotService
from server.table.lifecycle import Event, Lifecycle, Phase
from server.table.ports import LastHand, MuteBook
from server.table.practice import has_person
from server.table.projection import Msg
from server.table.recording import HandLog
from server.table.seating import SeatDesk
from server.table.seatmap import SeatMap, SeatRequest, SeatState
from server.table.settings import TableSpec
from server.table.snapshot import snapshot_for
from server.table.turn_clock import TurnClock
from server.table.viewers import ViewerDesk
from server.table.wake import STOP, Call, Wake, WakeKind, in_actor

__all__ = ["EVENT_LOG_SIZE", "SeatState", "TableActor"]

_GUARD = WriteGuard()  # the tests' check that only the actor's task writes an actor

log = logging.getLogger("server.table")


class TableActor:
    """One table (see the module docstring). Built and run by the registry."""

    def __init__(self, table_id: str, spec: TableSpec, *, config: Config, wallet: Wallet,
                 clock: Clock, rng: Callable[[int], bytes],
                 shuffle: Callable[[Sequence[str]], list[str]],
                 jackpot: JackpotService | None = None,
                 on_jackpot: Callable[[Msg], None] | None = None,
                 on_hand_end: Callable[[], None] | None = None,
                 history: HistoryStore | None = None, host: str | None = None) -> None:
        self.table_id = table_id
        self.spec = spec
        self.config = config
        self.wallet = wallet
        self.clock = clock
        self.rng = rng
        self.shuffle = shuffle
        self.jackpot = jackpot
        self.on_jackpot = on_jackpot
        self.on_hand_end = on_hand_end
        self.inbox = Inbox()
        self.seats = SeatMap(spec.seats)
        self.turns = TurnClock(clock, self.inbox.put_nowait)
        self.fanout = Fanout(table_id, delay=spec.spectator_delay, clock=clock,
                             seated=self.seats.players,
                             snapshot_for=lambda pid: snapshot_for(self, pid),
                             run_in_actor=self.call, on_sink_failed=self.detach)
        self.sinks = self.fanout.sinks
        self.recording = HandLog(table_id, clock=clock, rng=rng,
                                 history=history if history is not None else MemoryHistory())
        self.game = game_for(self, spec)  # the dealer's strategy (a pot game or the house's)
        self.dealer: Dealer = Dealer(self, self.recording, spec.decks, self.game)
        self.seat_desk: SeatDesk = SeatDesk(self)
        self.viewers: ViewerDesk = ViewerDesk(self)
        self.host: HostDesk = HostDesk(self, host)  # a private table's host (inert at a public one)
        self._task: asyncio.Task[None] | None = None  # the running actor task (run())
        self.lifecycle = Lifecycle(check=self._check_writer)  # open ... closed (the phases)
        self._hand_waiters: list[asyncio.Future[None]] = []  # resolved after each hand
        self.fault: BaseException | None = None  # tests: raised by the next handled item
        self._current: object = None
        # abuse limits (Config `tables, lobby and chat`; set by the registry)
        self.on_change: Callable[[TableActor], None] | None = None  # lobby entry changed
        self.mutes: MuteBook | None = None  # the process's mutes (chat fan-out skips muters)
        self.frozen: Callable[[str], bool] = lambda player_id: False  # the operator's freeze:
        # no seat from the waiting list or a host's approval either (the router refuses `sit`)
        self.practice = False  # issue 24: a practice table (server.table.practice; registry)
        self.tourney: tourney.TourneyDesk | None = None  # issue 27 (server.table.tourney)
        self._person_seen = self._practice_over = False
        self._lobby_key: object = None
        self.remote_spectators = 0
        """Spectators of this table on other processes of a cluster (their own counts,
        ``server.cluster.spectate``), added to the lobby entry's ``spectators``."""
        self.chat_bucket = TokenBucket(rate=config.chat_rate_per_table,
                                       burst=config.chat_burst_per_table, clock=clock.now)

    # ================================================================ the running hand
    @property
    def engine(self) -> Engine | None:
        """The running hand, whatever its game (:class:`~server.rules.engine.Engine`)."""
        return self.dealer.engine

    @property
    def in_hand(self) -> bool:
        return self.dealer.engine is not None

    @property
    def seq(self) -> int:
        """The last event's ``seq`` (the fan-out's)."""
        return self.fanout.seq

    # ================================================================ the lifecycle (read-only)
    @property
    def phase(self) -> Phase:
        return self.lifecycle.state

    @property
    def closing(self) -> bool:
        """Closing or closed (a shutdown, or for good): no new hand, no new seat."""
        return self.lifecycle.closing

    @property
    def hold(self) -> bool:
        """A live move waits for the hand's end: no new hand starts."""
        return self.lifecycle.holding

    @property
    def stopped(self) -> bool:
        return self.lifecycle.stopped

    @property
    def closed_for_good(self) -> bool:
        """The registry forgets a table closed for good."""
        return self.lifecycle.closed_for_good

    # ================================================================ public API
    async def submit(self, env: Envelope) -> None:
        """``submit_nowait`` as a coroutine (tests, and callers already in one)."""
        self.submit_nowait(env)

    def submit_nowait(self, env: Envelope) -> None:
        """Queue a request; answers ``server_busy``/``table_closed`` at once when refused
        (``unknown_table`` instead to whom a private table would not admit: those answers
        would tell that it exists)."""
        if self.stopped or self.inbox.requests >= self.config.inbox_size:
            code = "table_closed" if self.stopped else "server_busy"
            if not self.host.admits_request(env, remember=False):
                return self._unknown(env)
            self.fanout.answer(env, m.error(env.request.rid, code))
            return
        self.inbox.requests += 1
        self.inbox.put_nowait(env)

    def detach(self, sink: Sink) -> None:
        """The connection closed: forget it (see the module docstring). Non-blocking."""
        self.inbox.put_nowait(Call(lambda: self.seat_desk.detach(sink)))

    def call(self, fn: Callable[[], Any]) -> None:
        """Run ``fn()`` (sync or async) inside the actor task (registry and tests)."""
        self.inbox.put_nowait(Call(fn))

    def inject_fault(self, exc: BaseException) -> None:
        """Tests: the item handled after this message raises ``exc`` (a crash)."""
        self.call(lambda: setattr(self, "fault", exc))

    # ---------------------------------------------------------------- asked from outside
    # (the cluster, the operator, the registry: a message on the inbox, an awaited answer)
    async def ask(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn()`` (sync or async) in the actor's task and return its result (or raise
        its error here; the table goes on)."""
        return await in_actor(self, fn)

    async def hold_for_move(self) -> bool:
        """A live move: start no new hand (a pending one is cancelled) until
        :meth:`release_hold`. False when the table is not open (closing, stopped, or held by
        another move already), or when the caller stopped waiting first: nothing is held."""
        if self.stopped:
            return False
        held: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def hold() -> None:
            if held.done():  # the caller gave up (cancelled): hold nothing
                return
            if self.lifecycle.state is not Phase.OPEN:
                return held.set_result(False)
            self.lifecycle.fire(Event.HOLD)
            self.turns.cancel_next_hand()
            held.set_result(True)
        self.call(hold)
        return await held

    async def release_hold(self) -> None:
        """After :meth:`hold_for_move` held: the move did not happen, play on (nothing
        changes when the table began closing meanwhile)."""
        if not self.stopped:
            await self.ask(lambda: self.lifecycle.fire(Event.RELEASE))

    async def hand_end(self) -> None:
        """Return once the hand running now has ended (at once when none runs)."""
        def waiter() -> asyncio.Future[None] | None:
            if not self.in_hand:
                return None
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._hand_waiters.append(fut)
            return fut
        fut = await self.ask(waiter)
        if fut is not None:
            await fut

    def wire(self, *, on_change: Callable[[TableActor], None], mutes: MuteBook,
             frozen: Callable[[str], bool], relay: Relay | None,
             practice_wallet: Wallet | None = None) -> None:
        """The registry's wiring, once, before :meth:`run` (the only writes from outside,
        while no task runs the table): the lobby's callback, the process's mutes and
        freezes, the cluster's relay; a practice table's play-money wallet (and no
        jackpot)."""
        assert self._task is None, "wired after the table started"
        self.on_change, self.mutes, self.frozen = on_change, mutes, frozen
        self.fanout.relay = relay
        if practice_wallet is not None:
            self.practice, self.wallet, self.jackpot = True, practice_wallet, None

    @classmethod
    def guard_writes(cls, on: bool = True) -> None:
        """Tests: a write of any field of a table actor (or of its lifecycle) outside the
        actor's running task raises ``OwnershipError`` (:class:`~server.table.inbox.WriteGuard`);
        off by default: production pays nothing."""
        _GUARD.turn(cls, on)

    def _check_writer(self) -> None:
        _GUARD.check(self, "lifecycle")

    def summary(self) -> dict[str, Any]:
        """The table's lobby entry."""
        players = self.seats.players()
        spectators = {c for c, s in self.sinks.items() if s.player_id not in players}
        return {
            "table": self.table_id, "name": self.spec.name, "variant": self.spec.variant_name,
            "structure": self.spec.structure, "stakes": dict(self.spec.stakes_wire),
            "seats": self.spec.seats, "players": len(players),
            "spectators": len(spectators) + self.remote_spectators,
            **self.game.lobby_entry(),  # GEN-09/GEN-10: the house's revenue at this table
        }

    async def idle(self) -> None:
        """Wait until every queued item has been handled (tests)."""
        for _ in range(1000):
            await self.inbox.join()
            for _ in range(3):
                await asyncio.sleep(0)
            if self.inbox.empty():
                return

    # ================================================================ the loop
    async def run(self) -> None:
        """The actor task's body: handle items until stopped. Raises on a bug (the registry
        then voids, refunds and restarts)."""
        self._task = asyncio.current_task()  # the one writer of the table from now on
        try:
            await self._loop()
        finally:
            self._task = None

    async def _loop(self) -> None:
        self._kick()
        while True:
            item = await self.inbox.get()
            try:
                if item is STOP:
                    self.lifecycle.fire(Event.HALT)
                    return
                self._current = item
                await self._handle(item)
                self._lobby_check()
                self._current = None
                if not self.stopped:
                    self._kick()
            finally:
                if isinstance(item, Envelope):
                    self.inbox.requests -= 1
                self.inbox.task_done()
            if self.stopped:
                return

    async def _handle(self, item: object) -> None:
        if self.fault is not None:
            fault, self.fault = self.fault, None
            raise fault
        try:
            if isinstance(item, Envelope):
                await self._request(item)
            elif isinstance(item, Wake):
                await self._wake(item)
            elif isinstance(item, Call):
                result = item.fn()
                if hasattr(result, "__await__"):
                    await result
        except InvariantError as exc:  # an engine bug on a clock's path: void, refund, go on
            if not self.in_hand:
                raise
            await self.dealer.invariant_broken(exc)

    def recover(self, exc: BaseException) -> None:
        """After a crash (the task is dead): answer the request in flight with
        ``internal_error``, void the running hand and give every player their stack from
        before it. Synchronous; the registry then restarts the task."""
        log.error("event=actor_crashed table=%s hand=%s error=%r",
                  self.table_id, self.dealer.hand_id, exc)
        current, self._current = self._current, None
        if isinstance(current, Envelope):
            self.fanout.answer(current, m.error(current.request.rid, "internal_error"))
        if self.in_hand:
            self.dealer.void_now(f"actor crashed: {exc!r}")

    # ================================================================ requests and wakes
    async def _request(self, env: Envelope) -> None:
        if not self.host.admits_request(env):  # a private table: the one admission check
            return self._unknown(env)
        self.seat_desk.bind(env.sink)
        if tourney.refused(self, env):  # (a tournament's table: nobody sits down or leaves)
            return
        handler = self._handlers.get(type(env.request))
        if handler is None:
            self.fanout.answer(env, m.error(env.request.rid, "unsupported"))
            return
        await handler(self, env)

    def _unknown(self, env: Envelope) -> None:
        """The answer to a table that does not exist (the router's own, word for word)."""
        self.fanout.answer(env, ProtocolError.unknown_table(
            self.table_id, rid=env.request.rid).to_message())

    async def _wake(self, w: Wake) -> None:
        if w.kind is WakeKind.NEXT_HAND:
            self.turns.next_hand = None
            if not self.lifecycle.holding:  # (a wake queued before a move's hold came)
                await self.dealer.start()
        elif w.kind is WakeKind.GRACE:
            self.seat_desk.grace_over(w.arg, w.token)
        elif self.turns.is_current(w) and self.in_hand:
            await self.dealer.on_wake(w)

    # ================================================================ between hands
    def _kick(self) -> None:
        """Schedule the next hand after the pause when one could start."""
        if (self.in_hand or not self.lifecycle.may_start_hand or self.host.paused
                or self.turns.next_hand is not None or self.tourney is not None):  # (a
            return  # tournament's table: its director deals each hand, tourney.deal)
        if len(self.seats.eligible()) < self.game.min_players:
            return
        if self.practice and not has_person(self, playing=True):  # bots never play alone
            return
        self.turns.schedule_next_hand(self.spec.pause)

    async def after_hand(self) -> None:
        """The hand ended or was voided: top-ups, leavers, the waiting list, a close."""
        voided = bool(self.dealer.voided_marks)
        await self.dealer.ledger_voids()
        self.turns.end_turn()
        self.dealer.clear()
        for seat, st in self.seats.occupied():
            if st.topup:  # GEN-06: chips are added between hands, announced like any rebuy
                st.stack += st.topup
                st.topup = 0
                self.seat_desk.announce_stack(seat)
            if st.leaving:
                await self.seat_desk.remove(seat)
        await self.seat_desk.fill_seats()
        reason = self.lifecycle.reason  # (LAST_HAND: closed for good after this hand)
        if reason is not None:
            await self.close_for_good(reason)
        elif self.closing:
            await self._close()
        tourney.hand_over(self, voided=voided)  # (a tournament's: its director deals next)
        waiters, self._hand_waiters = self._hand_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def hand_dealt(self) -> None:
        tourney.report_dealt(self)  # (a tournament's table: its director hears who is in)

    def use_spec(self, spec: TableSpec) -> None:
        """The table's stakes and settings from now on (a host's change, between hands)."""
        self.spec = spec
        self.game.use_spec(spec)

    # ================================================================ shutdown
    def shut_down(self, *, void: str | None = None) -> None:
        """Registry: stop starting hands and stop once the running hand (if any) ends; with
        ``void`` (after the deadline), void the running hand at once (refunds), cash out,
        stop."""
        self.call(lambda: self._wind_down(void=void))

    async def cash_out_all(self) -> None:
        """After the task is gone (cancelled): void, refund and credit everyone."""
        await self._wind_down(void="shutdown")

    async def _wind_down(self, *, void: str | None) -> None:
        self.lifecycle.fire(Event.DRAIN)
        self.turns.cancel_next_hand()
        if void is not None and self.in_hand:
            self.dealer.void_now(void)
        if not self.in_hand:
            await self._close()

    async def _close(self) -> None:
        await self.dealer.ledger_voids()
        self.turns.cancel()
        for seat, _ in self.seats.occupied():
            await self.seat_desk.remove(seat)
        self.fanout.close()  # no delayed frame after the table stopped (nobody runs them)
        self.lifecycle.fire(Event.FINISH)

    # ================================================================ lobby and idle close
    def _lobby_check(self) -> None:
        """After each handled item: tell the registry when the lobby entry may have changed
        (seats taken or freed, viewers come or gone), so the listing is rebuilt once per
        change and the idle count starts or stops. Cheap: the seats' owners and the number
        of connections."""
        if self.practice and not self.closing and not self._practice_over:
            if has_person(self):  # a practice table closes when its person has left
                self._person_seen = True
            elif self._person_seen:
                self._practice_over = True
                self.call(lambda: self.close_for_good("practice", after_hand=True))
        key = (len(self.sinks), self.seats.owners(), self.remote_spectators,  # and whether a
               self.practice and not self.in_hand and not has_person(self, playing=True))
        if key != self._lobby_key:
            self._lobby_key = key
            if self.on_change is not None:
                self.on_change(self)

    async def close_if_idle(self) -> None:
        """Registry, after ``Config.idle_table_close`` seconds with nobody seated: if still
        nobody is seated and no hand runs, tell the viewers (``table_closed``), answer every
        request still queued ``table_closed`` and stop (the registry then forgets the
        table)."""
        if self.closing or self.stopped or self.in_hand or not self.seats.is_empty() and not (
                self.practice and not has_person(self, playing=True)):  # bots alone: idle
            return
        await self.close_for_good("idle")
        log.info("event=table_idle_closed table=%s", self.table_id)

    async def close_for_good(self, reason: str, *, after_hand: bool = False) -> None:
        """Close the table: void a running hand (refunds), tell the viewers
        (``table_closed``), cash every player out, answer every queued request
        ``table_closed`` and stop. The registry calls it for a table that keeps crashing
        (then from outside the dead task), :meth:`close_if_idle` for an idle one; a host
        with ``after_hand``: the running hand plays to its end first."""
        if after_hand and self.in_hand:
            self.lifecycle.fire(Event.CLOSE_AFTER_HAND, reason=reason)
            self.turns.cancel_next_hand()
            return
        self.lifecycle.fire(Event.CLOSE)
        self.turns.cancel_next_hand()
        if self.in_hand:
            self.dealer.void_now(reason)
        self.fanout.publish(draft(m.table_closed, reason=reason))
        self.seats.waiting = []
        names = {st.player_id: st.name for _, st in self.seats.occupied()}
        await self._close()
        await self.host.closed(names)  # a home game's host: the final session ledger
        self.sinks.clear()

        def refuse(item: Envelope) -> None:
            if self.host.admits_request(item, remember=False):
                self.fanout.answer(item, m.error(item.request.rid, "table_closed"))
            else:  # a private table tells whom it does not admit nothing, even now
                self._unknown(item)
        self._refuse_queued(refuse)

    def stop_moved(self, url: str) -> None:
        """The table lives at ``url`` now (:func:`~server.table.handoff.gone`, in the
        actor's task, its seats emptied): stop, and answer what waits ``moved``."""
        self.lifecycle.fire(Event.MOVE)
        self._refuse_queued(lambda item: self.fanout.answer(
            item, {**m.error(item.request.rid, "moved"), "table": self.table_id, "url": url}))

    def _refuse_queued(self, answer: Callable[[Envelope], None]) -> None:
        """Nothing is handled after this: ``answer`` each request that waits, drop the rest."""
        while not self.inbox.empty():
            item = self.inbox.get_nowait()
            if isinstance(item, Envelope):
                self.inbox.requests -= 1
                answer(item)
            self.inbox.task_done()

    # ================================================================ the desks' ports
    # (server.table.ports: a desk asks its port, the actor asks the other desk; no desk
    # holds another)
    @property
    def private(self) -> bool:
        return self.host.private

    @property
    def paused(self) -> bool:
        return self.host.paused

    @property
    def hand_view(self) -> Dealer:
        return self.dealer

    def dealt_in(self, seat: int) -> bool:
        return self.in_hand and seat in self.dealer.start_stacks

    async def fold_leaver(self, seat: int) -> None:
        await self.dealer.fold_leaver(seat)

    def last_hand(self) -> LastHand:
        d = self.dealer
        return LastHand(d.last_hand, d.last_hand_id, d.hand_id)

    def hand_ended(self) -> None:
        if self.on_hand_end is not None:
            self.on_hand_end()

    def needs_approval(self, player_id: str) -> bool:
        return self.host.needs_approval(player_id)

    def is_removed(self, player_id: str) -> bool:
        return player_id in self.host.removed

    def request_seat(self, env: Envelope, req: rq.Sit) -> None:
        self.host.request_seat(env, req)

    def seats_changed(self) -> None:
        self.host.seats_changed()

    def hand_starts(self) -> None:
        self.host.hand_starts()

    def host_state(self, player_id: str | None) -> Msg | None:
        return self.host.state_for(player_id)

    def game_seated(self, st: SeatState) -> None:
        self.game.seated(st)

    def note_timeout(self, seat: int) -> None:
        self.seat_desk.note_timeout(seat)

    async def seat_requested(self, asked: SeatRequest) -> str | None:
        return await self.seat_desk.seat_requested(asked)

    async def take_off(self, seat: int) -> bool:
        return await self.seat_desk.take_off(seat)

    _handlers: dict[type[rq.Request], Callable[[TableActor, Envelope], Any]] = {
        rq.Watch: lambda t, env: t.viewers.watch(env),
        rq.Unwatch: lambda t, env: t.viewers.unwatch(env),
        rq.Resume: lambda t, env: t.viewers.resume(env),
        rq.Chat: lambda t, env: t.viewers.chat(env),
        rq.Mute: lambda t, env: t.viewers.mute(env),
        rq.ShowHands: lambda t, env: t.viewers.show_hands(env),
        rq.Sit: lambda t, env: t.seat_desk.sit(env),
        rq.Leave: lambda t, env: t.seat_desk.leave(env),
        rq.SitOut: lambda t, env: t.seat_desk.sit_out(env),
        rq.SitIn: lambda t, env: t.seat_desk.sit_in(env),
        rq.Act: lambda t, env: t.dealer.act(env),
        rq.Host: lambda t, env: t.host.handle(env),
    }
