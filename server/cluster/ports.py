"""The cluster's parts and the narrow ports they see each other through (issue 26).

Rule of this module: a part of the cluster never reads another's attributes; it is handed, when
it is built, the port below that it needs, and nothing else. The parts and their one owner:

* the directory (:class:`~server.cluster.directory.Directory`): who owns which table and the
  lobby's index, this process's ownership writes (fenced); it is :class:`Owning`;
* the subscriptions (:class:`~server.cluster.bus.Subscriptions`): every pub/sub channel of the
  process, one task; it is :class:`Bus`;
* the saved states (:class:`~server.cluster.states.TableStates`): one state per table, one
  write path; it is :class:`Saving`;
* the one answer to "where is table X" (:class:`~server.cluster.where.Where`);
* moves (:class:`~server.cluster.moves.Moves`) and failover
  (:class:`~server.cluster.failover.Failover`), which see the ports only;
* the spectators' relay (:class:`~server.cluster.spectate.Spectate`).

:class:`Tables` is this process's table registry as the cluster's parts see it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from server.cluster.keys import Keys

if TYPE_CHECKING:
    from server.config import Config
    from server.table.actor import TableActor
    from server.table.handoff import TableState
    from server.table.jackpot import JackpotService

__all__ = ["Bus", "Me", "NodeInfo", "Owning", "Saving", "Tables"]


@dataclass(frozen=True, slots=True)
class NodeInfo:
    """A live process of the cluster, as the directory lists it."""

    name: str
    url: str
    draining: bool = False


@dataclass(frozen=True, slots=True)
class Me:
    """This process in the room: its node name, its run, its public URL, the keys' prefix."""

    node: str
    run: str
    url: str
    keys: Keys


class Owning(Protocol):
    """The directory, as moves and failover see it."""

    me: Me

    def draining(self) -> bool:
        """This process stopped taking tables (shutdown began)."""

    def may_take_over(self) -> bool:
        """This process may take a lapsed one over (not draining, its lease held, Redis
        steady for a whole lease)."""

    def least_loaded(self) -> NodeInfo | None:
        """The live process, not draining, to move a table to (None: none)."""

    def lease_ends(self) -> tuple[str, str]:
        """The two ends of a node's lease key around its name."""

    async def fenced(self, code: str, keys: list[str], args: list[Any]) -> Any:
        """Run an ownership script with this process's fencing token."""

    async def script(self, code: str, keys: list[str], args: list[Any]) -> Any:
        """Run a directory script that needs no token (withdrawing an offer)."""

    async def announce(self) -> None:
        """Tell every process the directory changed."""


class Bus(Protocol):
    """The subscriptions: a channel's messages to a handler, and publishing."""

    def on(self, channel: str, handler: Callable[[str, str], None],
           ready: Callable[[], None] | None = None) -> None: ...

    def off(self, channel: str, handler: Callable[[str, str], None]) -> None: ...

    async def publish(self, channel: str, message: str) -> int: ...


class Saving(Protocol):
    """The saved states: a table's state written through the one path (a live move's
    handover)."""

    async def save(self, state: TableState) -> bool: ...


class Tables(Protocol):
    """This process's tables (the registry), as the cluster's parts see them."""

    actors: dict[str, TableActor]
    creators: dict[str, tuple[str | None, str | None]]
    config: Config
    jackpot: JackpotService

    def adopt(self, state: TableState, stacks: dict[str, int], *,
              exact: bool = True) -> TableActor: ...

    def forget(self, actor: TableActor, reason: str = "idle") -> None: ...
