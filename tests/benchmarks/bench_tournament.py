"""Tournament (issue 27): a 1,000-entrant no-limit hold'em tournament of the load tester's
bots against one spawned server, its wall time per level and its act-to-``acted`` p99,
against an anchor measured in the same run: the same server's cash tables, as many 9-seat
tables as the tournament opens, with the same bots at the same think time.

Run from the repository root::

    .venv/bin/python -m tests.benchmarks.bench_tournament [--entrants 1000] [--seats 9]
        [--preset hyper] [--shove 0.25] [--anchor-seconds 20] [--server-cpu 0]
        [--client-cpu 1] [--data-root /dev/shm] [--lead S] [--unfollow] [--json PATH]

Both runs spawn a fresh ``poker-server --test-mode`` (``server.loadtest``'s ``--spawn``)
pinned to ``--server-cpu``, the bots in this process on ``--client-cpu``, no pause between
hands. The anchor (``poker-loadtest --tables ceil(N/seats) --bots seats``) gives cash hands/s,
its p99 and the server's CPU per hand; the tournament (``poker-loadtest --tournament N``)
gives the same, plus each level's wall time, hands and actions. Ratios printed: the
tournament's server CPU per hand over the cash tables' (what the director, the moves and
the tournament's bookkeeping add to a hand), and its p99 over theirs. The tournament's
hands/s is over its whole length, tables closing as players go out, so it is shown but not
compared. Registration (the wait to the scheduled start) is timed apart.

The entrants stay followers of the tournament (the server makes each one a follower at
``tournament_register``: a ``tournament`` message as it changes) unless ``--unfollow``: each
then sends ``unfollow_tournament`` after registering, as players whose page is closed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
from pathlib import Path
from typing import Any

from server.loadtest import RunConfig, TournamentConfig, run_load, run_tournament
from server.loadtest.tourney_run import tournament_summary
from tests.benchmarks.bench_capacity import commit, machine


def _per_hand_ms(cpu_s: float | None, hands: int) -> float | None:
    return cpu_s / hands * 1000 if cpu_s is not None and hands else None


async def _anchor(args: argparse.Namespace) -> dict[str, Any]:
    tables = math.ceil(args.entrants / args.seats)
    report = await run_load(RunConfig(
        spawn=True, server_cpu=args.server_cpu, client_cpu=args.client_cpu,
        data_root=args.data_root, tables=tables, bots=args.seats, duration=args.anchor_seconds,
        think=0.0, seed=args.seed, progress=False))
    util = report.cpu.get("server_utilization")
    cpu_s = util * report.duration_s if util is not None else None
    return {"tables": tables, "bots": report.bots, "seconds": round(report.duration_s, 2),
            "hands": report.hands, "hands_per_s": round(report.hands_per_s, 1),
            "p50_ms": round(report.latency.p50_ms, 2), "p99_ms": round(report.latency.p99_ms, 2),
            "server_cpu_s": cpu_s, "server_ms_per_hand": _per_hand_ms(cpu_s, report.hands),
            "errors": report.errors, "ok": report.ok}


async def _tournament(args: argparse.Namespace) -> dict[str, Any]:
    report = await run_tournament(TournamentConfig(
        spawn=True, server_cpu=args.server_cpu, client_cpu=args.client_cpu,
        data_root=args.data_root, entrants=args.entrants, seats=args.seats,
        preset=args.preset, shove=args.shove, think=0.0, seed=args.seed,
        unfollow=args.unfollow, lead=args.lead,
        timeout=args.timeout, progress=not args.quiet))
    print(tournament_summary(report))
    cpu_s = report.cpu.get("server_cpu_s")
    return {"entrants": report.entrants, "finished": report.finished,
            "wall_s": report.wall_s, "registration_s": report.registration_s,
            "register_s": report.register_s,
            "hands": report.hands, "actions": report.actions,
            "hands_per_s": round(report.hands / max(report.wall_s, 1e-9), 1),
            "p50_ms": round(report.latency.p50_ms, 2), "p99_ms": round(report.latency.p99_ms, 2),
            "server_cpu_s": cpu_s, "server_ms_per_hand": _per_hand_ms(cpu_s, report.hands),
            "levels": report.levels, "errors": report.errors, "problems": report.problems,
            "chips_balanced": report.chips.get("balanced"), "ok": report.ok}


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--seats", type=int, default=9)
    parser.add_argument("--preset", default="hyper")
    parser.add_argument("--shove", type=float, default=0.25)
    parser.add_argument("--anchor-seconds", type=float, default=20.0)
    parser.add_argument("--server-cpu", type=int, default=0)
    parser.add_argument("--client-cpu", type=int, default=1)
    parser.add_argument("--data-root", type=Path, default=None)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--lead", type=float, default=None,
                        help="seconds from creation to the start (default: the load "
                             "tester's, 74 s for 1000; registering took 1-2 s, once 43 s)")
    parser.add_argument("--unfollow", action="store_true",
                        help="entrants unfollow the tournament after registering")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    print(f"{machine()}; commit {commit()}")
    anchor = await _anchor(args)
    print(f"anchor: {anchor['tables']} cash tables of {args.seats} bots for "
          f"{anchor['seconds']} s: {anchor['hands_per_s']} hands/s, p50 {anchor['p50_ms']} "
          f"ms, p99 {anchor['p99_ms']} ms, server {_fmt(anchor['server_ms_per_hand'])} "
          f"CPU ms/hand, errors {anchor['errors'] or 'none'}")
    tour = await _tournament(args)
    print(f"tournament: {tour['entrants']} entrants, {tour['wall_s']} s "
          f"(+{tour['registration_s']} s registering), {tour['hands']} hands "
          f"({tour['hands_per_s']}/s), p50 {tour['p50_ms']} ms, p99 {tour['p99_ms']} ms, "
          f"server {_fmt(tour['server_ms_per_hand'])} CPU ms/hand, "
          f"{'ok' if tour['ok'] else 'NOT ok'}")
    print("level  wall s   hands  actions")
    for lv in tour["levels"]:
        name = f"{lv['level']}{' break' if lv['on_break'] else ''}"
        print(f"{name:<6} {lv['seconds']:7.1f} {lv['hands']:7d} {lv['actions']:8d}")
    a, t = anchor["server_ms_per_hand"], tour["server_ms_per_hand"]
    ratio = t / a if a and t else None
    print(f"ratios (tournament / cash anchor): server CPU per hand {_fmt(ratio)}, "
          f"p99 act->acted {_fmt(tour['p99_ms'] / anchor['p99_ms'] if anchor['p99_ms'] else None)}")
    if args.json is not None:
        args.json.write_text(json.dumps({"anchor": anchor, "tournament": tour,
                                         "cpu_per_hand_ratio": ratio}, indent=2) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
