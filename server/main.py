"""The server process: command line, logging, the listening socket, graceful shutdown.

Rule of this module: it is the only place that reads the command line and builds the `Config`;
everything else receives the `Config`. One port serves plain HTTP (health, readiness, the static
client; see `server.net.http`) and the WebSocket at `/ws` (`handle_connection`).

Run it as `poker-server [--host H] [--port P] [--test-mode] [--redis URL] [--data-dir DIR]`;
`--redis URL --node NAME --public-url ws://HOST:PORT/ws` joins the cluster (`server.cluster`).
Listening, it prints `poker-server listening on http://H:P/` (the bound port: `--port 0` works)
then `poker-server operator on http://H:P/` (loopback by default: `/metrics`,
`/jackpot/history`, behind `Config.operator_token` from `--operator-token-file` or
`$POKER_OPERATOR_TOKEN`), then logs key=value lines to stderr. SIGTERM or SIGINT closes it
within `Config.shutdown_deadline`; the process exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import signal
import sys
import time
import tomllib
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.typing import Subprotocol

import protocol
from server import cli
from server.cli import OPERATOR_TOKEN_ENV as OPERATOR_TOKEN_ENV
from server.cli import _coerce as _coerce  # (tests read the field coercion from here)
from server.cli import config_from_args as config_from_args
from server.cluster import Directory
from server.cluster.moves import OFFER_TIMEOUT
from server.config import Config
from server.instance import AlreadyRunning, DataDirLock, port_in_use_advice
from server.jackpot.durable import PoolFile
from server.jackpot.redis_coord import RedisCoordinator
from server.jackpot.service import JackpotService, build_jackpot, history_page
from server.ledger.accounts import Accounts
from server.ledger.history import HistoryStore, RedisHistory, SqliteHistory
from server.ledger.journal import Ledger
from server.ledger.lease import Lease
from server.ledger.redis_store import RedisStore
from server.ledger.sqlite_store import SqliteStore
from server.ledger.store import Store
from server.ledger.wallet import LedgerWallet, Wallet
from server.net.addresses import (
    is_loopback,
    is_wildcard,
    lan_addresses,
    player_addresses,
    players_lines,
)
from server.net.admission import accept_error_handler, apply_fd_limit
from server.net.edge import Connection, Edge, ws_max_size
from server.net.http import WS_PATH, HttpEndpoints
from server.net.loginguard import LoginGuard
from server.net.metrics import Metrics
from server.net.operator_http import OperatorEndpoints, OperatorServer
from server.net.roomwide import Room
from server.net.router import Router
from server.net.sessions import GuestSweeper, Sessions
from server.operator import AdminApi
from server.operator.audit import AuditLog
from server.operator.auth import OperatorAuth, OperatorGuard
from server.operator.service import OperatorService
from server.practice_bots import PracticeBots, loopback_url
from server.process import configure_logging, tune_gc
from server.roomlimits import RoomLimits
from server.table import TableRegistry, TableRegistryAPI
from server.table.house import jackpot_terms
from server.table.jackpot import EmbeddedJackpot
from server.tournament import hall as tournaments

log = logging.getLogger("server.main")

SUBPROTOCOLS = [Subprotocol(name) for name in protocol.SUBPROTOCOLS]
"""docs/protocol.md Transport: the server honours the client's first offer; no offer means JSON."""


def select_subprotocol(
    connection: ServerConnection, offered: Sequence[Subprotocol]
) -> Subprotocol | None:
    """websockets' hook around `protocol.select_subprotocol` (first supported offer)."""
    chosen = protocol.select_subprotocol(offered)
    return None if chosen is None else Subprotocol(chosen)


# --------------------------------------------------------------------------------------------
# The application: wallet, tables, sessions, metrics, edge
# --------------------------------------------------------------------------------------------


def build_registry(config: Config, wallet: Wallet) -> TableRegistry:
    """The process's table registry (real clocks; the jackpot in-process, or shared by every
    process through Redis with `--redis URL`: see `server.jackpot`). The embedded pools live
    in `jackpot.sqlite3` in the data dir, so they survive restarts (CSP-08)."""
    jackpot = build_jackpot(config)
    if jackpot is None:
        jackpot = EmbeddedJackpot(lease=config.jackpot_lease, terms=jackpot_terms(config),
                                  file=PoolFile.in_dir(config.data_dir))
    return TableRegistry(config, wallet, jackpot=jackpot)


