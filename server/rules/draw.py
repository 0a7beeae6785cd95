"""Draw (DRAW-01..04): five cards down, a round, the draw, a round, showdown.

The optional over blind (BLIND-04) is a table setting (``TableRules.over_blind``)
and a per-hand choice of the seat left of the last blind (``Hand(over_blind=True)``).
A burn comes off before the draw; if the deck runs short the burn and the other
players' discards are shuffled to finish it.
"""

from __future__ import annotations

from server.rules.variant import BLINDS, BUTTON, DOWN, Street, Variant

DRAW = Variant(
    name="draw",
    streets=(
        Street(deal=((DOWN, 5),), opener=BLINDS),
        Street(burn=True, draw=True, opener=BUTTON, big=True),
    ),
    # GEN-07: eight seats leave 11 cards and a burn after the deal, so every player can draw
    # up to five; the burn and the others' discards are reshuffled when it runs short.
    max_seats=8,
    reshuffle_burns=True,
)
