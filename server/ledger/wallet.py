"""Player balances as the tables see them: the :class:`Wallet` protocol, an in-memory one, and
:class:`LedgerWallet`, the facade over the double-entry ledger (:mod:`server.ledger.journal`).

Rule of this module: chips move between a player's balance and a table only through a
``Wallet``: ``buy_in`` (sit, rebuy) and ``cash_out`` (leave, close); a table reports each hand's
boundaries with ``hand_started`` (before its first card) and ``hand_result`` (its entries, see
:func:`server.ledger.journal.hand_entries`; applied atomically with the hand's end). Amounts
are integer chips; a buy-in never makes a balance negative. ``debit``/``credit`` are the
older, table-less form (kept for tools and tests). :class:`MemoryWallet` keeps only
off-table balances (its hand boundaries do nothing): the table tests' wallet.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from server.ledger.journal import POT, SEAT, Ledger, player_account
from server.ledger.store import Entry, Transfer

log = logging.getLogger("server.ledger.wallet")

__all__ = ["LedgerWallet", "MemoryWallet", "Wallet"]


class Wallet(Protocol):
    def balance(self, player_id: str) -> int:
        """Chips off the tables (0 for an unknown player)."""
        ...

    async def debit(self, player_id: str, amount: int, reason: str) -> bool:
        """Take ``amount`` (>= 0) from the balance; False (nothing changed) when it is short."""
        ...

    async def credit(self, player_id: str, amount: int, reason: str) -> None:
        """Add ``amount`` (>= 0) to the balance."""
        ...

    def ensure(self, player_id: str, starting: int) -> int:
        """Create the account with ``starting`` chips if it does not exist; return the
        balance."""
        ...

    async def buy_in(self, player_id: str, table: str, amount: int, *, reason: str) -> bool:
        """Move ``amount`` from the balance to the player's chips at ``table``; False (nothing
        changed) when the balance is short."""
        ...

    async def cash_out(self, player_id: str, table: str, amount: int, *, reason: str) -> None:
        """Return ``amount`` of the player's chips at ``table`` to their balance."""
        ...

    async def hand_started(self, table: str, hand_id: str, stacks: Mapping[str, int]) -> None:
        """Durably record a hand as running with these stacks (player id → chips)."""
        ...

    async def hand_result(self, table: str, hand_id: str, entries: Sequence[Transfer]) -> None:
        """Apply a hand's entries and end it, atomically (raises if the ledger refuses)."""
        ...

    async def hand_voided(self, table: str, hand_id: str, *, reason: str) -> None:
        """The table voided a running hand (its chips never moved): record it, end it."""
        ...

    async def table_entries(self, table: str) -> list[Entry]:
        """Every journal line of ``table``'s accounts (its players' chips there and its
        pot), in order: a home game's session ledger (:mod:`server.table.session`)."""
        ...


class MemoryWallet:
    """Balances in a dict; ``journal`` records every movement ``(player, delta, reason)``."""

    def __init__(self) -> None:
        self._balances: dict[str, int] = {}
        self.journal: list[tuple[str, int, str]] = []
        self._lock = asyncio.Lock()
        self._lines: list[Entry] = []  # the table accounts' lines, as a ledger would book them

    def _line(self, src: str, dst: str, amount: int, reason: str) -> None:
        if amount > 0:
            self._lines.append(Entry(len(self._lines) + 1, len(self._lines) + 1, src, dst,
                                     amount, reason))

    def balance(self, player_id: str) -> int:
        return self._balances.get(player_id, 0)

    def ensure(self, player_id: str, starting: int) -> int:
        if player_id not in self._balances:
            if starting < 0:
                raise ValueError("starting balance must not be negative")
            self._balances[player_id] = starting
            self.journal.append((player_id, starting, "open"))
        return self._balances[player_id]

    async def debit(self, player_id: str, amount: int, reason: str) -> bool:
        if type(amount) is not int or amount < 0:
            raise ValueError(f"bad debit amount {amount!r}")
        async with self._lock:
            have = self._balances.get(player_id, 0)
            if have < amount:
                return False
            self._balances[player_id] = have - amount
            self.journal.append((player_id, -amount, reason))
            return True

    async def credit(self, player_id: str, amount: int, reason: str) -> None:
        if type(amount) is not int or amount < 0:
            raise ValueError(f"bad credit amount {amount!r}")
        async with self._lock:
            self._balances[player_id] = self._balances.get(player_id, 0) + amount
            self.journal.append((player_id, amount, reason))

    def total(self) -> int:
        """Every chip held in balances (for conservation checks)."""
        return sum(self._balances.values())

    async def buy_in(self, player_id: str, table: str, amount: int, *, reason: str) -> bool:
        ok = await self.debit(player_id, amount, reason)
        if ok:
            self._line(player_account(player_id), f"table:-:-:{table}:{player_id}", amount,
                       reason)
        return ok

    async def cash_out(self, player_id: str, table: str, amount: int, *, reason: str) -> None:
        await self.credit(player_id, amount, reason)
        self._line(f"table:-:-:{table}:{player_id}", player_account(player_id), amount, reason)

    async def table_entries(self, table: str) -> list[Entry]:
        prefix = f"table:-:-:{table}:"
        return [e for e in self._lines if e.src.startswith(prefix) or e.dst.startswith(prefix)]

    async def hand_started(self, table: str, hand_id: str, stacks: Mapping[str, int]) -> None:
        """Nothing to record: this wallet does not see table chips."""

    async def hand_result(self, table: str, hand_id: str, entries: Sequence[Transfer]) -> None:
        """The hand's lines at the table (balances do not change: table chips)."""
        def account(name: str) -> str:
            if name.startswith(SEAT):
                return f"table:-:-:{table}:{name[len(SEAT):]}"
            return f"table:-:-:{table}:{POT}" if name == POT else name
        for t in entries:
            self._line(account(t.src), account(t.dst), t.amount, f"{t.reason} {hand_id}")

    async def hand_voided(self, table: str, hand_id: str, *, reason: str) -> None:
        """Nothing to record: this wallet does not see table chips."""