@dataclass
class App:
    """Everything one server process serves with, wired together (`build_app`)."""

    config: Config
    wallet: LedgerWallet
    registry: TableRegistryAPI
    metrics: Metrics
    sessions: Sessions
    edge: Edge
    router: Router
    http: HttpEndpoints
    jackpot: JackpotService | None = None
    operator: OperatorService | None = None  # the admin API's actions (docs/operator.md)
    operator_url: str | None = None  # the operator listener's URL, once `run` bound it
    directory: Directory | None = None  # cluster mode only (`--public-url`; server.cluster)
    room: Room | None = None  # cluster mode only: the room's limits (server.net.roomwide)
    lan_addresses: Callable[[], tuple[str, ...]] = lan_addresses  # (tests give their own)
    bots: PracticeBots | None = None  # the practice tables' bots (issue 24, server.practice_bots)


def build_store(config: Config) -> Store:
    """The ledger's store: Redis with `--redis URL`, else SQLite `ledger.db` in the data dir."""
    if config.redis_url is not None:
        return RedisStore(config.redis_url, wait_replicas=config.redis_wait_replicas,
                          wait_timeout_ms=config.redis_wait_timeout_ms,  # settling writes
                          wait_give_up_ms=config.redis_wait_give_up_ms)
    return SqliteStore(config.data_dir / "ledger.db", fsync=config.ledger_fsync)


async def start_ledger(app: App) -> None:
    """Before listening: open the store, void what a previous run of this node left (every chip
    at a table back to its player), load the token secret, restore tournaments (TOUR-15)."""
    ledger = app.wallet.ledger
    await ledger.store.open()
    await ledger.claim_node(app.config.node_lease)
    recovery = await ledger.recover()
    await app.registry.prime_ids()  # table ids and hand numbers: unique for ever
    if app.operator is not None:  # the frozen and muted accounts, from the audit log
        await app.operator.start()
    log.info("event=ledger_started node=%s run=%s voided=%d cashed_out=%d", ledger.node,
             ledger.run, len(recovery.voided), len(recovery.cashed_out))
    await app.sessions.start()
    if app.router.tournaments is not None:  # TOUR-15: after the recovery gave chips back
        await app.router.tournaments.hall.restore_all()


def fence_jackpot(jackpot: JackpotService, lease: Lease) -> None:
    """Issue 26: the jackpot's writes carry this process's fencing token; lease lost: it stops."""
    if isinstance(jackpot.coord, RedisCoordinator):
        jackpot.coord.node_lease = lease

    def stop(reason: str) -> None:
        jackpot.closed = True  # its worker ends at its next turn; nothing is written
    lease.on_lost(stop)


def build_history(config: Config) -> HistoryStore:
    """Hand histories: in Redis with `--redis URL`, else `history.sqlite3` in the data dir."""
    if config.redis_url is not None:
        return RedisHistory(config.redis_url)
    return SqliteHistory.in_dir(config.data_dir)


