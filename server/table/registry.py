"""Every table of the process, and the owner of every table task.

Rule of this module: no table task is created anywhere else. :meth:`TableRegistry._spawn`
creates an actor's task and attaches a done-callback: a task that ended with an exception
(a bug or an injected fault) is logged with the table and hand id, its running hand is voided
and every player gets back their stack from before it (:meth:`TableActor.recover`), and the
actor is restarted on a new task with its seats, watchers and queued requests intact.
Shutdown is ordered: stop accepting, let running hands finish up to the deadline, then void,
refund and cash everyone out.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

from protocol.errors import ProtocolError
from protocol.requests import CreateTable
from server.config import Config
from server.jackpot.base import Payout
from server.jackpot.service import credit_payout
from server.ledger.history import HistoryStore, MemoryHistory
from server.ledger.ids import (
    HAND_BLOCK,
    HANDS,
    TABLE_BLOCK,
    TABLES,
    IdBlocks,
    IdsExhausted,
    Reserver,
)
from server.ledger.journal import is_practice_table
from server.ledger.wallet import Wallet
from server.table import admin, tourney
from server.table.actor import TableActor
from server.table.api import Clock, Sink
from server.table.clock import AsyncioClock
from server.table.fanout import Relay
from server.table.handoff import TableState, restore_state, spec_of
from server.table.host import private_table_id
from server.table.house import jackpot_terms
from server.table.jackpot import EmbeddedJackpot, JackpotService
from server.table.lobby import Lobby, Mutes
from server.table.practice import (
    PracticeWallet,
    has_person,
    practice_spec,
    practice_table_id,
)
from server.table.settings import TableSpec, build_spec
from server.table.shuffle import shuffled
from server.table.tourney import TourneyDesk

__all__ = ["TableRegistry"]

log = logging.getLogger("server.table.registry")

RESTART_BUDGET = 5
"""Crashes of one table within :data:`RESTART_WINDOW` seconds that are restarted; one more
and the table is closed for good, everyone refunded and cashed out."""
RESTART_WINDOW = 60.0
RESTART_BACKOFF = 0.5
"""The first crash in the window restarts at once; each later one waits twice as long as the
one before, from this many seconds, up to :data:`RESTART_BACKOFF_CAP`."""
RESTART_BACKOFF_CAP = 10.0


class TableRegistry:
    """See :class:`server.table.api.TableRegistryAPI` for the contract.

    ``clock``: a :class:`~server.table.api.Clock`, or a monotonic-time function (then
    ``wall`` is the Unix-time function and timers use the running loop). ``rng``: random
    bytes for salts and reshuffle seeds (``secrets.token_bytes``). ``shuffle``: the deck
    shuffle (``server.table.shuffle.shuffled``, GEN-03). ``jackpot``: the process's jackpot service
    (:class:`EmbeddedJackpot` by default; its payouts are credited through ``wallet``).
    ``history``: where every table stores its hand records (in memory by default).
    ``ids``: the store whose durable counters give table ids (``t<n>``) and hand numbers
    (hand id ``<table>.<n>``), unique for ever across restarts and processes
    (:mod:`server.ledger.ids`; :meth:`use_ids` sets it later, :meth:`prime_ids` fetches the
    first blocks); without one, table ids count from 1 in memory and each table numbers its
    own hands (unique in this registry only).
    """

    def __init__(self, config: Config, wallet: Wallet, *,
                 clock: Clock | Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time,
                 rng: Callable[[int], bytes] = secrets.token_bytes,
                 shuffle: Callable[[Sequence[str]], list[str]] = shuffled,
                 jackpot: JackpotService | None = None,
                 history: HistoryStore | None = None,
                 ids: Reserver | None = None) -> None:
        self.config = config
        self.history: HistoryStore = history if history is not None else MemoryHistory()
        self.wallet = wallet
        self.clock: Clock = AsyncioClock(clock, wall) if callable(clock) else clock
        self.rng = rng
        self.shuffle = shuffle
        self.jackpot = jackpot if jackpot is not None else EmbeddedJackpot(
            lease=config.jackpot_lease, terms=jackpot_terms(config))  # CSP-13: the house's
        if self.jackpot.credit is None:
            self.jackpot.credit = self._credit_jackpot
        if self.jackpot.ledger is None:  # durable reports, house share, reseeds (CSP-12)
            self.jackpot.ledger = getattr(wallet, "ledger", None)
        self.jackpot.meter.interval = config.jackpot_meter_interval
        self.jackpot.meter.listeners.append(self._on_jackpot)
        self.jackpot_listener: Callable[[dict[str, Any]], None] | None = None
        self.hand_listener: Callable[[], None] | None = None  # each hand's end (metrics)
        self.played_listener: Callable[[str], None] | None = None
        """Called with a table's id at the end of each of its hands (the cluster's directory
        keeps the table's state for a failover current, ``server.cluster``); non-blocking."""
        self.listing_listener: Callable[[str], None] | None = None
        """Called with a table's id when its lobby entry may have changed or it closed (the
        cluster's directory, `server.cluster`, copies it to Redis); non-blocking."""
        self.relay: Relay | None = None
        """Cluster mode: carries each table's public stream to other processes' spectators
        (`server.cluster.spectate`); set before any table opens."""
        self.accepting = True
        self.actors: dict[str, TableActor] = {}
        self.admin = admin.TableAdmin(self)  # the operator's calls (server.table.admin)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        # abuse limits (Config `tables, lobby and chat`): open tables by creator and address,
        # the idle-close timers, the lobby listing built once per change, the mutes
        self._by_owner: dict[str, set[str]] = {}
        self._by_ip: dict[str, set[str]] = {}
        self.creators: dict[str, tuple[str | None, str | None]] = {}
        self._idle: dict[str, Any] = {}  # table id -> its idle-close Timer
        self.lobby = Lobby(self.actors, config, self._enrich)
        self.mutes = Mutes(config.mute_limit)
        self.frozen: Callable[[str], bool] = lambda player_id: False
        """Whether the operator froze an account (``server.main`` sets it): such a player
        is not seated from a waiting list or by a host's approval."""
        self.use_ids(ids)
        self.crashes = 0
        self._crash_times: dict[str, list[float]] = {}  # table id -> its recent crashes
        self._closing: set[asyncio.Task[None]] = set()  # tables given up on, closing
        self.bots: dict[str, int] = {}  # practice table id -> its bots (Config.max_practice_bots)
        self.start_bots: Callable[[str, str, int, int, int, int], None] | None = None
        """Starts a practice table's bots (``server.main``: loopback WebSocket clients):
        called with the table id, its code, the bots' count, the buy-in limits and the
        seats; they leave when the table closes."""

    # ------------------------------------------------------------------ ids
    def use_ids(self, store: Reserver | None) -> None:
        """Take table ids and hand numbers from ``store``'s durable counters (None: in
        memory). Before the first table."""
        self.table_ids = IdBlocks(store, TABLES, block=TABLE_BLOCK)
        # without a store each table counts its own hands (``t2.1``: unique in this registry)
        self.hand_ids = IdBlocks(store, HANDS, block=HAND_BLOCK) if store is not None else None
        for actor in self.actors.values():
            actor.recording.hand_numbers = self.hand_ids

    async def prime_ids(self) -> None:
        """Reserve the first blocks of ids (start-up, once the store is open), so that the
        first ``create_table`` finds an id in hand."""
        await self.table_ids.prime()
        if self.hand_ids is not None:
            await self.hand_ids.prime()

    # ------------------------------------------------------------------ lobby
    def create(self, spec: CreateTable, *, owner: str | None, ip: str | None = None) -> str:
        """Open a table; raises :class:`ProtocolError` with a specific code (``server_busy``
        when no table id is in hand: the store has not answered yet; ``too_many_tables`` past
        ``Config.max_tables_per_account`` open tables created by ``owner``,
        ``max_tables_per_ip`` from the address ``ip``, or ``max_tables`` in all)."""
        if not self.accepting:
            raise ProtocolError("shutting_down")
        if (spec.private or spec.practice) and owner is None:
            raise ProtocolError("unauthorized", "a private table needs a signed-in host")
        bots = self._check_practice(spec, owner) if spec.practice else 0
        self._check_caps(owner, ip)
        try:
            n = self.table_ids.take()
        except IdsExhausted:
            raise ProtocolError("server_busy", "no table id at hand yet; try again") from None
        # a private table's id is not guessable (a random suffix); its number stays shown
        table_id = (practice_table_id(n) if spec.practice else private_table_id(n)
                    if spec.private else f"t{n}")
        tspec = build_spec(spec, self.config,
                           name=f"Practice {n}" if spec.practice else f"Table {n}")
        if spec.practice:  # play money, no rake, nobody else admitted (issue 24)
            tspec = practice_spec(tspec)
        unique = self._unique_name(tspec.name, private=spec.private, owner=owner)
        if unique != tspec.name:
            tspec = dataclasses.replace(tspec, name=unique)
        actor = self._open(table_id, tspec, owner, ip, practice=spec.practice)
        log.info("event=table_created table=%s variant=%s owner=%s", table_id,
                 tspec.variant_name, owner)
        if spec.practice and self.start_bots is not None:
            self.bots[table_id] = bots
            assert actor.host.code is not None
            self.start_bots(table_id, actor.host.code, bots, tspec.min_buy_in,
                            tspec.max_buy_in, tspec.seats)
        return table_id

    def _check_practice(self, spec: CreateTable, owner: str | None) -> int:
        """A practice table's bots (``bots``, by default every seat but one, none at
        Caribbean Stud); ``too_many_practice_tables`` past
        ``Config.practice_tables_per_account`` open, ``server_busy`` past
        ``Config.max_practice_bots`` bots playing, ``bad_field`` for a count the seats
        cannot hold (a pot game needs one bot at least)."""
        cfg = self.config
        house = spec.variant == "caribbean"
        bots = spec.bots if spec.bots is not None else (0 if house else spec.seats - 1)
        if not (0 if house else 1) <= bots <= spec.seats - 1:
            raise ProtocolError("bad_field", f"`bots` must be {0 if house else 1} to "
                                f"{spec.seats - 1} at a table of {spec.seats} seats",
                                field="bots")
        mine = [t for t in self._by_owner.get(owner or "", ()) if is_practice_table(t)]
        if len(mine) >= cfg.practice_tables_per_account:
            log.info("event=table_refused reason=practice owner=%s", owner)
            raise ProtocolError("too_many_practice_tables",
                                f"you have {len(mine)} practice table(s) open, the most one "
                                "player may have: leave it first (it closes when you leave)")
        # each bot is a loopback connection: the address's cap bounds them too
        if sum(self.bots.values()) + bots > min(cfg.max_practice_bots,
                                                cfg.max_connections_per_ip):
            log.warning("event=table_refused reason=practice_bots bots=%d",
                        sum(self.bots.values()))
            raise ProtocolError("server_busy", "too many bots are playing on this server; "
                                "try again later or with fewer bots")
        return bots

    def _unique_name(self, name: str, *, private: bool, owner: str | None) -> str:
        """A new table's name, told apart from the live tables' it would be seen beside:
        the lobby's public tables (for a public table), the same host's private tables (for
        a private one; other hosts' private tables are nobody else's business). A name
        taken gets the first free suffix: "Friday", "Friday (2)", "Friday (3)"."""
        taken = {a.spec.name.casefold() for tid, a in self.actors.items()
                 if not a.closed_for_good and a.spec.private == private
                 and (not private or self.creators.get(tid, (None, None))[0] == owner)}
        if name.casefold() not in taken:
            return name
        k = 2
        while f"{name} ({k})".casefold() in taken:
            k += 1
        return f"{name} ({k})"

    def adopt(self, state: TableState, stacks: dict[str, int], *,
              exact: bool = True) -> TableActor:
        """Open a table another process had, with its id, settings and seats
        (:mod:`server.table.handoff`; the cluster's live moves and failover), its players
        seated with ``stacks`` (already in this process's accounts), disconnected until they
        come back. Past the caps: it is the room's table already. ``exact``: see
        :func:`~server.table.handoff.restore_state` (False for a failover's last record)."""
        if state.table in self.actors:
            raise ValueError(f"table {state.table} is open here already")
        grace = self.config.reconnect_grace
        actor = self._open(state.table, spec_of(state.create, self.config), state.owner, None,
                           lambda a: restore_state(a, state, stacks, grace, exact=exact))
        if not self.accepting:  # this process began stopping meanwhile: it closes at once
            actor.shut_down()  # (everyone cashed out; the chips are in this ledger already)
        if self.relay is not None:  # other processes' spectators of it: the stream goes on
            self.relay.asked(state.table)
            actor.call(actor.fanout.relay_snapshot)
        log.info("event=table_adopted table=%s seats=%d seq=%d", state.table,
                 len(actor.seats.occupied()), state.seq)
        return actor

    def _open(self, table_id: str, tspec: TableSpec, owner: str | None, ip: str | None,
              restore: Callable[[TableActor], None] | None = None, *,
              practice: bool = False) -> TableActor:
        """Build, register and start one table (``restore``: an adopted table's state, put
        in before its task starts)."""
        actor = TableActor(table_id, tspec, config=self.config, wallet=self.wallet,
                           clock=self.clock, rng=self.rng, shuffle=self.shuffle,
                           jackpot=self.jackpot,
                           on_jackpot=self._on_jackpot,
                           on_hand_end=functools.partial(self._on_hand_end, table_id),
                           history=self.history, host=owner)
        actor.recording.hand_numbers = self.hand_ids
        actor.wire(on_change=self._on_table_change, mutes=self.mutes,
                   frozen=lambda player_id: self.frozen(player_id), relay=self.relay,
                   # a practice table: play money only, never the shared jackpot
                   practice_wallet=PracticeWallet(self.wallet) if practice else None)
        if restore is not None:
            restore(actor)
        self.actors[table_id] = actor
        self.creators[table_id] = (owner, ip)
        if owner is not None:
            self._by_owner.setdefault(owner, set()).add(table_id)
        if ip is not None:
            self._by_ip.setdefault(ip, set()).add(table_id)
        self._spawn(actor)
        self._on_table_change(actor)  # in the lobby; empty: the idle count starts
        return actor

    def open_tournament_table(self, table_id: str, tspec: TableSpec, wallet: Wallet,
                              desk: TourneyDesk) -> TableActor:
        """Issue 27: a tournament's table, with the tournament's chips for a wallet and no
        jackpot; its director seats the players and closes it (never closed as idle)."""
        def join(actor: TableActor) -> None:
            actor.wallet, actor.jackpot = wallet, None
            tourney.join(actor, desk)
        return self._open(table_id, tspec, None, None, restore=join)

    def get(self, table_id: str) -> TableActor | None:
        return self.actors.get(table_id)

    # ------------------------------------------------------------------ abuse limits
    def _check_caps(self, owner: str | None, ip: str | None) -> None:
        """``too_many_tables`` when ``owner``, ``ip`` or the process has its most open tables."""
        cfg = self.config
        if owner is not None and len(self._by_owner.get(owner, ())) >= cfg.max_tables_per_account:
            log.info("event=table_refused reason=account owner=%s", owner)
            raise ProtocolError("too_many_tables", f"you have {cfg.max_tables_per_account} open "
                                "tables, the most one account may have; an empty table closes "
                                "by itself")
        if ip is not None and len(self._by_ip.get(ip, ())) >= cfg.max_tables_per_ip:
            log.info("event=table_refused reason=ip ip=%s", ip)
            raise ProtocolError("too_many_tables", f"{cfg.max_tables_per_ip} tables are open "
                                "from your address, the most one address may have")
        if len(self.actors) >= cfg.max_tables:
            log.warning("event=table_refused reason=global tables=%d", len(self.actors))
            raise ProtocolError("too_many_tables", f"the server has {cfg.max_tables} open "
                                "tables, its maximum; try again when one has closed")

    def _on_table_change(self, actor: TableActor) -> None:
        """The actor's lobby entry changed (created, seats, viewers): the listing is rebuilt
        on the next ``tables`` request; an empty table's idle count starts, a seated one's
        stops."""
        table_id = actor.table_id
        if self.actors.get(table_id) is not actor:
            return
        self.lobby.changed(table_id)
        if self.listing_listener is not None:
            self.listing_listener(table_id)
        empty = (not actor.in_hand and actor.tourney is None  # (its director closes it)
                 and (actor.seats.is_empty() or (  # a practice table: no person playing
                     actor.practice and not has_person(actor, playing=True))))
        timer = self._idle.get(table_id)
        if empty and timer is None and not actor.closing and self.accepting:
            self._idle[table_id] = self.clock.call_later(
                self.config.idle_table_close, lambda: self._idle_due(actor))
        elif not empty and timer is not None:
            timer.cancel()
            del self._idle[table_id]

    def _idle_due(self, actor: TableActor) -> None:
        """The idle time ran out: the actor checks, in its own task, that the table is still
        empty, then closes (``table_closed`` to its viewers) and stops; :meth:`_done` then
        forgets it."""
        self._idle.pop(actor.table_id, None)
        if self.actors.get(actor.table_id) is actor and not actor.stopped:
            actor.call(actor.close_if_idle)

    def forget(self, actor: TableActor, reason: str = "idle") -> None:
        """A table closed for good (idle, or crashing past its restart budget): out of the
        lobby and the creators' counts."""
        table_id = actor.table_id
        if self.actors.get(table_id) is not actor:
            return
        del self.actors[table_id]
        timer = self._idle.pop(table_id, None)
        if timer is not None:
            timer.cancel()
        owner, ip = self.creators.pop(table_id, (None, None))
        for index, key in ((self._by_owner, owner), (self._by_ip, ip)):
            if key is not None and key in index:
                index[key].discard(table_id)
                if not index[key]:
                    del index[key]
        self.lobby.removed(table_id)
        self.bots.pop(table_id, None)
        if self.listing_listener is not None:
            self.listing_listener(table_id)
        log.info("event=table_closed table=%s reason=%s", table_id, reason)

    def created(self, table_id: str) -> dict[str, Any]:
        """The ``create_table`` answer's fields: ``table``, and a private table's invite
        ``code`` (for its creator, the host, alone)."""
        actor = self.actors.get(table_id)
        code = actor.host.code if actor is not None else None
        return {"table": table_id} if code is None else {"table": table_id, "code": code}

    def page(self, request: Any) -> dict[str, Any]:
        """The ``tables`` answer's fields (``tables``, ``total``, ``next``) for a
        :class:`protocol.Tables` request, from the listing built once per change."""
        return self.lobby.page(request)

    def tables(self, variant: str | None = None) -> list[dict[str, Any]]:
        out = [dict(e) for e in self.lobby.entries()
               if variant is None or e.get("variant") == variant]
        return self._enrich(out)

    def _enrich(self, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """What changes too often to cache (the jackpot pool) on copies of lobby entries."""
        for entry in out:  # Caribbean tables show the shared pool (CSP-11: both when split)
            if entry.get("variant") == "caribbean":
                entry["jackpot"] = self.jackpot.meter.lobby()
        return out

    def detach(self, sink: Sink) -> None:
        for actor in self.actors.values():
            actor.detach(sink)

    async def _credit_jackpot(self, payout: Payout) -> None:
        await credit_payout(self.wallet, payout)

    def _on_hand_end(self, table_id: str) -> None:
        if self.hand_listener is not None:
            self.hand_listener()
        if self.played_listener is not None:
            self.played_listener(table_id)

    def _on_jackpot(self, msg: dict[str, Any]) -> None:
        if self.jackpot_listener is not None:
            self.jackpot_listener(msg)

    # ------------------------------------------------------------------ tasks
    def _spawn(self, actor: TableActor) -> None:
        task = asyncio.get_running_loop().create_task(actor.run(),
                                                      name=f"table:{actor.table_id}")
        self._tasks[actor.table_id] = task
        task.add_done_callback(lambda t: self._done(actor, t))

    def _done(self, actor: TableActor, task: asyncio.Task[None]) -> None:
        if self._tasks.get(actor.table_id) is task:
            del self._tasks[actor.table_id]
        if actor.closed_for_good and actor.stopped and self.accepting:
            self.forget(actor)
        if task.cancelled():
            log.info("event=actor_cancelled table=%s", actor.table_id)
            return
        exc = task.exception()
        if exc is None:
            log.info("event=actor_stopped table=%s", actor.table_id)
            return
        self.crashes += 1
        actor.recover(exc)
        if actor.stopped:
            return
        delay = self._restart_delay(actor.table_id)
        if delay is None:
            self._give_up(actor)
        elif delay == 0:
            log.warning("event=actor_restarted table=%s", actor.table_id)
            self._spawn(actor)
        else:
            log.warning("event=actor_restart_delayed table=%s delay=%.1f", actor.table_id,
                        delay)
            self.clock.call_later(delay, lambda: self._respawn(actor))

    def _restart_delay(self, table_id: str) -> float | None:
        """The backoff before restarting a table that just crashed; None once its restart
        budget is spent (:data:`RESTART_BUDGET` crashes in :data:`RESTART_WINDOW`)."""
        now = self.clock.now()
        recent = [t for t in self._crash_times.get(table_id, ()) if now - t < RESTART_WINDOW]
        recent.append(now)
        self._crash_times[table_id] = recent
        if len(recent) > RESTART_BUDGET:
            return None
        if len(recent) == 1:
            return 0.0
        return min(RESTART_BACKOFF * 2.0 ** (len(recent) - 2), RESTART_BACKOFF_CAP)

    def _respawn(self, actor: TableActor) -> None:
        if (self.actors.get(actor.table_id) is actor and not actor.stopped
                and actor.table_id not in self._tasks and self.accepting):
            log.warning("event=actor_restarted table=%s", actor.table_id)
            self._spawn(actor)

    def _give_up(self, actor: TableActor) -> None:
        """A table that keeps crashing: closed for good (its task is dead: closed from
        here), everyone refunded and cashed out, then forgotten."""
        log.error("event=actor_given_up table=%s crashes=%d", actor.table_id,
                  len(self._crash_times.get(actor.table_id, ())))

        async def close() -> None:
            try:
                await actor.close_for_good("crashed")
            except Exception:
                log.exception("event=table_close_failed table=%s", actor.table_id)
            self.forget(actor, reason="crashed")
            self._crash_times.pop(actor.table_id, None)

        task = asyncio.get_running_loop().create_task(close(), name=f"close:{actor.table_id}")
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    # ------------------------------------------------------------------ shutdown
    async def shutdown(self, deadline: float) -> None:
        """Stop accepting; running hands may finish within ``deadline`` seconds; then every
        remaining hand is voided and refunded and every player is cashed out."""
        self.accepting = False
        for timer in self._idle.values():
            timer.cancel()
        self._idle.clear()
        for actor in self.actors.values():
            actor.shut_down()
        tasks = set(self._tasks.values())
        if tasks:
            await asyncio.wait(tasks, timeout=deadline)
        late = [a for a in self.actors.values() if a.table_id in self._tasks]
        for actor in late:
            actor.shut_down(void="shutdown deadline")
        tasks = {self._tasks[a.table_id] for a in late if a.table_id in self._tasks}
        if tasks:
            await asyncio.wait(tasks, timeout=max(1.0, deadline))
        for actor in self.actors.values():
            task = self._tasks.get(actor.table_id)
            if task is not None:  # stuck: cancel it, then settle its money from here
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            if not actor.stopped or not actor.seats.is_empty():
                await actor.cash_out_all()
        log.info("event=tables_shut_down tables=%d", len(self.actors))
        try:
            await self.history.close()
        except Exception:
            log.exception("event=history_close_failed")
