"""The tables' side of the Caribbean Stud jackpot: the process's :class:`JackpotService`.

Rule of this module: a Caribbean table talks to the jackpot only through the registry's
service (:mod:`server.jackpot.service`): ``hand_eligible`` when its round is dealt,
``hand_settled`` when it ends; payouts reach the players' accounts through the wallet (not the
table stacks), after every hand placed before them has settled (CSP-10).  The pool is one for
every table of every process (CSP-12): in-process by default (:class:`EmbeddedJackpot`), over
Redis with ``--redis``.  The embedded pools live in the data dir and survive restarts (CSP-08).
"""

from __future__ import annotations

from typing import Any

from server.jackpot.base import PoolState
from server.jackpot.durable import PoolFile
from server.jackpot.memory import MemoryCoordinator
from server.jackpot.meter import Meter
from server.jackpot.service import CreditFn, JackpotService
from server.rules.caribbean_payout import CaribbeanSettings

__all__ = ["EmbeddedJackpot", "JackpotService"]


class EmbeddedJackpot(JackpotService):
    """The in-process jackpot (one server process).  ``pool`` is the single (or major) pool,
    ``minor`` the minor pool, ``house`` the house's jackpot balance (wager shares kept minus
    seeds and shortfalls paid).  A new pool opens at the reset amount of ``terms`` (CSP-08;
    ``pool`` / ``minor``, when given, replace it), paid by the house.  ``file``: the data dir's
    :class:`~server.jackpot.durable.PoolFile`, so the pools survive restarts (read back at
    :meth:`start`).  ``pool`` may be set (the house pays or takes back the difference)."""

    def __init__(self, *, pool: int | None = None, minor: int | None = None,
                 lease: float = 3.0, credit: CreditFn | None = None,
                 meter: Meter | None = None, owner: str = "local",
                 terms: CaribbeanSettings | None = None, file: PoolFile | None = None) -> None:
        coord = MemoryCoordinator(lease=lease, seed=pool, minor_seed=minor, terms=terms,
                                  file=file)
        super().__init__(coord, owner=owner, credit=credit, meter=meter)
        self.mem = coord

    @property
    def pool(self) -> int:
        return self.mem.major

    @pool.setter
    def pool(self, value: int) -> None:
        self.mem.set_pool(value)
        self.meter.state = PoolState(self.mem.minor, value, self.mem.split)  # no message

    @property
    def minor(self) -> int:
        return self.mem.minor

    @property
    def house(self) -> int:
        return self.mem.house

    def message(self, *, table: str | None = None) -> dict[str, Any]:
        return self.meter.message(table)
