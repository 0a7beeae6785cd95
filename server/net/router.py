"""From a frame to its answer: decode, parse, rate limit, then dispatch.

Rule of this module: every frame gets exactly one answer unless the connection is closed
for it, and no frame can raise out of `Router.handle_now` (nor out of the coroutine it returns
for a request that must wait).

Order per frame: one token from the connection's request bucket is spent first (so garbage
costs the sender too); the frame is decoded with `max_bytes=Config.max_frame_bytes` and
parsed (`ProtocolError` → its code, with the rid when readable); a refused token answers
`rate_limited` and counts a strike (`FloodGuard`: too many strikes close the connection with
1008); `chat` also needs a token from the separate chat bucket.

Dispatch: `hello` (guest or token), `ping`, `tables`, `create_table` are answered here; the
table requests go to the table's actor, which answers them itself. `watch`, `unwatch`,
`resume`, `tables`, `ping` and the identity requests work before `hello`; everything else answers
`unauthorized` until then. A table id the registry does not know answers `unknown_table`.
`login` and `register` (named accounts, `server.ledger.accounts`) answer like `hello`: `ok`
then `welcome`; a connection that already has an identity gets `not_allowed`. `history` (my
hands, newest first) and `hand` (my copy of one hand, as data or exported text) are answered
here from the `HistoryStore`: only hands the player played, only as that player may see them
(`server.ledger.history.player_copy`); `unknown_hand` otherwise.
In cluster mode (`Router.cluster`, `server.cluster`): `tables` lists the whole room from the
directory's copy, a table request for a table another process owns answers `moved` (with
`url` and `table`) but `watch`/`resume` of a listed one, served here from the owner's public
stream (`server.cluster.spectate`; `unwatch` leaves it; such a spectator's `chat` is forwarded
to the owner and its `mute` kept here), and `create_table` answers `moved`
(without `table`) when another process is less loaded, else once the new table is in the directory.
Identity requests carry the connection's address (`Connection.remote_ip`: behind a trusted
proxy the forwarded client's, `server.net.forwarded`; keyed by
`server.net.loginguard.address_key`) for the lockouts and the guest limit. `logout` ends the
connection's session (`all`: every one of the account) and `change_password` every session of
the account (the requester gets a fresh token in its `ok`); the connections of this process
whose session ended are then sent an `error` `bad_token` (no rid) and closed with 1000 `logged
out` (the requester's own after its `ok`, for `logout`, without the error); in a cluster
(`on_revoked`, `server.net.roomwide`) every other process closes its own the same way, and
`create_table` counts against the room's caps first (`create_in_room`).
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from protocol import (
    MAX_ID_LEN,
    Act,
    ChangePassword,
    Chat,
    CreateTable,
    Hand,
    Hello,
    History,
    Host,
    Leave,
    Login,
    Logout,
    Mute,
    Ping,
    ProtocolError,
    Register,
    Request,
    Resume,
    ShowHands,
    Sit,
    SitIn,
    SitOut,
    Tables,
    Unwatch,
    Watch,
    messages,
    parse_request,
)
from protocol import tournaments as pt
from server.cluster import Directory
from server.config import Config
from server.ledger.export import export
from server.ledger.history import HistoryStore, player_copy
from server.net.edge import CLOSE_FLOOD, Connection
from server.net.loginguard import address_key
from server.net.metrics import Metrics
from server.net.ratelimit import TokenBucket
from server.net.sessions import Sessions
from server.table.api import Envelope, TableRegistryAPI
from server.tournament.hall import Requests as TournamentRequests

__all__ = ["Router"]


log = logging.getLogger("server.net.router")

TABLE_REQUESTS: tuple[type[Request], ...] = (
    Watch, Unwatch, Resume, Sit, Leave, Act, Chat, SitOut, SitIn, ShowHands, Mute, Host,
)
"""Requests answered by the table's actor."""

ANONYMOUS: tuple[type[Request], ...] = (
    Hello, Login, Register, Ping, Tables, Watch, Unwatch, Resume,
)
"""Requests allowed before `hello` (docs/protocol.md: without hello a connection may only watch)."""

