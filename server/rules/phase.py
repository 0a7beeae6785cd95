"""Where a hand is: its phase, and the steps a variant's street table makes of it.

A hand runs through phases (:class:`Phase`); the ones that wait for a player are
``OVER_BLIND`` (BLIND-04/STRAD-01's question before the deal), ``BETTING``, ``DRAW``,
``RUNOUT`` (RIT-02's question) and ``SHOW`` (SHOWWIN-01's question); ``READY`` is a hand
built but not started and ``OVER`` a hand finished (or voided).

The street is a :class:`StreetPlan`: the street table's entry for one street (its index, its
:class:`~server.rules.variant.Street`, whether it is the last) with the steps it runs, in
order: ``DEAL`` (burn, deal), ``DRAW`` (when the street has one) and ``BET`` (its betting
round).  After the last street comes the showdown; between streets, at a home game with the
house rule on, the run-it-twice question (:mod:`server.rules.runout`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from server.rules.variant import BOARD, Street, Variant


class Phase(enum.Enum):
    """What the hand is doing now (see the module docstring)."""

    READY = "ready"
    OVER_BLIND = "over_blind"
    BETTING = "betting"
    DRAW = "draw"
    RUNOUT = "runout"
    SHOW = "show"
    OVER = "over"


class Step(enum.Enum):
    """One step of a street: deal its cards, let the players draw, bet."""

    DEAL = "deal"
    DRAW = "draw"
    BET = "bet"


@dataclass(frozen=True, slots=True)
class StreetPlan:
    """One street of the variant's table: ``index`` (0 first), its ``street``, its ``steps``,
    whether it is the ``last``, and ``board_only_after``: every street after it deals only
    board cards (no draw, no own cards), the condition of the run-it-twice question (RIT-01);
    ``cards_after`` the cards (burns included) those streets take from the deck."""

    index: int
    street: Street
    steps: tuple[Step, ...]
    last: bool
    board_only_after: bool
    cards_after: int
    own_deal: tuple[tuple[str, int], ...] = ()  # the own cards' deal steps (kind, count)
    board_deal: tuple[int, ...] = ()  # the board cards dealt, in groups

    def __deepcopy__(self, memo: dict[int, Any]) -> StreetPlan:
        return self  # an immutable value of the variant's table: a copied hand shares it


_PLANS: dict[int, tuple[Variant, tuple[StreetPlan, ...]]] = {}


def plan(variant: Variant) -> tuple[StreetPlan, ...]:
    """The variant's street table as plans, first street first (made once per variant)."""
    known = _PLANS.get(id(variant))
    if known is not None and known[0] is variant:
        return known[1]
    made = _plan(variant)
    if len(_PLANS) > 256:  # pragma: no cover (variants are a handful of module constants)
        _PLANS.clear()
    _PLANS[id(variant)] = (variant, made)
    return made


def _plan(variant: Variant) -> tuple[StreetPlan, ...]:
    streets = variant.streets
    out = []
    for i, street in enumerate(streets):
        rest = streets[i + 1:]
        steps = (Step.DEAL, Step.DRAW, Step.BET) if street.draw else (Step.DEAL, Step.BET)
        out.append(StreetPlan(
            index=i, street=street, steps=steps, last=i == len(streets) - 1,
            board_only_after=not any(st.draw or any(kind != BOARD for kind, _ in st.deal)
                                     for st in rest),
            cards_after=sum(int(st.burn) + sum(n for _, n in st.deal) for st in rest),
            own_deal=tuple((kind, n) for kind, n in street.deal if kind != BOARD),
            board_deal=tuple(n for kind, n in street.deal if kind == BOARD)))
    return tuple(out)
