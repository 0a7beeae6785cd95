"""Scripted hands as data for the Manila, Draw and Stud tests.

A :class:`Script` is a table setup, a deck in dealing order (burns included), the actions
in the order the engine asks for them and the stacks expected at the end.  :func:`run`
plays it, checking at every step that the scripted seat is the one the engine asks, and
returns the hand and every event.  Actions are short strings: ``"3 call"``,
``"4 raise 30"``, ``"1 draw 2c 7d"`` (discards), ``"5 draw"`` (stand pat), ``"2 timeout"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from server.rules.errors import IllegalAction
from server.rules.events import Event
from server.rules.hand import Hand
from server.rules.structure import Stakes
from server.rules.variant import TableRules, Variant

E = TypeVar("E")

LIMIT = Stakes(blinds=(5, 10), small_bet=10, big_bet=20)
STUD_LIMIT = Stakes(ante=2, bring_in=5, small_bet=10, big_bet=20)


def limit_rules(**kw: object) -> TableRules:
    """Fixed limit 10/20 with blinds 5/10 (or the keyword overrides)."""
    return TableRules(structure="fixed_limit", stakes=LIMIT, **kw)  # type: ignore[arg-type]


def stud_rules(**kw: object) -> TableRules:
    """Fixed limit 10/20, ante 2, bring-in 5."""
    return TableRules(structure="fixed_limit", stakes=STUD_LIMIT, **kw)  # type: ignore[arg-type]


def cards(text: str) -> list[str]:
    """``"As Kd 7c"`` -> ``["As", "Kd", "7c"]``."""
    return text.split()


def one_at_a_time(order: Sequence[int], hands: Mapping[int, str | Sequence[str]]) -> list[str]:
    """Cards in dealing order: the first card of each seat in ``order``, then the second...

    ``hands[seat]`` lists the cards that seat receives in this dealing round, in order.
    """
    per = {s: cards(h) if isinstance(h, str) else list(h) for s, h in hands.items()}
    n = len(per[order[0]])
    assert all(len(per[s]) == n for s in order), "every seat gets the same number of cards"
    return [per[s][i] for i in range(n) for s in order]


def full_deck(variant: Variant, top: Sequence[str]) -> list[str]:
    """The variant's deck with ``top`` first (dealing order), the rest in the set's order."""
    card_set = variant.card_set
    assert len(set(top)) == len(top), f"a card repeats in {top}"
    assert set(top) <= set(card_set), f"not in {variant.name}'s deck: {set(top) - set(card_set)}"
    taken = set(top)
    return list(top) + [c for c in card_set if c not in taken]


@dataclass
class Script:
    """One hand as data; ``final`` is every seat's stack at the end (None: not checked)."""

    variant: Variant
    rules: TableRules
    stacks: dict[int, int]
    button: int
    deck: list[str]
    actions: list[str]
    final: dict[int, int] | None = None
    num_seats: int = 10
    seed: bytes = b"scripted"
    over_blind: bool = False
    hand_id: str = "t"
    extra: dict[str, object] = field(default_factory=dict)

    def make(self) -> Hand:
        return Hand(self.variant, self.rules, self.stacks, button=self.button, deck=self.deck,
                    num_seats=self.num_seats, seed=self.seed, over_blind=self.over_blind,
                    hand_id=self.hand_id)


@dataclass
class Ran:
    hand: Hand
    events: list[Event]

    def of(self, kind: type[E]) -> list[E]:
        return of(self.events, kind)


def of(events: Iterable[object], kind: type[E]) -> list[E]:
    """The events of one type, in order."""
    return [e for e in events if isinstance(e, kind)]


def parse(step: str) -> tuple[int, str, int | None, tuple[str, ...]]:
    """``"4 raise 30"`` -> ``(4, "raise", 30, ())``; ``"1 draw 2c 7d"`` -> discards."""
    seat_s, action, *rest = step.split()
    if action == "draw":
        return int(seat_s), action, None, tuple(rest)
    amount = int(rest[0]) if rest else None
    return int(seat_s), action, amount, ()


def play(hand: Hand, steps: Sequence[str]) -> list[Event]:
    """Apply ``steps`` to a started hand, checking each scripted seat is the one to act."""
    events: list[Event] = []
    for i, step in enumerate(steps):
        seat, action, amount, discard = parse(step)
        assert not hand.is_over, f"step {i} {step!r}: the hand is already over"
        assert hand.to_act == seat, f"step {i} {step!r}: seat {hand.to_act} is to act"
        if action == "timeout":
            events += hand.timeout(seat)
        else:
            events += hand.act(seat, action, amount, discard)
    return events


def run(script: Script, *, finish: bool = True) -> Ran:
    """Play ``script``; with ``finish`` the hand must be over and the stacks as scripted."""
    hand = script.make()
    events = hand.start()
    events += play(hand, script.actions)
    if finish:
        assert hand.is_over, f"hand not over: seat {hand.to_act} is to act"
        assert sum(hand.stacks.values()) == sum(script.stacks.values())
        if script.final is not None:
            assert hand.stacks == script.final
    return Ran(hand, events)


def refusal(hand: Hand, seat: int, action: str, amount: object = None,
            discard: Sequence[str] = ()) -> str:
    """The reason the engine refuses the action (fails if it is accepted)."""
    try:
        hand.act(seat, action, amount, discard)  # type: ignore[arg-type]
    except IllegalAction as exc:
        return exc.reason
    raise AssertionError(f"{action} {amount} {discard} by seat {seat} was accepted")


def setup_refusal(variant: Variant, rules: TableRules, stacks: Mapping[int, int], *,
                  num_seats: int = 10) -> str:
    """The reason ``Hand(...)`` refuses the setup (fails if it is accepted)."""
    try:
        Hand(variant, rules, stacks, button=0, deck=list(variant.card_set), num_seats=num_seats)
    except IllegalAction as exc:
        return exc.reason
    raise AssertionError("the setup was accepted")


def streets_top(order: Sequence[int], streets: Sequence[Mapping[int, str]],
                burns: Sequence[str]) -> list[str]:
    """Deck top for a stud-like deal: ``streets[0]`` one card at a time to the seats in
    ``order`` that it names, then for each later street its burn and its cards."""
    assert len(burns) == len(streets) - 1
    top: list[str] = []
    for i, street in enumerate(streets):
        if i:
            top.append(burns[i - 1])
        seats = [s for s in order if s in street]
        top += one_at_a_time(seats, {s: street[s] for s in seats})
    return top


def call_down(hand: Hand) -> list[Event]:
    """Play a started hand to the end: bring in, check when free, otherwise call."""
    events: list[Event] = []
    guard = 0
    while not hand.is_over:
        guard += 1
        assert guard < 500
        seat = hand.to_act
        assert seat is not None
        opts = hand.options(seat)
        assert opts is not None
        if opts.bring_in is not None:
            events += hand.act(seat, "bring_in")
        elif opts.check:
            events += hand.act(seat, "check")
        else:
            events += hand.act(seat, "call")
    return events


def house_options(rnd: Any, seat: int) -> dict[str, Any]:
    """A house round's :class:`~server.rules.options.Options` for ``seat`` as the wire's
    ``options`` object ({} when it has nothing to decide)."""
    opts = rnd.options(seat)
    return opts.to_wire() if opts is not None else {}
