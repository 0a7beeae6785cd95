"""Who sees which card of an engine event: the one visibility rule of every game.

Rule of this module: :func:`seen` gives the version of an engine event that one viewer (a
seat, or None for a spectator) may see, and nothing else decides it.  The table's live frames
(:mod:`server.table.projection`), the hand record's openings (:mod:`server.table.recording`),
the players' copies of a record (:mod:`server.ledger.history`), and through them the exports
and ``poker-verify``, all derive from it.  The card rule itself is
:func:`server.rules.view.card_for`:

* a face-down card (hole cards, a draw's discards and new cards, a Caribbean hand) is seen by
  its owner only; face-up cards (stud up cards), the board and the cards shown at showdown
  (SHOW-01/SHOW-02) by everyone;
* burns and dead cards (STUD-06) by nobody, not even the seat that was dealt them;
* the Caribbean dealer's hand: only its up card until it is turned (CSP-02), then all five;
* a folded hand is named to nobody but its owner (SHOW-03); a Caribbean player's cards are
  never turned for the others, so its ``Settled`` hides ``hand``, ``jackpot_hand`` and
  ``best`` (the five cards that make the value) from everyone but its owner, folded or not
  (CSP-14: a hand's name only to whom may see its cards).

A hidden card is None in the viewed event, at its place (the deck positions stay, so the
dealing order can still be checked); the event keeps its class and fields.  A viewed event is
for showing and recording: it is never fed back to an engine.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar, cast

from server.rules import caribbean as csp
from server.rules import events as ev
from server.rules.view import cards_for

__all__ = ["seen"]

E = TypeVar("E")


def _hidden(cards: tuple[Any, ...]) -> tuple[None, ...]:
    return (None,) * len(cards)


_DEALT = (ev.Dealt, csp.Dealt)  # (a tuple: a `X | Y` union is built again on every call)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _with(event: E, **changes: Any) -> E:
    """A copy of the (frozen, slotted) event with ``changes``; the viewed event holds None
    where its class says str: it is never given to an engine. Field by field, without
    ``dataclasses.replace`` (which runs ``__init__`` again): this runs for every hidden card
    of every frame."""
    cls = type(event)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cast(Any, cls)))
    copy = object.__new__(cls)
    for name in names:
        object.__setattr__(copy, name, changes[name] if name in changes
                           else getattr(event, name))
    return copy


def seen(event: E, viewer: int | None) -> E:
    """``event`` as ``viewer`` (a seat, or None for a spectator) may see it: every card it
    may not see is None (see the module docstring); the event itself when it hides nothing."""
    e: Any = event
    if isinstance(e, ev.Burned):
        return _with(event, card=None)
    if isinstance(e, _DEALT):
        dead = isinstance(e, ev.Dealt) and e.dead
        if viewer == e.seat and not dead:
            return event
        return _with(event, cards=cards_for(e.cards, e.up, owner=e.seat, viewer=viewer,
                                            dead=dead))
    if isinstance(e, ev.Drew):
        if viewer == e.seat:
            return event
        return _with(event, discarded=_hidden(e.discarded),
                     received=_hidden(e.received))
    if isinstance(e, csp.DealerDealt):  # the dealer is nobody's seat: only the up card
        return _with(event, cards=cards_for(e.cards, e.up, owner=-1, viewer=viewer))
    if isinstance(e, csp.Settled) and viewer != e.seat:  # SHOW-03, CSP-14
        return _with(event, hand=None, jackpot_hand=None, best=_hidden(e.best))
    return event
