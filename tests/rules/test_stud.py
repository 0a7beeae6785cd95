"""Five Card Stud and Seven Card Stud (STUD-01..07, BLIND-05, GEN-07) as scripted hands."""

from __future__ import annotations

import dataclasses

from server.rules.evaluate import FULL_HOUSE, QUADS, TRIPS, rank_showing
from server.rules.events import (
    Acted,
    BetReturned,
    BoardDealt,
    Burned,
    Dealt,
    Posted,
    PotAwarded,
    Reshuffled,
    Showdown,
    TurnStarted,
)
from server.rules.structure import Stakes
from server.rules.stud import STUD5, STUD7
from server.rules.variant import TableRules, hand_value
from tests.rules.variant_helpers import (
    Script,
    call_down,
    full_deck,
    of,
    play,
    run,
    setup_refusal,
    streets_top,
    stud_rules,
)

RULES = stud_rules()

# Five Card Stud, three players, button 2 (dealing from seat 0).
# 3rd street up cards 3d / Kh / 3c: the two threes tie on rank and the club is lower, so
# seat 2 brings in.  4th street: seat 0 shows K-3 (Kd 3d), seat 2 shows K-3 (Ks 3c): a tie
# broken by the highest card by suit, Ks, so seat 2 opens.  5th: seat 1 shows a pair of twos.
FIVE = Script(
    variant=STUD5,
    rules=RULES,
    stacks={0: 100, 1: 100, 2: 100},
    button=2,
    deck=full_deck(STUD5, streets_top(
        [0, 1, 2],
        [{0: "Ah 3d", 1: "2s Kh", 2: "Qd 3c"},
         {0: "Kd", 1: "2h", 2: "Ks"},
         {0: "9c", 1: "2c", 2: "5h"},
         {0: "Ac", 1: "7s"}],
        burns=["4c", "4d", "4h"])),
    actions=[
        "2 bring_in", "0 call", "1 call",
        "2 check", "0 check", "1 check",
        "1 bet 20", "2 fold", "0 call",
        "1 bet 20", "0 call",
    ],
    final={0: 53, 1: 154, 2: 93},
)


def test_blind05_antes_from_every_player_before_any_card() -> None:
    """BLIND-05, STUD-01: antes from every player before any card, and no blinds."""
    ran = run(FIVE)
    first_card = next(i for i, e in enumerate(ran.events) if isinstance(e, Dealt))
    posted = ran.of(Posted)
    assert [(p.seat, p.kind, p.amount) for p in posted] == [(0, "ante", 2), (1, "ante", 2),
                                                            (2, "ante", 2)]
    assert all(ran.events.index(p) < first_card for p in posted)


def test_stud01_five_card_stud_deal_pattern() -> None:
    """STUD-01: Five Card Stud deals one down and one up, then a burn and one up card before
    each of the three later rounds (four rounds)."""
    ran = run(FIVE)
    dealt = ran.of(Dealt)
    assert [(d.seat, d.cards, d.up, d.positions) for d in dealt[:3]] == [
        (0, ("Ah", "3d"), (False, True), (0, 3)),
        (1, ("2s", "Kh"), (False, True), (1, 4)),
        (2, ("Qd", "3c"), (False, True), (2, 5)),
    ]
    assert [(d.seat, d.up, d.positions) for d in dealt[3:]] == [
        (0, (True,), (7,)), (1, (True,), (8,)), (2, (True,), (9,)),
        (0, (True,), (11,)), (1, (True,), (12,)), (2, (True,), (13,)),
        (0, (True,), (15,)), (1, (True,), (16,)),
    ]
    assert [b.position for b in ran.of(Burned)] == [6, 10, 14]
    assert not ran.of(BoardDealt)


def test_stud02_five_card_bring_in_tie_broken_by_suit() -> None:
    """STUD-02: the lowest up card brings in, by rank then suit (clubs lowest): 3c, not 3d."""
    hand = FIVE.make()
    hand.start()
    assert hand.to_act == 2
    opts = hand.options(2)
    assert opts is not None and opts.kinds == ("bring_in", "complete")
    assert opts.bring_in == 5 and opts.complete == 10


