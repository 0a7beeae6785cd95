"""The table layer's own cost: CPU time per hand of a table actor, with no network.

    .venv/bin/python -m tests.benchmarks.bench_table [--hands 600] [--repeat 5]
    .venv/bin/python -m tests.benchmarks.bench_table --compare OTHER_CHECKOUT
    .venv/bin/python -m tests.benchmarks.bench_table --profile --hands 2000  # where its CPU goes

Six players sit at a no-limit Hold'em table (blinds 50/100) on a fake clock; each connection
is an in-memory sink that encodes every frame (JSON for half of the players, msgpack for the
others) and a spectator watches. Each player answers its `turn` at once with a random legal
action (seeded): call or check 60%, fold 25%, a raise 15%; busted players buy in again.
Measured: the CPU time (`time.process_time`, so another process's load on a shared machine
does not count) of the whole run, per hand. The driver waits on the table's own inbox
(`inbox.join()`: every queued item handled, its frames in the sinks) after each round of
actions, and buys the busted back in whenever no turn is pending. Until issue 25 it rebought
only in a round where nobody acted, which almost never came, so its "six-handed" hands were
2.2 players on average against the anchor's six; it also spun `TableActor.idle()` (a join and
three empty loop turns, twice a round). Anchor, in the same process and run: the bare engine
(`server.rules.hand.Hand`, the same kind of random play, six players) per hand; the ratio is
what the table layer (actor, desks, projection, fan-out, encoding, recording) costs on top.

`--compare DIR` runs this same script (this file's text) with DIR's `server` package in a
child process, alternating with this checkout, `--repeat` times each, and prints both and
their ratio: the before/after figure of a change to the table layer (issue 14).

Only the table layer's public paths are used (the registry, envelopes, the sinks' frames),
so the script runs unchanged against an older checkout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HANDS = 600


class Sink:
    """A connection: keeps the last `turn` with options addressed to it."""

    def __init__(self, conn_id: int, player_id: str | None, codec: Any) -> None:
        self.conn_id = conn_id
        self.player_id = player_id
        self.name = player_id
        self.codec = codec
        self.turn: dict[str, Any] | None = None
        self.frames = 0

    def send(self, frame: str | bytes) -> None:
        self.frames += 1
        if self.player_id is None or (b"options" if self.codec.binary else "options") \
                not in frame:  # type: ignore[operator]
            return
        msg = self.codec.decode(frame, trusted=True)  # (the server's own frame: a client's
        if msg.get("type") == "turn" and "options" in msg:  # cost, not the table's)
            self.turn = msg


def _choose(rng: random.Random, options: dict[str, Any]) -> dict[str, Any]:
    u = rng.random()
    if u < 0.15 and isinstance(options.get("raise"), dict):
        lo, hi = options["raise"]["min"], options["raise"]["max"]
        return {"action": "raise", "amount": rng.randint(lo, min(hi, lo * 3))}
    if u < 0.15 and isinstance(options.get("bet"), dict):
        lo, hi = options["bet"]["min"], options["bet"]["max"]
        return {"action": "bet", "amount": rng.randint(lo, min(hi, lo * 3))}
    if u < 0.40 and options.get("fold") and not options.get("check"):
        return {"action": "fold"}
    if options.get("check"):
        return {"action": "check"}
    if options.get("call"):
        return {"action": "call"}
    return {"action": "fold"}


async def _table_run(hands: int, seed: int) -> tuple[float, int]:
    """CPU seconds for `hands` hands through a table actor, and the hands played."""
    from protocol import JSON_CODEC, MSGPACK_CODEC, parse_request
    from server.config import Config
    from server.ledger.wallet import MemoryWallet
    from server.table import Envelope, FakeClock, TableRegistry

    rng = random.Random(seed)
    config = Config(test_mode=True, action_clock=30.0, time_bank=0.0)
    clock = FakeClock()
    wallet = MemoryWallet()
    registry = TableRegistry(config, wallet, clock=clock, rng=lambda n: rng.randbytes(n),
                             shuffle=lambda cards: rng.sample(list(cards), len(cards)))
    req = parse_request({"type": "create_table", "variant": "holdem", "structure": "no_limit",
                         "stakes": {"blinds": [50, 100]}, "seats": 6,
                         "settings": {"pause": 0.01, "max_buy_in": 100_000}})
    t = registry.get(registry.create(req, owner="bench"))  # type: ignore[arg-type]
    assert t is not None
    rid = iter(range(1, 10**9))
    sinks = [Sink(i + 1, f"p{i}", JSON_CODEC if i % 2 else MSGPACK_CODEC) for i in range(6)]

    async def send(sink: Sink, kind: str, **fields: Any) -> None:
        request = parse_request({"type": kind, "rid": next(rid), "table": t.table_id,
                                 **fields})
        await t.submit(Envelope(request, sink))

    spectator = Sink(99, None, JSON_CODEC)
    await send(spectator, "watch")
    for i, sink in enumerate(sinks):
        wallet.ensure(sink.player_id or "", 10**9)
        await send(sink, "sit", seat=i, buy_in=10_000)
    await t.idle()
    played = 0
    start = time.process_time()
    while played < hands:
        acted = False
        for sink in sinks:
            turn, sink.turn = sink.turn, None
            if turn is not None:
                await send(sink, "act", **_choose(rng, turn["options"]))
                acted = True
        if not acted:  # between hands: the next one starts on the table's clock
            played = int(getattr(t, "hands_played", 0) or getattr(
                getattr(t, "dealer", None), "hands_played", 0))
            for i, sink in enumerate(sinks):  # the busted buy in again
                st = t.seats[i]
                if st is not None and st.stack == 0:
                    await send(sink, "sit", seat=i, buy_in=10_000)
            clock.advance(0.02)
        # wait for the table itself: every queued item handled (its frames are in the sinks
        # then), one loop turn per item, no spinning (the old driver's `idle()`)
        await t.inbox.join()
    return time.process_time() - start, played


def _engine_run(hands: int, seed: int) -> float:
    """CPU seconds for `hands` hands of the bare engine, the same kind of random play."""
    from server.rules.hand import Hand
    from server.rules.holdem import HOLDEM
    from server.rules.structure import NO_LIMIT, Stakes
    from server.rules.variant import TableRules

    rules = TableRules(structure=NO_LIMIT, stakes=Stakes(blinds=(50, 100)))
    rng = random.Random(seed)
    start = time.process_time()
    for n in range(hands):
        deck = rng.sample(list(HOLDEM.card_set), len(HOLDEM.card_set))
        hand = Hand(HOLDEM, rules, {s: 10_000 for s in range(6)}, button=n % 6, deck=deck,
                    num_seats=6, hand_id=f"b.{n}")
        hand.start()
        while not hand.is_over:
            seat = hand.to_act
            assert seat is not None
            opts = hand.options(seat)
            assert opts is not None
            choice = _choose(rng, opts.to_wire())
            hand.act(seat, choice["action"], choice.get("amount"))
    return time.process_time() - start


def measure(hands: int) -> dict[str, float]:
    table_cpu, played = asyncio.run(_table_run(hands, 7))
    engine_cpu = _engine_run(played, 7)
    return {"hands": played, "table_us": 1e6 * table_cpu / played,
            "engine_us": 1e6 * engine_cpu / played}


def _child(checkout: str, hands: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": checkout}
    out = subprocess.run([sys.executable, __file__, "--hands", str(hands), "--json"],
                         cwd=checkout, env=env, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_table", description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=HANDS)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--compare", metavar="DIR", default=None)
    parser.add_argument("--profile", action="store_true",
                        help="where a hand's CPU goes, by category (hand_profile.py)")
    parser.add_argument("--cprofile", action="store_true",
                        help="with --profile: also cProfile's top functions")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.profile:
        from tests.benchmarks.hand_profile import profile

        profile(args.hands, _table_run, cprofile=args.cprofile)
        return
    if args.json:
        print(json.dumps(measure(args.hands)))
        return
    here = str(Path(__file__).resolve().parents[2])
    sides = {"this": here} if args.compare is None else {"other": args.compare, "this": here}
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in sides}
    for _ in range(args.repeat):
        for name, checkout in sides.items():
            runs[name].append(_child(checkout, args.hands))
    print(f"{args.hands} hands of 6-handed NL Hold'em per run, {args.repeat} runs per side, "
          "CPU time (process_time)")
    print(f"{'side':<8}{'table us/hand':>15}{'engine us/hand':>16}{'table/engine':>14}")
    medians = {}
    for name, rs in runs.items():
        table = statistics.median(r["table_us"] for r in rs)
        engine = statistics.median(r["engine_us"] for r in rs)
        medians[name] = table / engine
        print(f"{name:<8}{table:>15,.0f}{engine:>16,.0f}{table / engine:>14.2f}")
    if "other" in medians:
        print(f"this/other (table/engine ratios): {medians['this'] / medians['other']:.3f}")


if __name__ == "__main__":
    main()
