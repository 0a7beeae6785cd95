"""The embedded Caribbean Stud jackpot pool: one per registry (one process).

Rule of this module: it is the in-process default of the jackpot coordinator (the cross-process
one is a later issue). Every Caribbean table of a registry feeds the same pool with its
collected wagers' pool shares (CSP-08/CSP-11) and draws its claims' payouts (CSP-09) from it,
in the order the tables settle (one event loop: no races). The house's side of the money
(wager shares not pooled, reseeds, shortfalls) is counted in ``house``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from protocol import messages as m
from server.rules.caribbean import (
    CaribbeanSettings,
    Contribution,
    JackpotClaim,
    jackpot_payouts,
    split_jackpot_payouts,
)

__all__ = ["EmbeddedJackpot"]


class EmbeddedJackpot:
    """``pool`` (single) or ``minor``/``major`` (split tables) in chips; ``house``: the
    house's jackpot ledger balance (shares kept minus reseeds and shortfalls paid)."""

    def __init__(self, *, pool: int = 0, minor: int = 0) -> None:
        self.pool = pool
        self.minor = minor
        self.house = 0
        self.split = False

    def settle(self, contributions: Iterable[Contribution], claims: Iterable[JackpotClaim],
               settings: CaribbeanSettings) -> dict[int, int]:
        """Add one round's contributions, pay its claims; returns seat -> payout."""
        for c in contributions:
            self.minor += c.to_minor
            self.pool += c.to_major
            self.house += c.to_house
        claims = list(claims)
        if not claims:
            return {}
        if settings.split_pools:
            self.split = True
            sp = split_jackpot_payouts(self.minor, self.pool, claims, settings)
            for outcome in (sp.minor, sp.major):
                self.house -= outcome.house_shortfall + outcome.seed
            self.minor, self.pool = sp.minor.after, sp.major.after
            return dict(sp.payouts)
        jp = jackpot_payouts(self.pool, claims, settings)
        self.house -= jp.house_shortfall + jp.seed
        self.pool = jp.pool_after
        return dict(jp.payouts)

    def message(self, *, table: str | None = None) -> dict[str, Any]:
        """The ``jackpot`` message for every connection."""
        if self.split:
            return m.jackpot(pool=self.pool + self.minor, minor=self.minor, major=self.pool,
                             table=table)
        return m.jackpot(pool=self.pool, table=table)
