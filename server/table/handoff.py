"""A table's state between two hands, taken out of one process and put back in another
(issue 17: live table moves, and the failover's reopened tables).

Rule of this module: a :class:`TableState` is plain data (JSON), read by :func:`export_state`
only between hands, in the actor's task; :func:`restore_state` writes it into a new actor of
the same id before its task starts. Chips never travel in it: the seats' stacks the new owner
plays with are the balances it took over in the ledger (``server.cluster.adoption``), and a
stack here is only the old owner's word for them (compared, logged when they differ).

What travels: the settings (as the ``create_table`` request they would be rebuilt from, with
a host's changes already in them; a test table's decks not dealt yet), the seats with their
names, stacks, time banks and sitting-out marks, the waiting list, the button and blinds of
the last hand (GEN-05), a home game's host state (host, invite code, who was admitted or
removed, the pause, a change waiting for the next hand), and the table's event sequence
number (``seq``: a client resuming there with the number it saw gets nothing it already has,
and a snapshot otherwise).
:func:`hand_over` is the old owner's side of a live move: it runs in the actor's task between
two hands, so nothing of the table changes while the other process takes it; the requests
that queue meanwhile are answered ``moved`` once it is gone.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from protocol.codec import JSON_CODEC
from protocol.requests import CreateTable
from server.config import Config
from server.rules.button import Positions
from server.table.api import Sink
from server.table.dealer import Dealer
from server.table.fanout import Fanout
from server.table.games import Game
from server.table.host import HostDesk
from server.table.seatmap import SeatMap, SeatState, Waiter
from server.table.settings import TableSpec, build_spec
from server.table.turn_clock import TurnClock
from server.table.wake import WakeKind


class MovedTable(Protocol):
    """What a move reads and puts back of a table, desk by desk (the table actor is one; this
    module does not import it, issue 25): each desk's state goes out through the desk's own
    reading of it and comes back through its own ``restore``."""

    @property
    def table_id(self) -> str: ...
    @property
    def spec(self) -> TableSpec: ...
    @property
    def config(self) -> Config: ...
    @property
    def seats(self) -> SeatMap: ...
    @property
    def turns(self) -> TurnClock: ...
    @property
    def fanout(self) -> Fanout: ...
    @property
    def dealer(self) -> Dealer: ...
    @property
    def game(self) -> Game: ...
    @property
    def host(self) -> HostDesk: ...
    @property
    def sinks(self) -> dict[int, Sink]: ...
    @property
    def in_hand(self) -> bool: ...
    @property
    def stopped(self) -> bool: ...
    def stop_moved(self, url: str) -> None: ...

__all__ = ["DetachedSink", "MovedTable", "SeatRecord", "TableState", "export_state", "fence",
           "gone", "hand_over", "restore_state", "spec_of"]

log = logging.getLogger("server.table")

_detached_ids = itertools.count(-1, -1)  # never a real connection's id (those count up)


class DetachedSink:
    """A waiting player whose connection stayed on the process the table left: frames for
    them are dropped until they ``resume`` here (their new connection then takes over, in
    :meth:`~server.table.seating.SeatDesk.bind`); seated from the list meanwhile, they are
    seated disconnected (their reconnection grace runs)."""

    codec: Any = JSON_CODEC
    detached = True

    def __init__(self, player_id: str, name: str) -> None:
        self.conn_id = next(_detached_ids)
        self.player_id: str | None = player_id
        self.name: str | None = name

    def send(self, frame: str | bytes) -> None:
        return None


@dataclass(slots=True)
class SeatRecord:
    seat: int
    player: str
    name: str
    stack: int
    bank: float
    sitting_out: bool = False
    wait_for_bb: bool = False
    post_bb: bool = False


@dataclass(slots=True)
class TableState:
    """One table between two hands (see the module docstring)."""

    table: str
    create: dict[str, Any]
    seq: int = 0
    seats: list[SeatRecord] = field(default_factory=list)
    waiting: list[dict[str, Any]] = field(default_factory=list)  # player, name, buy_in
    button: int | None = None
    blinds: list[int] | None = None
    host: dict[str, Any] | None = None
    owner: str | None = None  # who created it (the per-account table cap)
    hands: int = 0  # hands played at the table: its next hand's number follows on
    decks: list[list[str]] = field(default_factory=list)  # test mode: the coming hands' decks

    def to_json(self) -> str:
        return orjson.dumps(self).decode()  # (dataclasses natively: no asdict deep copy)

    @classmethod
    def from_json(cls, text: str) -> TableState:
        data = json.loads(text)
        data["seats"] = [SeatRecord(**s) for s in data.get("seats", [])]
        return cls(**data)

    def stacks(self) -> dict[str, int]:
        return {s.player: s.stack for s in self.seats}


def create_of(spec: TableSpec) -> dict[str, Any]:
    """The ``create_table`` fields that rebuild ``spec`` (test decks travel in
    :attr:`TableState.decks`: the ones not dealt yet)."""
    return {"variant": spec.variant_name, "structure": spec.structure,
            "stakes": dict(spec.stakes_wire), "seats": spec.seats, "name": spec.name,
            "settings": dict(spec.settings_wire), "private": spec.private}


def spec_of(create: dict[str, Any], config: Config) -> TableSpec:
    """The table's spec from :func:`create_of`'s fields, validated as a new table's."""
    req = CreateTable(variant=create["variant"], structure=create["structure"],
                      stakes=dict(create["stakes"]), seats=int(create["seats"]),
                      name=create["name"], settings=dict(create["settings"] or {}),
                      private=bool(create["private"]))
    return build_spec(req, config, name=create["name"])


