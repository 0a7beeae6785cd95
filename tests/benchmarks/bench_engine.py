"""Whole-hand engine rate: 6-handed no-limit Hold'em, ours against pokerkit, then every variant.

Run from the repository root::

    .venv/bin/python -m tests.benchmarks.bench_engine [--seconds S] [--repeat R]

A "hand" is a complete hand from construction to the end (blinds, deal, every betting round,
showdown or the last fold, pots awarded) played by a random legal policy.  Both engines see
six players with 1,000 chips, blinds 5/10, the same seeded table of pre-drawn random numbers
and the same policy (:func:`choose`): facing a bet fold 1 / call 4 / raise 2, otherwise check
4 / bet 2; an amount is the minimum 40%, the maximum (all-in) 20%, else uniform in between.
Our engine gets pre-generated shuffled decks; pokerkit deals from its own shuffled deck
(every automation on except the player actions; the global ``random`` is seeded).  The choice
itself costs a few float comparisons per decision, the same for both.

Then hands per second of every variant of ours (holdem, manila, manila3, draw, stud5, stud7,
each in no_limit and fixed_limit) and Caribbean Stud rounds per second (six seats ante, deal,
play or fold, settle).  Each rate is the best of R timed passes of about S seconds each.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

from server.rules.cards import make_deck
from server.rules.caribbean import CaribbeanRound, CaribbeanSettings
from server.rules.hand import Hand
from server.rules.structure import FIXED_LIMIT, NO_LIMIT, Stakes
from server.rules.variant import TableRules, Variant
from server.rules.variants import VARIANTS

SEED = 20240601
PLAYERS = 6
STACK = 1_000
BLINDS = (5, 10)
N_DECKS = 1_024
N_RANDOM = 1 << 16  # pre-drawn uniform numbers, used cyclically
MASK = N_RANDOM - 1

# policy weights (cumulative thresholds): facing a bet fold 1 / call 4 / raise 2,
# otherwise check 4 / bet 2; without a raise option the raise weight is dropped.
_FACING = (1 / 7, 5 / 7)      # fold below the first, call below the second, else raise
_FACING_NO_RAISE = (1 / 5,)   # fold below, else call
_FREE = 4 / 6                 # check below, else bet/raise


def choose(u: float, v: float, to_call: int, bounds: tuple[int, int] | None) -> tuple[str, int]:
    """The policy: ``("fold"|"check"|"call"|"raise", amount)`` from two uniform numbers.

    ``bounds`` is the (min, max) "raise to" total, or None when no bet/raise is allowed.
    The amount is used only for a raise (a bet when nothing is to call).
    """
    if to_call:
        if bounds is None:
            return ("fold", 0) if u < _FACING_NO_RAISE[0] else ("call", 0)
        if u < _FACING[0]:
            return "fold", 0
        if u < _FACING[1]:
            return "call", 0
    elif bounds is None or u < _FREE:
        return "check", 0
    lo, hi = bounds
    if v < 0.4:
        return "raise", lo
    if v < 0.6:
        return "raise", hi
    return "raise", lo + int((v - 0.6) * 2.5 * (hi - lo + 1)) if hi > lo else lo


def random_table(seed: int) -> list[float]:
    rng = random.Random(seed)
    return [rng.random() for _ in range(N_RANDOM)]


def decks_for(card_set: Sequence[str], seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(N_DECKS):
        deck = list(card_set)
        rng.shuffle(deck)
        out.append(deck)
    return out


def stakes(structure: str, variant: Variant) -> Stakes:
    if variant.is_stud:
        if structure == FIXED_LIMIT:
            return Stakes(ante=2, bring_in=5, small_bet=10, big_bet=20)
        return Stakes(ante=2, bring_in=5, small_bet=10)
    if structure == FIXED_LIMIT:
        return Stakes(blinds=BLINDS, small_bet=10, big_bet=20)
    return Stakes(blinds=BLINDS)


# ------------------------------------------------------------------------------ ours
def ours_runner(variant: Variant, structure: str) -> Callable[[int], int]:
    """A function playing ``n`` hands of ``variant``; returns the number of decisions."""
    rules = TableRules(structure=structure, stakes=stakes(structure, variant))
    stacks = {s: STACK for s in range(PLAYERS)}
    decks = decks_for(variant.card_set, SEED)
    rnd = random_table(SEED)

    def run(n: int) -> int:
        k = 0
        for i in range(n):
            hand = Hand(variant, rules, stacks, button=PLAYERS - 1, deck=decks[i % N_DECKS],
                        num_seats=PLAYERS)
            hand.start()
            while not hand.is_over:
                seat = hand.to_act
                assert seat is not None
                opts = hand.options(seat)
                assert opts is not None
                u = rnd[k & MASK]
                v = rnd[(k + 1) & MASK]
                k += 2
                if opts.draw is not None:
                    own = hand.cards_of(seat)
                    hand.act(seat, "draw", None, own[:int(u * (opts.draw + 1))])
                    continue
                if opts.bring_in is not None:
                    if opts.complete is not None and u < 1 / 4:
                        hand.act(seat, "complete")
                    else:
                        hand.act(seat, "bring_in")
                    continue
                bounds = opts.bet or opts.raise_ or (
                    (opts.complete, opts.complete) if opts.complete is not None else None)
                kind, amount = choose(u, v, opts.to_call, bounds)
                if kind == "raise":
                    if opts.complete is not None:
                        hand.act(seat, "complete")
                    else:
                        hand.act(seat, "bet" if opts.bet is not None else "raise", amount)
                elif kind == "check" and not opts.check:
                    hand.act(seat, "call")  # the short all-in case: to_call was capped at 0
                else:
                    hand.act(seat, kind)
        return k // 2

    return run


def caribbean_runner() -> Callable[[int], int]:
    settings = CaribbeanSettings()
    seats = {s: 100_000 for s in range(PLAYERS)}
    decks = decks_for(make_deck(), SEED)
    rnd = random_table(SEED)

    def run(n: int) -> int:
        k = 0
        for i in range(n):
            rnd_ = CaribbeanRound(settings, seats, decks[i % N_DECKS], round_id="r")
            for s in range(PLAYERS):
                rnd_.ante(s, 100, jackpot=rnd[k & MASK] < 0.5)
                k += 1
            rnd_.deal()
            for s in range(PLAYERS):
                if rnd[k & MASK] < 0.7:
                    rnd_.play(s)
                else:
                    rnd_.fold(s)
                k += 1
        return k

    return run


# ------------------------------------------------------------------------------ pokerkit
def pokerkit_runner() -> Callable[[int], int] | None:
    try:
        from pokerkit import Automation, NoLimitTexasHoldem
    except ImportError:
        return None
    automations = (
        Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING, Automation.HOLE_DEALING, Automation.BOARD_DEALING,
        Automation.RUNOUT_COUNT_SELECTION, Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING, Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
    )
    rnd = random_table(SEED)

    def run(n: int) -> int:
        random.seed(SEED)  # pokerkit shuffles with the global random
        k = 0
        for _ in range(n):
            state = NoLimitTexasHoldem.create_state(
                automations, True, 0, BLINDS, BLINDS[-1], (STACK,) * PLAYERS, PLAYERS)
            while state.status:
                u = rnd[k & MASK]
                v = rnd[(k + 1) & MASK]
                k += 2
                to_call = state.checking_or_calling_amount
                assert to_call is not None
                bounds = None
                if state.can_complete_bet_or_raise_to():
                    lo = state.min_completion_betting_or_raising_to_amount
                    hi = state.max_completion_betting_or_raising_to_amount
                    assert lo is not None and hi is not None
                    bounds = (lo, hi)
                kind, amount = choose(u, v, to_call, bounds)
                if kind == "fold":
                    state.fold()
                elif kind == "raise":
                    state.complete_bet_or_raise_to(amount)
                else:
                    state.check_or_call()
        return k // 2

    return run


# ------------------------------------------------------------------------------ timing
def size_pass(run: Callable[[int], int], seconds: float) -> int:
    """How many hands make a pass of about ``seconds`` (after a warm-up)."""
    run(3)  # warm up (lazy tables, imports)
    n = 8
    while True:
        t0 = time.process_time()
        run(n)
        dt = time.process_time() - t0
        if dt >= seconds / 4 or n >= 1 << 20:
            return max(1, int(n * seconds / dt))
        n *= 2


def best_rates(runs: dict[str, Callable[[int], int]], seconds: float,
               repeat: int) -> dict[str, tuple[float, float]]:
    """(hands/s, decisions/s) of each run, best of ``repeat`` passes of about ``seconds``.

    The passes are interleaved (one of each, ``repeat`` times) so that load from other
    processes on a shared machine falls on every run alike.
    """
    sizes = {name: size_pass(run, seconds) for name, run in runs.items()}
    best = {name: (float("inf"), 0) for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            t0 = time.process_time()
            decisions = run(sizes[name])
            dt = time.process_time() - t0
            if dt < best[name][0]:
                best[name] = (dt, decisions)
    return {name: (sizes[name] / dt, d / dt) for name, (dt, d) in best.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="length of one timed pass")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    sec, rep = args.seconds, args.repeat

    print(f"6-handed no-limit Hold'em, stacks {STACK}, blinds {BLINDS[0]}/{BLINDS[1]}, "
          f"random legal play (seed {SEED}), best of {rep} passes")
    runs = {"ours": ours_runner(VARIANTS["holdem"], NO_LIMIT)}
    pk = pokerkit_runner()
    if pk is not None:
        runs["pokerkit"] = pk
    rates = best_rates(runs, sec, rep)
    for name, (hands, decisions) in rates.items():
        print(f"  {name:<9} {hands:>10,.0f} hands/s  {decisions:>10,.0f} decisions/s")
    if pk is None:
        print("  pokerkit  not installed: skipped")
    else:
        print(f"  ratio     {rates['ours'][0] / rates['pokerkit'][0]:>10.1f}x (ours / pokerkit)")
    print()
    print("every variant of ours, 6 players (hands/s; Caribbean Stud: rounds/s)")
    print(f"  {'variant':<10} {'no_limit':>10} {'fixed_limit':>12}")
    table: dict[str, Callable[[int], int]] = {}
    for name, variant in VARIANTS.items():
        table[f"{name} {NO_LIMIT}"] = ours_runner(variant, NO_LIMIT)
        table[f"{name} {FIXED_LIMIT}"] = ours_runner(variant, FIXED_LIMIT)
    table["caribbean"] = caribbean_runner()
    got = best_rates(table, sec / 3, rep)
    for name in VARIANTS:
        nl, fl = got[f"{name} {NO_LIMIT}"][0], got[f"{name} {FIXED_LIMIT}"][0]
        print(f"  {name:<10} {nl:>10,.0f} {fl:>12,.0f}")
    print(f"  {'caribbean':<10} {got['caribbean'][0]:>10,.0f} {'':>12}")

if __name__ == "__main__":
    main()
