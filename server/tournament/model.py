"""The records a tournament's director keeps: what a tournament is, and each of its tables.

Rule of this module: plain data, owned and written by one :class:`~server.tournament.
director.Director` (in its task); :class:`TournamentInfo` is fixed at creation (validated by
the hall, :mod:`server.tournament.hall`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from server.ledger.wallet import Wallet
from server.table.actor import TableActor
from server.table.settings import TableSpec
from server.table.tourney import TourneyDesk
from server.tournament.structure import Structure

__all__ = ["Registrar", "TableRecord", "TournamentInfo"]


class Registrar(Protocol):
    """How a director opens its tables (the registry)."""

    def open_tournament_table(self, table_id: str, tspec: TableSpec, wallet: Wallet,
                              desk: TourneyDesk) -> TableActor: ...


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """What a tournament is, fixed at its creation (validated by the hall)."""

    id: str
    name: str
    game: str
    structure_name: str
    kind: str  # "sng" | "scheduled"
    buy_in: int
    fee: int
    capacity: int
    structure: Structure
    min_field: int = 2
    starts_at: float | None = None
    private: bool = False
    host: str | None = None
    invite: str | None = None
    shares: tuple[int, ...] | None = None  # the tournament's own table of places (TOUR-12)


@dataclass(slots=True)
class TableRecord:
    """One of the tournament's tables as its director plans it (the seating plan is the
    director's: a table's reports only bring the stacks)."""

    number: int
    table_id: str
    actor: TableActor
    players: dict[int, str] = field(default_factory=dict)  # seat -> player
    last_big_blind: int | None = None
    dealt: bool = False
    in_hand: bool = False  # between its hand's deal and its report of the end
    hand: str | None = None  # the hand it is playing
    pending: bool = False  # its next deal is due after the pause (a break cancels it)
    level: int = 0  # the level whose stakes it deals
    hands: int = 0
    round_done: bool = False  # hand-for-hand: this round's hand has ended