def build_app(config: Config) -> App:
    """The ledger (SQLite or Redis; opened by `run`), the table registry, the edge."""
    ledger = Ledger(build_store(config), node=config.node)
    wallet = LedgerWallet(ledger)
    registry = build_registry(config, wallet)
    registry.use_ids(ledger.store)  # durable counters (server.ledger.ids)
    registry.history = history = build_history(config)
    metrics = Metrics(tables=lambda: len(registry.tables()))
    directory = build_directory(config, ledger, registry)
    limits = None if directory is None else RoomLimits(  # one room, one set of limits
        str(config.redis_url), directory_tables=directory.keys.tables)
    edge = Edge(config, metrics, on_close=registry.detach if directory is None
                else _detach_everywhere(registry, directory))
    metrics.connections_gauge = lambda: len(edge.connections)
    sessions = Sessions(wallet, starting_balance=config.starting_balance,
                        accounts=Accounts(ledger, starting_balance=config.starting_balance,
                                          reserved=config.reserved_names),
                        token_ttl=config.token_ttl, guard=LoginGuard(config, room=limits),
                        guest_idle_expiry=config.guest_idle_expiry)
    router = Router(config=config, registry=registry, sessions=sessions, metrics=metrics,
                    history=history)
    hall = tournaments.Hall.for_process(config, registry, wallet, ledger,
                                        tell=edge.send_to_player, cluster=directory)
    router.tournaments = tournaments.Requests(hall)  # issue 27
    bots = PracticeBots(sessions.bot_token, think=config.practice_think,
                        revoke=sessions.revoke)
    registry.start_bots = bots.start  # practice tables: bots on the server's own WebSocket
    edge.handle_now = router.handle_now
    router.connections = lambda: edge.connections.values()
    registry.jackpot_listener = edge.broadcast
    if isinstance(wallet, LedgerWallet):  # PROTOCOL: `balance` pushed on every change
        wallet.listener = lambda player, value: edge.send_to_player(
            player, protocol.messages.balance(balance=value))
    registry.hand_listener = metrics.hand_finished
    http = HttpEndpoints(static_dir=config.static_dir, metrics=metrics.render,
                         allowed_origins=config.allowed_origins,
                         log_lines=config.log_lines_per_interval,
                         log_interval=config.accept_error_log_interval,
                         trusted_proxies=config.trusted_proxies)
    http.public_address = config.public_address  # the page's links; its origin opens /ws
    http.on_origin_refused = lambda: setattr(metrics, "origin_refused_total",
                                             metrics.origin_refused_total + 1)
    jackpot = registry.jackpot
    http.jackpot_history = lambda start, count: _jackpot_history(jackpot, start, count)
    operator = build_operator(config, registry, wallet, history, edge)
    operator.metrics = metrics.render
    operator.hall = hall
    operator.jackpot_history = http.jackpot_history
    router.gate = operator.flags.gate  # frozen: no sit or chat; muted: no chat
    registry.frozen = lambda player_id: player_id in operator.flags.frozen  # nor a waiting list
    router.cluster = directory
    operator.end_sessions = lambda player_id: _end_sessions(sessions, router, player_id)
    room = None if limits is None else Room(config, limits, router=router, sessions=sessions,
                                            operator=operator, mutes=registry.mutes)
    if directory is not None:  # the room's processes: a page may be sent to any (`moved`)
        http.room = lambda: _room_hosts(directory)
        if room is not None:  # its events channel on the process's one subscriptions task
            room.bus = directory.bus
        if isinstance(jackpot, JackpotService):  # the meter's channel on it too
            jackpot.bus = directory.bus
    return App(config=config, wallet=wallet, registry=registry, metrics=metrics,
               sessions=sessions, edge=edge, router=router, http=http, jackpot=jackpot,
               operator=operator, directory=directory, room=room, bots=bots)


async def _end_sessions(sessions: Sessions, router: Router, player_id: str) -> int:
    """The operator's freeze ends every session of `player_id`, here and room-wide."""
    ended = await sessions.revoke(player_id, None)
    router.close_sessions(player_id)
    if router.on_revoked is not None:
        await router.on_revoked(player_id, None, None)
    return ended


def build_directory(config: Config, ledger: Ledger, registry: TableRegistry
                    ) -> Directory | None:
    """Cluster mode (`--redis URL --node NAME --public-url ws://HOST:PORT/ws`): the room's
    directory (`server.cluster`), fed by the registry's lobby changes; None otherwise (a
    standalone process, exactly as before). `run` starts and closes it."""
    if config.public_url is None or config.redis_url is None:
        return None
    directory = Directory(config.redis_url, node=config.node, run=ledger.run,
                          url=config.public_url, lease=config.node_lease,
                          refresh=config.cluster_lobby_refresh_ms / 1000, registry=registry,
                          ledger=ledger)  # live moves and failover move tables' chips
    ledger.lease.on_lost(directory.lease_lost)  # issue 26: it writes nothing more
    registry.listing_listener = directory.table_changed
    registry.played_listener = directory.hand_played  # (the state a failover reopens)
    registry.relay = directory.spectate  # public frames to other processes' spectators
    return directory


def _room_hosts(directory: Directory) -> tuple[str, ...]:
    """The host:port of every live process's public URL, this one's first."""
    hosts = [urlsplit(directory.url).netloc]
    hosts += [urlsplit(n.url).netloc for n in directory.copy.nodes.values()]
    return tuple(dict.fromkeys(h for h in hosts if h))


