"""Helpers to play whole hands in tests: random legal play and exhaustive option checks."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from server.rules.errors import IllegalAction
from server.rules.events import Event
from server.rules.hand import Hand
from server.rules.options import Options
from server.rules.structure import Stakes
from server.rules.variant import TableRules, Variant


def stakes_for(structure: str, variant: Variant) -> Stakes:
    """Typical stakes for a structure (chips of 1, blinds 5/10 or antes with a bring-in)."""
    blinds: tuple[int, ...] = () if variant.is_stud else (5, 10)
    ante, bring_in = (2, 5) if variant.is_stud else (0, 0)
    if structure == "fixed_limit":
        return Stakes(blinds=blinds, ante=ante, bring_in=bring_in, small_bet=10, big_bet=20)
    if structure == "spread_limit":
        return Stakes(blinds=blinds, ante=ante, bring_in=bring_in, small_bet=10, min_bet=10,
                      max_bet=40)
    return Stakes(blinds=blinds, ante=ante, bring_in=bring_in, small_bet=10)


@dataclass
class Played:
    hand: Hand
    events: list[Event]
    actions: list[tuple[int, str, int | None, tuple[str, ...]]]


def random_action(rng: random.Random, opts: Options,
                  own: Sequence[str]) -> tuple[str, int | None, tuple[str, ...]]:
    """One legal action chosen at random from ``opts`` (amounts inside the offered range)."""
    if opts.draw is not None:
        k = rng.randint(0, min(opts.draw, len(own)))
        return "draw", None, tuple(rng.sample(list(own), k))
    kinds = list(opts.kinds)
    weights = {"fold": 1, "check": 4, "call": 4, "bet": 2, "raise": 2, "bring_in": 3,
               "complete": 1}
    kind = rng.choices(kinds, [weights.get(k, 1) for k in kinds])[0]
    if kind in ("bet", "raise"):
        bounds = opts.bet if kind == "bet" else opts.raise_
        assert bounds is not None
        lo, hi = bounds
        pick = rng.random()
        amount = lo if pick < 0.4 else hi if pick < 0.6 else rng.randint(lo, hi)
        return kind, amount, ()
    fixed = {"call": opts.call, "bring_in": opts.bring_in, "complete": opts.complete}.get(kind)
    return kind, fixed, ()


def play_random(variant: Variant, rules: TableRules, stacks: dict[int, int], *, button: int,
                deck: Sequence[str], rng: random.Random, num_seats: int = 10,
                timeouts: float = 0.05, seed: bytes = b"s") -> Played:
    """Play a whole hand with random legal actions (and some timeouts)."""
    hand = Hand(variant, rules, stacks, button=button, deck=deck, num_seats=num_seats, seed=seed)
    events = hand.start()
    actions: list[tuple[int, str, int | None, tuple[str, ...]]] = []
    guard = 0
    while not hand.is_over:
        guard += 1
        assert guard < 500, "hand does not end"
        seat = hand.to_act
        assert seat is not None
        opts = hand.options(seat)
        assert opts is not None
        if rng.random() < timeouts:
            events += hand.timeout(seat)
            actions.append((seat, "timeout", None, ()))
            continue
        kind, amount, discard = random_action(rng, opts, hand.cards_of(seat))
        events += hand.act(seat, kind, amount, discard)
        actions.append((seat, kind, amount, discard))
    return Played(hand, events, actions)


def replay(variant: Variant, rules: TableRules, stacks: dict[int, int], *, button: int,
           deck: Sequence[str], actions: Sequence[tuple[int, str, int | None, tuple[str, ...]]],
           num_seats: int = 10, seed: bytes = b"s") -> list[Event]:
    hand = Hand(variant, rules, stacks, button=button, deck=deck, num_seats=num_seats, seed=seed)
    events = hand.start()
    for seat, kind, amount, discard in actions:
        if kind == "timeout":
            events += hand.timeout(seat)
        else:
            events += hand.act(seat, kind, amount, discard)
    return events


def refused(hand: Hand, seat: int, kind: str, amount: object = None,
            discard: Sequence[str] = ()) -> str | None:
    """The reason ``hand`` refuses the action, or None if it was accepted (state then changed)."""
    try:
        hand.act(seat, kind, amount, discard)  # type: ignore[arg-type]
    except IllegalAction as exc:
        return exc.reason
    return None
