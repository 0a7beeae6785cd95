"""Debian's nginx with deploy/nginx.conf in front of three real `poker-server` processes and a
redis-server of the test's own, all on loopback (issue 17): the lobby is the same through
every path, and a player on each process sits at one table by following `moved`. Behind
nginx one address is not everyone (issue 23): the processes trust nginx's address
(`--trusted-proxies`) and read each client's from `X-Forwarded-For`, so an attacker's login
lockout and guest flood from 127.0.0.2 leave a player on 127.0.0.3 unaffected (all of 127/8
is local: nginx's `$remote_addr` is the client socket's own address). The processes run
without test mode, as an outside attacker meets them.

The servers' and nginx's ports are free ports picked by binding port 0; every process is
killed at teardown. Skipped when nginx is not installed (`python3 dev.py test` installs it).
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from protocol import SUBPROTOCOL_JSON
from server.config import Config
from server.ledger.redis_store import RedisStore
from tests.ledger.test_crash import Server, start_server
from tests.net.conftest import Client
from tests.redis_helpers import RedisProcess, free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow]

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
NAMES = ("server-1", "server-2", "server-3")
BOUND = 0.5
"""Seconds the innocent player's round trip may grow over its idle figure under attack."""
HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [5, 10]}, "seats": 6}


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/bin/nginx") if Path(p).exists()), None)


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"nginx exited: {proc.stderr.read()!r}")  # type: ignore[union-attr]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("nginx did not listen in time")
        time.sleep(0.02)  # polling a child process's port: there is no event to wait on


