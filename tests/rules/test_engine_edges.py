"""Edges of the pot-game engine reached only by unusual tables: a deck that cannot serve a
variant's deal (GEN-07), a draw the stock cannot replace (DRAW-03), a pot-limit maximum off the
chip grid (BET-08, BET-12). Public API only (Hand.start/options/act)."""

from __future__ import annotations

import pytest

from server.rules import errors
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.structure import POT_LIMIT, Stakes
from server.rules.variant import BLINDS, BUTTON, DOWN, Street, TableRules, Variant

NL_RULES = TableRules(structure="no_limit", stakes=Stakes(blinds=(5, 10)))


def _greedy(deal: int, *, reshuffle: bool = False, draw: bool = False) -> Variant:
    streets = [Street(deal=((DOWN, deal),), opener=BLINDS)]
    if draw:
        streets.append(Street(burn=True, draw=True, opener=BUTTON, big=True))
    return Variant(name="greedy", streets=tuple(streets), max_seats=2,
                   reshuffle_burns=reshuffle)


@pytest.mark.parametrize("reshuffle, message", [
    (False, "the deck cannot serve this deal"),
    (True, "no cards left to deal"),
])
def test_gen_07_a_deal_the_deck_cannot_serve_is_an_invariant_break(reshuffle: bool,
                                                                     message: str) -> None:
    """GEN-07: a variant's seat limit is what its deck serves; a variant that deals two
    players 30 cards each breaks that invariant: InvariantError (the table voids the hand),
    never a refusal to a player. Reshuffling the burns does not help when there are none."""
    variant = _greedy(30, reshuffle=reshuffle)
    hand = Hand(variant, NL_RULES, {0: 1000, 1: 1000}, button=0, deck=list(variant.card_set))
    with pytest.raises(errors.InvariantError, match=message):
        hand.start()


def test_draw_03_discards_beyond_what_can_replace_them_are_refused() -> None:
    """DRAW-03: discards are replaced from the stock, then from the burns and the others'
    discards; with 25 cards each, one burn and one card left, only two can be replaced."""
    variant = _greedy(25, draw=True)
    hand = Hand(variant, NL_RULES, {0: 1000, 1: 1000}, button=0, deck=list(variant.card_set))
    hand.start()
    while True:
        seat = hand.to_act
        assert seat is not None
        opts = hand.options(seat)
        assert opts is not None
        if opts.draw is not None:
            break
        hand.act(seat, "check" if opts.check else "call")
    assert opts.draw == 2  # the options already say how many can be replaced
    discard = hand.own[seat][:5]
    with pytest.raises(errors.IllegalAction, match="at most 2 cards") as exc:
        hand.act(seat, "draw", discard=discard)
    assert exc.value.reason == errors.BAD_DISCARD
    hand.act(seat, "draw", discard=discard[:2])  # as many as can be replaced: accepted


def test_bet_08_bet_12_a_pot_limit_maximum_off_the_chip_grid_rounds_down() -> None:
    """BET-08: pot limit raises to at most the pot after the call; BET-12: amounts are on
    the chip grid (5 here). A short all-in for 23 makes that maximum 79, so the largest
    raise offered is 75 (the all-in total is off the grid but always allowed, ALLIN-01)."""
    rules = TableRules(structure=POT_LIMIT, stakes=Stakes(blinds=(5, 10), chip=5))
    hand = Hand(HOLDEM, rules, {0: 23, 1: 1000, 2: 1000}, button=0,
                deck=list(HOLDEM.card_set))
    hand.start()
    assert hand.to_act == 0
    hand.act(0, "raise", 23)  # all-in
    opts = hand.options(1)
    assert opts is not None and opts.raise_ is not None
    assert opts.raise_[1] == 75 and opts.raise_[1] % 5 == 0
