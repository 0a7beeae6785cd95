"""The one protocol every game the table runs answers (pot games and house games alike).

Rule of this module: the table layer talks to a game only through :class:`Engine`; it never
asks which game it holds.  :class:`~server.rules.hand.Hand` (the pot games) and
:class:`~server.rules.caribbean.CaribbeanRound` (Caribbean Stud, house-banked) both implement
it, and a test checks they do (``tests/rules/test_engine.py``).

* ``start()`` opens the hand and returns its first events.
* ``act(seat, action, amount, discard, jackpot=...)`` applies one action or raises
  :class:`~server.rules.errors.IllegalAction` with the state untouched.
* ``timeout(seat)`` is the clock's default action for ``seat``.
* ``options(seat)`` is the one :class:`~server.rules.options.Options` type (None: nothing to
  decide now); ``deciding()`` the seats with a decision now (one seat at a time in a pot
  game, every seat at once in a house game's phase).
* ``view(seat)`` is what that seat (None: a spectator) may see of the hand now
  (:class:`~server.rules.view.View`): the only visibility rule of the state, as
  :func:`server.rules.visibility.seen` is of the events.
* The hand's last event is a :class:`HandEnd`: the final ``stacks``, ``voided``, ``rake``
  (pot games), ``house_net`` and ``jackpot_collected`` (house games; 0 elsewhere).  The chips
  are conserved: ``sum(stacks) == sum(start) - rake - house_net - jackpot_collected``.

A broken invariant inside an engine (the deck ran out after GEN-02's check) raises
:class:`~server.rules.errors.InvariantError`: never an answer to a player, the table voids.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from server.rules.options import Options
from server.rules.view import View

__all__ = ["END_EVENTS", "Engine", "HandEnd", "chips_taken", "ends_hand"]


@runtime_checkable
class HandEnd(Protocol):
    """The end-of-hand event of every engine."""

    @property
    def stacks(self) -> dict[int, int]: ...
    @property
    def voided(self) -> bool: ...
    @property
    def rake(self) -> int: ...
    @property
    def house_net(self) -> int: ...
    @property
    def jackpot_collected(self) -> int: ...


def _end_events() -> tuple[type, ...]:
    from server.rules.caribbean import RoundEnded
    from server.rules.events import HandEnded

    return (HandEnded, RoundEnded)


END_EVENTS: tuple[type, ...] = _end_events()
"""The classes of the engines' end-of-hand events (each one a :class:`HandEnd`)."""


def ends_hand(event: object) -> bool:
    """Whether ``event`` is a hand's last event: an exact class test, cheap on every event
    (``isinstance`` against the runtime-checkable :class:`HandEnd` protocol is not)."""
    return type(event) in END_EVENTS


def chips_taken(end: HandEnd) -> int:
    """What left the players' stacks for the house in this hand (rake, house result, jackpot
    wagers collected): the chip conservation check's difference."""
    return end.rake + end.house_net + end.jackpot_collected


class Engine(Protocol):
    """One hand of any game (see the module docstring)."""

    @property
    def is_over(self) -> bool: ...
    @property
    def stacks(self) -> dict[int, int]: ...

    def start(self) -> list[Any]: ...

    def act(self, seat: int, action: str, amount: int | None = None,
            discard: Sequence[str] = (), *, jackpot: bool = False) -> list[Any]: ...

    def timeout(self, seat: int) -> list[Any]: ...

    def options(self, seat: int) -> Options | None: ...

    def deciding(self) -> tuple[int, ...]: ...

    def view(self, seat: int | None) -> View: ...