def _detach_everywhere(registry: TableRegistry, directory: Directory
                       ) -> Callable[[Connection], None]:
    """A closed connection leaves this process's tables and the remote tables it watched."""
    def detach(conn: Connection) -> None:
        registry.detach(conn)
        directory.spectate.detach(conn)
    return detach


def build_operator(config: Config, registry: TableRegistry, wallet: LedgerWallet,
                   history: HistoryStore, edge: Edge) -> OperatorService:
    """The operator's actions (`server.operator`): audited in the ledger's store; notices
    to every connection through the edge."""
    operator = OperatorService(config=config, registry=registry, wallet=wallet,
                               history=history, audit=AuditLog(wallet.ledger.store))
    operator.broadcast = edge.broadcast
    operator.names = lambda: {c.player_id: c.name or c.player_id
                              for c in edge.connections.values() if c.player_id is not None}
    return operator


async def _jackpot_history(jackpot: JackpotService, start: int, count: int) -> dict[str, Any]:
    assert jackpot.coord is not None
    return await history_page(jackpot.coord, start, count)


def balances_line(wallet: LedgerWallet) -> str:
    """`total=N accounts=K balances=id:chips,...`: every chip off the tables of the players
    this process served, for the log."""
    players = wallet.players()
    shown = ",".join(f"{player}:{wallet.balance(player)}" for player in players)
    return f"total={wallet.total()} accounts={len(players)} balances={shown or '-'}"


# --------------------------------------------------------------------------------------------
# Command line and process lifecycle
# --------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface (`server.cli`); every option maps onto one `Config` field."""
    return cli.build_parser(WS_PATH)


