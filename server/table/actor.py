"""One table: one asyncio task, the only writer of that table's state.

Rule of this module: every change to a table happens in :meth:`TableActor._handle`, called by
the actor's own task for one inbox item at a time (a request :class:`Envelope`, a clock wakeup,
or an internal call such as a detach). Clock callbacks and :meth:`TableActor.detach` only
enqueue. Fan-out goes through ``_publish`` (:mod:`~server.table.fanout`: project once per
audience, encode once per codec, send the same frame to every sink of that audience; never
await a socket).

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
* **Disconnection.** A seated player's sink detached: the seat stays, the clock runs (time
  bank used, then timeout); after ``Config.reconnect_grace`` without a new connection the
  player is sat out (keeps the seat). Any later request from the same player id rebinds.
* **Clocks.** ``turn.deadline`` is the action clock's end (Unix seconds); the player's time
  bank (``Config.time_bank``, per seat, not refilled) runs after it; then ``Hand.timeout``.
  ``Config.consecutive_timeouts_to_sit_out`` timeouts in a row sit the player out.
* **Rebuy event.** A rebuy applied between hands is announced as ``seated`` with the new stack.
* **Spectator delay.** Spectators' public frames are sent ``spectator_delay`` seconds late
  (clock timer); a spectator's ``watch``/``resume`` snapshot is taken at once and delivered
  just as late, so the delayed view is consistent.

The behaviour is split by concept into mixins over :class:`~server.table.state.TableState`:
:mod:`~server.table.seating` (seats and lobby requests), :mod:`~server.table.turn_clock`
(clocks and timeouts), :mod:`~server.table.caribbean_table` (Caribbean Stud rounds),
:mod:`~server.table.recording` (commitment and history) and :mod:`~server.table.fanout`
(events, answers and snapshots to the connections); this module keeps the core: the inbox
loop, dispatch, hands, void/refund and shutdown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from protocol import messages as m
from protocol.errors import ERROR_CODES
from protocol.requests import (
    Act,
    Chat,
    Leave,
    Mute,
    Request,
    Resume,
    ShowHands,
    Sit,
    SitIn,
    SitOut,
    Unwatch,
    Watch,
)
from server.config import Config
from server.ledger.history import HistoryStore, MemoryHistory
from server.ledger.journal import hand_entries
from server.ledger.store import Transfer
from server.ledger.wallet import Wallet
from server.net.ratelimit import TokenBucket
from server.rules import events as ev
from server.rules.caribbean import CaribbeanRound, RoundEnded
from server.rules.engine import HandEnd, chips_taken
from server.rules.errors import IllegalAction, InvariantError
from server.rules.hand import Hand
from server.table.api import Clock, Envelope, Sink, Timer
from server.table.blinds import BlindPlan
from server.table.caribbean_table import CaribbeanMixin
from server.table.fanout import EVENT_LOG_SIZE, Fanout
from server.table.house import lobby_terms
from server.table.jackpot import JackpotService
from server.table.lobby import Mutes
from server.table.projection import Draft, HandProjector, Msg
from server.table.recording import HandRecorder, RecordingMixin
from server.table.seating import SeatingMixin
from server.table.settings import TableSpec
from server.table.state import (
    _STOP,
    SeatState,
    _builder,
    _Call,
    _Waiter,
    _Wake,
    log,
)
from server.table.turn_clock import TurnClockMixin

__all__ = ["EVENT_LOG_SIZE", "SeatState", "TableActor"]


class TableActor(SeatingMixin, TurnClockMixin, CaribbeanMixin, RecordingMixin):
    """One table (see the module docstring). Built and run by the registry."""

    def __init__(self, table_id: str, spec: TableSpec, *, config: Config, wallet: Wallet,
                 clock: Clock, rng: Callable[[int], bytes],
                 shuffle: Callable[[Sequence[str]], list[str]],
                 jackpot: JackpotService | None = None,
                 on_jackpot: Callable[[Msg], None] | None = None,
                 on_hand_end: Callable[[], None] | None = None,
                 history: HistoryStore | None = None) -> None:
        import asyncio

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
        self.seats: list[SeatState | None] = [None] * spec.seats
        self.fanout = Fanout(table_id, delay=spec.spectator_delay, clock=clock,
                             seated=self._seated_players, snapshot_for=self.snapshot_for,
                             run_in_actor=self.call, on_sink_failed=self.detach)
        self.sinks = self.fanout.sinks
        self.waiting: list[_Waiter] = []
        self.changes: list[tuple[str, int]] = []
        self.decks: list[tuple[str, ...]] = list(spec.decks)
        self.button: int | None = None
        self.blinds = BlindPlan(spec)  # GEN-05: the last hand's button and blinds
        self.hand_no = 0
        self.hand: Hand | None = None
        self.round: CaribbeanRound | None = None
        self._round_phase = ""  # the running round's phase when its events were last sent
        self.hand_id: str | None = None
        self.projector: HandProjector | None = None
        self.start_stacks: dict[int, int] = {}
        self.hand_owner: dict[int, str] = {}
        self.last_hand: Hand | None = None
        self.last_hand_id: str | None = None
        self.last_owner: dict[int, str] = {}
        self.turn_seat: int | None = None
        self.turn_deadline = 0.0
        self.turn_wall = 0.0
        self.in_bank = False
        self._token = 0
        self._timers: list[Timer] = []
        self._next_hand: Timer | None = None
        self.closing = False
        self.stopped = False
        self.house_net = 0  # Caribbean: the house's result on antes and calls (and rake)
        self.inbox: asyncio.Queue[object] = asyncio.Queue()
        self._external = 0
        self._current: object = None
        self.fault: BaseException | None = None  # tests: raised by the next handled item
        self.hands_played = 0
        self.voided_marks: list[tuple[str, str]] = []  # (hand id, reason) for the ledger
        self.history: HistoryStore = history if history is not None else MemoryHistory()
        self.recorder: HandRecorder | None = None
        # abuse limits (Config `tables, lobby and chat`; set by the registry)
        self.on_change: Callable[[TableActor], None] | None = None  # lobby entry changed
        self.mutes: Mutes | None = None  # the process's mutes (chat fan-out skips muters)
        self.idle_closed = False
        self._lobby_key: object = None
        self.chat_bucket = TokenBucket(rate=config.chat_rate_per_table,
                                       burst=config.chat_burst_per_table, clock=clock.now)

    # ================================================================ public API
    async def submit(self, env: Envelope) -> None:
        """``submit_nowait`` as a coroutine (tests, and callers already in one)."""
        self.submit_nowait(env)

    def submit_nowait(self, env: Envelope) -> None:
        """Queue a request; answers ``server_busy``/``table_closed`` at once when refused."""
        if self.stopped:
            self.fanout.answer(env, m.error(env.request.rid, "table_closed"))
            return
        if self._external >= self.config.inbox_size:
            self.fanout.answer(env, m.error(env.request.rid, "server_busy"))
            return
        self._external += 1
        self.inbox.put_nowait(env)

    def detach(self, sink: Sink) -> None:
        """The connection closed: forget it (see the module docstring). Non-blocking."""
        self.inbox.put_nowait(_Call(lambda: self._detach(sink)))

    def call(self, fn: Callable[[], Any]) -> None:
        """Run ``fn()`` (sync or async) inside the actor task (registry and tests)."""
        self.inbox.put_nowait(_Call(fn))

    def summary(self) -> dict[str, Any]:
        players = {s.player_id for s in self.seats if s is not None}
        spectators = {c for c, s in self.sinks.items() if s.player_id not in players}
        rules = self.spec.rules
        entry: dict[str, Any] = {
            "table": self.table_id, "name": self.spec.name, "variant": self.spec.variant_name,
            "structure": self.spec.structure, "stakes": dict(self.spec.stakes_wire),
            "seats": self.spec.seats, "players": len(players), "spectators": len(spectators),
            # GEN-09/GEN-10: the house's revenue at this table (Caribbean: none, its edge)
            "rake": {"bp": rules.rake_bp if rules is not None else 0,
                     "cap": rules.rake_cap if rules is not None else 0},
        }
        if self.spec.is_caribbean:  # CSP-13: the operator's terms, the same at every table
            entry["jackpot_terms"] = lobby_terms(self.config)
        return entry

    async def idle(self) -> None:
        """Wait until every queued item has been handled (tests)."""
        import asyncio

        for _ in range(1000):
            await self.inbox.join()
            for _ in range(3):
                await asyncio.sleep(0)
            if self.inbox.empty():
                return

    def _seated_players(self) -> set[str]:
        return {s.player_id for s in self.seats if s is not None}

    def table_chips(self) -> int:
        """Every chip at this table: stacks, pending top-ups and chips in a running hand."""
        # seat stacks change only when a hand ends: during one they are the stacks from before
        return sum(s.stack + s.topup for s in self.seats if s is not None)

    # ================================================================ the loop
    async def run(self) -> None:
        """The actor task's body: handle items until stopped. Raises on a bug (the registry
        then voids, refunds and restarts)."""
        self._kick()
        while True:
            item = await self.inbox.get()
            try:
                if item is _STOP:
                    self.stopped = True
                    return
                self._current = item
                await self._handle(item)
                self._lobby_check()
                self._current = None
                if not self.stopped:
                    self._kick()
            finally:
                if isinstance(item, Envelope):
                    self._external -= 1
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
            elif isinstance(item, _Wake):
                await self._wake(item)
            elif isinstance(item, _Call):
                result = item.fn()
                if hasattr(result, "__await__"):
                    await result
        except InvariantError as exc:  # an engine bug on a clock's path: void, refund, go on
            if not self.in_hand:
                raise
            await self._invariant_broken(exc)

    def recover(self, exc: BaseException) -> None:
        """After a crash (the task is dead): answer the request in flight with
        ``internal_error``, void the running hand and give every player their stack from
        before it. Synchronous; the registry then restarts the task."""
        log.error("event=actor_crashed table=%s hand=%s error=%r",
                  self.table_id, self.hand_id, exc)
        current, self._current = self._current, None
        if isinstance(current, Envelope):
            self.fanout.answer(current, m.error(current.request.rid, "internal_error"))
        if self.in_hand:
            self._void_now(f"actor crashed: {exc!r}")

    # ================================================================ requests
    async def _request(self, env: Envelope) -> None:
        req, sink = env.request, env.sink
        self._bind(sink)
        handler = _HANDLERS.get(type(req))
        if handler is None:
            self.fanout.answer(env, m.error(req.rid, "unsupported"))
            return
        await handler(self, env)
    async def _act(self, env: Envelope) -> None:
        req = env.request
        assert isinstance(req, Act)
        seat = self._seat_of(env.sink.player_id)
        if seat is None:
            return self.fanout.answer(env, m.error(req.rid, "not_seated"))
        if not self.in_hand:
            return self.fanout.answer(env, m.error(req.rid, "no_hand"))
        if seat not in self.start_stacks:
            return self.fanout.answer(env, m.error(req.rid, "not_in_hand"))
        engine = self.engine
        assert engine is not None
        try:
            opts = engine.options(seat) if req.jackpot else None
            if opts is not None and opts.sit_out:  # an ante with the jackpot wager (GEN-10)
                self._check_pool_ceiling()
            events = engine.act(seat, req.action, req.amount, req.discard or (),
                                jackpot=req.jackpot)
        except IllegalAction as exc:
            code = exc.reason if exc.reason in ERROR_CODES else "bad_action"
            return self.fanout.answer(env, m.error(req.rid, code, exc.message))
        except InvariantError as exc:  # a bug, not the player's doing: void and refund
            self.fanout.answer(env, m.ok(req.rid))
            return await self._invariant_broken(exc)
        st = self.seats[seat]
        assert st is not None
        st.timeouts = 0
        if self.round is None and self.in_bank and self.turn_seat == seat:
            st.bank = max(0.0, st.bank - (self.clock.now() - self.turn_deadline))
        # (the rid was validated by the parser: nothing to check before encoding)
        self.fanout.send(env.sink, env.sink.codec.encode(m.ok(req.rid), check=False))
        await self._apply(events)
    # ================================================================ hands
    def _kick(self) -> None:
        """Schedule the next hand after the pause when one could start."""
        if self.in_hand or self.closing or self._next_hand is not None:
            return
        if len(self._eligible()) < (1 if self.spec.is_caribbean else 2):
            return
        token = self._next_token()
        self._next_hand = self.clock.call_later(
            self.spec.pause, lambda: self.inbox.put_nowait(_Wake("next_hand", token)))

    def _eligible(self) -> list[int]:
        return [i for i, s in enumerate(self.seats)
                if s is not None and not s.sitting_out and not s.leaving and s.stack > 0]

    async def _start_hand(self) -> None:
        self._next_hand = None
        await self._ledger_voids()
        if self.in_hand or self.closing:
            return
        players = self._eligible()
        if len(players) < (1 if self.spec.is_caribbean else 2):
            return
        deck = list(self.decks.pop(0)) if self.decks else self.shuffle(self.spec.card_set)
        self.hand_no += 1
        self.hand_id = await self._new_hand_id()  # unique for ever (server.ledger.ids)
        button: int | None = None
        blinds: tuple[int | None, ...] | None = None
        entry: list[int] = []
        if not self.spec.is_caribbean:
            button, blinds, players, entry = self.blinds.place(self.seats, players)
            self.button = button
        self.start_stacks = {s: self.seats[s].stack for s in players}  # type: ignore[union-attr]
        self.hand_owner = {s: self.seats[s].player_id for s in players}  # type: ignore[union-attr]
        seed = self.rng(32)
        commitment = self._begin_record(deck, button=button, seed=seed)
        self.projector = HandProjector(self.hand_owner, stack_of=self._live_stack,
                                       reveal=self._reveal)
        # crash safety: the hand is durably marked as running before its first card
        await self.wallet.hand_started(self.table_id, self.hand_id, {
            self.hand_owner[s]: stack for s, stack in self.start_stacks.items()})
        self.fanout.publish(Draft(_builder(m.hand_started, hand=self.hand_id, button=button,
                                     commitment=commitment)))
        log.debug("event=hand_started table=%s hand=%s players=%d", self.table_id,
                 self.hand_id, len(players))
        if self.spec.is_caribbean:
            assert self.spec.caribbean is not None
            self.round = CaribbeanRound(self.spec.caribbean, dict(self.start_stacks), deck,
                                        round_id=self.hand_id)
            self._round_phase = self.round.phase
            self._caribbean_phase_turns(self.spec.ante_time, "ante_deadline")
            return
        assert self.spec.variant is not None and self.spec.rules is not None and button is not None
        self.hand = Hand(self.spec.variant, self.spec.rules, dict(self.start_stacks),
                         button=button, deck=deck, num_seats=self.spec.seats,
                         hand_id=self.hand_id, seed=seed, blinds=blinds, entry_posts=entry)
        await self._apply(list(self.hand.start()))

    def _live_stack(self, seat: int) -> int:
        if self.round is not None:
            return self.round.stacks.get(seat, 0)
        if self.hand is not None:
            return self.hand.stacks.get(seat, 0)
        st = self.seats[seat]
        return st.stack if st is not None else 0

    async def _apply(self, events: list[Any]) -> None:
        """Project and send engine events; handle turns and the end of the hand."""
        assert self.projector is not None
        self._record(events)
        for e in events:
            if isinstance(e, ev.HandEnded | RoundEnded):
                await self._finish(e)
                return
            if isinstance(e, ev.TurnStarted):
                self._start_turn(e.seat)
                drafts = self._turn_drafts(e)
            else:
                drafts = self.projector.project(e)
            for d in drafts:
                self.fanout.publish(d)
        self._phase_changed()

    def _check_conservation(self, e: HandEnd) -> None:
        before = sum(self.start_stacks.values())
        after = sum(e.stacks.values())
        if set(e.stacks) != set(self.start_stacks):
            raise InvariantError("the seats of the hand changed")
        expected = before - chips_taken(e)
        if after != expected or any(v < 0 for v in e.stacks.values()):
            raise InvariantError(f"chips not conserved: before {before} after {after} "
                                 f"expected {expected}")

    async def _invariant_broken(self, exc: InvariantError) -> None:
        """An invariant broke (engine or table): void the hand, refund, log, carry on."""
        log.error("event=invariant_broken table=%s hand=%s error=%r",
                  self.table_id, self.hand_id, str(exc))
        self._void_now(str(exc))
        await self._after_hand()

    async def _finish(self, e: HandEnd) -> None:
        assert self.projector is not None
        voided = e.voided
        try:
            self._check_conservation(e)
        except InvariantError as exc:
            return await self._invariant_broken(exc)
        stacks = dict(e.stacks)
        if not voided:
            self.house_net += chips_taken(e) - e.jackpot_collected
            stacks = self._pay_jackpot(stacks)
        await self._record_result(e, stacks, voided)  # durable before anyone sees the end
        drafts = self.projector.project(e)  # (built now: the reveals come from the record)
        # the history too: a player who asks for it on `hand_ended` finds the hand there
        await self._end_record(e, {s: v - e.stacks.get(s, 0) for s, v in stacks.items()
                                   if v != e.stacks.get(s)})
        for d in drafts:
            self.fanout.publish(d)
        for seat, stack in stacks.items():
            st = self.seats[seat]
            if st is not None:
                st.stack = stack
        if isinstance(e, ev.HandEnded):  # SHOW-02: the last hand's mucked cards may be shown
            self.last_hand, self.last_hand_id = self.hand, self.hand_id
            self.last_owner = dict(self.hand_owner)
        self.hands_played += 1
        if self.on_hand_end is not None:
            self.on_hand_end()
        log.debug("event=hand_ended table=%s hand=%s voided=%s", self.table_id, self.hand_id,
                 voided)
        await self._after_hand()

    async def _record_result(self, e: HandEnd, stacks: dict[int, int], voided: bool) -> None:
        """The hand's ledger entries (stacks before and after, rake, house, jackpot) and
        its end, in one atomic batch (see :mod:`server.ledger.journal`)."""
        assert self.hand_id is not None
        owner = self.hand_owner
        start = {owner[s]: v for s, v in self.start_stacks.items()}
        end = {owner[s]: v for s, v in stacks.items()}
        entries: list[Transfer] = []
        if not voided:
            paid = sum(stacks.values()) - sum(e.stacks.values())
            entries = hand_entries(start, end, rake=e.rake, house_net=e.house_net,
                                   jackpot_in=e.jackpot_collected, jackpot_out=paid)
        await self.wallet.hand_result(self.table_id, self.hand_id, entries)

    def _void_now(self, reason: str) -> None:
        """Void the running hand: everyone gets back their stack from before it."""
        self._cancel_timers()
        log.warning("event=hand_voided table=%s hand=%s reason=%r", self.table_id,
                    self.hand_id, reason)
        for seat, stack in self.start_stacks.items():
            st = self.seats[seat]
            if st is not None:
                st.stack = stack
        if self.projector is not None and self.hand_id is not None:
            self.fanout.publish(self.projector._ended(self.hand_id, dict(self.start_stacks),
                                                voided=True))
        if self.hand_id is not None:  # the ledger's mark is closed by _ledger_voids
            self.voided_marks.append((self.hand_id, reason))
        self.hand = None
        self.round = None
        self.projector = None
        self.recorder = None
        self.start_stacks = {}
        self.turn_seat = None

    async def _ledger_voids(self) -> None:
        """Tell the ledger about hands voided here (their chips never moved there): each
        gets a ``void`` record and its running mark closed. Kept for a retry on failure."""
        while self.voided_marks:
            hand_id, reason = self.voided_marks[0]
            try:
                await self.wallet.hand_voided(self.table_id, hand_id, reason=reason)
            except Exception:
                log.exception("event=ledger_void_failed table=%s hand=%s", self.table_id,
                              hand_id)
                return
            self.voided_marks.pop(0)

    async def _after_hand(self) -> None:
        await self._ledger_voids()
        self._cancel_timers()
        self.hand = None
        self.round = None
        self.projector = None
        self.start_stacks = {}
        self.turn_seat = None
        for seat, st in enumerate(self.seats):
            if st is None:
                continue
            if st.topup:  # GEN-06: chips are added between hands
                st.stack += st.topup
                st.topup = 0
            if st.leaving:
                await self._remove(seat)
        await self._fill_seats()
        if self.closing:
            await self._close()
    # ================================================================ shutdown
    def begin_shutdown(self) -> None:
        """Registry: stop starting hands; stop once the running hand (if any) ends."""
        self.call(self._begin_shutdown)

    async def _begin_shutdown(self) -> None:
        self.closing = True
        if self._next_hand is not None:
            self._next_hand.cancel()
            self._next_hand = None
        if not self.in_hand:
            await self._close()

    def force_stop(self) -> None:
        """Registry, after the deadline: void the running hand, refund, cash out, stop."""
        self.call(self._force_stop)

    async def _force_stop(self) -> None:
        self.closing = True
        if self.in_hand:
            self._void_now("shutdown deadline")
        await self._close()

    async def _close(self) -> None:
        await self._ledger_voids()
        self._cancel_timers()
        for seat, st in enumerate(self.seats):
            if st is not None:
                await self._remove(seat)
        self.fanout.close()  # no delayed frame after the table stopped (nobody runs them)
        self.stopped = True

    # ================================================================ lobby and idle close
    def _lobby_check(self) -> None:
        """After each handled item: tell the registry when the lobby entry may have changed
        (seats taken or freed, viewers come or gone), so the listing is rebuilt once per
        change and the idle count starts or stops. Cheap: the seats' owners and the number
        of connections."""
        key = (len(self.sinks), tuple(None if s is None else s.player_id for s in self.seats))
        if key != self._lobby_key:
            self._lobby_key = key
            if self.on_change is not None:
                self.on_change(self)

    async def close_if_idle(self) -> None:
        """Registry, after ``Config.idle_table_close`` seconds with nobody seated: if still
        nobody is seated and no hand runs, tell the viewers (``table_closed``), answer every
        request still queued ``table_closed`` and stop (the registry then forgets the
        table)."""
        if self.closing or self.stopped or self.in_hand or any(
                s is not None for s in self.seats):
            return
        self.idle_closed = True
        await self.close_for_good("idle")
        log.info("event=table_idle_closed table=%s", self.table_id)

    async def close_for_good(self, reason: str) -> None:
        """Close the table: void a running hand (refunds), tell the viewers
        (``table_closed``), cash every player out, answer every queued request
        ``table_closed`` and stop. The registry calls it for a table that keeps crashing
        (then from outside the dead task), :meth:`close_if_idle` for an idle one."""
        self.closing = True
        if self._next_hand is not None:
            self._next_hand.cancel()
            self._next_hand = None
        if self.in_hand:
            self._void_now(reason)
        self.fanout.publish(Draft(_builder(m.table_closed, reason=reason)))
        self.waiting = []
        await self._close()
        self.sinks.clear()
        while not self.inbox.empty():  # nothing is handled after this: refuse what waits
            item = self.inbox.get_nowait()
            if isinstance(item, Envelope):
                self._external -= 1
                self.fanout.answer(item, m.error(item.request.rid, "table_closed"))
            self.inbox.task_done()

    async def cash_out_all(self) -> None:
        """After the task is gone (cancelled): void, refund and credit everyone."""
        if self.in_hand:
            self._void_now("shutdown")
        await self._close()


_Handler = Callable[[TableActor, Envelope], Any]
_HANDLERS: dict[type[Request], _Handler] = {
    Watch: TableActor._watch,
    Unwatch: TableActor._unwatch,
    Sit: TableActor._sit,
    Leave: TableActor._leave,
    SitOut: TableActor._sit_out,
    SitIn: TableActor._sit_in,
    Chat: TableActor._chat,
    ShowHands: TableActor._show_hands,
    Resume: TableActor._resume,
    Act: TableActor._act,
    Mute: TableActor._mute,
}
