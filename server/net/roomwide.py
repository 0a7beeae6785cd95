"""The room's side of a cluster's limits: revocations, account flags and open-table caps that
hold on every process.

Rule of this module: in cluster mode (`server.main` builds a :class:`Room` when the process
has a Redis URL and a public URL) nothing a player or the operator ends or forbids on one
process goes on elsewhere:

* **Revocations.** After `logout`, `logout all`, `change_password` and an operator freeze
  with ``end_sessions``, the process that ended the sessions publishes them on
  `server.roomlimits.EVENTS_CHANNEL`; every process (this one too) closes its sockets whose
  session ended: an `error` without rid, code `bad_token`, then the close (1000). Pub/sub is
  best effort (a message published while a subscriber is reconnecting is lost), so every
  process also checks the sessions of its live sockets against the store after each
  reconnection of its subscription and every `Config.session_recheck_interval` seconds; a
  token is refused at `hello` as soon as its session is gone from the store in any case.
* **Players' mutes.** A `mute` (or unmute) is stored in Redis and published; every process
  applies it to its copy of the room's mutes (`server.table.lobby.Mutes`), which a process
  reads whole from Redis after each (re)subscription.
* **Account flags.** A freeze or mute (and their lifting) is published the same way and
  applied to every process's `AccountFlags`; after each (re)subscription a process replays
  the audit log, so a flag set while it was cut off (or starting) is not missed.
* **Open tables.** `create_table` reserves its place in the room's counts per account and per
  address (`RoomLimits.reserve_table`, `Config.max_tables_per_account`,
  `max_tables_per_ip`) before the registry opens the table (which still applies its own
  per-process caps); a refusal is `too_many_tables`. Redis unreachable: the per-process caps
  alone (logged).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import Any

import orjson

from protocol import CreateTable, ProtocolError
from server.cluster.ports import Bus
from server.config import Config
from server.net.edge import Connection
from server.net.loginguard import address_key
from server.net.router import Router
from server.net.sessions import Sessions
from server.operator.service import OperatorService
from server.redisio import Redis, RedisUnavailable
from server.roomlimits import EVENTS_CHANNEL, RoomLimits
from server.table.lobby import Mutes

__all__ = ["REVOKED_MESSAGE", "Room", "close_revoked"]

log = logging.getLogger("server.net.roomwide")

REVOKED_MESSAGE = "the session has ended (logged out, password changed or account frozen)"


def close_revoked(conn: Connection) -> None:
    """Close `conn`, whose session ended: an `error` (no rid) `bad_token`, then 1000."""
    if conn.closing:
        return
    conn.reply({"type": "error", "code": "bad_token", "message": REVOKED_MESSAGE})
    conn.close_soon(1000, "session ended")


class Room:
    """See the module docstring. `start` connects and subscribes; `stop` ends both."""

    def __init__(self, config: Config, limits: RoomLimits, *, router: Router,
                 sessions: Sessions, operator: OperatorService | None,
                 mutes: Mutes | None = None) -> None:
        self.config = config
        self.limits = limits
        self.router = router
        self.sessions = sessions
        self.operator = operator
        self.subscribed = asyncio.Event()
        self.bus: Bus | None = None  # the process's subscriptions (server.cluster.bus), if set
        self._recheck_now = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._writes: set[asyncio.Task[None]] = set()  # mutes being stored and published
        self.mutes = mutes
        if mutes is not None:
            mutes.listener = self.mute_changed
        router.on_revoked = self.revoked
        router.create_in_room = self.create_table
        if operator is not None:
            operator.flag_listener = self.flag_changed

    # --- life ----------------------------------------------------------------------------
    async def start(self, timeout: float = 5.0) -> None:
        await self.limits.start()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._recheck(), name="room-recheck")]
        if self.bus is not None:  # (issue 26: the one task of the process's channels)
            self.bus.on(EVENTS_CHANNEL, self._heard, ready=self._ready)
        else:
            self._tasks.append(loop.create_task(self._listen(), name="room-events"))
        try:  # (bounded: the process serves anyway; the re-check covers a late subscription)
            async with asyncio.timeout(timeout):
                await self.subscribed.wait()
        except TimeoutError:
            log.warning("event=room_events_not_subscribed timeout=%s", timeout)

    async def stop(self) -> None:
        if self.bus is not None:
            self.bus.off(EVENTS_CHANNEL, self._heard)
        for task in [*self._tasks, *self._writes]:
            task.cancel()
        for task in [*self._tasks, *self._writes]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                async with asyncio.timeout(2.0):
                    await task
        self._tasks = []
        await self.limits.close()

    def _redis(self) -> Redis:
        redis = self.limits.redis
        if redis is None:
            raise RedisUnavailable("the room's limits are not connected")
        return redis

    # --- publishing ----------------------------------------------------------------------
    async def _publish(self, event: dict[str, Any]) -> None:
        """Best effort: a lost publish is caught up by the re-checks (module docstring)."""
        try:
            await self._redis().publish(EVENTS_CHANNEL, orjson.dumps(event).decode())
        except RedisUnavailable as exc:
            log.warning("event=room_publish_failed kind=%s error=%r", event.get("k"), str(exc))

    async def revoked(self, player_id: str, session: str | None, keep: str | None) -> None:
        """`player_id`'s `session` ended (None: every session but `keep`): tell the room."""
        await self._publish({"k": "revoke", "p": player_id, "s": session, "keep": keep})

    async def flag_changed(self, player_id: str, flag: str, on: bool) -> None:
        await self._publish({"k": "flag", "p": player_id, "f": flag, "on": on})

    def mute_changed(self, muter: str, target: str, on: bool) -> None:
        """A player's `mute` here (the table's task: not awaited): stored, then published."""
        task = asyncio.get_running_loop().create_task(self._mute(muter, target, on))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _mute(self, muter: str, target: str, on: bool) -> None:
        try:
            await self.limits.mute(muter, target, on)
        except RedisUnavailable as exc:  # (this process holds it; the others learn it
            log.warning("event=room_mute_failed error=%r", str(exc))  # at the next one)
        await self._publish({"k": "mute", "p": muter, "t": target, "on": on})

    # --- receiving -----------------------------------------------------------------------
    def _ready(self) -> None:  # subscribed (again): what was published before is lost, so
        self.subscribed.set()  # the flags are replayed and the sessions checked
        self._recheck_now.set()

    def _heard(self, _channel: str, text: str) -> None:
        try:
            self.apply(orjson.loads(text))
        except Exception:  # one bad message must not end the subscription
            log.exception("event=room_event_failed")

    async def _listen(self) -> None:
        async for channel, text in self._redis().subscribe(EVENTS_CHANNEL, ready=self._ready):
            self._heard(channel, text)

    def apply(self, event: Any) -> None:
        """One event of the channel (from any process, this one included)."""
        if not isinstance(event, dict) or not isinstance(event.get("p"), str):
            return
        player_id = event["p"]
        if event.get("k") == "revoke":
            session, keep = event.get("s"), event.get("keep")
            closed = 0
            for conn in self._connections(player_id):
                held = self.router.session_of(conn)
                if (session is None and held != keep) or (session is not None
                                                          and held == session):
                    close_revoked(conn)
                    closed += 1
            if closed:
                log.info("event=revoked_sockets_closed player=%s count=%d", player_id, closed)
        elif event.get("k") == "mute" and self.mutes is not None \
                and isinstance(event.get("t"), str):
            on = bool(event.get("on"))
            self.mutes.apply(player_id, event["t"], on)
            log.info("event=room_mute player=%s target=%s on=%s", player_id, event["t"], on)
        elif event.get("k") == "flag" and self.operator is not None:
            flags = self.operator.flags
            marked = {"frozen": flags.frozen, "muted": flags.muted}.get(event.get("f", ""))
            if marked is not None:
                on = bool(event.get("on"))
                (marked.add if on else marked.discard)(player_id)
                log.info("event=room_flag player=%s flag=%s on=%s", player_id, event["f"], on)

    def _connections(self, player_id: str | None = None) -> Iterable[Connection]:
        for conn in list(self.router.connections()):
            if conn.closing or conn.player_id is None:
                continue
            if player_id is None or conn.player_id == player_id:
                yield conn

    async def _recheck(self) -> None:
        """Every `Config.session_recheck_interval` seconds (0: only after a reconnection),
        and at once after each (re)subscription: close the sockets whose session the store
        no longer has; replay the audit log's flags after a (re)subscription."""
        interval = self.config.session_recheck_interval
        while True:
            reconnected = False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(interval if interval > 0 else None):
                    await self._recheck_now.wait()
                    reconnected = True
            self._recheck_now.clear()
            try:
                if reconnected and self.operator is not None:
                    await self.operator.start()  # the flags, from the audit log
                if reconnected and self.mutes is not None:  # the players' mutes
                    for muter, targets in (await self.limits.mutes()).items():
                        for target in self.mutes.muted_by(muter) - set(targets):
                            self.mutes.apply(muter, target, False)
                        for target in targets:
                            self.mutes.apply(muter, target, True)
                await self.recheck_sessions()
            except Exception:
                log.exception("event=session_recheck_failed")

    async def recheck_sessions(self) -> int:
        """Close this process's sockets whose session ended; how many were closed."""
        closed = 0
        checked: dict[tuple[str, str], bool] = {}
        for conn in list(self._connections()):
            session = self.router.session_of(conn)
            if not session or conn.player_id is None:
                continue
            key = (session, conn.player_id)
            if key not in checked:
                checked[key] = await self.sessions.alive(session, conn.player_id)
            if not checked[key]:
                close_revoked(conn)
                closed += 1
        if closed:
            log.info("event=session_recheck closed=%d", closed)
        return closed

    # --- open tables ---------------------------------------------------------------------
    async def create_table(self, conn: Connection, request: CreateTable) -> None:
        """`create_table` within the room's caps (module docstring), then as the router
        answers it in a cluster (once the table is in the directory)."""
        cfg = self.config
        counts: list[tuple[str, str, int]] = []
        if conn.player_id is not None:
            counts.append(("acct", conn.player_id, cfg.max_tables_per_account))
        counts.append(("addr", address_key(getattr(conn, "remote_ip", None)),
                       cfg.max_tables_per_ip))
        nonce: str | None = None
        try:
            full, nonce = await self.limits.reserve_table(counts)
        except RedisUnavailable as exc:
            log.warning("event=room_limits_unavailable check=tables error=%r", str(exc))
        else:
            if full is not None:
                log.info("event=table_refused reason=room_%s owner=%s", full, conn.player_id)
                raise ProtocolError("too_many_tables", _FULL[full].format(
                    account=cfg.max_tables_per_account, ip=cfg.max_tables_per_ip),
                    rid=request.rid)
        table_id: str | None = None
        try:
            table_id = self.router.create_now(conn, request)
        finally:
            if nonce:
                with contextlib.suppress(RedisUnavailable):  # (the grace frees it anyway)
                    await self.limits.bind_table(counts, nonce, table_id)
        await self.router.created_listed(conn, request.rid, table_id)


_FULL = {"acct": "you have {account} open tables in this room, the most one account may "
                 "have; an empty table closes by itself",
         "addr": "{ip} tables are open from your address in this room, the most one address "
                 "may have"}
