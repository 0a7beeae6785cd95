"""Scripted hands as data: a deck, the actions, and what must happen.

A :class:`Script` is one hand written down: variant, structure, stakes, seats
and stacks, the button, the cards in dealing order, the actions in order and
the expectations.  :func:`run` plays it and checks everything::

    run(Script(
        stacks={1: 100, 2: 100}, button=2,
        holes={1: "As Ks", 2: "Qh Qd"}, board="2c 7d 9h Js 3c",
        actions=[
            opts(1, kinds=("fold", "call", "raise"), call=10),  # options at this point
            refuse(2, "call", reason="not_your_turn"),          # refused, state unchanged
            (1, "call"), (2, "check"),
            (1, "bet", 10), (2, "raise", 30), (1, "fold"),
        ],
        events=[BetReturned(2, 20, 80), PotAwarded(0, 40, {2: 40})],
        final={1: 80, 2: 120},
    ))

Cards: ``holes`` and ``board`` are turned into the Hold'em dealing order (one
hole card at a time from the left of the button, a burn before the flop, the
turn and the river); or ``deck`` gives the cards in dealing order directly
(any variant).  ``"_"`` stands for "any card": :func:`fill_deck` puts the
unused cards there and after the prefix, in the variant's fixed card order.

Actions: ``(seat, action)`` or ``(seat, action, amount)``; ``(seat, "timeout")``
lets the clock run out.  :func:`opts` checks the options offered at that point
(only the fields given), :func:`refuse` checks that an action is refused with a
reason code and changes nothing.

Events: only the event types that appear in ``events`` are selected from what
the hand emitted, and that selection must equal ``events`` in order; use
:func:`like` to match an event on some fields only.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.rules.errors import IllegalAction
from server.rules.events import Event
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.structure import NO_LIMIT, Stakes
from server.rules.variant import TableRules, Variant

ANY = "_"


@dataclass(frozen=True)
class Refuse:
    """``seat`` trying ``action`` must be refused with ``reason``; nothing changes."""

    seat: int
    action: str
    amount: object = None
    reason: str = "bad_action"


@dataclass(frozen=True)
class Opts:
    """The options offered to ``seat`` now must have these field values (``None``: no turn)."""

    seat: int
    expected: Mapping[str, object] | None


@dataclass(frozen=True)
class Like:
    """Matches an event of type ``cls`` whose listed fields have these values."""

    cls: type
    values: Mapping[str, object]

    def matches(self, event: object) -> bool:
        return type(event) is self.cls and all(
            getattr(event, k) == v for k, v in self.values.items())

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"like({self.cls.__name__}, {inner})"


def refuse(seat: int, action: str, amount: object = None, *, reason: str = "bad_action") -> Refuse:
    return Refuse(seat, action, amount, reason)


def opts(seat: int, **expected: object) -> Opts:
    """Expected options; ``kinds=(...)`` lists every offered action, in ``ACTIONS`` order."""
    return Opts(seat, expected)


def no_turn(seat: int) -> Opts:
    """``seat`` has no decision now (``options`` returns None)."""
    return Opts(seat, None)


def like(cls: type, **values: object) -> Like:
    return Like(cls, values)


Step = tuple[Any, ...] | Refuse | Opts
Expected = Event | Like


@dataclass(frozen=True, kw_only=True)
class Script:
    """One hand written down; see the module docstring."""

    stacks: Mapping[int, int]
    button: int
    holes: Mapping[int, str] = field(default_factory=dict)
    board: str = ""
    deck: Sequence[str] | str | None = None
    actions: Sequence[Step] = ()
    events: Sequence[Expected] = ()
    final: Mapping[int, int] | None = None
    variant: Variant = HOLDEM
    structure: str = NO_LIMIT
    stakes: Stakes = Stakes(blinds=(5, 10))
    num_seats: int = 10
    raise_cap: int = 3
    heads_up_button_first_blind: bool = False
    over_blind: bool = False  # BLIND-04: the table allows it and the seat posts it
    rake_bp: int = 0
    rake_cap: int = 0
    fill: bool = True  # complete the deck with the unused cards (False: use ``deck`` as is)

    def rules(self) -> TableRules:
        return TableRules(structure=self.structure, stakes=self.stakes, raise_cap=self.raise_cap,
                          heads_up_button_first_blind=self.heads_up_button_first_blind,
                          over_blind=self.variant.name == "draw" or self.over_blind,
                          rake_bp=self.rake_bp, rake_cap=self.rake_cap)

    def dealing_order(self) -> list[int]:
        """Seats clockwise from the button's left: who gets each round's first card."""
        return sorted(self.stacks, key=lambda s: (s - self.button - 1) % self.num_seats)

    def cards(self) -> list[str]:
        """The deck in dealing order."""
        if self.deck is not None:
            prefix = self.deck.split() if isinstance(self.deck, str) else list(self.deck)
        else:
            prefix = holdem_prefix(self.dealing_order(), self.holes, self.board)
        return fill_deck(prefix, self.variant.card_set) if self.fill else prefix


def holdem_prefix(order: Sequence[int], holes: Mapping[int, str], board: str) -> list[str]:
    """HOLD-01/02 dealing order: hole cards one at a time from the button's left, then
    burn, flop, burn, turn, burn, river (``_`` where a card is not named)."""
    hole = {s: holes.get(s, "").split() for s in order}
    prefix = [hole[s][i] if i < len(hole[s]) else ANY for i in range(2) for s in order]
    b = board.split()
    b += [ANY] * (5 - len(b))
    return prefix + [ANY, *b[:3], ANY, b[3], ANY, b[4]]


def fill_deck(prefix: Sequence[str], card_set: Sequence[str]) -> list[str]:
    """The whole deck: ``prefix`` with each ``_`` and the tail filled by the unused cards
    of ``card_set`` in its fixed order."""
    named = [c for c in prefix if c != ANY]
    unused = iter([c for c in card_set if c not in set(named)])
    deck = [next(unused) if c == ANY else c for c in prefix]
    return deck + list(unused)


@dataclass
class Result:
    hand: Hand
    events: list[Event]


def fingerprint(hand: Hand) -> str:
    """Everything in the hand's state (to prove a refusal changed nothing)."""
    d = {k: copy.deepcopy(v) for k, v in vars(hand).items()
         if k != "_events" and "cache" not in k}  # a memo of options is not state
    return repr(sorted(d.items(), key=lambda kv: kv[0]))


