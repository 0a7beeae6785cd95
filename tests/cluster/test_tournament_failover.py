"""Issue 27: a tournament across the room's processes survives losing its own (TOUR-15).

Three ``poker-server`` processes on one redis-server of the test's own. The load tester's host
creates a 180-entrant hyper-turbo on the first; its 180 bots connect to the other two and
register there (answered ``moved``, followed to the tournament's process). Mid-level (30
players out), the tournament's process is SIGKILLed. A survivor takes it over: the hands
that were running are voided, the tournament is claimed from Redis and restored (its clock,
level, stacks and places), its tables reopen there, and the bots come back through their own
process (``resume`` answered ``moved``) and play it to the end.

Checked: it finishes; the log in Redis breaks no rule (``check_log == []``, chips conserved
at every hand, move and void); it has the voids of the kill; places 1..180 each covered once;
the payouts sum to the pool and nobody is paid twice; each bot has its result; every
player's balance adds up (fees apart) and the ledger sums to zero with no chip left in the
tournament's accounts.

Waits are on events (the host's ``tournament`` messages) with timeouts; never a sleep.
"""

from __future__ import annotations

import asyncio
import io
import json
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from server.ledger.redis_store import RedisStore
from server.loadtest.tourney import TournamentHost
from server.loadtest.tourney_run import TournamentConfig, run_tournament
from server.loadtest.tracking import Stats
from server.redisio import Redis
from tests.ledger.test_crash import Server, start_server
from tests.loadtest.test_tournament_bots import _places_of
from tests.redis_helpers import RedisProcess, free_port
from tests.tournament.checker import check_log

pytestmark = [pytest.mark.redis, pytest.mark.slow]

LEASE = 2.0
ENTRANTS = 180
LOAD = ("request_rate=1000000", "request_burst=1000000", "max_connections_per_ip=1000000",
        "guests_per_ip_per_minute=1000000", "hand_pause=0.0")


def start_node(tmp: Path, name: str, redis: RedisProcess, *extra: str) -> Server:
    port = free_port()
    sets = [x for kv in LOAD for x in ("--set", kv)]
    return start_server(tmp / name, "--port", str(port), "--redis", redis.url, "--node", name,
                        "--public-url", f"ws://127.0.0.1:{port}/ws",
                        "--set", "cluster_lobby_refresh_ms=50",
                        "--set", f"node_lease={LEASE}", "--set", f"jackpot_lease={LEASE}",
                        *sets, *extra, test_mode=False)


def stop_all(nodes: list[Server]) -> None:
    for n in nodes:
        if n.proc.poll() is None:
            n.proc.send_signal(signal.SIGTERM)
    for n in nodes:
        try:
            n.proc.wait(timeout=15)
        except Exception:
            n.proc.kill()


async def no_chip_left(redis: RedisProcess, tid: str) -> None:
    """The ledger sums to zero; the tournament's chips and pool are all paid out; no chip is
    left at a table."""
    store = RedisStore(redis.url)
    await store.open()
    try:
        balances = await store.balances()
        assert sum(balances.values()) == 0
        left = {k: v for k, v in balances.items()
                if v and k.startswith((f"tchips:{tid}", f"tourney:{tid}", "table:"))}
        assert left == {}, left
    finally:
        await store.close()


async def redis_log(redis: RedisProcess, tid: str) -> list[dict[str, Any]]:
    r = await Redis.connect(redis.url)
    try:
        return [json.loads(x) for x in await r.call("LRANGE", f"tour:{{room}}:log:{tid}", 0, -1)]
    finally:
        await r.close()


