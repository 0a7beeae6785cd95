"""What one viewer may see: the card rule, and the engine's per-seat view of a hand.

Rule of this module: :func:`card_for` is the one answer to "may this viewer see this card?"
(a face-up card: everyone; a face-down card: its owner only; a dead card, STUD-06: nobody);
:mod:`server.rules.visibility` applies it to the engine's events and both engines apply it in
``view(seat)`` (:class:`View`), so live frames, snapshots, hand records, player copies and
exports all follow from it.  A viewer is a seat, or None for a spectator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from server.rules.options import Options

__all__ = ["SeatView", "View", "card_for", "cards_for"]


def card_for(card: str, *, up: bool, owner: int, viewer: int | None,
             dead: bool = False) -> str | None:
    """``card`` (dealt to ``owner``, face up when ``up``) as ``viewer`` sees it: the card, or
    None when it is hidden from them.  A dead card (STUD-06) is hidden from everyone."""
    if dead:
        return None
    return card if up or viewer == owner else None


def cards_for(cards: Sequence[str], up: Sequence[bool], *, owner: int, viewer: int | None,
              dead: bool = False) -> tuple[str | None, ...]:
    """:func:`card_for` over a seat's cards (``up[i]`` for ``cards[i]``)."""
    return tuple(card_for(c, up=u, owner=owner, viewer=viewer, dead=dead)
                 for c, u in zip(cards, up, strict=True))


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat of the hand as a viewer sees it now.

    ``stack``: chips in front of the player now; ``bet``: their bet in this betting round;
    ``state``: ``active``, ``folded`` or ``all_in``; ``cards``: the face-down cards, each the
    card to its owner and None to everyone else; ``up``: the face-up cards (everyone's);
    ``deciding``: the seat has a decision to make now.
    """

    seat: int
    stack: int
    bet: int = 0
    state: str = "active"
    cards: tuple[str | None, ...] = ()
    up: tuple[str, ...] = ()
    deciding: bool = False


@dataclass(frozen=True, slots=True)
class View:
    """A hand as ``viewer`` (a seat, or None for a spectator) may see it now (``Engine.view``).

    ``seats``: every seat of the hand; ``board``: the community cards; ``pots``: ``(amount,
    eligible seats)`` of the main pot and each side pot holding the chips of the betting
    rounds before the current one (the current round's bets are the seats' ``bet``);
    ``options``: the viewer's, when the viewer has a decision to make now (else None);
    ``together``: every deciding seat decides at once, against one deadline for the phase
    (a house game), rather than one seat at a time; ``dealer``: a house game's dealer cards
    (None per card still face down).
    """

    viewer: int | None
    seats: Mapping[int, SeatView]
    board: tuple[str, ...] = ()
    pots: tuple[tuple[int, tuple[int, ...]], ...] = ()
    options: Options | None = None
    together: bool = False
    dealer: tuple[str | None, ...] = field(default=())