def nginx_conf(tmp: Path, listen: int, ports: dict[str, int]) -> Path:
    """deploy/nginx.conf with the loopback addresses: the processes' ports for `server-N:8080`,
    nginx's own port, and the pid and temporary files under `tmp`."""
    text = (DEPLOY / "nginx.conf").read_text()
    for name, port in ports.items():
        assert f"{name}:8080" in text
        text = text.replace(f"{name}:8080", f"127.0.0.1:{port}")
    assert "listen 8080;" in text and "pid /tmp/nginx.pid;" in text
    text = text.replace("listen 8080;", f"listen 127.0.0.1:{listen};")
    text = text.replace("pid /tmp/nginx.pid;", f"pid {tmp}/nginx.pid;")
    temps = "".join(f"    {kind}_temp_path {tmp}/{kind};\n"
                    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text = text.replace("http {\n", "http {\n" + temps, 1)
    path = tmp / "nginx.conf"
    path.write_text(text)
    return path


@pytest.fixture
def cluster(tmp_path: Path, redis_server: RedisProcess) -> Iterator[tuple[int, list[Server]]]:
    binary = nginx_binary()
    if binary is None:
        pytest.skip("nginx is not installed (python3 dev.py test installs it)")
    listen = free_port()
    ports = {name: free_port() for name in NAMES}
    servers: list[Server] = []
    nginx: subprocess.Popen[bytes] | None = None
    try:
        for name in NAMES:
            servers.append(start_server(
                tmp_path / name, "--port", str(ports[name]), "--redis", redis_server.url,
                "--node", name, "--public-url", f"ws://127.0.0.1:{listen}/node/{name}/ws",
                "--set", "cluster_lobby_refresh_ms=50", "--trusted-proxies", "127.0.0.1/32",
                test_mode=False))
        conf = nginx_conf(tmp_path, listen, ports)
        nginx = subprocess.Popen([binary, "-p", str(tmp_path), "-c", str(conf), "-e", "stderr",
                                  "-g", "daemon off;"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_port(listen, nginx)
        yield listen, servers
    finally:
        if nginx is not None:
            nginx.terminate()  # SIGTERM: the master stops its workers (SIGKILL orphans them)
            try:
                nginx.wait(10)
            except subprocess.TimeoutExpired:
                nginx.kill()
                nginx.wait(10)
        for server in servers:
            server.proc.kill()
            server.proc.wait(10)


async def open_at(url: str, source: str | None = None) -> Client:
    """A client of `url`, its socket bound to the loopback address `source` if given."""
    extra: dict[str, Any] = {} if source is None else {"local_addr": (source, 0)}
    ws = await asyncio.wait_for(connect(url, subprotocols=[Subprotocol(SUBPROTOCOL_JSON)],
                                        ping_interval=None, **extra), 10)
    return Client(ws=ws, subprotocol=SUBPROTOCOL_JSON)


async def guest(url: str, name: str) -> Client:
    c = await open_at(url)
    await c.hello(name)
    return c


async def follow(c: Client, answer: dict[str, Any], kind: str, **fields: Any) -> Client:
    assert answer["type"] == "error" and answer["code"] == "moved", answer
    await c.ws.close()
    there = await open_at(answer["url"])
    ok = await there.request("hello", token=c.token)
    assert ok["type"] == "ok" and ok["player_id"] == c.player_id, ok
    done = await there.request(kind, **fields)
    assert done["type"] == "ok", done
    return there


async def test_one_room_behind_nginx(cluster: tuple[int, list[Server]]) -> None:
    listen, _ = cluster
    path = {name: f"ws://127.0.0.1:{listen}/node/{name}/ws" for name in NAMES}
    players = [await guest(path[name], f"P{i}") for i, name in enumerate(NAMES)]
    made = await players[0].request("create_table", **HOLDEM)
    assert made["type"] == "ok", made  # every process empty: it opens where it was asked
    table = made["table"]
    assert (await players[0].request("sit", table=table, seat=0, buy_in=500))["type"] == "ok"
    for seat, c in ((1, players[1]), (2, players[2])):
        moved = await c.request("sit", table=table, seat=seat, buy_in=500)
        assert moved["url"] == path["server-1"] and moved["table"] == table, moved
        players[seat] = await follow(c, moved, "sit", table=table, seat=seat, buy_in=500)
    watchers = [await open_at(path[name]) for name in NAMES]
    watchers.append(await open_at(f"ws://127.0.0.1:{listen}/ws"))  # any process
    deadline = time.monotonic() + 10
    while True:
        pages = [await w.request("tables") for w in watchers]
        lobbies = [{k: v for k, v in p.items() if k != "rid"} for p in pages]
        if all(lobby == lobbies[0] for lobby in lobbies) and lobbies[0]["total"] == 1 \
                and lobbies[0]["tables"][0]["players"] == 3:
            break
        assert time.monotonic() < deadline, lobbies
        # every process re-reads the directory each 50 ms; no event crosses the processes
        await asyncio.sleep(0.05)
    (entry,) = lobbies[0]["tables"]
    assert entry["table"] == table and entry["node"] == "server-1"
    snapshot = await players[2].event("snapshot", table=table)
    assert sorted(s["name"] for s in snapshot["seats"] if s) == ["P0", "P1", "P2"]
    for c in [*players, *watchers]:
        await c.ws.close()


async def ping_time(c: Client) -> float:
    start = time.perf_counter()
    answer = await asyncio.wait_for(c.request("ping"), 10)
    assert answer["type"] == "pong", answer
    return time.perf_counter() - start


async def test_one_address_is_not_everyone_behind_nginx(
        cluster: tuple[int, list[Server]], redis_server: RedisProcess) -> None:
    """Issue 23: 20 wrong passwords for made-up names and 10 guests from 127.0.0.2, through
    nginx, lock that address only: the right password from it is `login_locked` and its 11th
    guest `too_many_guests`, while 127.0.0.3 logs in and enters as a guest at once, its round
    trip through nginx within `BOUND` of its idle figure. The limits count per process (one
    path: server-1's) and no chip is created or lost (the store sums to 0). A POST to
    `/admin/...` through nginx is the process's 404."""
    listen, _ = cluster
    url = f"ws://127.0.0.1:{listen}/node/server-1/ws"
    attacker_ip, innocent_ip = "127.0.0.2", "127.0.0.3"
    innocent = await open_at(url, innocent_ip)
    made = await innocent.request("register", name="Innocent", password="innocent-password")
    assert made["type"] == "ok", made
    await innocent.ws.close()
    probe = await open_at(url, innocent_ip)
    assert (await probe.request("tables"))["type"] == "ok"  # (a lobby: no hello deadline)
    idle = min([await ping_time(probe) for _ in range(5)])

    async def attack() -> list[str]:
        codes = []
        for conn in range(4):  # a few connections, five guesses each (the request rate)
            c = await open_at(url, attacker_ip)
            for i in range(5):
                answer = await asyncio.wait_for(c.request(
                    "login", name=f"madeup{conn}x{i}", password=f"guess-{i}-password"), 10)
                codes.append(answer.get("code", answer["type"]))
            await c.ws.close()
        return codes

    task = asyncio.ensure_future(attack())
    during = []
    while not task.done():  # the innocent player's round trips while the guesses run
        await asyncio.sleep(0.1)  # (paced under the request rate, as a player's are)
        during.append(await ping_time(probe))
    codes = task.result()
    assert codes == ["bad_credentials"] * 20, codes
    print(f"innocent round trip through nginx idle {idle * 1000:.1f} ms, under attack max "
          f"{max(during) * 1000:.1f} ms")
    assert max(during) <= idle + BOUND, (idle, during)
    # the attacker's address is locked, even with the right password; the innocent's is not
    c = await open_at(url, attacker_ip)
    locked = await c.request("login", name="Innocent", password="innocent-password")
    assert locked["code"] == "login_locked" and locked["retry_after"] >= 1, locked
    await c.ws.close()
    c = await open_at(url, innocent_ip)
    assert (await c.request("login", name="Innocent", password="innocent-password"))[
        "type"] == "ok"
    await c.ws.close()
    # ten guests from the attacker's address, then no more from it; the innocent enters
    answers = []
    for i in range(11):
        c = await open_at(url, attacker_ip)
        answers.append(await c.request("hello", guest=f"Flood{i}"))
        await c.ws.close()
    assert [a["type"] for a in answers[:10]] == ["ok"] * 10, answers
    assert answers[10]["code"] == "too_many_guests", answers[10]
    c = await open_at(url, innocent_ip)
    assert (await c.request("hello", guest="Newcomer"))["type"] == "ok"
    await c.ws.close()
    assert max([await ping_time(probe) for _ in range(5)]) <= idle + BOUND
    await probe.ws.close()
    # a POST to an operator path through nginx: the process's 404 (it used to hang up: 502)
    for path in ("/admin/drain", "/node/server-1/ws"):
        reader, writer = await asyncio.open_connection("127.0.0.1", listen)
        writer.write(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{listen}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 15\r\n"
                     'Connection: close\r\n\r\n{"reason": "x"}'.encode())
        answer = await asyncio.wait_for(reader.read(), 10)
        writer.close()
        status = answer.split(b" ", 2)[1]
        assert status == (b"404" if path.startswith("/admin") else b"405"), answer[:200]
    store = RedisStore(redis_server.url)
    await store.open()
    try:
        balances = await store.balances()
        assert sum(balances.values()) == 0 and balances["bank"] == -12 * Config().starting_balance
    finally:
        await store.close()


async def test_a_sit_and_go_behind_nginx_tour_01(cluster: tuple[int, list[Server]]) -> None:
    """Issue 27 as deployed: a sit-and-go created through one process's path; players on the
    other two find it in their lobby's list, register (answered `moved` to its process's
    path, followed through nginx) and are seated there when it fills."""
    listen, _ = cluster
    path = {name: f"ws://127.0.0.1:{listen}/node/{name}/ws" for name in NAMES}
    host = await guest(path["server-1"], "Host")
    rid = next(host.rids)
    await host.send({"type": "create_tournament", "rid": rid, "name": "Nginx", "game": "holdem",
                     "structure": "no_limit", "kind": "sng", "buy_in": 100, "fee": 0,
                     "capacity": 2, "settings": {"seats": 2, "preset": "turbo"}})
    made = await host.answer(rid)
    assert made["type"] == "ok", made
    tid = made["tournament"]
    players = []
    for name, who in (("server-2", "Ann"), ("server-3", "Bob")):
        c = await guest(path[name], who)
        assert (await c.request("tournaments"))["type"] == "ok"
        listed = await c.event("tournaments")
        assert [t["id"] for t in listed["tournaments"]] == [tid]  # the room's list
        moved = await c.request("tournament_register", tournament=tid)
        assert moved["url"] == path["server-1"], moved
        players.append(await follow(c, moved, "tournament_register", tournament=tid))
    for c in players:
        seat = await asyncio.wait_for(c.event("tournament_seat", tournament=tid), 20)
        assert seat["why"] == "start" and seat["table"].startswith(tid)
    for c in [host, *players]:
        await c.ws.close()
