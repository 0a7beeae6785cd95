"""The events of a Caribbean Stud round (:mod:`server.rules.caribbean`), frozen values.

Each is what one step of the round hands back; the table projects them per viewer.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class AnteAccepted:
    seat: int
    amount: int
    stack: int


@dataclass(frozen=True, slots=True)
class JackpotWagered:
    """The jackpot wager, locked from now on (CSP-01)."""

    seat: int
    amount: int
    stack: int


@dataclass(frozen=True, slots=True)
class SatOut:
    """The seat takes no part in this round."""

    seat: int
    timeout: bool = False


@dataclass(frozen=True, slots=True)
class RoundVoided:
    """GEN-02: the deck failed its check; every wager has been returned."""

    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Dealt:
    """A player's five cards, all face down; ``positions[i]`` is the deck index of ``cards[i]``
    (one card at a time in seat order, then the dealer: CSP-02)."""

    seat: int
    cards: tuple[str, ...]
    up: tuple[bool, ...]
    positions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DealerDealt:
    """The dealer's five cards; only the last is face up (``up``).  Projections show
    ``up_card`` only until :class:`DealerRevealed`."""

    cards: tuple[str, ...]
    up: tuple[bool, ...]
    positions: tuple[int, ...]

    @property
    def up_card(self) -> str:
        return self.cards[-1]


@dataclass(frozen=True, slots=True)
class PlayerDecided:
    """``action`` is ``"play"`` (``amount`` = the call bet, twice the ante) or ``"fold"``."""

    seat: int
    action: str
    amount: int
    stack: int
    timeout: bool = False


@dataclass(frozen=True, slots=True)
class DealerRevealed:
    """The dealer's hand turned (CSP-04); ``best``: the five cards in the order that makes its
    value (the evaluator's reading of ``cards``, so not part of the event's equality)."""

    cards: tuple[str, ...]
    qualifies: bool
    hand: str
    best: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class Settled:
    """One seat's results, each signed (+ won, - lost, 0 returned); ``stack`` is after them.

    ``jackpot`` is the fate of the wager only (``-wager`` collected, 0 returned or none);
    ``jackpot_hand`` names the qualifying hand (a claim for the coordinator) or is None.
    ``best``: the player's five cards in the order that makes ``hand`` (the evaluator's
    reading of the cards, so not part of the event's equality; its owner's only).
    """

    seat: int
    ante: int
    play: int
    jackpot: int
    hand: str
    jackpot_hand: str | None
    stack: int
    folded: bool
    best: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """``house_net``: the house's result on antes and call bets (jackpot flows excluded);
    ``jackpot_collected``: the jackpot wagers collected (see
    :meth:`~server.rules.caribbean.CaribbeanRound.contributions`)."""

    round_id: str
    stacks: dict[int, int]
    house_net: int
    jackpot_collected: int
    voided: bool = False

    @property
    def rake(self) -> int:
        """A house game takes no rake (its edge is ``house_net``): the engine protocol's
        end-of-hand field (:class:`server.rules.engine.HandEnd`)."""
        return 0


Event = (
    AnteAccepted | JackpotWagered | SatOut | RoundVoided | Dealt | DealerDealt | PlayerDecided
    | DealerRevealed | Settled | RoundEnded
)
