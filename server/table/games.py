"""What a table does differently for a pot game and for a house game, in one place.

Rule of this module: the table holds one :class:`Game` (built from the spec's kind by
:func:`game_for`); its :class:`~server.table.dealer.Dealer` calls it at fixed points of a hand
(the actor at a wake-up, a seat taken, a spec changed, the lobby entry), and nobody asks which
game it holds. A game reaches the table only through its :class:`~server.table.ports.GamePort`:
it reads the running hand there (:class:`~server.table.ports.HandView`) and never writes the
dealer's fields; a wake-up's outcome (:class:`TimedOut`, :class:`Expired`) goes back to the
dealer as a value.

* :class:`PotGame` (hold'em, Manila, draw, stud): GEN-05's button and blinds place the
  players; one seat acts at a time on its action clock, then its time bank (``turn`` after
  each ``TurnStarted``), but a disconnected player's turn ends with the action clock unless
  the table's ``bank_when_disconnected``; a player who asked to leave during the hand gets
  no turn (the dealer folds them: :meth:`~server.table.dealer.Dealer.apply`); SHOW-02 keeps
  the last hand for ``show_hands``.
* :class:`HouseGame` (Caribbean Stud): every seat decides at once in each phase, by one
  deadline (the ante phase ``spec.ante_time``, the decisions the table's ``action_clock``); the
  jackpot service hears of the round when it is dealt (CSP-10) and when it ends (CSP-08..12);
  a jackpot wager past the house's ``max_pool`` is refused (GEN-10).
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from dataclasses import dataclass
from typing import Any, Protocol

from protocol import messages as m
from protocol.requests import Act
from server.jackpot.base import Claim
from server.rules import errors as rerr
from server.rules import events as ev
from server.rules.button import Positions
from server.rules.caribbean import CaribbeanRound, JackpotWagered
from server.rules.engine import Engine
from server.rules.errors import IllegalAction
from server.rules.hand import Hand
from server.rules.vocabulary import CaribbeanPhase
from server.table.blinds import BlindPlan
from server.table.fanout import builder
from server.table.house import lobby_terms
from server.table.ports import GamePort
from server.table.projection import Draft
from server.table.seatmap import SeatState
from server.table.settings import HouseSpec, PotSpec, TableSpec
from server.table.wake import Wake, WakeKind

__all__ = ["Expired", "Game", "HouseGame", "Placement", "PotGame", "RUN_SCOPE", "TimedOut",
           "game_for", "jackpot_round"]

log = logging.getLogger("server.table")

# Hand ids are unique for ever, but the jackpot's keys (its global order, the contributions,
# the payouts' ledger idempotency keys) also carry a scope unique to this process run
# (CSP-12: each wager added once, each payout made once, never one round's key mistaken for
# another's).
RUN_SCOPE = secrets.token_hex(6)


def jackpot_round(hand_id: str, node: str) -> str:
    """The globally unique jackpot id of the round ``hand_id`` of this process run."""
    return f"{hand_id}@{node}.{RUN_SCOPE}"


@dataclass(frozen=True, slots=True)
class Placement:
    """Who plays the next hand and where the button and blinds are (pot games)."""

    players: list[int]
    button: int | None = None
    blinds: tuple[int | None, ...] | None = None  # the seat posting each blind (None: dead)
    entry: tuple[int, ...] = ()  # GEN-05 ``post_to_enter``: big blinds posted to come in


@dataclass(frozen=True, slots=True)
class TimedOut:
    """A wake-up's outcome at a pot game: ``seat``'s clock (and bank) ran out; the dealer
    plays the engine's default action for it (``count``: towards sitting the player out)."""

    seat: int
    count: bool = True


@dataclass(frozen=True, slots=True)
class Expired:
    """A wake-up's outcome at a house game: the phase's deadline passed; ``deciding`` (each
    timeout counted) get the round's default, ``events`` (:meth:`CaribbeanRound.expire`)."""

    deciding: tuple[int, ...]
    events: list[Any]


