"""A table's lifecycle: one :class:`Phase` and the table of the transitions between phases
(in the style of h11's ``_state.py``).

Rule of this module: a table's lifecycle changes only by :meth:`Lifecycle.fire` of an
:class:`Event`, and only in the table actor's own task (the actor is the lifecycle's only
owner; code outside the table asks the actor, through its inbox, and awaits its answer:
:meth:`~server.table.actor.TableActor.ask`). A pair (phase, event) missing from
:data:`TRANSITIONS` is a bug: :meth:`Lifecycle.fire` raises :class:`LifecycleError` and leaves
the phase as it was. The flags the table used to keep (``closing``, ``hold``, ``stopped``,
``closed_for_good``, ``closing_reason``) are predicates of the one phase now.

The phases (what the code has, no more):

* ``OPEN``: hands start whenever they can.
* ``HOLDING``: a live move (``server.cluster.moves``) waits for the running hand's end; no new
  hand starts; requests are handled as usual. Released back to ``OPEN``, or ``MOVED``.
* ``DRAINING``: the process is stopping (the registry's shutdown): no new hand, no new seat;
  once no hand runs, everyone is cashed out and the table stops.
* ``LAST_HAND``: closing for good once the running hand ends (a host's close, a practice
  table whose person left), with a :attr:`Lifecycle.reason`; no new hand, no new seat.
* ``CLOSING``: closed for good now: the viewers are told, everyone is cashed out, what waits
  is refused (one handled item long, or the registry's close of a table whose task died).
* ``STOPPED``: the loop ended without a close for good (a shutdown's drain, ``STOP``).
* ``MOVED``: the table went to another process (a live move's handover, or a fence).
* ``CLOSED``: closed for good and stopped: the registry forgets it.

Not here, on purpose: whether a hand runs (the dealer's engine: one owner for it), and a home
game host's pause (``server.table.host``): it is orthogonal to every phase (a paused table can
be moved, drained or closed, and it travels with a move), so it stays the host's.

Self-loops in the table are the code's idempotent paths, kept legal on purpose: a shutdown
(``DRAIN``) may reach a table in any phase (the registry's ``cash_out_all`` settles whatever is
left even of a stopped one); a move's hold released after the table began closing changes
nothing; a close for good after a crash may start again from ``CLOSING``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Final

__all__ = ["TRANSITIONS", "Event", "Lifecycle", "LifecycleError", "Phase"]


@enum.unique
class Phase(enum.Enum):
    OPEN = "open"
    HOLDING = "holding"
    DRAINING = "draining"
    LAST_HAND = "last_hand"
    CLOSING = "closing"
    STOPPED = "stopped"
    MOVED = "moved"
    CLOSED = "closed"


@enum.unique
class Event(enum.Enum):
    HOLD = "hold"                  # a live move: start no new hand (the cluster, by message)
    RELEASE = "release"            # the move did not happen: play on
    DRAIN = "drain"                # the registry's shutdown: stop once no hand runs
    CLOSE_AFTER_HAND = "close_after_hand"  # close for good once the running hand ends
    CLOSE = "close"                # close for good now (idle, operator, host, crashed ...)
    FINISH = "finish"              # everyone was cashed out: the loop ends
    HALT = "halt"                  # the ``STOP`` inbox item: the loop ends
    MOVE = "move"                  # the table lives on another process now


P, E = Phase, Event
_STOPPED: Final = (P.STOPPED, P.MOVED, P.CLOSED)
_LIVE: Final = (P.OPEN, P.HOLDING, P.DRAINING, P.LAST_HAND)

TRANSITIONS: Final[Mapping[tuple[Phase, Event], Phase]] = {
    (P.OPEN, E.HOLD): P.HOLDING,
    (P.HOLDING, E.RELEASE): P.OPEN,
    # the hold ended after the table began closing (or left): nothing changes
    **{(p, E.RELEASE): p for p in (P.DRAINING, P.LAST_HAND, P.CLOSING, *_STOPPED)},
    (P.OPEN, E.DRAIN): P.DRAINING,
    (P.HOLDING, E.DRAIN): P.DRAINING,
    # a shutdown reaches every table: one closing already goes on closing its own way
    **{(p, E.DRAIN): p for p in (P.DRAINING, P.LAST_HAND, P.CLOSING, *_STOPPED)},
    **{(p, E.CLOSE_AFTER_HAND): P.LAST_HAND for p in _LIVE},
    **{(p, E.CLOSE): P.CLOSING for p in (*_LIVE, P.CLOSING)},
    (P.DRAINING, E.FINISH): P.STOPPED,
    (P.LAST_HAND, E.FINISH): P.STOPPED,  # a shutdown's deadline voided the last hand
    (P.CLOSING, E.FINISH): P.CLOSED,
    **{(p, E.FINISH): p for p in _STOPPED},  # cash_out_all of a stopped table
    **{(p, E.HALT): P.STOPPED for p in _LIVE},
    (P.STOPPED, E.HALT): P.STOPPED,
    **{(p, E.MOVE): P.MOVED for p in _LIVE},
}
"""(phase, event) -> the next phase; any other pair is illegal."""
del P, E


class LifecycleError(RuntimeError):
    """An event that is not allowed in the table's current phase (a bug)."""


class Lifecycle:
    """One table's phase (see the module docstring). ``check``: called before each change
    (the actor's write guard, in tests; None in production)."""

    __slots__ = ("_check", "_reason", "_state")

    def __init__(self, check: Callable[[], None] | None = None) -> None:
        self._state = Phase.OPEN
        self._reason: str | None = None
        self._check = check

    @property
    def state(self) -> Phase:
        return self._state

    @property
    def reason(self) -> str | None:
        """Why the table closes for good after its hand (``LAST_HAND``), else None."""
        return self._reason if self._state is Phase.LAST_HAND else None

    def fire(self, event: Event, *, reason: str | None = None) -> Phase:
        """Apply ``event`` (with ``CLOSE_AFTER_HAND``, its ``reason``); the new phase.
        Raises :class:`LifecycleError` when ``event`` is illegal in this phase."""
        try:
            new = TRANSITIONS[self._state, event]
        except KeyError:
            raise LifecycleError(f"{event.name} in phase {self._state.name}") from None
        if self._check is not None:
            self._check()
        self._state = new
        if event is Event.CLOSE_AFTER_HAND:
            self._reason = reason
        return new

    # ------------------------------------------------------------------ predicates
    @property
    def may_start_hand(self) -> bool:
        """Whether a new hand may start (a host's pause and the seats aside)."""
        return self._state is Phase.OPEN

    @property
    def accepts_requests(self) -> bool:
        """Whether requests are queued (else answered ``table_closed`` at once)."""
        return self._state not in _STOPPED

    @property
    def holding(self) -> bool:
        """A live move waits for the running hand's end."""
        return self._state is Phase.HOLDING

    @property
    def closing(self) -> bool:
        """Closing or closed (by a shutdown or for good): no new hand and no new seat."""
        return self._state in (Phase.DRAINING, Phase.LAST_HAND, Phase.CLOSING,
                               Phase.STOPPED, Phase.CLOSED)

    @property
    def stopped(self) -> bool:
        """The loop has ended (or ends after the item being handled): nothing more is
        handled."""
        return self._state in _STOPPED

    @property
    def closed_for_good(self) -> bool:
        """Closed for good (not by a shutdown or a move): the registry forgets it."""
        return self._state in (Phase.CLOSING, Phase.CLOSED)
