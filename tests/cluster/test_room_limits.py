"""Issue 23, "one room, one set of limits": every per-account and per-address limit of a
cluster counts once for the whole room, and an ended session or an operator's flag reaches
every process within a second.

Each attack is run against three real `poker-server` processes (no test mode) sharing a
redis-server of the test's own, the attempts spread over the processes: password guesses
(one cap of `login_fail_limit`, not one per process), guests from one address
(`guests_per_ip_per_minute`), open tables per account and per address
(`max_tables_per_account`, `max_tables_per_ip`); then `logout`, `logout all`, a password change
and an operator freeze with ``end_sessions`` on one process close the stolen token's socket
on another with `bad_token` within a second; a mute and a freeze hold on every process.
Chips are conserved after each (the ledger's accounts sum to zero, none negative).

The scripts themselves (`server.roomlimits`) are checked directly on the redis-server too:
the lockout's doubling, the sliding minute, a table's place freed when it leaves the
directory. Every wait is on an event with a timeout (an answer, a frame, a close, a log line
of the process, signalled by the thread that reads its stderr); never a sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import re
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from protocol import ProtocolError
from server.config import Config
from server.ledger.accounts import AccountError
from server.ledger.redis_store import RedisStore
from server.net.loginguard import LoginGuard
from server.redisio import Redis
from server.roomlimits import PENDING_GRACE_MS, RoomLimits
from tests.cluster.test_nginx import NAMES, cluster, open_at
from tests.ledger.test_crash import ROOT, Server, server_command
from tests.net.conftest import Client
from tests.operator.conftest import TOKEN, _call
from tests.redis_helpers import RedisProcess, free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow]
__all__ = ["cluster"]  # the fixture: three processes behind the shipped deploy/nginx.conf

TIMEOUT = 20.0
WITHIN = 1.0  # the bound for a revocation or a flag to reach every process
HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [50, 100]}, "seats": 6}


# --------------------------------------------------------------------------------------------
# Three real processes on one redis-server
# --------------------------------------------------------------------------------------------


@dataclass
class Proc:
    """One `poker-server` process: its public and operator URLs, and its stderr lines; a
    coroutine may wait for a line (:meth:`watch`), signalled by the reading thread."""

    name: str
    proc: subprocess.Popen[str]
    ws_url: str = ""
    operator_url: str = ""
    lines: list[str] = field(default_factory=list)
    _watchers: list[tuple[str, asyncio.AbstractEventLoop, asyncio.Future[str]]] = \
        field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def watch(self, text: str) -> asyncio.Future[str]:
        """A future set with the first stderr line containing `text` from now on."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()
        with self._lock:
            self._watchers.append((text, loop, future))
        return future

    def _line(self, line: str) -> None:
        with self._lock:
            self.lines.append(line)
            hits = [w for w in self._watchers if w[0] in line]
            for hit in hits:
                self._watchers.remove(hit)
        for _, loop, future in hits:
            loop.call_soon_threadsafe(_settle, future, line)


def _settle(future: asyncio.Future[str], line: str) -> None:
    if not future.done():
        future.set_result(line)


def start_proc(tmp: Path, name: str, redis: RedisProcess, *extra: str) -> Proc:
    """Start one process; again on another port if its port was taken meanwhile (other test
    runs share the machine), at most three times."""
    for _ in range(2):
        proc = _start_once(tmp, name, redis, *extra)
        if proc is not None:
            return proc
    proc = _start_once(tmp, name, redis, *extra)
    if proc is None:
        pytest.fail(f"{name} did not start")
    return proc


