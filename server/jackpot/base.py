"""The jackpot coordinator's contract (CSP-08..CSP-12), shared by both implementations.

A *hand* here is one Caribbean Stud round at one table (its round id, e.g. ``"t3.17"``).

1. ``register(hand, owner=...)`` when the hand becomes eligible (CSP-10): the coordinator gives
   it a *ticket*, its place in the one global order.  Idempotent: a retry gets the same ticket.
   The registration holds a *lease* (``lease`` seconds); the owner renews it while the hand is
   live (``renew``).  A hand whose lease ran out no longer blocks anybody.
2. ``report(hand, ...)`` when it settles: its contributions (added to the pools at once, each
   exactly once by its key ``round:seat``) and its qualifying hands (:class:`Claim`), or none.
   Idempotent.  A hand reported after its lease ran out (or never registered) is *late*: it
   gets a fresh ticket at the end of the order.
3. Whenever the hand at the head of the order has reported (or its lease has run out) it is
   taken off: its claims are paid by the CSP-09 function against the pools as they stand then,
   the pools are reseeded (CSP-08), and one :class:`Payout` record per claim is written
   (durably, in the same atomic step).  ``report`` and ``advance`` do this.
4. The owner credits each payout to the player with the claim key as the idempotency key and
   then calls ``credited(key)``; ``due(owner)`` lists what is still to credit (after a crash).

Money balance of the pools at every moment::

    contributed + seeded == paid + minor + major

where ``seeded`` counts the initial seed, every reseed and every house shortfall.

A new pool opens at the reset amount (CSP-08, :func:`opening`), paid by the house: one
``seed`` history entry per pool, written once per pool (never again after a restart), which
the service books in the ledger like a reseed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from server.rules.caribbean_payout import CaribbeanSettings, Contribution

__all__ = ["Claim", "Coordinator", "HistoryEntry", "Payout", "PoolState", "opening",
           "settings_args", "HISTORY_KINDS"]

HISTORY_KINDS = ("seed", "contribution", "payout", "shortfall", "reseed", "expired", "late",
                 "overflow")


@dataclass(frozen=True, slots=True)
class Claim:
    """A qualifying hand of a round: ``kind`` is the jackpot hand (``"flush"``, ``"royal_flush"``
    …), ``eligible_at`` its eligibility moment within the round (a deck position, CSP-10)."""

    hand: str
    seat: int
    player: str
    kind: str
    eligible_at: int

    @property
    def key(self) -> str:
        return f"{self.hand}:{self.seat}"


@dataclass(frozen=True, slots=True)
class Payout:
    """One claim paid: ``amount`` chips are owed to ``player`` (credited by ``owner``)."""

    key: str
    hand: str
    seat: int
    player: str
    owner: str
    table: str
    kind: str
    amount: int
    ticket: int

    def to_json(self) -> str:
        return json.dumps([self.key, self.hand, self.seat, self.player, self.owner, self.table,
                           self.kind, str(self.amount), self.ticket])

    @classmethod
    def from_json(cls, text: str) -> Payout:
        k, h, s, p, o, t, kind, a, tk = json.loads(text)
        return cls(str(k), str(h), int(s), str(p), str(o), str(t), str(kind), int(a), int(tk))


@dataclass(frozen=True, slots=True)
class PoolState:
    """The pools now (``major`` is the single pool of unsplit tables) and the running totals."""

    minor: int
    major: int
    split: bool
    contributed: int = 0
    paid: int = 0
    seeded: int = 0
    house: int = 0

    @property
    def pool(self) -> int:
        return self.minor + self.major


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One line of the pool's history: ``kind`` in :data:`HISTORY_KINDS`; ``pool`` is
    ``"minor"`` or ``"major"`` (or ``""``); ``after`` that pool after the change."""

    seq: int
    kind: str
    hand: str
    key: str
    pool: str
    amount: int
    after: int
    ts: int

    def as_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "hand": self.hand, "key": self.key,
                "pool": self.pool, "amount": self.amount, "after": self.after, "ts": self.ts}


def settings_args(s: CaribbeanSettings) -> list[int]:
    """The settings the payout arithmetic needs, as a flat list (also the Lua scripts' form):
    ``[split, royal_bp, straight_flush_bp, four_of_a_kind, full_house, flush, reset,
    minor_reset, max_pool, royal_minimum]`` (``max_pool`` 0: no ceiling; what a contribution
    would add above it goes to the house, an ``overflow`` history entry; ``royal_minimum``:
    what each royal flush gets at least, CSP-09, its own term beside the reset amount)."""
    jp = s.jackpot
    return [int(s.split_pools), jp.royal_flush_bp, jp.straight_flush_bp, jp.four_of_a_kind,
            jp.full_house, jp.flush, s.reset_amount, s.minor_reset_amount, s.max_pool,
            s.royal_minimum]


def opening(terms: CaribbeanSettings | None = None) -> tuple[int, int]:
    """CSP-08: what a new pool opens at, ``(major, minor)``: the reset amount of the jackpot
    terms (default :class:`CaribbeanSettings`: $10,000); with split pools (CSP-11) the minor
    pool opens at its own reset amount, else there is no minor pool (0)."""
    t = terms if terms is not None else CaribbeanSettings()
    return t.reset_amount, t.minor_reset_amount if t.split_pools else 0


class Coordinator(Protocol):
    """The jackpot coordinator (module docstring).  ``lease`` is in seconds."""

    lease: float

    async def register(self, hand: str, *, owner: str) -> int:
        """Place ``hand`` in the global order; returns its ticket (the same on a retry)."""
        ...

    async def renew(self, hands: Sequence[str]) -> None:
        """Extend the leases of these registered, unreported hands."""
        ...

    async def report(self, hand: str, *, owner: str, table: str, settings: CaribbeanSettings,
                     contributions: Sequence[Contribution], claims: Sequence[Claim]
                     ) -> list[Payout]:
        """Book the settled hand (idempotent); returns the payouts this call produced (for
        any owner), in payment order."""
        ...

    async def advance(self) -> list[Payout]:
        """Pay whatever has become payable (leases that ran out); returns the new payouts."""
        ...

    async def state(self) -> PoolState:
        ...

    async def due(self, owner: str | None = None) -> list[Payout]:
        """Payout records not yet credited (of ``owner``, or everyone's)."""
        ...

    async def credited(self, key: str) -> None:
        """The payout ``key`` has been credited to the player: close its record."""
        ...

    async def history(self, start: int = 0, count: int = 1000) -> list[HistoryEntry]:
        """Entries ``start`` .. ``start + count - 1`` of the pool's history (oldest first)."""
        ...

    async def close(self) -> None:
        ...
