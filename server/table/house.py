"""The house's policy (GEN-09, GEN-10, CSP-13) as the tables use it.

Rule of this module: the jackpot terms of every Caribbean Stud table and the bounds of every
table's rake come from the operator's :class:`~server.config.Config` (its ``house policy``
section) through these functions, never from a ``create_table`` request. A creator chooses
only the ante limits of a Caribbean table (and its dealing mode, CSP-10, which decides only
the order of claims within one round), and a rake within the operator's bounds.
"""

from __future__ import annotations

from typing import Any

from server.config import Config
from server.rules.caribbean_payout import CaribbeanSettings, JackpotSchedule

__all__ = ["jackpot_terms", "lobby_terms"]


def jackpot_terms(config: Config, **table: Any) -> CaribbeanSettings:
    """The Caribbean settings of a table: the operator's jackpot terms (wager, paytable,
    reset amounts, royal flush minimum, shares, split, pool ceiling) plus the table's own
    ``ante_min``, ``ante_max`` and ``dealing_mode`` when given (raises ValueError/TypeError
    on bad ones)."""
    royal, straight, quads, full, flush = config.jackpot_paytable
    return CaribbeanSettings(
        jackpot_wager=config.jackpot_wager,
        jackpot=JackpotSchedule(royal_flush_bp=royal, straight_flush_bp=straight,
                                four_of_a_kind=quads, full_house=full, flush=flush),
        pool_share_bp=config.jackpot_pool_share_bp,
        reset_amount=config.jackpot_reset,
        royal_minimum=config.jackpot_royal_minimum,
        split_pools=config.jackpot_split,
        minor_share_bp=config.jackpot_minor_share_bp,
        major_share_bp=config.jackpot_major_share_bp,
        minor_reset_amount=config.jackpot_minor_reset,
        max_pool=config.max_pool,
        **table,
    )


def lobby_terms(config: Config) -> dict[str, Any]:
    """The jackpot terms every Caribbean lobby entry shows (GEN-10): the wager, the paytable
    (royal and straight flush in basis points of the pool, the others in chips), the reset
    amount (and the minor pool's when split), the royal flush minimum (``royal_min``, CSP-09)
    and the pool's share of a wager."""
    royal, straight, quads, full, flush = config.jackpot_paytable
    terms: dict[str, Any] = {
        "wager": config.jackpot_wager,
        "paytable": {"royal_flush_bp": royal, "straight_flush_bp": straight,
                     "four_of_a_kind": quads, "full_house": full, "flush": flush},
        "reset": config.jackpot_reset,
        "royal_min": config.jackpot_royal_minimum,
        "share_bp": config.jackpot_pool_share_bp,
    }
    if config.jackpot_split:
        terms.update(minor_reset=config.jackpot_minor_reset,
                     minor_share_bp=config.jackpot_minor_share_bp,
                     major_share_bp=config.jackpot_major_share_bp)
    return terms