@pytest.mark.asyncio
async def test_180_bots_on_three_processes_the_tournaments_own_killed_mid_level_tour_15(
        tmp_path: Path, redis_server: RedisProcess) -> None:
    nodes = [start_node(tmp_path, f"n{i}", redis_server) for i in range(3)]
    killed: dict[str, float] = {}

    async def kill_the_owner(host: TournamentHost, stats: Stats) -> None:
        """Mid-level: once 30 players are out, SIGKILL the tournament's process."""
        while int((host.state or {}).get("players_left") or ENTRANTS) > ENTRANTS - 30 \
                or (host.state or {}).get("state") != "running":
            host.updated.clear()
            await asyncio.wait_for(host.updated.wait(), 60.0)
        level = (host.state or {}).get("level") or {}
        killed["level"] = float(level.get("number", 0))
        killed["left"] = float(host.state["players_left"])  # type: ignore[index]
        killed["hands"] = float(stats.hands)
        nodes[0].proc.send_signal(signal.SIGKILL)
        killed["at"] = time.monotonic()
        # the first hand dealt after the kill (the survivor's restored tables)
        hands = stats.hands
        while stats.hands == hands:
            host.updated.clear()
            try:
                await asyncio.wait_for(host.updated.wait(), 30.0)
            except TimeoutError:
                print("errors after the kill:", stats.errors, "host at", host.url)
                raise
        killed["back_s"] = time.monotonic() - killed["at"]

    progress = io.StringIO()
    try:  # (progress: the run's line once a second, shown when it fails)
        report = await run_tournament(TournamentConfig(
            url=nodes[0].ws_url, urls=(nodes[1].ws_url, nodes[2].ws_url),
            entrants=ENTRANTS, seats=9, preset="hyper", variant="holdem",
            structure="no_limit", buy_in=100, fee=10, think=0.0, seed=2715, lead=6.0,
            timeout=180.0), err=progress, during=kill_the_owner)
        print(f"\nkilled at level {killed.get('level')} with {killed.get('left')} left after "
              f"{killed.get('hands')} hands; play seen again {killed.get('back_s', -1):.2f} s "
              f"later; wall {report.wall_s} s; p99 {report.latency.p99_ms} ms; "
              f"reconnects {report.reconnects}; notes {report.notes}")
        assert "at" in killed, "the owner was never killed"
        assert report.tournament is not None
        log = await redis_log(redis_server, report.tournament)
        violations = check_log(log)
        assert violations == [], violations
        assert report.finished, (report.notes, progress.getvalue()[-3000:])
        assert report.problems == [], report.problems
        assert not any(code for code in report.errors if code != "reconnect_failed"), \
            report.errors
        assert report.chips["balanced"], report.chips
        assert report.chips["end"] == report.chips["start"] - 10 * ENTRANTS
        assert any(rec["kind"] == "void" for rec in log), "no hand was running at the kill?"

        # places 1..N once each; payouts: the pool, nobody twice (TOUR-11, TOUR-12)
        start = log[0]
        places = _places_of(log)
        winners = set(start["entries"]) - set(places)
        assert len(winners) == 1, winners
        places[winners.pop()] = 1
        counts = Counter(places.values())
        assert sorted(p + i for p, k in counts.items() for i in range(k)) == \
            list(range(1, ENTRANTS + 1))
        payouts = [rec for rec in log if rec["kind"] == "payout"]
        assert all(n == 1 for n in Counter(rec["player"] for rec in payouts).values())
        assert sum(rec["amount"] for rec in payouts) == 100 * ENTRANTS == report.pool
        for r in report.results:
            assert r["place"] == places[r["player"]], r

        await no_chip_left(redis_server, report.tournament)
        claimed = [n for n in nodes[1:] if any("event=tournaments_claimed" in line
                                               for line in n.lines)]
        assert len(claimed) == 1, "exactly one survivor took the tournament over"
    except BaseException:
        print(progress.getvalue()[-3000:])
        for n in nodes:  # what the processes said of the takeover, for the failure's reader
            print(n.ws_url, "".join(line for line in n.lines if "tournament" in line
                                    or "failover" in line or "ERROR" in line)[-4000:])
        raise
    finally:
        stop_all(nodes)


@pytest.mark.asyncio
async def test_a_draining_process_hands_its_tournament_over_between_hands_tour_15(
        tmp_path: Path, redis_server: RedisProcess) -> None:
    """A graceful stop (SIGTERM: a drain) of the tournament's process, mid-level: no hand is
    voided; the tournament goes, between its hands, to another process, which restores it
    from Redis and plays it to the end."""
    entrants = 45
    nodes = [start_node(tmp_path, f"n{i}", redis_server, "--shutdown-deadline", "10")
             for i in range(3)]
    stopped: dict[str, float] = {}

    async def drain_the_owner(host: TournamentHost, stats: Stats) -> None:
        while int((host.state or {}).get("players_left") or entrants) > entrants - 5 \
                or (host.state or {}).get("state") != "running":
            host.updated.clear()
            await asyncio.wait_for(host.updated.wait(), 60.0)
        stopped["left"] = float(host.state["players_left"])  # type: ignore[index]
        nodes[0].proc.send_signal(signal.SIGTERM)
        stopped["at"] = time.monotonic()

    progress = io.StringIO()
    try:
        report = await run_tournament(TournamentConfig(
            url=nodes[0].ws_url, urls=(nodes[1].ws_url, nodes[2].ws_url),
            entrants=entrants, seats=9, preset="hyper", variant="holdem",
            structure="no_limit", buy_in=100, fee=10, think=0.02, seed=2716, lead=4.0,
            timeout=180.0), err=progress, during=drain_the_owner)
        assert "at" in stopped
        assert nodes[0].proc.wait(timeout=30) == 0, "the drained process exits cleanly"
        assert report.tournament is not None
        log = await redis_log(redis_server, report.tournament)
        assert check_log(log) == []
        assert report.finished, (report.notes, progress.getvalue()[-3000:])
        assert report.problems == [] and report.errors == {}, (report.problems, report.errors)
        assert report.chips["balanced"], report.chips
        assert not any(rec["kind"] == "void" for rec in log), "a hand was voided by a drain"
        assert any("event=tournament_handed_over" in line for line in nodes[0].lines)
        takers = [n for n in nodes[1:] if any("event=tournaments_taken_over" in line
                                              for line in n.lines)]
        assert len(takers) == 1
        await no_chip_left(redis_server, report.tournament)
    except BaseException:
        print(progress.getvalue()[-3000:])
        for n in nodes:
            print(n.ws_url, "".join(line for line in n.lines if "tournament" in line
                                    or "drain" in line or "ERROR" in line)[-4000:])
        raise
    finally:
        stop_all(nodes)