def _start_once(tmp: Path, name: str, redis: RedisProcess, *extra: str) -> Proc | None:
    port = free_port()
    token_file = tmp / "operator-token"
    token_file.write_text(TOKEN)
    args = [*server_command(), "--port", str(port), "--data-dir", str(tmp / name),
            "--redis", redis.url, "--node", name, "--public-url", f"ws://127.0.0.1:{port}/ws",
            "--shutdown-deadline", "0.5", "--operator-token-file", str(token_file),
            "--set", "cluster_lobby_refresh_ms=50", "--set", "node_lease=2", *extra]
    popen = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    proc = Proc(name, popen)
    out: queue.Queue[str | None] = queue.Queue()

    def pump_out() -> None:
        assert popen.stdout is not None
        for line in iter(popen.stdout.readline, ""):
            out.put(line)
        out.put(None)

    def pump_err() -> None:
        assert popen.stderr is not None
        for line in iter(popen.stderr.readline, ""):
            proc._line(line)

    threading.Thread(target=pump_out, daemon=True).start()
    threading.Thread(target=pump_err, daemon=True).start()
    for _ in range(2):  # "listening on http://…/", then "operator on http://…/"
        try:
            line = out.get(timeout=30)
        except queue.Empty:
            line = None
        found = re.search(r"(listening|operator) on (http://\S+?)/?\s*$", line or "")
        if found is None:
            popen.kill()
            popen.wait()
            print(f"{name} did not start: {line!r}\n{''.join(proc.lines[-20:])}")
            return None
        if found.group(1) == "listening":
            proc.ws_url = f"ws://127.0.0.1:{port}/ws"
        else:
            proc.operator_url = found.group(2)
    return proc


def stop_proc(proc: Proc) -> None:
    if proc.proc.poll() is None:
        proc.proc.terminate()
        try:
            proc.proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.proc.kill()
            proc.proc.wait(10)


@pytest.fixture
def room(tmp_path: Path, redis_server: RedisProcess) -> Iterator[list[Proc]]:
    """Three cluster processes a, b, c (no test mode). Per address: at most 12 open tables
    (every connection here comes from 127.0.0.1)."""
    procs: list[Proc] = []
    try:
        for name in ("a", "b", "c"):
            procs.append(start_proc(tmp_path, name, redis_server,
                                    "--set", "max_tables_per_ip=12"))
        yield procs
    finally:
        for proc in procs:
            stop_proc(proc)


