"""The clocks of one table: the action clock of a turn, the time bank after it, a house game's
phase deadline, the reconnect grace of a disconnected seat and the pause before the next hand.

Rule of this module: :class:`TurnClock` owns the timers, their token and the running turn
(seat, deadline, whether its bank runs). A timer only puts a :class:`~server.table.wake.Wake`
on the actor's inbox; the actor asks :meth:`TurnClock.is_current` and drops a stale one (its
token is older than the last :meth:`TurnClock.cancel`). Grace and next-hand timers are not
cancelled with the turn's (they carry their own token).

Decision documented here:

* **Clocks.** ``turn.deadline`` is the action clock's end (Unix seconds); the player's time
  bank (``Config.time_bank``, per seat, not refilled) runs after it; then ``Hand.timeout``.
  ``Config.consecutive_timeouts_to_sit_out`` timeouts in a row sit the player out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from server.table.api import Clock, Timer
from server.table.wake import Wake, WakeKind

__all__ = ["TurnClock"]


class TurnClock:
    """One table's timers and running turn (see the module docstring).

    ``post(wake)`` puts a wake-up on the actor's inbox (called from the clock's callback).
    """

    def __init__(self, clock: Clock, post: Callable[[Wake], None]) -> None:
        self.clock = clock
        self.post = post
        self.token = 0
        self.timers: list[Timer] = []
        self.seat: int | None = None  # the seat whose turn it is (pot games)
        self.deadline = 0.0  # its action clock's end (monotonic)
        self.wall = 0.0  # the deadline announced (Unix seconds): the clock's or the bank's end
        self.in_bank = False
        self.next_hand: Timer | None = None

    def next_token(self) -> int:
        self.token += 1
        return self.token

    def schedule(self, kind: WakeKind, delay: float, arg: Any = None, *,
                 token: int | None = None) -> Timer:
        """Arm a timer; the turn's timers (no ``token`` given) are cancelled by
        :meth:`cancel`, the others are only made stale by their own token."""
        tok = self.token if token is None else token
        timer = self.clock.call_later(delay, lambda: self.post(Wake(kind, tok, arg)))
        if token is None:
            self.timers.append(timer)
        return timer

    def is_current(self, wake: Wake) -> bool:
        return wake.token == self.token

    def cancel(self) -> None:
        """Cancel the turn's timers (the bank stops running)."""
        for t in self.timers:
            t.cancel()
        self.timers.clear()
        self.token += 1
        self.in_bank = False

    def end_turn(self) -> None:
        self.cancel()
        self.seat = None

    def start_turn(self, seat: int, seconds: float) -> None:
        """``seat``'s turn: its action clock runs ``seconds``."""
        self.cancel()
        self.seat = seat
        self.deadline = self.clock.now() + seconds
        self.wall = self.clock.wall() + seconds
        self.schedule(WakeKind.TURN, seconds, seat)

    def start_bank(self, seat: int, bank: float) -> None:
        """The action clock ran out: the seat's time bank runs (the announced deadline moves
        to its end)."""
        self.in_bank = True
        self.schedule(WakeKind.BANK, bank, seat)
        self.wall = self.clock.wall() + bank

    def bank_spent(self) -> float:
        """Seconds of the bank used so far by the seat to act."""
        return self.clock.now() - self.deadline if self.in_bank else 0.0

    def start_phase(self, kind: WakeKind, seconds: float) -> float:
        """Every seat of a house game's phase decides by one deadline; returns it (Unix)."""
        self.cancel()
        self.wall = self.clock.wall() + seconds
        self.schedule(kind, seconds)
        return self.wall

    def schedule_next_hand(self, pause: float) -> None:
        token = self.next_token()
        self.next_hand = self.clock.call_later(
            pause, lambda: self.post(Wake(WakeKind.NEXT_HAND, token)))

    def cancel_next_hand(self) -> None:
        if self.next_hand is not None:
            self.next_hand.cancel()
            self.next_hand = None
