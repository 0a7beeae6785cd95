"""The ``poker-loadtest`` command line.

Examples::

    poker-loadtest --spawn --tables 20 --bots 6 --duration 20 --html report.html
    poker-loadtest --url ws://127.0.0.1:8080/ws --variant stud7 --structure fixed_limit \\
        --tables 5 --spectators 10 --hands 500 --think 0.5 --json report.json
    poker-loadtest --spawn --server-cpu 0 --client-cpu 1 --churn 5 --duration 30
    poker-loadtest --spawn --tournament 180 --seats 9 --preset hyper --json tourney.json

With ``--tournament N`` the run is one tournament of N bots instead of cash tables
(:mod:`server.loadtest.tourney_run`): a sit-and-go when N fits ten tables, else a
scheduled tournament starting ``--lead`` seconds after its creation; it plays to the end.

Exit status: 0 when the run had no error answer, no unexpected disconnect and every chip
accounted for; 1 otherwise; 2 on bad options.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from protocol import STRUCTURES, VARIANTS

from .report import summary_table, write_html, write_json
from .runner import RunConfig, run_load
from .tourney_run import TournamentConfig, run_tournament, tournament_summary

__all__ = ["build_parser", "config_from_args", "main", "tournament_config_from_args"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="poker-loadtest",
        description="Seat bots at tables of a poker server and measure it.")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="WebSocket URL of a running server, ws://HOST:PORT/ws")
    where.add_argument("--spawn", action="store_true",
                       help="start `poker-server --port 0 --test-mode` for the run")
    parser.add_argument("--server-cpu", type=int, default=None, metavar="N",
                        help="with --spawn: pin the server to CPU N (and the bots elsewhere)")
    parser.add_argument("--client-cpu", type=int, default=None, metavar="N",
                        help="pin the load generator to CPU N")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="extra argument for the spawned server (repeatable)")
    parser.add_argument("--profile", type=Path, default=None, metavar="PATH",
                        help="with --spawn: run the server under cProfile, stats to PATH")
    parser.add_argument("--data-root", type=Path, default=None, metavar="DIR",
                        help="with --spawn: put the server's data directory (its ledger) "
                             "under DIR, e.g. /dev/shm to take disk syncs out of the run")
    parser.add_argument("--tables", type=int, default=10, help="tables (default 10)")
    parser.add_argument("--bots", type=int, default=6, help="bots per table (default 6)")
    parser.add_argument("--spectators", type=int, default=0,
                        help="spectators per table (default 0)")
    parser.add_argument("--variant", choices=VARIANTS, default="holdem")
    parser.add_argument("--structure", choices=STRUCTURES, default="no_limit",
                        help="betting structure (ignored for caribbean)")
    parser.add_argument("--stakes", type=json.loads, default=None, metavar="JSON",
                        help='stakes object, e.g. \'{"blinds": [5, 10]}\' (default: per '
                             "variant)")
    parser.add_argument("--pause", type=float, default=0.0,
                        help="table setting: seconds between hands (default 0)")
    parser.add_argument("--duration", type=float, default=None,
                        help="seconds to run (default 20 unless --hands)")
    parser.add_argument("--hands", type=int, default=None, help="stop after this many hands")
    parser.add_argument("--think", type=float, default=0.0,
                        help="bot think time in seconds (0 = as fast as possible)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the bots' choices")
    parser.add_argument("--churn", type=float, default=0.0, metavar="RATE",
                        help="drop and resume RATE player connections per second")
    parser.add_argument("--encoding", choices=("json", "msgpack"), default="json")
    parser.add_argument("--json", type=Path, default=None, metavar="PATH",
                        help="write the JSON report here")
    parser.add_argument("--html", type=Path, default=None, metavar="PATH",
                        help="write the HTML report here")
    parser.add_argument("--quiet", action="store_true", help="no live progress line")
    tour = parser.add_argument_group("tournament mode (issue 27)")
    tour.add_argument("--tournament", type=int, default=None, metavar="N",
                      help="play one tournament of N bots to the end instead of cash tables "
                           "(--variant, --structure, --think, --seed, --pause: the spawned "
                           "server's hand pause, default 0, apply)")
    tour.add_argument("--kind", choices=("auto", "sng", "scheduled"), default="auto",
                      help="sit-and-go or scheduled (auto: sng when N fits ten tables)")
    tour.add_argument("--lead", type=float, default=None,
                      help="scheduled: seconds from its creation to its start (default: "
                           "time to register them all, 74 s for 1000)")
    tour.add_argument("--seats", type=int, default=9, help="seats per table (default 9)")
    tour.add_argument("--preset", choices=("regular", "turbo", "hyper"), default="hyper",
                      help="blind structure preset (default hyper)")
    tour.add_argument("--starting-stack", type=int, default=None, metavar="CHIPS",
                      help="starting stack (default: the preset's)")
    tour.add_argument("--buy-in", type=int, default=100, help="buy-in (default 100)")
    tour.add_argument("--fee", type=int, default=0, help="entry fee (default 0)")
    tour.add_argument("--shove", type=float, default=0.25, metavar="P",
                      help="chance a bot's bet or raise is its whole stack (default 0.25)")
    tour.add_argument("--unfollow", action="store_true",
                      help="entrants unfollow the tournament after registering (no "
                           "`tournament` message at each change of it)")
    tour.add_argument("--timeout", type=float, default=900.0,
                      help="seconds the tournament may take (default 900)")
    return parser


def config_from_args(args: argparse.Namespace) -> RunConfig:
    duration = args.duration if args.duration is not None or args.hands else 20.0
    return RunConfig(
        url=args.url, spawn=args.spawn, server_cpu=args.server_cpu,
        client_cpu=args.client_cpu, server_args=tuple(args.server_arg), profile=args.profile,
        data_root=args.data_root, tables=args.tables, bots=args.bots, spectators=args.spectators,
        variant=args.variant, structure=None if args.variant == "caribbean" else args.structure,
        stakes=args.stakes, pause=args.pause, duration=duration, hands=args.hands,
        think=args.think, seed=args.seed, churn=args.churn, encoding=args.encoding,
        progress=not args.quiet)


def tournament_config_from_args(args: argparse.Namespace) -> TournamentConfig:
    return TournamentConfig(
        url=args.url, spawn=args.spawn, server_cpu=args.server_cpu, client_cpu=args.client_cpu,
        server_args=tuple(args.server_arg), data_root=args.data_root,
        entrants=args.tournament, kind=args.kind, lead=args.lead, variant=args.variant,
        structure=args.structure, seats=args.seats, preset=args.preset,
        starting_stack=args.starting_stack, buy_in=args.buy_in, fee=args.fee,
        pause=args.pause, think=args.think, shove=args.shove, unfollow=args.unfollow,
        seed=args.seed,
        encoding=args.encoding, timeout=args.timeout, progress=not args.quiet)


def _tournament_main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        config = tournament_config_from_args(args)
    except ValueError as error:
        parser.error(str(error))
    report = asyncio.run(run_tournament(config))
    print(tournament_summary(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    return 0 if report.ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.tournament is not None:
        return _tournament_main(parser, args)
    try:
        config = config_from_args(args)
    except ValueError as error:
        parser.error(str(error))
    report = asyncio.run(run_load(config))
    print(summary_table(report))
    if args.json is not None:
        write_json(report, args.json)
    if args.html is not None:
        write_html(report, args.html)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