async def admin(proc: Proc, method: str, path: str, body: Any = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    raw = None if body is None else json.dumps(body).encode()
    status, answer = await asyncio.to_thread(_call, proc.operator_url.rstrip("/") + path,
                                             method, raw, headers)
    assert status == 200, (status, answer)
    return answer


async def chips_conserved(redis: RedisProcess) -> None:
    """Every chip accounted for: the ledger's accounts sum to 0, no player or table below 0."""
    store = RedisStore(redis.url)
    await store.open()
    try:
        balances = await store.balances()
    finally:
        await store.close()
    assert sum(balances.values()) == 0, balances
    assert all(v >= 0 for k, v in balances.items() if k.startswith(("player:", "table:")))


async def named(url: str, kind: str, name: str, password: str) -> Client:
    c = await open_at(url)
    answer = await c.request(kind, name=name, password=password)
    assert answer["type"] == "ok", answer
    welcome = await c.event("welcome")
    c.player_id, c.token = welcome["player_id"], welcome["token"]
    return c


async def with_token(url: str, token: str | None) -> Client:
    """A connection that says hello with `token` (a stolen one, say)."""
    c = await open_at(url)
    answer = await c.request("hello", token=token)
    assert answer["type"] == "ok", answer
    welcome = await c.event("welcome")
    c.player_id, c.token = welcome["player_id"], welcome["token"]
    return c


async def revoked_within(c: Client, started: float) -> float:
    """Wait for the pushed `bad_token` and the close; the seconds since `started`."""
    error = await asyncio.wait_for(c.event("error", code="bad_token"), TIMEOUT)
    took = time.monotonic() - started
    assert "rid" not in error, error
    with contextlib.suppress(ConnectionClosed):
        async with asyncio.timeout(TIMEOUT):
            while True:
                await c.receive()
    assert c.ws.close_code is not None
    return took


# --------------------------------------------------------------------------------------------
# (1)-(3): the counts
# --------------------------------------------------------------------------------------------


async def test_password_guesses_over_three_processes_hit_the_one_cap(
        room: list[Proc], redis_server: RedisProcess) -> None:
    """5 guesses (`login_fail_limit`) in all, not 5 per process: the sixth attempt, on any
    process, is `login_locked` (the right password too)."""
    victim = await named(room[0].ws_url, "register", "Victoria", "victoria-password")
    await victim.ws.close()
    answers: list[str] = []
    for attempt in range(9):
        c = await open_at(room[attempt % 3].ws_url)
        answer = await c.request("login", name="Victoria", password=f"guess-{attempt:04d}")
        answers.append(answer["code"])
        await c.ws.close()
    assert answers == ["bad_credentials"] * 5 + ["login_locked"] * 4, answers
    for proc in room:  # locked everywhere, whatever the password
        c = await open_at(proc.ws_url)
        answer = await c.request("login", name="Victoria", password="victoria-password")
        assert answer["code"] == "login_locked" and answer["retry_after"] >= 1, answer
        await c.ws.close()
    await chips_conserved(redis_server)


async def test_concurrent_guesses_over_three_processes_never_pass_the_cap(
        room: list[Proc], redis_server: RedisProcess) -> None:
    """Six connections on each process guess at once, again and again: one password check
    of the account at a time in the room (the others `rate_limited` at once), so at most
    `login_fail_limit` guesses are ever checked, exactly that many before `login_locked`."""
    victim = await named(room[0].ws_url, "register", "Xenia", "xenia-password")
    await victim.ws.close()

    async def guesser(url: str, n: int) -> list[str]:
        c = await open_at(url)
        codes = []
        for i in range(6):
            answer = await c.request("login", name="Xenia", password=f"guess-{n}-{i:04d}")
            codes.append(answer["code"])
        await c.ws.close()
        return codes

    runs = await asyncio.gather(*(guesser(p.ws_url, n) for n, p in
                                  enumerate(room * 6)))
    codes = [code for run in runs for code in run]
    assert codes.count("bad_credentials") <= 5, codes
    assert set(codes) <= {"bad_credentials", "rate_limited", "login_locked"}, codes
    for i in range(6):  # (a loaded machine may have answered every burst guess busy)
        if "login_locked" in codes:
            break
        codes += await guesser(room[i % 3].ws_url, 100 + i)
    assert codes.count("bad_credentials") == 5 and "login_locked" in codes, codes
    await chips_conserved(redis_server)


async def test_one_password_check_of_an_account_at_a_time(limits: RoomLimits) -> None:
    """`LoginGuard.attempt`: a second check of the same account, here or on another process
    (another guard on the same Redis), is `rate_limited` while the first runs; a
    `bad_credentials` inside is counted; the claim is released after."""
    config = Config(login_fail_limit=1)
    here, there = LoginGuard(config, room=limits), LoginGuard(config, room=limits)
    with pytest.raises(AccountError):
        async with here.attempt("acct", "1.1.1.1"):
            for guard in (here, there):
                with pytest.raises(ProtocolError) as info:
                    async with guard.attempt("acct", "2.2.2.2"):
                        pass
                assert info.value.code == "rate_limited"
            async with there.attempt("other", "2.2.2.2"):  # another account: free
                pass
            raise AccountError("bad_credentials")
    with pytest.raises(ProtocolError) as info:  # counted: locked now, on either
        async with there.attempt("acct", "3.3.3.3"):
            pass
    assert info.value.code == "login_locked"


async def test_the_attack_through_the_shipped_nginx_meets_the_one_cap(
        cluster: tuple[int, list[Server]], redis_server: RedisProcess) -> None:
    """The issue's set-up: nginx (deploy/nginx.conf) in front of three processes; the
    attacker spreads guesses over `/node/<name>/ws` and guests over `/ws`: one cap each."""
    listen, _ = cluster
    nodes = [f"ws://127.0.0.1:{listen}/node/{name}/ws" for name in NAMES]
    victim = await named(nodes[0], "register", "Yara", "yara-password")
    await victim.ws.close()
    codes = []
    for i in range(9):
        c = await open_at(nodes[i % 3])
        codes.append((await c.request("login", name="Yara", password=f"guess-{i:04d}"))["code"])
        await c.ws.close()
    assert codes == ["bad_credentials"] * 5 + ["login_locked"] * 4, codes
    answers = []
    for i in range(12):
        c = await open_at(f"ws://127.0.0.1:{listen}/ws" if i % 2 else nodes[i % 3])
        answer = await c.request("hello", guest=f"Farm{i}")
        answers.append(answer["type"] if answer["type"] == "ok" else answer["code"])
        await c.ws.close()
    assert answers == ["ok"] * 10 + ["too_many_guests"] * 2, answers
    await chips_conserved(redis_server)


async def test_guests_from_one_address_over_three_processes_hit_the_one_cap(
        room: list[Proc], redis_server: RedisProcess) -> None:
    """`guests_per_ip_per_minute` (10) for the room: the eleventh guest is refused wherever
    it asks."""
    codes: list[str] = []
    for i in range(13):
        c = await open_at(room[i % 3].ws_url)
        answer = await c.request("hello", guest=f"Farm{i}")
        codes.append(answer["type"] if answer["type"] == "ok" else answer["code"])
        if answer["type"] != "ok":
            assert answer["retry_after"] >= 1, answer
        await c.ws.close()
    assert codes == ["ok"] * 10 + ["too_many_guests"] * 3, codes
    await chips_conserved(redis_server)


async def create_anywhere(clients: dict[str, Client]) -> tuple[dict[str, Any], str]:
    """`create_table` where the room places it (following `moved`): the answer, the
    process's URL."""
    url = next(iter(clients))
    for _ in range(10):  # (copies of the directory a refresh apart may send it on again)
        answer = await clients[url].request("create_table", **HOLDEM)
        if answer["type"] == "error" and answer["code"] == "moved" and "table" not in answer:
            url = answer["url"]
            continue
        return answer, url
    raise AssertionError("moved ten times")


async def test_open_tables_per_account_and_address_over_three_processes_hit_the_one_cap(
        room: list[Proc], redis_server: RedisProcess) -> None:
    """`max_tables_per_account` (8) for the room: the ninth table is refused wherever it is
    asked for, though each process has fewer; `max_tables_per_ip` (12 here) likewise."""
    tess = await named(room[0].ws_url, "register", "Tess", "tess-password")
    clients = {room[0].ws_url: tess}
    for proc in room[1:]:
        clients[proc.ws_url] = await with_token(proc.ws_url, tess.token)
    placed: dict[str, int] = {}
    for _ in range(8):
        answer, url = await create_anywhere(clients)
        assert answer["type"] == "ok", answer
        placed[url] = placed.get(url, 0) + 1
    assert len(placed) >= 2 and max(placed.values()) < 8, placed  # spread over processes
    for url in clients:  # the ninth: refused, asked first of each process
        answer, _ = await create_anywhere({url: clients[url], **clients})
        assert answer["code"] == "too_many_tables", (url, answer)
        assert "in this room" in answer["message"], answer
    # another account from the same address: 4 more, then the address's cap
    uma = await named(room[1].ws_url, "register", "Uma", "uma-password")
    uclients = {room[1].ws_url: uma}
    for proc in (room[0], room[2]):
        uclients[proc.ws_url] = await with_token(proc.ws_url, uma.token)
    results = [(await create_anywhere(uclients))[0] for _ in range(5)]
    assert [r["type"] for r in results[:4]] == ["ok"] * 4, results
    assert results[4]["code"] == "too_many_tables", results[4]
    assert "from your address" in results[4]["message"], results[4]
    await chips_conserved(redis_server)


# --------------------------------------------------------------------------------------------
# (4): revocations reach every process within a second
# --------------------------------------------------------------------------------------------


async def test_logout_on_a_closes_the_stolen_tokens_socket_on_b(
        room: list[Proc], redis_server: RedisProcess) -> None:
    """The stolen token (the same session) sits at a table on b with chips and chats; the
    owner's `logout` on a closes it with `bad_token` within a second; `logout all` on a does
    the same for every session; the chips stay at the table, conserved."""
    a, b, c = room
    rita = await named(a.ws_url, "register", "Rita", "rita-password")
    thief = await with_token(b.ws_url, rita.token)
    thief_c = await with_token(c.ws_url, rita.token)
    assert thief.player_id == thief_c.player_id == rita.player_id
    sockets = {b.ws_url: thief, c.ws_url: thief_c, a.ws_url: rita}
    table, url = await create_anywhere(sockets)
    sat = await sockets[url].request("sit", table=table["table"], seat=0, buy_in=2000)
    assert sat["type"] == "ok", sat
    chat = await sockets[url].request("chat", table=table["table"], text="mine now")
    assert chat["type"] == "ok", chat
    started = time.monotonic()
    answer = await rita.request("logout")
    assert answer["type"] == "ok" and answer["revoked"] == 1, answer
    took = [await revoked_within(x, started) for x in (thief, thief_c)]
    print(f"logout on a: the stolen token's sockets on b and c closed after "
          f"{', '.join(f'{t * 1000:.0f} ms' for t in took)}")
    assert max(took) < WITHIN, took
    again = await open_at(c.ws_url)
    assert (await again.request("hello", token=thief.token))["code"] == "bad_token"

    # logout all: two more sessions (logins), one on b, one on c, ended from a
    owner = await named(a.ws_url, "login", "Rita", "rita-password")
    on_b = await named(b.ws_url, "login", "Rita", "rita-password")
    on_c = await with_token(c.ws_url, on_b.token)
    started = time.monotonic()
    answer = await owner.request("logout", all=True)
    assert answer["type"] == "ok" and answer["revoked"] == 2, answer
    took = [await revoked_within(x, started) for x in (on_b, on_c)]
    print(f"logout all on a: b, c closed after {', '.join(f'{t * 1000:.0f} ms' for t in took)}")
    assert max(took) < WITHIN, took
    await chips_conserved(redis_server)


async def test_a_password_change_on_a_closes_the_other_sessions_on_b_and_c(
        room: list[Proc], redis_server: RedisProcess) -> None:
    a, b, c = room
    sam = await named(a.ws_url, "register", "Samira", "samira-password")
    stolen = await named(b.ws_url, "login", "Samira", "samira-password")
    also = await with_token(c.ws_url, stolen.token)
    started = time.monotonic()
    answer = await sam.request("change_password", old_password="samira-password",
                               new_password="samira-new-password")
    assert answer["type"] == "ok", answer
    took = [await revoked_within(x, started) for x in (stolen, also)]
    print(f"change_password on a: b, c closed after "
          f"{', '.join(f'{t * 1000:.0f} ms' for t in took)}")
    assert max(took) < WITHIN, took
    assert (await sam.request("ping"))["type"] == "pong"  # the requester stays on
    fresh = await with_token(b.ws_url, answer["token"])  # its new token works everywhere
    assert fresh.player_id == sam.player_id
    await chips_conserved(redis_server)


async def test_an_operator_freeze_ending_sessions_on_c_closes_the_sockets_on_a_and_b(
        room: list[Proc], redis_server: RedisProcess) -> None:
    a, b, c = room
    tom = await named(a.ws_url, "register", "Tomas", "tomas-password")
    thief = await with_token(b.ws_url, tom.token)
    started = time.monotonic()
    answer = await admin(c, "POST", f"/admin/accounts/{tom.player_id}/freeze",
                         {"reason": "stolen token", "end_sessions": True})
    assert answer["frozen"] is True and answer["sessions_ended"] == 1, answer
    took = [await revoked_within(x, started) for x in (tom, thief)]
    print(f"freeze with end_sessions on c: a, b closed after "
          f"{', '.join(f'{t * 1000:.0f} ms' for t in took)}")
    assert max(took) < WITHIN, took
    back = await named(b.ws_url, "login", "Tomas", "tomas-password")  # may log in, watch
    table, _ = await create_anywhere({b.ws_url: back})
    assert table["type"] == "ok", table
    assert (await back.request("sit", table=table["table"], seat=0, buy_in=2000)
            )["code"] == "account_frozen"
    await chips_conserved(redis_server)


# --------------------------------------------------------------------------------------------
# (5): a mute and a freeze hold on every process
# --------------------------------------------------------------------------------------------


async def test_a_mute_and_a_freeze_on_a_hold_on_b_and_c(
        room: list[Proc], redis_server: RedisProcess) -> None:
    a, b, c = room
    vic = await named(b.ws_url, "register", "Vicente", "vicente-password")
    on_c = await with_token(c.ws_url, vic.token)
    made, url = await create_anywhere({b.ws_url: vic, c.ws_url: on_c})
    assert made["type"] == "ok", made
    there = vic if url == b.ws_url else on_c
    table = made["table"]
    sat = await there.request("sit", table=table, seat=0, buy_in=2000)
    assert sat["type"] == "ok", sat

    heard = [p.watch(f"event=room_flag player={vic.player_id} flag=muted on=True")
             for p in (b, c)]
    started = time.monotonic()
    await admin(a, "POST", f"/admin/accounts/{vic.player_id}/mute", {"reason": "abuse"})
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*heard)
    print(f"mute on a: applied on b and c after {(time.monotonic() - started) * 1000:.0f} ms "
          "(including the admin call)")
    assert time.monotonic() - started < WITHIN
    chat = await there.request("chat", table=table, text="hello")
    assert chat["code"] == "account_muted", chat

    heard = [p.watch(f"event=room_flag player={vic.player_id} flag=frozen on=True")
             for p in (b, c)]
    started = time.monotonic()
    await admin(a, "POST", f"/admin/accounts/{vic.player_id}/freeze", {"reason": "review"})
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*heard)
    assert time.monotonic() - started < WITHIN
    for conn in (vic, on_c):  # frozen: no sit, no chat, on either process
        assert (await conn.request("chat", table=table, text="hi"))["code"] == \
            "account_frozen"
        answer = await conn.request("sit", table=table, seat=1, buy_in=2000)
        assert answer["code"] == "account_frozen", answer
    assert (await there.request("watch", table=table))["type"] == "ok"  # may still watch
    await chips_conserved(redis_server)


