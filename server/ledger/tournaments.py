"""Tournaments in the ledger: the cash side (entries, refunds, rebuys, prizes) and the chip side
(the tournament's own chips: issued, moved between tables, retired).

Rule of this module: a tournament's cash and its chips never mix. Cash moves only between a
player's balance (``player:<id>``), the prize pool (``tourney:<tid>:pool``) and ``house``
(the fee), in keyed batches of :class:`TournamentBook` (TOUR-01, TOUR-12, TOUR-14), so a retry
books nothing twice. The tournament's chips come from ``tchips:<tid>:bank``, wait between
tables in ``tchips:<tid>:<player>`` and sit at a table in the usual table account; they move
only by :class:`TournamentChips` (issue, retire) and :class:`TournamentWallet` (the one wallet
of a tournament's tables: to a table and back, and each hand's result, which has no rake,
house or jackpot line). So the tournament's chips in play, :func:`tournament_chips`, always
equal those issued (:meth:`TournamentChips.total_issued`; TOUR-02), and ``Ledger.total()``
stays exactly zero (every move is a transfer). Account names come from
:mod:`server.ledger.journal`.

The store refuses overdrafts of ``player:`` and ``table:`` accounts only: the pool and the
``tchips:`` accounts are guarded here instead (a balance read and the batch under this
object's lock; a refused move changes nothing), which holds while one process books a
tournament (its director's). A keyed move refused as short is looked up in the journal (by its
reason, which is unique per key) before it is called short: a retry of a move that was applied
(the last payout, which empties the pool) is a success that changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Mapping, Sequence

from server.ledger.journal import (
    HOUSE,
    JOURNAL_PAGE,
    POT,
    SEAT,
    Ledger,
    player_account,
    table_of,
    tchips_account,
    tchips_bank,
    tchips_prefix,
    tournament_of,
    tourney_pool,
)
from server.ledger.store import Entry, Transfer
from server.ledger.wallet import Wallet

__all__ = ["TournamentBook", "TournamentChips", "TournamentWallet", "tournament_chips"]

log = logging.getLogger("server.ledger.tournaments")


def _amount(value: int, what: str) -> int:
    if type(value) is not int or value < 0:
        raise ValueError(f"bad {what} {value!r}")
    return value


def _legs(*legs: tuple[str, str, int, str]) -> list[Transfer]:
    """The transfers of ``legs`` with a positive amount (a zero fee books nothing)."""
    return [Transfer(src, dst, amount, reason) for src, dst, amount, reason in legs
            if amount > 0]


async def _booked(ledger: Ledger, reason: str) -> bool:
    """Whether a journal line has exactly ``reason`` (a keyed move's: unique per key)."""
    since = 0
    while True:
        page = await ledger.store.journal(since, JOURNAL_PAGE)
        if any(e.reason == reason for e in page):
            return True
        if len(page) < JOURNAL_PAGE:
            return False
        since = page[-1].seq


async def _guarded(ledger: Ledger, lock: asyncio.Lock, transfers: Sequence[Transfer], *,
                   key: str, guard: str, note: str | None = None,
                   retried: bool = True) -> bool:
    """Apply ``transfers`` (one keyed batch) unless the unprotected account ``guard`` would go
    negative; False (nothing moved) then, unless ``retried`` and the batch was applied before
    (its first line's reason is in the journal: a retry, True)."""
    need = (sum(t.amount for t in transfers if t.src == guard)
            - sum(t.amount for t in transfers if t.dst == guard))
    async with lock:
        if need > 0 and await ledger.balance(guard) < need:
            return retried and bool(transfers) and await _booked(ledger, transfers[0].reason)
        return (await ledger.apply(transfers, key=key, note=note)).ok


class TournamentBook:
    """Cash side of tournaments (TOUR-01, TOUR-12, TOUR-14): entries and their fees, refunds,
    rebuys and add-ons, and prizes, each one keyed batch (applied once whatever retries)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._lock = asyncio.Lock()

    async def enter(self, tid: str, player: str, buy_in: int, fee: int, *, entry: int) -> bool:
        """Book entry number ``entry`` (1, then 2, ... for re-entries) of ``player``: the
        buy-in from their balance to the pool and the fee to ``house``, atomically; False
        (nothing moved) when the balance is short. A retry of a booked entry returns True
        and moves nothing."""
        return await self._pay_in(tid, player, buy_in, fee, key=f"tourney:{tid}:enter:"
                                  f"{player}:{entry}", why=f"enter {entry}")

    async def refund(self, tid: str, player: str, buy_in: int, fee: int, *, entry: int,
                     why: str) -> None:
        """Give entry ``entry`` back (unregistering, a cancelled tournament: TOUR-01): the
        buy-in from the pool and the fee from ``house`` to the player's balance, once.
        Raises ``ValueError`` (nothing moved) if the pool does not hold the buy-in."""
        await self._pay_back(tid, player, buy_in, fee, key=f"tourney:{tid}:refund:{player}:"
                             f"{entry}", why=f"refund {entry} {why}")

    async def buy_chips(self, tid: str, player: str, buy_in: int, fee: int, *, n: int,
                        why: str) -> bool:
        """The cash of a rebuy or add-on (``why``: ``rebuy``, ``add_on``; ``n``: the player's
        n-th of that kind in this tournament; TOUR-14): as :meth:`enter`. The chips are the
        caller's to issue (:meth:`TournamentChips.issue`) once this returned True."""
        return await self._pay_in(tid, player, buy_in, fee, key=f"tourney:{tid}:{why}:"
                                  f"{player}:{n}", why=f"{why} {n}")

    async def refund_chips(self, tid: str, player: str, buy_in: int, fee: int, *, n: int,
                           why: str) -> None:
        """Give the cash of rebuy or add-on ``n`` back (a cancelled tournament, TOUR-01)."""
        await self._pay_back(tid, player, buy_in, fee, key=f"tourney:{tid}:refund_{why}:"
                             f"{player}:{n}", why=f"refund {why} {n}")

    async def pay(self, tid: str, player: str, amount: int, *, place: int) -> None:
        """Pay ``player``'s prize for ``place`` from the pool (TOUR-12), once (key
        ``tourney:<tid>:pay:<place>:<player>``: players tied for a place each have theirs).
        Raises ``ValueError`` (nothing moved) if the pool holds less than ``amount``."""
        _amount(amount, "prize")
        transfers = _legs((tourney_pool(tid), player_account(player), amount,
                           f"tourney_prize {tid} place {place} {player}"))
        key = f"tourney:{tid}:pay:{place}:{player}"
        if not await _guarded(self.ledger, self._lock, transfers, key=key,
                              guard=tourney_pool(tid), note=None if transfers else key):
            raise ValueError(f"{tid}: the pool holds less than the prize {amount} of place "
                             f"{place}")

    async def pool(self, tid: str) -> int:
        """The prize pool's cash now."""
        return await self.ledger.balance(tourney_pool(tid))

    async def _pay_in(self, tid: str, player: str, buy_in: int, fee: int, *, key: str,
                      why: str) -> bool:
        _amount(buy_in, "buy-in")
        _amount(fee, "fee")
        transfers = _legs(
            (player_account(player), tourney_pool(tid), buy_in, f"tourney_buy_in {tid} {why}"),
            (player_account(player), HOUSE, fee, f"tourney_fee {tid} {why}"))
        note = None if transfers else f"tourney {tid} {why} {player} (free)"
        outcome = await self.ledger.apply(transfers, key=key, note=note)
        return outcome.ok  # (player: is protected: a short balance refuses the batch whole)

    async def _pay_back(self, tid: str, player: str, buy_in: int, fee: int, *, key: str,
                        why: str) -> None:
        _amount(buy_in, "buy-in")
        _amount(fee, "fee")
        transfers = _legs(
            (tourney_pool(tid), player_account(player), buy_in, f"tourney_buy_in {tid} {why}"),
            (HOUSE, player_account(player), fee, f"tourney_fee {tid} {why}"))
        if not await _guarded(self.ledger, self._lock, transfers, key=key,
                              guard=tourney_pool(tid), note=None if transfers else key):
            raise ValueError(f"{tid}: the pool holds less than the refund {buy_in} ({why})")


class TournamentChips:
    """Chip side of tournament ``tid``: issue (each entry's starting stack, each rebuy and
    add-on: TOUR-02), and retire (the winner's chips at the end); moves between tables are
    :class:`TournamentWallet`'s. ``key``s are the caller's, kept apart per tournament and
    per kind (``tchips:<tid>:issue:<key>``, ``tchips:<tid>:retire:<key>``)."""

    def __init__(self, ledger: Ledger, tid: str) -> None:
        self.ledger = ledger
        self.tid = tid
        self.bank = tchips_bank(tid)
        self._lock = asyncio.Lock()

    async def issue(self, player: str, amount: int, *, key: str) -> None:
        """``amount`` new chips from the tournament's bank to the player's chip account,
        once per ``key``."""
        if _amount(amount, "chips") > 0:
            await self.ledger.transfer(self.bank, tchips_account(self.tid, player), amount,
                                       reason=f"tchips_issue {self.tid} {key}",
                                       key=f"tchips:{self.tid}:issue:{key}")

    async def retire(self, player: str, amount: int, *, key: str) -> None:
        """``amount`` of the player's chips (off the tables) back to the bank, once per
        ``key``; raises ``ValueError`` (nothing moved) when the player holds fewer."""
        if _amount(amount, "chips") == 0:
            return
        account = tchips_account(self.tid, player)
        transfers = [Transfer(account, self.bank, amount, f"tchips_retire {self.tid} {key}")]
        if not await _guarded(self.ledger, self._lock, transfers,
                              key=f"tchips:{self.tid}:retire:{key}", guard=account):
            raise ValueError(f"{self.tid}: {player} holds fewer than {amount} chips to retire")

    async def balance(self, player: str) -> int:
        """The player's chips between tables."""
        return await self.ledger.balance(tchips_account(self.tid, player))

    async def total_issued(self) -> int:
        """Every chip issued and not retired (TOUR-02: equals :func:`tournament_chips`)."""
        return -await self.ledger.balance(self.bank)


async def tournament_chips(ledger: Ledger, tid: str) -> int:
    """The chips of tournament ``tid`` in play: every ``tchips:<tid>:<player>`` account and
    every table account (any process, any run) of the tournament's tables. Both stores list
    accounts by prefix (:meth:`Store.balances`; Redis reads the whole balance hash and filters
    it, so this is a check for tests and audits, not for every hand)."""
    bank = tchips_bank(tid)
    off = sum(b for a, b in (await ledger.store.balances(tchips_prefix(tid))).items()
              if a != bank)
    at = sum(b for a, b in (await ledger.store.balances("table:")).items()
             if tournament_of(table_of(a)) == tid)
    return off + at


class TournamentWallet:
    """The :class:`~server.ledger.wallet.Wallet` of tournament ``tid``'s tables, over the
    server's wallet ``inner`` (as :class:`server.table.practice.PracticeWallet`): buy-ins come
    from the player's chip account ``tchips:<tid>:<player>`` and cash-outs go back to it;
    ``balance`` is that account (this process's view, refreshed on each move it makes).
    With an in-memory ``inner`` (no ``ledger``: the table tests' ``MemoryWallet``) the chips
    are kept here, per player, and issued by :meth:`issue`. A tournament table never
    touches a cash balance (``debit``/``credit`` raise) and its hands have no rake, house or
    jackpot line (``hand_result`` raises ``ValueError`` on one)."""

    def __init__(self, inner: Wallet, tid: str) -> None:
        self.inner = inner
        self.tid = tid
        tchips_bank(tid)  # (a bad id is refused here)
        ledger = getattr(inner, "ledger", None)
        self.ledger: Ledger | None = ledger if isinstance(ledger, Ledger) else None
        self.chips = TournamentChips(self.ledger, tid) if self.ledger is not None else None
        self._seen: dict[str, int] = {}
        self._issued: set[str] = set()  # the keys issued (in memory only)
        self._lock = asyncio.Lock()

    def _table(self, table: str) -> str:
        if tournament_of(table) != self.tid:
            raise ValueError(f"{table!r} is not a table of tournament {self.tid}")
        return table

    def balance(self, player_id: str) -> int:
        return self._seen.get(player_id, 0)

    def ensure(self, player_id: str, starting: int) -> int:
        return self.balance(player_id)  # (chips are issued, never opened: see issue)

    async def refresh(self, player_id: str) -> int:
        """Read the player's chips between tables from the ledger (and remember them)."""
        if self.ledger is not None:
            self._seen[player_id] = await self.ledger.balance(tchips_account(self.tid,
                                                                             player_id))
        return self.balance(player_id)

    async def issue(self, player_id: str, amount: int, *, key: str) -> None:
        """New chips to the player (:meth:`TournamentChips.issue`, or in memory), once per
        ``key``."""
        if self.chips is not None:
            await self.chips.issue(player_id, amount, key=key)
            await self.refresh(player_id)
        elif key not in self._issued:
            _amount(amount, "chips")
            self._issued.add(key)
            self._seen[player_id] = self.balance(player_id) + amount

    async def debit(self, player_id: str, amount: int, reason: str) -> bool:
        raise RuntimeError("a tournament table never touches a cash balance")

    async def credit(self, player_id: str, amount: int, reason: str) -> None:
        raise RuntimeError("a tournament table never touches a cash balance")

    async def buy_in(self, player_id: str, table: str, amount: int, *, reason: str) -> bool:
        """The player's chips between tables to ``table``; False (nothing moved) when they
        hold fewer than ``amount``."""
        _amount(amount, "buy-in")
        self._table(table)
        if amount == 0:
            return True
        if self.ledger is None:
            async with self._lock:
                if self.balance(player_id) < amount:
                    return False
                self._seen[player_id] = self.balance(player_id) - amount
                return True
        account = tchips_account(self.tid, player_id)
        ok = await _guarded(self.ledger, self._lock, [Transfer(
            account, self.ledger.table_account(table, player_id), amount,
            f"tchips {reason}")], key=f"move:{secrets.token_hex(12)}", guard=account,
            retried=False)
        await self.refresh(player_id)
        return ok

    async def cash_out(self, player_id: str, table: str, amount: int, *, reason: str) -> None:
        """The player's chips at ``table`` (``amount``) back to their chip account."""
        _amount(amount, "cash-out")
        self._table(table)
        if amount == 0:
            return
        if self.ledger is None:
            self._seen[player_id] = self.balance(player_id) + amount
            return
        ok = await self.ledger.transfer(
            self.ledger.table_account(table, player_id), tchips_account(self.tid, player_id),
            amount, reason=f"tchips {reason}", key=f"move:{secrets.token_hex(12)}")
        if not ok:
            log.error("event=tournament_cash_out_short table=%s player=%s amount=%d", table,
                      player_id, amount)
        await self.refresh(player_id)

    async def hand_started(self, table: str, hand_id: str, stacks: Mapping[str, int]) -> None:
        await self.inner.hand_started(self._table(table), hand_id, stacks)

    async def hand_result(self, table: str, hand_id: str, entries: Sequence[Transfer]) -> None:
        """The hand's entries (seats and pot only) to ``inner``; ``ValueError`` (nothing
        booked) if one names any other account (rake, house, jackpot: none at a
        tournament table)."""
        for e in entries:
            for name in (e.src, e.dst):
                if name != POT and not name.startswith(SEAT):
                    raise ValueError(f"a tournament hand may not book to {name!r}")
        await self.inner.hand_result(self._table(table), hand_id, entries)

    async def hand_voided(self, table: str, hand_id: str, *, reason: str) -> None:
        await self.inner.hand_voided(self._table(table), hand_id, reason=reason)

    async def table_entries(self, table: str) -> list[Entry]:
        return await self.inner.table_entries(self._table(table))
