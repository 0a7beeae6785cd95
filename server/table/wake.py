"""The kinds of the actor's timer wake-ups (`server.table.state._Wake.kind`).

Rule of this module: every timer the table actor arms puts a `_Wake` of one of these kinds on
its inbox; the actor branches on the kind (`server.table.turn_clock`). A `StrEnum`: members
equal the strings used until now (`WakeKind.TURN == "turn"`), so it can replace them one use
at a time.
"""

from __future__ import annotations

from enum import StrEnum, unique

__all__ = ["WakeKind"]


@unique
class WakeKind(StrEnum):
    NEXT_HAND = "next_hand"              # the pause between two hands is over (`spec.pause`)
    TURN = "turn"                        # the seat to act used its action clock
    BANK = "bank"                        # ... and then its time bank: it times out
    GRACE = "grace"                      # a disconnected seat's reconnect grace is over
    ANTE_DEADLINE = "ante_deadline"      # Caribbean: the antes' time is over
    DECIDE_DEADLINE = "decide_deadline"  # Caribbean: the play/fold decisions' time is over
