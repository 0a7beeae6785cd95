"""Caribbean Stud table settings and jackpot payouts (CSP-04, CSP-05, CSP-07..CSP-11).

Settings: :class:`CaribbeanSettings` with its :class:`PaySchedule` (CSP-05) and
:class:`JackpotSchedule` (CSP-07); the values a round hands to the jackpot coordinator
(:class:`Contribution`, :class:`JackpotClaim`); and the payouts of one round at one table.

Pure integer arithmetic: the caller (the jackpot coordinator) passes the pool as it stands when
the round's claims are paid, in CSP-10 order, and books the result exactly once (CSP-12).

CSP-09 order: (1) every four of a kind, full house and flush gets its fixed amount; (2) every
straight flush gets its percentage of what is left after step 1 (all straight flushes of the
round are computed on the same base, so equal hands get equal amounts); (3) the royal flushes
share the royal percentage (default 100%) of what is left after step 2 equally, each getting at
least the royal minimum (``royal_minimum``, $10,000: its own term, never the pool's reset
amount, so an operator who reseeds lower or higher does not change it; Gazette r12.2(c)).
Shares round down; the odd chips stay in the pool.

Shortfalls: a payout is always paid in full and a pool never goes below zero.  When the pool
holds less than a payout, the pool pays what it holds and the house funds the rest; that amount
is reported as ``house_shortfall``.  Afterwards, if anything was paid and the pool is below its
reset amount, the house reseeds it to the reset amount (CSP-08) and ``seed`` reports what it
added.  Money balance of one pool::

    before + house_shortfall + seed == after + paid
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from server.rules.cards import rank_of
from server.rules.evaluate import (
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    QUADS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
    HandValue,
)

BP = 10_000  # basis points in one whole

# Hand keys used by the pay schedules: royal flush is a straight flush that ``is_royal``.
ROYAL_FLUSH = "royal_flush"
HAND_KEYS: dict[int, str] = {
    STRAIGHT_FLUSH: "straight_flush",
    QUADS: "four_of_a_kind",
    FULL_HOUSE: "full_house",
    FLUSH: "flush",
    STRAIGHT: "straight",
    TRIPS: "three_of_a_kind",
    TWO_PAIR: "two_pair",
    PAIR: "pair_or_less",
    HIGH_CARD: "pair_or_less",
}
JACKPOT_KEYS = (ROYAL_FLUSH, "straight_flush", "four_of_a_kind", "full_house", "flush")
MINOR_KEYS = frozenset({"four_of_a_kind", "full_house", "flush"})  # CSP-11 minor pool
MAJOR_KEYS = frozenset({ROYAL_FLUSH, "straight_flush"})  # CSP-11 major pool

DealingMode = Literal["shoe", "shuffler"]


def hand_key(value: HandValue) -> str:
    """The pay-schedule key of a hand: ``"royal_flush"``, ``"flush"``, ``"pair_or_less"`` …"""
    return ROYAL_FLUSH if value.is_royal else HAND_KEYS[value.category]


# --- settings -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PaySchedule:
    """CSP-05: the call bet pays ``n`` to 1 for each hand (table setting)."""

    royal_flush: int = 100
    straight_flush: int = 50
    four_of_a_kind: int = 20
    full_house: int = 7
    flush: int = 5
    straight: int = 4
    three_of_a_kind: int = 3
    two_pair: int = 2
    pair_or_less: int = 1

    def odds(self, key: str) -> int:
        return int(getattr(self, key))


@dataclass(frozen=True, slots=True, kw_only=True)
class JackpotSchedule:
    """CSP-07: royal and straight flush take a share of the pool (basis points); the others a
    fixed amount.  A hand whose entry is 0 does not qualify."""

    royal_flush_bp: int = BP  # 100% of the pool
    straight_flush_bp: int = 1_000  # 10% of the pool
    four_of_a_kind: int = 50_000  # $500
    full_house: int = 10_000  # $100
    flush: int = 5_000  # $50

    def qualifies(self, key: str) -> bool:
        if key == ROYAL_FLUSH:
            return self.royal_flush_bp > 0
        if key == "straight_flush":
            return self.straight_flush_bp > 0
        return key in MINOR_KEYS and self.fixed(key) > 0

    def fixed(self, key: str) -> int:
        """The fixed payout of a four of a kind, full house or flush."""
        return int(getattr(self, key))


@dataclass(frozen=True, slots=True, kw_only=True)
class CaribbeanSettings:
    """A Caribbean Stud table's settings (docs/rules.md grade D rules are settings with defaults).

    ``pool_share_bp``: share of each collected jackpot wager that goes to the pool (CSP-08).
    With ``split_pools`` (CSP-11) ``minor_share_bp`` goes to the minor pool (pays four of a
    kind, full house, flush) and ``major_share_bp`` to the major pool (straight and royal
    flushes) instead; the rest of a wager is house jackpot revenue.  ``reset_amount`` is the
    reseed level of the pool (the major pool when split, CSP-08); ``royal_minimum`` is what
    each royal flush gets at least (CSP-09, $10,000; its own term, not the reset amount: a
    pool short of it is topped up by the house); ``minor_reset_amount`` is the minor pool's
    reseed level.  ``max_pool``: the operator's
    ceiling of each pool (0: none); what a contribution would add above it goes to the house
    (the coordinator's ``overflow``).  ``dealer_qualifier``: a dealer's
    high-card hand qualifies when its ranks, highest first, are at least this (ace-king,
    CSP-04); any pair or better always qualifies.
    """

    ante_min: int = 100
    ante_max: int = 10_000
    jackpot_wager: int = 100
    pays: PaySchedule = PaySchedule()
    jackpot: JackpotSchedule = JackpotSchedule()
    pool_share_bp: int = 7_000
    reset_amount: int = 1_000_000
    royal_minimum: int = 1_000_000
    split_pools: bool = False
    minor_share_bp: int = 2_000
    major_share_bp: int = 5_000
    minor_reset_amount: int = 100_000
    dealing_mode: DealingMode = "shuffler"
    dealer_qualifier: tuple[int, ...] = (14, 13)
    max_pool: int = 0

    def __post_init__(self) -> None:
        ints = {
            "ante_min": self.ante_min, "ante_max": self.ante_max,
            "jackpot_wager": self.jackpot_wager, "pool_share_bp": self.pool_share_bp,
            "reset_amount": self.reset_amount, "minor_share_bp": self.minor_share_bp,
            "major_share_bp": self.major_share_bp, "minor_reset_amount": self.minor_reset_amount,
            "max_pool": self.max_pool, "royal_minimum": self.royal_minimum,
        }
        for name, v in ints.items():
            if not is_int(v) or v < 0:
                raise ValueError(f"{name} must be a non-negative int, not {v!r}")
        if not 0 < self.ante_min <= self.ante_max:
            raise ValueError("need 0 < ante_min <= ante_max")
        if self.pool_share_bp > BP or self.minor_share_bp + self.major_share_bp > BP:
            raise ValueError("pool shares cannot exceed 100%")
        if self.dealing_mode not in ("shoe", "shuffler"):
            raise ValueError(f"dealing_mode must be shoe or shuffler: {self.dealing_mode!r}")
        if not all(is_int(r) and 2 <= r <= 14 for r in self.dealer_qualifier):
            raise ValueError("dealer_qualifier must be ranks 2..14")

    def dealer_qualifies(self, value: HandValue) -> bool:
        """CSP-04: ace-king or better (any pair or better qualifies)."""
        if value.category != HIGH_CARD:
            return True
        ranks = sorted((rank_of(c) for c in value.cards), reverse=True)
        return tuple(ranks[: len(self.dealer_qualifier)]) >= self.dealer_qualifier

    def split_wager(self, wager: int) -> tuple[int, int, int]:
        """(to minor, to major, to house) of a collected wager; unsplit: minor is 0 and major is
        the single pool's share.  Shares round down; the odd chip goes to the house."""
        if self.split_pools:
            minor = wager * self.minor_share_bp // BP
            major = wager * self.major_share_bp // BP
        else:
            minor, major = 0, wager * self.pool_share_bp // BP
        return minor, major, wager - minor - major


def is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True, slots=True)
class Contribution:
    """A collected jackpot wager (CSP-08/CSP-11); ``key`` is unique per round and seat
    (CSP-12: the coordinator adds it exactly once).  ``to_pool = to_minor + to_major``;
    unsplit tables put everything in ``to_major`` (the single pool)."""

    round_id: str
    seat: int
    wager: int
    to_pool: int
    to_minor: int
    to_major: int
    to_house: int

    @property
    def key(self) -> str:
        return f"{self.round_id}:{self.seat}"


