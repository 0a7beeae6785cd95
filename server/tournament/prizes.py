"""Places and prizes: who finished where and who is paid what (TOUR-11, TOUR-12).

Rule of this module: integers only, and every chip of the pool accounted for. A table of
shares is in basis points per place (1st first) summing to 10000, never rising with the place;
:func:`prizes` turns a pool into amounts that sum to the pool exactly (the rounding's remainder
to first place); :func:`share_prizes` shares the prizes of tied places so that the players of a
tie get together exactly the prizes of the places they cover, the odd chips to one of them by
POT-01's highest card. Pure functions: the caller books the payouts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby

from server.tournament.structure import StructureError

BASIS = 10_000
MAX_PAID = 5_000  # every paid place needs at least one basis point
_FIXED: tuple[tuple[int, tuple[int, ...]], ...] = (  # (up to this many entries, shares)
    (4, (10000,)),
    (8, (6500, 3500)),
    (18, (5000, 3000, 2000)),
    (27, (4000, 2500, 1700, 1100, 700)),
    (45, (3300, 2100, 1500, 1100, 800, 600, 600)),
    (90, (2800, 1800, 1300, 1000, 800, 700, 600, 500, 500)),
    (180, (2500, 1600, 1150, 900, 750, 600, 500, 400, 320, 160, 160, 160, 160, 160, 120, 120,
           120, 120)),
)


def default_shares(entries: int) -> tuple[int, ...]:
    """TOUR-12: the operator's default table of shares for a field of ``entries``.

    Up to 180 entries, fixed tables. Above, 15% of the field is paid (rounded up, at most
    MAX_PAID places): every paid place gets a floor of about one and a half buy-ins
    (``15000 // entries`` basis points, at least 1) and the rest of the pool is shared in
    proportion to ``1/place - 1/paid`` (so the last place gets the floor alone), rounded
    down; the points the rounding left over go one each to the top places. Shares never rise
    with the place.
    """
    if entries < 1:
        raise ValueError("a prize table needs at least one entry")
    for most, shares in _FIXED:
        if entries <= most:
            return shares
    paid = min(math.ceil(entries * 15 / 100), MAX_PAID)
    floor = max(1, 15_000 // entries)
    rest = BASIS - paid * floor
    scale = 10**15
    weights = [scale // place - scale // paid for place in range(1, paid + 1)]
    total = sum(weights)
    out = [floor + rest * w // total for w in weights]
    for place in range(BASIS - sum(out)):  # fewer than `paid` points: one each from the top
        out[place] += 1
    return tuple(out)


def check_shares(shares: Sequence[int], entries: int) -> None:
    """TOUR-12: raise :class:`StructureError` unless ``shares`` is a usable table for a field
    of ``entries``: a non-empty list of integers > 0 summing to 10000, never rising from one
    place to the next, and no more places than entries."""
    if not isinstance(shares, list | tuple) or not shares:
        raise StructureError("prize shares must be a non-empty list of basis points")
    if any(type(s) is not int or s <= 0 for s in shares):
        raise StructureError("every prize share must be an integer > 0 (basis points)")
    if sum(shares) != BASIS:
        raise StructureError(f"prize shares must sum to {BASIS}, not {sum(shares)}")
    if any(a < b for a, b in zip(shares, shares[1:], strict=False)):
        raise StructureError("a prize share must not exceed the share of the place above it")
    if type(entries) is not int or len(shares) > entries:
        raise StructureError(f"{len(shares)} places paid but only {entries} entries")


def prizes(pool: int, shares: Sequence[int]) -> list[int]:
    """TOUR-12: the prize of each place (1st first): ``pool * share // 10000``, the remainder
    of the rounding to first place; the prizes sum to ``pool``."""
    if type(pool) is not int or pool < 0:
        raise ValueError("the pool is a whole number of chips >= 0")
    check_shares(shares, len(shares))
    out = [pool * s // BASIS for s in shares]
    out[0] += pool - sum(out)
    return out


@dataclass(frozen=True, slots=True)
class Out:
    """A player out in a hand (or a hand-for-hand round): their stack at the start of that
    hand and the POT-01 key (rank 2..14, suit clubs 0 .. spades 3) of their highest hole card
    of it, for the odd chip of a tie."""

    player: str
    start_stack: int
    high_card: tuple[int, int]


def place_outs(outs: Sequence[Out], next_place: int) -> list[tuple[int, list[str]]]:
    """TOUR-11: the places of the players out together. ``next_place`` is the highest place
    not yet taken (the number of players left before these went out); the outs take places
    ``next_place``, ``next_place - 1`` ... from the smallest start stack up, equal start
    stacks tying. Returns ``[(best place the group shares, players sorted)]``, worst group
    first; a group of k players with best place p covers places p .. p + k - 1."""
    if len({o.player for o in outs}) != len(outs):
        raise ValueError("a player is out twice")
    if len(outs) >= next_place:
        raise ValueError(f"{len(outs)} players out with {next_place} left: one must remain")
    result: list[tuple[int, list[str]]] = []
    place = next_place
    ordered = sorted(outs, key=lambda o: o.start_stack)
    for _, group in groupby(ordered, key=lambda o: o.start_stack):
        players = sorted(o.player for o in group)
        best = place - len(players) + 1
        result.append((best, players))
        place = best - 1
    return result


def odd_chip_holder(players: Sequence[str], outs: Sequence[Out]) -> str:
    """POT-01 for a tie: the player among ``players`` whose highest hole card is highest
    (equal cards, possible across tables in hand-for-hand, go to the first by player id)."""
    high = {o.player: o.high_card for o in outs}
    return max(sorted(players), key=lambda p: high[p])


def share_prizes(groups: Sequence[tuple[int, list[str]]], table: Sequence[int],
                 outs: Sequence[Out]) -> tuple[dict[str, int], str | None]:
    """TOUR-11 and TOUR-12: each group (from :func:`place_outs`) shares the prizes of the
    places it covers (``table[place - 1]``; places beyond the table pay 0) equally; the odd
    chips of a tie go to its :func:`odd_chip_holder`. Returns each player's prize and the
    tie's odd-chip player for the log's ``tie_odd_chip``: named whenever players tie, odd
    chips or not (the prize table may not be fixed yet when they go out); with several ties
    in one hand, the best-placed tie's; None when nobody tied."""
    known = {o.player for o in outs}
    prize: dict[str, int] = {}
    odd: str | None = None
    for best, players in sorted(groups, key=lambda g: g[0]):
        if best < 1 or not players or any(p not in known for p in players):
            raise ValueError("a group needs a place >= 1 and players who are out")
        covered = range(best - 1, best - 1 + len(players))
        total = sum(table[i] for i in covered if i < len(table))
        each, rest = divmod(total, len(players))
        for player in players:
            prize[player] = each
        if len(players) > 1:
            holder = odd_chip_holder(players, outs)
            prize[holder] += rest
            odd = odd or holder
    return prize, odd


def final_prizes(places: Mapping[str, int], pool: int, shares: Sequence[int],
                 high: Mapping[str, tuple[int, int]]) -> dict[str, int]:
    """TOUR-11/12 at the end: each player's prize from every place taken (a tie is several
    players on one place), the pool and the share table; ``high`` the POT-01 keys of the
    tied players' odd chips."""
    by_place: dict[int, list[str]] = {}
    for player, place in places.items():
        by_place.setdefault(place, []).append(player)
    groups = [(place, sorted(players)) for place, players in sorted(by_place.items())]
    amounts, _ = share_prizes(groups, prizes(pool, shares),
                              [Out(p, 0, high.get(p, (0, 0))) for p in places])
    return amounts
