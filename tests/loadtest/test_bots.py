"""The bots' policy: every choice is among the options the server offered, and a seed
fixes the choices."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from server.loadtest.bots import Stats, TableTrack, choose_action


@st.composite
def pot_options(draw: st.DrawFn) -> dict[str, Any]:
    """Options as a `turn` of a pot game carries them (docs/protocol.md)."""
    facing = draw(st.booleans())
    options: dict[str, Any] = {"fold": facing, "check": not facing, "stack": 5000}
    if facing and draw(st.booleans()):
        options["call"] = draw(st.integers(1, 5000))
    for kind in ("bet", "raise") if not facing else ("raise",):
        if draw(st.booleans()):
            lo = draw(st.integers(1, 5000))
            options[kind] = {"min": lo, "max": draw(st.integers(lo, 10000))}
    if draw(st.booleans()):
        options["bring_in"] = draw(st.integers(1, 50))
        options["complete"] = draw(st.integers(51, 100))
    return options


@given(pot_options(), st.integers(0, 2**32))
def test_a_pot_game_choice_is_always_offered(options: dict[str, Any], seed: int) -> None:
    choice = choose_action(random.Random(seed), options, [])
    assert choice is not None
    action = choice["action"]
    assert options.get(action) not in (None, False)
    if action == "fold":
        assert not options["check"]  # never folds when checking is free
    if action in ("bet", "raise"):
        assert options[action]["min"] <= choice["amount"] <= options[action]["max"]
    if action == "complete":
        assert choice["amount"] == options["complete"]


@given(st.integers(0, 5), st.integers(0, 2**32))
def test_a_draw_discards_own_cards_within_the_limit(limit: int, seed: int) -> None:
    cards = ["As", "Kd", "7c", "7h", "2s"]
    choice = choose_action(random.Random(seed), {"draw": {"max": limit}, "stack": 1}, cards)
    assert choice is not None and choice["action"] == "draw"
    assert len(choice["discard"]) <= limit
    assert set(choice["discard"]) <= set(cards)


def test_caribbean_choices() -> None:
    rng = random.Random(3)
    assert choose_action(rng, {"sit_out": True, "ante": {"min": 100, "max": 900},
                               "jackpot": None}, []) == {"action": "ante", "amount": 100}
    assert choose_action(rng, {"sit_out": True}, []) is None  # cannot cover an ante
    plays = {choose_action(rng, {"fold": True, "play": 200}, [])["action"]  # type: ignore[index]
             for _ in range(50)}
    assert plays == {"play", "fold"}


def test_the_over_blind_question_is_answered() -> None:
    """BLIND-04: a bot answers the Draw over blind's question (no stall on its clock), with one
    of the two answers offered and no amount."""
    rng = random.Random(5)
    options = {"fold": False, "check": False, "over_blind": 200, "decline": True, "stack": 900}
    answers = [choose_action(rng, options, []) for _ in range(60)]
    assert {a["action"] for a in answers if a is not None} == {"over_blind", "decline"}
    assert all(a is not None and set(a) == {"action"} for a in answers)


def test_the_house_rules_questions_are_answered() -> None:
    """RIT-02 SHOWWIN-01: a bot at a home game answers the run-it-twice question and the
    uncontested winner's show-or-muck with one of the offered answers (never stalls)."""
    rng = random.Random(6)
    twice = {"fold": False, "check": False, "run_twice": True, "run_once": True, "stack": 0}
    show = {"fold": False, "check": False, "show": True, "muck": True, "stack": 900}
    for options, both in ((twice, {"run_twice", "run_once"}), (show, {"show", "muck"})):
        answers = [choose_action(rng, options, []) for _ in range(60)]
        assert {a["action"] for a in answers if a is not None} == both
        assert all(a is not None and set(a) == {"action"} for a in answers)


def test_the_seed_fixes_the_choices() -> None:
    options = {"fold": True, "check": False, "call": 200, "raise": {"min": 400, "max": 5000},
               "stack": 5000}
    first = [choose_action(random.Random(42), options, []) for _ in range(5)]
    again = [choose_action(random.Random(42), options, []) for _ in range(5)]
    assert first == again
    many = {str(choose_action(random.Random(s), options, [])) for s in range(40)}
    assert len(many) > 2  # and different seeds choose differently


def test_spectator_lag_pairs_each_event_with_the_first_player_receipt() -> None:
    stats = Stats(clock=lambda: 0.0)
    track = TableTrack("t", stats)
    track.player_saw(1, 10.0)
    track.player_saw(1, 10.5)  # a second player's receipt changes nothing
    track.spectator_saw(1, 10.25)
    track.spectator_saw(2, 11.0)  # before any player: paired when a player gets it
    track.player_saw(2, 11.5)
    assert stats.lags == [0.25, -0.5]


def test_each_hand_is_counted_once_per_table() -> None:
    stats = Stats(clock=lambda: 0.0)
    stats.begin()
    track = TableTrack("t", stats)
    for seq in (40, 40, 40, 90, 90):  # six players each receive every hand_ended
        track.hand_ended(seq, 0.5)
    assert stats.hands == 2
    assert stats.seconds[0].hands == 2
