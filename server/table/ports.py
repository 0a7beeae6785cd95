"""The narrow ports of a table's desks: what each desk may ask of its table (issue 25).

Rule of this module: each desk is built with one of these ports and reaches nothing of the
table but what its port names: :class:`~server.table.seating.SeatDesk` a :class:`SeatPort`,
:class:`~server.table.viewers.ViewerDesk` a :class:`ViewerPort`,
:class:`~server.table.host.HostDesk` a :class:`HostPort`,
:class:`~server.table.dealer.Dealer` a :class:`DealerPort`, the table's
:class:`~server.table.games.Game` a :class:`GamePort`,
:func:`~server.table.snapshot.snapshot_for` a :class:`SnapshotSource`.
The table actor implements every port and is the only mediator between the desks: where a
desk's work needs another desk (a leaver's fold, a host's approval seating a player, a
timeout counted towards sitting out, the host's changes taking effect as a hand starts), the
desk calls its port and the actor calls the other desk; no desk holds another. Where a desk
only decides, it returns its decision as a value instead (a wake-up's outcome from the game to
the dealer, :class:`~server.table.games.TimedOut`; whether a hand is kept for SHOW-02). So no desk
imports :mod:`server.table.actor` (the import contract ``table-desks-ported`` in
``pyproject.toml``), and each is built alone with a fake port in
``tests/table/test_desks_alone.py``.

Data members are read-only properties here (a port never rebinds the table's fields; the
objects it reads, the seat map or the connections, are the table's own and are changed in
its task only).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from protocol.requests import Sit
from server.config import Config
from server.ledger.wallet import Wallet
from server.ratelimit import TokenBucket
from server.rules.engine import Engine
from server.rules.hand import Hand
from server.table.api import Envelope, Sink
from server.table.jackpot import JackpotService
from server.table.projection import Draft, HandProjector, Msg
from server.table.seatmap import SeatMap, SeatRequest, SeatState
from server.table.settings import TableSpec
from server.table.turn_clock import TurnClock

__all__ = ["DealerPort", "GamePort", "HandView", "HasSeats", "HostPort", "LastHand",
           "MuteBook", "Outbox", "SeatPort", "SnapshotSource", "ViewerPort"]


class Outbox(Protocol):
    """How a desk talks to the table's viewers (:class:`~server.table.fanout.Fanout`)."""

    def answer(self, env: Envelope, msg: Msg) -> None: ...
    def send(self, sink: Sink, frame: str | bytes) -> None: ...
    def publish(self, draft: Draft, skip: frozenset[str] | None = None,
                sender: str | None = None) -> None: ...
    def send_snapshot(self, sink: Sink) -> None: ...
    def replay(self, sink: Sink, since: int) -> None: ...


class MuteBook(Protocol):
    """The process's mutes (:class:`~server.table.lobby.Mutes`), as a table's chat uses them."""

    def muters_of(self, sender: str) -> frozenset[str]: ...
    def set(self, muter: str, target: str, on: bool) -> bool: ...


class HasSeats(Protocol):
    @property
    def seats(self) -> SeatMap: ...


class HandView(Protocol):
    """The running hand as the game and the snapshot read it (the
    :class:`~server.table.dealer.Dealer`'s own fields, read only)."""

    @property
    def hand_id(self) -> str | None: ...
    @property
    def button(self) -> int | None: ...
    @property
    def number(self) -> int: ...
    @property
    def start_stacks(self) -> dict[int, int]: ...
    @property
    def hand_owner(self) -> dict[int, str]: ...
    @property
    def projector(self) -> HandProjector | None: ...


@dataclass(frozen=True, slots=True)
class LastHand:
    """SHOW-02: the last hand kept for ``show_hands``, its id, and the running hand's id."""

    hand: Hand | None
    hand_id: str | None
    current: str | None


class _Table(Protocol):
    """What every desk reads: the table's id, settings, seats and viewers."""

    @property
    def table_id(self) -> str: ...
    @property
    def spec(self) -> TableSpec: ...
    @property
    def seats(self) -> SeatMap: ...
    @property
    def fanout(self) -> Outbox: ...
    @property
    def in_hand(self) -> bool: ...


class SeatPort(_Table, Protocol):
    """:class:`~server.table.seating.SeatDesk`'s port."""

    @property
    def config(self) -> Config: ...
    @property
    def wallet(self) -> Wallet: ...
    @property
    def sinks(self) -> dict[int, Sink]: ...
    @property
    def turns(self) -> TurnClock: ...
    @property
    def closing(self) -> bool: ...
    @property
    def frozen(self) -> Callable[[str], bool]: ...
    # the neighbours, through the actor
    def dealt_in(self, seat: int) -> bool:
        """Whether ``seat`` plays the running hand (the dealer's)."""
        ...
    async def fold_leaver(self, seat: int) -> None: ...
    def needs_approval(self, player_id: str) -> bool: ...
    def is_removed(self, player_id: str) -> bool: ...
    def request_seat(self, env: Envelope, req: Sit) -> None: ...
    def seats_changed(self) -> None: ...
    def game_seated(self, st: SeatState) -> None: ...


class ViewerPort(_Table, Protocol):
    """:class:`~server.table.viewers.ViewerDesk`'s port."""

    @property
    def sinks(self) -> dict[int, Sink]: ...
    @property
    def chat_bucket(self) -> TokenBucket: ...
    @property
    def mutes(self) -> MuteBook | None: ...
    @property
    def private(self) -> bool: ...
    def last_hand(self) -> LastHand: ...


class HostPort(_Table, Protocol):
    """:class:`~server.table.host.HostDesk`'s port."""

    @property
    def config(self) -> Config: ...
    @property
    def wallet(self) -> Wallet: ...
    @property
    def sinks(self) -> dict[int, Sink]: ...
    @property
    def practice(self) -> bool: ...
    def use_spec(self, spec: TableSpec) -> None: ...
    async def close_for_good(self, reason: str, *, after_hand: bool = False) -> None: ...
    # the seat desk, through the actor
    async def seat_requested(self, asked: SeatRequest) -> str | None: ...
    async def take_off(self, seat: int) -> bool: ...


class DealerPort(_Table, Protocol):
    """:class:`~server.table.dealer.Dealer`'s port."""

    @property
    def wallet(self) -> Wallet: ...
    @property
    def turns(self) -> TurnClock: ...
    @property
    def closing(self) -> bool: ...
    @property
    def paused(self) -> bool: ...
    @property
    def rng(self) -> Callable[[int], bytes]: ...
    @property
    def shuffle(self) -> Callable[[Sequence[str]], list[str]]: ...
    def hand_starts(self) -> None: ...
    def note_timeout(self, seat: int) -> None: ...
    def hand_ended(self) -> None: ...
    async def after_hand(self) -> None: ...


class GamePort(_Table, Protocol):
    """The table's :class:`~server.table.games.Game`'s port."""

    @property
    def config(self) -> Config: ...
    @property
    def turns(self) -> TurnClock: ...
    @property
    def practice(self) -> bool: ...
    @property
    def jackpot(self) -> JackpotService | None: ...
    @property
    def engine(self) -> Engine | None: ...
    @property
    def hand_view(self) -> HandView: ...


class SnapshotSource(_Table, Protocol):
    """What :func:`~server.table.snapshot.snapshot_for` reads."""

    @property
    def seq(self) -> int: ...
    @property
    def engine(self) -> Engine | None: ...
    @property
    def turns(self) -> TurnClock: ...
    @property
    def hand_view(self) -> HandView: ...
    def host_state(self, player_id: str | None) -> Msg | None: ...