async def test_a_players_mute_on_one_process_holds_at_a_table_on_another(
        room: list[Proc], redis_server: RedisProcess) -> None:
    """Ann mutes Ben at a table of one process; at a table of another process Ben's chat
    does not reach her, Cal's does; the mute is stored for the room (what a process reads
    when it starts or its subscription comes back)."""
    procs = {p.ws_url: p for p in room}
    ann = {p.ws_url: await open_at(p.ws_url) for p in room}
    ben = {p.ws_url: await open_at(p.ws_url) for p in room}
    cal = {p.ws_url: await open_at(p.ws_url) for p in room}
    for who, name in ((ann, "Ann"), (ben, "Ben"), (cal, "Cal")):
        first = next(iter(who.values()))
        await first.hello(name)
        for c in list(who.values())[1:]:
            assert (await c.request("hello", token=first.token))["type"] == "ok"
            c.player_id = first.player_id
    t1, url1 = await create_anywhere(ben)
    assert t1["type"] == "ok", t1
    assert (await ben[url1].request("sit", table=t1["table"], seat=0, buy_in=2000)
            )["type"] == "ok"
    assert (await ann[url1].request("watch", table=t1["table"]))["type"] == "ok"
    t2, url2 = await create_anywhere(dict(reversed(list(cal.items()))))
    assert t2["type"] == "ok" and url2 != url1, (t2, url1, url2)  # another process
    heard = procs[url2].watch(f"event=room_mute player={ann[url1].player_id} "
                              f"target={ben[url1].player_id} on=True")
    muted = await ann[url1].request("mute", table=t1["table"], seat=0, on=True)
    assert muted["type"] == "ok" and muted["muted"] is True, muted
    await asyncio.wait_for(heard, TIMEOUT)
    table = t2["table"]
    for who, seat in ((ben, 1), (cal, 2)):
        assert (await who[url2].request("sit", table=table, seat=seat, buy_in=2000)
                )["type"] == "ok"
    assert (await ann[url2].request("watch", table=table))["type"] == "ok"
    assert (await ben[url2].request("chat", table=table, text="from ben"))["type"] == "ok"
    assert (await cal[url2].request("chat", table=table, text="from cal"))["type"] == "ok"
    seen: list[str] = []
    async with asyncio.timeout(TIMEOUT):
        while not seen or seen[-1] != "from cal":
            message = await ann[url2].event_any()
            if message["type"] == "chat" and message.get("table") == table:
                seen.append(message["text"])
    assert seen == ["from cal"], seen
    limits = RoomLimits(redis_server.url)  # stored for the room
    await limits.start()
    try:
        assert await limits.mutes() == {str(ann[url1].player_id): [str(ben[url1].player_id)]}
    finally:
        await limits.close()
    await chips_conserved(redis_server)