class Game(Protocol):
    """The table's calls into its game (see the module docstring)."""

    min_players: int

    def seated(self, st: SeatState) -> None: ...
    def use_spec(self, spec: TableSpec) -> None: ...
    def place(self, players: list[int]) -> Placement: ...
    def new_engine(self, placement: Placement, deck: list[str], seed: bytes) -> Engine: ...
    def opened(self) -> None: ...
    def turn_started(self, e: ev.TurnStarted) -> list[Draft]: ...
    def after_events(self) -> None: ...
    def on_wake(self, w: Wake) -> TimedOut | Expired | None:
        """A turn's or a phase's clock ran out: what the dealer does about it (None: nothing,
        or the game handled it itself, as a time bank starting)."""
        ...
    def before_act(self, seat: int, req: Act) -> None: ...
    def acted(self, seat: int) -> None: ...
    def settle(self) -> None: ...
    def finished(self, end: object) -> bool:
        """The hand ended: whether the dealer keeps it for SHOW-02's ``show_hands``."""
        ...
    def lobby_entry(self) -> dict[str, Any]: ...
    def positions(self) -> Positions | None:
        """The last hand's button and blinds (GEN-05), for a move; None at a house game."""
        ...
    def restore_positions(self, positions: Positions) -> None: ...


class PotGame:
    """A pot game's table behaviour (see the module docstring)."""

    min_players = 2

    def __init__(self, port: GamePort, spec: PotSpec) -> None:
        self.port = port
        self.spec = spec
        self.blinds = BlindPlan(spec)  # GEN-05: the last hand's button and blinds

    def use_spec(self, spec: TableSpec) -> None:
        assert isinstance(spec, PotSpec)
        self.spec = self.blinds.spec = spec

    def seated(self, st: SeatState) -> None:
        """GEN-05: a player who sits down once the blinds have started waits for the big
        blind (or posts one to come in at once: ``post_to_enter``)."""
        if (self.blinds.positions is not None and self.spec.uses_blinds
                and self.blinds.waits is None):  # (a tournament's table: TOUR-09)
            st.wait_for_bb = True
            st.post_bb = self.spec.post_to_enter

    def place(self, players: list[int]) -> Placement:
        button, blinds, playing, entry = self.blinds.place(self.port.seats, players)
        return Placement(playing, button, blinds, tuple(entry))

    def new_engine(self, placement: Placement, deck: list[str], seed: bytes) -> Engine:
        t = self.port
        assert placement.button is not None and t.hand_view.hand_id is not None
        return Hand(self.spec.variant, self.spec.rules, dict(t.hand_view.start_stacks),
                    button=placement.button, deck=deck, num_seats=self.spec.seats,
                    hand_id=t.hand_view.hand_id, seed=seed, blinds=placement.blinds,
                    entry_posts=list(placement.entry),
                    ask_over_blind=self.spec.asks_over_blind)  # BLIND-04, STRAD-01

    def opened(self) -> None:
        return None

    def turn_started(self, e: ev.TurnStarted) -> list[Draft]:
        t = self.port
        t.turns.start_turn(e.seat, self.spec.over_blind_clock if self._asking_over_blind()
                           else self.spec.action_clock)
        return self._turn_drafts(e)

    def _asking_over_blind(self) -> bool:
        """BLIND-04: the turn is the over blind's (or STRAD-01's straddle's) question before the
        deal, RIT-02's run-it-twice question or SHOWWIN-01's show-or-muck (its own short
        clock, no time bank: no answer is "no")."""
        hand = self.port.engine
        return isinstance(hand, Hand) and (hand.over_blind_ask is not None
                                           or bool(hand.runout_ask)
                                           or hand.show_ask is not None)

    def _turn_drafts(self, e: ev.TurnStarted) -> list[Draft]:
        """The ``turn`` announcement: options to the player, the deadline and bank to all."""
        t = self.port
        assert t.engine is not None and t.hand_view.projector is not None
        opts = t.engine.options(e.seat)
        st = t.seats[e.seat]
        # a question (over blind, straddle, run it twice, show) never runs into the bank
        bank = round(st.bank, 3) if st is not None and not self._asking_over_blind() else None
        return t.hand_view.projector.project(
            e, deadline=t.turns.wall, options=opts.to_wire() if opts else {},
            time_bank=bank, in_bank=t.turns.in_bank)

    def after_events(self) -> None:
        return None

    def on_wake(self, w: Wake) -> TimedOut | None:
        t = self.port
        hand = t.engine
        if not isinstance(hand, Hand) or w.kind not in (WakeKind.TURN, WakeKind.BANK):
            return None
        st = t.seats[w.arg]
        if w.kind is WakeKind.TURN:
            if (st is not None and st.bank > 0 and not t.turns.in_bank
                    and not self._asking_over_blind()
                    and (st.sink is not None or self.spec.bank_when_disconnected)):
                t.turns.start_bank(w.arg, st.bank)
                # announce the bank: the same turn, its deadline moved to the bank's end
                for d in self._turn_drafts(ev.TurnStarted(w.arg, hand.street)):
                    t.fanout.publish(d)
                return None
            return TimedOut(w.arg, count=not self._asking_over_blind())
        if st is not None:  # (the bank ran out)
            st.bank = 0.0
        return TimedOut(w.arg)

    def before_act(self, seat: int, req: Act) -> None:
        return None

    def acted(self, seat: int) -> None:
        """The seat acted in its bank: what it used is gone (the bank is not refilled)."""
        t = self.port
        st = t.seats[seat]
        if st is not None and t.turns.in_bank and t.turns.seat == seat:
            st.bank = max(0.0, st.bank - t.turns.bank_spent())

    def settle(self) -> None:
        return None

    def finished(self, end: object) -> bool:
        """SHOW-02: the last hand's mucked cards may be shown until the next hand starts."""
        return isinstance(end, ev.HandEnded) and isinstance(self.port.engine, Hand)

    def lobby_entry(self) -> dict[str, Any]:
        bp, cap = self.spec.rake
        return {"rake": {"bp": bp, "cap": cap}}  # GEN-09: the house's revenue here

    def positions(self) -> Positions | None:
        return self.blinds.positions

    def restore_positions(self, positions: Positions) -> None:
        self.blinds.positions = positions


