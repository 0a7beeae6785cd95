"""Seven-card hand evaluation rate: ours against treys and pokerkit, on the same hands.

Run from the repository root::

    .venv/bin/python -m tests.benchmarks.bench_eval [--hands N] [--repeat R]

Every evaluator sees the same seeded list of random 7-card hands (2 hole + 5 board), each in
its native input form: ours gets card strings (``evaluate(hole, board)``), and separately the
pre-encoded int path (``value_of(hole_code + board_code)``); treys gets pre-converted Card
ints (``Evaluator().evaluate(board, hand)``); pokerkit gets card strings
(``StandardHighHand.from_game(hole, board)``).  The best of R timed passes is reported.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from server.rules.cards import make_deck
from server.rules.evaluate import encode, evaluate, value_of

SEED = 20240601


def make_hands(n: int, seed: int = SEED) -> list[tuple[list[str], list[str]]]:
    rng = random.Random(seed)
    deck = list(make_deck())
    hands = []
    for _ in range(n):
        cards = rng.sample(deck, 7)
        hands.append((cards[:2], cards[2:]))
    return hands


def best_rates(runs: dict[str, tuple[Callable[[], object], int]], repeat: int) -> dict[str, float]:
    """Hands per second for each run, best of ``repeat`` passes.

    The passes are interleaved (one of each, ``repeat`` times) so that load from other
    processes on a shared machine falls on every evaluator alike.
    """
    best = {name: float("inf") for name in runs}
    for _ in range(repeat):
        for name, (run, _n) in runs.items():
            t0 = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - t0)
    return {name: n / best[name] for name, (_run, n) in runs.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    n, repeat = args.hands, args.repeat
    hands = make_hands(n)

    def ours() -> None:
        for hole, board in hands:
            evaluate(hole, board)

    encoded = [(encode(hole), encode(board)) for hole, board in hands]

    def ours_int_run() -> None:
        for h, b in encoded:
            value_of(h + b)

    ours_str = "ours: evaluate(hole, board), card strings"
    ours_int = "ours: value_of(hole_code + board_code), ints"
    runs: dict[str, tuple[Callable[[], object], int]] = {
        ours_str: (ours, n),
        ours_int: (ours_int_run, n),
    }

    try:
        from treys import Card, Evaluator
    except ImportError:
        print("treys not installed: skipped")
    else:
        evaluator = Evaluator()
        treys_hands = [
            ([Card.new(c) for c in hole], [Card.new(c) for c in board]) for hole, board in hands
        ]

        def treys_run() -> None:
            ev = evaluator.evaluate
            for hole, board in treys_hands:
                ev(board, hole)

        runs["treys: Evaluator().evaluate(board, hand), Card ints"] = (treys_run, n)

    try:
        from pokerkit import StandardHighHand
    except ImportError:
        print("pokerkit not installed: skipped")
    else:
        pk_n = min(n, 2_000)  # pokerkit is slow: time a prefix of the same hands
        pk_hands = [("".join(hole), "".join(board)) for hole, board in hands[:pk_n]]

        def pokerkit_run() -> None:
            from_game = StandardHighHand.from_game
            for hole, board in pk_hands:
                from_game(hole, board)

        runs["pokerkit: StandardHighHand.from_game(hole, board), strings"] = (pokerkit_run, pk_n)

    rates = best_rates(runs, repeat)
    print(f"{n} random 7-card hands (2 hole + 5 board), seed {SEED}, best of {repeat} passes")
    width = max(len(k) for k in rates)
    for name, rate in rates.items():
        line = f"  {name:<{width}}  {rate:>12,.0f} hands/s"
        if not name.startswith("ours"):
            line += (
                f"   ours(strings) {rates[ours_str] / rate:6.2f}x"
                f"   ours(ints) {rates[ours_int] / rate:6.2f}x"
            )
        print(line)


if __name__ == "__main__":
    main()
