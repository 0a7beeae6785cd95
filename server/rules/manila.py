"""Manila (MAN-01..04) and Three Card Manila (MAN3-01..04).

One community card is turned before the first round, then a burn and a
card before each of rounds two to five (four burns).  The hand is exactly
two hole cards with three community cards.  Stripped decks: 32 cards
(seven to ace) and 36 cards (six to ace); a flush beats a full house; the
ace is high in straights except in the lowest straight A-7-8-9-10
(A-6-7-8-9).  These are table settings (``TableRules.hand_rules``) with
these defaults.
"""

from __future__ import annotations

from server.rules.evaluate import HandRules
from server.rules.variant import BLINDS, BOARD, BUTTON, DOWN, Street, Variant


def _streets(hole: int) -> tuple[Street, ...]:
    return (
        Street(deal=((DOWN, hole), (BOARD, 1)), opener=BLINDS),
        Street(deal=((BOARD, 1),), burn=True, opener=BUTTON),
        Street(deal=((BOARD, 1),), burn=True, opener=BUTTON),
        Street(deal=((BOARD, 1),), burn=True, opener=BUTTON, big=True),
        Street(deal=((BOARD, 1),), burn=True, opener=BUTTON, big=True),
    )


MANILA_RULES = HandRules(lowest_rank=7, flush_beats_full_house=True, ace_low_straight=True)
MANILA3_RULES = HandRules(lowest_rank=6, flush_beats_full_house=True, ace_low_straight=True)

MANILA = Variant(
    name="manila",
    streets=_streets(2),
    lowest_rank=7,
    hand_rules=MANILA_RULES,
    use_exactly=2,
    max_seats=10,  # the deck serves 11: 2n + 5 + 4 burns <= 32 (GEN-07); a table seats 10
)

MANILA3 = Variant(
    name="manila3",
    streets=_streets(3),
    lowest_rank=6,
    hand_rules=MANILA3_RULES,
    use_exactly=2,
    max_seats=9,  # MAN3-04: 3n + 5 + 4 burns <= 36
)
