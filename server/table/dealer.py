"""The hand a table is playing: start it, apply its engine's events, end or void it.

Rule of this module: :class:`Dealer` owns the running hand (its engine, id, projector,
starting stacks and owners), the ledger marks of hands voided here, and the last hand kept
for SHOW-02; it runs in the table actor's task and is the only writer of those (the game reads them
through the actor, :class:`~server.table.ports.HandView`). It reaches the table only through
its :class:`~server.table.ports.DealerPort` and calls its :class:`~server.table.games.Game`
(given at construction) at fixed points of a hand. Seat stacks
change only here, when a hand ends (or is voided: everyone gets back their stack from before
it). Chips are checked before a hand's result is booked: an engine whose end does not
conserve them (:class:`~server.rules.errors.InvariantError`) voids the hand and refunds, and
never answers a player.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, cast

from protocol import messages as m
from protocol.errors import ERROR_CODES
from protocol.requests import Act
from server.ledger.accounts import is_bot_id
from server.ledger.journal import hand_entries
from server.ledger.store import Transfer
from server.rules import events as ev
from server.rules.engine import Engine, HandEnd, chips_taken, ends_hand
from server.rules.errors import IllegalAction, InvariantError
from server.rules.hand import Hand
from server.table.api import Envelope
from server.table.fanout import draft
from server.table.games import Expired, Game, TimedOut
from server.table.ports import DealerPort
from server.table.projection import HandProjector
from server.table.recording import HandLog
from server.table.wake import Wake

__all__ = ["Dealer"]

log = logging.getLogger("server.table")


class Dealer:
    """One table's running hand (see the module docstring)."""

    def __init__(self, port: DealerPort, recording: HandLog,
                 decks: Sequence[tuple[str, ...]], game: Game) -> None:
        self.port = port
        self.game = game
        self.recording = recording
        self.decks: list[tuple[str, ...]] = list(decks)  # test mode: the coming hands' decks
        self.engine: Engine | None = None
        self.hand_id: str | None = None
        self.button: int | None = None
        self.blinds: tuple[int | None, ...] = ()  # the seats posting this hand's blinds
        self.projector: HandProjector | None = None
        self.start_stacks: dict[int, int] = {}
        self.hand_owner: dict[int, str] = {}
        self.last_hand: Hand | None = None  # SHOW-02
        self.last_hand_id: str | None = None
        self.last_owner: dict[int, str] = {}
        self.voided_marks: list[tuple[str, str]] = []  # (hand id, reason) for the ledger
        self.house_net = 0  # house games: the house's result on antes and calls
        self.hands_played = 0
        self.number = 0  # the hand's number at this table, what people see ("#1" first)

    @property
    def in_hand(self) -> bool:
        return self.engine is not None

    def restore(self, button: int | None, number: int,
                decks: Sequence[Sequence[str]] = ()) -> None:
        """A moved table's button, hands played and (a test table) fixed decks not dealt yet
        (:func:`~server.table.handoff.restore_state`, before the table's task starts)."""
        self.button, self.number = button, number
        self.decks = [tuple(d) for d in decks]

    def live_stack(self, seat: int) -> int:
        if self.engine is not None:
            return self.engine.stacks.get(seat, 0)
        st = self.port.seats[seat]
        return st.stack if st is not None else 0

    # ---------------------------------------------------------------- start
    async def start(self) -> None:
        t = self.port
        await self.ledger_voids()
        if self.in_hand or t.closing or t.paused:
            return
        t.hand_starts()  # a host's changes take effect from this hand
        players = t.seats.eligible()
        if len(players) < self.game.min_players:
            return
        deck = list(self.decks.pop(0)) if self.decks else t.shuffle(t.spec.card_set)
        self.hand_id = await self.recording.new_hand_id()  # unique for ever
        self.number += 1
        placement = self.game.place(players)
        self.blinds = placement.blinds or ()
        if placement.button is not None:
            self.button = placement.button
        seated = [(s, t.seats[s]) for s in placement.players]
        self.start_stacks = {s: st.stack for s, st in seated if st is not None}
        self.hand_owner = {s: st.player_id for s, st in seated if st is not None}
        seed = t.rng(32)
        commitment = self.recording.begin(
            self.hand_id, t.spec, deck, button=placement.button, seed=seed, number=self.number,
            players={str(s): {"player": st.player_id, "name": st.name,
                              "stack": self.start_stacks[s],
                              **({"bot": True} if is_bot_id(st.player_id) else {})}
                     for s, st in sorted(seated, key=lambda x: x[0]) if st is not None})
        self.projector = HandProjector(self.hand_owner, stack_of=self.live_stack,
                                       reveal=self.recording.reveal)
        # crash safety: the hand is durably marked as running before its first card
        await t.wallet.hand_started(t.table_id, self.hand_id, {
            self.hand_owner[s]: stack for s, stack in self.start_stacks.items()})
        t.fanout.publish(draft(m.hand_started, hand=self.hand_id, button=placement.button,
                               commitment=commitment, number=self.number))
        log.debug("event=hand_started table=%s hand=%s players=%d", t.table_id,
                  self.hand_id, len(placement.players))
        self.engine = self.game.new_engine(placement, deck, seed)
        t.hand_dealt()  # (a tournament's director hears who is in it, before any event)
        self.game.opened()
        await self.apply(list(self.engine.start()))

    # ---------------------------------------------------------------- actions
    async def act(self, env: Envelope) -> None:
        """The ``act`` request: one action by the seat's player in the running hand."""
        t = self.port
        req = env.request
        assert isinstance(req, Act)
        seat = t.seats.seat_of(env.sink.player_id)
        if seat is None:
            return t.fanout.answer(env, m.error(req.rid, "not_seated"))
        engine = self.engine
        if engine is None:
            return t.fanout.answer(env, m.error(req.rid, "no_hand"))
        if seat not in self.start_stacks:
            return t.fanout.answer(env, m.error(req.rid, "not_in_hand"))
        try:
            self.game.before_act(seat, req)
            events = engine.act(seat, req.action, req.amount, req.discard or (),
                                jackpot=req.jackpot)
        except IllegalAction as exc:
            code = exc.reason if exc.reason in ERROR_CODES else "bad_action"
            return t.fanout.answer(env, m.error(req.rid, code, exc.message))
        except InvariantError as exc:  # a bug, not the player's doing: void and refund
            t.fanout.answer(env, m.ok(req.rid))
            return await self.invariant_broken(exc)
        st = t.seats[seat]
        assert st is not None
        st.timeouts = 0
        self.game.acted(seat)
        # (the rid was validated by the parser: nothing to check before encoding)
        t.fanout.send(env.sink, env.sink.codec.encode(m.ok(req.rid), check=False))
        await self.apply(events)

    async def time_out(self, seat: int, *, count: bool = True) -> None:
        """The seat's clock (and bank) ran out: the engine's default action for it.
        ``count``: the timeout counts towards sitting the player out (not the over blind's
        question, BLIND-04, where silence is a plain "no")."""
        engine = self.engine
        assert engine is not None
        self.port.turns.cancel()
        if count:
            self.port.note_timeout(seat)
        await self.apply(list(engine.timeout(seat)))

    async def on_wake(self, w: Wake) -> None:
        """A turn's or a phase's clock ran out (a current wake-up, a hand running): the
        game says what it means, the dealer does it."""
        outcome = self.game.on_wake(w)
        if isinstance(outcome, TimedOut):
            await self.time_out(outcome.seat, count=outcome.count)
        elif isinstance(outcome, Expired):
            for seat in outcome.deciding:
                self.port.note_timeout(seat)
            await self.apply(outcome.events)

    # ---------------------------------------------------------------- events
    async def apply(self, events: Sequence[Any]) -> None:
        """Record, project and send engine events; turns; the end of the hand. The turn of
        a player who asked to leave during the hand starts no clock and sends no ``turn``:
        their hand is folded at once (:meth:`fold_leaver`)."""
        t = self.port
        assert self.projector is not None
        self.recording.feed(events)
        leaver: int | None = None
        for e in events:
            if ends_hand(e):
                await self.finish(cast(HandEnd, e))
                return
            if isinstance(e, ev.TurnStarted):
                if self.leaving(e.seat):
                    leaver = e.seat
                    continue
                drafts = self.game.turn_started(e)
            else:
                drafts = self.projector.project(e)
            for d in drafts:
                t.fanout.publish(d)
        self.game.after_events()
        if leaver is not None:
            await self.fold_leaver(leaver)

    def leaving(self, seat: int) -> bool:
        """Whether ``seat``'s player asked to leave (or was removed) during this hand."""
        st = self.port.seats[seat]
        return (st is not None and st.leaving and seat in self.start_stacks
                and self.hand_owner.get(seat) == st.player_id)

    async def fold_leaver(self, seat: int) -> None:
        """A leaving player's decision, now, without a clock: they fold (where folding is
        not an answer, as to the Draw over blind's question, the engine's default
        action)."""
        engine = self.engine
        if engine is None or engine.options(seat) is None:
            return
        if isinstance(engine, Hand):  # (a house game's phase deadline is everyone's)
            self.port.turns.cancel()
        try:
            events = engine.act(seat, "fold")
        except IllegalAction:
            events = list(engine.timeout(seat))
        await self.apply(events)

    def _check_conservation(self, e: HandEnd) -> None:
        before = sum(self.start_stacks.values())
        after = sum(e.stacks.values())
        if set(e.stacks) != set(self.start_stacks):
            raise InvariantError("the seats of the hand changed")
        expected = before - chips_taken(e)
        if after != expected or any(v < 0 for v in e.stacks.values()):
            raise InvariantError(f"chips not conserved: before {before} after {after} "
                                 f"expected {expected}")

    async def invariant_broken(self, exc: InvariantError) -> None:
        """An invariant broke (engine or table): void the hand, refund, log, carry on."""
        log.error("event=invariant_broken table=%s hand=%s error=%r",
                  self.port.table_id, self.hand_id, str(exc))
        self.void_now(str(exc))
        await self.port.after_hand()

    async def finish(self, e: HandEnd) -> None:
        t = self.port
        assert self.projector is not None
        try:
            self._check_conservation(e)
        except InvariantError as exc:
            return await self.invariant_broken(exc)
        stacks = dict(e.stacks)
        if not e.voided:
            self.house_net += chips_taken(e) - e.jackpot_collected
            self.game.settle()
        await self._book(e, stacks)  # durable before anyone sees the end
        drafts = self.projector.project(e)  # (built now: the reveals come from the record)
        # the history too: a player who asks for it on `hand_ended` finds the hand there
        await self.recording.end(e, {s: v - e.stacks.get(s, 0) for s, v in stacks.items()
                                     if v != e.stacks.get(s)})
        for d in drafts:
            t.fanout.publish(d)
        for seat, stack in stacks.items():
            st = t.seats[seat]
            if st is not None:
                st.stack = stack
        if self.game.finished(e) and isinstance(self.engine, Hand):  # SHOW-02
            self.last_hand, self.last_hand_id = self.engine, self.hand_id
            self.last_owner = dict(self.hand_owner)
        self.hands_played += 1
        t.hand_ended()
        log.debug("event=hand_ended table=%s hand=%s voided=%s", t.table_id, self.hand_id,
                  e.voided)
        await t.after_hand()

    async def _book(self, e: HandEnd, stacks: dict[int, int]) -> None:
        """The hand's ledger entries (stacks before and after, rake, house, jackpot) and
        its end, in one atomic batch (see :mod:`server.ledger.journal`)."""
        assert self.hand_id is not None
        owner = self.hand_owner
        start = {owner[s]: v for s, v in self.start_stacks.items()}
        end = {owner[s]: v for s, v in stacks.items()}
        entries: list[Transfer] = []
        if not e.voided:
            paid = sum(stacks.values()) - sum(e.stacks.values())
            entries = hand_entries(start, end, rake=e.rake, house_net=e.house_net,
                                   jackpot_in=e.jackpot_collected, jackpot_out=paid)
        await self.port.wallet.hand_result(self.port.table_id, self.hand_id, entries)

    # ---------------------------------------------------------------- void and after
    def void_now(self, reason: str) -> None:
        """Void the running hand: everyone gets back their stack from before it."""
        t = self.port
        t.turns.end_turn()
        log.warning("event=hand_voided table=%s hand=%s reason=%r", t.table_id,
                    self.hand_id, reason)
        for seat, stack in self.start_stacks.items():
            st = t.seats[seat]
            if st is not None:
                st.stack = stack
        if self.projector is not None and self.hand_id is not None:
            t.fanout.publish(self.projector.voided(self.hand_id, dict(self.start_stacks)))
        if self.hand_id is not None:  # the ledger's mark is closed by ledger_voids
            self.voided_marks.append((self.hand_id, reason))
        self.recording.drop()
        self.clear()

    def clear(self) -> None:
        """The hand is over (ended or voided): nothing runs."""
        self.engine = None
        self.projector = None
        self.start_stacks = {}

    async def ledger_voids(self) -> None:
        """Tell the ledger about hands voided here (their chips never moved there): each
        gets a ``void`` record and its running mark closed. Kept for a retry on failure."""
        t = self.port
        while self.voided_marks:
            hand_id, reason = self.voided_marks[0]
            try:
                await t.wallet.hand_voided(t.table_id, hand_id, reason=reason)
            except Exception:
                log.exception("event=ledger_void_failed table=%s hand=%s", t.table_id,
                              hand_id)
                return
            self.voided_marks.pop(0)
