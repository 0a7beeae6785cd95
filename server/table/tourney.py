"""A tournament's table: what changes when a table plays for a tournament (issue 27).

Rule of this module: :class:`TourneyDesk` is the table's side of its tournament, owned by the
table actor (run in its task): the director (:mod:`server.tournament.director`) never writes
the table; it sends the actor messages (``ask``/``call``) that run the methods here, and it
hears of the table only through the :class:`TourneyHooks` it gave (a report as each hand is
dealt and as each hand is over). At a tournament table:

- players are seated and removed by the director only (``place``, ``remove``): ``sit``,
  ``leave`` and a rebuy are refused (``not_allowed``); chips come from and go back to the
  player's tournament chips (the table's wallet is the tournament's, TOUR-02);
- the table never starts a hand by itself: its director deals each one
  (``TableActor.tourney_deal``, with the level's stakes) once its decisions after the last
  hand are made (balancing, breaking, hand-for-hand, TOUR-05..10) and the pause is over;
- a sitting-out or disconnected player is dealt in and posts (TOUR-13:
  ``SeatMap.deal_sitting_out``);
- a newly seated player is dealt in at once, except between the small blind and the button
  (TOUR-09): :meth:`waits` is asked by the blind plan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from protocol import messages as m
from protocol.requests import Host, Leave, Sit
from server.ledger.wallet import Wallet
from server.rules.cards import card_key
from server.table.api import Envelope, Sink
from server.table.dealer import Dealer
from server.table.games import Game
from server.table.handoff import DetachedSink
from server.table.lifecycle import Lifecycle
from server.table.ports import Outbox
from server.table.seating import SeatDesk
from server.table.seatmap import SeatMap, SeatState
from server.table.settings import TableSpec

__all__ = ["HandDealt", "HandOver", "TourneyDesk", "TourneyHooks", "TourneyTable", "in_dead_zone",
           "add_chips", "deal", "hand_over", "join", "place", "refill_banks",
           "refused", "remove", "report_dealt", "restart_seq"]


@dataclass(frozen=True, slots=True)
class HandDealt:
    """A tournament table dealt a hand: who is in it, where, with what."""

    table: str
    hand: str
    players: dict[str, int]  # player -> seat
    stacks: dict[str, int]  # player -> chips at the start
    button: int | None
    blinds: tuple[int | None, ...]  # the seat posting each blind (None: dead); () in stud


@dataclass(frozen=True, slots=True)
class HandOver:
    """A tournament table's hand is over (booked, or voided): everyone seated there now."""

    table: str
    hand: str
    voided: bool
    stacks: dict[str, int]  # player -> chips, every seated player
    seats: dict[str, int]  # player -> seat
    high_cards: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Of each player out (no chips): their best hole card of the hand, (rank, suit), for
    POT-01's odd chip of a tied prize (TOUR-11); never sent to anyone."""


class TourneyHooks(Protocol):
    """What a tournament's director hears from its tables (called in the table's task; the
    director only enqueues): each hand's end."""

    def hand_over(self, report: HandOver) -> None: ...


def in_dead_zone(seat: int, button: int, small_blind: int, seats: int) -> bool:
    """TOUR-09: ``seat`` lies clockwise strictly after the button and strictly before the
    small blind."""
    return 0 < (seat - button) % seats < (small_blind - button) % seats


