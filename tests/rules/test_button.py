"""GEN-05 / BLIND-01 as pure functions of seat numbers (server.rules.button)."""

from __future__ import annotations

from server.rules.button import Positions, clockwise_after, first_positions, next_positions


def test_gen_05_first_button_on_the_highest_occupied_seat_seat_zero_blind() -> None:
    """GEN-05: the first button is the highest-numbered occupied seat; BLIND-01: the blinds
    go to the players on its left (seat 0 included)."""
    assert first_positions([0, 3, 6], 2, 10) == Positions(6, (0, 3))
    assert first_positions([2, 9], 2, 10) == Positions(9, (2, 9))


def test_gen_05_heads_up_button_posts_the_first_blind_each_hand() -> None:
    """GEN-05 with ``heads_up_button_first_blind``: heads-up the button is the small blind
    and the big blind alternates between the two players."""
    pos = first_positions([0, 4], 2, 10, heads_up_button_first_blind=True)
    assert pos == Positions(4, (4, 0))
    seen = []
    for _ in range(4):
        pos = next_positions(pos, [0, 4], 10, heads_up_button_first_blind=True)
        assert pos.button == pos.blinds[0]
        seen.append(pos.blinds[-1])
    assert seen == [4, 0, 4, 0]


def test_gen_05_dead_small_blind_when_last_big_blind_left() -> None:
    """GEN-05: the seat that paid the big blind left: the small blind is dead (its position
    is kept for the button's next move) and the big blind moves one player."""
    pos = Positions(7, (1, 4))
    nxt = next_positions(pos, [1, 7], 10)
    assert nxt == Positions(1, (4, 7))
    assert nxt.posting([1, 7]) == (None, 7)
    after = next_positions(nxt, [1, 7], 10)
    assert after == Positions(4, (7, 1))  # a dead button on the empty seat 4
    assert after.posting([1, 7]) == (7, 1)


def test_gen_05_without_blinds_the_button_moves_to_the_next_player() -> None:
    """GEN-05 in a game without blinds (stud): the button moves to the next player clockwise
    (seat 0 after the highest seat); with nobody in the game it stays where it was."""
    assert next_positions(Positions(3, ()), [1, 3, 7], 10) == Positions(7, ())
    assert next_positions(Positions(7, ()), [1, 3, 7], 10) == Positions(1, ())
    assert next_positions(Positions(7, ()), [], 10) == Positions(7, ())


def test_clockwise_after_nobody_is_none() -> None:
    assert clockwise_after(4, (), 10) is None
    assert clockwise_after(4, (4,), 10) == 4  # the seat itself comes last


def test_gen_05_fewer_players_than_blinds_places_them_left_of_the_moved_button() -> None:
    """GEN-05 fallback: fewer players than blinds: the button moves on one player and the
    blinds go to the players on its left, as many as there are."""
    assert next_positions(Positions(9, (2, 5, 7)), [2, 5], 10) == Positions(2, (5, 2))
    assert next_positions(Positions(9, (2, 5)), [], 10) == Positions(9, ())


def test_gen_05_colliding_blind_positions_fall_back_to_the_left_of_the_button() -> None:
    """GEN-05 fallback: with three blinds (1, 2, 5) and players 2, 3 and 5, the big blind's
    move wraps round onto seat 2, which would post two blinds: instead the button moves on
    one player (to 2) and the blinds are 3, 5, 2 on its left."""
    assert next_positions(Positions(0, (1, 2, 5)), [2, 3, 5], 10) == Positions(2, (3, 5, 2))
