"""POT-01, the odd chip: it goes to the tied player holding the highest card by suit among
their *hole cards* (rank first, then spades > hearts > diamonds > clubs).

Hole cards are the player's face-down cards as held at the showdown: in stud the down cards
(never the up cards), in Hold'em and Manila the private cards (never the board), in Draw the
five cards held after the draw (every card is face down; the discards are gone).

Scripted hands (one per game family), then a property over random hands of every pot game
built to tie, written from the rule text: the expected holder of the odd chip is computed here
from the dealing events alone (``Dealt`` up flags and ``Drew``), never from the engine's helpers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from server.rules.draw import DRAW
from server.rules.events import Dealt, Drew, Event, PotAwarded, Showdown
from server.rules.hand import Hand
from server.rules.structure import NO_LIMIT, Stakes
from server.rules.stud import STUD5, STUD7
from server.rules.variant import TableRules, Variant
from server.rules.variants import VARIANTS
from tests.rules import scripted
from tests.rules.variant_helpers import (
    Script,
    call_down,
    full_deck,
    limit_rules,
    of,
    one_at_a_time,
    play,
    run,
    streets_top,
    stud_rules,
)

RANKS = "23456789TJQKA"
SUITS = "cdhs"  # POT-01: clubs lowest, then diamonds, hearts, spades


def card_order(card: str) -> tuple[int, int]:
    """POT-01: rank first, then suit (an ace of clubs beats a king of spades)."""
    return RANKS.index(card[0]), SUITS.index(card[1])


def the_award(events: Sequence[Event]) -> PotAwarded:
    (award,) = of(events, PotAwarded)
    return award


# ------------------------------------------------------------------------ scripted hands
def test_pot01_five_card_stud_odd_chip_by_hole_card_not_up_cards() -> None:
    """POT-01: Five Card Stud, seats 0 and 1 tie with 9-7-5-4-2.  Seat 0's hole card is the
    5s, seat 1's the 9h; seat 0 shows the 9s.  The 9s is an up card, so the odd chip goes to
    seat 1 (the higher hole card), not to the holder of the highest card of all."""
    script = Script(
        variant=STUD5, rules=stud_rules(), stacks={0: 100, 1: 100, 2: 100}, button=2,
        deck=full_deck(STUD5, streets_top(
            [0, 1, 2],
            [{0: "5s 2h", 1: "9h 7d", 2: "Ac 2d"},  # seat 2 shows the lowest up card
             {0: "9s", 1: "5d"}, {0: "7c", 1: "2c"}, {0: "4h", 1: "4c"}],
            burns=["3c", "3d", "3h"])),
        # seat 2 brings in (5) and folds to the completion: 2 + 5 are odd in a pot of 31
        actions=["2 bring_in", "0 complete", "1 call", "2 fold",
                 "0 check", "1 check", "0 check", "1 check", "0 check", "1 check"],
        final={0: 103, 1: 104, 2: 93},
    )
    ran = run(script)
    assert the_award(ran.events) == PotAwarded(0, 31, {0: 15, 1: 16}, 1, "high card, nine")
    assert [(s.seat, s.cards) for s in ran.of(Showdown)] == [
        (0, ("5s", "2h", "9s", "7c", "4h")), (1, ("9h", "7d", "5d", "2c", "4c"))]


def test_pot01_seven_card_stud_odd_chip_by_the_three_down_cards() -> None:
    """POT-01: Seven Card Stud, seats 0 and 1 tie with K-Q-9-7-5.  Seat 0's down cards are
    5s 3c 2d (the last on 7th street), seat 1's 9h 3h 2c; seat 0 shows the Kd, seat 1 the Kc.
    The highest down card is seat 1's 9h: the odd chip is seat 1's, although seat 0 holds
    the highest card of all (the Kd, an up card)."""
    script = Script(
        variant=STUD7, rules=stud_rules(), stacks={0: 100, 1: 100, 2: 100}, button=2,
        deck=full_deck(STUD7, streets_top(
            [0, 1, 2],
            [{0: "5s 3c 7c", 1: "9h 3h 5d", 2: "Ac Ah 2s"},
             {0: "9s", 1: "Kc"}, {0: "Kd", 1: "Qd"}, {0: "Qh", 1: "7d"},
             {0: "2d", 1: "2c"}],
            burns=["4c", "4d", "4h", "4s"])),
        actions=[],
    )
    hand = script.make()
    events = hand.start()
    events += play(hand, ["2 bring_in", "0 complete", "1 call", "2 fold"])
    events += call_down(hand)
    assert hand.is_over
    award = the_award(events)
    assert award == PotAwarded(0, 31, {0: 15, 1: 16}, 1, "high card, king")
    assert hand.stacks == {0: 103, 1: 104, 2: 93}
    assert [d.up for d in of(events, Dealt) if d.seat == 1] == [
        (False, False, True), (True,), (True,), (True,), (False,)]


# Draw, three players, button 2: seat 0 posts the small blind (5) and folds, seats 1 and 2
# play a pot of 25 to the showdown.  Seat 1 is dealt the As and discards it for the 2h; seat 2
# stands pat.  Both hold 9-7-5-3-2.
DRAW_HOLES = {0: "Kh Qh Jh Th 8h", 1: "As 9d 7c 5d 3c", 2: "9h 7d 5c 3h 2d"}
DRAW_ODD = Script(
    variant=DRAW, rules=limit_rules(), stacks={0: 100, 1: 100, 2: 100}, button=2,
    deck=full_deck(DRAW, one_at_a_time([0, 1, 2], DRAW_HOLES) + ["4c", "2h"]),
    actions=["2 call", "0 fold", "1 check",
             "1 draw As", "2 draw",
             "1 check", "2 check"],
    final={0: 95, 1: 102, 2: 103},
)


def test_pot01_draw_hole_cards_are_the_cards_held_at_the_showdown() -> None:
    """POT-01, DRAW-04: in Draw every card is a hole card, and the hole cards that place the
    odd chip are the five held at the showdown: seat 1 discarded its As in the draw, so its
    highest hole card is the 9d, and seat 2's 9h takes the odd chip (counting the discarded
    ace, or the cards as first dealt, would give it to seat 1)."""
    ran = run(DRAW_ODD)
    assert ran.of(Drew)[0].discarded == ("As",) and ran.of(Drew)[0].received == ("2h",)
    assert the_award(ran.events) == PotAwarded(0, 25, {1: 12, 2: 13}, 2, "high card, nine")


def test_pot01_holdem_board_never_places_the_odd_chip() -> None:
    """POT-01, HOLD-03: seats 1 and 2 both play the board's A-K-Q-J-9.  The board's ace is
    higher than any hole card and belongs to nobody: the odd chip goes to seat 2's 3h, the
    highest hole card, although seat 1 comes first in the dealing order."""
    scripted.run(scripted.Script(
        stacks={0: 100, 1: 100, 2: 100}, button=2, structure=NO_LIMIT,
        holes={0: "Kh Kd", 1: "3c 2c", 2: "3h 2d"}, board="As Ks Qd Jc 9h",
        actions=[(2, "call"), (0, "fold"), (1, "check"),
                 (1, "check"), (2, "check"), (1, "check"), (2, "check"),
                 (1, "check"), (2, "check")],
        events=[PotAwarded(0, 25, {1: 12, 2: 13}, 2, "high card, ace")],
        final={0: 95, 1: 102, 2: 103},
    ))


# ---------------------------------------------------------------- property: forced ties
POT_GAMES = ("holdem", "manila", "manila3", "draw", "stud5", "stud7")
STUD = frozenset({"stud5", "stud7"})
NUM_SEATS = 10
# The folder's contribution (small blind 5, or stud ante 2 + bring-in 3) is not a multiple
# of 2 or 3, so every pot shared by two or three tied players has an odd chip.  With a short
# tied player (of three; all-in for 4 against the blinds, or for the ante of 2) the main pot
# (4 x 4 = 16, or 4 x 2 = 8) and the side pot of the two others (1 + 6 + 6 = 13, or
# 3 + 6 + 6 = 15) each have one.
BLIND_STAKES = Stakes(blinds=(5, 10))
STUD_STAKES = Stakes(ante=2, bring_in=3, small_bet=6, big_bet=12)
SHORT_STACK = {False: 4, True: 2}  # by "is a stud game"
HOLE_COUNT = {"holdem": 2, "manila": 2, "manila3": 3, "draw": 5, "stud5": 5, "stud7": 7}


@dataclass(frozen=True)
class TieTable:
    """A hand built to end in a tie: ``tied`` share every own card's rank, position by
    position (suits differ), and ``folder`` puts in an odd amount and folds."""

    game: str
    seats: tuple[int, ...]  # clockwise from the button's left
    button: int
    folder: int
    tied: tuple[int, ...]  # clockwise from the button's left
    discards: int  # Draw: each tied player replaces this many cards
    deck: list[str]
    short: int | None = None  # a tied player who is all-in early (side pot)


def _pick_pattern(pool: list[str], used: set[str], k: int) -> list[str]:
    """k unused cards of one rank (the first rank in ``pool`` order that has k left)."""
    for card in pool:
        if card in used:
            continue
        same = [c for c in pool if c[0] == card[0] and c not in used]
        if len(same) >= k:
            return same[:k]
    raise AssertionError("the deck has no rank with enough cards left")


def _draw_board(pool: list[str], used: set[str], n: int) -> list[str]:
    """n unused cards with at most two of any suit: nobody can make a flush (HOLD-03: two
    hole cards; MAN-03, MAN3-03: exactly three board cards)."""
    board: list[str] = []
    for c in pool:
        if c not in used and sum(b[1] == c[1] for b in board) < 2:
            board.append(c)
            used.add(c)
            if len(board) == n:
                return board
    raise AssertionError("no board without three of a suit")


def _next_free(pool: list[str], used: set[str]) -> str:
    c = next(c for c in pool if c not in used)
    used.add(c)
    return c


def build_tie(game: str, pool: list[str], seat_set: list[int], folder_i: int,
              discards: int, short_i: int | None = None) -> TieTable:
    """The deck in dealing order from the rule text (HOLD-01/02, MAN-01/02, MAN3-01/02,
    DRAW-01/03, STUD-01): own cards one at a time from the button's left, burns before each
    later street, the Draw replacements in draw order after one burn."""
    ring = sorted(seat_set)
    folder = ring[folder_i]
    # stud: any seat (the folder brings in); else the folder is left of the button: the
    # small blind
    button = ring[(folder_i + 1) % len(ring)] if game in STUD else ring[folder_i - 1]
    seats = tuple(sorted(ring, key=lambda s: (s - button - 1) % NUM_SEATS))
    tied = tuple(s for s in seats if s != folder)
    k = len(tied)
    used: set[str] = set()
    bring_in_card = "2c"  # the lowest card of all: STUD-02 makes the folder bring in
    if game in STUD:
        used.add(bring_in_card)
    n_own = HOLE_COUNT[game] + (discards if game == "draw" else 0)
    own: dict[int, list[str]] = {s: [] for s in tied}
    for _ in range(n_own):
        cards = _pick_pattern(pool, used, k)
        used.update(cards)
        for s, c in zip(tied, cards, strict=True):
            own[s].append(c)
    board = _draw_board(pool, used, 5) if game in ("holdem", "manila", "manila3") else []
    first = 3 if game == "stud7" else 2 if game in STUD else HOLE_COUNT[game]
    own[folder] = [_next_free(pool, used) for _ in range(first)]
    if game in STUD:
        own[folder][-1] = bring_in_card  # the folder's first up card

    def burn() -> str:
        return _next_free(pool, used)

    top = one_at_a_time(seats, {s: own[s][:first] for s in seats})
    if game == "holdem":
        top += [burn(), *board[:3], burn(), board[3], burn(), board[4]]
    elif game in ("manila", "manila3"):
        top += [board[0]]
        for c in board[1:]:
            top += [burn(), c]
    elif game == "draw":
        top += [burn()]
        for s in tied:  # DRAW-03: in turn from the left of the button
            top += own[s][5:]
    else:  # stud: the folder is gone after 3rd street; one card a street to the others
        for i in range(first, HOLE_COUNT[game]):
            top += [burn(), *(own[s][i] for s in tied)]
    return TieTable(game, seats, button, folder, tied, discards,
                    full_deck(VARIANTS[game], top),
                    None if short_i is None else tied[short_i])


def can_flush(game: str, own: Sequence[str]) -> bool:
    """Draw and stud hands use only the player's cards: five of one suit make a flush."""
    return game in ("draw", "stud5", "stud7") and max(
        sum(c[1] == s for c in own) for s in SUITS) >= 5


