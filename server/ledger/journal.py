"""The double-entry chip ledger over a :class:`~server.ledger.store.Store`.

Rule of this module: chips move only by :meth:`Ledger.transfer` or :meth:`Ledger.apply`
(each a batch of transfers applied atomically by the store), so the sum over all accounts is
always exactly zero (:meth:`Ledger.total`). Account names are built here and nowhere else:

* ``player:<id>``: a player's chips off the tables;
* ``table:<node>:<run>:<table>:<id>``: that player's chips at a table of server process
  ``node`` (run ``run`` of it); ``...:<table>:pot``: the table's pot during one batch;
* ``bank`` (issues starting balances), ``house`` (Caribbean house results), ``rake``,
  ``jackpot:pool`` / ``jackpot:minor`` / ``jackpot:house`` (the progressive jackpot);
* ``practice``: the play money of practice tables (issue 24). A practice table's id starts
  with ``p`` (:func:`is_practice_table`); its buy-ins come from this account and its
  cash-outs, house results and any rake go back to it, never to a player's balance, the
  house, the rake or the jackpot (:class:`server.table.practice.PracticeWallet`); the
  clean-ups here (:meth:`Ledger.recover`, a takeover's) return its chips to it too
  (:func:`home_account`).
* tournaments (TOUR-01, TOUR-02; :mod:`server.ledger.tournaments`): a tournament's id is
  ``T<n>-<8 of [a-z0-9]>``, its tables ``<tournament id>.<k>`` (:func:`is_tournament_table`,
  :func:`tournament_of`). Cash side: ``tourney:<tid>:pool`` (the prize pool; the fee goes to
  ``house``). Chip side, never mixed with cash: ``tchips:<tid>:bank`` issues the tournament's
  chips, ``tchips:<tid>:<player>`` holds a player's chips between tables; at a table they sit
  in the usual table account, and the clean-ups here return them to ``tchips:<tid>:<player>``
  (:func:`home_account`), never to a cash balance.

Hand boundaries (crash safety): :meth:`Ledger.hand_started` durably marks a hand as running
(with each player's stack) before its first card; :meth:`Ledger.hand_result` applies the hand's
entries and removes the mark in one batch (key ``hand:<node>:<run>:<hand>``, so a retry applies
once). Between the two, chips stay in the players' table accounts. :meth:`Ledger.recover`,
called once at start-up before any table exists, voids every hand of this node still marked
(a ``void`` journal record per hand; nothing of it was ever applied, so each player's chips
are exactly what they were before it) and then cashes every table account of this node out to
its player, because tables are not restored across restarts.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from server.ledger.lease import Lease, NodeInUse, StaleLease
from server.ledger.store import Batch, Entry, HandMark, Outcome, Store, Transfer, is_checked

__all__ = ["BANK", "HOUSE", "JACKPOT_POOL", "PRACTICE", "RAKE", "Ledger", "NodeInUse",
           "Recovery", "StaleLease", "hand_entries", "home_account", "is_practice_table",
           "is_tournament_id", "is_tournament_table", "player_account", "table_of",
           "tchips_account", "tchips_bank", "tchips_prefix", "tournament_of", "tourney_pool"]

log = logging.getLogger("server.ledger")

BANK = "bank"
HOUSE = "house"
RAKE = "rake"
JACKPOT_POOL = "jackpot:pool"
JACKPOT_MINOR = "jackpot:minor"
JACKPOT_HOUSE = "jackpot:house"
PRACTICE = "practice"

SEAT = "seat:"
"""In :meth:`Ledger.hand_result` entries, ``seat:<player>`` names that player's chips at the
table and ``pot`` the table's pot; any other name must be a system account."""
POT = "pot"

JOURNAL_PAGE = 1000
"""Journal rows read per store call when following a table's lines."""

RETRY_FOR = 10.0
"""Seconds a keyed batch whose store connection failed is tried again (then the error is
raised): long enough to ride out a Redis restart or a Sentinel failover (down-after plus the
election, ~2.3 s with a 1 s down-after), so a table waits for its hand's batch rather than
crash and void the hand."""
RETRY_BACKOFF = (0.05, 0.1, 0.2, 0.5)
"""Seconds before the n-th retry (the last one repeats)."""


