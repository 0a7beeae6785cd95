"""Redis Sentinel in the adapter (issue 26): the primary found through the sentinels, a
promotion followed after a SIGKILL, a subscription resumed on the new primary, settling
writes confirmed by WAIT; the command line refuses half a Sentinel setting.

Real processes on loopback (tests/redis_helpers.py ``SentinelGroup``: a primary, two
replicas, three sentinels, down-after 1 s). The test waits on events (the subscription's
``ready()``, replies), each bounded by a timeout; it never sleeps to wait for something."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.cli import build_parser, config_from_args
from server.config import Config
from server.redis_resp import ACK_LAG, RespConnection, RespError, online_replicas
from server.redisio import Redis, RedisScriptError, RedisUnavailable, RedisURL
from tests.redis_helpers import RedisProcess, SentinelGroup, resp

ADD = "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('INCR', KEYS[2])"


@pytest.fixture
def group(tmp_path: Path) -> Iterator[SentinelGroup]:
    g = SentinelGroup(tmp_path / "sentinel", down_after_ms=1000, failover_timeout_ms=3000)
    g.start()
    try:
        yield g
    finally:
        g.stop()


def test_sentinel_url_parsing() -> None:
    u = RedisURL.parse("redis-sentinel://10.0.0.1:26379,10.0.0.2,[::1]:5000/poker"
                       "?db=2&password=s%40cret")
    assert u.sentinels == (("10.0.0.1", 26379), ("10.0.0.2", 26379), ("::1", 5000))
    assert (u.service, u.db, u.password) == ("poker", 2, "s@cret")
    for bad in ("redis-sentinel://h:1/", "redis-sentinel://h:x/poker",
                "redis-sentinel://h:1/poker?user=x", "redis-sentinel://h:1/a/b"):
        with pytest.raises(ValueError):
            RedisURL.parse(bad)


def _config(*argv: str) -> Config:
    args = list(argv)
    return config_from_args(build_parser().parse_args(args), args)


def test_cli_sentinel_options_map_to_the_url_and_refuse_half_a_setting() -> None:
    cfg = _config("--redis-sentinel", "127.0.0.1:26379,127.0.0.2:26380",
                  "--redis-service", "poker")
    assert cfg.redis_url == "redis-sentinel://127.0.0.1:26379,127.0.0.2:26380/poker"
    assert (cfg.redis_wait_replicas, cfg.redis_wait_timeout_ms,
            cfg.redis_wait_give_up_ms) == (0, 500, 0)
    assert _config("--set", "redis_wait_give_up_ms=30000").redis_wait_give_up_ms == 30_000
    for argv in (("--redis-sentinel", "127.0.0.1:26379"), ("--redis-service", "poker"),
                 ("--redis-sentinel", "127.0.0.1:26379", "--redis-service", "poker",
                  "--redis", "redis://127.0.0.1:6379/0"),
                 ("--redis-sentinel", "127.0.0.1:nope", "--redis-service", "poker")):
        with pytest.raises(ValueError):
            _config(*argv)
    with pytest.raises(ValueError):
        Config(redis_url="redis-sentinel://127.0.0.1:26379/")
    with pytest.raises(ValueError):
        Config(redis_wait_replicas=-1)
    with pytest.raises(ValueError):
        Config(redis_wait_timeout_ms=0)
    for bad in (-1, 3_600_001, True):
        with pytest.raises(ValueError):
            Config(redis_wait_give_up_ms=bad)


async def test_a_promotion_is_followed(group: SentinelGroup) -> None:
    r = await Redis.connect(group.url)
    readies = [asyncio.Event() for _ in range(8)]
    got: asyncio.Queue[tuple[str, str]] = asyncio.Queue()

    def ready() -> None:
        next(e for e in readies if not e.is_set()).set()

    async def listen() -> None:
        async for item in r.subscribe("news", ready=ready):
            await got.put(item)

    listener = asyncio.create_task(listen())
    try:
        await asyncio.wait_for(readies[0].wait(), 10)
        add = r.script(ADD)
        old = group.primary_port()
        # a settling write: WAIT reports the replicas that have it
        reply, acked = await r.settle(add, ["k", "n"], ["before"], replicas=1, timeout_ms=5000)
        assert reply == 1 and acked >= 1
        started = time.perf_counter()
        reply, acked = await r.settle(add, ["k", "n"], ["x"], replicas=0, timeout_ms=5000)
        assert (reply, acked) == (2, 0) and time.perf_counter() - started < 1.0
        reply, acked = await r.settle(add, ["k", "n"], ["before"], replicas=2, timeout_ms=5000)
        assert (reply, acked) == (3, 2)
        assert await r.publish("news", "one") == 1
        assert await asyncio.wait_for(got.get(), 5) == ("news", "one")

        group.kill_primary()
        killed = time.perf_counter()
        with pytest.raises(RedisUnavailable):  # the command in flight on the dead primary
            await r.call("GET", "k")
        # the subscription finds the promoted replica by itself and tells it is in place
        await asyncio.wait_for(readies[1].wait(), 30)
        new = group.master_port()
        assert new != old
        # the next command reaches the new primary, with what was replicated before the kill
        assert await r.call("GET", "k") == "before"
        assert await add(keys=["k", "n"], args=["after"]) == 4
        print(f"\nkill -> first write on the promoted replica: "
              f"{time.perf_counter() - killed:.2f} s (down-after {group.down_after_ms} ms)")
        assert resp(new, "GET", "k") == "after"
        assert await r.publish("news", "two") == 1
        assert await asyncio.wait_for(got.get(), 5) == ("news", "two")
        # settling writes go to the new primary too (one replica is left)
        reply, acked = await r.settle(add, ["k", "n"], ["later"], replicas=1, timeout_ms=5000)
        assert reply == 5 and acked == 1
    finally:
        listener.cancel()
        await r.close()


async def test_no_sentinel_answers_is_unavailable(tmp_path: Path) -> None:
    group = SentinelGroup(tmp_path / "none")  # never started: nobody listens on its ports
    with pytest.raises(RedisUnavailable):
        await Redis.connect(group.url)


async def test_settle_without_sentinel(redis_server: RedisProcess) -> None:
    """A plain redis:// adapter settles too; with no replica, WAIT answers 0 at its timeout
    and, given up after that one round, the script's reply still comes back (the caller
    decides). The settling connection has never seen the script: NOSCRIPT, then EVAL,
    transparently. A script refused is not waited for."""
    r = await Redis.connect(redis_server.url)
    try:
        add = r.script(ADD)
        started = time.perf_counter()
        assert await r.settle(add, ["k", "n"], ["v"], replicas=1, timeout_ms=50,
                              give_up_ms=50) == (1, 0)
        assert time.perf_counter() - started < 2.0
        assert await r.settle(add, ["k", "n"], ["v"], replicas=1, timeout_ms=50,
                              give_up_ms=50) == (2, 0)
        assert await add(keys=["k", "n"], args=["w"]) == 3
        with pytest.raises(RedisScriptError):
            await r.settle(r.script("return redis.call('NOSUCH')"), replicas=1, timeout_ms=50,
                           give_up_ms=50)
        assert await r.settle(add, ["k", "n"], ["v"], replicas=1, timeout_ms=50,
                              give_up_ms=50) == (4, 0)
    finally:
        await r.close()


async def test_a_settling_write_waits_for_every_replica_online(group: SentinelGroup) -> None:
    """Issue 26's 70 jackpot chips: Sentinel may promote either replica (on offsets read
    seconds before the kill), so a write that ``WAIT 1`` saw on one replica of two can be lost
    with the primary. Asked for 1, a settling write waits for every replica online at the
    primary (its ``ROLE``, read with each write: 1 for the very first write, then 2), so
    whichever replica is promoted has it. Seen on the primary's ``MONITOR``."""
    r = await Redis.connect(group.url)
    monitor = await RespConnection.open("127.0.0.1", group.master_port())
    try:
        monitor.write(("MONITOR",))
        assert await asyncio.wait_for(monitor.read(), 5) == "OK"
        add = r.script(ADD)
        reply, acked = await r.settle(add, ["k", "n"], ["v"], replicas=1, timeout_ms=5000)
        assert reply == 1 and acked in (1, 2)  # (WAIT 1 answers as soon as one has it)
        assert await r.settle(add, ["k", "n"], ["v"], replicas=1, timeout_ms=5000) == (2, 2)
        waits: list[str] = []  # (the first write's WAIT twice: NOSCRIPT, then EVAL)
        while not waits or waits[-1] != ' "2" "5000"':
            line = str(await asyncio.wait_for(monitor.read(), 5))
            if '"WAIT"' in line:
                waits.append(line.split('"WAIT"')[1])
        assert set(waits[:-1]) == {' "1" "5000"'}
        primary = group.master_port()
        for server in group.servers:  # and both replicas have both writes
            if server.port != primary:
                assert resp(server.port, "GET", "n") == "2"
    finally:
        monitor.close()
        await r.close()