@dataclass(frozen=True, slots=True)
class JackpotClaim:
    """A qualifying hand (CSP-07) and its eligibility moment (CSP-10, a deck position)."""

    round_id: str
    seat: int
    hand: str
    eligible_at: int
    dealing_mode: DealingMode

    @property
    def key(self) -> str:
        return f"{self.round_id}:{self.seat}"


# --- payouts -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PoolOutcome:
    """One pool through one round's payouts: ``paid`` to winners, of which ``house_shortfall``
    came from the house because the pool ran dry; ``seed`` is the house-funded reseed."""

    before: int
    paid: int
    house_shortfall: int
    seed: int
    after: int

    @property
    def reseeded(self) -> bool:
        return self.seed > 0


@dataclass(frozen=True, slots=True)
class JackpotPayouts:
    """Single pool: ``payouts`` is seat -> amount (every claim appears once)."""

    payouts: dict[int, int]
    pool: PoolOutcome

    @property
    def pool_after(self) -> int:
        return self.pool.after

    @property
    def reseeded(self) -> bool:
        return self.pool.reseeded

    @property
    def house_shortfall(self) -> int:
        return self.pool.house_shortfall

    @property
    def seed(self) -> int:
        return self.pool.seed


@dataclass(frozen=True, slots=True)
class SplitJackpotPayouts:
    """CSP-11: the minor pool paid the fixed amounts, the major pool the flushes' shares."""

    payouts: dict[int, int]
    minor: PoolOutcome
    major: PoolOutcome


