"""What the network edge sees of the table layer, and what a table sees of a connection.

Rule of this module: it holds only the contract between ``server.net`` and ``server.table``
(protocols, the envelope, the clock abstraction). The implementations live in
:mod:`server.table.actor` (``TableActor``) and :mod:`server.table.registry`
(``TableRegistry``); import them all from :mod:`server.table`.

How the edge uses it::

    registry = TableRegistry(config, wallet)           # one per process
    registry.jackpot_listener = broadcast_to_everyone  # optional: `jackpot` messages
    # lobby requests are answered by the edge with the registry:
    registry.tables(variant)                  -> list of lobby summaries (`ok` with `tables`)
    registry.create(create_table_request, owner=player_id) -> table id (`ok` with `table`)
        raises ProtocolError(code) on a refusal: answer with `error.to_message()` + rid
    # table requests (watch, unwatch, sit, leave, sit_out, sit_in, act, chat, show_hands,
    # resume) go to the table's actor, which answers them itself through the sink:
    actor = registry.get(request.table)       # None -> answer `error unknown_table`
    actor.submit_nowait(Envelope(request, sink))  # (or `await actor.submit(...)`)
    # when the connection closes:
    registry.detach(sink)                     # every table forgets this sink (seat kept)
    # on SIGTERM:
    await registry.shutdown(deadline)

A table never awaits a socket: it calls :meth:`Sink.send` (non-blocking) and forgets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from protocol.requests import Request

__all__ = ["Clock", "Envelope", "Sink", "Timer", "TableActorAPI", "TableRegistryAPI"]


@runtime_checkable
class Sink(Protocol):
    """A connection as a table sees it.

    ``conn_id``: unique per connection in this process. ``player_id`` / ``name``: the logged-in
    identity (None for an anonymous watcher, who may only watch/unwatch/resume).
    ``codec``: the connection's :mod:`protocol.codec` object (``.encode(msg)``,
    ``.subprotocol``); the table encodes each distinct frame once per codec and hands the same
    frame object to every sink with that codec.

    :meth:`send` must never block and never raise for flow control: the connection owns a
    bounded outbox and closes itself when it is full (slow consumer). If it raises anyway the
    table logs it, detaches that sink and carries on with the others.
    """

    conn_id: int
    player_id: str | None
    name: str | None
    codec: Any

    def send(self, frame: str | bytes) -> None: ...


@dataclass(frozen=True, slots=True)
class Envelope:
    """One parsed protocol request (:func:`protocol.parse_request`) from one connection.

    The actor answers ``request.rid`` exactly once through ``sink`` (``ok`` or ``error``), then
    sends any events that follow (e.g. ``snapshot`` after ``watch``/``sit``).
    """

    request: Request
    sink: Sink


class Timer(Protocol):
    """A scheduled wakeup; :meth:`cancel` is idempotent."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Time as the table sees it (injected, so tests advance it without sleeping).

    ``now()``: monotonic seconds (deadlines, timers). ``wall()``: Unix seconds (the ``deadline``
    sent in ``turn``). ``call_later(delay, fn)``: run ``fn()`` (synchronously, on the event
    loop) after ``delay`` seconds of this clock. The actor's callbacks only enqueue a wakeup
    on its own inbox: all table state changes still happen in the actor task.
    See :class:`server.table.clock.AsyncioClock` and :class:`server.table.clock.FakeClock`.
    """

    def now(self) -> float: ...

    def wall(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer: ...


class TableActorAPI(Protocol):
    """One table: a single asyncio task, the only writer of that table's state.

    ``table_id``: the table's id (the protocol's ``table``).
    """

    table_id: str

    def submit_nowait(self, env: Envelope) -> None:
        """Queue a table request on the bounded inbox (``Config.inbox_size``). Never blocks:
        when the inbox is full the request is answered at once with ``error server_busy``; when
        the table is closing, with ``error table_closed``."""
        ...

    async def submit(self, env: Envelope) -> None:
        """``submit_nowait``, as a coroutine."""
        ...

    def detach(self, sink: Sink) -> None:
        """The connection closed: forget ``sink`` (as watcher and as a seated player's
        connection). A seated player keeps the seat for ``Config.reconnect_grace`` seconds
        and their clock keeps running; after the grace they are sat out. Non-blocking."""
        ...

    def summary(self) -> dict[str, Any]:
        """The lobby entry: ``{table, name, variant, structure, stakes, seats, players,
        spectators}`` (``players``: seated count; ``spectators``: watchers not seated)."""
        ...


class TableRegistryAPI(Protocol):
    """Every table of the process; owns every actor task.

    Built as ``TableRegistry(config, wallet, *, clock=time.monotonic, wall=time.time,
    rng=secrets.token_bytes)`` (``clock`` may also be a :class:`Clock` object).
    ``jackpot_listener``: set by the edge to a non-blocking callable that sends a ``jackpot``
    message (a dict from :func:`protocol.messages.jackpot`) to every connection.
    """

    jackpot_listener: Callable[[dict[str, Any]], None] | None

    def create(self, spec: Any, *, owner: str | None, ip: str | None = None) -> str:
        """Open a table from a :class:`protocol.CreateTable` request; return its id.
        Raises :class:`protocol.ProtocolError` (``bad_variant``, ``bad_structure``,
        ``bad_stakes``, ``bad_settings``, ``bad_seat``, ``test_mode_only``, ``bad_deck``,
        ``shutting_down``, ``too_many_tables``: ``owner``'s, the address ``ip``'s or the
        process's most open tables, Config ``max_tables_per_account``, ``max_tables_per_ip``,
        ``max_tables``)."""
        ...

    def page(self, request: Any) -> dict[str, Any]:
        """A ``tables`` answer's fields (``tables``, ``total``, ``next``) for a
        :class:`protocol.Tables` request: filtered, one page, from the listing built once
        per change (:mod:`server.table.lobby`)."""
        ...

    async def prime_ids(self) -> None:
        """Reserve the first blocks of table ids and hand numbers from the store (start-up,
        once the store is open; see :mod:`server.ledger.ids`)."""
        ...

    def get(self, table_id: str) -> TableActorAPI | None:
        """The table's actor, or None (answer ``unknown_table``)."""
        ...

    def created(self, table_id: str) -> dict[str, Any]:
        """The ``create_table`` answer's fields (``table``, a private table's ``code``)."""
        ...

    def tables(self, variant: str | None = None) -> list[dict[str, Any]]:
        """Lobby summaries of every open table (optionally one variant)."""
        ...

    def detach(self, sink: Sink) -> None:
        """A connection closed: detach it from every table."""
        ...

    async def shutdown(self, deadline: float) -> None:
        """Stop accepting; let running hands finish for up to ``deadline`` seconds; void and
        refund the rest; cash every seated player out to the wallet; return when every actor
        task has ended."""
        ...