def test_the_replicas_counted_online_are_those_acknowledging() -> None:
    """``INFO replication`` of a primary: a replica counts once past its initial sync and
    while it acknowledges (its ``lag``, seconds since its last ACK, at most ``ACK_LAG``)."""
    head = "# Replication\r\nrole:master\r\nconnected_slaves:3\r\n"
    rows = ["slave0:ip=127.0.0.1,port=1,state=online,offset=9,lag=0",
            "slave1:ip=127.0.0.1,port=2,state=wait_bgsave,offset=0,lag=0",
            f"slave2:ip=127.0.0.1,port=3,state=online,offset=9,lag={ACK_LAG}",
            f"slave3:ip=127.0.0.1,port=4,state=online,offset=5,lag={ACK_LAG + 1}"]
    assert online_replicas(head + "\r\n".join(rows) + "\r\n", 7) == 2
    assert online_replicas(head.replace("connected_slaves:3", "connected_slaves:0"), 7) == 0
    assert online_replicas("# Replication\r\nrole:slave\r\nmaster_host:x\r\n", 7) == 7
    assert online_replicas(RespError("LOADING"), 7) == 7


async def test_a_replica_that_stopped_answering_is_not_waited_for(group: SentinelGroup) -> None:
    """A replica frozen (SIGSTOP: connected, silent) stops counting once its last ACK is
    more than ``ACK_LAG`` s old: the settling writes after that wait for the one that
    answers, not each for the whole timeout (Sentinel would not promote the frozen one)."""
    r = await Redis.connect(group.url)
    primary = group.master_port()
    frozen = next(s for s in group.servers if s.port != primary)
    assert frozen.proc is not None
    try:
        add = r.script(ADD)
        assert (await r.settle(add, ["k", "n"], ["v"], replicas=1, timeout_ms=300))[1] >= 1
        frozen.proc.send_signal(signal.SIGSTOP)
        acks = []
        for _ in range(30):  # each write waits at most 300 ms: ACK_LAG s pass within them
            acks.append((await r.settle(add, ["k", "n"], ["v"], replicas=1,
                                        timeout_ms=300))[1])
            if len(acks) >= 2 and acks[-2:] == [1, 1] and r._online == 1:
                break
        assert r._online == 1 and acks[-1] == 1, acks  # the next WAIT asks for one
    finally:
        frozen.proc.send_signal(signal.SIGCONT)
        await r.close()