@st.composite
def tie_tables(draw: st.DrawFn, game: str) -> TieTable:
    variant = VARIANTS[game]
    k = draw(st.integers(2, 3), label="tied players")
    seat_set = draw(st.lists(st.integers(0, NUM_SEATS - 1), min_size=k + 1, max_size=k + 1,
                             unique=True), label="seats")
    folder_i = draw(st.integers(0, k), label="folder")
    discards = draw(st.integers(0, 3), label="discards") if game == "draw" else 0
    short_i = draw(st.none() | st.integers(0, 2), label="short") if k == 3 else None
    pool = draw(st.permutations(list(variant.card_set)), label="card order")
    return build_tie(game, pool, seat_set, folder_i, discards, short_i)


def _rules(game: str) -> TableRules:
    if game in STUD:
        return TableRules(structure="fixed_limit", stakes=STUD_STAKES)
    return TableRules(structure=NO_LIMIT, stakes=BLIND_STAKES)


def play_tie(table: TieTable, variant: Variant) -> tuple[Hand, list[Event]]:
    """The folder folds (or brings in, then folds to the completion); the tied players
    complete once, call, stand pat or draw their first cards, and check to the end."""
    stacks = {s: SHORT_STACK[table.game in STUD] if s == table.short else 1000
              for s in table.seats}
    hand = Hand(variant, _rules(table.game), stacks,
                button=table.button, deck=table.deck, num_seats=NUM_SEATS, hand_id="tie",
                seed=b"tie")
    events = hand.start()
    for _ in range(200):
        if hand.is_over:
            break
        seat = hand.to_act
        assert seat is not None
        opts = hand.options(seat)
        assert opts is not None
        if opts.draw is not None:
            events += hand.act(seat, "draw", None, tuple(hand.own[seat][:table.discards]))
        elif seat == table.folder:
            events += hand.act(seat, "bring_in" if opts.bring_in is not None else "fold")
        elif opts.complete is not None:
            events += hand.act(seat, "complete")
        else:
            events += hand.act(seat, "check" if opts.check else "call")
    assert hand.is_over
    return hand, events


