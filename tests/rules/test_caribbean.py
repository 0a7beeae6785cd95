"""Caribbean Stud Poker scripted rounds (docs/rules.md section 3, CSP-01..CSP-12, GEN-02).

Decks are data: :func:`deck_with` places chosen cards at chosen deck positions and fills the
rest in :func:`make_deck` order; :func:`deal_deck` places each player's five cards and the
dealer's five where CSP-02's deal order (one card at a time, players in seat order, then the
dealer) takes them from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from server.rules.cards import make_deck
from server.rules.caribbean import (
    AnteAccepted,
    CaribbeanRound,
    CaribbeanSettings,
    Contribution,
    DealerDealt,
    DealerRevealed,
    Dealt,
    JackpotClaim,
    JackpotSchedule,
    JackpotWagered,
    PlayerDecided,
    RoundEnded,
    RoundVoided,
    SatOut,
    Settled,
    jackpot_payouts,
    split_jackpot_payouts,
)
from server.rules.errors import IllegalAction
from tests.rules.variant_helpers import house_options

S = CaribbeanSettings()
STACK = 100_000  # $1,000
ANTE = 100

# A dealer hand that just qualifies (ace-king high, CSP-04); no card of it is used below.
DEALER_AK = ("Ac", "Kd", "9s", "6c", "3h")


def deck_with(placed: Mapping[int, str]) -> list[str]:
    """A 52-card deck with ``placed[pos]`` at each chosen position, the rest in order."""
    assert len(set(placed.values())) == len(placed), "a card placed twice"
    rest = iter(c for c in make_deck() if c not in set(placed.values()))
    return [placed[i] if i in placed else next(rest) for i in range(52)]


def deal_deck(hands: Sequence[Sequence[str]], dealer: Sequence[str]) -> list[str]:
    """A deck that deals ``hands[i]`` to the i-th anted seat (seat order) and ``dealer``."""
    width = len(hands) + 1
    placed = {r * width + i: hand[r] for i, hand in enumerate(hands) for r in range(5)}
    placed.update({r * width + len(hands): dealer[r] for r in range(5)})
    return deck_with(placed)


def run(
    hands: Sequence[Sequence[str]],
    dealer: Sequence[str] = DEALER_AK,
    *,
    antes: Sequence[int] | None = None,
    jackpot: Sequence[int] = (),
    fold: Sequence[int] = (),
    settings: CaribbeanSettings = S,
    round_id: str = "r1",
) -> CaribbeanRound:
    """Seats 0..n-1 ante (``antes[i]``, default 100), wager on ``jackpot`` seats, fold the
    ``fold`` seats, play the others."""
    rnd = CaribbeanRound(
        settings, {i: STACK for i in range(len(hands))}, deal_deck(hands, dealer),
        round_id=round_id,
    )
    for i in range(len(hands)):
        rnd.ante(i, antes[i] if antes else ANTE, jackpot=i in jackpot)
    rnd.deal()
    for i in range(len(hands)):
        if i in fold:
            rnd.fold(i)
        else:
            rnd.play(i)
    assert rnd.phase == "ended"
    return rnd


def settled(rnd: CaribbeanRound) -> dict[int, Settled]:
    return {e.seat: e for e in rnd.events if isinstance(e, Settled)}


def refused(rnd: CaribbeanRound, reason: str, action: object, *args: object, **kw: object) -> None:
    """``action`` is refused with ``reason`` and the round is unchanged (BET-01 style)."""
    before = rnd.snapshot()
    with pytest.raises(IllegalAction) as err:
        action(*args, **kw)  # type: ignore[operator]
    assert err.value.reason == reason, err.value
    assert rnd.snapshot() == before


def test_deck_helpers_build_permutations() -> None:
    deck = deal_deck([("As", "Ks", "Qs", "Js", "Ts")], DEALER_AK)
    assert sorted(deck) == sorted(make_deck())
    assert deck[0::2][:5] == ["As", "Ks", "Qs", "Js", "Ts"]
    assert tuple(deck[1::2][:5]) == DEALER_AK


# --- CSP-01: antes, limits, jackpot wager ---------------------------------------------------

def test_csp01_ante_within_limits_and_jackpot_wager_taken() -> None:
    rnd = CaribbeanRound(S, {0: STACK, 1: STACK}, make_deck(), round_id="r")
    assert house_options(rnd, 0) == {
        "sit_out": True, "ante": {"min": 100, "max": 10_000},
        "jackpot": {"wager": 100, "max_ante": 10_000},
    }
    assert rnd.ante(0, 100, jackpot=True) == [
        AnteAccepted(0, 100, STACK - 100), JackpotWagered(0, 100, STACK - 200),
    ]
    assert rnd.ante(1, 10_000) == [AnteAccepted(1, 10_000, STACK - 10_000)]
    assert rnd.stacks == {0: STACK - 200, 1: STACK - 10_000}
    assert house_options(rnd, 0) == {}


@pytest.mark.parametrize("amount", [99, 10_001, 0, -100, "100", 100.0, True, None])
def test_csp01_ante_outside_limits_refused(amount: object) -> None:
    rnd = CaribbeanRound(S, {0: STACK}, make_deck(), round_id="r")
    refused(rnd, "bad_amount", rnd.ante, 0, amount)


def test_csp01_stack_must_cover_ante_jackpot_and_call_bet() -> None:
    """Decision: the ante is accepted only if the stack also covers 2 x ante (the call bet)
    and the jackpot wager, so every dealt hand can be played."""
    rnd = CaribbeanRound(S, {0: 299, 1: 300, 2: 399, 3: 400}, make_deck(), round_id="r")
    assert house_options(rnd, 0) == {"sit_out": True}
    refused(rnd, "bad_amount", rnd.ante, 0, 100)
    assert house_options(rnd, 1)["jackpot"] is None
    refused(rnd, "bad_amount", rnd.ante, 1, 100, jackpot=True)
    rnd.ante(1, 100)
    refused(rnd, "bad_amount", rnd.ante, 2, 100, jackpot=True)
    rnd.ante(3, 100, jackpot=True)
    assert rnd.stacks == {0: 299, 1: 200, 2: 399, 3: 200}


def test_csp01_jackpot_wager_locked_before_deal() -> None:
    rnd = CaribbeanRound(S, {0: STACK}, make_deck(), round_id="r")
    rnd.ante(0, 100)
    refused(rnd, "not_your_turn", rnd.ante, 0, 100, jackpot=True)
    rnd.deal()
    refused(rnd, "bad_action", rnd.ante, 0, 100, jackpot=True)


def test_csp01_sit_out_and_timeout_in_ante_phase() -> None:
    rnd = CaribbeanRound(S, {0: STACK, 1: STACK, 2: STACK}, make_deck(), round_id="r")
    assert rnd.sit_out(1) == [SatOut(1)]
    assert rnd.timeout(2) == [SatOut(2, timeout=True)]
    refused(rnd, "not_your_turn", rnd.ante, 1, 100)
    rnd.ante(0, 100)
    events = rnd.deal()
    assert [e.seat for e in events if isinstance(e, Dealt)] == [0]
    refused(rnd, "no_hand", rnd.play, 1)


def test_unknown_seat_and_bad_setup_refused() -> None:
    rnd = CaribbeanRound(S, {0: STACK}, make_deck(), round_id="r")
    refused(rnd, "no_hand", rnd.ante, 5, 100)
    with pytest.raises(IllegalAction) as err:
        CaribbeanRound(S, {i: STACK for i in range(10)}, make_deck(), round_id="r")
    assert err.value.reason == "bad_setup"
    with pytest.raises(IllegalAction):
        CaribbeanRound(S, {0: -1}, make_deck(), round_id="r")


def test_settings_refuse_nonsense() -> None:
    with pytest.raises(ValueError):
        CaribbeanSettings(ante_min=200, ante_max=100)
    with pytest.raises(ValueError):
        CaribbeanSettings(pool_share_bp=10_001)
    with pytest.raises(ValueError):
        CaribbeanSettings(dealing_mode="hand")  # type: ignore[arg-type]


# --- CSP-02: the deal -------------------------------------------------------------------------

def test_csp02_one_card_at_a_time_in_seat_order_then_dealer_last_card_up() -> None:
    deck = make_deck()
    rnd = CaribbeanRound(S, {7: STACK, 1: STACK, 4: STACK, 9: STACK}, deck, round_id="r")
    for seat in (7, 4, 1):  # any order is accepted
        rnd.ante(seat, 100)
    events = rnd.deal()
    assert events[:3] == [
        Dealt(1, tuple(deck[p] for p in (0, 4, 8, 12, 16)), (False,) * 5, (0, 4, 8, 12, 16)),
        Dealt(4, tuple(deck[p] for p in (1, 5, 9, 13, 17)), (False,) * 5, (1, 5, 9, 13, 17)),
        Dealt(7, tuple(deck[p] for p in (2, 6, 10, 14, 18)), (False,) * 5, (2, 6, 10, 14, 18)),
    ]
    dealer = events[3]
    assert isinstance(dealer, DealerDealt)
    assert dealer.positions == (3, 7, 11, 15, 19)
    assert dealer.up == (False, False, False, False, True)
    assert dealer.up_card == deck[19]
    assert len(events) == 4 and rnd.phase == "decisions"
    assert house_options(rnd, 1) == {"fold": True, "play": 200}
    assert house_options(rnd, 9) == {}


def test_gen02_bad_deck_voids_round_and_returns_wagers() -> None:
    deck = make_deck()[:-1] + ("2c",)  # As missing, 2c twice
    rnd = CaribbeanRound(S, {0: STACK, 1: STACK}, deck, round_id="r")
    rnd.ante(0, 500, jackpot=True)
    events = rnd.deal()
    assert isinstance(events[0], RoundVoided) and events[0].reason == "duplicate_card"
    assert events[1] == RoundEnded("r", {0: STACK, 1: STACK}, 0, 0, voided=True)
    assert rnd.phase == "void" and rnd.contributions() == () and rnd.jackpot_claims() == ()


def test_nobody_anted_round_ends_without_deal() -> None:
    rnd = CaribbeanRound(S, {0: STACK}, make_deck(), round_id="r")
    assert rnd.deal() == [RoundEnded("r", {0: STACK}, 0, 0)]


# --- CSP-03: fold or play exactly twice the ante ---------------------------------------------

def test_csp03_play_is_exactly_twice_the_ante() -> None:
    rnd = CaribbeanRound(S, {0: STACK, 1: STACK}, make_deck(), round_id="r")
    rnd.ante(0, 250)
    rnd.ante(1, 100)
    rnd.deal()
    assert rnd.play(0) == [PlayerDecided(0, "play", 500, STACK - 750)]
    refused(rnd, "not_your_turn", rnd.play, 0)
    refused(rnd, "not_your_turn", rnd.fold, 0)


def test_csp03_csp07_fold_forfeits_ante_and_jackpot_wager_even_with_royal() -> None:
    royal = ("As", "Ks", "Qs", "Js", "Ts")
    rnd = run([royal, ("2c", "3d", "5h", "7s", "9c")], jackpot=[0], fold=[0, 1])
    res = settled(rnd)
    assert res[0] == Settled(0, -100, 0, -100, "royal flush", None, STACK - 200, True)
    assert res[1].ante == -100 and res[1].play == 0 and res[1].folded
    assert rnd.jackpot_claims() == ()
    assert rnd.contributions() == (Contribution("r1", 0, 100, 70, 0, 70, 30),)
    assert rnd.events[-1] == RoundEnded("r1", {0: STACK - 200, 1: STACK - 100}, 200, 100)


def test_csp03_timeout_folds() -> None:
    rnd = CaribbeanRound(S, {0: STACK}, make_deck(), round_id="r")
    rnd.ante(0, 100)
    rnd.deal()
    events = rnd.timeout(0)
    assert events[0] == PlayerDecided(0, "fold", 0, STACK - 100, timeout=True)
    assert isinstance(events[1], DealerRevealed)
    assert rnd.stacks == {0: STACK - 100}


def test_out_of_phase_actions_refused() -> None:
    rnd = CaribbeanRound(S, {0: STACK, 1: STACK}, make_deck(), round_id="r")
    refused(rnd, "bad_action", rnd.play, 0)
    refused(rnd, "bad_action", rnd.fold, 0)
    refused(rnd, "bad_action", rnd.jackpot_claims)
    refused(rnd, "bad_action", rnd.contributions)
    rnd.ante(0, 100)
    rnd.deal()
    refused(rnd, "bad_action", rnd.deal)
    refused(rnd, "bad_action", rnd.sit_out, 1)
    refused(rnd, "no_hand", rnd.play, 1)
    refused(rnd, "no_hand", rnd.fold, 3)
    refused(rnd, "bad_action", rnd.jackpot_claims)
    rnd.play(0)
    for action, args in [
        (rnd.play, (0,)), (rnd.fold, (0,)), (rnd.timeout, (0,)), (rnd.deal, ()),
        (rnd.ante, (1, 100)), (rnd.sit_out, (1,)),
    ]:
        refused(rnd, "bad_action", action, *args)
    assert house_options(rnd, 0) == house_options(rnd, 1) == {}


# --- CSP-04: qualification and the comparison --------------------------------------------------

def test_csp04_dealer_not_qualifying_pays_ante_returns_call_bet() -> None:
    """A-Q high does not qualify: even a worse hand wins the ante; the call bet comes back."""
    dealer = ("Ac", "Qd", "9s", "6c", "3h")
    rnd = run([("Kc", "Jd", "8s", "5c", "2h"), ("7c", "7d", "7h", "7s", "2c")], dealer)
    rev = next(e for e in rnd.events if isinstance(e, DealerRevealed))
    assert rev == DealerRevealed(dealer, False, "high card, ace")
    res = settled(rnd)
    assert (res[0].ante, res[0].play) == (100, 0)
    assert (res[1].ante, res[1].play) == (100, 0)
    assert rnd.stacks == {0: STACK + 100, 1: STACK + 100}
    assert rnd.house_net == -200


def test_csp04_dealer_ace_king_qualifies_worse_hand_loses_both() -> None:
    rnd = run([("As", "Qd", "Jc", "4h", "2s")])
    assert next(e for e in rnd.events if isinstance(e, DealerRevealed)).qualifies
    assert (settled(rnd)[0].ante, settled(rnd)[0].play) == (-100, -200)
    assert rnd.stacks == {0: STACK - 300} and rnd.house_net == 300


def test_csp04_tie_returns_both() -> None:
    rnd = run([("Ad", "Kh", "9c", "6d", "3s")])
    assert (settled(rnd)[0].ante, settled(rnd)[0].play) == (0, 0)
    assert rnd.stacks == {0: STACK} and rnd.house_net == 0


def test_csp04_any_pair_qualifies() -> None:
    rnd = run([("As", "Kh", "9c", "6d", "3s")], ("2c", "2d", "9s", "6c", "3h"))
    assert next(e for e in rnd.events if isinstance(e, DealerRevealed)).qualifies
    assert (settled(rnd)[0].ante, settled(rnd)[0].play) == (-100, -200)


# --- CSP-05: every rung of the call-bet schedule ----------------------------------------------

RUNGS = [
    (("As", "Ks", "Qs", "Js", "Ts"), 100, "royal flush"),
    (("9h", "8h", "7h", "6h", "5h"), 50, "straight flush"),
    (("7c", "7d", "7h", "7s", "2c"), 20, "four of a kind"),
    (("8c", "8d", "8h", "4s", "4c"), 7, "full house"),
    (("2d", "5d", "9d", "Jd", "Qd"), 5, "flush"),
    (("5c", "6d", "7h", "8s", "9c"), 4, "straight"),
    (("Qc", "Qh", "Qs", "2h", "4d"), 3, "three of a kind"),
    (("Jc", "Jh", "5s", "5d", "2s"), 2, "two pair"),
    (("Tc", "Th", "8d", "4h", "2d"), 1, "pair"),
    (("As", "Kh", "Jd", "5c", "2h"), 1, "high card"),
]


@pytest.mark.parametrize(("hand", "odds", "name"), RUNGS, ids=[r[2] for r in RUNGS])
def test_csp05_call_bet_paid_by_schedule(hand: tuple[str, ...], odds: int, name: str) -> None:
    rnd = run([hand], antes=[300])
    res = settled(rnd)[0]
    assert res.hand.startswith(name)
    assert (res.ante, res.play) == (300, 600 * odds)
    assert rnd.stacks == {0: STACK + 300 + 600 * odds}
    assert rnd.house_net == -(300 + 600 * odds)


def test_csp05_schedule_is_a_setting() -> None:
    from server.rules.caribbean import PaySchedule

    settings = CaribbeanSettings(pays=PaySchedule(flush=6))
    rnd = run([("2d", "5d", "9d", "Jd", "Qd")], settings=settings)
    assert settled(rnd)[0].play == 200 * 6


# --- CSP-06: hand values, aces high and low -----------------------------------------------------

def test_csp06_wheel_is_the_lowest_straight() -> None:
    wheel = ("Ah", "2d", "3c", "4s", "5h")
    rnd = run([wheel], ("2h", "3s", "4d", "5c", "6c"))
    assert (settled(rnd)[0].ante, settled(rnd)[0].play) == (-100, -200)
    rnd = run([wheel], ("Kc", "Kd", "9s", "6c", "3h"))
    assert settled(rnd)[0].play == 200 * 4  # a straight beats a pair of kings


def test_csp06_kicker_decides_between_pairs() -> None:
    rnd = run([("Ks", "Kh", "9c", "6d", "4s")], ("Kc", "Kd", "9s", "6c", "3h"))
    assert (settled(rnd)[0].ante, settled(rnd)[0].play) == (100, 200)


# --- CSP-07: the jackpot wager ----------------------------------------------------------------

def test_csp07_jackpot_depends_only_on_own_cards() -> None:
    """A flush that loses to the dealer's full house still qualifies; the wager is returned
    (decision) and the hand becomes a claim for the coordinator."""
    flush = ("2d", "5d", "9d", "Jd", "Qd")
    rnd = run([flush, ("2c", "3c", "5h", "7s", "9c")], ("Kc", "Kh", "Ks", "4c", "4h"),
              jackpot=[0, 1])
    res = settled(rnd)
    assert res[0] == Settled(0, -100, -200, 0, "flush, queen high", "flush", STACK - 300, False)
    assert res[1].jackpot == -100 and res[1].jackpot_hand is None
    assert rnd.jackpot_claims() == (JackpotClaim("r1", 0, "flush", 12, "shuffler"),)
    assert rnd.contributions() == (Contribution("r1", 1, 100, 70, 0, 70, 30),)
    assert rnd.events[-1] == RoundEnded("r1", rnd.stacks, 600, 100)


def test_csp07_qualifying_hand_without_wager_makes_no_claim() -> None:
    rnd = run([("2d", "5d", "9d", "Jd", "Qd")])
    assert settled(rnd)[0].jackpot_hand is None and rnd.jackpot_claims() == ()


def test_csp07_zero_payout_hand_does_not_qualify() -> None:
    settings = CaribbeanSettings(jackpot=JackpotSchedule(flush=0))
    rnd = run([("2d", "5d", "9d", "Jd", "Qd")], jackpot=[0], settings=settings)
    assert settled(rnd)[0].jackpot == -100 and rnd.jackpot_claims() == ()


# --- CSP-08 / CSP-09: pool share, payouts, reseed ----------------------------------------------

ROYAL_S = ("As", "Ks", "Qs", "Js", "Ts")
ROYAL_H = ("Ah", "Kh", "Qh", "Jh", "Th")
SF_D = ("9d", "8d", "7d", "6d", "5d")
FLUSH_C = ("2c", "4c", "6c", "8c", "Tc")
DEALER_CSP09 = ("Ad", "Kc", "7h", "4s", "2h")


def csp09_round(mode: str = "shuffler") -> CaribbeanRound:
    settings = CaribbeanSettings(dealing_mode=mode)  # type: ignore[arg-type]
    return run([ROYAL_S, SF_D, ROYAL_H, FLUSH_C], DEALER_CSP09, jackpot=[0, 1, 2, 3],
               settings=settings)


def test_csp08_pool_share_of_every_collected_wager() -> None:
    rnd = run([("2c", "3d", "5h", "7s", "9c")] * 1, jackpot=[0])
    (c,) = rnd.contributions()
    assert (c.wager, c.to_pool, c.to_major, c.to_house) == (100, 70, 70, 30)
    odd = CaribbeanSettings(jackpot_wager=101, pool_share_bp=7_000)
    assert odd.split_wager(101) == (0, 70, 31)  # rounded down, odd chip to the house


def test_csp09_two_royals_straight_flush_and_flush_at_one_table() -> None:
    rnd = csp09_round()
    claims = rnd.jackpot_claims()
    assert [(c.seat, c.hand) for c in claims] == [
        (0, "royal_flush"), (1, "straight_flush"), (2, "royal_flush"), (3, "flush"),
    ]
    # pool $25,000.01: flush $50 -> 2_495_001; straight flush 10% -> 249_500 (floor of
    # 249_500.1) -> 2_245_501; two royals share it: 1_122_750 each (> $10,000), 1 cent stays;
    # then the pool (1 cent) is reseeded to $10,000 by 999_999.
    res = jackpot_payouts(2_500_001, claims, S)
    assert res.payouts == {0: 1_122_750, 1: 249_500, 2: 1_122_750, 3: 5_000}
    assert res.pool.paid == 2_500_000
    assert res.house_shortfall == 0
    assert res.seed == 999_999 and res.reseeded
    assert res.pool_after == 1_000_000


def test_csp09_royal_minimum_paid_by_house_when_pool_is_small() -> None:
    claims = csp09_round().jackpot_claims()
    # pool $15,000: flush 5_000 -> 1_495_000; SF 149_500 -> 1_345_500; an equal share would
    # be 672_750 < 1_000_000, so each royal gets $10,000: the pool pays its 1_345_500 and the
    # house funds 654_500; the empty pool is reseeded with 1_000_000.
    res = jackpot_payouts(1_500_000, claims, S)
    assert res.payouts == {0: 1_000_000, 1: 149_500, 2: 1_000_000, 3: 5_000}
    assert res.house_shortfall == 654_500
    assert res.seed == 1_000_000 and res.pool_after == 1_000_000
    p = res.pool
    assert p.before + p.house_shortfall + p.seed == p.after + p.paid


def test_csp09_fixed_amounts_beyond_the_pool_are_paid_in_full() -> None:
    claim = JackpotClaim("r", 4, "four_of_a_kind", 20, "shuffler")
    res = jackpot_payouts(30_000, [claim], S)
    assert res.payouts == {4: 50_000}
    assert res.house_shortfall == 20_000 and res.seed == 1_000_000


def test_csp08_no_payout_no_reseed_and_large_pool_not_reseeded() -> None:
    assert jackpot_payouts(500, [], S).seed == 0
    res = jackpot_payouts(5_000_000, [JackpotClaim("r", 0, "flush", 5, "shoe")], S)
    assert res.payouts == {0: 5_000} and res.pool_after == 4_995_000 and not res.reseeded


# --- CSP-10: eligibility moments -----------------------------------------------------------------

def test_csp10_eligibility_first_card_from_shoe_last_card_from_shuffler() -> None:
    """Four players + dealer: seat i's cards are at deck positions i, i+5, …, i+20."""
    shoe = csp09_round("shoe")
    assert shoe.eligibility() == {0: 0, 1: 1, 2: 2, 3: 3}
    assert [(c.seat, c.eligible_at, c.dealing_mode) for c in shoe.jackpot_claims()] == [
        (0, 0, "shoe"), (1, 1, "shoe"), (2, 2, "shoe"), (3, 3, "shoe"),
    ]
    shuffler = csp09_round("shuffler")
    assert shuffler.eligibility() == {0: 20, 1: 21, 2: 22, 3: 23}
    assert [c.eligible_at for c in shuffler.jackpot_claims()] == [20, 21, 22, 23]