@dataclass(slots=True)
class TourneyDesk:
    """One tournament table's state of its tournament (see the module docstring)."""

    tournament: str
    hooks: TourneyHooks
    fresh: set[str] = field(default_factory=set)  # seated since the table's last hand
    hand: str | None = None  # the hand dealt and not yet reported over
    last_dealt: HandDealt | None = None  # the last hand dealt (its director's answer)

    # ---------------------------------------------------------------- dealing
    def waits(self, st: SeatState, seat: int, button: int,
              blinds: Sequence[int | None], n_seats: int) -> bool:
        """TOUR-09: whether a newly seated player sits this hand out (dead zone)."""
        small = blinds[0] if blinds else None
        return (st.player_id in self.fresh and small is not None and len(blinds) > 1
                and in_dead_zone(seat, button, small, n_seats))

    def dealt(self, report: HandDealt) -> None:
        self.hand = report.hand
        self.last_dealt = report
        self.fresh -= set(report.players)

    def over(self, table: str, seats: SeatMap, *, voided: bool,
             hole: Callable[[int], list[str]] | None = None) -> None:
        """The hand is over and the table settled: tell the director; wait for its go.
        ``hole``: the hand's hole cards of a seat (POT-01), when it was played out."""
        if self.hand is None:
            return
        hand, self.hand = self.hand, None
        high: dict[str, tuple[int, int]] = {}
        for i, st in seats.occupied():
            cards = hole(i) if hole is not None and st.stack == 0 else []
            if cards:
                best = max(card_key(c) for c in cards)
                high[st.player_id] = (best // 4, best % 4)
        self.hooks.hand_over(HandOver(
            table, hand, voided,
            stacks={st.player_id: st.stack for _, st in seats.occupied()},
            seats={st.player_id: i for i, st in seats.occupied()}, high_cards=high))


class TourneyTable(Protocol):
    """What the director's operations need of a table (the actor; run in its task through
    ``TableActor.ask``)."""

    @property
    def table_id(self) -> str: ...
    @property
    def wallet(self) -> Wallet: ...
    @property
    def seats(self) -> SeatMap: ...
    @property
    def sinks(self) -> dict[int, Sink]: ...
    @property
    def seat_desk(self) -> SeatDesk: ...
    @property
    def tourney(self) -> TourneyDesk | None: ...
    @property
    def in_hand(self) -> bool: ...


async def place(t: TourneyTable, player: str, name: str, seat: int, stack: int, *,
                fresh: bool = True) -> bool:
    """Seat ``player`` at ``seat`` with ``stack`` of their tournament chips (a draw, a move,
    an entry; ``fresh``: new at this table, TOUR-09, which a restored seat is not). False
    when the seat is taken, the player is seated already or the chips are not theirs
    (nothing changed)."""
    desk = t.tourney
    assert desk is not None
    if not 0 <= seat < len(t.seats) or t.seats[seat] is not None:
        return False
    if t.seats.seat_of(player) is not None or stack <= 0:
        return False
    if not await t.wallet.buy_in(player, t.table_id, stack, reason=f"seat {t.table_id}"):
        return False
    sink: Sink = next((s for s in t.sinks.values() if s.player_id == player),
                      None) or DetachedSink(player, name)
    if fresh:
        desk.fresh.add(player)
    t.seat_desk.seat_player(seat, player, name, stack, sink)
    return True


async def remove(t: TourneyTable, player: str) -> int | None:
    """Take ``player`` off the table between hands, their chips back to their tournament
    chips; their stack (None when not seated here, or a hand is running)."""
    seat = t.seats.seat_of(player)
    if seat is None or t.in_hand:
        return None
    st = t.seats[seat]
    assert st is not None
    stack = st.stack + st.topup
    await t.seat_desk.remove(seat)
    if t.tourney is not None:
        t.tourney.fresh.discard(player)
    return stack


def refill_banks(t: TourneyTable, seconds: float, cap: float) -> None:
    """TOUR-13: a new level refills every seated player's time bank, up to ``cap``."""
    for _, st in t.seats.occupied():
        st.bank = min(cap, st.bank + seconds)


async def add_chips(t: TourneyTable, player: str, amount: int) -> bool:
    """TOUR-14: a rebuy's or an add-on's chips onto ``player``'s stack between hands (their
    tournament chips to the table). False when not seated here or a hand is running."""
    seat = t.seats.seat_of(player)
    if seat is None or t.in_hand or amount <= 0:
        return False
    st = t.seats[seat]
    assert st is not None
    if not await t.wallet.buy_in(player, t.table_id, amount, reason=f"chips {t.table_id}"):
        return False
    st.stack += amount
    t.seat_desk.announce_stack(seat)
    return True


class DealingTable(TourneyTable, Protocol):
    """What joining a tournament and dealing for it need of a table (the actor)."""

    @property
    def dealer(self) -> Dealer: ...
    @property
    def game(self) -> Game: ...
    @property
    def lifecycle(self) -> Lifecycle: ...
    def use_spec(self, spec: TableSpec) -> None: ...


def join(t: DealingTable, desk: TourneyDesk) -> None:
    """The registry, before the actor runs: ``t`` plays for a tournament (TOUR-09, 13)."""
    t.tourney = desk  # type: ignore[misc]  # (the registry's write: no task runs it yet)
    t.seats.deal_sitting_out = True
    blinds = getattr(t.game, "blinds", None)
    if blinds is not None:
        blinds.waits = desk.waits


async def deal(t: DealingTable, spec: TableSpec | None) -> HandDealt | None:
    """Its director, in the table's task: deal the next hand now (at ``spec``'s stakes, when
    given); what was dealt, or None when no hand could start."""
    desk = t.tourney
    assert desk is not None
    if spec is not None:
        t.use_spec(spec)
    if t.in_hand or not t.lifecycle.may_start_hand:
        return None
    desk.last_dealt = None
    await t.dealer.start()  # (reports the deal, report_dealt; the hand may even end at once)
    return desk.last_dealt


def report_dealt(t: DealingTable) -> None:
    """The table's ``DealerPort.hand_dealt``: at a tournament's table, the deal's report."""
    if t.tourney is not None:
        d = t.dealer
        assert d.hand_id is not None
        t.tourney.dealt(HandDealt(
            t.table_id, d.hand_id, {p: s for s, p in d.hand_owner.items()},
            {d.hand_owner[s]: v for s, v in d.start_stacks.items()}, d.button, d.blinds))


class _Answering(DealingTable, Protocol):
    @property
    def fanout(self) -> Outbox: ...


def restart_seq(t: _Answering, seq: int) -> None:
    """A restored tournament table (TOUR-15) numbers its events from ``seq`` on: past any
    number a client of the lost one saw, so that each ``resume`` gets a snapshot, never the
    new table's events as if they followed the old one's."""
    t.fanout.resume_from(seq)


def refused(t: _Answering, env: Envelope) -> bool:
    """At a tournament's table ``sit``, ``leave`` and ``host`` are refused ``not_allowed``
    (the director seats and removes players; chips stay in play, TOUR-13)."""
    if t.tourney is None or not isinstance(env.request, Sit | Leave | Host):
        return False
    t.fanout.answer(env, m.error(env.request.rid, "not_allowed",
                                 "A tournament seats its players and keeps their chips in play."))
    return True


def hand_over(t: DealingTable, *, voided: bool) -> None:
    """After a tournament table's hand (settled): the report to its director, with the
    hole cards of the hand when it was played out (POT-01 for a tie among players out)."""
    desk = t.tourney
    if desk is None:
        return
    last = t.dealer.last_hand
    played = last is not None and t.dealer.last_hand_id == desk.hand
    desk.over(t.table_id, t.seats, voided=voided,
              hole=last.hole_cards if played and last is not None else None)
