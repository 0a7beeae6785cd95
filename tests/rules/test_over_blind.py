"""BLIND-04 at a real Draw table: the entitled seat is asked before the deal (the engine's
``ask_over_blind``), posts exactly double the last blind or declines; a timeout declines;
a seat that cannot cover it is never offered it."""

from __future__ import annotations

import pytest

from server.rules.draw import DRAW
from server.rules.errors import IllegalAction
from server.rules.events import Acted, Dealt, Posted, TurnStarted
from server.rules.hand import Hand
from server.rules.options import Options
from server.rules.structure import Stakes
from server.rules.variant import TableRules
from tests.rules.test_draw import OVER_BLIND
from tests.rules.variant_helpers import limit_rules, of, play


def asking(stacks: dict[int, int] | None = None, *, button: int = 3,
           rules: TableRules | None = None, entry: tuple[int, ...] = ()) -> Hand:
    return Hand(DRAW, rules or limit_rules(over_blind=True), stacks or dict(OVER_BLIND.stacks),
                button=button, deck=OVER_BLIND.deck, seed=b"ob", ask_over_blind=True,
                entry_posts=entry)


def test_blind04_the_seat_left_of_the_last_blind_is_asked_before_the_deal() -> None:
    """BLIND-04: after the blinds (seats 0 and 1, button 3), seat 2 is asked, with nothing
    dealt yet; its only options are the over blind (exactly 2 x 10) and no."""
    hand = asking()
    events = hand.start()
    assert [(p.seat, p.kind, p.amount) for p in of(events, Posted)] == [
        (0, "blind", 5), (1, "blind", 10)]
    assert not of(events, Dealt)
    assert events[-1] == TurnStarted(2, 0) and hand.to_act == 2
    opts = hand.options(2)
    assert opts == Options(2, over_blind=20, decline=True, stack=200)
    assert opts.kinds == ("over_blind", "decline")
    assert opts.to_wire() == {"fold": False, "check": False, "over_blind": 20,
                              "decline": True, "stack": 200}
    assert hand.view(2).options == opts and hand.view(3).options is None


def test_blind04_posted_the_round_starts_left_of_the_over_blind() -> None:
    """BLIND-04, BET-02, BET-03: posted, the cards are dealt, seat 3 (left of the over blind)
    opens and calling means 20; the same hand as the table that posts it unasked."""
    hand = asking()
    hand.start()
    events = hand.act(2, "over_blind")
    assert of(events, Posted) == [Posted(2, "over_blind", 20, 180)]
    assert [d.seat for d in of(events, Dealt)] == [0, 1, 2, 3]
    assert events[-1] == TurnStarted(3, 0)
    opts = hand.options(3)
    assert opts is not None and opts.call == 20
    play(hand, OVER_BLIND.actions)
    assert hand.is_over and hand.stacks == OVER_BLIND.final


def test_blind04_declined_everyone_sees_it_and_the_round_starts_left_of_the_last_blind() -> None:
    """BLIND-04: declined (or the clock ran out), nothing is posted, the cards are dealt and
    seat 2, left of the big blind, opens facing 10."""
    for answer in ("decline", "timeout"):
        hand = asking()
        hand.start()
        events = hand.timeout(2) if answer == "timeout" else hand.act(2, "decline")
        assert events[0] == Acted(2, "decline", 0, 200, timeout=answer == "timeout")
        assert not [p for p in of(events, Posted) if p.kind == "over_blind"]
        assert of(events, Dealt) and events[-1] == TurnStarted(2, 0)
        opts = hand.options(2)
        assert opts is not None and opts.call == 10 and opts.over_blind is None


def test_blind04_refusals_change_nothing() -> None:
    """BET-01, BET-12: during the question only the asked seat answers, with the exact amount;
    betting actions are refused."""
    hand = asking()
    hand.start()
    for seat, action, amount, code in [(3, "over_blind", None, "not_your_turn"),
                                       (2, "call", None, "bad_action"),
                                       (2, "fold", None, "bad_action"),
                                       (2, "over_blind", 19, "bad_amount"),
                                       (2, "over_blind", 40, "bad_amount"),
                                       (2, "decline", 5, "bad_amount")]:
        with pytest.raises(IllegalAction) as exc:
            hand.act(seat, action, amount)
        assert exc.value.reason == code, (seat, action, amount)
        assert hand.to_act == 2 and hand.options(2) is not None
    assert of(hand.act(2, "over_blind", 20), Posted)[0].amount == 20


def test_blind04_not_offered_to_a_seat_that_cannot_cover_it() -> None:
    """BLIND-04: exactly double the last blind; seat 2 with 19 chips (or 25 less an ante of
    10) is not asked, and an unasked table does not post a short over blind either."""
    ante = limit_rules(over_blind=True)
    ante = TableRules(structure=ante.structure, over_blind=True,
                      stakes=Stakes(blinds=ante.stakes.blinds, ante=10,
                                    small_bet=ante.stakes.small_bet,
                                    big_bet=ante.stakes.big_bet))
    for stacks, rules in (({0: 200, 1: 200, 2: 19, 3: 200}, None),
                          ({0: 200, 1: 200, 2: 25, 3: 200}, ante)):
        for ask in (True, False):
            hand = Hand(DRAW, rules or limit_rules(over_blind=True), stacks, button=3,
                        deck=OVER_BLIND.deck, ask_over_blind=ask, over_blind=not ask)
            events = hand.start()
            assert not [p for p in of(events, Posted) if p.kind == "over_blind"]
            assert of(events, Dealt) and hand.to_act == 2
            opts = hand.options(2)
            assert opts is not None and opts.over_blind is None and opts.call is not None
    # exactly enough: asked, and posting puts the seat all-in
    hand = asking({0: 200, 1: 200, 2: 20, 3: 200})
    hand.start()
    assert hand.options(2) == Options(2, over_blind=20, decline=True, stack=20)
    assert of(hand.act(2, "over_blind"), Posted) == [Posted(2, "over_blind", 20, 0)]


def test_blind04_nobody_asked_heads_up_or_for_an_entry_post_or_off() -> None:
    """BLIND-04: heads-up the seat left of the big blind is the small blind; a player posting
    a big blind to come in (GEN-05) is not asked; a table without the setting never asks."""
    heads_up = asking({0: 200, 1: 200}, button=1)
    heads_up.start()
    assert heads_up.options(heads_up.to_act or 0).over_blind is None  # type: ignore[union-attr]
    entry = asking(entry=(2,))
    assert [(p.seat, p.kind) for p in of(entry.start(), Posted)] == [
        (0, "blind"), (1, "blind"), (2, "blind")]
    assert entry.to_act == 2 and entry.options(2).over_blind is None  # type: ignore[union-attr]
    off = Hand(DRAW, limit_rules(), dict(OVER_BLIND.stacks), button=3, deck=OVER_BLIND.deck,
               ask_over_blind=True)
    assert of(off.start(), Dealt) and off.options(2).over_blind is None  # type: ignore[union-attr]