def held_cards(events: Sequence[Event], *, hole_only: bool) -> dict[int, list[str]]:
    """Each seat's cards at the end, from the events: every card dealt to it (with
    ``hole_only``, only the face-down ones: ``Dealt.up``), less the cards discarded in a
    draw, plus the cards drawn (dealt face down, DRAW-03)."""
    held: dict[int, list[str]] = {}
    for e in events:
        if isinstance(e, Dealt) and not e.dead:
            held.setdefault(e.seat, []).extend(
                c for c, up in zip(e.cards, e.up, strict=True) if not (hole_only and up))
        elif isinstance(e, Drew):
            kept = [c for c in held[e.seat] if c not in e.discarded]
            held[e.seat] = kept + list(e.received)
    return held


def check_odd_chips(events: Sequence[Event], tied: Sequence[int]) -> int:
    """Every pot: shared equally by its winners, all of them tied players (every tied player
    in the main pot); the remainder (if any) to the winner holding the highest hole card by
    (rank, suit).  Returns how many pots had an odd chip."""
    hole = held_cards(events, hole_only=True)
    seen = 0
    for award in of(events, PotAwarded):
        winners = sorted(award.winners)
        assert set(winners) <= set(tied)
        assert award.pot > 0 or winners == sorted(tied)
        each, rest = divmod(award.amount, len(winners))
        if rest == 0:
            assert award.odd_chip is None
            assert award.winners == dict.fromkeys(winners, each)
            continue
        best = max(winners, key=lambda s: max(card_order(c) for c in hole[s]))
        assert award.odd_chip == best, (award, {s: hole[s] for s in winners})
        assert award.winners == {s: each + (rest if s == best else 0) for s in winners}
        seen += 1
    return seen


TIE_SETTINGS = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                        suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("game", POT_GAMES)
@TIE_SETTINGS
@given(data=st.data())
def test_pot01_odd_chip_to_the_highest_hole_card_in_random_ties(game: str,
                                                                data: st.DataObject) -> None:
    """POT-01 over random hands of every pot game built to tie (two or three players whose
    own cards have the same ranks, no flush possible, a folded player's odd blind or bring-in
    in the pot, sometimes a short tied player and a side pot): each pot is split on its own,
    equally, and its odd chip goes to its tied player with the highest hole card by (rank,
    suit), the hole cards read from the dealing events."""
    table = data.draw(tie_tables(game), label="table")
    _, events = play_tie(table, VARIANTS[game])
    held = held_cards(events, hole_only=False)
    assume(not any(can_flush(game, held[s]) for s in table.tied))
    # one pot split with an odd chip, or with a short tied player a main and a side pot
    assert check_odd_chips(events, table.tied) == (1 if table.short is None else 2)
