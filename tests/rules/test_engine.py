"""The engine protocol (server.rules.engine): both games answer it, with one Options type and
one end-of-hand event; invariant breaks are :class:`InvariantError`, never a refusal."""

from __future__ import annotations

import pytest

from server.rules.cards import make_deck
from server.rules.caribbean import CaribbeanRound, CaribbeanSettings, RoundEnded
from server.rules.engine import Engine, HandEnd, chips_taken, ends_hand
from server.rules.errors import IllegalAction, InvariantError
from server.rules.events import HandEnded
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.options import Options
from server.rules.structure import Stakes
from server.rules.variant import TableRules

RULES = TableRules(structure="no_limit", stakes=Stakes(blinds=(50, 100)))


def _hand() -> Hand:
    return Hand(HOLDEM, RULES, {0: 1000, 1: 1000}, button=0, deck=make_deck(), num_seats=2)


def _round() -> CaribbeanRound:
    return CaribbeanRound(CaribbeanSettings(), {0: 10_000, 1: 10_000}, make_deck(),
                          round_id="r")


def _engine(e: Engine) -> Engine:  # mypy checks both classes against the protocol here
    return e


def test_both_games_answer_the_engine_protocol_with_one_options_type() -> None:
    hand, rnd = _engine(_hand()), _engine(_round())
    hand.start()
    rnd.start()
    (seat,) = hand.deciding()
    assert isinstance(hand.options(seat), Options)
    assert rnd.deciding() == (0, 1)
    opts = rnd.options(0)
    assert isinstance(opts, Options) and opts.sit_out and opts.ante == (100, 3333)
    assert hand.options(1 - seat) is None


def test_house_act_deals_when_the_ante_phase_closes_and_ends_with_the_protocol_event() -> None:
    rnd = _round()
    rnd.act(0, "ante", 100)
    assert rnd.phase == "antes"
    rnd.act(1, "fold")  # in the ante phase, "fold" sits the round out
    assert rnd.phase == "decisions" and rnd.deciding() == (0,)
    opts = rnd.options(0)
    assert opts is not None and opts.to_wire() == {"fold": True, "play": 200}
    events = rnd.act(0, "play")
    end = events[-1]
    assert isinstance(end, RoundEnded) and isinstance(end, HandEnd) and end.rake == 0
    assert ends_hand(end) and not any(ends_hand(e) for e in events[:-1])
    assert sum(end.stacks.values()) == 20_000 - chips_taken(end)
    with pytest.raises(IllegalAction):
        rnd.act(0, "play")


def test_house_expire_times_out_every_decider_then_deals() -> None:
    rnd = _round()
    rnd.act(0, "ante", 100)
    rnd.expire()  # seat 1 sat out by the clock; the round is dealt
    assert rnd.phase == "decisions" and rnd.deciding() == (0,)


def test_pot_game_end_event_has_the_protocol_fields() -> None:
    hand = _hand()
    hand.start()
    (seat,) = hand.deciding()
    end = hand.act(seat, "fold")[-1]
    assert isinstance(end, HandEnded) and isinstance(end, HandEnd) and ends_hand(end)
    assert end.house_net == end.jackpot_collected == 0
    assert sum(end.stacks.values()) == 2000 - chips_taken(end)


def test_deck_running_out_mid_hand_is_an_invariant_error_not_a_refusal() -> None:
    hand = _hand()
    hand.start()
    hand.stock = hand.stock[:hand.pos]  # a bug: the checked deck lost its cards
    (seat,) = hand.deciding()
    hand.act(seat, "call")
    with pytest.raises(InvariantError):
        hand.act(1 - seat, "check")  # the flop cannot be dealt
