"""Texas Hold'em (HOLD-01..03): two hole cards, a flop of three, a turn and a river."""

from __future__ import annotations

from server.rules.variant import BLINDS, BOARD, BUTTON, DOWN, Street, Variant

HOLDEM = Variant(
    name="holdem",
    streets=(
        Street(deal=((DOWN, 2),), opener=BLINDS),                      # pre-flop (BET-02)
        Street(deal=((BOARD, 3),), burn=True, opener=BUTTON),          # flop
        Street(deal=((BOARD, 1),), burn=True, opener=BUTTON, big=True),  # turn
        Street(deal=((BOARD, 1),), burn=True, opener=BUTTON, big=True),  # river
    ),
    max_seats=10,  # the deck serves 22 (2n + 5 + 3 burns <= 52); a table seats 10
)
