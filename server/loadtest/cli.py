"""The ``poker-loadtest`` command line.

Examples::

    poker-loadtest --spawn --tables 20 --bots 6 --duration 20 --html report.html
    poker-loadtest --url ws://127.0.0.1:8080/ws --variant stud7 --structure fixed_limit \\
        --tables 5 --spectators 10 --hands 500 --think 0.5 --json report.json
    poker-loadtest --spawn --server-cpu 0 --client-cpu 1 --churn 5 --duration 30

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

__all__ = ["build_parser", "config_from_args", "main"]


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