class HouseGame:
    """A house game's table behaviour (see the module docstring)."""

    min_players = 1

    def __init__(self, port: GamePort, spec: HouseSpec) -> None:
        self.port = port
        self.spec = spec
        self.phase = ""  # the round's phase when its events were last sent

    def use_spec(self, spec: TableSpec) -> None:
        assert isinstance(spec, HouseSpec)
        self.spec = spec

    def seated(self, st: SeatState) -> None:
        return None

    def positions(self) -> Positions | None:
        return None

    def restore_positions(self, positions: Positions) -> None:
        return None

    def place(self, players: list[int]) -> Placement:
        return Placement(players)

    def new_engine(self, placement: Placement, deck: list[str], seed: bytes) -> Engine:
        t = self.port
        assert t.hand_view.hand_id is not None
        rnd = CaribbeanRound(self.spec.caribbean, dict(t.hand_view.start_stacks), deck,
                             round_id=t.hand_view.hand_id)
        self.phase = rnd.phase
        return rnd

    def _round(self) -> CaribbeanRound | None:
        rnd = self.port.engine
        return rnd if isinstance(rnd, CaribbeanRound) else None

    def opened(self) -> None:
        self._phase_turns(self.spec.ante_time, WakeKind.ANTE_DEADLINE)

    def turn_started(self, e: ev.TurnStarted) -> list[Draft]:
        return []  # (a round has no single turn)

    def _phase_turns(self, seconds: float, kind: WakeKind) -> None:
        t = self.port
        rnd = self._round()
        assert rnd is not None
        if kind is WakeKind.DECIDE_DEADLINE:
            self._jackpot_eligible(rnd)
        wall = t.turns.start_phase(kind, seconds)
        for s in t.hand_view.start_stacks:
            opts = rnd.options(s)
            if opts is None:
                continue
            owner = t.hand_view.hand_owner[s]
            t.fanout.publish(Draft(builder(m.turn, seat=s, deadline=wall),
                                   {owner: builder(m.turn, seat=s, deadline=wall,
                                                   options=opts.to_wire())}))

    def after_events(self) -> None:
        """A round just dealt opens its decision phase (one deadline for every player)."""
        rnd = self._round()
        if rnd is not None and rnd.phase != self.phase:
            self.phase = rnd.phase
            if rnd.phase == CaribbeanPhase.DECISIONS:
                self._phase_turns(self.spec.action_clock, WakeKind.DECIDE_DEADLINE)

    def on_wake(self, w: Wake) -> Expired | None:
        rnd = self._round()
        if rnd is None or w.kind not in (WakeKind.ANTE_DEADLINE, WakeKind.DECIDE_DEADLINE):
            return None
        deciding = tuple(rnd.deciding())
        return Expired(deciding, list(rnd.expire()))

    def before_act(self, seat: int, req: Act) -> None:
        """GEN-10: a jackpot wager whose pool share would take a pool past the operator's
        ``max_pool`` is refused (``limit_exceeded``) before anything changes."""
        t = self.port
        rnd = self._round()
        terms = self.spec.caribbean
        if req.jackpot and t.practice:  # play money never reaches the shared jackpot
            raise IllegalAction(rerr.LIMIT_EXCEEDED, "a practice table has no jackpot: ante "
                                "without the jackpot wager")
        if not req.jackpot or rnd is None or t.jackpot is None or terms.max_pool <= 0:
            return
        opts = rnd.options(seat)
        if opts is None or not opts.sit_out:  # only an ante carries the wager
            return
        state = t.jackpot.meter.state
        minor, major, _ = terms.split_wager(terms.jackpot_wager)
        if state.minor + minor > terms.max_pool or state.major + major > terms.max_pool:
            raise IllegalAction(rerr.LIMIT_EXCEEDED,
                                f"the jackpot is at the house's limit of {terms.max_pool}; "
                                "ante without the jackpot wager")

    def acted(self, seat: int) -> None:
        return None

    def settle(self) -> None:
        """The round is over: hand its contributions and qualifying hands to the jackpot
        service (CSP-08..CSP-12). Payouts come later, to the players' accounts, once every
        hand placed before this one has settled (CSP-10); the stacks are unchanged."""
        t = self.port
        rnd = self._round()
        if rnd is None or t.jackpot is None:
            return
        scoped = jackpot_round(rnd.round_id, t.config.node)
        claims = [Claim(scoped, c.seat, t.hand_view.hand_owner[c.seat], c.hand, c.eligible_at)
                  for c in rnd.jackpot_claims()]
        contributions = [dataclasses.replace(c, round_id=scoped) for c in rnd.contributions()]
        try:
            t.jackpot.hand_settled(scoped, table=t.table_id, settings=self.spec.caribbean,
                                   contributions=contributions, claims=claims,
                                   ledger_hand=rnd.round_id)
        except Exception:  # the jackpot must never stop the table
            log.exception("event=jackpot_report_failed table=%s hand=%s", t.table_id,
                            rnd.round_id)

    def _jackpot_eligible(self, rnd: CaribbeanRound) -> None:
        """CSP-10: the round has just been dealt (first and last cards leave together here):
        a round with a jackpot wager takes its place in the global order."""
        t = self.port
        if t.jackpot is None or not any(isinstance(e, JackpotWagered) for e in rnd.events):
            return
        try:
            t.jackpot.hand_eligible(jackpot_round(rnd.round_id, t.config.node),
                                    max_seconds=self.spec.action_clock + t.config.jackpot_lease)
        except Exception:
            log.exception("event=jackpot_register_failed table=%s hand=%s", t.table_id,
                            rnd.round_id)

    def finished(self, end: object) -> bool:
        return False

    def lobby_entry(self) -> dict[str, Any]:
        # no rake (its edge); CSP-13: the operator's terms, the same at every table
        return {"rake": {"bp": 0, "cap": 0}, "jackpot_terms": lobby_terms(self.port.config)}


def game_for(port: GamePort, spec: TableSpec) -> Game:
    """The table's game, by the spec's kind."""
    if isinstance(spec, HouseSpec):
        return HouseGame(port, spec)
    return PotGame(port, spec)
