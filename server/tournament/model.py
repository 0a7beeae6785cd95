"""The records a tournament's director keeps: what a tournament is, and each of its tables.

Rule of this module: plain data, owned and written by one :class:`~server.tournament.
director.Director` (in its task); :class:`TournamentInfo` is fixed at creation (validated by
the hall, :mod:`server.tournament.hall`).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol.requests import CreateTable
from server.config import Config
from server.ledger.wallet import Wallet
from server.table.actor import TableActor
from server.table.settings import TableSpec, build_spec
from server.table.tourney import HandOver, TourneyDesk
from server.tournament.plan import TableView
from server.tournament.structure import Structure

__all__ = ["Registrar", "Reports", "TableRecord", "TournamentInfo", "buy_refusal", "table_spec",
           "views"]


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


def table_spec(info: TournamentInfo, config: Config, level_no: int, number: int) -> TableSpec:
    """The spec of table ``number`` at level ``level_no``: the level's game and stakes
    (TOUR-05), the tournament's labels in its settings (its hands' records and exports)."""
    lv = info.structure.level(max(1, level_no))
    stakes = {k: v for k, v in dataclasses.asdict(lv.stakes).items() if v and k != "chip"}
    if "blinds" in stakes:
        stakes["blinds"] = list(stakes["blinds"])
    req = CreateTable(variant=lv.game, structure=lv.structure, stakes=stakes,
                      seats=info.structure.seats, settings={"action_clock": config.action_clock})
    spec = build_spec(req, config, name=f"{info.name} {number}")
    labels = {"tournament": info.id, "tournament_name": info.name,
              "level": max(1, level_no), "buy_in": info.buy_in, "fee": info.fee}
    return dataclasses.replace(spec, min_buy_in=1, max_buy_in=spec.max_buy_in,
                               settings_wire={**spec.settings_wire, **labels})


def views(info: TournamentInfo, level: int,
          tables: Mapping[int, TableRecord]) -> dict[int, TableView]:
    """The tables as the pure decisions of :mod:`server.tournament.plan` see them."""
    game = info.structure.level(max(1, level)).game
    return {n: TableView(n, info.structure.seats, dict(t.players), t.last_big_blind,
                         uses_blinds=not game.startswith("stud"), dealt=t.dealt,
                         in_hand=t.in_hand)
            for n, t in tables.items()}


@dataclass(frozen=True, slots=True)
class Reports:
    """A director's tables' reports (:class:`~server.table.tourney.TourneyHooks`), enqueued
    on its inbox (called in a table's task; ``over`` runs in the director's)."""

    inbox: asyncio.Queue[Any]
    over: Callable[[HandOver], Awaitable[None]]

    def hand_over(self, report: HandOver) -> None:
        self.inbox.put_nowait(lambda: self.over(report))


def buy_refusal(s: Structure, player: str, why: str, *, running: bool, stack: int | None,
                seated: bool, level: int, on_break: bool, add_on_taken: bool) -> str | None:
    """TOUR-14: why ``player`` may not take a rebuy (``why`` "rebuy": at most the starting
    stack, until the end of level ``rebuy_until``) or the add-on (once per entry, on a
    break after the rebuys) now; None: they may."""
    if not running:
        return "not_allowed"
    if stack is None or not seated:
        return "not_registered"
    if why == "rebuy":
        if not (s.rebuy_until and level <= s.rebuy_until):
            return "not_allowed"
        return "not_allowed" if stack > s.starting_stack else None
    if not s.add_on or add_on_taken or not on_break or level < s.rebuy_until:
        return "not_allowed"
    return None