class LedgerWallet:
    """The :class:`Wallet` of the server: every call is a ledger batch.

    ``balance``/``ensure``/``total`` are synchronous for logs and tests: they answer from
    this process's view (balances it has read or changed); with several processes sharing a
    store, ``await ledger.balance(player_account(id))`` is the authority. ``ensure`` only
    records a balance the caller has just read (accounts are opened by
    :class:`server.ledger.accounts.Accounts`).
    """

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._seen: dict[str, int] = {}
        self.listener: Callable[[str, int], None] | None = None
        """Called with (player id, new balance) after every change this process makes or
        reads (the server pushes `balance` to that player's connections)."""

    def _tell(self, player_id: str) -> None:
        if self.listener is not None and player_id in self._seen:
            try:
                self.listener(player_id, self._seen[player_id])
            except Exception:  # a push must never break a ledger call
                log.exception("event=balance_push_failed player=%s", player_id)

    def balance(self, player_id: str) -> int:
        return self._seen.get(player_id, 0)

    def ensure(self, player_id: str, starting: int) -> int:
        return self._seen.setdefault(player_id, starting)

    def total(self) -> int:
        """Every chip in the balances this process has seen."""
        return sum(self._seen.values())

    def players(self) -> list[str]:
        return sorted(self._seen)

    async def refresh(self, player_id: str) -> int:
        """Read the player's balance from the ledger (and remember it)."""
        value = await self.ledger.balance(player_account(player_id))
        changed = self._seen.get(player_id) != value
        self._seen[player_id] = value
        if changed:
            self._tell(player_id)
        return value

    def _moved(self, player_id: str, delta: int) -> None:
        if player_id in self._seen:
            self._seen[player_id] += delta
            if delta:
                self._tell(player_id)

    async def debit(self, player_id: str, amount: int, reason: str) -> bool:
        return await self.buy_in(player_id, "-", amount, reason=reason)

    async def credit(self, player_id: str, amount: int, reason: str) -> None:
        await self.cash_out(player_id, "-", amount, reason=reason)

    async def buy_in(self, player_id: str, table: str, amount: int, *, reason: str) -> bool:
        if type(amount) is not int or amount < 0:
            raise ValueError(f"bad buy-in amount {amount!r}")
        ok = await self.ledger.buy_in(player_id, table, amount, reason=reason)
        if ok:
            self._moved(player_id, -amount)
        return ok

    async def cash_out(self, player_id: str, table: str, amount: int, *, reason: str) -> None:
        if type(amount) is not int or amount < 0:
            raise ValueError(f"bad cash-out amount {amount!r}")
        if await self.ledger.cash_out(player_id, table, amount, reason=reason):
            self._moved(player_id, amount)

    async def hand_started(self, table: str, hand_id: str, stacks: Mapping[str, int]) -> None:
        await self.ledger.hand_started(table, hand_id, stacks)

    async def hand_result(self, table: str, hand_id: str, entries: Sequence[Transfer]) -> None:
        await self.ledger.hand_result(table, hand_id, entries)

    async def hand_voided(self, table: str, hand_id: str, *, reason: str) -> None:
        await self.ledger.hand_voided(table, hand_id, reason=reason)

    async def table_entries(self, table: str) -> list[Entry]:
        return await self.ledger.table_entries(table)