def table_of(account: str) -> str | None:
    """The table of a table account (``table:<node>:<run>:<table>:<id>``, any node and run;
    neither holds a ``:``), None for any other account."""
    if not account.startswith("table:"):
        return None
    parts = account.split(":", 4)
    return parts[3] if len(parts) == 5 else None


def player_account(player_id: str) -> str:
    return f"player:{player_id}"


def is_practice_table(table: str | None) -> bool:
    """Whether ``table`` is a practice table's id (``p<number>-<random>``; issue 24)."""
    return table is not None and table.startswith("p")


_TOURNAMENT_ID = re.compile(r"T[0-9]+-[a-z0-9]{8}")
_TOURNAMENT_TABLE = re.compile(r"(T[0-9]+-[a-z0-9]{8})\.[1-9][0-9]*")


def is_tournament_id(tid: str | None) -> bool:
    """Whether ``tid`` is a tournament's id (``T<n>-<8 of [a-z0-9]>``)."""
    return tid is not None and _TOURNAMENT_ID.fullmatch(tid) is not None


def is_tournament_table(table: str | None) -> bool:
    """Whether ``table`` is a tournament's table (``<tournament id>.<k>``, k from 1)."""
    return table is not None and _TOURNAMENT_TABLE.fullmatch(table) is not None


def tournament_of(table: str | None) -> str | None:
    """The tournament id of a tournament table, None for any other table."""
    m = _TOURNAMENT_TABLE.fullmatch(table) if table is not None else None
    return m.group(1) if m else None


def _tid(tid: str) -> str:
    if not is_tournament_id(tid):
        raise ValueError(f"not a tournament id: {tid!r}")
    return tid


def tourney_pool(tid: str) -> str:
    """The prize pool of tournament ``tid`` (cash chips: buy-ins, rebuys, add-ons)."""
    return f"tourney:{_tid(tid)}:pool"


def tchips_bank(tid: str) -> str:
    """The account that issues tournament ``tid``'s chips (negative: minus those issued)."""
    return f"tchips:{_tid(tid)}:bank"


def tchips_prefix(tid: str) -> str:
    """The prefix of every chip account of tournament ``tid`` off the tables (and its bank)."""
    return f"tchips:{_tid(tid)}:"


def tchips_account(tid: str, player_id: str) -> str:
    """A player's chips of tournament ``tid`` between tables."""
    if not player_id or ":" in player_id or player_id == "bank":
        raise ValueError(f"bad player id for a tournament chip account: {player_id!r}")
    return f"tchips:{_tid(tid)}:{player_id}"


def home_account(table: str | None, player_id: str) -> str:
    """Where a player's chips at ``table`` go when the table is cleaned up: their balance,
    the ``practice`` account for a practice table's play money, or the player's chip
    account of the tournament for a tournament table's chips (never cash)."""
    tid = tournament_of(table)
    if tid is not None:
        return tchips_account(tid, player_id)
    return PRACTICE if is_practice_table(table) else player_account(player_id)


def hand_entries(start: Mapping[str, int], end: Mapping[str, int], *, rake: int = 0,
                 house_net: int = 0, jackpot_in: int = 0, jackpot_out: int = 0
                 ) -> list[Transfer]:
    """The transfers of one hand, from each player's stack before and after it.

    Players who lost put chips in the pot (``bet``), the pot pays the rake (``rake``), the
    house's net result (``house_win`` or ``house_pay``), the jackpot wagers (``jackpot_wager``)
    and receives the jackpot payouts (``jackpot_payout``); then it awards the winners
    (``pot_award``). Raises ``ValueError`` if the pot does not come out at exactly zero.
    """
    if set(start) != set(end):
        raise ValueError("a hand's players changed between its start and its end")
    out: list[Transfer] = []
    pot = 0
    for pid in sorted(start):
        loss = start[pid] - end[pid]
        if loss > 0:
            out.append(Transfer(SEAT + pid, POT, loss, "bet"))
            pot += loss
    if jackpot_out > 0:
        out.append(Transfer(JACKPOT_POOL, POT, jackpot_out, "jackpot_payout"))
        pot += jackpot_out
    if house_net < 0:
        out.append(Transfer(HOUSE, POT, -house_net, "house_pay"))
        pot -= house_net
    for account, amount, reason in ((RAKE, rake, "rake"), (JACKPOT_POOL, jackpot_in,
                                    "jackpot_wager"), (HOUSE, max(house_net, 0), "house_win")):
        if amount > 0:
            out.append(Transfer(POT, account, amount, reason))
            pot -= amount
    for pid in sorted(start):
        gain = end[pid] - start[pid]
        if gain > 0:
            out.append(Transfer(POT, SEAT + pid, gain, "pot_award"))
            pot -= gain
    if pot != 0:
        raise ValueError(f"the hand's chips do not balance: {pot} left in the pot")
    return out


