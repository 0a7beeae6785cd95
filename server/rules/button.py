"""Where the button and the blinds go from one hand to the next (GEN-05, BLIND-01).

The dead-button rule, as docs/rules.md GEN-05 states it: the first button goes to the
highest-numbered occupied seat; after every hand the **big blind** (the last compulsory blind)
moves to the next player clockwise who is in the game, and each earlier blind and the button
follow behind it, onto the *positions* the blinds held the hand before.  So every player pays
each blind once per orbit, nobody pays a blind twice in a row or skips one; with nobody joining
or leaving the button simply moves to the next occupied seat, and only when a player has left
may the button or a small blind be dead (a position with nobody to post).

Pure functions of seat numbers; the table keeps the :class:`Positions` between hands.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Positions:
    """The button seat and the seat of each compulsory blind (the last is the big blind).

    Seats may be empty or hold someone not in the hand: such a blind is *dead* (nobody
    posts it) and such a button is a dead button.  ``posting`` gives, per blind, the seat that
    actually posts it (None: dead) for the hand's players.
    """

    button: int
    blinds: tuple[int, ...]

    def posting(self, players: Collection[int]) -> tuple[int | None, ...]:
        """Per blind, the seat that posts it among ``players`` (None: a dead blind)."""
        out: list[int | None] = []
        used: set[int] = set()
        for i in range(len(self.blinds) - 1, -1, -1):  # the big blind first: it is never dead
            seat = self.blinds[i]
            if seat in players and seat not in used:
                out.append(seat)
                used.add(seat)
            else:
                out.append(None)
        return tuple(reversed(out))


def clockwise_after(seat: int, candidates: Collection[int], num_seats: int) -> int | None:
    """The first seat of ``candidates`` strictly clockwise after ``seat`` (``seat`` itself
    last); None when ``candidates`` is empty.  Seat 0 is a seat like any other."""
    for step in range(1, num_seats + 1):
        s = (seat + step) % num_seats
        if s in candidates:
            return s
    return None


def first_positions(players: Sequence[int], n_blinds: int, num_seats: int, *,
                    heads_up_button_first_blind: bool = False) -> Positions:
    """The first hand of a table: the button on the highest-numbered occupied seat (GEN-05),
    the blinds on the players to its left in turn (BLIND-01; heads-up under
    ``heads_up_button_first_blind`` the button posts the first blind)."""
    button = max(players)
    order = sorted(players, key=lambda s: (s - button - 1) % num_seats)
    if len(players) == 2 and heads_up_button_first_blind and n_blinds >= 1:
        order = [button] + [s for s in order if s != button]
    return Positions(button, tuple(order[:n_blinds]))


def next_positions(prev: Positions, players: Sequence[int], num_seats: int, *,
                   heads_up_button_first_blind: bool = False) -> Positions:
    """The positions of the next hand, given the last hand's and the seats of every player in
    the game now (``players``; those waiting for the big blind included, since the big blind
    reaching them is how they come in).

    The big blind moves to the next player clockwise after the last big blind; every earlier
    blind takes the position of the blind after it; the button takes the first blind's old
    position.  Heads-up with ``heads_up_button_first_blind`` the button is the small blind's
    seat when one posts it.  When there are fewer players than blinds, or the positions would
    collide, the blinds are simply placed to the left of the button moved on by one player.
    """
    n_blinds = len(prev.blinds)
    pool = set(players)
    if n_blinds == 0:  # no blinds: the button moves to the next player
        nxt = clockwise_after(prev.button, pool, num_seats)
        return Positions(nxt if nxt is not None else prev.button, ())
    big = clockwise_after(prev.blinds[-1], pool, num_seats)
    if big is None or len(pool) < n_blinds:
        return _fallback(prev, players, n_blinds, num_seats)
    blinds = (*prev.blinds[1:], big)
    if len(set(blinds)) != len(blinds):
        return _fallback(prev, players, n_blinds, num_seats)
    button = prev.blinds[0]
    if heads_up_button_first_blind and len(pool) == 2 and n_blinds == 2 and blinds[0] in pool:
        button = blinds[0]
    return Positions(button, blinds)


def _fallback(prev: Positions, players: Sequence[int], n_blinds: int,
              num_seats: int) -> Positions:
    nxt = clockwise_after(prev.button, set(players), num_seats)
    button = nxt if nxt is not None else prev.button
    order = sorted(players, key=lambda s: (s - button - 1) % num_seats)
    return Positions(button, tuple(order[:n_blinds]))
