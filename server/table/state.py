"""The state every part of a table actor shares, and its small helpers.

:class:`TableState` declares the fields; the behaviour lives in mixins by concept
(:mod:`~server.table.seating`, :mod:`~server.table.turn_clock`,
:mod:`~server.table.caribbean_table`) joined in :class:`~server.table.actor.TableActor`, which
keeps the core (inbox loop, dispatch, hands, fan-out). The rule of
:mod:`server.table.actor` holds for all of them: only the actor's task runs this code.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from server.config import Config
from server.ledger.wallet import Wallet
from server.rules.caribbean import CaribbeanRound
from server.rules.engine import Engine
from server.rules.hand import Hand
from server.table.api import Clock, Sink, Timer
from server.table.fanout import Fanout, LogEntry
from server.table.jackpot import JackpotService
from server.table.projection import HandProjector, Msg
from server.table.settings import TableSpec

if TYPE_CHECKING:
    import asyncio

    from server.net.ratelimit import TokenBucket
    from server.table.blinds import BlindPlan
    from server.table.lobby import Mutes

log = logging.getLogger("server.table")

@dataclass(slots=True)
class SeatState:
    player_id: str
    name: str
    stack: int
    bank: float
    sink: Sink | None = None
    sitting_out: bool = False
    leaving: bool = False
    wait_for_bb: bool = False  # GEN-05: sits out until the big blind reaches this seat
    post_bb: bool = False  # GEN-05 ``post_to_enter``: posts a big blind to come in at once
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


def _builder(fn: Callable[..., Msg], **fields: Any) -> Callable[[str, int], Msg]:
    def build(table: str, seq: int) -> Msg:
        return fn(table, seq, **fields)
    return build


class TableState:
    """Fields of one table (see :class:`~server.table.actor.TableActor`, which sets them)."""

    table_id: str
    spec: TableSpec
    config: Config
    wallet: Wallet
    clock: Clock
    rng: Callable[[int], bytes]
    shuffle: Callable[[Sequence[str]], list[str]]
    jackpot: JackpotService | None
    on_jackpot: Callable[[Msg], None] | None
    on_hand_end: Callable[[], None] | None
    seats: list[SeatState | None]
    fanout: Fanout
    sinks: dict[int, Sink]  # the fan-out's (the same dict)
    waiting: list[_Waiter]
    changes: list[tuple[str, int]]
    decks: list[tuple[str, ...]]
    button: int | None
    blinds: BlindPlan  # GEN-05: the button and blinds (server.table.blinds)
    hand_no: int
    hand: Hand | None
    round: CaribbeanRound | None
    hand_id: str | None
    projector: HandProjector | None
    start_stacks: dict[int, int]
    hand_owner: dict[int, str]
    last_hand: Hand | None
    last_hand_id: str | None
    last_owner: dict[int, str]
    turn_seat: int | None
    turn_deadline: float
    turn_wall: float
    in_bank: bool
    _token: int
    _timers: list[Timer]
    _next_hand: Timer | None
    closing: bool
    stopped: bool
    house_net: int
    inbox: asyncio.Queue[object]
    _external: int
    _current: object
    fault: BaseException | None
    hands_played: int
    chat_bucket: TokenBucket  # the table's chat limit (Config.chat_rate_per_table)
    mutes: Mutes | None

    _round_phase: str

    @property
    def seq(self) -> int:
        """The last event's ``seq`` (the fan-out's)."""
        return self.fanout.seq

    @property
    def events(self) -> deque[LogEntry]:
        """The event log kept for ``resume`` (the fan-out's)."""
        return self.fanout.events

    @property
    def in_hand(self) -> bool:
        return self.hand is not None or self.round is not None

    @property
    def engine(self) -> Engine | None:
        """The running hand, whatever its game (:class:`~server.rules.engine.Engine`)."""
        return self.hand if self.hand is not None else self.round
    def _seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for i, s in enumerate(self.seats):
            if s is not None and s.player_id == player_id:
                return i
        return None


    # implemented by the actor core (server.table.actor)
    def detach(self, sink: Sink) -> None:
        raise NotImplementedError

    async def _apply(self, events: list[Any]) -> None:
        raise NotImplementedError

    async def _start_hand(self) -> None:
        raise NotImplementedError

    def _live_stack(self, seat: int) -> int:
        raise NotImplementedError

    # implemented by the mixins
    def snapshot_for(self, player_id: str | None) -> Msg:
        raise NotImplementedError

    def _schedule(self, kind: str, delay: float, token: int, arg: Any = None) -> Timer:
        raise NotImplementedError

    def _cancel_timers(self) -> None:
        raise NotImplementedError

    def _set_sitting_out(self, seat: int, value: bool) -> None:
        raise NotImplementedError
