"""Main and side pots, uncalled bets and split pots.

Everything here is a pure function of what each seat put in (its
*contribution* to the whole hand) and who is still in.

- ALLIN-03: pots are layered by contribution level; an all-in player can win
  from each other player at most what they put in; a folded player's chips
  stay in the pots they reached; a bet nobody matched goes back to its owner
  (:func:`uncalled`).
- POT-01: a tie splits a pot equally down to the smallest chip; an
  indivisible remainder goes to the tied player holding the highest card by
  suit (rank first) among their hole cards (the caller says which cards those
  are: :meth:`~server.rules.showdown.ShowdownMixin.hole_cards`).
- POT-02: there is no way to split by agreement; nothing here offers one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from server.rules.cards import card_key
from server.rules.frozen import maker, quick_init


@dataclass(frozen=True, slots=True)
class Pot:
    """``amount`` chips that only the seats in ``eligible`` can win."""

    amount: int
    eligible: tuple[int, ...]


quick_init(Pot)  # speed only: the same frozen pots, built faster
_pot = maker(Pot)  # the same again, faster still (frozen.maker)


def uncalled(contributions: Mapping[int, int]) -> tuple[int, int] | None:
    """The bet nobody matched: ``(seat, excess)`` of the top contributor, or None.

    Only the largest contribution can exceed every other one; its excess over
    the second largest was never called and belongs to its owner again.
    """
    if len(contributions) < 2:
        if len(contributions) == 1:
            ((seat, amount),) = contributions.items()
            return (seat, amount) if amount > 0 else None
        return None
    top_seat, top, second = -1, -1, -1  # one pass for the two largest amounts
    for seat, amount in contributions.items():
        if amount > top:
            top_seat, top, second = seat, amount, top
        elif amount > second:
            second = amount
    if top > second:
        return top_seat, top - second
    return None


def build_pots(contributions: Mapping[int, int], live: Iterable[int]) -> list[Pot]:
    """Layer the chips into a main pot (index 0) and side pots.

    ``contributions`` is every seat's total for the hand (folded seats
    included); ``live`` are the seats that have not folded.  Uncalled excess
    should have been returned first (:func:`uncalled`); any chips above the
    highest live level are still kept (added to the last pot), never lost.
    """
    live_set = live if type(live) is set or type(live) is frozenset else set(live)
    get = contributions.get
    values = contributions.values()
    if live_set:  # the common case: the seats still in put in the same, so one pot, all chips
        seats = iter(live_set)
        level = get(next(seats), 0)
        if level > 0:
            for s in seats:
                if get(s, 0) != level:
                    break
            else:
                return [_pot(sum(values), tuple(sorted(live_set)))]
    levels = sorted({c for s in live_set if (c := get(s, 0)) > 0})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in values)
        eligible = tuple(sorted(s for s in live_set if get(s, 0) >= level))
        # each level is a live seat's total, so each has chips in it and fewer seats eligible
        # than the one below: no pot is empty and no two pots have the same seats
        pots.append(_pot(amount, eligible))
        previous = level
    leftover = sum(c - previous for c in values if c > previous)
    if leftover:
        if pots:
            pots[-1] = Pot(pots[-1].amount + leftover, pots[-1].eligible)
        else:
            pots.append(Pot(leftover, tuple(sorted(live_set))))
    return pots


def highest_card_holder(seats: Sequence[int], hole_cards: Callable[[int], Sequence[str]]) -> int:
    """POT-01: the seat among ``seats`` holding the highest single hole card (rank, then
    suit); ``hole_cards(seat)`` gives a seat's hole cards."""
    return max(seats, key=lambda s: max((card_key(c) for c in hole_cards(s)), default=-1))


def split_pot(
    amount: int,
    winners: Sequence[int],
    *,
    chip: int = 1,
    hole_cards: Callable[[int], Sequence[str]],
) -> tuple[dict[int, int], int | None]:
    """POT-01: divide ``amount`` equally among ``winners`` down to ``chip``; a remainder
    goes to the winner with the highest of their ``hole_cards``.

    Returns the shares and the seat that received the indivisible remainder
    (``None`` when there was none).
    """
    if not winners:
        raise ValueError("a pot needs at least one winner")
    units, loose = divmod(amount, chip)
    each, remainder_units = divmod(units, len(winners))
    shares = {s: each * chip for s in winners}
    remainder = remainder_units * chip + loose
    if remainder == 0:
        return shares, None
    odd = winners[0] if len(winners) == 1 else highest_card_holder(winners, hole_cards)
    shares[odd] += remainder
    return shares, odd if len(winners) > 1 else None