# --------------------------------------------------------------------------------------------
# The scripts, directly on a redis-server
# --------------------------------------------------------------------------------------------


@pytest.fixture
async def limits(redis_server: RedisProcess) -> AsyncIterator[RoomLimits]:
    room = RoomLimits(redis_server.url)
    await room.start()
    try:
        yield room
    finally:
        await room.close()


async def test_the_lockout_doubles_and_expires_in_redis(limits: RoomLimits) -> None:
    common = dict(limit=2, window=60.0, lockout=30.0, lockout_max=100.0)
    assert await limits.lock_fail("acct", "k", **common) == 0  # type: ignore[arg-type]
    assert await limits.lock_wait(("acct", "k")) == 0
    assert await limits.lock_fail("acct", "k", **common) == 30.0  # type: ignore[arg-type]
    assert 29.0 < await limits.lock_wait(("acct", "k"), ("addr", "x")) <= 30.0
    assert await limits.lock_fail("acct", "k", **common) == 60.0  # type: ignore[arg-type]
    assert await limits.lock_fail("acct", "k", **common) == 100.0  # type: ignore[arg-type]
    redis = limits.redis
    assert redis is not None
    ttl = int(await redis.call("PTTL", limits.lock_key("acct", "k")))
    assert 100_000 < ttl <= 161_000  # the lockout, then a quiet window, then forgotten
    await limits.lock_clear("acct", "k")
    assert await limits.lock_wait(("acct", "k")) == 0


