"""The settlement of a Caribbean Stud round and what it hands the jackpot coordinator.

Pure functions over the round's state (:class:`~server.rules.caribbean.CaribbeanRound` calls
them): :func:`settle` turns the dealer's hand and every decision into ``Settled`` results
(CSP-04..CSP-07; a player's hand named against the dealer's, SHOW-04);
:func:`contributions`, :func:`jackpot_claims` and :func:`eligibility` read
the settled results for the coordinator (CSP-08, CSP-10, CSP-11).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from server.rules.caribbean_events import DealerRevealed, Event, RoundEnded, Settled
from server.rules.caribbean_payout import (
    CaribbeanSettings,
    Contribution,
    JackpotClaim,
    hand_key,
)
from server.rules.evaluate import HandValue, evaluate, name_against


@dataclass(frozen=True, slots=True)
class Settlement:
    """What :func:`settle` decided: the events (``DealerRevealed``, one ``Settled`` per dealt
    seat in seat order, ``RoundEnded``), the stacks after them, each seat's ``Settled`` and
    hand value, and the house's result on antes and call bets."""

    events: list[Event]
    stacks: dict[int, int]
    settled: dict[int, Settled]
    values: dict[int, HandValue]
    house_net: int


def settle(settings: CaribbeanSettings, round_id: str, *, dealer: tuple[str, ...],
           hands: Mapping[int, tuple[str, ...]], antes: Mapping[int, int],
           decisions: Mapping[int, str], wagers: Mapping[int, int],
           stacks: Mapping[int, int], house_net: int) -> Settlement:
    """CSP-04..CSP-07: turn the dealer's hand, pay or collect every ante and call bet, and
    return or collect every jackpot wager.  ``house_net``: the house's result so far."""
    s = settings
    stacks = dict(stacks)
    dealer_value = evaluate(dealer)
    qualifies = s.dealer_qualifies(dealer_value)
    out: list[Event] = [DealerRevealed(dealer, qualifies, dealer_value.name,
                                       tuple(dealer_value.cards))]
    settled: dict[int, Settled] = {}
    values: dict[int, HandValue] = {}
    collected = 0
    for seat in sorted(hands):
        ante = antes[seat]
        value = evaluate(hands[seat])
        values[seat] = value
        key = hand_key(value)
        folded = decisions[seat] == "fold"
        if folded:
            ante_res, play_res = -ante, 0
        elif not qualifies:
            ante_res, play_res = ante, 0
        elif value > dealer_value:
            ante_res, play_res = ante, 2 * ante * s.pays.odds(key)
        elif value < dealer_value:
            ante_res, play_res = -ante, -2 * ante
        else:
            ante_res, play_res = 0, 0
        wager = wagers.get(seat, 0)
        jp_hand = key if wager and not folded and s.jackpot.qualifies(key) else None
        jp_res = -wager if jp_hand is None else 0
        collected -= jp_res
        back = ante + ante_res + (0 if folded else 2 * ante + play_res)
        back += wager + jp_res
        stacks[seat] += back
        house_net -= ante_res + play_res
        ev = Settled(
            seat, ante_res, play_res, jp_res, name_against(value, (dealer_value,)), jp_hand,
            stacks[seat], folded,
            tuple(value.cards),
        )
        settled[seat] = ev
        out.append(ev)
    out.append(RoundEnded(round_id, dict(stacks), house_net, collected))
    return Settlement(out, stacks, settled, values, house_net)


def contributions(settings: CaribbeanSettings, round_id: str,
                  settled: Mapping[int, Settled]) -> tuple[Contribution, ...]:
    """CSP-08/11: the collected jackpot wagers of the round, in seat order.  Returned wagers
    (qualifying hands) contribute nothing."""
    out = []
    for seat, ev in settled.items():
        if ev.jackpot < 0:
            minor, major, house = settings.split_wager(-ev.jackpot)
            wager = -ev.jackpot
            out.append(Contribution(round_id, seat, wager, minor + major, minor, major, house))
    return tuple(out)


def jackpot_claims(settings: CaribbeanSettings, round_id: str, settled: Mapping[int, Settled],
                   positions: Mapping[int, tuple[int, ...]]) -> tuple[JackpotClaim, ...]:
    """CSP-07/10: the round's qualifying hands, in order of their eligibility moments."""
    mode = settings.dealing_mode
    claims = [
        JackpotClaim(
            round_id, seat, ev.jackpot_hand,
            positions[seat][0 if mode == "shoe" else -1], mode,
        )
        for seat, ev in settled.items()
        if ev.jackpot_hand is not None
    ]
    return tuple(sorted(claims, key=lambda c: c.eligible_at))


def eligibility(settings: CaribbeanSettings,
                positions: Mapping[int, tuple[int, ...]]) -> dict[int, int]:
    """CSP-10: every dealt seat's eligibility moment (deck position) under the table's mode."""
    i = 0 if settings.dealing_mode == "shoe" else -1
    return {seat: pos[i] for seat, pos in positions.items()}
