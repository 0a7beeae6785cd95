"""A tournament's money and chips, as its director books them (TOUR-01, 02, 12, 14).

Rule of this module: :class:`Purse` is owned by one director and used in its task. Cash moves
(entries, fees, refunds, rebuys, prizes) go through the ledger's
:class:`~server.ledger.tournaments.TournamentBook` (None: a test room without a ledger, where
entries are free); after each one the player's balance as this process shows it is read again
(and pushed to their connections). Tournament chips are issued, moved and retired in the
tournament's own accounts (:class:`~server.ledger.tournaments.TournamentWallet`).
"""

from __future__ import annotations

from server.ledger.tournaments import TournamentBook, TournamentWallet
from server.ledger.wallet import Wallet

__all__ = ["Purse"]


class Purse:
    """See the module docstring."""

    def __init__(self, tid: str, cash: Wallet, book: TournamentBook | None, *,
                 buy_in: int, fee: int) -> None:
        self.tid = tid
        self.cash = cash  # the players' balances
        self.book = book
        self.chips = TournamentWallet(cash, tid)  # the tournament's tables' wallet
        self.buy_in, self.fee = buy_in, fee

    async def _changed(self, player: str) -> None:
        refresh = getattr(self.cash, "refresh", None)
        if refresh is not None:
            await refresh(player)

    async def enter(self, player: str, entry: int) -> bool:
        """TOUR-01: the buy-in to the pool, the fee to the house; False when short."""
        if self.book is None:
            return True
        if not await self.book.enter(self.tid, player, self.buy_in, self.fee, entry=entry):
            return False
        await self._changed(player)
        return True

    async def refund(self, player: str, entry: int, why: str) -> None:
        if self.book is not None:
            await self.book.refund(self.tid, player, self.buy_in, self.fee, entry=entry,
                                   why=why)
            await self._changed(player)

    async def buy(self, player: str, n: int, why: str) -> bool:
        """TOUR-14: a rebuy's or an add-on's price; False when short."""
        if self.book is None:
            return True
        if not await self.book.buy_chips(self.tid, player, self.buy_in, self.fee, n=n,
                                         why=why):
            return False
        await self._changed(player)
        return True

    async def pay(self, player: str, amount: int, place: int) -> None:
        """TOUR-12: a prize, booked once."""
        if self.book is not None:
            await self.book.pay(self.tid, player, amount, place=place)
            await self._changed(player)

    async def issue(self, player: str, amount: int, key: str) -> None:
        await self.chips.issue(player, amount, key=f"{self.tid}:{key}")

    async def retire_all(self, players: list[str], why: str) -> None:
        """The end (or a cancel): every tournament chip back to its bank (TOUR-02)."""
        for player in players:
            held = await self.chips.refresh(player)
            if held and self.chips.chips is not None:
                await self.chips.chips.retire(player, held, key=f"{self.tid}:{why}:{player}")