def _check_opts(hand: Hand, step: Opts, where: str) -> None:
    got = hand.options(step.seat)
    if step.expected is None:
        assert got is None, f"{where}: seat {step.seat} should have no turn, has {got}"
        return
    assert got is not None, f"{where}: seat {step.seat} has no turn (to act: {hand.to_act})"
    for name, want in step.expected.items():
        have = got.kinds if name == "kinds" else getattr(got, name)
        assert have == want, f"{where}: options of seat {step.seat}: {name}={have!r}, " \
                             f"expected {want!r} (all: {got})"


def _check_refused(hand: Hand, step: Refuse, where: str) -> None:
    before = fingerprint(hand)
    try:
        hand.act(step.seat, step.action, step.amount)  # type: ignore[arg-type]
    except IllegalAction as exc:
        assert exc.reason == step.reason, f"{where}: refused with {exc.reason!r} " \
                                          f"({exc.message}), expected {step.reason!r}"
    else:
        raise AssertionError(f"{where}: {step} was accepted")
    assert fingerprint(hand) == before, f"{where}: the refusal changed the hand"


def select(events: Sequence[Event], expected: Sequence[Expected]) -> list[Event]:
    """The emitted events of the types that ``expected`` mentions, in order."""
    kinds = {e.cls if isinstance(e, Like) else type(e) for e in expected}
    return [e for e in events if type(e) in kinds]


def _same(want: Expected, have: Event) -> bool:
    return want.matches(have) if isinstance(want, Like) else want == have


def run(script: Script) -> Result:
    """Play ``script`` and check every expectation in it; returns the hand and its events."""
    hand = Hand(script.variant, script.rules(), dict(script.stacks), button=script.button,
                deck=script.cards(), num_seats=script.num_seats, hand_id="h1", seed=b"seed",
                over_blind=script.over_blind)
    events = hand.start()
    for i, step in enumerate(script.actions):
        where = f"step {i} {step!r}"
        if isinstance(step, Opts):
            _check_opts(hand, step, where)
        elif isinstance(step, Refuse):
            _check_refused(hand, step, where)
        else:
            seat, action, *rest = step
            assert hand.to_act == seat, f"{where}: it is seat {hand.to_act}'s turn"
            if action == "timeout":
                events += hand.timeout(seat)
            else:
                events += hand.act(seat, action, rest[0] if rest else None)
    if script.events:
        got = select(events, script.events)
        ok = len(got) == len(script.events) and all(
            _same(w, h) for w, h in zip(script.events, got, strict=True))
        assert ok, "events differ:\n  expected " + "\n           ".join(
            map(repr, script.events)) + "\n  got      " + "\n           ".join(map(repr, got))
    if script.final is not None:
        assert hand.is_over, f"the hand is not over (to act: {hand.to_act})"
        assert hand.stacks == dict(script.final), f"final stacks {hand.stacks}"
        total = sum(hand.stacks.values()) + getattr(hand, "rake", 0)
        assert total == sum(script.stacks.values())  # GEN-06: no chip made or lost
    return Result(hand, events)
