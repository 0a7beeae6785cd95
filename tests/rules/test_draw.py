"""Draw (DRAW-01..04) with the over blind (BLIND-04) and its seat limit (GEN-07)."""

from __future__ import annotations

from server.rules.draw import DRAW
from server.rules.evaluate import FLUSH, STRAIGHT_FLUSH
from server.rules.events import (
    Burned,
    Dealt,
    Drew,
    Mucked,
    Posted,
    PotAwarded,
    Reshuffled,
    Showdown,
    StreetEnded,
    TurnStarted,
)
from server.rules.variant import hand_value
from tests.rules.variant_helpers import (
    Script,
    full_deck,
    limit_rules,
    one_at_a_time,
    play,
    refusal,
    run,
    setup_refusal,
)

ORDER = [0, 1, 2, 3]
HOLE = {0: "2c 3d 4h 5s 7c", 1: "Kc Kd 8h 4c 2d", 2: "2h 5h 9h Jh Qh", 3: "As Ad 3c 6d 9c"}
# after the 20 cards: the burn, then seat 1's two new cards, then seat 3's three
TOP = one_at_a_time(ORDER, HOLE) + ["8c", "7d", "8d", "Ac", "Ts", "Js"]

OVER_BLIND = Script(
    variant=DRAW,
    rules=limit_rules(over_blind=True),
    stacks={0: 200, 1: 200, 2: 200, 3: 200},
    button=3,
    over_blind=True,
    deck=full_deck(DRAW, TOP),
    actions=[
        # first round: left of the over blind (seat 2) is seat 3
        "3 call", "0 fold", "1 call", "2 check",
        # the draw, from the button's left (seat 0 folded)
        "1 draw 4c 2d", "2 draw", "3 draw 3c 6d 9c",
        # second round from the button's left
        "1 check", "2 bet 20", "3 call", "1 fold",
    ],
    final={0: 195, 1: 180, 2: 265, 3: 160},
)


def test_draw01_blind04_blinds_over_blind_and_five_cards_one_at_a_time() -> None:
    """DRAW-01, BLIND-04: blinds left of the button, then the over blind (double the last
    blind) left of the last blind; five cards each face down, one at a time from the left of
    the button."""
    ran = run(OVER_BLIND)
    assert [(p.seat, p.kind, p.amount) for p in ran.of(Posted)] == [
        (0, "blind", 5), (1, "blind", 10), (2, "over_blind", 20)]
    dealt = ran.of(Dealt)
    assert [d.seat for d in dealt] == ORDER
    for i, d in enumerate(dealt):
        assert d.positions == tuple(range(i, 20, 4))
        assert d.up == (False,) * 5
        assert " ".join(d.cards) == HOLE[d.seat]


def test_draw02_blind04_first_round_starts_left_of_the_over_blind() -> None:
    """DRAW-02, BLIND-04, BET-02: the first round starts left of the over blind; calling
    means matching the over blind; the over blind has the option when it comes back."""
    hand = OVER_BLIND.make()
    events = hand.start()
    assert [e for e in events if isinstance(e, TurnStarted)] == [TurnStarted(3, 0)]
    opts = hand.options(3)
    assert opts is not None and opts.call == 20 and opts.raise_ == (30, 30)
    play(hand, ["3 call", "0 fold", "1 call"])
    opts = hand.options(2)
    assert opts is not None and opts.check and opts.raise_ == (30, 30)
    # without the over blind, the same table starts left of the last blind
    plain = Script(variant=DRAW, rules=limit_rules(over_blind=True), stacks=OVER_BLIND.stacks,
                   button=3, deck=OVER_BLIND.deck, actions=[]).make()
    plain.start()
    assert plain.to_act == 2
    plain_opts = plain.options(2)
    assert plain_opts is not None and plain_opts.call == 10


def test_draw03_draw_in_turn_from_the_button_left_after_a_burn_then_second_round() -> None:
    """DRAW-03: a burn, then each remaining player in turn from the button's left discards
    and receives that many; then a second round from the button's left (BET-04)."""
    ran = run(OVER_BLIND)
    ev = ran.events
    burn = ran.of(Burned)
    assert burn == [Burned("8c", 20)]
    drew = ran.of(Drew)
    assert drew == [
        Drew(1, ("4c", "2d"), ("7d", "8d"), (21, 22)),
        Drew(2, (), (), ()),
        Drew(3, ("3c", "6d", "9c"), ("Ac", "Ts", "Js"), (23, 24, 25)),
    ]
    assert ev.index(burn[0]) < ev.index(drew[0])
    assert ev.index(ran.of(StreetEnded)[0]) < ev.index(burn[0])
    assert sorted(ran.hand.own[1]) == sorted(["Kc", "Kd", "8h", "7d", "8d"])
    # the second round opens left of the button: seat 1
    after_draw = [e for e in ev[ev.index(drew[-1]):] if isinstance(e, TurnStarted)]
    assert after_draw[0] == TurnStarted(1, 1)


