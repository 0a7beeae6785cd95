"""Properties of the home games' house rules over random tables and random legal play
(STRAD-01, RIT-01..04; docs/rules.md section 4), at Hold'em, Manila and Three Card Manila.

With the straddle and run it twice both on (and the rake sometimes):

1. GEN-06 GEN-09: chips are conserved: final stacks + rake == starting stacks.
2. ALLIN-03: nobody wins from an opponent more than they put in themselves (per seat, the
   gain is at most what the others put in, each up to the seat's own contribution); a folded
   player gains nothing; no stack goes negative.
3. RIT-04: when the board is run twice, the two halves of every pot add up to that pot, the
   first half never the smaller, and the second run's board shares exactly the cards dealt
   before the question.
4. RIT-02: the question is asked only when nobody can bet any more, only of the players still
   in, and never twice in a hand.

Hypothesis runs derandomized (deterministic in CI), 100 examples per game.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules.events import Acted, BoardDealt, PotAwarded, RakeTaken, StreetEnded
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.manila import MANILA, MANILA3
from server.rules.structure import Stakes
from server.rules.variant import TableRules, Variant

GAMES: dict[str, Variant] = {"holdem": HOLDEM, "manila": MANILA, "manila3": MANILA3}
FAST = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def play(data: st.DataObject, name: str) -> tuple[Hand, list[object], dict[int, int]]:
    variant = GAMES[name]
    n = data.draw(st.integers(2, variant.max_seats), label="players")
    seats = sorted(data.draw(st.lists(st.integers(0, 9), min_size=n, max_size=n, unique=True),
                             label="seats"))
    stacks = {s: data.draw(st.sampled_from([1, 7, 20, 35, 60, 150, 400, 2000]),
                           label="stack") for s in seats}
    stacks[seats[-1]] = max(stacks[seats[-1]], 10)
    structure = data.draw(st.sampled_from(["no_limit", "pot_limit"]), label="structure")
    rake = data.draw(st.sampled_from([0, 0, 500]), label="rake")
    rules = TableRules(structure=structure, stakes=Stakes(blinds=(5, 10), small_bet=10),
                       straddle=True, run_twice=True, rake_bp=rake, rake_cap=0)
    deck = list(variant.card_set)
    random.Random(data.draw(st.integers(0, 2**32), label="deck")).shuffle(deck)
    button = data.draw(st.sampled_from(seats), label="button")
    hand = Hand(variant, rules, dict(stacks), button=button, deck=deck,
                ask_over_blind=True)
    events: list[object] = list(hand.start())
    asked: set[int] = set()
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        opts = hand.options(seat)
        assert opts is not None
        if opts.run_twice:  # RIT-02: nobody can bet; only players still in; once
            assert seat in hand.live and seat not in asked
            assert sum(1 for s in hand.live if hand.stacks[s] > 0) <= 1
            assert not any(isinstance(e, BoardDealt) and e.run for e in events)
            asked.add(seat)
            kind = data.draw(st.sampled_from(["run_twice", "run_twice", "run_once",
                                              "timeout"]), label="answer")
        elif opts.over_blind is not None:
            kind = data.draw(st.sampled_from(["over_blind", "decline", "timeout"]),
                             label="straddle")
        else:
            kind = data.draw(st.sampled_from(list(opts.kinds) + ["timeout"]), label="action")
        amount = None
        if kind in ("bet", "raise"):
            lo, hi = opts.bet if kind == "bet" else opts.raise_  # type: ignore[misc]
            amount = data.draw(st.sampled_from([lo, hi]), label="amount")
        events += hand.timeout(seat) if kind == "timeout" else hand.act(seat, kind, amount)
    return hand, events, stacks


@pytest.mark.parametrize("name", sorted(GAMES))
@FAST
@given(data=st.data())
def test_house_rules_conserve_chips_and_win_no_more_than_matched(
        name: str, data: st.DataObject) -> None:
    """GEN-06 GEN-09 ALLIN-03 STRAD-01 RIT-01 RIT-02 RIT-03 RIT-04 with both house rules on:
    chips conserved, nobody wins more than matched, the halves add up."""
    hand, events, start = play(data, name)
    rake = sum(e.amount for e in events if isinstance(e, RakeTaken))
    assert sum(hand.stacks.values()) + rake == sum(start.values())
    assert all(v >= 0 for v in hand.stacks.values())
    put = hand.contrib
    for s, c in put.items():
        gain = hand.stacks[s] - start[s] + c  # what came back from the middle
        assert gain <= c + sum(min(o, c) for t, o in put.items() if t != s)
        if s in hand.folded:
            assert gain == 0
    awards = [e for e in events if isinstance(e, PotAwarded)]
    if hand.runs == 2:
        assert hand.runout_board < len(hand.board) == len(hand.board2)
        assert hand.board2[:hand.runout_board] == hand.board[:hand.runout_board]
        assert set(hand.board2[hand.runout_board:]).isdisjoint(hand.board)
        ends = [e for e in events if isinstance(e, StreetEnded)]
        pots = [amount for amount, _ in ends[-1].pots]
        raked = {e.pot: e.amount for e in events if isinstance(e, RakeTaken)}
        for i, amount in enumerate(pots):
            halves = [a.amount for a in awards if a.pot == i]
            assert sum(halves) == amount - raked.get(i, 0)
            assert halves[0] >= (halves[1] if len(halves) > 1 else 0)
    else:
        assert all(a.run == 0 for a in awards)
        assert not any(isinstance(e, BoardDealt) and e.run for e in events)
        assert [e.action for e in events if isinstance(e, Acted)].count("run_once") <= 1

