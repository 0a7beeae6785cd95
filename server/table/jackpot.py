"""The tables' side of the Caribbean Stud jackpot: the process's :class:`JackpotService`.

Rule of this module: a Caribbean table talks to the jackpot only through the registry's
service (:mod:`server.jackpot.service`): ``hand_eligible`` when its round is dealt,
``hand_settled`` when it ends; payouts reach the players' accounts through the wallet (not the
table stacks), after every hand placed before them has settled (CSP-10).  The pool is one for
every table of every process (CSP-12): in-process by default (:class:`EmbeddedJackpot`), over
Redis with ``--redis``.
"""

from __future__ import annotations

from typing import Any

from server.jackpot.base import PoolState
from server.jackpot.memory import MemoryCoordinator
from server.jackpot.meter import Meter
from server.jackpot.service import CreditFn, JackpotService

__all__ = ["EmbeddedJackpot", "JackpotService"]


class EmbeddedJackpot(JackpotService):
    """The in-process jackpot (one server process).  ``pool`` is the single (or major) pool,
    ``minor`` the minor pool, ``house`` the house's jackpot balance (wager shares kept minus
    seeds and shortfalls paid); ``pool`` may be set (tests start from an empty pool)."""

    def __init__(self, *, pool: int = 0, minor: int = 0, lease: float = 3.0,
                 credit: CreditFn | None = None, meter: Meter | None = None,
                 owner: str = "local") -> None:
        coord = MemoryCoordinator(lease=lease)
        coord.major, coord.minor = pool, minor
        super().__init__(coord, owner=owner, credit=credit, meter=meter)
        self.mem = coord

    @property
    def pool(self) -> int:
        return self.mem.major

    @pool.setter
    def pool(self, value: int) -> None:
        self.mem.major = value
        self.meter.state = PoolState(self.mem.minor, value, self.mem.split)  # no message

    @property
    def minor(self) -> int:
        return self.mem.minor

    @property
    def house(self) -> int:
        return self.mem.house

    def message(self, *, table: str | None = None) -> dict[str, Any]:
        return self.meter.message(table)
