"""Practice tables against bots (issue 24): play money, bots marked, one player's table.

Rule of this module: a practice table's chips are play money from the ledger's ``practice``
account and go back to it, whatever happens: :class:`PracticeWallet` is the only wallet such
a table has, so no chip of a practice table ever comes from or reaches a player's balance,
the house, the rake or the jackpot, and the ledger still sums to zero (every move is a
transfer). The player's real balance never moves, so no ``balance`` push tells of practice
chips.

* The table (``create_table`` with ``practice``) is a private table of its creator with
  its id ``p<n>-<random>`` (:func:`practice_table_id`; the ledger's
  :func:`~server.ledger.journal.is_practice_table` tells its accounts apart): unlisted,
  and nobody but the creator and its bots is admitted (the invite code stays the server's:
  the creator is the host, seats need no approval). No rake (GEN-09 does not apply to play
  money); at Caribbean Stud no jackpot wager (``limit_exceeded``): the shared progressive
  jackpot is never touched.
* Bots (``b_`` ids, :func:`server.ledger.accounts.is_bot_id`) are marked ``bot: true`` in
  ``seated`` and the snapshot's seat entries. They play through the server's own WebSocket
  (``server.main`` runs them, :mod:`server.loadtest.practice`).
* A hand starts only while a person is seated and not sitting out (:func:`has_person`);
  the table closes when its person leaves (``table_closed``, ``reason: "practice"``), or
  after ``Config.idle_table_close`` with no person playing (never sat, or sitting out).
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from collections.abc import Mapping, Sequence

from server.ledger.accounts import is_bot_id
from server.ledger.journal import (
    HOUSE,
    JACKPOT_HOUSE,
    JACKPOT_MINOR,
    JACKPOT_POOL,
    PRACTICE,
    RAKE,
    Ledger,
)
from server.ledger.store import Entry, Transfer
from server.ledger.wallet import Wallet
from server.table.ports import HasSeats
from server.table.settings import PotSpec, TableSpec

__all__ = ["BOT_NAMES", "PracticeWallet", "has_person", "practice_spec", "practice_table_id"]

log = logging.getLogger("server.table.practice")

BOT_NAMES = ("Bot Ada", "Bot Babbage", "Bot Curie", "Bot Dijkstra", "Bot Euler",
             "Bot Fermat", "Bot Gauss", "Bot Hopper", "Bot Irene")
"""The bots' names, in seat order (at most nine bots: ten seats)."""

_SYSTEM = frozenset({HOUSE, RAKE, JACKPOT_POOL, JACKPOT_MINOR, JACKPOT_HOUSE})


def practice_table_id(number: int) -> str:
    """A practice table's id: ``p<number>-<12 random characters>`` (not guessable, as a
    private table's)."""
    return f"p{number}-{secrets.token_urlsafe(9)}"


def practice_spec(spec: TableSpec) -> TableSpec:
    """The spec of a practice table: private (unlisted, admission by the server's code),
    seats without approval, no rake, ``practice: true`` in its settings (the page's mark)."""
    out: TableSpec = dataclasses.replace(
        spec, private=True, approve_seats=False,
        settings_wire={**spec.settings_wire, "practice": True})
    if isinstance(out, PotSpec):
        out = dataclasses.replace(out, rules=dataclasses.replace(out.rules, rake_bp=0,
                                                                 rake_cap=0))
    return out


def has_person(t: HasSeats, *, playing: bool = False) -> bool:
    """Whether a person (not a bot) is seated (``playing``: and not sitting out)."""
    return any(not is_bot_id(st.player_id) and not (playing and st.sitting_out)
               for _, st in t.seats.occupied())


class PracticeWallet:
    """The wallet of one practice table (see the module docstring) over the server's
    wallet ``inner``: buy-ins and rebuys come from the ``practice`` account (never short),
    cash-outs go back to it, and a hand's house, rake and jackpot lines are booked to it.
    With an in-memory ``inner`` (the table tests' :class:`MemoryWallet`, no ledger) the
    play money is not booked at all."""

    def __init__(self, inner: Wallet) -> None:
        self.inner = inner
        ledger = getattr(inner, "ledger", None)
        self.ledger: Ledger | None = ledger if isinstance(ledger, Ledger) else None

    def balance(self, player_id: str) -> int:
        return 0  # play money: nobody's balance is ever used here

    def ensure(self, player_id: str, starting: int) -> int:
        return 0

    async def debit(self, player_id: str, amount: int, reason: str) -> bool:
        raise RuntimeError("a practice table never touches a balance")

    async def credit(self, player_id: str, amount: int, reason: str) -> None:
        raise RuntimeError("a practice table never touches a balance")

    async def buy_in(self, player_id: str, table: str, amount: int, *, reason: str) -> bool:
        if type(amount) is not int or amount < 0:
            raise ValueError(f"bad buy-in amount {amount!r}")
        if self.ledger is not None and amount > 0:
            return await self.ledger.transfer(
                PRACTICE, self.ledger.table_account(table, player_id), amount,
                reason=f"practice {reason}", key=f"move:{secrets.token_hex(12)}")
        return True

    async def cash_out(self, player_id: str, table: str, amount: int, *, reason: str) -> None:
        if type(amount) is not int or amount < 0:
            raise ValueError(f"bad cash-out amount {amount!r}")
        if self.ledger is not None and amount > 0:
            ok = await self.ledger.transfer(
                self.ledger.table_account(table, player_id), PRACTICE, amount,
                reason=f"practice {reason}", key=f"move:{secrets.token_hex(12)}")
            if not ok:
                log.error("event=practice_cash_out_short table=%s player=%s amount=%d",
                          table, player_id, amount)

    async def hand_started(self, table: str, hand_id: str, stacks: Mapping[str, int]) -> None:
        await self.inner.hand_started(table, hand_id, stacks)

    async def hand_result(self, table: str, hand_id: str, entries: Sequence[Transfer]) -> None:
        def own(name: str) -> str:
            return PRACTICE if name in _SYSTEM else name
        await self.inner.hand_result(table, hand_id, [
            Transfer(own(e.src), own(e.dst), e.amount, e.reason) for e in entries])

    async def hand_voided(self, table: str, hand_id: str, *, reason: str) -> None:
        await self.inner.hand_voided(table, hand_id, reason=reason)

    async def table_entries(self, table: str) -> list[Entry]:
        return await self.inner.table_entries(table)