def test_stud03_opener_by_highest_hand_showing_ties_by_suit() -> None:
    """STUD-03: later rounds open with the highest hand showing; K-3 against K-3 goes to the
    king of spades; a showing pair beats any high card."""
    ran = run(FIVE)
    openers = [t for i, t in enumerate(ran.events)
               if isinstance(t, TurnStarted) and isinstance(ran.events[i - 1], Dealt)]
    assert openers == [TurnStarted(2, 0), TurnStarted(2, 1), TurnStarted(1, 2),
                       TurnStarted(1, 3)]


def test_stud07_five_card_stud_hand_is_the_five_cards() -> None:
    """STUD-07: in Five Card Stud the hand is the player's five cards (trip twos wins)."""
    ran = run(FIVE)
    shows = {s.seat: s for s in ran.of(Showdown)}
    assert ran.hand.values[1].category == TRIPS
    assert sorted(shows[1].best) == sorted(["2s", "Kh", "2h", "2c", "7s"])
    assert ran.of(PotAwarded)[0].winners == {1: 101}


# Seven Card Stud, three players: the 4s brings in and completes.
SEVEN = Script(
    variant=STUD7,
    rules=RULES,
    stacks={0: 100, 1: 100, 2: 100},
    button=2,
    deck=full_deck(STUD7, streets_top(
        [0, 1, 2],
        [{0: "As Ad Th", 1: "2c 3c 4s", 2: "5d 5h 9d"},
         {0: "Tc", 1: "Kd", 2: "Jh"},
         {0: "8s", 1: "6c", 2: "2d"},
         {0: "7h", 1: "Qs", 2: "3h"},
         {0: "Ac", 1: "9s", 2: "Jc"}],
        burns=["8c", "8d", "8h", "7c"])),
    actions=[
        "1 complete", "2 call", "0 raise 20", "1 call", "2 call",
    ] + ["0 check", "1 check", "2 check"] * 4,
    final={0: 144, 1: 78, 2: 78},
)


def test_stud01_seven_card_stud_deal_pattern() -> None:
    """STUD-01: Seven Card Stud deals two down and one up, up cards on 4th, 5th and 6th
    street and a down card on 7th, a burn before each later street (five rounds)."""
    ran = run(SEVEN)
    dealt = ran.of(Dealt)
    assert [(d.seat, d.up, d.positions) for d in dealt[:3]] == [
        (0, (False, False, True), (0, 3, 6)),
        (1, (False, False, True), (1, 4, 7)),
        (2, (False, False, True), (2, 5, 8)),
    ]
    later = [(d.seat, d.up) for d in dealt[3:]]
    assert later == [(s, (True,)) for s in (0, 1, 2)] * 3 + [(s, (False,)) for s in (0, 1, 2)]
    assert [b.position for b in ran.of(Burned)] == [9, 13, 17, 21]
    assert len({t.street for t in ran.of(TurnStarted)}) == 5


def test_stud02_bring_in_may_complete() -> None:
    """STUD-02: the bring-in may complete to the full bet; the others then call, raise a full
    bet, or fold."""
    ran = run(SEVEN)
    acted = ran.of(Acted)
    assert [(a.seat, a.action, a.amount) for a in acted[:5]] == [
        (1, "complete", 10), (2, "call", 10), (0, "raise", 20), (1, "call", 20),
        (2, "call", 20)]
    # and bringing in for the set amount: the next player may call 5 or complete to 10
    hand = SEVEN.make()
    hand.start()
    play(hand, ["1 bring_in"])
    opts = hand.options(2)
    assert opts is not None and opts.call == 5 and opts.complete == 10 and opts.raise_ is None


# No-limit Seven Card Stud whose bring-in is the full bet (small_bet == bring_in, issue 24):
# the deal and actions of SEVEN, the 4s of seat 1 brings in for 10.
NO_LIMIT_EQUAL = dataclasses.replace(
    SEVEN, rules=TableRules(structure="no_limit",
                            stakes=Stakes(ante=2, bring_in=10, small_bet=10, big_bet=20)),
    actions=["1 bring_in", "2 call", "0 raise 30", "1 call", "2 fold"]
    + ["0 check", "1 check"] * 4, final=None)


