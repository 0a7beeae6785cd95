"""The one visibility rule (server.rules.visibility.seen, server.rules.view) and the engines'
``view(seat)``: a face-down card to its owner only, up cards and the board to everyone, burns
and dead cards (STUD-06) to nobody, the Caribbean dealer's hole cards only once turned
(CSP-02/CSP-04), a folded hand named to its owner only (SHOW-03)."""

from __future__ import annotations

from server.rules import caribbean as csp
from server.rules import events as ev
from server.rules.cards import make_deck
from server.rules.caribbean import CaribbeanRound, CaribbeanSettings
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.structure import Stakes
from server.rules.stud import STUD7
from server.rules.variant import TableRules
from server.rules.view import card_for, cards_for
from server.rules.visibility import seen


def _c(cards: tuple[object, ...]) -> tuple[object, ...]:
    """A viewed event's cards (None where hidden, though the class says str)."""
    return cards


HOLD = TableRules(structure="no_limit", stakes=Stakes(blinds=(50, 100)))
STUD = TableRules(structure="fixed_limit",
                  stakes=Stakes(ante=5, bring_in=10, small_bet=20, big_bet=40))


def test_card_rule_face_down_to_its_owner_only_dead_to_nobody() -> None:
    """STUD-06: a dead card is nobody's, not even the seat dealt it."""
    assert card_for("As", up=False, owner=2, viewer=2) == "As"
    assert card_for("As", up=False, owner=2, viewer=1) is None
    assert card_for("As", up=False, owner=2, viewer=None) is None
    assert card_for("As", up=True, owner=2, viewer=None) == "As"
    assert card_for("As", up=True, owner=2, viewer=2, dead=True) is None
    assert cards_for(("As", "Kd"), (False, True), owner=0, viewer=1) == (None, "Kd")


def test_stud06_dealt_hole_cards_up_cards_and_dead_cards() -> None:
    e = ev.Dealt(3, ("As", "Kd", "Qh"), (False, False, True), (0, 1, 2))
    assert seen(e, 3) is e
    assert _c(seen(e, 1).cards) == (None, None, "Qh")
    assert _c(seen(e, None).cards) == (None, None, "Qh") and seen(e, None).positions == (0, 1, 2)
    dead = ev.Dealt(3, ("2c",), (True,), (9,), dead=True)
    assert _c(seen(dead, 3).cards) == (None,) and _c(seen(dead, None).cards) == (None,)


def test_burns_are_never_seen_and_public_events_unchanged() -> None:
    burn = ev.Burned("7h", 4)
    assert seen(burn, None) == ev.Burned(None, 4)  # type: ignore[arg-type]
    board = ev.BoardDealt(("2c", "3c", "4c"), ("2c", "3c", "4c"), (5, 6, 7))
    show = ev.Showdown(1, ("As", "Ad"), "pair of aces", ("As", "Ad", "4c", "3c", "2c"))
    for e in (board, show, ev.Mucked(1), ev.Posted(0, "blind", 5, 95)):
        assert seen(e, None) is e and seen(e, 0) is e


def test_draw03_a_draw_is_its_players_only() -> None:
    e = ev.Drew(2, ("As", "Kd"), ("2c", "3c"), (20, 21))
    assert seen(e, 2) is e
    other = seen(e, 0)
    assert _c(other.discarded) == (None, None) and _c(other.received) == (None, None)
    assert other.positions == (20, 21)


def test_csp02_caribbean_hands_and_the_dealers_up_card() -> None:
    mine = csp.Dealt(0, ("As", "Kd", "Qh", "Jc", "9s"), (False,) * 5, (0, 2, 4, 6, 8))
    assert seen(mine, 0) is mine and _c(seen(mine, 1).cards) == (None,) * 5
    dealer = csp.DealerDealt(("2c", "3c", "4c", "5c", "7d"), (False,) * 4 + (True,),
                             (1, 3, 5, 7, 9))
    assert _c(seen(dealer, None).cards) == (None,) * 4 + ("7d",)
    assert _c(seen(dealer, 0).cards) == (None,) * 4 + ("7d",)
    turned = csp.DealerRevealed(dealer.cards, False, "high card, seven")
    assert seen(turned, None) is turned


