"""One table: one asyncio task, the only writer of that table's state.

Rule of this module: every change to a table happens in :meth:`TableActor._handle`, called by
the actor's own task for one inbox item at a time (a request :class:`Envelope`, a clock wakeup,
or an internal call such as a detach). Clock callbacks and :meth:`TableActor.detach` only
enqueue. Fan-out goes through :meth:`TableActor._publish` (project once per audience, encode
once per codec, send the same frame to every sink of that audience; never await a socket).

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
  (clock timer); ``watch``/``resume`` snapshots are current public state.
"""

from __future__ import annotations

import hashlib
import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol import messages as m
from protocol.errors import ERROR_CODES
from protocol.requests import (
    Act,
    Chat,
    Leave,
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
from server.ledger.wallet import Wallet
from server.rules import errors as rerr
from server.rules import events as ev
from server.rules.caribbean import CaribbeanRound, RoundEnded
from server.rules.errors import IllegalAction
from server.rules.hand import Hand
from server.table.api import Clock, Envelope, Sink, Timer
from server.table.jackpot import EmbeddedJackpot
from server.table.projection import Draft, HandProjector, Msg
from server.table.settings import TableSpec

__all__ = ["EVENT_LOG_SIZE", "SeatState", "TableActor"]

log = logging.getLogger("server.table")

EVENT_LOG_SIZE = 1024
"""Table events kept for ``resume``; older ones are answered with a fresh snapshot."""


class InvariantError(RuntimeError):
    """A table invariant broke (chip conservation): the hand is voided and refunded."""


@dataclass(slots=True)
class SeatState:
    player_id: str
    name: str
    stack: int
    bank: float
    sink: Sink | None = None
    sitting_out: bool = False
    leaving: bool = False
    wait_for_bb: bool = False
    timeouts: int = 0
    topup: int = 0
    grace_token: int = 0


@dataclass(slots=True)
class _Waiter:
    player_id: str
    name: str
    buy_in: int
    sink: Sink


@dataclass(frozen=True, slots=True)
class _Wake:
    kind: str
    token: int
    arg: Any = None


@dataclass(frozen=True, slots=True)
class _Call:
    fn: Callable[[], Any]


_STOP = object()


@dataclass(slots=True)
class _LogEntry:
    seq: int
    public: Msg | None
    private: dict[str, Msg] = field(default_factory=dict)


class TableActor:
    """One table (see the module docstring). Built and run by the registry."""

    def __init__(self, table_id: str, spec: TableSpec, *, config: Config, wallet: Wallet,
                 clock: Clock, rng: Callable[[int], bytes],
                 shuffle: Callable[[Sequence[str]], list[str]],
                 jackpot: EmbeddedJackpot | None = None,
                 on_jackpot: Callable[[Msg], None] | None = None) -> None:
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
        self.seats: list[SeatState | None] = [None] * spec.seats
        self.sinks: dict[int, Sink] = {}
        self.waiting: list[_Waiter] = []
        self.changes: list[tuple[str, int]] = []
        self.seq = 0
        self.events: deque[_LogEntry] = deque(maxlen=EVENT_LOG_SIZE)
        self.decks: list[tuple[str, ...]] = list(spec.decks)
        self.button: int | None = None
        self.hand_no = 0
        self.hand: Hand | None = None
        self.round: CaribbeanRound | None = None
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

    # ================================================================ public API
    async def submit(self, env: Envelope) -> None:
        """Queue a request; answers ``server_busy``/``table_closed`` at once when refused."""
        if self.stopped:
            self._answer(env, m.error(env.request.rid, "table_closed"))
            return
        if self._external >= self.config.inbox_size:
            self._answer(env, m.error(env.request.rid, "server_busy"))
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
        return {
            "table": self.table_id, "name": self.spec.name, "variant": self.spec.variant_name,
            "structure": self.spec.structure, "stakes": dict(self.spec.stakes_wire),
            "seats": self.spec.seats, "players": len(players), "spectators": len(spectators),
        }

    @property
    def in_hand(self) -> bool:
        return self.hand is not None or self.round is not None

    async def idle(self) -> None:
        """Wait until every queued item has been handled (tests)."""
        import asyncio

        for _ in range(1000):
            await self.inbox.join()
            for _ in range(3):
                await asyncio.sleep(0)
            if self.inbox.empty():
                return

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
        if isinstance(item, Envelope):
            await self._request(item)
        elif isinstance(item, _Wake):
            await self._wake(item)
        elif isinstance(item, _Call):
            result = item.fn()
            if hasattr(result, "__await__"):
                await result

    def recover(self, exc: BaseException) -> None:
        """After a crash (the task is dead): answer the request in flight with
        ``internal_error``, void the running hand and give every player their stack from
        before it. Synchronous; the registry then restarts the task."""
        log.error("event=actor_crashed table=%s hand=%s error=%r",
                  self.table_id, self.hand_id, exc)
        current, self._current = self._current, None
        if isinstance(current, Envelope):
            self._answer(current, m.error(current.request.rid, "internal_error"))
        if self.in_hand:
            self._void_now(f"actor crashed: {exc!r}")

    # ================================================================ requests
    async def _request(self, env: Envelope) -> None:
        req, sink = env.request, env.sink
        self._bind(sink)
        handler = _HANDLERS.get(type(req))
        if handler is None:
            self._answer(env, m.error(req.rid, "unsupported"))
            return
        await handler(self, env)

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
        self._answer(env, m.ok(env.request.rid))
        self._send_snapshot(env.sink)

    async def _unwatch(self, env: Envelope) -> None:
        if self.sinks.pop(env.sink.conn_id, None) is None:
            self._answer(env, m.error(env.request.rid, "not_watching"))
            return
        self._answer(env, m.ok(env.request.rid))

    async def _sit(self, env: Envelope) -> None:
        req = env.request
        assert isinstance(req, Sit)
        pid, rid = env.sink.player_id, req.rid
        if pid is None:
            return self._answer(env, m.error(rid, "unauthorized"))
        if self.closing:
            return self._answer(env, m.error(rid, "table_closed"))
        if not 0 <= req.seat < self.spec.seats:
            return self._answer(env, m.error(rid, "bad_seat"))
        mine = self._seat_of(pid)
        if mine is not None:
            return await self._sit_again(env, mine, req)
        if self.seats[req.seat] is not None:
            if all(s is not None for s in self.seats):
                if all(w.player_id != pid for w in self.waiting):
                    self.waiting.append(_Waiter(pid, env.sink.name or pid, req.buy_in, env.sink))
                return self._answer(env, m.error(rid, "table_full",
                                                 "The table is full; you are on the waiting "
                                                 "list."))
            return self._answer(env, m.error(rid, "seat_taken"))
        if not self.spec.min_buy_in <= req.buy_in <= self.spec.max_buy_in:
            return self._answer(env, m.error(
                rid, "bad_buy_in",
                f"buy-in must be {self.spec.min_buy_in}..{self.spec.max_buy_in}"))
        if not await self.wallet.debit(pid, req.buy_in, f"buy_in {self.table_id}"):
            return self._answer(env, m.error(rid, "insufficient_funds"))
        self.waiting = [w for w in self.waiting if w.player_id != pid]
        self._seat_player(req.seat, pid, env.sink.name or pid, req.buy_in, env.sink)
        self._answer(env, m.ok(rid, seat=req.seat))
        self._send_snapshot(env.sink)

    async def _sit_again(self, env: Envelope, mine: int, req: Sit) -> None:
        st = self.seats[mine]
        assert st is not None
        rid = req.rid
        if req.seat == mine:  # rebuy (GEN-06)
            if st.stack + st.topup + req.buy_in > self.spec.max_buy_in:
                return self._answer(env, m.error(rid, "bad_buy_in",
                                                 f"at most {self.spec.max_buy_in} at the table"))
            if not await self.wallet.debit(st.player_id, req.buy_in,
                                           f"rebuy {self.table_id}"):
                return self._answer(env, m.error(rid, "insufficient_funds"))
            if self.in_hand and mine in self.start_stacks:
                st.topup += req.buy_in
                return self._answer(env, m.ok(rid, seat=mine, pending=True))
            st.stack += req.buy_in
            self._answer(env, m.ok(rid, seat=mine))
            self._publish(Draft(_builder(m.seated, seat=mine, name=st.name, stack=st.stack)))
            return None
        # seat change request (GEN-04)
        self.changes = [c for c in self.changes if c[0] != st.player_id]
        if self.seats[req.seat] is None and not (self.in_hand and mine in self.start_stacks):
            self._move(mine, req.seat)
            return self._answer(env, m.ok(rid, seat=req.seat))
        self.changes.append((st.player_id, req.seat))
        return self._answer(env, m.ok(rid, seat=mine, queued=True))

    async def _leave(self, env: Envelope) -> None:
        req = env.request
        assert isinstance(req, Leave)
        seat = self._seat_of(env.sink.player_id)
        if seat is None:
            pid = env.sink.player_id
            before = len(self.waiting)
            self.waiting = [w for w in self.waiting if w.player_id != pid]
            if len(self.waiting) != before:
                return self._answer(env, m.ok(req.rid))
            return self._answer(env, m.error(req.rid, "not_seated"))
        st = self.seats[seat]
        assert st is not None
        self.changes = [c for c in self.changes if c[0] != st.player_id]
        if self.in_hand and seat in self.start_stacks:
            st.leaving = True
            return self._answer(env, m.ok(req.rid, pending=True))
        self._answer(env, m.ok(req.rid))
        await self._remove(seat)
        await self._fill_seats()

    async def _sit_out(self, env: Envelope) -> None:
        seat = self._seat_of(env.sink.player_id)
        if seat is None:
            return self._answer(env, m.error(env.request.rid, "not_seated"))
        self._answer(env, m.ok(env.request.rid))
        self._set_sitting_out(seat, True)

    async def _sit_in(self, env: Envelope) -> None:
        seat = self._seat_of(env.sink.player_id)
        if seat is None:
            return self._answer(env, m.error(env.request.rid, "not_seated"))
        st = self.seats[seat]
        assert st is not None
        self._answer(env, m.ok(env.request.rid))
        st.timeouts = 0
        self._set_sitting_out(seat, False)

    def _set_sitting_out(self, seat: int, value: bool) -> None:
        st = self.seats[seat]
        assert st is not None
        if st.sitting_out == value:
            return
        st.sitting_out = value
        if not value and self.spec.uses_blinds:
            st.wait_for_bb = True
        builder = m.sat_out if value else m.sat_in
        self._publish(Draft(_builder(builder, seat=seat)))

    async def _chat(self, env: Envelope) -> None:
        req = env.request
        assert isinstance(req, Chat)
        if env.sink.player_id is None:
            return self._answer(env, m.error(req.rid, "unauthorized"))
        seat = self._seat_of(env.sink.player_id)
        if not self.spec.chat or (seat is None and not self.spec.spectator_chat):
            return self._answer(env, m.error(req.rid, "chat_disabled"))
        self._answer(env, m.ok(req.rid))
        if seat is not None:
            self._publish(Draft(_builder(m.chat, text=req.text, seat=seat)))
        else:
            self._publish(Draft(_builder(m.chat, text=req.text,
                                         name=env.sink.name or env.sink.player_id)))

    async def _show_hands(self, env: Envelope) -> None:
        req = env.request
        assert isinstance(req, ShowHands)
        if self._seat_of(env.sink.player_id) is None:
            return self._answer(env, m.error(req.rid, "not_seated"))
        hand = self.last_hand
        if hand is None or str(req.hand) != self.last_hand_id or not hand.is_over:
            return self._answer(env, m.error(req.rid, "unknown_hand"))
        self._answer(env, m.ok(req.rid))
        wanted = set(req.seats) if req.seats is not None else None
        for s in list(hand.mucked):  # SHOW-02
            if s in hand.revealed or (wanted is not None and s not in wanted):
                continue
            hand.revealed.add(s)
            value = hand.values[s]
            event = ev.Showdown(s, tuple(hand.own[s]), value.name, tuple(value.cards))
            self._publish(Draft(_builder(m.showdown, seat=s, cards=list(event.cards),
                                         hand=event.hand)))

    async def _resume(self, env: Envelope) -> None:
        req = env.request
        assert isinstance(req, Resume)
        sink = env.sink
        self.sinks[sink.conn_id] = sink
        self._answer(env, m.ok(req.rid))
        since = req.since
        if since >= self.seq:
            return
        oldest = self.events[0].seq if self.events else self.seq + 1
        if since + 1 < oldest:
            self._send_snapshot(sink)
            return
        pid = sink.player_id
        for entry in self.events:
            if entry.seq <= since:
                continue
            msg = entry.private.get(pid, entry.public) if pid is not None else entry.public
            if msg is not None:
                self._send(sink, sink.codec.encode(msg))

    async def _act(self, env: Envelope) -> None:
        req = env.request
        assert isinstance(req, Act)
        seat = self._seat_of(env.sink.player_id)
        if seat is None:
            return self._answer(env, m.error(req.rid, "not_seated"))
        if not self.in_hand:
            return self._answer(env, m.error(req.rid, "no_hand"))
        if seat not in self.start_stacks:
            return self._answer(env, m.error(req.rid, "not_in_hand"))
        try:
            if self.round is not None:
                events: list[Any] = self._caribbean_act(seat, req)
            else:
                assert self.hand is not None
                events = list(self.hand.act(seat, req.action, req.amount, req.discard or ()))
        except IllegalAction as exc:
            code = exc.reason if exc.reason in ERROR_CODES else "bad_action"
            return self._answer(env, m.error(req.rid, code, exc.message))
        st = self.seats[seat]
        assert st is not None
        st.timeouts = 0
        if self.round is None and self.in_bank and self.turn_seat == seat:
            st.bank = max(0.0, st.bank - (self.clock.now() - self.turn_deadline))
        self._answer(env, m.ok(req.rid))
        await self._apply(events)

    # ================================================================ seats
    def _seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for i, s in enumerate(self.seats):
            if s is not None and s.player_id == player_id:
                return i
        return None

    def _seat_player(self, seat: int, pid: str, name: str, stack: int, sink: Sink) -> None:
        self.seats[seat] = SeatState(pid, name, stack, self.config.time_bank, sink=sink)
        self.sinks[sink.conn_id] = sink
        self._publish(Draft(_builder(m.seated, seat=seat, name=name, stack=stack)))

    def _move(self, old: int, new: int) -> None:
        st = self.seats[old]
        assert st is not None and self.seats[new] is None
        self.seats[old] = None
        self.seats[new] = st
        self._publish(Draft(_builder(m.left, seat=old, name=st.name)))
        self._publish(Draft(_builder(m.seated, seat=new, name=st.name, stack=st.stack)))

    async def _remove(self, seat: int) -> None:
        st = self.seats[seat]
        assert st is not None
        self.seats[seat] = None
        amount = st.stack + st.topup
        st.stack = st.topup = 0
        await self.wallet.credit(st.player_id, amount, f"cash_out {self.table_id}")
        self._publish(Draft(_builder(m.left, seat=seat, name=st.name)))

    async def _fill_seats(self) -> None:
        """GEN-04: a free seat goes first to a seated player who asked for it, then to the
        waiting list (in order; a waiter who can no longer pay is dropped)."""
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
            buy = min(max(w.buy_in, self.spec.min_buy_in), self.spec.max_buy_in)
            if not await self.wallet.debit(w.player_id, buy, f"buy_in {self.table_id}"):
                continue
            free = self.seats.index(None)
            self._seat_player(free, w.player_id, w.name, buy, w.sink)
            self._send_snapshot(w.sink)

    def _detach(self, sink: Sink) -> None:
        self.sinks.pop(sink.conn_id, None)
        self.waiting = [w for w in self.waiting if w.sink is not sink]
        for seat, st in enumerate(self.seats):
            if st is not None and st.sink is sink:
                st.sink = None
                st.grace_token += 1
                self._schedule("grace", self.config.reconnect_grace, st.grace_token, seat)

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

    def _next_button(self, players: list[int]) -> int:
        if self.button is None:  # GEN-05: the highest-numbered occupied seat
            return max(players)
        return (self.button + 1) % self.spec.seats  # clockwise; a dead button is allowed

    def _participants(self, button: int, players: list[int]) -> list[int]:
        """Drop players waiting for the big blind unless they are in it (or needed)."""
        assert self.spec.rules is not None
        n_blinds = len(self.spec.rules.stakes.blinds)
        waiting = [s for s in players if self.seats[s].wait_for_bb]  # type: ignore[union-attr]
        if not waiting:
            return players
        n = self.spec.seats
        order = sorted(players, key=lambda s: (s - button - 1) % n)
        big = order[min(n_blinds, len(order)) - 1]
        keep = [s for s in players if s not in waiting or s == big]
        if len(keep) < 2:
            keep = players
        for s in keep:
            self.seats[s].wait_for_bb = False  # type: ignore[union-attr]
        return keep

    async def _start_hand(self) -> None:
        self._next_hand = None
        if self.in_hand or self.closing:
            return
        players = self._eligible()
        if len(players) < (1 if self.spec.is_caribbean else 2):
            return
        deck = list(self.decks.pop(0)) if self.decks else self.shuffle(self.spec.card_set)
        salt = self.rng(16)
        commitment = hashlib.sha256((",".join(deck) + ":").encode() + salt).hexdigest()
        self.hand_no += 1
        self.hand_id = f"{self.table_id}.{self.hand_no}"
        button: int | None = None
        if not self.spec.is_caribbean:
            button = self._next_button(players)
            self.button = button
            if self.spec.uses_blinds:
                players = self._participants(button, players)
        self.start_stacks = {s: self.seats[s].stack for s in players}  # type: ignore[union-attr]
        self.hand_owner = {s: self.seats[s].player_id for s in players}  # type: ignore[union-attr]
        self.projector = HandProjector(self.hand_owner, stack_of=self._live_stack)
        self._publish(Draft(_builder(m.hand_started, hand=self.hand_id, button=button,
                                     commitment=commitment)))
        log.info("event=hand_started table=%s hand=%s players=%d", self.table_id,
                 self.hand_id, len(players))
        if self.spec.is_caribbean:
            assert self.spec.caribbean is not None
            self.round = CaribbeanRound(self.spec.caribbean, dict(self.start_stacks), deck,
                                        round_id=self.hand_id)
            self._caribbean_phase_turns(self.spec.ante_time, "ante_deadline")
            return
        assert self.spec.variant is not None and self.spec.rules is not None and button is not None
        self.hand = Hand(self.spec.variant, self.spec.rules, dict(self.start_stacks),
                         button=button, deck=deck, num_seats=self.spec.seats,
                         hand_id=self.hand_id, seed=self.rng(32))
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
                self._publish(d)
        rnd = self.round
        if rnd is not None and rnd.phase == "antes" and all(
                not rnd.options(s) for s in self.start_stacks):
            await self._apply(list(rnd.deal()))
            if self.round is not None and self.round.phase == "decisions":
                self._caribbean_phase_turns(self.config.action_clock, "decide_deadline")

    def _check_conservation(self, e: Any) -> None:
        before = sum(self.start_stacks.values())
        after = sum(e.stacks.values())
        if set(e.stacks) != set(self.start_stacks):
            raise InvariantError("the seats of the hand changed")
        if isinstance(e, RoundEnded):
            expected = before - e.house_net - e.jackpot_collected
        else:
            expected = before - int(getattr(e, "rake", 0))
        if after != expected or any(v < 0 for v in e.stacks.values()):
            raise InvariantError(f"chips not conserved: before {before} after {after} "
                                 f"expected {expected}")

    async def _finish(self, e: Any) -> None:
        assert self.projector is not None
        voided = bool(getattr(e, "voided", False))
        try:
            self._check_conservation(e)
        except InvariantError as exc:
            log.error("event=invariant_broken table=%s hand=%s error=%r",
                      self.table_id, self.hand_id, str(exc))
            self._void_now(str(exc))
            await self._after_hand()
            return
        for d in self.projector.project(e):
            self._publish(d)
        stacks = dict(e.stacks)
        if isinstance(e, RoundEnded) and not voided:
            self.house_net += e.house_net
            stacks = self._pay_jackpot(stacks)
        for seat, stack in stacks.items():
            st = self.seats[seat]
            if st is not None:
                st.stack = stack
        if isinstance(e, ev.HandEnded):
            self.house_net += int(getattr(e, "rake", 0))
            self.last_hand, self.last_hand_id = self.hand, self.hand_id
            self.last_owner = dict(self.hand_owner)
        self.hands_played += 1
        log.info("event=hand_ended table=%s hand=%s voided=%s", self.table_id, self.hand_id,
                 voided)
        await self._after_hand()

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
            self._publish(self.projector._ended(self.hand_id, dict(self.start_stacks),
                                                voided=True))
        self.hand = None
        self.round = None
        self.projector = None
        self.start_stacks = {}
        self.turn_seat = None

    async def _after_hand(self) -> None:
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

    # ================================================================ clocks
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
                    self._publish(d)
                return
            await self._timeout(w.arg)
        elif w.kind == "bank" and self.hand is not None:
            st = self.seats[w.arg]
            if st is not None:
                st.bank = 0.0
            await self._timeout(w.arg)
        elif w.kind in ("ante_deadline", "decide_deadline") and self.round is not None:
            events: list[Any] = []
            for s in self.start_stacks:
                if self.round.options(s):
                    events += self.round.timeout(s)
                    self._note_timeout(s)
            await self._apply(events)

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

    # ================================================================ caribbean
    def _caribbean_phase_turns(self, seconds: float, kind: str) -> None:
        assert self.round is not None and self.projector is not None
        self._cancel_timers()
        wall = self.clock.wall() + seconds
        for s in self.start_stacks:
            opts = self.round.options(s)
            if not opts:
                continue
            pid = self.hand_owner[s]
            self._publish(Draft(_builder(m.turn, seat=s, deadline=wall),
                                {pid: _builder(m.turn, seat=s, deadline=wall, options=opts)}))
        self._schedule(kind, seconds, self._token)

    def _caribbean_act(self, seat: int, req: Act) -> list[Any]:
        rnd = self.round
        assert rnd is not None
        if rnd.phase == "antes":
            if req.action == "ante":
                assert req.amount is not None
                return list(rnd.ante(seat, req.amount, jackpot=req.jackpot))
            if req.action == "fold":
                return list(rnd.sit_out(seat))
        elif rnd.phase == "decisions":
            if req.action == "play":
                return list(rnd.play(seat))
            if req.action == "fold":
                return list(rnd.fold(seat))
        raise IllegalAction(rerr.BAD_ACTION, f"{req.action} is not possible now")

    def _pay_jackpot(self, stacks: dict[int, int]) -> dict[int, int]:
        rnd = self.round
        if rnd is None or self.jackpot is None or self.spec.caribbean is None:
            return stacks
        paid = self.jackpot.settle(rnd.contributions(), rnd.jackpot_claims(),
                                   self.spec.caribbean)
        for seat, amount in paid.items():
            stacks[seat] = stacks.get(seat, 0) + amount
        if self.on_jackpot is not None:
            msg = self.jackpot.message(table=self.table_id if paid else None)
            try:
                self.on_jackpot(msg)
            except Exception:  # the listener is the edge's; never stop the table for it
                log.exception("event=jackpot_listener_failed table=%s", self.table_id)
        return stacks

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
        self._cancel_timers()
        for seat, st in enumerate(self.seats):
            if st is not None:
                await self._remove(seat)
        self.stopped = True

    async def cash_out_all(self) -> None:
        """After the task is gone (cancelled): void, refund and credit everyone."""
        if self.in_hand:
            self._void_now("shutdown")
        await self._close()

    # ================================================================ fan-out
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
            log.warning("event=sink_failed table=%s conn=%s error=%r", self.table_id,
                        sink.conn_id, exc)
            self.sinks.pop(sink.conn_id, None)  # no more frames to it, at once
            self.detach(sink)  # and forget it as a seat's connection, in the actor task

    def _publish(self, draft: Draft) -> None:
        """Give ``draft`` the next ``seq``, log it, project once per audience and send."""
        self.seq += 1
        public, private = draft.render(self.table_id, self.seq)
        self.events.append(_LogEntry(self.seq, public, private))
        seated = {s.player_id for s in self.seats if s is not None}
        frames: dict[tuple[str | None, int], str | bytes] = {}
        delayed: list[Sink] = []
        delay = self.spec.spectator_delay
        for sink in list(self.sinks.values()):
            pid = sink.player_id
            if pid is not None and pid in private:
                key: str | None = pid
                msg: Msg | None = private[pid]
            else:
                if delay > 0 and pid not in seated:
                    delayed.append(sink)
                    continue
                key, msg = None, public
            if msg is None:
                continue
            fkey = (key, id(sink.codec))
            frame = frames.get(fkey)
            if frame is None:
                frame = frames[fkey] = sink.codec.encode(msg, check=False)
            self._send(sink, frame)
        if delayed and public is not None:
            self.clock.call_later(delay, lambda: self._send_delayed(public))

    def _send_delayed(self, msg: Msg) -> None:
        seated = {s.player_id for s in self.seats if s is not None}
        frames: dict[int, str | bytes] = {}
        for sink in list(self.sinks.values()):
            if sink.player_id in seated:
                continue
            frame = frames.get(id(sink.codec))
            if frame is None:
                frame = frames[id(sink.codec)] = sink.codec.encode(msg, check=False)
            self._send(sink, frame)

    def _send_snapshot(self, sink: Sink) -> None:
        self._send(sink, sink.codec.encode(self.snapshot_for(sink.player_id)))

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
        elif self.round is not None and me is not None and self.round.options(me):
            turn = {"seat": me, "deadline": self.turn_wall, "options": self.round.options(me)}
        board = list(self.hand.board) if self.hand is not None else []
        pots = [self.hand.pot_total] if self.hand is not None else []
        return m.snapshot(self.table_id, self.seq, variant=self.spec.variant_name,
                          structure=self.spec.structure, stakes=self.spec.stakes_wire,
                          seats=seats, board=board, pots=pots, button=self.button, turn=turn,
                          hand=self.hand_id if self.in_hand else None, name=self.spec.name,
                          settings=self.spec.settings_wire, you=me)


def _builder(fn: Callable[..., Msg], **fields: Any) -> Callable[[str, int], Msg]:
    def build(table: str, seq: int) -> Msg:
        return fn(table, seq, **fields)
    return build


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
}