class _Pool:
    def __init__(self, amount: int) -> None:
        self.before = self.amount = amount
        self.paid = self.shortfall = 0

    def pay(self, amount: int) -> int:
        taken = min(amount, self.amount)
        self.amount -= taken
        self.shortfall += amount - taken
        self.paid += amount
        return amount

    def close(self, reset: int) -> PoolOutcome:
        seed = reset - self.amount if self.paid and self.amount < reset else 0
        return PoolOutcome(self.before, self.paid, self.shortfall, seed, self.amount + seed)


def _check(claims: Iterable[JackpotClaim], pools: list[int]) -> list[JackpotClaim]:
    out = sorted(claims, key=lambda c: (c.eligible_at, c.seat))
    if len({c.seat for c in out}) != len(out):
        raise ValueError("a seat may claim only once per round (CSP-12)")
    for c in out:
        if c.hand not in MINOR_KEYS | MAJOR_KEYS:
            raise ValueError(f"not a jackpot hand: {c.hand!r}")
    if any(not isinstance(p, int) or p < 0 for p in pools):
        raise ValueError("pools are non-negative ints")
    return out


def _pay(
    claims: list[JackpotClaim], minor: _Pool, major: _Pool, settings: CaribbeanSettings
) -> dict[int, int]:
    jp = settings.jackpot
    payouts: dict[int, int] = {}
    for c in claims:  # step 1: fixed amounts
        if c.hand in MINOR_KEYS:
            payouts[c.seat] = minor.pay(jp.fixed(c.hand))
    base = major.amount  # step 2: straight flushes, each on the same base
    for c in claims:
        if c.hand == "straight_flush":
            payouts[c.seat] = major.pay(base * jp.straight_flush_bp // BP)
    royals = [c for c in claims if c.hand == ROYAL_FLUSH]  # step 3
    if royals:
        share = major.amount * jp.royal_flush_bp // BP // len(royals)
        for c in royals:
            payouts[c.seat] = major.pay(max(settings.royal_minimum, share))  # CSP-09
    return {seat: payouts[seat] for seat in sorted(payouts)}


def jackpot_payouts(
    pool: int, claims: Iterable[JackpotClaim], settings: CaribbeanSettings
) -> JackpotPayouts:
    """CSP-09 with a single pool (``settings.split_pools`` false)."""
    if settings.split_pools:
        raise ValueError("this table splits its pools: use split_jackpot_payouts")
    ordered = _check(claims, [pool])
    p = _Pool(pool)
    payouts = _pay(ordered, p, p, settings)
    return JackpotPayouts(payouts, p.close(settings.reset_amount))


def split_jackpot_payouts(
    minor: int, major: int, claims: Iterable[JackpotClaim], settings: CaribbeanSettings
) -> SplitJackpotPayouts:
    """CSP-09 with CSP-11 split pools: the minor pool pays four of a kind, full house and
    flush; the major pool pays straight and royal flushes; each reseeds to its own level."""
    if not settings.split_pools:
        raise ValueError("this table has a single pool: use jackpot_payouts")
    ordered = _check(claims, [minor, major])
    lo, hi = _Pool(minor), _Pool(major)
    payouts = _pay(ordered, lo, hi, settings)
    return SplitJackpotPayouts(
        payouts, lo.close(settings.minor_reset_amount), hi.close(settings.reset_amount)
    )