def listening_url(host: str, port: int) -> str:
    """The URL printed at start-up; IPv6 literals get brackets."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def _bound_port(server: Server, fallback: int) -> int:
    for sock in server.sockets:
        address = sock.getsockname()
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    return fallback


async def run(
    config: Config,
    *,
    stop: asyncio.Event | None = None,
    on_listening: Callable[[str], None] | None = None,
    app: App | None = None,
) -> None:
    """Serve until `stop` is set (or SIGTERM/SIGINT arrives), then shut down gracefully.

    `on_listening` is called with the URL once the socket is bound (in-process tests use it,
    and may pass their own `app` from `build_app` to look inside). Signal handlers are
    installed only when running in the main thread.

    Shutdown order: stop accepting (new handshakes get 503), let the tables finish their
    hands for up to `Config.shutdown_deadline` (the registry voids and refunds the rest and
    cashes every player out), flush the outboxes and close every connection with 1001, then
    log `event=final_balances` (every chip, now all off the tables).
    """
    stop = stop if stop is not None else asyncio.Event()
    loop = asyncio.get_running_loop()
    installed = _install_signal_handlers(loop, stop)
    if config.redis_url is None:
        config.data_dir.mkdir(parents=True, exist_ok=True)

    app = app if app is not None else build_app(config)
    if app.operator is not None:  # `POST /admin/drain` stops it like SIGTERM
        app.operator.shutdown = stop.set
    # the total connection cap below the file-descriptor limit; accept() failures counted and
    # logged once per interval, not once per attempt
    app.edge.admission.total = apply_fd_limit(config)
    previous_handler = loop.get_exception_handler()
    loop.set_exception_handler(accept_error_handler(app.metrics,
                                                    config.accept_error_log_interval))
    await start_ledger(app)
    sweeper = _start_sweeper(app, config)
    if app.jackpot is not None:  # connect (Redis), credit payouts still due, follow the meter
        await app.jackpot.start()
        fence_jackpot(app.jackpot, app.wallet.ledger.lease)
    if app.directory is not None:  # cluster mode: this node and its tables in the directory
        await app.directory.start()
    if app.room is not None:  # cluster mode: the room's limits and revocations
        await app.room.start()
    server, operator, operator_port = await _listen(app, config)
    try:
        if app.bots is not None:  # practice bots connect to this very listener
            app.bots.url = loopback_url(config.host, _bound_port(server, config.port), WS_PATH)
        url = _announce(app, config, server, operator_port)
        if on_listening is not None:
            on_listening(url)
        await stop.wait()
        log.info("event=shutdown_started deadline=%s", config.shutdown_deadline)
    finally:
        app.http.ready = False
        server.close(close_connections=False)  # stop accepting; open connections go on
        operator.close()
        await _drain_tables_and_connections(app, config, server)
        for sig in installed:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(operator.wait_closed(), 1.0)
        loop.set_exception_handler(previous_handler)
        await sweeper.stop()
        if app.room is not None:
            await _bounded("room_stop", app.room.stop())
        await _close_ledger(app)
        log.info("event=stopped")


def _start_sweeper(app: App, config: Config) -> GuestSweeper:
    """Idle guests expire (`Config.guest_idle_expiry`): an owned periodic task, started."""
    edge = app.edge
    sweeper = GuestSweeper(app.sessions, interval=config.guest_sweep_interval,
                           active=lambda: [c.player_id for c in edge.connections.values()
                                           if c.player_id is not None])
    sweeper.start()
    return sweeper


def _install_signal_handlers(loop: asyncio.AbstractEventLoop,
                             stop: asyncio.Event) -> list[signal.Signals]:
    """SIGTERM and SIGINT set `stop` (only in the main thread); the signals installed."""
    installed: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(sig)
    return installed


async def _listen(app: App, config: Config) -> tuple[Server, OperatorServer, int]:
    """Open the public listener (WebSocket and HTTP) and the operator's (HTTP only: metrics,
    jackpot history, the admin API and page; `server.net.operator_http`) and its port."""
    server = await serve(
        app.edge.handle,
        config.host,
        config.port,
        create_connection=app.edge.connection_class(),
        process_request=app.http.process_request,
        open_timeout=config.hello_deadline,
        subprotocols=SUBPROTOCOLS,
        select_subprotocol=select_subprotocol,
        compression="deflate" if config.compression else None,
        max_size=ws_max_size(config),
        ping_interval=config.ping_interval or None,
        ping_timeout=config.ping_timeout or None,
    )
    auth = OperatorAuth(config.operator_token, session_ttl=config.operator_session_ttl)
    admin = None if app.operator is None else AdminApi(
        app.operator, auth, json_depth=config.operator_json_depth).handle
    guard = OperatorGuard(limit=config.operator_fail_limit, window=config.operator_fail_window,
                          lockout=config.operator_lockout,
                          lockout_max=config.operator_lockout_max)
    endpoints = OperatorEndpoints(
        app.http, admin=admin, auth=auth, guard=guard,
        host_names=(config.operator_host, *config.operator_host_names),
        trusted_proxies=config.trusted_proxies, fail_delay=config.operator_fail_delay)
    if app.operator is not None:  # a lockout is an audit record
        audit = app.operator.audit
        endpoints.on_lockout = lambda address, failures, seconds: audit.record(
            "listener", "operator_locked", reason="failed operator credentials",
            target=address, details={"failures": failures, "seconds": seconds})
    operator = OperatorServer(endpoints.handle, host=config.operator_host,
                              port=config.operator_port, max_body=config.operator_body_max,
                              check=endpoints.check)
    try:
        port = await operator.start()
    except BaseException:
        server.close()
        raise
    return server, operator, port


def _announce(app: App, config: Config, server: Server, operator_port: int) -> str:
    """Mark the server ready, print and log both listening URLs; the public one."""
    url = listening_url(config.host, _bound_port(server, config.port))
    app.operator_url = listening_url(config.operator_host, operator_port)
    app.http.ready = True
    print(f"poker-server listening on {url}", flush=True)
    print(f"poker-server operator on {app.operator_url}", flush=True)
    _announce_players(app, config, _bound_port(server, config.port))
    log.info("event=operator_listening url=%s token=%s admin=%s", app.operator_url,
             "required" if config.operator_token else "none",
             "on" if config.operator_token else "off")
    log.info(
        "event=listening url=%s test_mode=%s store=%s",
        url,
        config.test_mode,
        "redis" if config.redis_url else "embedded",
    )
    return url


def _announce_players(app: App, config: Config, port: int) -> None:
    """Print the address(es) players open (`server.net.addresses`: the public address, the
    LAN's, or the loopback's with how to open the game to friends), and give the page the
    LAN address when bound to every interface."""
    found = player_addresses(host=config.host, port=port,
                             public_address=config.public_address, lan=app.lan_addresses)
    if is_wildcard(config.host) and config.public_address is None \
            and not is_loopback(urlsplit(found[0].url).hostname or ""):
        app.http.lan_url = found[0].url
    for line in players_lines(found):
        print(line, flush=True)
    log.info("event=players_open urls=%s", ",".join(a.url for a in found))


def drain_budget(config: Config) -> float:
    """The longest a graceful shutdown takes (deploy/k8s: under the grace period): the
    tables' hands and live moves within the deadline (and a last move's offer), five seconds
    of closing, then the connections within the deadline again."""
    return 2 * config.shutdown_deadline + OFFER_TIMEOUT + 5.0


async def _drain_tables_and_connections(app: App, config: Config, server: Server) -> None:
    """Shutdown: the tables finish their hands (bounded) and, in a cluster, move to other
    processes (`server.cluster.moves`); the rest close (everyone cashed out); the jackpot
    closes, every outbox is flushed and every connection closed (1001)."""
    deadline = config.shutdown_deadline
    if app.directory is not None:  # no new tables placed here while it drains; each table
        await app.directory.drain()  # moves to another process at the end of its hand
        began = time.monotonic()
        try:
            await app.directory.moves.drain(deadline)
        except Exception:
            log.exception("event=drain_moves_failed")
        deadline = max(1.0, deadline - (time.monotonic() - began))  # the same deadline
    try:
        await asyncio.wait_for(app.registry.shutdown(deadline), deadline + 5.0)
    except TimeoutError:
        log.error("event=registry_shutdown_timeout deadline=%s", config.shutdown_deadline)
    except Exception:
        log.exception("event=registry_shutdown_failed")
    if app.bots is not None:  # their tables closed: the practice bots leave
        await _bounded("bots_close", app.bots.close(), 10.0)
    if app.jackpot is not None:
        await _bounded("jackpot_close", app.jackpot.close())
    if app.directory is not None:  # out of the directory: this node and its tables
        await _bounded("directory_close", app.directory.close())
    await app.edge.close_all()
    try:
        await asyncio.wait_for(server.wait_closed(), config.shutdown_deadline)
    except TimeoutError:
        log.warning("event=shutdown_deadline_exceeded deadline=%s", config.shutdown_deadline)


async def _bounded(step: str, coro: Coroutine[Any, Any, None], seconds: float = 5.0) -> None:
    """One step of the shutdown, logged if it fails or takes longer than ``seconds``."""
    try:
        await asyncio.wait_for(coro, seconds)
    except TimeoutError:
        log.error("event=shutdown_step_timeout step=%s seconds=%s", step, seconds)
    except Exception:
        log.exception("event=shutdown_step_failed step=%s", step)


async def _close_ledger(app: App) -> None:
    """Log the final balances (every chip off the tables) and close the ledger."""
    log.info("event=final_balances %s", balances_line(app.wallet))
    try:
        log.info("event=ledger_closed sum=%d", await app.wallet.ledger.total())
        await app.wallet.ledger.release_node()
        await app.wallet.ledger.store.close()
    except Exception:
        log.exception("event=ledger_close_failed")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `poker-server`: parse `argv`, serve until signalled, return exit code 0."""
    args = build_parser().parse_args(argv)
    try:
        config = config_from_args(args, argv)
    except (ValueError, TypeError, OSError, tomllib.TOMLDecodeError) as error:
        build_parser().error(str(error))
    configure_logging()
    lock = None if config.redis_url is not None else DataDirLock(config.data_dir)
    try:  # one server per data directory (server.instance): a second one says so plainly
        if lock is not None:
            lock.acquire()
    except AlreadyRunning as busy:
        print(busy.advice(config.port), file=sys.stderr, flush=True)
        return 1

    def listening(url: str) -> None:
        tune_gc()
        if lock is not None:
            lock.announce(url)

    try:
        asyncio.run(run(config, on_listening=listening))
    except KeyboardInterrupt:  # a second Ctrl-C, or a signal before handlers were installed
        return 130
    except OSError as error:  # e.g. address already in use
        log.error("event=start_failed error=%r", str(error))
        if error.errno == errno.EADDRINUSE:
            print(port_in_use_advice(config.host, config.port), file=sys.stderr, flush=True)
        return 1
    finally:
        if lock is not None:
            lock.release()
    return 0


if __name__ == "__main__":
    sys.exit(main())
