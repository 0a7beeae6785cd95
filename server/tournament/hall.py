"""The process's tournaments: create, list, find, follow, and the players' requests (issue 27).

Rule of this module: :class:`Hall` owns the set of directors and who follows which
tournament; every change to a tournament happens in its director's task (the hall only asks
it, :meth:`Director.ask`). Requests arrive validated by the protocol (shapes and bounds,
:mod:`protocol.tournaments`); the hall checks their poker meaning (the structure, by
:func:`server.tournament.structure.build_structure`; the share table) and answers each with
``ok`` or a specific error code (``unknown_tournament``, ``registration_closed``,
``tournament_full``, ``already_registered``, ``not_registered``, ``not_allowed``,
``insufficient_funds``, ``not_host``, ``bad_structure``, ``server_busy``). A
private tournament is invisible to anyone without its invite: it answers
``unknown_tournament``, word for word as a missing one.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import string
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from protocol.errors import ProtocolError
from server.config import Config
from server.ledger.journal import Ledger
from server.ledger.tournaments import TournamentBook
from server.ledger.wallet import Wallet
from server.tournament.director import Director
from server.tournament.handover import release
from server.tournament.model import Registrar, TournamentInfo
from server.tournament.prizes import check_shares, default_shares, prizes
from server.tournament.saved import SavedTournaments, restore, snapshot
from server.tournament.structure import StructureError, build_structure

__all__ = ["Follower", "Hall"]

log = logging.getLogger("server.tournament")

_ALPHABET = string.ascii_lowercase + string.digits
_POT_GAMES = ("holdem", "manila", "manila3", "draw", "stud5", "stud7")
PLACES_SHOWN = 100  # the best places a `tournament` message lists


class Follower(Protocol):
    """A connection as the hall sees it."""

    player_id: str | None
    name: str | None

    def reply(self, message: dict[str, Any]) -> None: ...


class Room(Protocol):
    """The room's tournaments, in a cluster (:mod:`server.cluster.tournaments`)."""

    async def save(self, tid: str, state: dict[str, Any], summary: dict[str, Any],
                   records: list[dict[str, Any]]) -> bool: ...

    async def claim(self, lost: str, only: str = ""
                    ) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]: ...

    async def hand_over(self, tid: str, taker: str) -> bool: ...

    def taker(self) -> str | None: ...

    async def locate(self, tid: str, here: Callable[[str], bool] = ...) -> str | None: ...

    async def log_of(self, tid: str) -> list[dict[str, Any]] | None: ...

    async def listing(self) -> list[dict[str, Any]]: ...

    async def number(self) -> int | None: ...


def _err(code: str, message: str | None = None, rid: Any = None) -> ProtocolError:
    return ProtocolError(code, message, rid=rid) if message else ProtocolError(code, rid=rid)