def test_stud02_no_completion_equal_to_the_bring_in() -> None:
    """STUD-02: a completion is more than the bring-in; a bring-in as large as the full bet is
    the round's opening bet (called or raised, never "completed" to the same amount)."""
    hand = NO_LIMIT_EQUAL.make()
    hand.start()
    opts = hand.options(1)
    assert opts is not None and opts.kinds == ("bring_in",) and opts.bring_in == 10
    assert opts.complete is None
    play(hand, ["1 bring_in"])
    opts = hand.options(2)
    assert opts is not None and opts.call == 10 and opts.complete is None
    assert opts.raise_ is not None and opts.raise_[0] == 20  # a full raise of the 10
    ran = run(NO_LIMIT_EQUAL)
    assert [(a.seat, a.action, a.amount) for a in ran.of(Acted)[:5]] == [
        (1, "bring_in", 10), (2, "call", 10), (0, "raise", 30), (1, "call", 30),
        (2, "fold", 10)]
    # a short stack: the bring-in all-in for less is still a bring-in, with no completion
    short = dataclasses.replace(NO_LIMIT_EQUAL, stacks={0: 100, 1: 8, 2: 100}).make()
    short.start()
    opts = short.options(1)
    assert opts is not None and opts.bring_in == 6 and opts.complete is None


def test_stud07_seven_card_stud_best_five_of_seven() -> None:
    """STUD-07: the hand is the best five of seven: aces full of tens for seat 0."""
    ran = run(SEVEN)
    v = ran.hand.values[0]
    assert v.category == FULL_HOUSE
    assert sorted(v.cards) == sorted(["As", "Ad", "Ac", "Th", "Tc"])
    assert len(ran.hand.own[0]) == 7


# STUD-04: seat 0 has only its ante, so it is all-in before any card.  It shows the lowest
# up card (2c) but the bring-in passes to the lowest among players who can bet (3d, seat 1).
# On 4th and 6th street seat 0's showing hand is the highest, and the action passes left.
ALL_IN = Script(
    variant=STUD5,
    rules=RULES,
    stacks={0: 2, 1: 100, 2: 100, 3: 100},
    button=3,
    deck=full_deck(STUD5, streets_top(
        [0, 1, 2, 3],
        [{0: "Qc 2c", 1: "4s 3d", 2: "5s 9h", 3: "6s Kc"},
         {0: "2d", 1: "8d", 2: "Th", 3: "Jd"},
         {0: "Ad", 1: "9d", 2: "Tc", 3: "Qs"},
         {0: "Ac", 1: "4d", 2: "5c", 3: "Qh"}],
        burns=["7c", "7d", "7h"])),
    actions=[
        "1 bring_in", "2 call", "3 call",
        "1 check", "2 check", "3 check",   # seat 0 (pair of twos showing) is all-in
        "2 check", "3 check", "1 check",   # pair of tens showing opens
        "1 check", "2 check", "3 check",   # seat 0 (aces up showing) is all-in
    ],
    final={0: 8, 1: 93, 2: 108, 3: 93},
)


def test_stud04_all_in_player_neither_brings_in_nor_opens() -> None:
    """STUD-04: an all-in player does not start the first round; in later rounds when the
    player due to act is all-in the action passes to the player on their left."""
    ran = run(ALL_IN)
    openers = [t for i, t in enumerate(ran.events)
               if isinstance(t, TurnStarted) and isinstance(ran.events[i - 1], Dealt)]
    assert openers == [TurnStarted(1, 0), TurnStarted(1, 1), TurnStarted(2, 2),
                       TurnStarted(1, 3)]
    assert ran.of(Acted)[0] == Acted(1, "bring_in", 5, 93)
    # the all-in ante player wins only the antes (main pot); seat 2 the side pot
    assert ran.of(PotAwarded)[0].winners == {0: 8}
    assert ran.of(PotAwarded)[1].winners == {2: 15}


