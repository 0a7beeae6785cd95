"""The one interface every ledger store implements, and the values that cross it.

Rule of this module: a store knows accounts (name → integer balance), journal entries, batches,
idempotency keys, open-hand marks, an outbox (key → text: work that must survive a crash until
it is done elsewhere), named users, a few settings and counters that never go back (ids); it
knows nothing of poker. It also keeps the operator's audit log (append-only records).
Every change is one :class:`Batch`, applied by :meth:`Store.apply` atomically: all of it or
nothing, its journal entries and its hand mark together, and at most once per idempotency key.
An account whose name starts with one of :data:`NO_OVERDRAFT` (players' balances and the
chips at tables) never goes below zero: a batch that would make one negative is refused whole.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from server.ledger.lease import Fence, LeaseState

__all__ = ["NO_OVERDRAFT", "Batch", "Entry", "HandMark", "Outcome", "Store", "Transfer",
           "UserRecord", "check_transfer", "is_checked"]

NO_OVERDRAFT: tuple[str, ...] = ("player:", "table:")
"""Account name prefixes that may never be negative. System accounts (``bank``, ``house``,
``rake``, ``jackpot:*``) may be: ``bank`` is where starting balances come from, so it goes
down by every chip handed out and the sum over all accounts stays exactly zero."""


def is_checked(account: str) -> bool:
    """Whether ``account`` is protected against overdraft."""
    return account.startswith(NO_OVERDRAFT)


@dataclass(frozen=True, slots=True)
class Transfer:
    """``amount`` (> 0) chips from ``src`` to ``dst`` (one debit, one credit)."""

    src: str
    dst: str
    amount: int
    reason: str


def check_transfer(t: Transfer) -> None:
    """Raise ``ValueError`` unless ``t`` is well-formed (a bug, not a refusal)."""
    if type(t.amount) is not int or t.amount <= 0:
        raise ValueError(f"transfer amount must be a positive int, got {t.amount!r}")
    if not t.src or not t.dst or t.src == t.dst:
        raise ValueError(f"transfer needs two distinct accounts, got {t.src!r} -> {t.dst!r}")
    if len(t.reason) > 200:
        raise ValueError("transfer reason too long")


@dataclass(frozen=True, slots=True)
class HandMark:
    """A running hand, recorded durably when it starts: ``table`` and each player's stack."""

    hand: str
    table: str
    stacks: dict[str, int]


@dataclass(frozen=True, slots=True)
class Batch:
    """One atomic change. ``transfers`` in order; ``key``: idempotency key (applied once);
    ``note``: a journal record without chips (``void ...``); ``open_hand``: record a hand
    as running; ``close_hand``: the hand id whose mark this batch removes; ``outbox``:
    ``(key, text)`` records written (replaced) in the outbox with the batch; ``fence``: the
    writer's fencing token (:mod:`server.ledger.lease`): the batch is refused whole
    (:attr:`Outcome.STALE`) when it is no longer its node's."""

    transfers: Sequence[Transfer] = ()
    key: str | None = None
    note: str | None = None
    open_hand: HandMark | None = None
    close_hand: str | None = None
    outbox: Sequence[tuple[str, str]] = ()
    fence: Fence | None = None

    def validate(self) -> None:
        for t in self.transfers:
            check_transfer(t)
        if self.key is not None and not 0 < len(self.key) <= 200:
            raise ValueError("idempotency key must be 1..200 characters")
        for k, _ in self.outbox:
            if not 0 < len(k) <= 200:
                raise ValueError("outbox key must be 1..200 characters")


@dataclass(frozen=True, slots=True)
class Entry:
    """One journal row: ``seq`` (store order), ``batch`` id, and the transfer (for a note:
    empty ``src``/``dst``, ``amount`` 0)."""

    seq: int
    batch: int
    src: str
    dst: str
    amount: int
    reason: str


class Outcome(enum.Enum):
    APPLIED = "applied"
    DUPLICATE = "duplicate"  # the key was applied before: nothing changed now
    INSUFFICIENT = "insufficient"  # a protected account would go negative: nothing changed
    STALE = "stale"  # the batch's fencing token is no longer its node's: nothing changed

    @property
    def ok(self) -> bool:
        return self is Outcome.APPLIED or self is Outcome.DUPLICATE


@dataclass(frozen=True, slots=True)
class UserRecord:
    """A named account: ``player_id``, display ``name``, scrypt ``salt`` and ``digest``."""

    player_id: str
    name: str
    salt: bytes
    digest: bytes
    params: dict[str, int] = field(default_factory=dict)


