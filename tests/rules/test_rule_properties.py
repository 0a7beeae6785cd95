"""Rule properties over random tables and random legal play, for all seven games.

Written from the rule text (docs/rules.md), not from the engine: the expectations below come from
small oracles of this file (who posts which blind, who opens, who acts next, what a player may
win), fed only with the table layout and the engine's events.  Nothing here calls the
engine's own helpers (seat order, pots, showing ranks) to compute an expected value.

Properties (each a test, parametrized over the six pot games; Caribbean Stud where it applies):

1. GEN-06 GEN-09: chips are conserved (stacks + rake == starting stacks; Caribbean: players +
   house net + jackpot wagers collected == starting stacks, per seat as well).
2. ALLIN-03: nobody wins from an opponent more than they put in themselves; a folded player
   gains nothing; no stack goes negative.
3. BET-01 BET-02 BET-04 STUD-02 STUD-03 STUD-04 BLIND-01 BLIND-04 DRAW-03: only the player on
   turn may act (others get ``not_your_turn``, the hand unchanged) and turns come in the order
   of the rule text.
4. ALLIN-04: no turn is offered to a player who can only check or fold against no one,
   checked at every turn, not only when a round starts.
5. BET-13: no bet, raise or completion is offered when no other player still in the hand
   could put in more than the current bet.
6. ALLIN-01: no option lets a player put in more than their stack.
7. The same deck and actions replay to the same events (Caribbean too).

Random tables vary seat subsets (gaps, seat 0 often in), dead buttons, heads-up under both
conventions (``heads_up_button_first_blind``), one-chip stacks, stacks below the blinds or
antes, one to three blinds, antes in blind games, the Draw over blind, every structure, chip
sizes and rakes.  Hypothesis runs derandomized, so CI is deterministic.  The ``slow`` variant
(many more examples) runs only when asked for: ``pytest -m slow`` (or ``-m soak``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules.caribbean import (
    AnteAccepted,
    CaribbeanRound,
    CaribbeanSettings,
    JackpotWagered,
    PlayerDecided,
    RoundEnded,
    Settled,
)
from server.rules.errors import IllegalAction
from server.rules.events import (
    Acted,
    BetReturned,
    Dealt,
    Drew,
    Event,
    HandEnded,
    HandStarted,
    Posted,
    PotAwarded,
    RakeTaken,
    StreetEnded,
    TurnStarted,
)
from server.rules.hand import Hand
from server.rules.options import Options
from server.rules.structure import STRUCTURES, Stakes
from server.rules.variant import TableRules
from server.rules.variants import VARIANTS
from tests.rules.variant_helpers import house_options

NUM_SEATS = 10
POT_GAMES = ("holdem", "manila", "manila3", "draw", "stud5", "stud7")
STUD = frozenset({"stud5", "stud7"})

# Who opens each betting round, from the rule text (HOLD-02, MAN-02, MAN3-02, DRAW-02/03,
# STUD-01..03): "blinds" = left of the last blind or over blind (BET-02), "button" = first
# active player left of the button (BET-04), "bring_in" = lowest up card (STUD-02),
# "showing" = highest hand showing (STUD-03).  Draw's second round follows the draw.
OPENERS: dict[str, tuple[str, ...]] = {
    "holdem": ("blinds", "button", "button", "button"),
    "manila": ("blinds", "button", "button", "button", "button"),
    "manila3": ("blinds", "button", "button", "button", "button"),
    "draw": ("blinds", "button"),
    "stud5": ("bring_in", "showing", "showing", "showing"),
    "stud7": ("bring_in", "showing", "showing", "showing", "showing"),
}
DRAW_STREET = {"draw": 1}  # DRAW-03: the draw comes before this round's betting

PROPS = ("conservation", "allin03", "turns", "allin04", "bet13", "allin01", "replay")

# ---------------------------------------------------------------- independent card oracles
RANKS = "23456789TJQKA"
SUITS = "cdhs"  # clubs lowest, then diamonds, hearts, spades (POT-01, STUD-02)


def card_order(card: str) -> tuple[int, int]:
    """Rank first, then suit, clubs lowest (STUD-02)."""
    return RANKS.index(card[0]), SUITS.index(card[1])


def showing_keys(up: Sequence[str]) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """Two sort keys of a stud hand showing (STUD-03), higher is better.

    Category and ranks are unambiguous: quads > full house > trips > two pair > pair > high
    card (no straights or flushes from partial hands), groups first, then kickers.  "Ties by
    the highest card by suit" has two readings; both keys share the rank part and differ only
    in the tie-break: (a) suits of the cards in group order (the pair's best suit first),
    (b) the single highest card of all the up cards.
    """
    counts = Counter(c[0] for c in up)
    groups = sorted(counts, key=lambda r: (counts[r], RANKS.index(r)), reverse=True)
    sizes = [counts[r] for r in groups]
    if sizes[0] >= 4:
        category = 6
    elif sizes[0] == 3:
        category = 5 if len(sizes) > 1 and sizes[1] >= 2 else 3
    elif sizes[0] == 2:
        category = 2 if len(sizes) > 1 and sizes[1] == 2 else 1
    else:
        category = 0
    ranks = tuple(RANKS.index(r) for r in groups for _ in range(counts[r]))
    by_group = tuple(sorted((SUITS.index(c[1]) for c in up if c[0] == r), reverse=True)
                     for r in groups)
    highest = max(card_order(c) for c in up)
    return (category, ranks, by_group), (category, ranks, highest)


def clockwise_after(anchor: int, candidates: Sequence[int] | set[int]) -> int | None:
    """The first of ``candidates`` clockwise after ``anchor`` (``anchor`` itself last)."""
    for step in range(1, NUM_SEATS + 1):
        s = (anchor + step) % NUM_SEATS
        if s in candidates:
            return s
    return None


# ------------------------------------------------------------------------- random tables
@dataclass
class Table:
    name: str
    rules: TableRules
    stacks: dict[int, int]
    button: int
    deck_seed: int
    over_blind: bool
    ask: bool = False  # BLIND-04 at a real table: the entitled seat is asked before the deal

    @property
    def deck(self) -> list[str]:
        deck = list(VARIANTS[self.name].card_set)
        random.Random(self.deck_seed).shuffle(deck)
        return deck

    def hand(self) -> Hand:
        return Hand(VARIANTS[self.name], self.rules, self.stacks, button=self.button,
                    deck=self.deck, num_seats=NUM_SEATS, seed=b"props",
                    over_blind=self.over_blind, ask_over_blind=self.ask)

    def repro(self) -> str:
        return (f"{self.name} structure={self.rules.structure} stakes={self.rules.stakes} "
                f"stacks={self.stacks} button={self.button} over_blind={self.over_blind} "
                f"ask={self.ask} "
                f"deck_seed={self.deck_seed} "
                f"hu_button_first={self.rules.heads_up_button_first_blind}")


def seat_subsets(n: int) -> st.SearchStrategy[list[int]]:
    """``n`` of the ten seats, with gaps; seat 0 is in two times out of three (at least)."""
    with_zero = st.permutations(range(1, NUM_SEATS)).map(lambda p: sorted([0, *p[:n - 1]]))
    anywhere = st.permutations(range(NUM_SEATS)).map(lambda p: sorted(p[:n]))
    return st.one_of(with_zero, with_zero, anywhere)


@st.composite
def stakes_for(draw: st.DrawFn, structure: str, stud: bool, players: int) -> Stakes:
    chip = draw(st.sampled_from([1, 1, 1, 5]))

    def amount(lo: int, hi: int) -> int:
        return draw(st.integers(lo, hi)) * chip

    blinds: tuple[int, ...] = ()
    bring_in = small = big = min_bet = max_bet = 0
    if stud:
        ante = draw(st.sampled_from([0, chip, 2 * chip, amount(1, 10)]))
        bring_in = amount(1, 5)
        small = bring_in + amount(0, 10)  # the completion (STUD-02)
    else:
        n_blinds = draw(st.integers(1, min(3, players)))
        blinds = tuple(sorted(amount(1, 20) for _ in range(n_blinds)))
        ante = draw(st.sampled_from([0, 0, 0, chip, amount(1, 5)]))  # BLIND-05
    top = blinds[-1] if blinds else 0
    if structure == "fixed_limit":
        small = draw(st.integers(1, top // chip)) * chip if blinds else small  # BLIND-03
        big = small * draw(st.sampled_from([1, 2, 2, 3]))
    elif structure == "spread_limit":
        min_bet = draw(st.integers(1, top // chip)) * chip if blinds else amount(1, 10)
        max_bet = min_bet + amount(0, 40)
    else:
        if not stud:
            small = draw(st.sampled_from([0, chip, amount(1, 20)]))
        if len(blinds) > 0 and draw(st.booleans()):
            min_bet = draw(st.integers(1, top // chip)) * chip
    return Stakes(blinds=blinds, ante=ante, bring_in=bring_in, small_bet=small, big_bet=big,
                  min_bet=min_bet, max_bet=max_bet, chip=chip)


@st.composite
def tables(draw: st.DrawFn, name: str) -> Table:
    variant = VARIANTS[name]
    n = draw(st.one_of(st.just(2), st.integers(2, variant.max_seats)), label="players")
    seats = draw(seat_subsets(n), label="seats")
    structure = draw(st.sampled_from(STRUCTURES), label="structure")
    stakes = draw(stakes_for(structure, name in STUD, n), label="stakes")
    chip = stakes.chip  # a stack is whole chips (BET-12): one chip, below the forced bets...
    forced = max((*stakes.blinds, stakes.ante, stakes.bring_in)) // chip
    stack = st.one_of(st.just(1), st.integers(1, 2 * forced + 1), st.integers(1, 60),
                      st.integers(1, 400))
    stacks = {s: draw(stack, label=f"stack{s}") * chip for s in seats}
    empty = [s for s in range(NUM_SEATS) if s not in seats]
    buttons = st.sampled_from(seats)
    if empty:  # a dead button (GEN-05), sometimes
        buttons = st.one_of(buttons, buttons, st.sampled_from(empty))
    button = draw(buttons, label="button")
    rake = draw(st.sampled_from([(0, 0), (0, 0), (500, 30), (1000, 0)]), label="rake")
    # BLIND-04 at a Draw table: asked (a real table's case), posted unasked, or not allowed
    over_mode = draw(st.sampled_from(["ask", "off", "posted", "ask"]),
                     label="over blind") if name == "draw" else "off"
    over = over_mode != "off"
    rules = TableRules(structure=structure, stakes=stakes, over_blind=over,
                       heads_up_button_first_blind=draw(st.booleans(), label="hu convention"),
                       rake_bp=rake[0], rake_cap=rake[1])
    wants_over = over_mode == "posted"
    ask = over_mode == "ask"
    deck_seed = draw(st.integers(0, 2**32), label="deck seed")
    return Table(name, rules, stacks, button, deck_seed, wants_over, ask)


# ------------------------------------------------------------------------------ the oracle
class Violation(AssertionError):
    pass


@dataclass
class Oracle:
    """Follows a hand through its events and says what the rule text expects.

    ``check(prop, ok, msg)`` raises only for the properties under test, so each test fails
    for its own rule; the bookkeeping (stacks, bets, contributions) is kept for all.
    """

    table: Table
    props: frozenset[str]
    stack: dict[int, int] = field(default_factory=dict)
    bet: dict[int, int] = field(default_factory=dict)
    contrib: dict[int, int] = field(default_factory=dict)
    folded: set[int] = field(default_factory=set)
    acted: set[int] = field(default_factory=set)
    last_actor: int | None = None
    street: int = 0
    up: dict[int, list[str]] = field(default_factory=dict)
    posts: list[tuple[int, str]] = field(default_factory=list)
    drawn: set[int] = field(default_factory=set)
    last_drawer: int | None = None
    turn: int | None = None
    turn_is_draw: bool = False
    rake: int = 0
    dealt: bool = False  # a card has been dealt
    question: int | None = None  # BLIND-04: the seat asked about the over blind, unanswered
    asked: bool = False
    answer: str | None = None  # the action just applied ("timeout" for a timeout)
    ob_due: int | None = None  # BLIND-04: the seat entitled to the over blind
    ob_known: bool = False
    ended: HandEnded | None = None
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        seats = sorted(self.table.stacks)
        self.seats = seats
        self.stack = dict(self.table.stacks)
        self.bet = {s: 0 for s in seats}
        self.contrib = {s: 0 for s in seats}
        self.up = {s: [] for s in seats}

    # -- helpers
    def check(self, prop: str, ok: bool, msg: str) -> None:
        if not ok and prop in self.props:
            trail = "\n  ".join(self.log[-40:])
            raise Violation(f"[{prop}] {msg}\n  table: {self.table.repro()}\n  {trail}")

    @property
    def live(self) -> list[int]:
        return [s for s in self.seats if s not in self.folded]

    @property
    def top(self) -> int:
        return max(self.bet.values())

    def openers(self) -> tuple[str, ...]:
        return OPENERS[self.table.name]

    def in_draw(self) -> bool:
        return (DRAW_STREET.get(self.table.name) == self.street and len(self.live) > 1
                and not set(self.live) <= self.drawn)

    def due(self) -> set[int]:
        """Seats that must still act in this betting round, after ALLIN-04."""
        live = self.live
        if len(live) < 2:
            return set()  # BET-11
        top = self.top
        able = [s for s in live if self.stack[s] > 0]
        owed = {s for s in able if s not in self.acted or self.bet[s] < top}
        return {s for s in owed
                if self.bet[s] < top or any(p != s and self.stack[p] > 0 for p in live)}

    def expected_turns(self) -> set[int]:
        """The seat(s) the rules say act next (two only for the STUD-03 suit tie-break)."""
        if self.in_draw():  # DRAW-03: in turn from the left of the button
            todo = [s for s in self.live if s not in self.drawn]
            anchor = self.last_drawer if self.last_drawer is not None else self.table.button
            nxt = clockwise_after(anchor, todo)
            return {nxt} if nxt is not None else set()
        due = self.due()
        if not due or self.street >= len(self.openers()):
            return set()
        if self.last_actor is not None:  # within a round: clockwise from the last actor
            nxt = clockwise_after(self.last_actor, due)
            return {nxt} if nxt is not None else set()
        how = self.openers()[self.street]
        if how == "blinds":  # BET-02 / BLIND-04: left of the last blind or over blind
            anchor = self.posts[-1][0] if self.posts else self.table.button
            return {clockwise_after(anchor, due)}  # type: ignore[arg-type]
        if how == "button":  # BET-04
            return {clockwise_after(self.table.button, due)}  # type: ignore[arg-type]
        if how == "bring_in":  # STUD-02, STUD-04: all-in players are not counted
            able = [s for s in self.live if self.stack[s] > 0]
            low = min(able, key=lambda s: card_order(self.up[s][-1]))
            return {low if low in due else clockwise_after(low, due)}  # type: ignore[arg-type]
        assert how == "showing"  # STUD-03, STUD-04: an all-in opener passes to the left
        out = set()
        for reading in (0, 1):
            best = max(self.live, key=lambda s: showing_keys(self.up[s])[reading])
            out.add(best if best in due else clockwise_after(best, due))
        return out  # type: ignore[return-value]

    def over_blind_due(self) -> int | None:
        """BLIND-04, from the rule text: once the compulsory blinds are in, the player left of
        the last one may post an over blind of exactly double the last blind; not a blind
        poster (heads-up), and only with the chips to cover it. Computed once, before any
        over blind is posted or any card dealt."""
        if not self.ob_known:
            self.ob_known = True
            t = self.table
            blinds = [s for s, kind in self.posts if kind == "blind"]
            if t.rules.over_blind and (t.over_blind or t.ask) and blinds:
                seat = clockwise_after(blinds[-1], self.seats)
                if (seat is not None and seat not in blinds
                        and self.stack[seat] >= 2 * t.rules.stakes.blinds[-1]):
                    self.ob_due = seat
        return self.ob_due

    # -- events
    def feed(self, events: Sequence[Event]) -> None:
        for ev in events:
            self.log.append(repr(ev))
            handler = getattr(self, "on_" + type(ev).__name__, None)
            if handler is not None:
                handler(ev)

    def on_HandStarted(self, ev: HandStarted) -> None:  # noqa: N802
        self.check("turns", sorted(ev.seats) == self.seats, f"seats {ev.seats}")

    def expected_blind_posters(self) -> list[int]:
        """BLIND-01: from the left of the button; heads-up, optionally the button first."""
        t = self.table
        order: list[int] = []
        anchor = t.button
        for _ in self.seats:
            after = clockwise_after(anchor, [s for s in self.seats if s not in order])
            assert after is not None
            anchor = after
            order.append(anchor)
        if (len(self.seats) == 2 and t.rules.heads_up_button_first_blind
                and t.button in self.seats):
            order = [t.button] + [s for s in order if s != t.button]
        return order

    def on_Posted(self, ev: Posted) -> None:  # noqa: N802
        st_ = self.table.rules.stakes
        if ev.kind == "over_blind":  # BLIND-04: only the entitled seat, asked if asking
            due = self.over_blind_due()
            self.check("turns", ev.seat == due, f"BLIND-04: over blind by {ev.seat}, "
                       f"the rule entitles {due}")
            self.check("turns", not self.table.ask or (self.question == ev.seat
                                                       and self.answer == "over_blind"),
                       f"BLIND-04: over blind by {ev.seat} without being asked for it "
                       f"(answer {self.answer})")
            self.question = None
            self.turn = None
        self.stack[ev.seat] -= ev.amount
        self.contrib[ev.seat] += ev.amount
        self.check("conservation", ev.stack == self.stack[ev.seat] and ev.amount >= 0,
                   f"posted stack {ev} vs {self.stack[ev.seat]}")
        self.check("allin03", ev.stack >= 0, f"negative stack {ev}")
        if ev.kind == "ante":
            due = min(st_.ante, ev.amount + ev.stack)
            self.check("allin01", ev.amount == due, f"ante {ev} should be {due}")
            return
        if ev.kind not in ("blind", "over_blind"):
            return
        self.bet[ev.seat] += ev.amount
        posters = self.expected_blind_posters()
        i = len(self.posts)
        self.posts.append((ev.seat, ev.kind))
        if ev.kind == "blind":
            self.check("turns", i < len(st_.blinds) and posters[i] == ev.seat,
                       f"BLIND-01: blind {i} posted by {ev.seat}, expected {posters[:i + 1]}")
            size = st_.blinds[min(i, len(st_.blinds) - 1)]
        else:
            self.check("turns", i == len(st_.blinds) and posters[i] == ev.seat,
                       f"BLIND-04: over blind by {ev.seat}, expected {posters[i]}")
            size = 2 * st_.blinds[-1]
            self.check("allin01", ev.amount == size,
                       f"BLIND-04: over blind {ev} should be exactly {size}")
        self.check("allin01", ev.amount == min(size, ev.amount + ev.stack),
                   f"blind {ev} should be {size} or all-in")

    def on_Dealt(self, ev: Dealt) -> None:  # noqa: N802
        if not self.dealt:
            self.dealt = True
            due = self.over_blind_due()
            self.check("turns", self.question is None,
                       f"cards dealt while seat {self.question} was asked about the over blind")
            posted = any(kind == "over_blind" for _, kind in self.posts)
            if self.table.ask:
                self.check("turns", self.asked == (due is not None),
                           f"BLIND-04: entitled seat {due}, asked: {self.asked}")
            elif self.table.over_blind:
                self.check("turns", posted == (due is not None),
                           f"BLIND-04: entitled seat {due}, posted: {posted}")
        if not ev.dead:
            self.up[ev.seat].extend(c for c, u in zip(ev.cards, ev.up, strict=True) if u)

    def on_TurnStarted(self, ev: TurnStarted) -> None:  # noqa: N802
        s = ev.seat
        if not self.dealt and self.table.name in DRAW_STREET:  # BLIND-04: before the deal
            due = self.over_blind_due()
            self.check("turns", self.table.ask and s == due and not self.asked,
                       f"a turn for seat {s} before the deal; the over blind is due to {due}")
            self.question = s
            self.asked = True
            self.turn = s
            return
        self.check("turns", ev.street == self.street, f"turn on street {ev.street}, "
                   f"expected street {self.street}")
        self.check("turns", s in self.live, f"turn for seat {s}, not in the hand")
        expected = self.expected_turns()
        self.turn_is_draw = self.in_draw()
        self.check("turns", s in expected,
                   f"turn for seat {s}, the rules say {sorted(expected) or 'nobody'} "
                   f"(street {self.street}, acted {sorted(self.acted)}, last {self.last_actor})")
        if not self.turn_is_draw:  # ALLIN-04, at every turn
            others = [p for p in self.live if p != s and self.stack[p] > 0]
            self.check("allin04", bool(others) or self.bet[s] < self.top,
                       f"turn for seat {s} who owes nothing and no other live player has chips"
                       f" (bets {self.bet}, stacks {self.stack})")
        self.turn = s

    def on_Acted(self, ev: Acted) -> None:  # noqa: N802
        s = ev.seat
        if ev.action == "decline":  # BLIND-04: no over blind; nothing moves
            self.check("turns", s == self.question and ev.amount == 0
                       and ev.stack == self.stack[s] and self.answer in ("decline", "timeout")
                       and ev.timeout == (self.answer == "timeout"),
                       f"decline {ev}, asked {self.question}, answer {self.answer}")
            self.question = None
            self.turn = None
            return
        self.check("turns", s == self.turn, f"seat {s} acted, the turn was {self.turn}")
        delta = ev.amount - self.bet[s]
        self.stack[s] -= delta
        self.contrib[s] += delta
        self.bet[s] = ev.amount
        self.check("conservation", ev.stack == self.stack[s],
                   f"acted stack {ev} vs {self.stack[s]}")
        self.check("allin01", ev.stack >= 0 and delta >= 0, f"{ev} put in more than the stack")
        if ev.action == "fold":
            self.folded.add(s)
        self.acted.add(s)
        self.last_actor = s
        self.turn = None

    def on_Drew(self, ev: Drew) -> None:  # noqa: N802
        self.check("turns", ev.seat == self.turn, f"seat {ev.seat} drew, turn {self.turn}")
        self.drawn.add(ev.seat)
        self.last_drawer = ev.seat
        self.turn = None

    def on_BetReturned(self, ev: BetReturned) -> None:  # noqa: N802
        self.stack[ev.seat] += ev.amount
        self.contrib[ev.seat] -= ev.amount
        self.bet[ev.seat] -= min(self.bet[ev.seat], ev.amount)  # the rest was dead (antes)
        self.check("conservation", ev.stack == self.stack[ev.seat], f"returned {ev}")

    def on_StreetEnded(self, ev: StreetEnded) -> None:  # noqa: N802
        left = self.expected_turns()
        self.check("turns", not left, f"round {ev.street} closed while the rules still "
                   f"owe a turn to {sorted(left)} (acted {sorted(self.acted)})")
        self.check("conservation", ev.pot == sum(self.contrib.values()), f"pot {ev}")
        self.street = ev.street + 1
        self.bet = {s: 0 for s in self.seats}
        self.acted = set()
        self.last_actor = None

    def on_PotAwarded(self, ev: PotAwarded) -> None:  # noqa: N802
        for s, amount in ev.winners.items():
            self.stack[s] += amount
        self.check("conservation", sum(ev.winners.values()) == ev.amount, f"award {ev}")

    def on_RakeTaken(self, ev: RakeTaken) -> None:  # noqa: N802
        self.rake += ev.amount

    def on_HandEnded(self, ev: HandEnded) -> None:  # noqa: N802
        self.ended = ev

    # -- options of the seat on turn
    def check_options(self, opts: Options) -> None:
        s = opts.seat
        if self.question is not None:  # BLIND-04: exactly the over blind or no
            size = 2 * self.table.rules.stakes.blinds[-1]
            self.check("turns", opts == Options(s, over_blind=size, decline=True,
                                                stack=self.stack[s]),
                       f"over blind question options {opts}")
            return
        own, stack = self.bet[s], self.stack[s]
        all_in = own + stack
        offers = {"call": opts.call, "bring_in": opts.bring_in, "complete": opts.complete}
        if opts.bet is not None:
            offers["bet min"], offers["bet max"] = opts.bet
        if opts.raise_ is not None:
            offers["raise min"], offers["raise max"] = opts.raise_
        chip = self.table.rules.stakes.chip
        for what, amount in offers.items():  # ALLIN-01
            if amount is not None:
                self.check("allin01", amount <= all_in,
                           f"seat {s} offered {what} to {amount} with bet {own} + stack "
                           f"{stack} = {all_in}: {opts}")
                self.check("allin01", amount % chip == 0 or amount == all_in,
                           f"BET-12: seat {s} offered {what} to {amount}, off the chip grid "
                           f"of {chip} and not all-in: {opts}")
        if opts.draw is None:  # BET-13
            top = self.top
            room = [p for p in self.live if p != s and self.bet[p] + self.stack[p] > top]
            for what, offered in (("bet", opts.bet), ("raise", opts.raise_),
                                  ("complete", opts.complete)):
                self.check("bet13", offered is None or bool(room),
                           f"seat {s} offered {what} {offered} but nobody else in the hand can"
                           f" put in more than {top} (bets {self.bet}, stacks {self.stack})")

    # -- at the end
    def final(self, hand: Hand) -> None:
        t = self.table
        ended = self.ended
        self.check("conservation", ended is not None and ended.stacks == self.stack,
                   f"HandEnded {ended} vs tracked {self.stack}")
        assert ended is not None
        start = sum(t.stacks.values())
        self.check("conservation", sum(ended.stacks.values()) + ended.rake == start,
                   f"{sum(ended.stacks.values())} + rake {ended.rake} != {start}")
        self.check("conservation", ended.rake == self.rake and hand.stacks == ended.stacks,
                   f"rake {ended.rake} vs events {self.rake}")
        for s in self.seats:
            gain = ended.stacks[s] - t.stacks[s]
            self.check("allin03", ended.stacks[s] >= 0, f"seat {s} ends below zero")
            if s in self.folded:
                self.check("allin03", gain == -self.contrib[s],
                           f"folded seat {s} gained {gain} having put in {self.contrib[s]}")
            cap = sum(min(self.contrib[s], self.contrib[p]) for p in self.seats if p != s)
            self.check("allin03", gain <= cap,
                       f"seat {s} won {gain} but matched only {cap} (contributions "
                       f"{self.contrib}, final {ended.stacks})")


# ------------------------------------------------------------------------- the random play
Action = tuple[int, str, int | None, tuple[str, ...]]


CHIP = {"chip": 1}  # the table's chip, set by ``play_hand`` for ``choose``


def opts_chip(lo: int, hi: int) -> int:
    """The chip when some multiple of it lies in ``[lo, hi]``, else 0."""
    chip = CHIP["chip"]
    return chip if hi // chip >= -(-lo // chip) else 0


def choose(data: st.DataObject, opts: Options, own: Sequence[str]) -> Action:
    """A legal action, shrinking towards passive play; all-ins and timeouts are frequent."""
    s = opts.seat
    if data.draw(st.integers(0, 24), label="timeout?") == 24:
        return s, "timeout", None, ()
    if opts.over_blind is not None:  # BLIND-04
        return s, data.draw(st.sampled_from(["over_blind", "decline"]), label="over?"), \
            None, ()
    if opts.draw is not None:
        k = min(opts.draw, len(own))
        discard = data.draw(st.lists(st.sampled_from(list(own)), unique=True, max_size=k),
                            label="discard")
        return s, "draw", None, tuple(discard)
    menu: list[tuple[str, int | None]] = []
    for kind in ("check", "call", "bring_in"):
        if opts.allows(kind):
            amount = {"call": opts.call, "bring_in": opts.bring_in}.get(kind)
            menu += [(kind, amount)] * 2
    if opts.fold:
        menu.append(("fold", None))
    if opts.complete is not None:
        menu.append(("complete", opts.complete))
    for kind, bounds in (("bet", opts.bet), ("raise", opts.raise_)):
        if bounds is not None:
            lo, hi = bounds
            menu += [(kind, lo), (kind, hi), (kind, hi)]
            chip = opts_chip(lo, hi)
            if chip:  # an amount between, on the chip grid (BET-12)
                k = data.draw(st.integers(-(-lo // chip), hi // chip), label="amount")
                menu.append((kind, k * chip))
    kind, amount = data.draw(st.sampled_from(menu), label="action")
    return s, kind, amount, ()


def apply(hand: Hand, action: Action) -> list[Event]:
    seat, kind, amount, discard = action
    if kind == "timeout":
        return hand.timeout(seat)
    return hand.act(seat, kind, amount, discard)


def fingerprint(hand: Hand) -> str:
    skip = {"_events", "_opts_cache", "_after"}
    return repr(sorted((k, v) for k, v in vars(hand).items() if k not in skip))


def out_of_turn(data: st.DataObject, hand: Hand, oracle: Oracle, opts: Options) -> None:
    """BET-01: another seat (folded, all-in or waiting) tries to act: refused, nothing moves."""
    seat = opts.seat
    others = [s for s in oracle.seats if s != seat]
    other = data.draw(st.sampled_from(others), label="intruder")
    kinds = [*opts.kinds, "timeout", "fold", "check"]
    kind = data.draw(st.sampled_from(kinds), label="intruder action")
    amount = {"call": opts.call, "bring_in": opts.bring_in, "complete": opts.complete,
              "bet": opts.bet[1] if opts.bet else None,
              "raise": opts.raise_[1] if opts.raise_ else None}.get(kind)
    before = fingerprint(hand)
    try:
        if kind == "timeout":
            hand.timeout(other)
        else:
            hand.act(other, kind, amount, ())
    except IllegalAction as exc:
        oracle.check("turns", exc.reason == "not_your_turn",
                     f"seat {other} acting out of turn ({kind}) refused as {exc.reason!r}")
    else:
        oracle.check("turns", False, f"seat {other} acted out of turn ({kind} {amount}) while "
                     f"it was seat {seat}'s turn")
    oracle.check("turns", fingerprint(hand) == before,
                 f"refused out-of-turn {kind} by seat {other} changed the hand")
    oracle.check("turns", hand.options(other) is None,
                 f"seat {other} has options while it is seat {seat}'s turn")


def play_hand(data: st.DataObject, name: str, props: frozenset[str]) -> None:
    table = data.draw(tables(name), label="table")
    hand = table.hand()
    CHIP["chip"] = table.rules.stakes.chip
    oracle = Oracle(table, props)
    recorded = hand.start()
    oracle.feed(recorded)
    actions: list[Action] = []
    while not hand.is_over:
        assert len(actions) < 400, "the hand does not end"
        seat = hand.to_act
        oracle.check("turns", seat is not None and seat == oracle.turn,
                     f"engine to_act {seat}, last TurnStarted {oracle.turn}")
        assert seat is not None
        opts = hand.options(seat)
        assert opts is not None
        oracle.check_options(opts)
        if "turns" in props and data.draw(st.booleans(), label="try out of turn"):
            out_of_turn(data, hand, oracle, opts)
        action = choose(data, opts, hand.cards_of(seat))
        oracle.log.append(f"-> {action}")
        oracle.answer = action[1]
        events = apply(hand, action)
        actions.append(action)
        recorded += events
        oracle.feed(events)
    oracle.check("turns", not oracle.expected_turns(),
                 f"the hand ended while the rules owe a turn to {oracle.expected_turns()}")
    oracle.final(hand)
    if "replay" in props:  # 7: the deck and the actions are the whole input
        again = table.hand()
        events = again.start()
        for action in actions:
            events += apply(again, action)
        oracle.check("replay", events == recorded, "the replay differs")


# ------------------------------------------------------------------------------ the tests
FAST = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
MANY = settings(max_examples=1500, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
games = pytest.mark.parametrize("name", POT_GAMES)


@games
@FAST
@given(data=st.data())
def test_chips_conserved(name: str, data: st.DataObject) -> None:
    """GEN-06 GEN-09: stacks + rake == starting stacks, event by event and at the end."""
    play_hand(data, name, frozenset({"conservation"}))


@games
@FAST
@given(data=st.data())
def test_allin03_nobody_wins_more_than_matched(name: str, data: st.DataObject) -> None:
    """ALLIN-03: net gain <= sum over opponents of min(own, their contribution); a folded
    player gains nothing; no stack below zero."""
    play_hand(data, name, frozenset({"allin03"}))


@games
@FAST
@given(data=st.data())
def test_turn_order_follows_the_rule_text(name: str, data: st.DataObject) -> None:
    """BET-01 BET-02 BET-04 STUD-02 STUD-03 STUD-04 BLIND-01 BLIND-04 DRAW-03: only the player
    on turn may act (not_your_turn, hand unchanged); blinds, openers and clockwise order."""
    play_hand(data, name, frozenset({"turns"}))


@games
@FAST
@given(data=st.data())
def test_allin04_no_turn_against_no_one(name: str, data: st.DataObject) -> None:
    """ALLIN-04: every betting turn has another live player with chips, or the seat owes."""
    play_hand(data, name, frozenset({"allin04"}))


@games
@FAST
@given(data=st.data())
def test_bet13_no_raise_nobody_can_call(name: str, data: st.DataObject) -> None:
    """BET-13: no bet/raise/completion offer unless another live player can put in more."""
    play_hand(data, name, frozenset({"bet13"}))


@games
@FAST
@given(data=st.data())
def test_allin01_no_option_above_the_stack(name: str, data: st.DataObject) -> None:
    """ALLIN-01: call, bet/raise bounds, complete and bring-in are <= own bet + stack."""
    play_hand(data, name, frozenset({"allin01"}))


@games
@FAST
@given(data=st.data())
def test_replay_is_exact(name: str, data: st.DataObject) -> None:
    """Replay: the same deck and actions (timeouts included) give the same events."""
    play_hand(data, name, frozenset({"replay"}))


@pytest.mark.slow
@pytest.mark.soak
@games
@MANY
@given(data=st.data())
def test_all_rule_properties_many_examples(name: str, data: st.DataObject) -> None:
    """Every property above at once, with many more examples (the slow run)."""
    play_hand(data, name, frozenset(PROPS))


# --------------------------------------------------------------------------- Caribbean Stud
CSP_SETTINGS = [
    CaribbeanSettings(ante_min=1, ante_max=50, jackpot_wager=1),
    CaribbeanSettings(ante_min=5, ante_max=60, jackpot_wager=10, dealing_mode="shoe"),
    CaribbeanSettings(ante_min=2, ante_max=20, jackpot_wager=0),
    CaribbeanSettings(ante_min=5, ante_max=60, jackpot_wager=7, split_pools=True,
                      minor_share_bp=2_500, major_share_bp=4_999),
]
CspAction = tuple[str, int, int, bool]


def play_caribbean(data: st.DataObject) -> None:
    cfg = data.draw(st.sampled_from(CSP_SETTINGS), label="settings")
    n = data.draw(st.integers(1, 9), label="players")
    seats = data.draw(seat_subsets(n), label="seats")
    low = 3 * cfg.ante_min + cfg.jackpot_wager
    stack = st.one_of(st.just(0), st.just(1), st.integers(0, low + 2), st.integers(0, 500))
    initial = {s: data.draw(stack, label=f"stack{s}") for s in seats}
    deck = [r + s for r in RANKS for s in SUITS]
    random.Random(data.draw(st.integers(0, 2**32), label="deck seed")).shuffle(deck)
    rnd = CaribbeanRound(cfg, initial, deck, round_id="r")
    actions: list[CspAction] = []

    def do(action: CspAction) -> None:
        kind, seat, amount, jackpot = action
        if kind == "ante":
            rnd.ante(seat, amount, jackpot=jackpot)
        else:
            getattr(rnd, kind)(*(() if kind == "deal" else (seat,)))
        actions.append(action)

    def twice(seat: int, kind: str) -> None:
        """BET-01: a seat that has done its part is refused and nothing changes."""
        before = rnd.snapshot()
        with pytest.raises(IllegalAction) as exc:
            if kind == "ante":
                rnd.ante(seat, cfg.ante_min)
            else:
                getattr(rnd, kind)(seat)
        assert exc.value.reason == "not_your_turn" and rnd.snapshot() == before

    for seat in data.draw(st.permutations(seats), label="ante order"):
        opts = house_options(rnd, seat)
        choice = data.draw(st.sampled_from(["ante", "ante", "jackpot", "sit_out", "timeout"]))
        limits = opts.get("ante")
        if choice in ("ante", "jackpot") and isinstance(limits, dict):
            jp = opts.get("jackpot") if choice == "jackpot" else None
            top = jp["max_ante"] if isinstance(jp, dict) else limits["max"]
            do(("ante", seat, data.draw(st.integers(limits["min"], top)), jp is not None))
        else:
            do(("timeout" if choice == "timeout" else "sit_out", seat, 0, False))
        twice(seat, data.draw(st.sampled_from(["ante", "sit_out"])))
    do(("deal", -1, 0, False))
    dealt = [s for s in seats if house_options(rnd, s)]
    for seat in data.draw(st.permutations(dealt), label="decision order"):
        do((data.draw(st.sampled_from(["play", "fold", "timeout"])), seat, 0, False))
        if rnd.phase != "ended":
            twice(seat, data.draw(st.sampled_from(["play", "fold"])))
    assert rnd.phase == "ended"
    events = list(rnd.events)
    # 1. conservation, per seat and in all: what left a stack is on the Settled ledger
    wagered = {s: 0 for s in seats}
    for ev in events:
        if isinstance(ev, AnteAccepted | JackpotWagered | PlayerDecided):
            wagered[ev.seat] += ev.amount
            assert ev.stack >= 0 and ev.stack == initial[ev.seat] - wagered[ev.seat]
    settled = {ev.seat: ev for ev in events if isinstance(ev, Settled)}
    end = events[-1]
    assert isinstance(end, RoundEnded) and end.stacks == rnd.stacks
    for s in seats:
        assert end.stacks[s] >= 0
        if s in settled:
            e = settled[s]
            assert end.stacks[s] == e.stack == initial[s] + e.ante + e.play + e.jackpot
            if e.folded:  # CSP-03: a fold loses the ante and any jackpot wager, nothing more
                assert e.play == 0 and e.ante <= 0 and e.jackpot <= 0
        else:
            assert end.stacks[s] == initial[s] and wagered[s] == 0
    assert end.house_net == -sum(e.ante + e.play for e in settled.values())
    assert end.jackpot_collected == -sum(e.jackpot for e in settled.values())
    assert sum(end.stacks.values()) + end.house_net + end.jackpot_collected == sum(
        initial.values())
    # 7. replay
    again = CaribbeanRound(cfg, initial, deck, round_id="r")
    for action in actions:
        kind, seat, amount, jackpot = action
        if kind == "ante":
            again.ante(seat, amount, jackpot=jackpot)
        else:
            getattr(again, kind)(*(() if kind == "deal" else (seat,)))
    assert list(again.events) == events


@FAST
@given(data=st.data())
def test_caribbean_chips_conserved_and_replay(data: st.DataObject) -> None:
    """GEN-06 CSP-03 CSP-04: players + house net + jackpot wagers collected == starting
    stacks, per seat on the Settled ledger; a seat that has acted is refused (BET-01);
    the same deck and actions replay to the same events."""
    for _ in range(5):
        play_caribbean(data)


@pytest.mark.slow
@pytest.mark.soak
@MANY
@given(data=st.data())
def test_caribbean_many_examples(data: st.DataObject) -> None:
    """The Caribbean properties with many more examples."""
    play_caribbean(data)


# ------------------------------------------- regressions: shrunk examples, as plain tests
def scripted(table: Table, script: Sequence[tuple[str, int | None]] = ()) -> Oracle:
    """Play ``script`` (kind, amount) for whoever is on turn, then passively to the end,
    with every property checked at every step; returns the oracle for extra asserts."""
    hand = table.hand()
    oracle = Oracle(table, frozenset(PROPS))
    oracle.feed(hand.start())
    steps = list(script)
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None and seat == oracle.turn
        opts = hand.options(seat)
        assert opts is not None
        oracle.check_options(opts)
        if steps:
            kind, amount = steps.pop(0)
        elif opts.draw is not None:
            kind, amount = "draw", None
        else:
            kind = next(k for k in ("check", "call", "bring_in", "fold") if opts.allows(k))
            amount = None
        oracle.log.append(f"-> {seat} {kind} {amount}")
        oracle.feed(hand.act(seat, kind, amount))
    assert not steps, f"script left over: {steps}"
    oracle.final(hand)
    return oracle


def blind_table(name: str, structure: str, blinds: tuple[int, ...], stacks: dict[int, int],
                button: int, deck_seed: int = 0, **stakes: int) -> Table:
    rules = TableRules(structure=structure, stakes=Stakes(blinds=blinds, **stakes))
    return Table(name, rules, stacks, button, deck_seed, False)


def test_bet02_seat_0_left_of_the_last_blind_opens() -> None:
    """BET-02: heads-up, seat 1 posts the only blind; seat 0 is left of it and opens (the
    engine once turned `next_seat or first` on seat 0 and gave the turn to seat 1)."""
    table = blind_table("holdem", "fixed_limit", (1,), {0: 1, 1: 2}, button=0, small_bet=1,
                        big_bet=1)
    hand = table.hand()
    hand.start()
    assert hand.to_act == 0
    scripted(table)


def test_allin04_no_turn_after_the_last_caller_taps_out() -> None:
    """ALLIN-04: seat 1 calls the blind all-in; seat 0 (the blind) owes nothing and no one
    else can bet, so no turn is offered to it (checked after every action)."""
    oracle = scripted(blind_table("holdem", "fixed_limit", (1,), {0: 2, 1: 1}, button=1,
                                  small_bet=1, big_bet=1), [("call", None)])
    assert oracle.ended is not None and not oracle.ended.voided


def test_bet13_no_raise_when_nobody_can_call_more() -> None:
    """BET-13: seat 0 shoves to 30; the big blind has 20 in all, so the small blind (100
    behind) may call or fold but not raise (the engine once looked only at "has chips")."""
    table = blind_table("holdem", "no_limit", (5, 10), {0: 30, 1: 100, 2: 20}, button=0)
    hand = table.hand()
    hand.start()
    assert hand.to_act == 0
    hand.act(0, "raise", 30)
    assert hand.to_act == 1
    opts = hand.options(1)
    assert opts is not None and opts.call == 30 and opts.raise_ is None and opts.bet is None
    scripted(table, [("raise", 30)])


def test_allin01_stud_completion_capped_at_the_stack() -> None:
    """ALLIN-01 STUD-02: a bring-in seat with 2 chips may complete to at most 2 (not 3)."""
    rules = TableRules(structure="fixed_limit",
                       stakes=Stakes(bring_in=1, small_bet=3, big_bet=3))
    table = Table("stud5", rules, {0: 1, 1: 2}, 0, 2, False)
    hand = table.hand()
    hand.start()
    seat = hand.to_act
    assert seat is not None
    opts = hand.options(seat)
    assert opts is not None
    assert opts.complete is None or opts.complete <= hand.stacks[seat] + hand.bets[seat]
    scripted(table)


def test_draw03_all_in_players_still_draw() -> None:
    """DRAW-03 ALLIN-04: both players are all-in before the draw; no more betting, but "each
    remaining player discards none to five cards", so both still get their draw turn."""
    table = blind_table("draw", "no_limit", (5, 10), {0: 10, 1: 10}, button=0)
    oracle = scripted(table, [("call", None)])
    draws = [line for line in oracle.log if line.startswith("Drew(")]
    assert len(draws) == 2, "\n".join(oracle.log)