# STUD-06: the bet/fold pattern of a Five Card Stud hand.  On 4th street seat 1 folds during
# a round of checks: its seat keeps receiving (dead) cards until seat 0 bets on 5th street.
DEAD = Script(
    variant=STUD5,
    rules=RULES,
    stacks={0: 100, 1: 100, 2: 100, 3: 100},
    button=3,
    deck=full_deck(STUD5, streets_top(
        [0, 1, 2, 3],
        [{0: "Ac 9c", 1: "Ad Td", 2: "Ah 2h", 3: "As Jc"},
         {0: "Kc", 1: "4d", 2: "5h", 3: "6c"},
         {0: "Qc", 1: "7d", 2: "8h", 3: "8c"},
         {0: "7c", 3: "Tc"}],
        burns=["3c", "3d", "3h"])),
    actions=[
        "2 bring_in", "3 call", "0 call", "1 call",
        "0 check", "1 fold", "2 check", "3 check",
        "0 bet 20", "2 fold", "3 call",
        "0 check", "3 check",
    ],
    final={0: 141, 1: 93, 2: 93, 3: 73},
)


def test_stud06_fold_in_a_round_of_checks_keeps_receiving_dead_cards() -> None:
    """STUD-06: a player folding during a round of checks is out, but the seat keeps getting
    cards (dead) until someone wagers; a fold after a wager gets none."""
    ran = run(DEAD)
    dealt = ran.of(Dealt)
    fifth = [(d.seat, d.cards, d.dead) for d in dealt[8:12]]
    assert fifth == [(0, ("Qc",), False), (1, ("7d",), True), (2, ("8h",), False),
                     (3, ("8c",), False)]
    assert [(d.seat, d.dead) for d in dealt[12:]] == [(0, False), (3, False)]
    assert "7d" not in ran.hand.own[1]
    assert ran.hand.values[0].name.startswith("flush")


def test_stud06_fold_after_the_ante_until_a_wager() -> None:
    """STUD-06: a player who folds after the forced bets (facing the bring-in) before any
    wager gets dead cards; with nobody left to wager they keep coming to the end."""
    script = Script(
        variant=STUD5, rules=RULES, stacks={0: 2, 1: 100, 2: 100}, button=2,
        deck=full_deck(STUD5, streets_top(
            [0, 1, 2],
            [{0: "Ac Kc", 1: "2s 3d", 2: "4h 9h"}, {0: "Kd", 1: "5d", 2: "Th"},
             {0: "Ks", 1: "6d", 2: "Jh"}, {0: "Qs", 1: "7d", 2: "Qh"}],
            burns=["2c", "2d", "2h"])),
        actions=["1 bring_in", "2 fold"],
        final={0: 6, 1: 98, 2: 98},
    )
    ran = run(script)
    assert ran.of(BetReturned) == [BetReturned(1, 5, 98)]
    later = [(d.seat, d.dead) for d in ran.of(Dealt)[3:]]
    assert later == [(0, False), (1, False), (2, True)] * 3
    # and a wager stops them: when seat 0 calls the bring-in, seat 2's fold came before it,
    # but a wager has now been made, so seat 2 gets no more cards
    hand = Script(variant=STUD5, rules=RULES, stacks={0: 100, 1: 100, 2: 100}, button=2,
                  deck=script.deck, actions=[]).make()
    hand.start()
    events = play(hand, ["1 bring_in", "2 fold", "0 call"])
    assert 2 not in [d.seat for d in of(events, Dealt)]


def _eight_handed_seven_stud() -> Script:
    """Eight players to 7th street: 24 + 3 x (1 burn + 8) = 51 cards; the 7th-street burn
    takes the last card, and the four burns cannot serve eight players."""
    order = list(range(8))
    streets = [
        {0: "Kh Ks Kc", 1: "Ts Js Qc", 2: "Ac 4s 2c", 3: "Ad 5s 2d", 4: "Ah 6s 2h",
         5: "As 7h 3c", 6: "7s 8c 3d", 7: "8s 9s 3h"},
        {0: "Kd", 1: "Qd", 2: "4c", 3: "4d", 4: "4h", 5: "5c", 6: "5d", 7: "5h"},
        {0: "2s", 1: "7c", 2: "6c", 3: "6d", 4: "6h", 5: "Tc", 6: "Td", 7: "Th"},
        {0: "3s", 1: "8d", 2: "9c", 3: "9d", 4: "9h", 5: "Jc", 6: "Jd", 7: "Jh"},
    ]
    top = streets_top(order, streets, burns=["Qh", "Qs", "7d"]) + ["8h"]
    assert len(top) == 52
    return Script(
        variant=STUD7, rules=RULES, stacks={s: 100 for s in order}, button=7,
        deck=full_deck(STUD7, top),
        actions=["2 bring_in"] + [f"{s} call" for s in (3, 4, 5, 6, 7, 0, 1)]
        + [f"{s} check" for s in order] * 4,
        final={s: 149 if s == 0 else 93 for s in order},
    )