def test_draw04_showdown_is_the_five_cards() -> None:
    """DRAW-04: each hand is the player's five cards: seat 2's pat flush beats seat 3's three
    aces; the called seat shows first and the beaten hand is given up (SHOW-01)."""
    ran = run(OVER_BLIND)
    assert ran.of(Showdown)[0].seat == 2 and ran.of(Showdown)[0].hand.startswith("flush")
    assert ran.of(Mucked) == [Mucked(3)]
    assert ran.hand.values[2].category == FLUSH
    assert ran.of(PotAwarded)[0].winners == {2: 105}


def test_draw03_bad_discards_refused() -> None:
    """DRAW-03: discards must be cards in the hand, once each, at most the table's cap;
    a refusal changes nothing."""
    hand = Script(variant=DRAW, rules=limit_rules(over_blind=True, max_discard=3),
                  stacks=OVER_BLIND.stacks, button=3, over_blind=True, deck=OVER_BLIND.deck,
                  actions=[]).make()
    hand.start()
    play(hand, ["3 call", "0 fold", "1 call", "2 check"])
    assert hand.to_act == 1
    opts = hand.options(1)
    assert opts is not None and opts.draw == 3 and opts.kinds == ("draw",)
    before = list(hand.own[1])
    assert refusal(hand, 1, "draw", discard=["Ah"]) == "bad_discard"      # not in the hand
    assert refusal(hand, 1, "draw", discard=["4c", "4c"]) == "bad_discard"  # twice
    assert refusal(hand, 1, "draw", discard=["Zz"]) == "bad_discard"      # not a card
    assert refusal(hand, 1, "draw", discard=["Kc", "Kd", "8h", "4c"]) == "bad_discard"  # cap
    assert refusal(hand, 2, "draw", discard=["2h"]) == "not_your_turn"
    assert refusal(hand, 1, "call") == "bad_action"
    assert hand.to_act == 1 and hand.own[1] == before
    play(hand, ["1 draw Kc Kd 8h"])
    assert hand.to_act == 2


def _reshuffle_script(seed: bytes) -> Script:
    order = list(range(8))
    royal = ["As", "Ks", "Qs", "Js", "Ts"]
    pool = [c for c in DRAW.card_set if c not in royal]
    hole = {s: pool[5 * s:5 * s + 5] for s in order if s != 5}
    hole[5] = royal
    return Script(
        variant=DRAW, rules=limit_rules(), stacks={s: 200 for s in order}, button=7,
        deck=full_deck(DRAW, one_at_a_time(order, hole)), seed=seed,
        actions=[f"{s} call" for s in range(2, 8)] + ["0 call", "1 check"]
        + [f"{s} draw {' '.join(hole[s])}" for s in range(4)]
        + ["4 draw " + " ".join(hole[4][:3]), "5 draw", "6 draw", "7 draw"]
        + [f"{s} check" for s in order],
        final={s: 190 if s != 5 else 270 for s in order},
    )


def test_draw03_deck_runs_short_burn_and_discards_reshuffled() -> None:
    """DRAW-03, GEN-07: eight players take 40 cards and the burn one, leaving 11.  Seats 0-3
    each draw five: seat 2 gets the last card, then the burn and seats 0-1's discards (11)
    are shuffled with the hand's seed to finish; seat 4's draw needs seats 2-3's discards
    (10).  Every card in play stays unique and the same seed replays identically."""
    script = _reshuffle_script(b"seed-1")
    ran = run(script)
    assert [r.count for r in ran.of(Reshuffled)] == [11, 10]
    drew = ran.of(Drew)
    assert [d.seat for d in drew] == list(range(8))
    assert drew[2].positions == (51, 52, 53, 54, 55)
    # the first reshuffle is made of the burn and seats 0-1's discards
    burn = ran.of(Burned)[0].card
    first_pool = {burn, *drew[0].discarded, *drew[1].discarded}
    assert set(drew[2].received[1:]) <= first_pool and set(drew[3].received) <= first_pool
    assert set(drew[4].received[2:]) <= {*drew[2].discarded, *drew[3].discarded}
    # no card is ever in two places: final hands are disjoint, and nobody gets back a card
    # they discarded
    final = [c for s in range(8) for c in ran.hand.own[s]]
    assert len(final) == len(set(final)) == 40
    for d in drew:
        assert not set(d.received) & set(d.discarded)
    # a second run with the same seed is identical; another seed reorders the reshuffle
    assert run(script).events == ran.events
    other = run(_reshuffle_script(b"seed-2"))
    assert [e for e in other.events if isinstance(e, Drew)] != drew
    # the pat royal flush wins regardless
    assert ran.hand.values[5].category == STRAIGHT_FLUSH


def test_gen07_draw_seats_at_most_eight() -> None:
    """GEN-07: 5n + 1 burn with room to draw: eight players leave 11 cards after the burn;
    with the DRAW-03 reshuffle every draw can be served.  A ninth player is refused."""
    assert DRAW.max_seats == 8 and 52 - 5 * 8 - 1 == 11
    assert setup_refusal(DRAW, limit_rules(), {s: 100 for s in range(9)}) == "bad_setup"
    # the pat royal flush is a straight flush by the five cards alone (DRAW-04)
    assert hand_value(DRAW, limit_rules(), ["As", "Ks", "Qs", "Js", "Ts"], []).category \
        == STRAIGHT_FLUSH
