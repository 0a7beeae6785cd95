"""The one error type of the rules engine.

Every refusal carries a ``reason`` that maps 1:1 onto a protocol error code
(``not_your_turn``, ``bad_action``, ``bad_amount``, ``bad_discard``,
``no_hand``, ``bad_deck``, ``bad_setup``).  An engine method that raises
:class:`IllegalAction` has changed nothing: callers may simply report the
reason and carry on with the same state.

:class:`InvariantError` is the other kind: a bug or an impossible state found mid-change (the
deck ran out during a deal after it passed GEN-02's check, chips not conserved).  It is never
an answer to a player: the table voids the hand, refunds everyone and carries on.
"""

from __future__ import annotations

NOT_YOUR_TURN = "not_your_turn"
BAD_ACTION = "bad_action"
BAD_AMOUNT = "bad_amount"
BAD_DISCARD = "bad_discard"
NO_HAND = "no_hand"
BAD_DECK = "bad_deck"
BAD_SETUP = "bad_setup"
LIMIT_EXCEEDED = "limit_exceeded"  # a house ceiling (server.config house policy)

REASONS = frozenset(
    {NOT_YOUR_TURN, BAD_ACTION, BAD_AMOUNT, BAD_DISCARD, NO_HAND, BAD_DECK, BAD_SETUP,
     LIMIT_EXCEEDED}
)


class IllegalAction(Exception):
    """An action or setup the rules refuse; the state is untouched."""

    def __init__(self, reason: str, message: str) -> None:
        assert reason in REASONS, reason
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __repr__(self) -> str:
        return f"IllegalAction({self.reason!r}, {self.message!r})"


class InvariantError(RuntimeError):
    """An engine or table invariant broke (the state may be half-changed): the caller voids
    the hand and refunds every stack from before it; never reported to a player as a
    refusal."""
