"""The room's directory in Redis, and this process's cached copy of it (issue 17, slice 1);
the part of the cluster that knows who owns which table and keeps the lobby's index, and
builds the other parts (issue 26, :mod:`server.cluster.ports`: each is handed the ports it
needs and nothing else; none reads another's attributes).

Rule of this module: requests never wait on Redis for the lobby. One task this object owns
(:meth:`Directory.start` .. :meth:`Directory.close`) does all of the talking: it writes the
tables whose lobby entry
changed (the registry's ``listing_listener`` only marks them: many changes of one table
between two writes cost one write), and every ``Config.cluster_lobby_refresh_ms`` reads the
directory into :class:`RoomCopy`, from which :meth:`Directory.page` (``tables``) and
:meth:`Directory.place` (``create_table``) answer, and :class:`~server.cluster.where.Where`, the
one answer to "where is table X" (``moved``: :meth:`Directory.locate`; the lobby's rows; the
spectators' relay: :meth:`Directory.watchable`). The one Redis round trip a request may cost is
a table this copy does not know yet (opened elsewhere since the last read), looked up once
before the answer is ``unknown_table``.

The parts this object builds and starts: the subscriptions (:mod:`server.cluster.bus`: every
pub/sub channel of the process, one task; this part's is ``changed``), the saved states
(:mod:`server.cluster.states`: one per table, written by this object's task), moves, failover
and the spectators' relay.

Keys and scripts: :mod:`server.cluster.keys`. A table lives on exactly one process; this
process writes only its own tables (a script refuses to overwrite another owner's).

This process's liveness in the room is its one lease (:mod:`server.ledger.lease`, kept by the
ledger: ``Ledger.lease``); every ownership write here carries its fencing token. Once the
lease is lost (:meth:`Directory.lease_lost`) nothing is written any more, no failover is
attempted, and every table another process owns now is stopped here (``fence_lost``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from server.cluster import keys as lua
from server.cluster.bus import Subscriptions
from server.cluster.failover import Failover, Steps, ledger_steps
from server.cluster.keys import Keys
from server.cluster.moves import Moves, ledger_take
from server.cluster.ports import Me, NodeInfo
from server.cluster.spectate import Spectate
from server.cluster.states import TableStates
from server.cluster.tasks import cancel_all
from server.cluster.tournaments import RoomTournaments
from server.cluster.where import Where
from server.ledger.journal import Ledger
from server.ledger.lease import StaleLease, run_fenced
from server.redisio import Redis, RedisScriptError, RedisUnavailable
from server.table.lobby import page_of, row_of, table_number
from server.table.registry import TableRegistry

__all__ = ["Directory", "NodeInfo", "RoomCopy"]

log = logging.getLogger("server.cluster")


@dataclass
class RoomCopy:
    """One read of the directory: the live nodes, and every table of a live node (``owner``:
    table id -> node; ``rows``: the listed tables' lobby rows, in table-number order, each
    entry carrying ``node``)."""

    version: str = ""
    nodes: dict[str, NodeInfo] = field(default_factory=dict)
    owner: dict[str, str] = field(default_factory=dict)
    rows: list[Any] = field(default_factory=list)
    filtered: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    load: dict[str, tuple[int, int]] = field(default_factory=dict)  # node -> tables, players
    listed_rows: list[Any] | None = None  # listed(), once per read
    unlisted: set[str] = field(default_factory=set)  # private tables (no lobby entry)
    lapsed: list[str] = field(default_factory=list)  # nodes whose lease ran out (failover)
    seated: dict[str, frozenset[str]] = field(default_factory=dict)  # table -> player ids

    @classmethod
    def parse(cls, version: str, live: list[str], tables: list[str]) -> RoomCopy:
        nodes = {live[i]: NodeInfo(live[i], live[i + 1], live[i + 2] == "1")
                 for i in range(0, len(live) - 2, 3)}
        copy = cls(version=version, nodes=nodes)
        for i in range(0, len(tables) - 4, 5):
            table_id, node, entry = tables[i], tables[i + 1], tables[i + 3]
            copy.owner[table_id] = node
            if tables[i + 4]:
                copy.seated[table_id] = frozenset(tables[i + 4].split())
            players = 0
            if not entry:
                copy.unlisted.add(table_id)
            else:
                data = json.loads(entry)
                data["node"] = node
                players = int(data.get("players", 0))
                copy.rows.append((node, row_of(data)))
            tables_of, seated = copy.load.get(node, (0, 0))
            copy.load[node] = (tables_of + 1, seated + players)
        copy.rows.sort(key=lambda r: r[1][0])
        return copy


def _resolve(waiters: list[asyncio.Future[None]]) -> None:
    for waiter in waiters:
        if not waiter.done():
            waiter.set_result(None)


class Directory:
    """This process in the cluster's directory (see the module docstring).

    ``redis``: a :class:`~server.redisio.Redis` or its URL; ``node``/``run``: the ledger's
    node name and run; ``url``: this process's public ``ws://…/ws``; ``lease`` seconds;
    ``refresh`` seconds between reads; ``registry``: this process's tables; ``ledger``: the
    process's ledger (moves and failover move tables' chips)."""

    def __init__(self, redis: Redis | str, *, node: str, run: str, url: str, lease: float,
                 refresh: float, registry: TableRegistry, prefix: str = "dir",
                 clock: Callable[[], float] = time.monotonic,
                 ledger: Ledger | None = None) -> None:
        self._redis_arg = redis
        self.redis: Redis | None = redis if isinstance(redis, Redis) else None
        self.node, self.run, self.url = node, run, url
        self.lease, self.refresh = lease, refresh
        self.registry = registry
        self.keys = Keys(prefix)
        self.me = Me(node, run, url, self.keys)
        self.copy = RoomCopy()
        self.reads = 0  # directory reads into the copy (tests)
        self._clock = clock
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._placed: dict[str, int] = {}  # node -> tables sent there since the last read
        # create_table's waiters (:meth:`written`), by table, until a pass takes the table
        # up: that pass resolves them once it has written it (whichever pass that is)
        self._written: dict[str, list[asyncio.Future[None]]] = {}
        self._reads: list[asyncio.Future[None]] = []
        self._draining = False
        self._healthy_since: float | None = None  # Redis answering since (monotonic)
        self._want_read = False  # another process announced a change: read soon
        self.ledger = ledger
        self.lost = False  # this process's lease is lost: it writes nothing any more
        self.bus = Subscriptions(lambda: self.redis, name=node)
        """Every pub/sub channel of this process (:mod:`server.cluster.bus`)."""
        self.where = Where(self.me, lambda: self.copy, lambda: self.redis, self.lease_ends,
                           failover_wait=lease + 3.0,
                           here=lambda table_id: registry.get(table_id) is not None)
        """The one answer to "where is table X" (:mod:`server.cluster.where`)."""
        self.states = TableStates(self, registry, self._wake.set)
        """One saved state per table (:mod:`server.cluster.states`)."""
        self.spectate = Spectate(lambda: self.redis, self.bus, registry=registry,
                                 prefix=prefix, node=node, lease=lease)
        """Spectators across processes (:mod:`server.cluster.spectate`): the registry's
        relay, and the remote tables watched here."""
        self.moves = Moves(self, self.bus, self.states, registry,
                           ledger_take(lambda: self.ledger))
        """Live table moves (:mod:`server.cluster.moves`): a drain hands tables over, and
        this process takes tables others hand over."""
        self.failover = Failover(self, registry, self.where, self._steps, lease)
        """Failover (:mod:`server.cluster.failover`): the tables of a process whose lease
        lapsed, reopened here when this process is the one that takes it over."""
        self.tournaments: RoomTournaments | None = None
        """The room's tournaments (:mod:`server.cluster.tournaments`), once served."""
        self._restore_own: Callable[[str], Awaitable[int]] | None = None

    def serve_tournaments(self, restore_from: Callable[[str, str], Awaitable[int]],
                          hand_over: Callable[[float], Awaitable[int]]) -> RoomTournaments:
        """Issue 27: the process's tournaments kept in Redis. ``restore_from(node, tid)``
        claims and restores a node's tournaments (``tid``: that one; ``''``: all): this
        node's own from a previous run (at :meth:`start`), a lost process's in its failover
        (after its tables' chips went back), one handed over here; ``hand_over(deadline)``
        gives this process's tournaments to another at a drain (with its tables' moves)."""
        room = self.tournaments = RoomTournaments(
            self.me, lambda: self.redis, self.fenced, lambda: self.copy.nodes,
            wait=self.lease + 3.0)
        self._restore_own = self.failover.after = lambda node: restore_from(node, "")
        self.moves.also = hand_over
        room.listen(self.bus, restore_from)
        return room

    def _steps(self) -> Steps | None:
        return None if self.ledger is None else ledger_steps(self.ledger, self.registry)

    # ------------------------------------------------------------------ life
    async def start(self) -> None:
        """Connect, register this node (dropping what a previous run of it left), write the
        tables already open, read the directory once, then keep it all up to date."""
        if self.redis is None:
            assert isinstance(self._redis_arg, str)
            self.redis = await Redis.connect(self._redis_arg)
        k = self.keys
        dropped = await self.redis.script(lua.REGISTER)(
            keys=[k.nodes, k.node(self.node), k.tables, k.version],
            args=[self.node, self.run, self.url, k.table_prefix])
        self._healthy_since = self._clock()
        self._dirty.update(self.registry.actors)
        await self._flush()
        await self.announce()  # the others see this node at once
        await self._read()
        if self._restore_own is not None:  # issue 27: this node's tournaments, before serving
            try:
                await self._restore_own(self.node)
            except Exception:
                log.exception("event=tournaments_restore_failed node=%s", self.node)
        log.info("event=cluster_joined node=%s url=%s nodes=%d tables=%d dropped=%s",
                 self.node, self.url, len(self.copy.nodes), len(self.copy.owner), dropped)
        self._task = asyncio.get_running_loop().create_task(self._keep(),
                                                            name=f"directory:{self.node}")
        self.bus.on(self.keys.changed, self._changed)
        self.spectate.start()
        self.moves.start()
        await self.bus.start()  # every channel above subscribed

    def _changed(self, _channel: str, message: str) -> None:
        if message != self.node:  # another process's write: read the directory again soon
            self.want_read()

    async def drain(self) -> None:
        """Shutdown began: no new tables are placed here (the node stays listed, and its
        tables too, until :meth:`close`)."""
        self._draining = True
        if self.redis is not None:
            with contextlib.suppress(RedisUnavailable, RedisScriptError):
                await self.redis.script(lua.DRAIN)(keys=[self.keys.node(self.node)],
                                                   args=[self.run])
                await self.announce()

    async def close(self) -> None:
        """Stop the task, take this node and its tables out of the directory, disconnect."""
        await self.moves.close()
        await self.failover.close()
        await self.spectate.close()
        await self.bus.close()
        await cancel_all([self._task])
        self._task = None
        if self.redis is None:
            return
        k = self.keys
        try:
            await self.redis.script(lua.LEAVE)(
                keys=[k.nodes, k.node(self.node), k.tables, k.version],
                args=[self.node, self.run, k.table_prefix])
            await self.announce()
        except (RedisUnavailable, RedisScriptError) as exc:
            log.error("event=cluster_leave_failed node=%s error=%r", self.node, exc)
        if isinstance(self._redis_arg, str):
            await self.redis.close()
        log.info("event=cluster_left node=%s", self.node)

    def hand_played(self, table_id: str) -> None:
        """The registry's ``played_listener`` (in the table's task, at its hand's end): its
        state is read now and written at the next turn of the task, at most once per
        ``refresh`` (:mod:`server.cluster.states`; non-blocking)."""
        self.states.hand_ended(table_id)

    def table_changed(self, table_id: str) -> None:
        """The registry's ``listing_listener``: write this table at the next turn of the
        task, and its state with it when no hand runs (non-blocking)."""
        self._dirty.add(table_id)
        self.states.entry_changed(table_id)
        self._wake.set()

    async def written(self, table_id: str, timeout: float = 5.0) -> bool:
        """Mark ``table_id`` and wait until a write pass has written it after now (its
        entry is in Redis): ``create_table`` answers only then, so whoever learns the id can
        find the table from any process. The waiter is the table's, not a pass number's: a
        pass already running when it is filed, that takes the table up after that, answers
        it (a quiet cluster has no later pass). False after ``timeout`` seconds (Redis
        down)."""
        self._dirty.add(table_id)
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._written.setdefault(table_id, []).append(waiter)
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(waiter), timeout)
        except TimeoutError:
            log.warning("event=cluster_write_slow table=%s", table_id)
            return False
        return True

    async def next_read(self, timeout: float = 10.0) -> None:
        """Wait until the next read of the directory into the copy has ended (tests)."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._reads.append(waiter)
        self.want_read()
        await asyncio.wait_for(waiter, timeout)

    # ------------------------------------------------------------------ answers (no Redis)
    def page(self, request: Any) -> dict[str, Any]:
        """The ``tables`` answer's fields from the copy: every table of the room's live
        processes, filtered and paged as a standalone process's own (each with ``node``)."""
        copy = self.copy
        if copy.listed_rows is None:
            copy.listed_rows = self.where.live(copy.rows)
        return page_of(copy.listed_rows, copy.filtered, request, self.registry.config,
                       self.registry._enrich)

    def watchable(self, table_id: str, player_id: str | None = None) -> bool:
        """Can this process serve a watcher of ``table_id`` (``Spectate``): see
        :meth:`server.cluster.where.Where.watchable`."""
        return self.where.watchable(table_id, player_id)

    async def locate(self, table_id: str) -> str | None:
        """The ``moved`` URL of ``table_id``, owned by another live process, or None
        (``unknown_table``): :meth:`server.cluster.where.Where.find`."""
        return await self.where.find(table_id)

    def place(self) -> str | None:
        """Where ``create_table`` should open its table: None for here, else the ``moved`` URL
        of the least-loaded live process (fewest tables, then fewest seated players; this one
        on a tie, so a request sent there stays there). Each table sent elsewhere counts
        there until the next read, so a burst of creations spreads."""
        here: tuple[int, int] = (1 << 30, 0) if self._draining else self._own_load()
        best = self.least_loaded(here)
        return None if best is None else best.url

    def least_loaded(self, below: tuple[int, int] = (1 << 31, 0)) -> NodeInfo | None:
        """The live, not draining process other than this one with the fewest tables (then
        seated players), if its load is below ``below``; it counts one more table there
        until the next read (:meth:`place`, and a drain's live moves)."""
        best: tuple[tuple[int, int], str] | None = None
        for name, info in self.copy.nodes.items():
            if name == self.node or info.draining:
                continue
            tables, players = self.copy.load.get(name, (0, 0))
            load = (tables + self._placed.get(name, 0), players)
            if load < below and (best is None or (load, name) < best):
                best = (load, name)
        if best is None:
            return None
        self._placed[best[1]] = self._placed.get(best[1], 0) + 1
        return self.copy.nodes[best[1]]

    def _own_load(self) -> tuple[int, int]:
        actors = self.registry.actors
        players = 0
        for actor in actors.values():
            entry = self.registry.lobby.entry(actor.table_id)
            if entry is not None:
                players += int(entry.get("players", 0))
        return len(actors), players

    # ------------------------------------------------------------------ Owning (the port)
    def draining(self) -> bool:
        return self._draining

    def may_take_over(self) -> bool:
        return not self._draining and not self.lost and self.steady()

    async def script(self, code: str, keys: list[str], args: list[Any]) -> Any:
        assert self.redis is not None
        return await self.redis.script(code)(keys=keys, args=args)

    # ------------------------------------------------------------------ the lease
    def lease_ends(self) -> tuple[str, str]:
        """The two ends of a node's lease key around its name (the ledger's store)."""
        store = None if self.ledger is None else self.ledger.store
        ends = getattr(store, "lease_ends", None)
        return ends() if callable(ends) else ("ledger:{room}:lease:", "")

    async def fenced(self, code: str, keys: list[str], args: list[Any]) -> Any:
        """Run the fenced script ``code`` (:data:`server.cluster.keys.FENCE`) with this
        process's fencing token; :class:`StaleLease` (and the lease lost) when it is stale."""
        assert self.redis is not None
        return await run_fenced(self.redis, None if self.ledger is None else self.ledger.lease,
                                code, keys, args)

    def lease_lost(self, reason: str) -> None:
        """This process's lease is lost (``Lease.on_lost``): write nothing more, take
        nobody over, and stop every table another process owns now (at the next reads: a
        failover in progress moves the rest)."""
        self.lost = True
        self._dirty.clear()
        self.states.drop()
        log.critical("event=cluster_lease_lost node=%s reason=%s", self.node, reason)
        self.want_read()

    # ------------------------------------------------------------------ the task

    async def _keep(self) -> None:
        """Renew, write what changed, read: until cancelled (errors are logged, retried).

        Writes are at most one pass per ``refresh`` (a burst of changes costs one write;
        ``create_table``'s :meth:`written` goes at once) and each pass is announced on the
        room's ``changed`` channel; reads follow such an announcement (at most one per
        ``refresh``) and otherwise come every :meth:`_idle_read` seconds (the nodes' leases)."""
        clock = self._clock
        next_read = clock() + self._idle_read()
        last_flush = last_read = last_states = -1e9
        while True:
            if self.lost:  # nothing is written any more
                self._dirty.clear()
                self.states.drop()
                _resolve([w for ws in self._written.values() for w in ws])
                self._written.clear()
            due = [next_read]
            if self._dirty:
                due.append(clock() if self._written else last_flush + self.refresh)
            if self.states.due():
                due.append(last_states + self.refresh)
            if self._want_read:
                due.append(last_read + self.refresh)
            with contextlib.suppress(TimeoutError):  # (not wait_for: on 3.11 it can swallow a
                async with asyncio.timeout(max(0.0, min(due) - clock())):  # cancel, gh-86296)
                    await self._wake.wait()
            self._wake.clear()
            try:
                now = clock()
                if self._dirty and (self._written or now >= last_flush + self.refresh):
                    last_flush = now
                    await self._flush()
                if self.states.due() and clock() >= last_states + self.refresh:
                    last_states = clock()
                    await self.states.write()
                now = clock()
                if now >= next_read or (self._want_read and now >= last_read + self.refresh):
                    self._want_read = False
                    last_read, next_read = now, now + self._idle_read()
                    await self._read()
            except StaleLease:
                continue  # the lease is lost (logged by it): nothing is written from now on
            except (RedisUnavailable, RedisScriptError) as exc:
                self._healthy_since = None
                log.error("event=cluster_redis_failed node=%s error=%r", self.node, exc)
                await asyncio.sleep(min(self.refresh, 0.5))  # Redis is down: back off

    def _idle_read(self) -> float:
        """Seconds between two reads when nothing was announced: a lapsed lease is seen
        within a quarter of a lease (at most a second), never faster than ``refresh``."""
        return max(self.refresh, min(self.lease / 4, 1.0))

    def want_read(self) -> None:
        """Another process changed the directory (its ``changed`` announcement): read it
        again soon (at most one read per ``refresh``)."""
        self._want_read = True
        self._wake.set()

    def steady(self) -> bool:
        """Whether Redis has answered this process without a failure for a whole lease:
        only then may it take a lapsed process over (after Redis itself restarted, every
        lease may look lapsed until the live processes renew, within a third of one)."""
        since = self._healthy_since
        return since is not None and self._clock() - since >= self.lease

    async def _flush(self) -> None:
        """Write every table marked since the last write (its entry, or its removal)."""
        assert self.redis is not None
        k = self.keys
        wrote = bool(self._dirty)
        done: list[asyncio.Future[None]] = []  # the waiters of the tables this pass wrote
        while self._dirty:
            table_id = self._dirty.pop()
            waiters = self._written.pop(table_id, [])  # filed before the write below
            actor = self.registry.actors.get(table_id)
            try:
                if actor is None:
                    await self.redis.script(lua.DROP)(
                        keys=[k.table(table_id), k.tables, k.version],
                        args=[table_id, self.node, self.run])
                    done += waiters
                    continue
                entry = self.registry.lobby.entry(table_id)
                seated = sorted(st.player_id for _, st in actor.seats.occupied())
                written = await self.fenced(
                    lua.PUT, [k.table(table_id), k.tables, k.version],
                    [table_id, self.node, self.run, self.url, table_number(table_id),
                     "" if entry is None else json.dumps(entry, separators=(",", ":")),
                     " ".join(seated)])
            except BaseException:
                self._dirty.add(table_id)  # written on the next turn, its waiters with it
                self._written.setdefault(table_id, [])[:0] = waiters
                _resolve(done)  # the tables written before the failure are in Redis
                raise
            done += waiters
            if not written and (actor.stopped or self.moves.leaving(table_id)):
                # a live move: the taker owns it already (expected, not an error)
                log.info("event=cluster_table_left table=%s node=%s", table_id, self.node)
            elif not written:
                log.error("event=cluster_table_taken table=%s node=%s", table_id, self.node)
        if wrote:
            await self.announce()
        _resolve(done)

    async def _read(self) -> None:
        assert self.redis is not None
        k = self.keys
        version, live, tables, lapsed = await self.redis.script(lua.SNAPSHOT)(
            keys=[k.nodes, k.tables, k.version],
            args=[self.copy.version, k.node_prefix, k.table_prefix, *self.lease_ends()])
        self.reads += 1
        if self._healthy_since is None:
            self._healthy_since = self._clock()
        self._placed.clear()
        reads, self._reads = self._reads, []
        try:
            self._store_copy(version, live, tables)
            self.copy.lapsed = [str(n) for n in lapsed or () if str(n) != self.node]
            if self.copy.lapsed:
                self.failover.lapsed(self.copy.lapsed)
            await self.failover.fence_lost(
                lambda t: self.copy.owner.get(t) in (None, self.node))
        finally:
            for waiter in reads:
                if not waiter.done():
                    waiter.set_result(None)

    async def announce(self) -> None:
        """Tell every process the directory changed (they read it again soon)."""
        assert self.redis is not None
        await self.redis.publish(self.keys.changed, self.node)

    def _store_copy(self, version: Any, live: list[Any], tables: list[Any] | None) -> None:
        if tables is None:  # no table changed: the nodes may have
            nodes = RoomCopy.parse(str(version), [str(x) for x in live], []).nodes
            if nodes != self.copy.nodes:
                copy = self.copy
                copy.nodes = nodes
                copy.filtered = {}
                copy.listed_rows = None
            return
        self.copy = RoomCopy.parse(str(version), [str(x) for x in live],
                                   [str(x) for x in tables])
