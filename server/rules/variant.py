"""A variant is data: its deck, its streets and how a hand is formed.

Transitions as data (see docs/architecture.md): each :class:`Street` says what is
dealt, whether a card is burnt first, whether the players draw, who opens the
betting and which fixed-limit size applies.  :class:`TableRules` are the
table settings (structure, stakes and the docs/rules.md "D" settings).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from server.rules.cards import make_deck
from server.rules.evaluate import STANDARD, HandRules, HandValue, evaluate, evaluate_each
from server.rules.structure import Stakes
from server.rules.vocabulary import DealKind, Opener

# who opens a betting round (`Opener`)
BLINDS = Opener.BLINDS
BUTTON = Opener.BUTTON
BRING_IN = Opener.BRING_IN
SHOWING = Opener.SHOWING

# how a street's cards are dealt (`DealKind`)
DOWN = DealKind.DOWN
UP = DealKind.UP
BOARD = DealKind.BOARD


@dataclass(frozen=True, slots=True, kw_only=True)
class Street:
    """One stage of a hand: burn, deal, (draw), then a betting round."""

    deal: tuple[tuple[str, int], ...] = ()  # (kind: a `DealKind`, count)
    burn: bool = False
    draw: bool = False
    opener: Opener = BUTTON
    big: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Variant:
    """Everything that makes one game differ from another.

    ``use_exactly``: a hand must use exactly that many of the player's own
    cards (Manila: 2).  ``max_seats``: GEN-07, the most seats the deck serves
    in the worst case (or by the variant's running-short rule).
    ``reshuffle_burns``: STUD-05/DRAW-03, the variant may shuffle burns (and
    discards) to finish a deal.  ``community_fallback``: STUD-05's community
    card in Seven Card Stud.
    """

    name: str
    streets: tuple[Street, ...]
    forced: str = "blinds"  # "blinds" or "antes"
    lowest_rank: int = 2
    hand_rules: HandRules = STANDARD
    use_exactly: int | None = None
    max_seats: int = 10
    reshuffle_burns: bool = False
    community_fallback: bool = False

    @property
    def card_set(self) -> tuple[str, ...]:
        return make_deck(lowest_rank=self.lowest_rank)

    @property
    def own_card_count(self) -> int:
        return sum(n for s in self.streets for kind, n in s.deal if kind != BOARD)

    @property
    def is_stud(self) -> bool:
        return self.forced == "antes"


@dataclass(frozen=True, slots=True, kw_only=True)
class TableRules:
    """The table settings a hand runs under.

    ``hand_rules`` overrides the variant's hand-ranking settings (MAN-04,
    MAN3-04); ``raise_cap`` is BET-10's three; ``max_discard`` caps a draw
    (DRAW-03); ``over_blind`` allows the Draw over blind (BLIND-04);
    ``rake_bp`` / ``rake_cap`` are the house's rake (GEN-09: a share of the pot
    in basis points, capped; zero by default, since a fee per hand or per
    period is charged by the table, outside the hand);
    ``heads_up_button_first_blind`` switches to the common heads-up practice
    where the button posts the first blind (off: docs/rules.md BLIND-01 as
    written, the player left of the button posts it even heads-up).
    ``straddle`` (STRAD-01), ``run_twice`` (RIT-01..04) and ``show_uncontested``
    (SHOWWIN-01) are house rules of home games
    (docs/rules.md "House rules"): the table allows them only at a private table.
    """

    structure: str
    stakes: Stakes
    raise_cap: int = 3
    max_discard: int = 5
    over_blind: bool = False
    heads_up_button_first_blind: bool = False
    straddle: bool = False
    run_twice: bool = False
    show_uncontested: bool = False
    hand_rules: HandRules | None = None
    rake_bp: int = 0
    rake_cap: int = 0
    extra: dict[str, object] = field(default_factory=dict)

    def rake_on(self, pot: int, chip: int) -> int:
        """GEN-09: the rake on a pot of ``pot`` chips: ``rake_bp`` basis points, at most
        ``rake_cap`` (0 = no cap), rounded down to the smallest chip."""
        if self.rake_bp <= 0:
            return 0
        rake = pot * self.rake_bp // 10_000
        if self.rake_cap:
            rake = min(rake, self.rake_cap)
        return rake - rake % chip


def hand_value(variant: Variant, rules: TableRules, own: tuple[str, ...] | list[str],
               board: tuple[str, ...] | list[str]) -> HandValue:
    """A player's hand value under the variant (HOLD-03, MAN-03, MAN3-03, DRAW-04, STUD-07)."""
    hr = rules.hand_rules or variant.hand_rules
    return evaluate(tuple(own), tuple(board), rules=hr, use_exactly=variant.use_exactly)


def hand_values(variant: Variant, rules: TableRules, own: Mapping[int, Sequence[str]],
                seats: Iterable[int], board: Sequence[str]) -> dict[int, HandValue]:
    """:func:`hand_value` of each of ``seats`` (``own[seat]`` its cards), the same board."""
    hr = rules.hand_rules or variant.hand_rules
    if variant.use_exactly is not None:
        return {s: evaluate(tuple(own[s]), tuple(board), rules=hr,
                            use_exactly=variant.use_exactly) for s in seats}
    return evaluate_each(own, seats, board, rules=hr)