def export_state(t: MovedTable, owner: str | None = None) -> TableState:
    """The table's state now (between hands, in its task; or a read of it for the
    failover's record, which the directory writes whenever the table's lobby entry changes)."""
    state = TableState(table=t.table_id, create=create_of(t.spec), seq=t.fanout.seq,
                       owner=owner, hands=t.dealer.number,
                       decks=[list(d) for d in t.dealer.decks])
    for seat, st in t.seats.occupied():
        state.seats.append(SeatRecord(seat, st.player_id, st.name, st.stack + st.topup,
                                      st.bank, st.sitting_out, st.wait_for_bb, st.post_bb))
    state.waiting = [{"player": w.player_id, "name": w.name, "buy_in": w.buy_in}
                     for w in t.seats.waiting]
    positions = t.game.positions()
    if positions is not None:
        state.button, state.blinds = positions.button, list(positions.blinds)
    host = t.host.saved()
    if host is not None:
        state.host = {**host, "next": None if t.host.next_spec is None
                      else create_of(t.host.next_spec)}
    return state


def restore_state(t: MovedTable, state: TableState, stacks: dict[str, int],
                  grace: float, *, exact: bool = True) -> None:
    """Put ``state`` into the new actor ``t`` (its task not started yet): the seats with the
    ledger's ``stacks`` (a player with none is left out), disconnected, each with
    ``grace`` seconds to come back before they sit out. ``exact``: ``state`` was exported at
    the handover (a live move), so a stack that differs from the ledger's is logged
    (``handoff_stack_differs``); a failover's state is the directory's last record of the
    table, which predates the hands played since (and the voided one), so its stacks are
    not compared: the ledger's, from before the voided hand, are the truth."""
    for rec in state.seats:
        stack = stacks.get(rec.player, 0)
        if exact and stack != rec.stack:
            log.warning("event=handoff_stack_differs table=%s player=%s said=%d ledger=%d",
                        t.table_id, rec.player, rec.stack, stack)
        if stack <= 0 or not 0 <= rec.seat < len(t.seats) or t.seats[rec.seat] is not None:
            continue
        st = SeatState(rec.player, rec.name, stack, rec.bank, sitting_out=rec.sitting_out,
                       wait_for_bb=rec.wait_for_bb, post_bb=rec.post_bb)
        t.seats.place(rec.seat, st)
        t.turns.schedule(WakeKind.GRACE, grace, rec.seat, token=st.grace_token)
    for w in state.waiting:
        sink = DetachedSink(str(w["player"]), str(w["name"]))
        t.seats.wait(Waiter(str(w["player"]), str(w["name"]), int(w["buy_in"]), sink))
    if state.button is not None:
        t.game.restore_positions(Positions(state.button, tuple(state.blinds or ())))
    # (the snapshot's button until the next hand; a test table keeps its fixed decks)
    t.dealer.restore(state.button, state.hands, state.decks)
    t.fanout.resume_from(state.seq)
    if state.host is not None and t.host.private:
        d = state.host
        t.host.restore(d, spec_of(d["next"], t.config) if d.get("next") else None)


Send = Callable[[TableState], Awaitable[str | None]]


async def hand_over(t: MovedTable, send: Send) -> str | None:
    """The old owner's side of a live move, in the actor's task: between hands, export the
    table, ``send`` it (the other process takes it: its URL, or None when it did not), and
    once it is gone push ``moved`` to every connection here that follows it, answer what
    queued meanwhile ``moved`` too and stop, the seats emptied without a chip moving (they
    are in the new owner's accounts now). None (and the table plays on) when it is in a hand
    or the move failed."""
    if t.in_hand or t.stopped:
        return None
    state = export_state(t)
    url = await send(state)
    if url is None:
        return None
    gone(t, url)
    log.info("event=table_handed_over table=%s url=%s seats=%d", t.table_id, url,
             len(state.seats))
    return url


def fence(t: MovedTable, url: str) -> bool:
    """This process lost the table (another process took it over while this one was cut
    off: its lease had lapsed): stop at once, even mid-hand, without a chip moving here (the
    one that took it voided the hand and holds the chips), and send everyone to ``url``.
    False when it had stopped already. In the actor's task."""
    if t.stopped:
        return False
    log.critical("event=table_fenced table=%s hand=%s url=%s", t.table_id, t.dealer.hand_id,
                 url)
    t.dealer.clear()
    gone(t, url)
    return True


def gone(t: MovedTable, url: str) -> None:
    """The table now lives at ``url``: push ``moved`` to every connection following it,
    answer what queued ``moved``, empty the seats without a chip moving, stop."""
    frame = {"type": "error", "code": "moved", "table": t.table_id, "url": url,
             "message": "This table moved to another server; follow it there."}
    for sink in list(t.sinks.values()):
        t.fanout.send(sink, sink.codec.encode(frame))
    for seat, _ in t.seats.occupied():
        t.seats.vacate(seat)
    t.seats.waiting = []
    t.turns.cancel()
    t.turns.cancel_next_hand()
    t.fanout.close()
    t.sinks.clear()
    t.stop_moved(url)  # stopped; what queued is answered ``moved``