@dataclass(frozen=True, slots=True)
class Recovery:
    """What :meth:`Ledger.recover` did: hands voided, players cashed out, chips returned."""

    voided: list[str]
    cashed_out: dict[str, int]


@dataclass
class _Attached:
    """What another component adds to one hand's result batch (see :meth:`Ledger.attach`)."""

    transfers: list[Transfer] = field(default_factory=list)
    outbox: list[tuple[str, str]] = field(default_factory=list)
    then: list[Callable[[], None]] = field(default_factory=list)


class Ledger:
    """The chip ledger of one server process (``node``; see the module docstring)."""

    def __init__(self, store: Store, *, node: str = "local", run: str | None = None) -> None:
        if ":" in node or (run is not None and ":" in run):
            raise ValueError("node and run must not contain ':'")
        self.store = store
        self.node = node
        self.run = run if run is not None else secrets.token_hex(4)
        self.lease = Lease(store, self.node, self.run)
        """This process's one lease (:mod:`server.ledger.lease`): its liveness in the room
        and the fencing token every batch of this ledger carries once claimed."""
        self._attached: dict[tuple[str, str], _Attached] = {}
        self._followed: dict[str, tuple[list[Entry], int]] = {}  # table_entries: lines, seq

    # ------------------------------------------------------------------ the node
    async def claim_node(self, seconds: float) -> None:
        """Become the one live process of ``node`` before :meth:`recover` (whose clean-up
        would otherwise take the chips of a live process's tables): see
        :meth:`Lease.claim` (:class:`NodeInUse` when another live run holds it)."""
        await self.lease.claim(seconds)

    async def release_node(self) -> None:
        """Stop renewing and give the node's lease up (a restart need not wait for it)."""
        await self.lease.release()

    # ------------------------------------------------------------------ accounts
    def table_account(self, table: str, player_id: str) -> str:
        return f"table:{self.node}:{self.run}:{table}:{player_id}"

    def pot_account(self, table: str) -> str:
        return f"table:{self.node}:{self.run}:{table}:{POT}"

    async def table_entries(self, table: str) -> list[Entry]:
        """Every journal line touching ``table``'s accounts, in order, whichever process
        run wrote them: a table that changed process (a live move, a failover) has accounts
        under each ``<node>:<run>`` that held it, and its lines are found by the table id.
        The first call for a table reads the journal from its start; later calls read only
        what is new (the tables asked for are followed, their lines kept in memory)."""
        lines, since = self._followed.get(table, ([], 0))
        while True:
            page = await self.store.journal(since, JOURNAL_PAGE)
            lines.extend(e for e in page
                         if table_of(e.src) == table or table_of(e.dst) == table)
            if page:
                since = page[-1].seq
            if len(page) < JOURNAL_PAGE:
                break
        self._followed[table] = (lines, since)
        return list(lines)

    def unfollow(self, table: str) -> None:
        """``table`` closed: its lines are no longer kept."""
        self._followed.pop(table, None)

    def _hand_ref(self, hand_id: str) -> str:
        return f"{self.node}:{self.run}:{hand_id}"

    # ------------------------------------------------------------------ moves
    async def apply(self, transfers: Sequence[Transfer], *, key: str | None = None,
                    note: str | None = None) -> Outcome:
        """Apply ``transfers`` as one atomic batch (see :meth:`Store.apply`)."""
        return await self._apply(Batch(tuple(transfers), key=key, note=note))

    async def _apply(self, batch: Batch) -> Outcome:
        """``store.apply`` with this process's fencing token (:class:`StaleLease`, and the
        lease lost, when the store refuses it as stale), retried when the store's connection
        failed and the batch has an idempotency key (a retry of a batch that was applied
        after all changes nothing), for up to :data:`RETRY_FOR` seconds."""
        fence = self.lease.fence()  # (StaleLease once lost: nothing is written any more)
        if fence is not None:
            batch = dataclasses.replace(batch, fence=fence)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RETRY_FOR
        for attempt in itertools.count():
            try:
                outcome = await self.store.apply(batch)
                if outcome is Outcome.STALE:
                    raise self.lease.refused(StaleLease(
                        f"batch {batch.key or batch.note or ''} refused: token {fence}"))
                return outcome
            except ConnectionError:
                if batch.key is None or loop.time() >= deadline:
                    raise
                log.warning("event=ledger_retry key=%s attempt=%d", batch.key, attempt + 1)
                pause = RETRY_BACKOFF[min(attempt, len(RETRY_BACKOFF) - 1)]
                await asyncio.sleep(pause)  # a back-off, not a wait for an event
        raise AssertionError("unreachable")

    async def transfer(self, src: str, dst: str, amount: int, *, reason: str,
                       key: str | None = None) -> bool:
        """Move ``amount`` chips; False (nothing moved) when ``src`` is a protected account
        that is short. With ``key``, a second call with the same key changes nothing and
        returns True (the first one was applied)."""
        outcome = await self.apply([Transfer(src, dst, amount, reason)], key=key)
        return outcome.ok

    async def balance(self, account: str) -> int:
        return await self.store.balance(account)

    async def total(self) -> int:
        """The sum over every account: always 0."""
        return sum((await self.store.balances()).values())

    async def open_player(self, player_id: str, starting: int) -> int:
        """Give a new player ``starting`` chips from the bank (once per player, whatever
        retries happen); return the balance."""
        if starting > 0:
            await self.transfer(BANK, player_account(player_id), starting, reason="open",
                                key=f"open:{player_id}")
        return await self.balance(player_account(player_id))

    async def buy_in(self, player_id: str, table: str, amount: int, *, reason: str) -> bool:
        """Player's chips to the table, atomically; False when the balance is short."""
        if amount == 0:
            return True
        return await self.transfer(player_account(player_id),
                                   self.table_account(table, player_id), amount, reason=reason,
                                   key=f"move:{secrets.token_hex(12)}")

    async def cash_out(self, player_id: str, table: str, amount: int, *, reason: str) -> bool:
        """The player's table chips (``amount``) back to their balance."""
        if amount == 0:
            return True
        ok = await self.transfer(self.table_account(table, player_id),
                                 player_account(player_id), amount, reason=reason,
                                 key=f"move:{secrets.token_hex(12)}")
        if not ok:
            log.error("event=cash_out_short table=%s player=%s amount=%d", table, player_id,
                      amount)
        return ok

    # ------------------------------------------------------------------ hands
    async def hand_started(self, table: str, hand_id: str, stacks: Mapping[str, int]) -> None:
        """Record durably that ``hand_id`` runs with these players' stacks (before any card)."""
        mark = HandMark(self._hand_ref(hand_id), f"{self.node}:{self.run}:{table}",
                        dict(stacks))
        await self._apply(Batch(open_hand=mark, note=f"hand_started {mark.hand}",
                                key=f"start:{mark.hand}"))

    def attach(self, table: str, hand_id: str, *, transfers: Sequence[Transfer] = (),
               outbox: Sequence[tuple[str, str]] = (),
               then: Callable[[], None] | None = None) -> None:
        """Add to the coming :meth:`hand_result` batch of ``hand_id`` at ``table``: system
        account ``transfers`` and ``outbox`` records (applied atomically with the hand, or
        not at all), and ``then``, called once that batch is durable (a voided hand drops
        all of it).  The jackpot uses this so that a round's report is durable exactly
        when its wagers are (CSP-12)."""
        a = self._attached.setdefault((table, hand_id), _Attached())
        a.transfers.extend(transfers)
        a.outbox.extend(outbox)
        if then is not None:
            a.then.append(then)

    async def hand_result(self, table: str, hand_id: str, entries: Sequence[Transfer]) -> None:
        """Apply a hand's ``entries`` (from :func:`hand_entries`; ``seat:<player>`` and
        ``pot`` are this table's accounts) and what was attached to it (:meth:`attach`) and
        end the hand, in one atomic batch."""
        ref = self._hand_ref(hand_id)
        extra = self._attached.pop((table, hand_id), None) or _Attached()
        transfers = [Transfer(self._resolve(table, t.src), self._resolve(table, t.dst),
                              t.amount, f"{t.reason} {ref}")
                     for t in (*entries, *extra.transfers)]
        try:
            outcome = await self._apply(Batch(tuple(transfers), key=f"hand:{ref}",
                                              note=f"hand_ended {ref}", close_hand=ref,
                                              outbox=tuple(extra.outbox)))
        except BaseException:
            if extra.transfers or extra.outbox or extra.then:  # kept for a retry
                self._attached[(table, hand_id)] = extra
            raise
        if outcome is Outcome.INSUFFICIENT:
            raise RuntimeError(f"hand {ref}: the ledger refused its result (a table account "
                               "would go negative)")
        for fn in extra.then:
            try:
                fn()
            except Exception:
                log.exception("event=hand_result_callback_failed hand=%s", ref)

    async def outbox(self, prefix: str = "") -> list[tuple[str, str]]:
        """The store's outbox records under ``prefix`` (see :meth:`attach`)."""
        return await self.store.outbox_list(prefix)

    async def outbox_done(self, key: str) -> None:
        """The outbox record ``key`` has been acted on: remove it."""
        await self.store.outbox_delete(key)

    async def hand_voided(self, table: str, hand_id: str, *, reason: str) -> None:
        """A table voided ``hand_id`` in this process (a bug caught, or a shutdown deadline):
        nothing of it was applied, so only its ``void`` record and the end of its mark."""
        self._attached.pop((table, hand_id), None)
        ref = self._hand_ref(hand_id)
        await self._apply(Batch(key=f"void:{ref}", close_hand=ref,
                                note=f"void {ref} ({reason[:120]})"))

    def _resolve(self, table: str, name: str) -> str:
        if name == POT:
            return self.pot_account(table)
        if name.startswith(SEAT):
            return self.table_account(table, name[len(SEAT):])
        if is_checked(name):
            raise ValueError(f"hand entries may not name {name!r} directly")
        return name

    async def recover(self) -> Recovery:
        """At start-up, before any table (and after :meth:`claim_node` when processes share
        the store): void this node's unfinished hands and cash every table account of this
        node out to its player (see the module docstring)."""
        voided = []
        mine = f"{self.node}:"
        for mark in await self.store.open_hands():
            if not mark.hand.startswith(mine):
                continue
            await self._apply(Batch(key=f"void:{mark.hand}", close_hand=mark.hand,
                                    note=f"void {mark.hand} (server restarted mid-hand)"))
            voided.append(mark.hand)
            log.warning("event=hand_voided_on_restart hand=%s", mark.hand)
        cashed: dict[str, int] = {}
        prefix = f"table:{self.node}:"
        for account, amount in sorted((await self.store.balances(prefix)).items()):
            if amount <= 0:
                continue
            player_id = account.rsplit(":", 1)[1]
            if player_id == POT:
                raise RuntimeError(f"{account} holds {amount} chips outside a batch")
            home = home_account(table_of(account), player_id)
            ok = await self.transfer(account, home, amount, reason="cash_out restart")
            if ok and home != PRACTICE:  # (play money goes back to `practice`: no player's)
                cashed[player_id] = cashed.get(player_id, 0) + amount
        if voided or cashed:
            log.info("event=ledger_recovered voided=%d cashed_out=%d", len(voided), len(cashed))
        return Recovery(voided, cashed)
