"""Betting structures and stakes (BET-05 .. BET-10, ALLIN-01).

:class:`Stakes` holds what a structure needs; :func:`raise_bounds` answers,
for one decision, the smallest and largest legal "bet/raise to" amounts.
Amounts are always totals for the round ("raise to"), integers of the
table's smallest chip.
"""

from __future__ import annotations

from dataclasses import dataclass

FIXED_LIMIT = "fixed_limit"
SPREAD_LIMIT = "spread_limit"
POT_LIMIT = "pot_limit"
HALF_POT = "half_pot"
NO_LIMIT = "no_limit"
STRUCTURES = (FIXED_LIMIT, SPREAD_LIMIT, POT_LIMIT, HALF_POT, NO_LIMIT)
CAPPED = frozenset({FIXED_LIMIT, SPREAD_LIMIT})  # BET-10


@dataclass(frozen=True, slots=True, kw_only=True)
class Stakes:
    """What a structure needs; zero means "not used".

    - ``blinds``: the compulsory blinds, first (left of the button) to last (BLIND-01).
    - ``ante``: taken from every player before any card (BLIND-05).
    - ``bring_in``: the stud forced bring-in (STUD-02).
    - ``small_bet`` / ``big_bet``: fixed limit amounts for early / late rounds (BET-06);
      in stud, ``small_bet`` is also what the bring-in completes to.
    - ``min_bet`` / ``max_bet``: spread limit bounds (BET-07); ``min_bet`` is also the
      smallest opening bet in pot and no limit (defaults to the last blind).
    - ``chip``: the smallest denomination; every bet is a multiple (BET-12).
    """

    blinds: tuple[int, ...] = ()
    ante: int = 0
    bring_in: int = 0
    small_bet: int = 0
    big_bet: int = 0
    min_bet: int = 0
    max_bet: int = 0
    chip: int = 1

    def opening_bet(self, *, big: bool) -> int:
        """The smallest full opening bet of a round."""
        if self.min_bet:
            return self.min_bet
        if big and self.big_bet:
            return self.big_bet
        if self.small_bet:
            return self.small_bet
        if self.blinds:
            return self.blinds[-1]
        return max(self.chip, self.ante, self.bring_in)

    def fixed_size(self, *, big: bool) -> int:
        """BET-06: the set amount of every bet and raise in a fixed-limit round."""
        size = self.big_bet if big else self.small_bet
        return size or self.opening_bet(big=big)


def check_stakes(structure: str, stakes: Stakes) -> str | None:
    """A reason the stakes cannot work for ``structure``, or None when they can."""
    if structure not in STRUCTURES:
        return f"unknown structure {structure!r}"
    values = (*stakes.blinds, stakes.ante, stakes.bring_in, stakes.small_bet, stakes.big_bet,
              stakes.min_bet, stakes.max_bet)
    if stakes.chip < 1 or any(v < 0 for v in values):
        return "amounts must be non-negative and the chip at least 1"
    if any(v % stakes.chip for v in values):
        return "every amount must be a multiple of the chip"  # BET-12
    if list(stakes.blinds) != sorted(stakes.blinds):
        return "blinds must not decrease from first to last"
    if structure == FIXED_LIMIT and not (stakes.small_bet and stakes.big_bet):
        return "fixed limit needs small_bet and big_bet"
    if structure == SPREAD_LIMIT and not (stakes.min_bet and stakes.max_bet >= stakes.min_bet):
        return "spread limit needs min_bet <= max_bet"
    if stakes.blinds and stakes.blinds[-1] < stakes.min_bet:  # any structure with a minimum
        return "the last blind must be at least the table minimum (BLIND-03)"
    if stakes.blinds and structure == FIXED_LIMIT and stakes.blinds[-1] < stakes.small_bet:
        return "the last blind must be at least the first-round bet (BLIND-03)"
    return None


def raise_bounds(
    structure: str,
    stakes: Stakes,
    *,
    big: bool,
    current: int,
    increment: int,
    own_bet: int,
    stack: int,
    pot: int,
) -> tuple[int, int]:
    """The legal ``(min_to, max_to)`` of a full bet or raise, before the stack caps it.

    ``current`` is the highest bet of the round, ``increment`` the largest
    bet or raise made in it so far (BET-05; the opening bet size when there
    is none), ``own_bet`` this player's bet in the round, and ``pot`` every
    chip in the middle including the round's bets.  The caller caps
    ``max_to`` at the player's stack and allows a short all-in (ALLIN-01).
    """
    all_in = own_bet + stack
    if structure == FIXED_LIMIT:  # BET-06
        size = stakes.fixed_size(big=big)
        return current + size, current + size
    if structure == SPREAD_LIMIT:  # BET-07
        lo = current + max(increment, stakes.min_bet)
        hi = current + max(stakes.max_bet, lo - current)
        return lo, hi
    lo = current + increment  # BET-05
    if structure in (POT_LIMIT, HALF_POT):  # BET-08
        to_call = current - own_bet
        room = pot + to_call
        if structure == HALF_POT:
            room //= 2
        room -= room % stakes.chip
        return lo, max(lo, current + room)
    return lo, all_in if all_in > lo else lo  # BET-09 no limit: up to all-in (at least lo)