class Hall:
    """Every tournament of this process (see the module docstring)."""

    def __init__(self, config: Config, registrar: Registrar, wallet: Wallet, *,
                 book: TournamentBook | None, now: Callable[[], float],
                 wall: Callable[[], float],
                 call_later: Callable[[float, Callable[[], None]], Any],
                 pick: Callable[[int], int] | None = None,
                 tell: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        self.config = config
        self.registrar = registrar
        self.wallet = wallet
        self.book = book
        self.now = now
        self.wall = wall
        self.call_later = call_later
        self.pick = pick or secrets.randbelow
        self.tell = tell
        self.directors: dict[str, Director] = {}
        self.followers: dict[str, weakref.WeakSet[Any]] = {}
        self._n = 0
        self.max_open = 200  # open tournaments (registering or running) in the process
        self.max_per_host = 3  # open tournaments one player hosts (the operator's: no limit)
        self.saved: SavedTournaments | None = None  # the data directory's (TOUR-15)
        self.room: Room | None = None  # in a cluster: the state in Redis, the room's list
        self.push_interval = 1.0  # seconds between two pushes of a tournament's state
        self._push_due: set[str] = set()
        self._held: dict[str, list[tuple[str, dict[str, Any]]]] = {}  # tells until saved
        self._reading: set[str] = set()  # tournaments whose director's item is a read
        self._tasks: set[asyncio.Future[Any]] = set()  # pushes waiting for their read

    @classmethod
    def for_process(cls, config: Config, registry: Any, wallet: Wallet, ledger: Ledger, *,
                    tell: Callable[[str, dict[str, Any]], None], cluster: Any = None) -> Hall:
        """The server process's hall: the registry's tables and clock, the ledger's book,
        and (TOUR-15) the data directory's files, fsynced as the ledger is; in a cluster
        (``cluster``: the directory) the room's Redis instead (its state there, the room's
        list, ``moved``, and the takeover of a lost process's tournaments)."""
        hall = cls(config, registry, wallet, book=TournamentBook(ledger),
                   now=registry.clock.now, wall=registry.clock.wall,
                   call_later=registry.clock.call_later, tell=tell)
        hall.saved = SavedTournaments(config.data_dir / "tournaments" / (
            config.node if config.redis_url is not None else ""), fsync=config.ledger_fsync)
        if cluster is not None:
            hall.room = cluster.serve_tournaments(hall.restore_from, hall.hand_over_all)
            hall.saved = None
        return hall

    # ================================================================ create
    async def open(self, fields: Mapping[str, Any], *, host: str | None) -> Director:
        """:meth:`create`, then :meth:`published`. In a cluster the tournament's number is
        the room's, and a host's open tournaments are counted room-wide (from the owners'
        summaries, at most a second old)."""
        number, elsewhere = None, 0
        if self.room is not None:
            elsewhere = sum(1 for r in await self.room.listing() if host is not None
                            and r.get("_host") == host and r.get("id") not in self.directors
                            and r.get("state") in ("registering", "running"))
            number = await self.room.number()
        d = self.create(fields, host=host, number=number, hosted_elsewhere=elsewhere)
        await self.published(d)
        return d

    def create(self, fields: Mapping[str, Any], *, host: str | None, number: int | None = None,
               hosted_elsewhere: int = 0) -> Director:
        """A new tournament from a ``create_tournament`` request's fields (or the
        operator's); raises ProtocolError (``bad_structure``, ``server_busy``)."""
        open_now = sum(1 for d in self.directors.values()
                       if d.state in ("registering", "running"))
        if open_now >= self.max_open:
            raise _err("server_busy", "Too many tournaments are open; try later.")
        if host is not None and hosted_elsewhere + sum(
                1 for d in self.directors.values() if d.info.host == host
                and d.state in ("registering", "running")) >= self.max_per_host:
            raise _err("limit_exceeded", f"A player hosts at most {self.max_per_host} open "
                       "tournaments.")
        self._n = max(self._n + 1, number or 0)
        tid = f"T{self._n}-" + "".join(_ALPHABET[secrets.randbelow(36)] for _ in range(8))
        private = bool(fields.get("private", False))
        info = self.info_of(fields, tid=tid, host=host,
                            invite=secrets.token_urlsafe(9) if private else None)
        d = self._director(info, fields)
        d.start_task()
        self._schedule(d)
        log.info("event=tournament_created tournament=%s game=%s kind=%s capacity=%d host=%s",
                 tid, info.game, info.kind, info.capacity, host)
        return d

    def info_of(self, fields: Mapping[str, Any], *, tid: str, host: str | None,
                invite: str | None) -> TournamentInfo:
        """A tournament's description from a request's fields, its poker meaning checked
        (raises ProtocolError ``bad_structure``)."""
        game = str(fields.get("game", "holdem"))
        if game not in _POT_GAMES:
            raise _err("bad_structure", "Tournaments play the games played player against "
                       "player (not Caribbean Stud).")
        structure_name = str(fields.get("structure", "no_limit"))
        data = dict(fields.get("settings") or {})
        if fields.get("levels") is not None:
            data["levels"] = fields["levels"]
        try:
            structure = build_structure(  # (a mixed rotation: TOUR-05, a game per level)
                data, game="mixed" if data.get("rotation") else game,
                structure=structure_name)
        except StructureError as exc:
            raise _err("bad_structure", str(exc)) from None
        kind = str(fields.get("kind", "sng"))
        capacity = int(fields.get("capacity", structure.seats))
        shares_raw = data.get("shares")
        shares: tuple[int, ...] | None = None
        if shares_raw is not None:
            if not isinstance(shares_raw, list) or not all(
                    type(x) is int for x in shares_raw):
                raise _err("bad_structure", "shares: a list of basis points")
            try:
                check_shares(shares_raw, capacity)
            except StructureError as exc:
                raise _err("bad_structure", str(exc)) from None
            shares = tuple(shares_raw)
        if kind == "sng" and capacity > 10 * structure.seats:
            raise _err("bad_structure", "a sit-and-go seats at most ten tables")
        return TournamentInfo(
            id=tid, name=str(fields.get("name") or f"Tournament {tid.split('-')[0][1:]}"),
            game=game, structure_name=structure_name, kind=kind,
            buy_in=int(fields.get("buy_in", 0)), fee=int(fields.get("fee", 0)),
            capacity=capacity, structure=structure,
            min_field=int(fields.get("min_field") or 2), starts_at=fields.get("starts_at"),
            private=bool(fields.get("private", False)), host=host, invite=invite,
            shares=shares)

    def _director(self, info: TournamentInfo, fields: Mapping[str, Any]) -> Director:
        tell = None if self.tell is None else functools.partial(self._told, info.id)
        d = Director(info, config=self.config, registrar=self.registrar, wallet=self.wallet,
                     book=self.book, now=self.now, call_later=self.call_later,
                     pick=self.pick, on_change=self._changed, tell=tell,
                     fields=_plain(fields))
        self.directors[info.id] = d
        return d

    def _schedule(self, d: Director) -> None:
        """TOUR-03: a scheduled tournament starts at its time."""
        if d.info.kind == "scheduled" and d.info.starts_at is not None \
                and d.state == "registering":
            delay = max(0.0, float(d.info.starts_at) - self.wall())
            self.call_later(delay, lambda: d.inbox.put_nowait(d.start_scheduled))

    async def restore_all(self) -> int:
        """TOUR-15: every saved tournament that had not ended, back as it was (before any
        request is served; after the ledger's recovery returned the tables' chips)."""
        if self.saved is None:
            return 0
        n = 0
        for state, records in list(self.saved.load()):
            n += await self._restore_one(state, records)
        if n:
            log.info("event=tournaments_restored count=%d", n)
        return n

    async def restore_from(self, lost: str, only: str = "") -> int:
        """In a cluster (TOUR-15 across the room): the tournaments of ``lost`` (a process
        this one takes over, after its hands were voided and its tables' chips went back to
        the tournaments' accounts; or this very node after a restart; ``only``: the one
        handed over here) claimed here and restored."""
        if self.room is None:
            return 0
        n = 0
        for state, records in await self.room.claim(lost, only):
            n += await self._restore_one(state, records)
        if n:
            log.info("event=tournaments_taken_over lost=%s count=%d", lost, n)
        return n

    async def hand_over_all(self, deadline: float) -> int:
        """A drain, in a cluster: every open tournament here, between its hands, saved and
        given to another process (:mod:`server.tournament.handover`); how many went."""
        room = self.room
        ds = [d for d in self.directors.values() if d.state in ("registering", "running")]
        if room is None or not ds:
            return 0
        taker = room.taker()
        if taker is None:
            log.warning("event=tournament_handover_no_taker count=%d", len(ds))
            return 0
        gone = await asyncio.gather(*(self._hand_over(d, room, taker, deadline) for d in ds))
        return sum(gone)

    async def _hand_over(self, d: Director, room: Room, taker: str, deadline: float) -> int:
        if not await release(d, deadline):
            return 0
        d.stop_task()
        await self._save_in_room(d, room)
        if not await room.hand_over(d.info.id, taker):
            return 0
        self.directors.pop(d.info.id, None)
        return 1

    async def _restore_one(self, state: dict[str, Any], records: list[dict[str, Any]]
                           ) -> int:
        tid = state["id"]
        try:
            number = int(tid.split("-")[0][1:])
        except ValueError:
            return 0
        self._n = max(self._n, number)
        if tid in self.directors:
            return 0
        try:
            info = self.info_of(state["fields"], tid=tid, host=state["host"],
                                invite=state["invite"])
        except ProtocolError:
            log.exception("event=tournament_restore_failed tournament=%s", tid)
            return 0
        d = self._director(info, state["fields"])
        await restore(d, state, records)
        if d.state not in ("registering", "running"):  # ended: its standings shown, no task
            d.finished.set()
            return 0
        d.start_task()
        if d.state == "running":
            d.inbox.put_nowait(d.resume_play)
        self._schedule(d)
        return 1

    # ================================================================ find and show
    def find(self, tid: str, player: str | None, invite: str | None = None,
             rid: Any = None) -> Director:
        d = self.directors.get(tid)
        if d is None or not self.admits(d, player, invite):
            raise ProtocolError("unknown_tournament", rid=rid)
        return d

    @staticmethod
    def admits(d: Director, player: str | None, invite: str | None = None) -> bool:
        """A private tournament shows itself only to its host, its entrants and an invite."""
        if not d.info.private:
            return True
        return (player is not None and (player == d.info.host or player in d.entry_no)) or (
            invite is not None and secrets.compare_digest(invite, d.info.invite or ""))

    def summaries(self, player: str | None, state: str | None = None,
                  game: str | None = None) -> list[dict[str, Any]]:
        out = []
        for d in self.directors.values():
            if d.info.private and not self.admits(d, player):
                continue
            out.append(self.summary(d))
        return [s for s in out if _wanted(s, state, game)]

    async def room_summaries(self, player: str | None, state: str | None = None,
                             game: str | None = None) -> list[dict[str, Any]]:
        """The lobby's list: this process's tournaments and, in a cluster, every other
        process's (their last saved summaries)."""
        out = self.summaries(player, state, game)
        if self.room is None:
            return out
        for row in await self.room.listing():
            if row.get("id") in self.directors or not _wanted(row, state, game):
                continue
            if row.get("private") and (player is None or player not in row.get("_who", ())):
                continue
            out.append({k: v for k, v in row.items() if not k.startswith("_")})
        return out

    async def elsewhere(self, tid: str, player: str | None, invite: str | None,
                        rid: Any) -> None:
        """In a cluster, a tournament this process does not have: ``moved`` to its owner
        (a private one only for those it admits, else ``unknown_tournament`` as for a
        missing one); nothing when it is nowhere else (then ``find`` answers)."""
        if self.room is None or tid in self.directors:
            return
        url = await self.room.locate(tid, lambda t: t in self.directors)
        if url is None:
            return
        for row in await self.room.listing():
            if row.get("id") == tid and row.get("private") and not (
                    (player is not None and player in row.get("_who", ()))
                    or (invite is not None
                        and secrets.compare_digest(invite, str(row.get("_invite") or "")))):
                raise ProtocolError("unknown_tournament", rid=rid)
        raise ProtocolError.moved(url, rid=rid)

    @staticmethod
    def summary(d: Director) -> dict[str, Any]:
        i = d.info
        return {"id": i.id, "name": i.name, "game": i.game, "structure": i.structure_name,
                "kind": i.kind, "state": d.state, "buy_in": i.buy_in, "fee": i.fee,
                "entrants": len(d.entries), "capacity": i.capacity,
                "starts_at": i.starts_at, "level": d.level, "players_left": len(d.stacks),
                "private": i.private}

    def state_for(self, d: Director, player: str | None) -> dict[str, Any]:
        """The ``tournament`` message's body for ``player``."""
        return {**self._common(d), "you": self._you(d, player)}

    @staticmethod
    def _you(d: Director, player: str | None) -> dict[str, Any] | None:
        if player is None or player not in d.entry_no:
            return None
        seat = d.seat_of.get(player)
        table = d.tables.get(seat[0]) if seat else None
        return {"entered": True, "stack": d.stacks.get(player),
                "table": table.table_id if table else None,
                "seat": seat[1] if seat else None, "place": d.places.get(player),
                "prize": d.prizes.get(player), "rebuy": d.may_buy(player, "rebuy"),
                "add_on": d.may_buy(player, "add_on")}

    def _common(self, d: Director) -> dict[str, Any]:
        """What every follower's ``tournament`` message shares (``places``: the best
        ``PLACES_SHOWN``; a player's own is in their ``you``)."""
        i, s = d.info, d.info.structure
        lv = s.level(d.level) if d.level else None
        nxt = s.level(d.level + 1) if d.level else s.level(1)
        clock = d.clock_state()
        chips = sum(d.stacks.values())
        shares = d.shares or default_shares(max(len(d.entries), 2))
        pool_prizes = prizes(d.pool, shares)
        places = sorted(((pl, d.names.get(p, p), d.prizes.get(p, 0))
                         for p, pl in d.places.items()), key=lambda x: x[0])[:PLACES_SHOWN]
        return {
            "id": i.id, "name": i.name, "game": i.game, "structure": i.structure_name,
            "kind": i.kind, "state": d.state, "buy_in": i.buy_in, "fee": i.fee,
            "starting_stack": s.starting_stack, "entrants": len(d.entries),
            "capacity": i.capacity, "players_left": len(d.stacks),
            "average_stack": chips // len(d.stacks) if d.stacks else 0, "pool": d.pool,
            "level": _level(lv), "next_level": _level(nxt) if d.state != "finished" else None,
            "on_break": d.on_break, "clock_left": clock,
            "late_until": s.late_until,
            "payouts": [[n + 1, a] for n, a in enumerate(pool_prizes)],
            "places": [list(x) for x in places],
            "tables": [[t.table_id, len(t.players)] for t in d.tables.values()],
        }

    # ================================================================ following
    def follow(self, tid: str, conn: Follower) -> None:
        self.followers.setdefault(tid, weakref.WeakSet()).add(conn)

    def unfollow(self, tid: str, conn: Follower) -> None:
        ws = self.followers.get(tid)
        if ws is not None:
            ws.discard(conn)

    def _told(self, tid: str, player: str, message: dict[str, Any]) -> None:
        """A director's word to a player (a seat, a result): held until the decision it
        tells of is saved (:meth:`_changed`), so that nobody hears of a seat or a place a
        crash then takes back (and a restore tells again)."""
        d = self.directors.get(tid)
        if d is None or d.finished.is_set():  # (no item of its task to follow: now)
            if self.tell is not None:
                self.tell(player, message)
            return
        self._held.setdefault(tid, []).append((player, message))

    def _flush(self, tid: str) -> None:
        for player, message in self._held.pop(tid, ()):
            if self.tell is not None:
                self.tell(player, message)

    def _changed(self, d: Director) -> Awaitable[None] | None:
        """After each item of a director: its state saved (TOUR-15; in a cluster, awaited
        by the director before its next item), then what it told players sent, and every
        follower gets the new state (their own)."""
        tid = d.info.id
        if tid in self._reading:  # (a read: nothing changed)
            self._reading.discard(tid)
            return None
        if tid not in self._push_due and self.followers.get(tid):
            self._push_due.add(tid)  # (coalesced: at most one push per interval)
            every = max(self.push_interval, len(self.followers[tid]) / 200)
            self.call_later(every, lambda: self._push(d))
        if self.room is not None:
            return self._save_in_room(d, self.room)
        if self.saved is not None:
            try:
                self.saved.save(d)
            except OSError:
                log.exception("event=tournament_save_failed tournament=%s", d.info.id)
        self._flush(tid)
        return None

    async def published(self, d: Director) -> None:
        """A new tournament: in a cluster, saved in the room before its creator's ``ok``
        (another process can route and list it at once)."""
        if self.room is not None:
            await self._save_in_room(d, self.room)

    async def _save_in_room(self, d: Director, room: Room) -> None:
        row = {**self.summary(d), "_host": d.info.host}
        if d.info.private:
            row["_who"] = [p for p in (d.info.host, *d.entry_no) if p]
            row["_invite"] = d.info.invite
        try:
            await room.save(d.info.id, snapshot(d), row, d.log)
        except Exception:  # (a stale lease included: this process stops writing anything)
            log.exception("event=tournament_save_failed tournament=%s", d.info.id)
        self._flush(d.info.id)

    async def read(self, d: Director, fn: Callable[[], Any]) -> Any:
        """``fn()`` in ``d``'s task, between two of its decisions (the last one saved):
        what players are shown is never a decision a crash can take back (a place shown,
        then given to another by a restore). A read is not saved again."""
        if d.finished.is_set():
            return fn()

        def item() -> Any:
            self._reading.add(d.info.id)
            return fn()
        return await d.ask(item)

    def _push(self, d: Director) -> None:
        """Every follower gets the tournament's state (the shared part built once), read
        between two decisions (:meth:`read`)."""
        self._push_due.discard(d.info.id)
        if self.followers.get(d.info.id):
            self._tasks.add(task := asyncio.ensure_future(self.read(d, lambda: self._send(d))))
            task.add_done_callback(self._tasks.discard)

    def _send(self, d: Director) -> None:
        common = self._common(d)
        for conn in list(self.followers.get(d.info.id, ())):
            conn.reply({"type": "tournament", **common, "you": self._you(d, conn.player_id)})


def _wanted(row: Mapping[str, Any], state: str | None, game: str | None) -> bool:
    return (state is None or row.get("state") == state) and (
        game is None or row.get("game") == game)


def _plain(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A request's fields as JSON data (tuples to lists)."""
    def conv(v: Any) -> Any:
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        if isinstance(v, Mapping):
            return {str(k): conv(x) for k, x in v.items()}
        return v
    return {str(k): conv(v) for k, v in fields.items()}


def _level(lv: Any) -> dict[str, Any] | None:
    if lv is None:
        return None
    stakes = {k: v for k, v in (("blinds", list(lv.stakes.blinds)), ("ante", lv.stakes.ante),
                                ("bring_in", lv.stakes.bring_in),
                                ("small_bet", lv.stakes.small_bet),
                                ("big_bet", lv.stakes.big_bet)) if v}
    return {"number": lv.number, "game": lv.game, "structure": lv.structure,
            "stakes": stakes, "minutes": lv.minutes, "hands": lv.hands}


class Requests:
    """The players' tournament requests, answered for one connection (see the module
    docstring of :mod:`server.tournament.hall`)."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall

    async def handle(self, conn: Follower, request: Any) -> None:
        hall, rid, kind = self.hall, request.rid, request.TYPE
        player = conn.player_id
        if kind == "tournaments":
            conn.reply({"type": "ok", "rid": rid})
            conn.reply({"type": "tournaments", "tournaments": await hall.room_summaries(
                player, request.state, request.game)})
            return
        if kind == "create_tournament":
            if player is None:
                raise _err("unauthorized", rid=rid)
            fields = {k: getattr(request, k) for k in (
                "name", "game", "structure", "kind", "buy_in", "fee", "capacity",
                "min_field", "starts_at", "private", "settings")}
            fields["levels"] = (None if request.levels is None
                                else [dict(x) for x in request.levels])
            try:
                d = await hall.open(fields, host=player)
            except ProtocolError as exc:
                raise ProtocolError(exc.code, exc.message, rid=rid) from None
            extra = {"invite": d.info.invite} if d.info.private else {}
            conn.reply({"type": "ok", "rid": rid, "tournament": d.info.id, **extra})
            return
        invite = getattr(request, "invite", None)
        await hall.elsewhere(request.tournament, player, invite, rid)  # (a cluster: moved)
        d = hall.find(request.tournament, player, invite, rid=rid)
        if kind == "tournament":
            state = await hall.read(d, lambda: hall.state_for(d, player))
            conn.reply({"type": "ok", "rid": rid})
            if request.follow:
                hall.follow(d.info.id, conn)
            conn.reply({"type": "tournament", **state})
            return
        if kind == "unfollow_tournament":
            hall.unfollow(d.info.id, conn)
            conn.reply({"type": "ok", "rid": rid})
            return
        if player is None:
            raise _err("unauthorized", rid=rid)
        name = conn.name or player
        code: str | None
        if kind == "tournament_register":
            code = await d.ask(lambda: d.register(player, name))
            if code is None:
                hall.follow(d.info.id, conn)
        elif kind == "tournament_unregister":
            code = await d.ask(lambda: d.unregister(player))
        elif kind == "tournament_rebuy":
            code = await d.ask(lambda: d.buy_chips(player, "rebuy"))
        elif kind == "tournament_add_on":
            code = await d.ask(lambda: d.buy_chips(player, "add_on"))
        elif kind == "cancel_tournament":
            if player != d.info.host:
                raise _err("not_host", "Only the tournament's host can cancel it.", rid=rid)
            code = await d.ask(lambda: d.cancel("cancelled by its host"))
        else:  # pragma: no cover - the router sends only the types above
            raise _err("unsupported", rid=rid)
        if code is not None:
            raise _err(code, rid=rid)
        conn.reply({"type": "ok", "rid": rid})