async def test_the_guest_log_is_a_sliding_window_in_redis(limits: RoomLimits) -> None:
    assert [await limits.take("guests", "ip", limit=2, window=60.0) for _ in range(2)] == \
        [0, 0]
    wait = await limits.take("guests", "ip", limit=2, window=60.0)
    assert 59.0 < wait <= 60.0
    assert await limits.take("guests", "other", limit=2, window=60.0) == 0


async def test_a_tables_place_is_freed_when_it_leaves_the_directory(
        limits: RoomLimits) -> None:
    redis = limits.redis
    assert isinstance(redis, Redis)
    counts = [("acct", "p1", 2), ("addr", "1.2.3.4", 3)]
    full, nonce = await limits.reserve_table(counts)
    assert full is None and nonce
    await limits.bind_table(counts, nonce, "t1")
    await redis.call("ZADD", limits.directory_tables, 1, "t1")  # listed
    full, nonce = await limits.reserve_table(counts)
    assert full is None
    await limits.bind_table(counts, nonce, None)  # did not open: the place is given back
    full, nonce = await limits.reserve_table(counts)
    await limits.bind_table(counts, nonce, "t2")  # opened, not listed yet: counts (grace)
    assert (await limits.reserve_table(counts))[0] == "acct"
    assert (await limits.reserve_table([("addr", "1.2.3.4", 2)]))[0] == "addr"
    # t2 closed before it was listed, long ago: past the grace it no longer counts; t1,
    # listed, still does whatever its age
    for key in (limits.tables_key("acct", "p1"), limits.tables_key("addr", "1.2.3.4")):
        for member in ("t1", "t2"):
            await redis.call("ZADD", key, "XX", 1, member)  # reserved at the epoch
    full, nonce = await limits.reserve_table(counts)
    assert full is None, "t2 was pruned"
    members = await redis.call("ZRANGE", limits.tables_key("acct", "p1"), 0, -1)
    assert set(members) == {"t1", nonce}
    await redis.call("ZREM", limits.directory_tables, "t1")  # t1 closed: freed too
    await limits.bind_table(counts, nonce, "t3")
    await redis.call("ZADD", limits.directory_tables, 3, "t3")
    assert (await limits.reserve_table(counts))[0] is None
    assert PENDING_GRACE_MS > 0


