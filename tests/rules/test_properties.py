"""Properties over thousands of random hands of every pot-game variant and structure.

Chips are conserved to the chip (GEN-06 table stakes), no stack goes negative, every pot goes
to players eligible for it (ALLIN-03), the same deck and actions replay to identical events,
and every option the engine offers is accepted while everything else is refused (BET-01,
BET-12) without changing the state.
"""

from __future__ import annotations

import copy
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules.errors import IllegalAction
from server.rules.events import Acted, BetReturned, HandEnded, Posted, PotAwarded, RakeTaken
from server.rules.hand import Hand
from server.rules.pots import build_pots
from server.rules.structure import STRUCTURES
from server.rules.variant import TableRules
from server.rules.variants import VARIANTS
from server.table.shuffle import shuffled
from tests.rules.driver import play_random, random_action, replay, stakes_for

VARIANT_NAMES = sorted(VARIANTS)


def _setup(data: st.DataObject) -> tuple[str, TableRules, dict[int, int], int, list[str],
                                        random.Random]:
    name = data.draw(st.sampled_from(VARIANT_NAMES), label="variant")
    variant = VARIANTS[name]
    structure = data.draw(st.sampled_from(STRUCTURES), label="structure")
    n = data.draw(st.integers(2, variant.max_seats), label="players")
    num_seats = 10
    seats = sorted(data.draw(st.permutations(range(num_seats)))[:n])
    stacks = {s: data.draw(st.integers(1, 400), label=f"stack{s}") for s in seats}
    button = data.draw(st.sampled_from(range(num_seats)), label="button")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    rng = random.Random(seed)
    deck = list(variant.card_set)
    rng.shuffle(deck)
    rake_bp, rake_cap = data.draw(st.sampled_from([(0, 0), (500, 30), (1000, 0)]), label="rake")
    rules = TableRules(structure=structure, stakes=stakes_for(structure, variant),
                       over_blind=name == "draw", rake_bp=rake_bp, rake_cap=rake_cap)
    return name, rules, stacks, button, deck, rng


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_chips_conserved_pots_eligible_and_replay(data: st.DataObject) -> None:
    """GEN-06 ALLIN-03 POT-01 GEN-09: conservation (the rake included), eligibility, no
    negative stack, exact replay."""
    name, rules, stacks, button, deck, rng = _setup(data)
    variant = VARIANTS[name]
    played = play_random(variant, rules, stacks, button=button, deck=deck, rng=rng)
    hand = played.hand
    assert sum(hand.stacks.values()) + hand.rake == sum(stacks.values())
    if rules.rake_cap:
        assert hand.rake <= rules.rake_cap
    assert all(v >= 0 for v in hand.stacks.values())
    for ev in played.events:
        if isinstance(ev, (Acted, Posted, BetReturned)):
            assert ev.stack >= 0
    ended = played.events[-1]
    assert isinstance(ended, HandEnded) and ended.stacks == hand.stacks
    pots = build_pots(hand.contrib, hand.live)
    awards = [e for e in played.events if isinstance(e, PotAwarded)]
    raked = {e.pot: e.amount for e in played.events if isinstance(e, RakeTaken)}
    assert sum(raked.values()) == hand.rake == ended.rake
    assert sum(a.amount for a in awards) + hand.rake == sum(hand.contrib.values())
    for award in awards:
        assert award.amount == pots[award.pot].amount - raked.get(award.pot, 0)
        assert set(award.winners) <= set(pots[award.pot].eligible)
        assert sum(award.winners.values()) == award.amount
    again = replay(variant, rules, stacks, button=button, deck=deck, actions=played.actions)
    assert again == played.events


def _fingerprint(hand: Hand) -> object:
    d = {k: copy.deepcopy(v) for k, v in vars(hand).items() if k != "_events"}
    return repr(sorted(d.items(), key=lambda kv: kv[0]))


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_offered_options_accepted_everything_else_refused(data: st.DataObject) -> None:
    """BET-01 BET-12: every offered option is accepted; other actions are refused untouched."""
    name, rules, stacks, button, deck, rng = _setup(data)
    hand = Hand(VARIANTS[name], rules, stacks, button=button, deck=deck, seed=b"s")
    hand.start()
    guard = 0
    while not hand.is_over:
        guard += 1
        assert guard < 500
        seat = hand.to_act
        assert seat is not None
        opts = hand.options(seat)
        assert opts is not None
        before = _fingerprint(hand)
        all_in = hand.bets[seat] + hand.stacks[seat]
        bad: list[tuple[int, str, object, tuple[str, ...]]] = []
        other = next(s for s in hand.order if s != seat)
        bad.append((other, opts.kinds[0], None, ()))  # out of turn
        for kind in ("fold", "check", "call", "bet", "raise", "bring_in", "complete", "draw",
                     "ante", "shove", ""):
            if not opts.allows(kind):
                bad.append((seat, kind, 10, ()))
        for kind, bounds in (("bet", opts.bet), ("raise", opts.raise_)):
            if bounds is not None:
                lo, hi = bounds
                bad += [(seat, kind, lo - 1, ()), (seat, kind, hi + 1, ()),
                        (seat, kind, all_in + 1, ()), (seat, kind, -5, ()),
                        (seat, kind, None, ()), (seat, kind, float(lo), ()),
                        (seat, kind, True, ()), (seat, kind, str(lo), ())]
        if opts.call is not None:
            bad.append((seat, "call", opts.call + 1, ()))
        if opts.draw is not None:
            own = hand.cards_of(seat)
            foreign = next(c for c in VARIANTS[name].card_set if c not in own)
            bad += [(seat, "draw", None, (foreign,)), (seat, "draw", None, (own[0], own[0])),
                    (seat, "draw", None, ("Zz",))]
        for s, kind, amount, discard in bad:
            try:
                hand.act(s, kind, amount, discard)  # type: ignore[arg-type]
            except IllegalAction as exc:
                assert exc.reason in ("not_your_turn", "bad_action", "bad_amount", "bad_discard")
            else:
                raise AssertionError(f"accepted {kind} {amount} {discard} with {opts}")
            assert _fingerprint(hand) == before
        # every offered action (with its edge amounts) is accepted
        for kind in opts.kinds:
            probe = copy.deepcopy(hand)
            if kind in ("bet", "raise"):
                bounds = opts.bet if kind == "bet" else opts.raise_
                assert bounds is not None
                for amount in {bounds[0], bounds[1]}:
                    copy.deepcopy(hand).act(seat, kind, amount)
            elif kind == "draw":
                probe.act(seat, "draw", None, ())
            else:
                probe.act(seat, kind)
        kind, amount, discard = random_action(rng, opts, hand.cards_of(seat))
        hand.act(seat, kind, amount, discard)
    assert sum(hand.stacks.values()) + hand.rake == sum(stacks.values())


def test_secure_shuffle_is_a_permutation() -> None:
    """GEN-03: the server's shuffle (secrets) yields the variant's exact card set."""
    for variant in VARIANTS.values():
        deck = shuffled(variant.card_set)
        assert sorted(deck) == sorted(variant.card_set)
