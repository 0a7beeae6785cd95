"""SHOW-04: a hand's name names the kicker that decides, and only where it decides."""

from __future__ import annotations

import pytest

from server.rules.evaluate import evaluate, name_against
from server.rules.events import PotAwarded, Showdown
from tests.rules.scripted import Script, like, run
from tests.rules.test_caribbean import run as run_caribbean
from tests.rules.test_caribbean import settled


def v(cards: str):  # type: ignore[no-untyped-def]
    return evaluate(cards.split())


@pytest.mark.parametrize(("mine", "rival", "name"), [
    ("As Ad Kc Qh 5s", "Ah Ac Qd Jh 9s", "pair of aces, king kicker"),
    ("As Ad Kc Qh 5s", "Ah Ac Kd Jh 9s", "pair of aces, queen kicker"),
    ("As Ad Kc Qh 5s", "Ah Ac Kd Qd 4s", "pair of aces, five kicker"),
    ("As Ad Kc Kh 5s", "Ah Ac Kd Ks 4s", "two pair, aces and kings, five kicker"),
    ("7s 7d 7c Ah 5s", "7h 7c 7d Kh 9s", "three of a kind, sevens, ace kicker"),
    ("7s 7d 7c Ah 5s", "7h 7c 7d Ah 4s", "three of a kind, sevens, five kicker"),
    ("9s 9d 9c 9h Ks", "9s 9d 9c 9h Qs", "four of a kind, nines, king kicker"),
    ("As Kd 9c 7h 5s", "Ah Qd 9c 7h 5s", "high card, ace-king"),
    ("As Kd 9c 7h 5s", "Ah Kc 8c 7h 5s", "high card, ace-king-nine"),
    ("As Ks 9s 7s 5s", "Ah Kh 8h 7h 5h", "flush, ace-king-nine high"),
    ("As Ks 9s 7s 6s", "Ah Kh 9h 7h 5h", "flush, ace-king-nine-seven-six high"),
])
def test_show04_the_deciding_kicker_is_named(mine: str, rival: str, name: str) -> None:
    assert name_against(v(mine), [v(rival)]) == name


@pytest.mark.parametrize(("mine", "rivals", "name"), [
    ("As Ad Kc Qh 5s", ["Ah Ac Kd Qd 5c"], "pair of aces"),  # an exact tie: nothing decides
    ("As Ad Kc Qh 5s", ["Kh Kd Ad Qd 5c"], "pair of aces"),  # another pair: the pair decides
    ("As Ad Kc Qh 5s", ["Ah Kh Qh Jh 9h"], "pair of aces"),  # another category
    ("As Ad Kc Qh 5s", [], "pair of aces"),
    ("As Kd Qc Jh Ts", ["Ah Kc Qd Jc Td"], "straight, ace high"),  # no kicker in a straight
    ("As Ad Ac Kh Ks", ["Ah Ad Ac Kd Kc"], "full house, aces full of kings"),
])
def test_show04_no_kicker_where_none_decides(mine: str, rivals: list[str], name: str) -> None:
    assert name_against(v(mine), [v(r) for r in rivals]) == name


def test_show04_the_closest_rival_decides() -> None:
    """Against several hands the kicker named is the one that beats the closest of them."""
    mine = v("As Ad Kc Qh 5s")
    assert name_against(mine, [v("Ah Ac Jd Th 9s"), v("Ah Ac Kd Jh 9s")]) \
        == "pair of aces, queen kicker"


def test_show04_holdem_showdown_and_pot_name_the_kicker() -> None:
    """Alice's pair of aces beats Carol's on the king kicker: both shown hands and the pot
    say which kicker decided; the loser's name carries her own deciding kicker."""
    res = run(Script(
        stacks={1: 100, 2: 100}, button=2,
        holes={1: "As Kd", 2: "Ah Qc"}, board="Ac 7d 4h 9s 2c",
        actions=[(1, "call"), (2, "check"), (1, "check"), (2, "check"),
                 (1, "check"), (2, "check"), (1, "check"), (2, "bet", 10), (1, "call")],
        events=[like(Showdown, seat=2, hand="pair of aces, queen kicker"),
                like(Showdown, seat=1, hand="pair of aces, king kicker"),
                like(PotAwarded, winners={1: 40}, hand="pair of aces, king kicker")],
    ))
    assert res.hand.is_over


def test_show04_an_exact_tie_names_no_kicker() -> None:
    res = run(Script(
        stacks={1: 100, 2: 100}, button=2,
        holes={1: "As 3d", 2: "Ah 3c"}, board="Ac Kd Qh 9s 7c",
        actions=[(1, "call"), (2, "check"), (1, "check"), (2, "check"),
                 (1, "check"), (2, "check"), (1, "check"), (2, "check")],
        events=[like(Showdown, seat=1, hand="pair of aces"),
                like(Showdown, seat=2, hand="pair of aces"),
                like(PotAwarded, winners={1: 10, 2: 10}, hand="pair of aces")],
    ))
    assert res.hand.is_over


def test_show04_revealed_mucked_hand_is_named_against_the_shown() -> None:
    """SHOW-02's late reveal names the mucked hand against the hands shown."""
    res = run(Script(
        stacks={1: 100, 2: 100}, button=2,
        holes={1: "As Kd", 2: "Ah Qc"}, board="Ac 7d 4h 9s 2c",
        actions=[(1, "call"), (2, "check"), (1, "check"), (2, "check"),
                 (1, "check"), (2, "check"), (1, "check"), (2, "check")],
    ))
    shown = [e for e in res.events if isinstance(e, Showdown)]
    assert [e.seat for e in shown] == [1]  # seat 1 shows first; 2 gives up unseen
    assert shown[0].hand == "pair of aces"  # nothing else shown: no kicker decided
    [late] = res.hand.reveal_mucked()
    assert late.hand == "pair of aces, queen kicker"


def test_show04_caribbean_hand_named_against_the_dealer() -> None:
    """Player and dealer both hold ace-king high: the player's name says where it won."""
    rnd = run_caribbean([("As", "Kh", "Qd", "5c", "2h")])  # dealer: Ac Kd 9s 6c 3h
    assert settled(rnd)[0].hand == "high card, ace-king-queen"
    rnd = run_caribbean([("Ad", "Ah", "5d", "7c", "2h")])
    assert settled(rnd)[0].hand == "pair of aces"  # the dealer has no pair: nothing decides