def test_stud05_gen07_eight_players_seventh_street_community_card() -> None:
    """STUD-05, GEN-07: eight Seven Card Stud players reach 7th street with one card left; it
    is burnt, and the four burns cannot give eight players a card, so they are shuffled and
    one community card is turned up for everyone.  The 7th-street opener is the highest hand
    showing without it: seat 0's kings, although any burn would lift seat 1's queens above
    them.  Hands use the community card (STUD-07)."""
    script = _eight_handed_seven_stud()
    ran = run(script)
    ev = ran.events
    assert [b.position for b in ran.of(Burned)] == [24, 33, 42, 51]
    assert ran.of(Reshuffled) == [Reshuffled(4)]
    community = ran.of(BoardDealt)
    assert len(community) == 1 and community[0].positions == (52,)
    card = community[0].cards[0]
    assert card in {"Qh", "Qs", "7d", "8h"}
    assert ran.hand.community == [card]
    reshuffle_at = ev.index(ran.of(Reshuffled)[0])
    assert not [e for e in ev[reshuffle_at:] if isinstance(e, Dealt)]
    seventh = [t for t in ran.of(TurnStarted) if t.street == 4]
    assert seventh[0].seat == 0
    # counting the community card, seat 1 would show more than seat 0's pair of kings
    assert rank_showing(["Qc", "Qd", "7c", "8d", card]) > rank_showing(["Kc", "Kd", "2s", "3s"])
    assert ran.hand.values[0].category == QUADS
    assert ran.hand.values[1] == hand_value(STUD7, RULES, ran.hand.own[1], [card])
    # the same seed replays identically
    assert run(script).events == ev
    assert setup_refusal(STUD7, RULES, {s: 100 for s in range(9)}) == "bad_setup"


def test_stud05_seven_card_stud_seven_players_burns_reshuffled() -> None:
    """STUD-05: seven players to 7th street: 21 + 3 x 8 + the burn leave six cards; six
    players get them, the burns are shuffled to finish, and no community card is needed."""
    hand = Script(variant=STUD7, rules=RULES, stacks={s: 100 for s in range(7)}, button=6,
                  deck=list(STUD7.card_set), actions=[]).make()
    events = hand.start() + call_down(hand)
    seventh = [d for d in of(events, Dealt) if d.up == (False,) and len(d.cards) == 1]
    assert [d.positions for d in seventh] == [(46,), (47,), (48,), (49,), (50,), (51,), (52,)]
    assert of(events, Reshuffled) == [Reshuffled(4)]
    assert seventh[-1].cards[0] in {b.card for b in of(events, Burned)}
    assert not of(events, BoardDealt)
    everything = [c for s in range(7) for c in hand.own[s]]
    assert len(everything) == len(set(everything)) == 49


def test_stud05_gen07_five_card_stud_ten_players_last_round_reshuffles_burns() -> None:
    """STUD-05, GEN-07: ten Five Card Stud players need 5 x 10 + 3 burns = 53 cards: the
    last round deals the nine left, then the three burns are shuffled for the tenth.
    An eleventh player is refused."""
    hand = Script(variant=STUD5, rules=RULES, stacks={s: 100 for s in range(10)}, button=9,
                  deck=list(STUD5.card_set), actions=[]).make()
    events = hand.start() + call_down(hand)
    last = [d for d in of(events, Dealt)][-10:]
    assert [d.positions for d in last] == [(p,) for p in range(43, 53)]
    assert of(events, Reshuffled) == [Reshuffled(3)]
    assert last[-1].cards[0] in {b.card for b in of(events, Burned)}
    everything = [c for s in range(10) for c in hand.own[s]]
    assert len(everything) == len(set(everything)) == 50
    assert setup_refusal(STUD5, RULES, {s: 100 for s in range(11)}, num_seats=11) \
        == "bad_setup"
