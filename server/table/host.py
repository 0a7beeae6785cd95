"""A private table's host: the invite code, who may sit, and the controls of a home game.

Rule of this module: :class:`HostDesk` owns the host's state (who hosts, the invite code, the
seat requests waiting, the players removed, whether the game is paused, the stakes and settings
the next hand takes) and answers the ``host`` request in the table actor's task; everyone but
the host is refused ``not_host``. It reaches the table only through its
:class:`~server.table.ports.HostPort`, and changes seats and chips only through it (the actor
hands an approval or a removal to the :class:`~server.table.seating.SeatDesk`; the wallet),
so nothing is created or lost.

* The creator of a ``private`` table is its host (the role can be handed to a seated player:
  ``transfer``). Admission is one check, :meth:`HostDesk.admits_request`, which the actor
  runs before it handles any request naming the table: the host, a player admitted before
  (or seated), a connection already following the table, or whoever brings the invite code
  (``watch``, ``resume``, ``sit``) is admitted; anyone else gets exactly the answer to a
  table that does not exist (``unknown_table``, same message), whatever they asked (``mute``,
  ``chat``, ``host``, ``unwatch``...), so nothing says whether a seat is taken, who sits
  there, or that the table exists. Once admitted, a player stays admitted (the code may be
  rotated). A private table's id is not guessable either (:func:`private_table_id`).
* ``approve_seats``: a ``sit`` becomes a request (``ok`` with ``pending: true``); the host
  gets ``seat_request`` and answers ``approve`` (the buy-in is taken then) or ``refuse`` (the
  asker gets ``seat_refused``). An approval seats the asker at the seat asked for when it is
  still free, else at the request's ``offer`` (the nearest free seat clockwise from it), or
  at the ``seat`` the host names; with no seat free it is refused ``table_full`` and the
  request waits. A request whose seat was taken meanwhile says so (``taken``, ``offer``):
  every seat change at a table with requests waiting sends the host a fresh copy.
* ``pause``/``resume``: no hand starts while paused (the running hand plays on).
* ``remove``: the player leaves at the end of the hand, chips back to their balance, and may
  not sit again at this table (``removed``).
* ``change``: stakes and the host's settings, validated as a new table would be
  (:func:`~server.table.settings.build_spec`), taking effect from the next hand.
* ``close``: the table closes after the running hand (everyone cashed out).
* ``ledger``: per player, from the ledger's journal (:mod:`server.table.session`): the
  host's, and every player's who bought in at this game (not a stranger's, nor a
  spectator's: ``not_host``); when the game closes it is pushed to the host and every one
  of its players.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.requests import CreateTable, Host, Resume, Sit, Watch
from server.ledger.accounts import guest_tag, is_bot_id
from server.table.api import Envelope, Sink
from server.table.fanout import builder
from server.table.ports import HostPort
from server.table.projection import Draft, Msg
from server.table.seatmap import SeatRequest
from server.table.session import HOUSE_ROW, session_csv, session_rows
from server.table.settings import HOST_SETTINGS, TableSpec, build_spec

__all__ = ["HostDesk", "SeatRequest", "private_table_id"]

log = logging.getLogger("server.table")

CODE_BYTES = 12
ID_SUFFIX_BYTES = 9
"""Random bytes in a private table's id (72 bits, 12 characters): see :func:`private_table_id`."""
MAX_REQUESTS = 50
"""Seat requests a table keeps waiting at once (more: ``table_full``)."""


def private_table_id(number: int) -> str:
    """A private table's id: its number (shown to people, sequential like every table's)
    and a random suffix, ``t12-<12 characters of secrets.token_urlsafe>``, so that walking
    the numbers finds no private table (72 bits: guessing one is hopeless, and each guess is
    a rate-limited request). Short enough for an invite link; the characters (``A-Z a-z
    0-9 - _``) are safe in a URL and in the directory's hash tags (no braces)."""
    return f"t{number}-{secrets.token_urlsafe(ID_SUFFIX_BYTES)}"