async def test_a_revocation_whose_message_was_lost_is_caught_by_the_recheck(
        tmp_path: Path, redis_server: RedisProcess) -> None:
    """A session ended in the store without a message (as if published while the process's
    subscription was down): the periodic re-check (`session_recheck_interval`) closes the
    socket with `bad_token`."""
    proc = start_proc(tmp_path, "a", redis_server, "--set", "session_recheck_interval=0.5")
    try:
        c = await named(proc.ws_url, "register", "Wanda", "wanda-password")
        other = await named(proc.ws_url, "login", "Wanda", "wanda-password")
        logged = proc.watch("event=session_recheck closed=2")
        store = RedisStore(redis_server.url)
        await store.open()
        try:
            assert await store.sessions.revoke_all(str(c.player_id)) == 2  # no publish
        finally:
            await store.close()
        started = time.monotonic()
        took = [await revoked_within(x, started) for x in (c, other)]
        assert max(took) < 0.5 + WITHIN, took
        await asyncio.wait_for(logged, TIMEOUT)
    finally:
        stop_proc(proc)


async def test_the_guard_counts_in_memory_while_redis_is_unreachable() -> None:
    """A check Redis does not answer falls back to the process's own counts."""
    guard = LoginGuard(Config(login_fail_limit=2, guests_per_ip_per_minute=1),
                       room=RoomLimits(f"redis://127.0.0.1:{free_port()}/0"))  # never started
    await guard.failed("acct", "1.2.3.4")
    await guard.failed("acct", "1.2.3.4")
    with pytest.raises(ProtocolError) as info:
        await guard.check("acct", "5.6.7.8")
    assert info.value.code == "login_locked"
    await guard.succeeded("acct")
    await guard.check("acct", "5.6.7.8")
    await guard.guest("1.2.3.4")
    with pytest.raises(ProtocolError) as info:
        await guard.guest("1.2.3.4")
    assert info.value.code == "too_many_guests"


def test_session_recheck_interval_is_checked() -> None:
    assert Config(session_recheck_interval=0).session_recheck_interval == 0
    for bad in (-1.0, float("nan"), True):
        with pytest.raises(ValueError, match="session_recheck_interval"):
            Config(session_recheck_interval=bad)
