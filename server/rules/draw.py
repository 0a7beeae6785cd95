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
    max_seats=10,  # 5n <= 52 for the deal; the draw has its running-short rule
    reshuffle_burns=True,
)