TOURNAMENT_REQUESTS: tuple[type[Request], ...] = (
    pt.Tournaments, pt.Tournament, pt.UnfollowTournament, pt.TournamentRegister,
    pt.TournamentUnregister, pt.TournamentRebuy, pt.TournamentAddOn, pt.CreateTournament,
    pt.CancelTournament,
)
"""Requests answered by the process's tournaments (`server.tournament.hall`, issue 27)."""


def _peek_rid(message: dict[str, Any]) -> str | int | None:
    """The rid of a decoded message when it is a valid one (so even a refusal carries it)."""
    rid = message.get("rid")
    if isinstance(rid, bool):
        return None
    if isinstance(rid, int) or (isinstance(rid, str) and len(rid) <= MAX_ID_LEN):
        return rid
    return None


class Router:
    """Answers frames for the edge. Build one per process and set
    `edge.handle_now = router.handle_now`."""

    def __init__(
        self,
        *,
        config: Config,
        registry: TableRegistryAPI,
        sessions: Sessions,
        metrics: Metrics,
        wall: Callable[[], float] = time.time,
        history: HistoryStore | None = None,
    ) -> None:
        self.config = config
        self.history = history
        self.registry = registry
        self.sessions = sessions
        self.metrics = metrics
        self._wall = wall
        self.connections: Callable[[], Iterable[Connection]] = lambda: ()
        """Every open connection of this process (`server.main` sets the edge's), so that a
        revocation closes the connections whose session it ended."""
        self._session_of: weakref.WeakKeyDictionary[Connection, str] = \
            weakref.WeakKeyDictionary()
        # chat per account, across its connections (Config.chat_rate_per_account)
        self._chat_buckets: dict[str, TokenBucket] = {}
        self.cluster: Directory | None = None
        """The cluster's directory (`server.cluster`, set by `server.main` in cluster mode):
        `tables` lists the whole room, a table owned elsewhere answers `moved`, and
        `create_table` may be sent to the least-loaded process (`moved` without `table`)."""
        self.gate: Callable[[str, Request], None] | None = None
        """The operator's account flags (`server.operator.service.AccountFlags.gate`, set by
        `server.main`): raises `ProtocolError` (`account_frozen`, `account_muted`) for a
        request an identified player may not make now."""
        self.on_revoked: Callable[[str, str | None, str | None],
                                  Coroutine[Any, Any, None]] | None = None
        """Cluster mode (`server.net.roomwide.Room.revoked`): told every ended session
        (player, session or None for all, the session kept), so every process closes them."""
        self.tournaments: TournamentRequests | None = None
        """The process's tournaments (`server.tournament.hall.Requests`, set by `server.main`)."""
        self.create_in_room: Callable[[Connection, CreateTable],
                                      Coroutine[Any, Any, None]] | None = None
        """Cluster mode (`server.net.roomwide.Room.create_table`): `create_table` counted
        against the room's caps per account and per address, then opened here."""

    def handle_now(self, conn: Connection,
                   frame: str | bytes) -> Coroutine[Any, Any, None] | None:
        """Answer one frame from `conn` as far as that needs no waiting: every request but
        `hello`, `login`, `register`, `history` and `hand`, for which it returns the
        coroutine that finishes the answer (the edge awaits it before handling the
        connection's next frame). Never raises, nor does that coroutine (an unexpected
        failure is logged and answered `internal_error`; the connection goes on)."""
        rid: Any = None
        try:
            allowed = conn.requests.take()
            try:
                message = conn.codec.decode(frame, max_bytes=self.config.max_frame_bytes)
            except ProtocolError as exc:
                if not allowed:
                    self._refuse(conn, exc.rid)
                    return None
                conn.reply(exc.to_message())
                return None
            rid = _peek_rid(message)
            if not allowed:
                self._refuse(conn, rid)
                return None
            request = parse_request(message)
            if isinstance(request, Chat) and not (conn.chats.take()
                                                  and self._account_chat(conn)):
                self._refuse(conn, rid)
                return None
            return self.route_now(conn, request)
        except ProtocolError as exc:
            conn.reply(exc.to_message())
        except Exception:
            log.exception("event=handler_error conn=%d player=%s", conn.conn_id, conn.player_id)
            conn.reply(messages.error(rid, "internal_error"))
        return None

    async def _finish(self, conn: Connection, rid: Any,
                      answer: Coroutine[Any, Any, None]) -> None:
        """Await the rest of an answer (`route_now`), with `handle_now`'s error handling."""
        try:
            await answer
        except ProtocolError as exc:
            conn.reply(exc.to_message())
        except Exception:
            log.exception("event=handler_error conn=%d player=%s", conn.conn_id, conn.player_id)
            conn.reply(messages.error(rid, "internal_error"))

    def _account_chat(self, conn: Connection) -> bool:
        """One token of the account's chat bucket (shared by its connections). A refusal
        counts a flood strike like the connection's own bucket: it is the sender's own
        flood. (The table's limit, `chat_limited`, does not: that may be others' chat.)"""
        pid = conn.player_id
        if pid is None:
            return True  # answered `unauthorized` by route_now
        bucket = self._chat_buckets.get(pid)
        if bucket is None:
            if len(self._chat_buckets) >= 4096:  # forget the accounts whose bucket is full
                self._chat_buckets = {k: b for k, b in self._chat_buckets.items()
                                      if b.tokens < b.burst}
            bucket = self._chat_buckets[pid] = TokenBucket(
                rate=self.config.chat_rate_per_account,
                burst=self.config.chat_burst_per_account, clock=conn.chats._clock)
        return bucket.take()

    def _refuse(self, conn: Connection, rid: Any) -> None:
        conn.reply(messages.error(rid, "rate_limited"))
        if conn.flood.strike():
            self.metrics.flood_disconnects_total += 1
            log.info("event=flood_disconnect conn=%d player=%s", conn.conn_id, conn.player_id)
            conn.close_soon(CLOSE_FLOOD, "flooding")

    async def _history(self, conn: Connection, request: History) -> None:
        """`history`: the player's hands, newest first (`HistoryStore.hands_of`)."""
        assert self.history is not None and conn.player_id is not None
        before = None if request.before is None else str(request.before)
        hands, more = await self.history.hands_of(conn.player_id, limit=request.limit,
                                                  before=before, table=request.table)
        conn.reply(messages.ok(request.rid, hands=[h.to_wire() for h in hands], more=more))

    async def _hand(self, conn: Connection, request: Hand) -> None:
        """`hand`: the player's own copy of a hand they played (`player_copy`: others'
        hidden cards redacted), as data or exported text; `unknown_hand` otherwise."""
        assert self.history is not None and conn.player_id is not None
        record = await self.history.get(str(request.hand), player_id=conn.player_id)
        copy = None if record is None else player_copy(record, conn.player_id)
        if copy is None:
            raise ProtocolError("unknown_hand", rid=request.rid)
        if request.format == "json":
            conn.reply(messages.ok(request.rid, hand=copy.hand, format="json",
                                   record=copy.to_dict(), events=copy.events))
        else:
            conn.reply(messages.ok(request.rid, hand=copy.hand, format=request.format,
                                   text=export(copy, request.format)))

    def route_now(self, conn: Connection,
                  request: Request) -> Coroutine[Any, Any, None] | None:
        """Dispatch one valid request (raises `ProtocolError` for a refusal); returns the
        coroutine that finishes a request that must wait (identity and history)."""
        rid = request.rid
        if conn.player_id is None and not isinstance(request, ANONYMOUS):
            raise ProtocolError("unauthorized", rid=rid)
        if self.gate is not None and conn.player_id is not None:
            self.gate(conn.player_id, request)  # frozen: no sit, no chat; muted: no chat
        if isinstance(request, TABLE_REQUESTS):
            table_id: str = request.table  # type: ignore[attr-defined]
            actor = self.registry.get(table_id)
            if actor is None:
                if self.cluster is not None:  # owned by another process?
                    if isinstance(request, Watch | Resume | Unwatch) \
                            and self._watch_remote(conn, request, table_id):
                        return None  # served here, from the owner's public stream
                    if isinstance(request, Chat | Mute) \
                            and self.cluster.spectate.viewer_request(conn, request):
                        return None  # a spectator here: chat forwarded to the owner
                    return self._finish(conn, rid, self._elsewhere(conn, request, table_id))
                raise ProtocolError.unknown_table(table_id, rid=rid)
            self._to_table(conn, request, actor)
        elif isinstance(request, Hello | Login | Register):
            return self._finish(conn, rid, self._hello(conn, request))
        elif isinstance(request, Logout | ChangePassword):
            return self._finish(conn, rid, self._account(conn, request))
        elif isinstance(request, Ping):
            conn.reply(messages.pong(rid, time=self._wall(), t=request.t))
        elif isinstance(request, Tables):
            if conn.player_id is None:  # a lobby page: its hello deadline starts again
                conn.keep_alive()
            lobby = self.cluster if self.cluster is not None else self.registry
            conn.reply(messages.ok(rid, **lobby.page(request)))
        elif isinstance(request, CreateTable):
            if self.cluster is not None and (url := self.cluster.place()) is not None:
                raise ProtocolError.moved(url, rid=rid)  # the least-loaded process opens it
            if self.create_in_room is not None:  # the room's caps, then as below
                return self._finish(conn, rid, self.create_in_room(conn, request))
            table_id = self._create_now(conn, request)
            if self.cluster is not None:
                return self._finish(conn, rid, self._created_listed(conn, rid, table_id))
            conn.reply(messages.ok(rid, **self.registry.created(table_id)))
        elif isinstance(request, TOURNAMENT_REQUESTS) and self.tournaments is not None:
            return self._finish(conn, rid, self.tournaments.handle(conn, request))
        elif isinstance(request, History) and self.history is not None:
            return self._finish(conn, rid, self._history(conn, request))
        elif isinstance(request, Hand) and self.history is not None:
            return self._finish(conn, rid, self._hand(conn, request))
        else:  # history and hand without a history store
            raise ProtocolError("unsupported", f"`{request.TYPE}` is not available yet",
                                rid=rid)
        return None

    def close_sessions(self, player_id: str) -> None:
        """Close this process's connections of `player_id` (every session of it ended)."""
        self._close_sessions(player_id, None)

    def session_of(self, conn: Connection) -> str | None:
        """The session id `conn` said hello with (None: anonymous)."""
        return self._session_of.get(conn)

    def create_now(self, conn: Connection, request: CreateTable) -> str:
        return self._create_now(conn, request)

    async def created_listed(self, conn: Connection, rid: Any, table_id: str) -> None:
        await self._created_listed(conn, rid, table_id)

    def _create_now(self, conn: Connection, request: CreateTable) -> str:
        """Open the table of a `create_table` here; its id (refusals raise, with the rid)."""
        try:
            table_id = self.registry.create(request, owner=conn.player_id,
                                            ip=getattr(conn, "remote_ip", None))
        except ProtocolError as exc:
            exc.rid = request.rid
            raise
        log.info("event=table_created table=%s owner=%s variant=%s",
                 table_id, conn.player_id, request.variant)
        return table_id

    async def _created_listed(self, conn: Connection, rid: Any, table_id: str) -> None:
        """In a cluster, `create_table` is answered once the new table is in the directory,
        so that whoever learns its id finds it from any process."""
        assert self.cluster is not None
        await self.cluster.written(table_id)
        conn.reply(messages.ok(rid, **self.registry.created(table_id)))

    def _watch_remote(self, conn: Connection, request: Watch | Resume | Unwatch,
                      table_id: str) -> bool:
        """In a cluster, `watch` (and `resume`, which starts again from a snapshot) of a
        listed table another process owns is served here (`server.cluster.spectate`): `ok`,
        then the table's public snapshot and frames; `unwatch` leaves it. False: answer as
        for any table request elsewhere (`moved`)."""
        assert self.cluster is not None
        spectate = self.cluster.spectate
        if isinstance(request, Unwatch):
            if not spectate.unwatch(table_id, conn.conn_id):
                return False
            conn.reply(messages.ok(request.rid))
            return True
        if not self.cluster.watchable(table_id, conn.player_id):
            return False
        conn.settle()  # a live table watched: the hello deadline is met
        conn.reply(messages.ok(request.rid))
        spectate.watch(table_id, conn)
        return True

    @staticmethod
    def _to_table(conn: Connection, request: Request, actor: Any) -> None:
        if isinstance(request, Act):
            conn.act_received(request.rid)
        if isinstance(request, Watch):
            conn.settle()  # a live table watched: the hello deadline is met
        actor.submit_nowait(Envelope(request, conn))

    async def _elsewhere(self, conn: Connection, request: Request, table_id: str) -> None:
        """A table request for a table this process does not have, in a cluster: `moved` to
        its owner's URL (the directory's copy, else one look-up in Redis), else
        `unknown_table`. A table this very process took over meanwhile (a failover the
        request waited for) is served here: no `moved` to the connection's own process."""
        assert self.cluster is not None
        url = await self.cluster.locate(table_id)  # (the copy, else one look-up)
        if url is None:
            raise ProtocolError.unknown_table(table_id, rid=request.rid)
        actor = self.registry.get(table_id)
        if url == self.cluster.url and actor is not None:
            self._to_table(conn, request, actor)
            return
        raise ProtocolError.moved(url, table=table_id, rid=request.rid)

    async def _hello(self, conn: Connection, request: Hello | Login | Register) -> None:
        if conn.player_id is not None:
            raise ProtocolError("not_allowed", "this connection already said hello",
                                rid=request.rid)
        address = address_key(getattr(conn, "remote_ip", None))
        try:
            if isinstance(request, Hello):
                identity = await self.sessions.hello(request, address)
            elif isinstance(request, Login):
                identity = await self.sessions.login(request, address)
            else:
                identity = await self.sessions.register(request, address)
        except ProtocolError as exc:
            exc.rid = request.rid
            raise
        if conn.player_id is not None:  # another identity request won meanwhile
            raise ProtocolError("not_allowed", "this connection already said hello",
                                rid=request.rid)
        conn.player_id, conn.name = identity.player_id, identity.name
        self._session_of[conn] = identity.session
        conn.settle()  # identified: the hello deadline is met
        resumed = isinstance(request, Hello) and request.token is not None
        log.info("event=hello conn=%d player=%s kind=%s guest=%s", conn.conn_id,
                 identity.player_id, "resume" if resumed else request.TYPE, identity.guest)
        conn.reply(messages.ok(request.rid, player_id=identity.player_id))
        conn.reply(messages.welcome(player_id=identity.player_id, name=identity.name,
                                    token=identity.token, balance=identity.balance,
                                    guest=identity.guest))

    async def _account(self, conn: Connection, request: Logout | ChangePassword) -> None:
        """`logout` and `change_password` (see the module docstring)."""
        player_id = conn.player_id
        assert player_id is not None
        session = self._session_of.get(conn)
        try:
            if isinstance(request, Logout):
                ended = await self.sessions.logout(player_id, session, everywhere=request.all)
            else:
                identity = await self.sessions.change_password(
                    player_id, conn.name or "", request,
                    address_key(getattr(conn, "remote_ip", None)))
        except ProtocolError as exc:
            exc.rid = request.rid
            raise
        if isinstance(request, Logout):
            log.info("event=logout conn=%d player=%s all=%s revoked=%d", conn.conn_id,
                     player_id, request.all, ended)
            conn.reply(messages.ok(request.rid, revoked=ended))
            self._close_sessions(player_id, None if request.all else session)
            conn.close_soon(1000, "logged out")
            kept = None
        else:
            self._session_of[conn] = kept = identity.session
            conn.reply(messages.ok(request.rid, token=identity.token))
            self._close_sessions(player_id, None, keep=conn)
        if self.on_revoked is not None:  # the room's other processes close theirs
            await self.on_revoked(player_id, session if isinstance(request, Logout)
                                  and not request.all else None, kept)

    def _close_sessions(self, player_id: str, session: str | None, *,
                        keep: Connection | None = None) -> None:
        """Close (1000) this process's connections of `player_id` on `session` (None: on
        any session) but `keep`."""
        for other in list(self.connections()):
            if other is keep or other.player_id != player_id or other.closing:
                continue
            if session is None or self._session_of.get(other) == session:
                other.reply({"type": "error", "code": "bad_token",  # its session ended
                             "message": "the session has ended"})
                other.close_soon(1000, "logged out")
