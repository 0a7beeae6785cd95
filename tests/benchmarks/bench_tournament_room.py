"""Tournament across the room (issue 27): a 1,000-entrant no-limit hold'em tournament of the
load tester's bots on three ``poker-server`` processes sharing one redis-server, its wall time
per level and its act-to-``acted`` p99, against an anchor measured in the same run: the same
tournament (same entrants, levels, bots and seed) on one standalone process.

Run from the repository root::

    .venv/bin/python -m tests.benchmarks.bench_tournament_room [--entrants 1000] [--seats 9]
        [--level-minutes 0.5] [--shove 0.25] [--server-cpu 0] [--client-cpu 1]
        [--data-root /dev/shm] [--json PATH]

Both runs use ``--level-minutes`` levels (blinds from 1/100 of the stack, x1.5 a level) so
that the tournament plays several levels. In the room run the tournament is created on the
first process and its bots connect to the other two (``moved`` takes them to it), as behind a
proxy; the servers are pinned to ``--server-cpu`` in both runs (three processes share the core
one process had), the bots to ``--client-cpu``. Ratios printed (room / one process): wall time,
p99 act->acted, and server CPU per hand (the room's three processes summed over the whole run,
registration included: the state saved in Redis after each decision, the directory, the lobby
reads).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from server.loadtest import TournamentConfig, run_tournament
from server.loadtest.runner import ServerProcess, start_server
from server.loadtest.tourney_run import TournamentReport, tournament_summary
from tests.benchmarks.bench_capacity import commit, machine
from tests.redis_helpers import RedisProcess, free_port


def _config(args: argparse.Namespace, **where: Any) -> TournamentConfig:
    return TournamentConfig(
        client_cpu=args.client_cpu, entrants=args.entrants, seats=args.seats,
        level_minutes=args.level_minutes, shove=args.shove, think=0.0, seed=args.seed,
        timeout=args.timeout, progress=not args.quiet, **where)


def _row(report: TournamentReport, cpu_s: float | None) -> dict[str, Any]:
    return {"entrants": report.entrants, "finished": report.finished, "wall_s": report.wall_s,
            "registration_s": report.registration_s, "hands": report.hands,
            "actions": report.actions, "p50_ms": round(report.latency.p50_ms, 2),
            "p99_ms": round(report.latency.p99_ms, 2), "server_cpu_s": cpu_s,
            "server_ms_per_hand": cpu_s / report.hands * 1000 if cpu_s and report.hands
            else None, "levels": report.levels, "errors": report.errors,
            "problems": report.problems, "chips_balanced": report.chips.get("balanced"),
            "ok": report.ok}


async def _one(args: argparse.Namespace) -> dict[str, Any]:
    report = await run_tournament(_config(args, spawn=True, server_cpu=args.server_cpu,
                                          data_root=args.data_root))
    print(tournament_summary(report))
    cpu = report.cpu.get("server_cpu_s")
    return _row(report, float(cpu) if cpu is not None else None)


async def _room(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="bench-room-", dir=args.data_root))
    redis = RedisProcess(workdir / "redis", appendonly=False)
    redis.start()
    servers: list[ServerProcess] = []
    try:
        for i in range(3):
            port = free_port()
            servers.append(await start_server(
                cpu=args.server_cpu, data_root=args.data_root,
                extra=("--port", str(port), "--redis", redis.url, "--node", f"n{i}",
                       "--public-url", f"ws://127.0.0.1:{port}/ws",
                       "--set", "hand_pause=0.0")))
        before = [s.cpu_seconds() or 0.0 for s in servers]
        report = await run_tournament(_config(args, url=servers[0].url,
                                              urls=(servers[1].url, servers[2].url)))
        cpu = sum((s.cpu_seconds() or 0.0) - b for s, b in zip(servers, before, strict=True))
        print(tournament_summary(report))
        return _row(report, cpu)
    finally:
        for s in servers:
            await s.stop()
        redis.stop()


def _levels(name: str, row: dict[str, Any]) -> None:
    print(f"{name}: level  wall s   hands  actions")
    for lv in row["levels"]:
        label = f"{lv['level']}{' break' if lv['on_break'] else ''}"
        print(f"{'':{len(name)}}  {label:<6} {lv['seconds']:7.1f} {lv['hands']:7d} "
              f"{lv['actions']:8d}")


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a and b else "-"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--seats", type=int, default=9)
    parser.add_argument("--level-minutes", type=float, default=0.5)
    parser.add_argument("--shove", type=float, default=0.25)
    parser.add_argument("--server-cpu", type=int, default=0)
    parser.add_argument("--client-cpu", type=int, default=1)
    parser.add_argument("--data-root", type=Path, default=None)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    print(f"{machine()}; commit {commit()}")
    one = await _one(args)
    room = await _room(args)
    for name, row in (("one process", one), ("three processes", room)):
        print(f"{name}: {row['entrants']} entrants, {row['wall_s']} s (+{row['registration_s']}"
              f" s registering), {row['hands']} hands, p50 {row['p50_ms']} ms, p99 "
              f"{row['p99_ms']} ms, server CPU {row['server_ms_per_hand'] or 0:.2f} ms/hand, "
              f"errors {row['errors'] or 'none'}, {'ok' if row['ok'] else 'NOT ok'}")
        _levels(name, row)
    print(f"ratios (three processes / one): wall {_ratio(room['wall_s'], one['wall_s'])}, "
          f"p99 act->acted {_ratio(room['p99_ms'], one['p99_ms'])}, server CPU per hand "
          f"{_ratio(room['server_ms_per_hand'], one['server_ms_per_hand'])}")
    if args.json is not None:
        args.json.write_text(json.dumps({"one": one, "room": room}, indent=2) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
