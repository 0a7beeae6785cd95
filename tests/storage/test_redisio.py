"""The Redis adapter: commands, atomic scripts, NOSCRIPT after a restart, pub/sub."""

from __future__ import annotations

import asyncio

import pytest

from server.redisio import Redis, RedisScriptError, RedisUnavailable, RedisURL
from tests.redis_helpers import RedisProcess, free_port


def test_url_parsing() -> None:
    assert RedisURL.parse("redis://h:7000/2") == RedisURL("h", 7000, 2, None)
    assert RedisURL.parse("redis://:pw@127.0.0.1") == RedisURL("127.0.0.1", 6379, 0, "pw")
    with pytest.raises(ValueError):
        RedisURL.parse("http://x")


async def test_commands_and_scripts(redis_server: RedisProcess) -> None:
    r = await Redis.connect(redis_server.url)
    try:
        assert await r.call("SET", "a", "1") == "OK"
        assert await r.call("INCRBY", "a", 41) == 42
        assert await r.call("GET", "missing") is None
        await r.call("RPUSH", "l", "x", "y")
        assert await r.call("LRANGE", "l", 0, -1) == ["x", "y"]
        add = r.script("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        assert await add(keys=["n"], args=[5]) == 5
        with pytest.raises(RedisScriptError):
            await r.call("NOSUCHCOMMAND")
    finally:
        await r.close()


async def test_scripts_survive_a_restart_and_data_persists(redis_server: RedisProcess) -> None:
    r = await Redis.connect(redis_server.url)
    try:
        add = r.script("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        assert await add(keys=["n"], args=[2]) == 2
        redis_server.restart()  # same port, same append-only file
        for _ in range(50):  # the pool reconnects by itself; a command may see it down once
            try:
                assert await add(keys=["n"], args=[3]) == 5  # NOSCRIPT handled, data kept
                break
            except RedisUnavailable:
                await asyncio.sleep(0.05)
        else:
            raise AssertionError("no reconnect")
    finally:
        await r.close()


async def test_publish_subscribe(redis_server: RedisProcess) -> None:
    r = await Redis.connect(redis_server.url)
    got: asyncio.Queue[tuple[str, str]] = asyncio.Queue()

    async def listen() -> None:
        async for item in r.subscribe("meter"):
            await got.put(item)

    task = asyncio.create_task(listen())
    try:
        for _ in range(100):  # until the subscription is live (publish reports receivers)
            if await r.publish("meter", "1000") > 0:
                break
            await asyncio.sleep(0.02)
        assert await asyncio.wait_for(got.get(), 5) == ("meter", "1000")
    finally:
        task.cancel()
        await r.close()


async def test_connect_to_nobody_is_unavailable() -> None:
    with pytest.raises(RedisUnavailable):
        await Redis.connect(f"redis://127.0.0.1:{free_port()}/0")