def test_show03_csp14_a_caribbean_hand_is_named_to_its_owner_only() -> None:
    best = ("As", "Ad", "Kd", "Qh", "9s")
    folded = csp.Settled(0, -10, 0, -5, "pair of aces", None, 90, True, best)
    assert seen(folded, 0) is folded
    other = seen(folded, 1)
    assert other.hand is None and other.jackpot_hand is None and _c(other.best) == (None,) * 5
    assert seen(folded, None).hand is None
    played = csp.Settled(1, 10, 20, 0, "flush", "flush", 130, False, best)
    assert seen(played, 1) is played
    for viewer in (None, 0):  # CSP-14: its cards stay face down, so does its name
        public = seen(played, viewer)
        assert public.hand is None and public.jackpot_hand is None
        assert _c(public.best) == (None,) * 5
        assert (public.ante, public.play, public.stack) == (10, 20, 130)  # the result is open


def test_hand_view_per_seat() -> None:
    """A stud hand's view: own hole cards, everyone's up cards, bets, states, options, pots
    of the rounds before this one."""
    hand = Hand(STUD7, STUD, {0: 1000, 1: 1000, 2: 25}, button=0, deck=make_deck(),
                num_seats=4)
    hand.start()
    seat = hand.to_act
    assert seat is not None
    mine = hand.view(seat)
    assert mine.options is not None and mine.options == hand.options(seat)
    assert mine.seats[seat].deciding and not mine.together
    assert all(c is not None for c in mine.seats[seat].cards)
    assert len(mine.seats[seat].cards) == 2 and len(mine.seats[seat].up) == 1
    spectator = hand.view(None)
    assert spectator.options is None and spectator.board == ()
    for s, sv in spectator.seats.items():
        assert sv.cards == (None, None) and sv.up == mine.seats[s].up
        assert sv.stack == hand.stacks[s] and sv.bet == hand.bets[s]
    assert spectator.pots == ((15, (0, 1, 2)),)  # the antes
    others = [s for s in spectator.seats if s != seat]
    assert hand.view(others[0]).options is None
    hand.act(seat, "bring_in", 10)
    nxt = hand.to_act
    assert nxt is not None and hand.view(None).seats[seat].bet == 10
    hand.act(nxt, "fold")
    assert hand.view(None).seats[nxt].state == "folded"


def test_hand_view_all_in_and_after_the_end() -> None:
    hand = Hand(HOLDEM, HOLD, {0: 1000, 1: 1000}, button=0, deck=make_deck(), num_seats=2)
    hand.start()
    seat = hand.to_act
    assert seat is not None
    hand.act(seat, "raise", 1000)
    assert hand.view(None).seats[seat].state == "all_in"
    hand.act(1 - seat, "fold")
    done = hand.view(seat)
    assert done.options is None and not any(sv.deciding for sv in done.seats.values())


def test_csp02_caribbean_view_per_phase() -> None:
    rnd = CaribbeanRound(CaribbeanSettings(), {0: 10_000, 1: 10_000, 2: 10_000}, make_deck(),
                         round_id="r")
    v = rnd.view(0)
    assert v.together and v.dealer == () and v.options is not None and v.options.sit_out
    assert all(sv.deciding and sv.cards == () for sv in v.seats.values())
    rnd.act(0, "ante", 100)
    rnd.act(1, "ante", 100)
    rnd.act(2, "fold")
    v = rnd.view(0)
    assert v.seats[0].cards == rnd.snapshot()["hands"][0]  # type: ignore[index]
    assert v.seats[1].cards == (None,) * 5 and v.seats[2].cards == ()
    assert v.dealer[:4] == (None,) * 4 and v.dealer[4] is not None
    assert v.options is not None and v.options.play == 200
    assert rnd.view(None).options is None and rnd.view(None).seats[0].cards == (None,) * 5
    assert [s for s, sv in v.seats.items() if sv.deciding] == [0, 1]
    rnd.act(0, "play")
    rnd.act(1, "fold")
    v = rnd.view(None)
    assert all(c is not None for c in v.dealer) and len(v.dealer) == 5
    assert v.seats[0].state == "active" and v.seats[0].stack == rnd.stacks[0]