class HostDesk:
    """The host side of one table (see the module docstring); inert at a public table."""

    def __init__(self, port: HostPort, host_id: str | None) -> None:
        self.port = port
        self.private = port.spec.private
        self.host_id = host_id if self.private else None
        self.code = secrets.token_urlsafe(CODE_BYTES) if self.private else None
        self.paused = False
        self.requests: dict[str, SeatRequest] = {}
        self.removed: set[str] = set()
        self.names: dict[str, str] = {}  # everyone who asked to sit or sat: the ledger's names
        self.admitted: set[str] = set()
        self.next_spec: TableSpec | None = None

    # ---------------------------------------------------------------- a move's state
    def saved(self) -> dict[str, Any] | None:
        """A home game's host state, for a move (None at a public table); the change waiting
        for the next hand is :attr:`next_spec`."""
        if not self.private:
            return None
        return {"host": self.host_id, "code": self.code, "paused": self.paused,
                "removed": sorted(self.removed), "admitted": sorted(self.admitted),
                "names": dict(self.names)}

    def restore(self, saved: dict[str, Any], next_spec: TableSpec | None) -> None:
        """Put :meth:`saved`'s state back (a moved table, before its task starts)."""
        self.host_id, self.code, self.paused = saved["host"], saved["code"], bool(saved["paused"])
        self.removed, self.admitted = set(saved["removed"]), set(saved["admitted"])
        self.names = dict(saved["names"])
        if next_spec is not None:
            self.next_spec = next_spec

    # ---------------------------------------------------------------- admission

    def admits_request(self, env: Envelope, *, remember: bool = True) -> bool:
        """The one admission check of every request naming this table (the actor runs it
        before any handler; the refusal is ``unknown_table``, see the module docstring).
        ``watch``, ``resume`` and ``sit`` may bring the invite code; a player it admits is
        remembered (with ``remember``)."""
        req = env.request
        code = req.code if isinstance(req, Watch | Resume | Sit) else None
        return self.admits(env.sink, code, remember=remember)

    def admits(self, sink: Sink, code: str | None, *, remember: bool = True) -> bool:
        """Whether this connection may make requests here: anyone at a public table; at a
        private one the host, a player admitted before (or seated), a connection that
        follows the table already (a watcher who came with the code before saying hello),
        or whoever brings the code (remembered with ``remember``)."""
        if not self.private:
            return True
        pid = sink.player_id
        if self.port.practice and not (pid == self.host_id or is_bot_id(pid)):
            return False  # issue 24: a practice table is its player's and its bots' alone
        if pid is not None and (pid == self.host_id or pid in self.admitted
                                or self.port.seats.seat_of(pid) is not None):
            return True
        if self.port.sinks.get(sink.conn_id) is sink:
            return True
        if code is not None and self.code is not None and secrets.compare_digest(
                code.encode(), self.code.encode()):
            if pid is not None and remember:
                self.admitted.add(pid)
            return True
        return False

    def needs_approval(self, player_id: str) -> bool:
        return self.port.spec.approve_seats and player_id != self.host_id

    # ---------------------------------------------------------------- seat requests
    def request_seat(self, env: Envelope, req: Sit) -> None:
        """``sit`` at a table whose host approves seats: the request waits for the host."""
        t = self.port
        pid = env.sink.player_id
        assert pid is not None
        if pid not in self.requests and len(self.requests) >= MAX_REQUESTS:
            present = {s.player_id for s in t.sinks.values()}
            for gone in [p for p in self.requests if p not in present]:
                del self.requests[gone]  # askers with no connection left make room
        if pid not in self.requests and len(self.requests) >= MAX_REQUESTS:
            return t.fanout.answer(env, m.error(req.rid, "table_full",
                                                "Too many requests are waiting; try later."))
        self.requests[pid] = SeatRequest(pid, env.sink.name or pid, req.seat, req.buy_in)
        self.names[pid] = env.sink.name or pid
        t.sinks[env.sink.conn_id] = env.sink  # the asker follows the table meanwhile
        t.fanout.answer(env, m.ok(req.rid, seat=req.seat, pending=True))
        if self.host_id is not None:
            t.fanout.publish(Draft(None, {self.host_id: builder(
                m.seat_request, player=pid, name=env.sink.name or pid, seat=req.seat,
                buy_in=req.buy_in, guest=guest_tag(pid))}))

    def offer(self, asked: SeatRequest) -> int | None:
        """Where approving ``asked`` seats them now: the seat asked for while it is free,
        else the nearest free seat clockwise from it (None: the table is full)."""
        seats = self.port.seats
        n = len(seats)
        return next((s for s in ((asked.seat + k) % n for k in range(n)) if seats[s] is None),
                    None)

    def seats_changed(self) -> None:
        """Someone sat or left: waiting requests update themselves (the host's copy)."""
        if self.requests:
            self.announce()

    async def _approve(self, env: Envelope, req: Host) -> None:
        t = self.port
        asked = self.requests.get(req.player or "")
        if asked is None:
            return t.fanout.answer(env, m.error(req.rid, "no_request"))
        seat = self.offer(asked) if req.seat is None else req.seat
        if seat is None:
            return t.fanout.answer(env, m.error(
                req.rid, "table_full", "No seat is free; the request waits."))
        if not 0 <= seat < len(t.seats):
            return t.fanout.answer(env, m.error(req.rid, "bad_seat"))
        if t.seats[seat] is not None:
            free = ", ".join(str(s + 1) for s in range(len(t.seats)) if t.seats[s] is None)
            return t.fanout.answer(env, m.error(
                req.rid, "seat_taken",
                f"Seat {seat + 1} is taken; free seats: {free or 'none'}."))
        del self.requests[asked.player_id]
        asked.seat = seat
        problem = await t.seat_requested(asked)
        if problem is not None:
            self._refused(asked, problem)
            return t.fanout.answer(env, m.error(req.rid, problem))
        self.admitted.add(asked.player_id)
        t.fanout.answer(env, m.ok(req.rid, seat=asked.seat))
        self.announce()

    def _refuse(self, env: Envelope, req: Host) -> None:
        asked = self.requests.pop(req.player or "", None)
        if asked is None:
            return self.port.fanout.answer(env, m.error(req.rid, "no_request"))
        self._refused(asked, None)
        self.port.fanout.answer(env, m.ok(req.rid))
        self.announce()

    def _refused(self, asked: SeatRequest, reason: str | None) -> None:
        self.port.fanout.publish(Draft(None, {asked.player_id: builder(
            m.seat_refused, player=asked.player_id, seat=asked.seat, reason=reason)}))

    # ---------------------------------------------------------------- the host request
    async def handle(self, env: Envelope) -> None:
        t = self.port
        req = env.request
        assert isinstance(req, Host)
        if not self.private:
            return t.fanout.answer(env, m.error(req.rid, "not_host",
                                                "This table has no host (it is public)."))
        action = req.action
        if action == "ledger":  # the host's, and every player's of the game
            return await self._ledger(env, req)
        if env.sink.player_id is None or env.sink.player_id != self.host_id:
            return t.fanout.answer(env, m.error(req.rid, "not_host"))
        if t.practice and action not in ("pause", "resume", "close"):  # issue 24: its bots
            return t.fanout.answer(env, m.error(req.rid, "not_allowed",  # and stakes stay
                                                "A practice table has no host controls "
                                                "but pause, resume and close."))
        if action == "approve":
            return await self._approve(env, req)
        if action == "refuse":
            return self._refuse(env, req)
        if action in ("pause", "resume"):
            self.paused = action == "pause"
        elif action == "remove":
            return await self._remove(env, req)
        elif action == "transfer":
            return self._transfer(env, req)
        elif action == "change":
            return self._change(env, req)
        elif action == "rotate_code":
            self.code = secrets.token_urlsafe(CODE_BYTES)
            t.fanout.answer(env, m.ok(req.rid, code=self.code))
            return self.announce()
        elif action == "close":
            t.fanout.answer(env, m.ok(req.rid, pending=t.in_hand))
            return await t.close_for_good("host", after_hand=True)
        t.fanout.answer(env, m.ok(req.rid))
        self.announce()

    async def _remove(self, env: Envelope, req: Host) -> None:
        t = self.port
        assert req.seat is not None
        st = t.seats[req.seat] if req.seat < len(t.seats) else None
        if st is None:
            return t.fanout.answer(env, m.error(req.rid, "bad_seat", "nobody sits there"))
        if st.player_id == self.host_id:
            return t.fanout.answer(env, m.error(req.rid, "not_allowed",
                                                "Hand the host role on before leaving."))
        self.removed.add(st.player_id)
        self.names[st.player_id] = st.name
        self.admitted.discard(st.player_id)
        pending = await t.take_off(req.seat)
        t.fanout.answer(env, m.ok(req.rid, pending=pending))
        self.announce()

    def _transfer(self, env: Envelope, req: Host) -> None:
        t = self.port
        assert req.seat is not None
        st = t.seats[req.seat] if req.seat < len(t.seats) else None
        if st is None:
            return t.fanout.answer(env, m.error(req.rid, "bad_seat", "nobody sits there"))
        self.host_id = st.player_id
        t.fanout.answer(env, m.ok(req.rid))
        self.announce()

    def _change(self, env: Envelope, req: Host) -> None:
        t = self.port
        spec = self.next_spec or t.spec
        settings = dict(req.settings or {})
        other = sorted(set(settings) - HOST_SETTINGS)
        if other:
            allowed = ", ".join(sorted(HOST_SETTINGS))
            return t.fanout.answer(env, m.error(
                req.rid, "bad_settings",
                f"the host may change only {allowed} and the stakes, not {', '.join(other)}"))
        merged = {**spec.settings_wire, **settings}
        if "starting_stack" not in settings and {"min_buy_in", "max_buy_in"} & set(settings):
            merged.pop("starting_stack", None)
        try:
            new = build_spec(CreateTable(
                variant=spec.variant_name, structure=spec.structure,
                stakes=dict(req.stakes) if req.stakes is not None else dict(spec.stakes_wire),
                seats=spec.seats, name=spec.name, settings=merged, private=True),
                t.config, name=spec.name)
        except ProtocolError as exc:
            return t.fanout.answer(env, m.error(req.rid, exc.code, exc.message))
        if t.in_hand:
            self.next_spec = new
        else:
            t.use_spec(new)
        t.fanout.answer(env, m.ok(req.rid, pending=t.in_hand))
        self.announce()

    def hand_starts(self) -> None:
        """A hand is about to start: the host's changes take effect now."""
        if self.next_spec is not None:
            spec, self.next_spec = self.next_spec, None
            self.port.use_spec(spec)
            self.announce()

    async def _ledger(self, env: Envelope, req: Host) -> None:
        t = self.port
        rows = session_rows(await t.wallet.table_entries(t.table_id), t.seats,
                            names=self.names)
        pid = env.sink.player_id
        if pid is None or (pid != self.host_id and pid not in {r["player"] for r in rows}):
            return t.fanout.answer(env, m.error(
                req.rid, "not_host", "Only the host and the players of this game see its "
                "ledger."))
        extra: Msg = {"text": session_csv(rows)} if req.format == "csv" else {}
        t.fanout.answer(env, m.ok(req.rid, ledger=rows, **extra))

    async def closed(self, names: dict[str, str]) -> None:
        """The game is over and everyone cashed out: the host and every player of the game
        get the final session ledger (``ledger``: rows and CSV). ``names``: player id ->
        name of those who sat last."""
        if not self.private or self.host_id is None or self.port.practice:
            return  # (a practice table's play money has no evening's ledger)
        t = self.port
        try:
            entries = await t.wallet.table_entries(t.table_id)
        except Exception:
            log.exception("event=session_ledger_failed table=%s", t.table_id)
            return
        rows = session_rows(entries, (), names={**self.names, **names})
        frame = builder(m.ledger, rows=rows, text=session_csv(rows))
        players = {str(r["player"]) for r in rows} - {HOUSE_ROW}
        t.fanout.publish(Draft(None, {pid: frame for pid in sorted({self.host_id, *players})}))

    # ---------------------------------------------------------------- what viewers see
    def state_for(self, player_id: str | None) -> Msg | None:
        """The ``host`` object of ``snapshot`` and ``table_updated`` for this viewer (None at
        a public table); the host's own copy holds the code and the requests."""
        if not self.private:
            return None
        t = self.port
        seat = t.seats.seat_of(self.host_id)
        st = t.seats[seat] if seat is not None else None
        nxt = self.next_spec
        state: Msg = {
            "seat": seat, "name": st.name if st is not None else None,
            "private": True, "paused": self.paused, "approve_seats": t.spec.approve_seats,
            "rebuys": t.spec.rebuys, "stakes": dict(t.spec.stakes_wire),
            "settings": dict(t.spec.settings_wire),
            "next": None if nxt is None else {"stakes": dict(nxt.stakes_wire),
                                              "settings": dict(nxt.settings_wire)},
        }
        if player_id is not None and player_id == self.host_id:
            state["you"] = True
            state["code"] = self.code
            state["requests"] = [r.to_wire(self.offer(r)) for r in self.requests.values()]
        elif player_id is not None and player_id in self.requests:
            mine = self.requests[player_id]  # mine, still waiting
            state["request"] = mine.to_wire(self.offer(mine))
        return state

    def announce(self) -> None:
        """``table_updated`` to everyone (the host's copy with the code and requests, each
        asker's with their own request)."""
        public = self.state_for(None)
        if public is None:
            return
        private: dict[str, Any] = {
            pid: builder(m.table_updated, host=self.state_for(pid)) for pid in self.requests}
        if self.host_id is not None:
            private[self.host_id] = builder(m.table_updated, host=self.state_for(self.host_id))
        self.port.fanout.publish(Draft(builder(m.table_updated, host=public), private))
