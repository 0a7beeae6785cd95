"""Chips of a table that changes process (issue 17): the ledger's side of a live move and
of a failover.

Rule of this module: a table's chips move from the accounts of the process that had it
(``table:<node>:<run>:<table>:<player>``) to the taking process's own accounts in ONE keyed
batch (:meth:`~server.ledger.journal.Ledger.apply`; key ``adopt:<node>:<run>:<table>``, so a
retry moves nothing twice), and the amounts are the ledger's balances, never a number the
other process sent: whatever happened before, nothing is created or lost. A player with chips
there but no seat at the reopened table is cashed out to their own account in that same
batch. Before a failover takes a dead process's tables, :func:`void_hands_of` voids every
hand it left running (their chips never left the players' table accounts, so the balances are
the stacks from before those hands), exactly as that process's own restart would
(:meth:`~server.ledger.journal.Ledger.recover`); the dead process's lease (held by the
survivor meanwhile, which bumped its fencing token: :mod:`server.ledger.lease`) keeps a
restart of it out until this is done, and refuses any late batch of it.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from server.ledger.journal import POT, PRACTICE, Ledger, home_account, table_of
from server.ledger.store import Batch, Transfer

__all__ = ["cash_out_rest", "take_table", "void_hands_of"]

log = logging.getLogger("server.ledger")


async def void_hands_of(ledger: Ledger, node: str) -> list[str]:
    """Void every hand ``node`` (any run of it) left marked running; their ids."""
    voided = []
    mine = f"{node}:"
    for mark in await ledger.store.open_hands():
        if not mark.hand.startswith(mine):
            continue
        await ledger._apply(Batch(key=f"void:{mark.hand}", close_hand=mark.hand,
                                  note=f"void {mark.hand} (its server was lost)"))
        voided.append(mark.hand)
        log.warning("event=hand_voided_on_takeover hand=%s", mark.hand)
    return voided


async def take_table(ledger: Ledger, table: str, node: str, run: str,
                     seated: Collection[str]) -> dict[str, int]:
    """Move ``table``'s chips from ``node``/``run``'s accounts to this ledger's: each of
    ``seated`` keeps their balance at the table (returned: player -> stack), anyone else
    with chips there is cashed out. One keyed batch."""
    prefix = f"table:{node}:{run}:{table}:"
    balances = await ledger.store.balances(prefix)
    moves: list[Transfer] = []
    stacks: dict[str, int] = {}
    for account, amount in sorted(balances.items()):
        player = account[len(prefix):]
        if amount <= 0:
            continue
        if player == POT:
            raise RuntimeError(f"{account} holds {amount} chips outside a batch")
        if player in seated:
            moves.append(Transfer(account, ledger.table_account(table, player), amount,
                                  f"table_moved {table} from {node}"))
            stacks[player] = amount
        else:
            moves.append(Transfer(account, home_account(table, player), amount,
                                  f"cash_out {table} (not seated after the move)"))
    if moves:
        outcome = await ledger.apply(moves, key=f"adopt:{node}:{run}:{table}",
                                     note=f"{table} taken over by {ledger.node}")
        if not outcome.ok:  # the balances changed under us: nobody else may write them
            raise RuntimeError(f"taking over {table} from {node}:{run} was refused")
    return stacks


async def cash_out_rest(ledger: Ledger, node: str) -> dict[str, int]:
    """After the failover took ``node``'s tables: any chips still in its table accounts
    (a table that was not in the directory) go back to their players (player -> chips)."""
    cashed: dict[str, int] = {}
    for account, amount in sorted((await ledger.store.balances(f"table:{node}:")).items()):
        if amount <= 0:
            continue
        player = account.rsplit(":", 1)[1]
        if player == POT:
            raise RuntimeError(f"{account} holds {amount} chips outside a batch")
        home = home_account(table_of(account), player)
        if await ledger.transfer(account, home, amount,
                                 reason=f"cash_out takeover of {node}") and home != PRACTICE:
            cashed[player] = cashed.get(player, 0) + amount
    return cashed