# --- CSP-11: split pools -------------------------------------------------------------------------

def test_csp11_split_pools_contributions_and_payouts() -> None:
    settings = CaribbeanSettings(split_pools=True, minor_share_bp=2_500, major_share_bp=4_500)
    rnd = run([("2c", "3d", "5h", "7s", "9c")], jackpot=[0], settings=settings)
    assert rnd.contributions() == (Contribution("r1", 0, 100, 70, 25, 45, 30),)
    claims = [
        JackpotClaim("r", 0, "royal_flush", 10, "shuffler"),
        JackpotClaim("r", 1, "straight_flush", 11, "shuffler"),
        JackpotClaim("r", 2, "four_of_a_kind", 12, "shuffler"),
        JackpotClaim("r", 3, "flush", 13, "shuffler"),
    ]
    # minor 120_000 pays 50_000 + 5_000 -> 65_000 < reset 100_000: reseeded with 35_000.
    # major 3_000_000: SF 10% = 300_000 -> 2_700_000, all to the royal; reseeded 1_000_000.
    res = split_jackpot_payouts(120_000, 3_000_000, claims, settings)
    assert res.payouts == {0: 2_700_000, 1: 300_000, 2: 50_000, 3: 5_000}
    assert (res.minor.paid, res.minor.seed, res.minor.after) == (55_000, 35_000, 100_000)
    assert (res.major.paid, res.major.seed, res.major.after) == (3_000_000, 1_000_000, 1_000_000)
    with pytest.raises(ValueError):
        jackpot_payouts(0, claims, settings)
    with pytest.raises(ValueError):
        split_jackpot_payouts(0, 0, claims, S)


# --- CSP-12: exactly once --------------------------------------------------------------------

def test_csp12_contributions_and_payouts_once_per_round_and_seat() -> None:
    rnd = run([ROYAL_S, ("2d", "3d", "5h", "7s", "9c"), ("2s", "3s", "4h", "8d", "Jc")],
              DEALER_CSP09, jackpot=[0, 1, 2], round_id="t7:h42")
    contributions, claims = rnd.contributions(), rnd.jackpot_claims()
    assert rnd.contributions() == contributions  # reading twice adds nothing
    keys = [c.key for c in contributions] + [c.key for c in claims]
    assert sorted(keys) == ["t7:h42:0", "t7:h42:1", "t7:h42:2"]  # each seat exactly once
    res = jackpot_payouts(2_000_000, claims, S)
    assert list(res.payouts) == [0]
    with pytest.raises(ValueError):
        jackpot_payouts(2_000_000, claims + claims, S)


# --- replay ------------------------------------------------------------------------------------

def test_replay_same_deck_same_actions_same_events() -> None:
    a, b = csp09_round(), csp09_round()
    assert a.events == b.events and a.stacks == b.stacks
    assert a.contributions() == b.contributions() and a.jackpot_claims() == b.jackpot_claims()
