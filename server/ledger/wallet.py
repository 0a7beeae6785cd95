"""Player balances as the tables see them: the :class:`Wallet` protocol and an in-memory one.

Rule of this module: chips move between a player's balance and a table only through a
``Wallet`` (``debit`` on buy-in, ``credit`` on leaving or refund). :class:`MemoryWallet` is the
embedded default of this issue; a later issue replaces it with a double-entry ledger behind the
same protocol. Amounts are integer chips; a debit never makes a balance negative.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

__all__ = ["MemoryWallet", "Wallet"]


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


class MemoryWallet:
    """Balances in a dict; ``journal`` records every movement ``(player, delta, reason)``."""

    def __init__(self) -> None:
        self._balances: dict[str, int] = {}
        self.journal: list[tuple[str, int, str]] = []
        self._lock = asyncio.Lock()

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