class SessionStore(Protocol):
    """The sessions role of a :class:`Store` (revocable tokens: :mod:`server.net.sessions`)
    and the guests' activity: ``store.sessions.put(...)``."""

    async def put(self, sid: str, player_id: str, expires: float) -> None:
        """Create or extend the session ``sid`` of ``player_id`` until ``expires`` (Unix s)."""
        ...

    async def get(self, sid: str) -> tuple[str, float] | None:
        """``(player_id, expires)`` of a session that was not revoked (nor purged)."""
        ...

    async def revoke(self, sid: str) -> None:
        """End the session ``sid`` (nothing if there is none)."""
        ...

    async def revoke_all(self, player_id: str) -> int:
        """End every session of ``player_id``; returns how many there were."""
        ...

    async def purge(self, now: float, limit: int = 1000) -> int:
        """Forget at most ``limit`` sessions that expired before ``now``; returns how many."""
        ...

    async def guest_seen(self, player_id: str, when: float) -> None:
        """Record that the guest ``player_id`` was active at ``when`` (Unix seconds)."""
        ...

    async def idle_guests(self, before: float, limit: int) -> list[str]:
        """At most ``limit`` guests last seen before ``before``, longest idle first."""
        ...

    async def guest_forget(self, player_id: str) -> None:
        """Forget the guest's activity record (it was expired)."""
        ...


class Store(Protocol):
    """The ledger's storage. Every method is a coroutine; none blocks the event loop."""

    async def open(self) -> None:
        """Connect / create the schema. Call once before anything else."""
        ...

    async def close(self) -> None: ...

    async def apply(self, batch: Batch) -> Outcome:
        """Apply ``batch`` atomically (see the module docstring)."""
        ...

    async def balance(self, account: str) -> int:
        """The balance of ``account`` (0 if it never moved)."""
        ...

    async def balances(self, prefix: str = "") -> dict[str, int]:
        """Every account whose name starts with ``prefix``, with its balance."""
        ...

    async def journal(self, since: int = 0, limit: int = 1000) -> list[Entry]:
        """Journal rows with ``seq > since``, oldest first, at most ``limit``."""
        ...

    async def open_hands(self) -> list[HandMark]:
        """Hands recorded as started and not yet ended."""
        ...

    async def outbox_put(self, key: str, value: str) -> None:
        """Write (or replace) the outbox record ``key``, durably."""
        ...

    async def outbox_list(self, prefix: str = "") -> list[tuple[str, str]]:
        """The outbox records whose key starts with ``prefix``, ``(key, value)``, by key."""
        ...

    async def outbox_delete(self, key: str) -> None:
        """Remove the outbox record ``key`` (nothing if there is none)."""
        ...

    async def setting(self, name: str, default: str) -> str:
        """The stored value of ``name``; stores ``default`` first if there is none (so two
        processes asking at once agree on one value)."""
        ...

    async def reserve_ids(self, name: str, count: int) -> int:
        """Advance the durable counter ``name`` (0 before its first use) by ``count`` (>= 1)
        atomically, whatever other processes sharing the store do, and return its new value:
        the numbers ``value - count + 1 .. value`` are the caller's, for ever (table ids and
        hand numbers: :mod:`server.ledger.ids`)."""
        ...

    async def add_user(self, key: str, user: UserRecord, aliases: Sequence[str] = ()) -> bool:
        """Create the named user ``key`` (the normalised name), also found under each of
        ``aliases`` (its other name keys: :func:`server.ledger.names.name_keys`); False, and
        nothing written, when ``key`` or any alias exists (one atomic step)."""
        ...

    async def update_user(self, key: str, user: UserRecord) -> bool:
        """Replace the record of the user found under ``key`` (and under each of its
        aliases) with ``user`` (a new password); False when there is none."""
        ...

    @property
    def sessions(self) -> SessionStore:
        """The sessions and guests' activity role (:class:`SessionStore`), on this store's
        connection."""
        ...

    async def acquire_lease(self, node: str, holder: str, seconds: float,
                            token: int | None = None) -> LeaseState:
        """Take (``token`` None) or renew (``token``: the holder's) the lease of ``node``
        for ``holder`` for ``seconds`` (:mod:`server.ledger.lease`). A take succeeds when
        nobody holds it, with a new token (the node's counter increased: every earlier token
        of the node is stale from now on). A renewal succeeds while the node's token is still
        ``token`` (taking the lease back if it lapsed meanwhile), keeping it. Returns who
        holds the lease now and the node's current token (the caller's on success)."""
        ...

    async def release_lease(self, node: str, holder: str) -> None:
        """End ``holder``'s lease of ``node`` (nothing if someone else holds it); the
        node's token stays (the next take increases it)."""
        ...

    def lease_key(self, node: str) -> str:
        """Where the store keeps ``node``'s current token (a :class:`Fence`'s ``key``)."""
        ...

    async def user(self, key: str) -> UserRecord | None: ...

    async def audit_append(self, record: str) -> int:
        """Append one operator audit record (JSON text) to the append-only audit log; return
        its sequence number (from 1). Records are never changed or removed."""
        ...

    async def audit_list(self, since: int = 0, limit: int = 100) -> list[tuple[int, str]]:
        """``(seq, record)`` of the audit records after ``since``, oldest first, at most
        ``limit``."""
        ...

    async def audit_count(self) -> int:
        """How many audit records there are (the newest one's seq)."""
        ...
