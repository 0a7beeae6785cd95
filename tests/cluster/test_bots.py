"""The load tester's bots follow `moved` in a cluster (issue 17): a new connection to its url,
`hello` with the same token, the request again; not an error. A spectator is served by the
process it asked once that process knows the table (the owner's stream is relayed)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from server.loadtest.bots import Bot, Spectator, Stats, TableTrack
from tests.cluster.test_directory import HOLDEM, Node, directory, node, settled
from tests.redis_helpers import RedisProcess

pytestmark = pytest.mark.redis
__all__ = ["node"]  # the fixture, shared with test_directory


async def test_bots_and_spectators_follow_moved(node: Node, tmp_path: Path,
                                                redis_server: RedisProcess) -> None:
    a, b = await node("a"), await node("b")
    stats = Stats()
    admin = Bot(a.ws_url, "Boss", TableTrack("", stats), seat=0, buy_in=0,
                rng=random.Random(1), think=0.0, encoding="json", stats=stats)
    await admin.open()
    await admin.hello()
    made = await admin.follow({"type": "create_table", **HOLDEM})
    assert made["type"] == "ok", made
    track = TableTrack(str(made["table"]), stats)
    bot = Bot(b.ws_url, "Bea", track, seat=1, buy_in=500, rng=random.Random(2), think=0.0,
              encoding="msgpack", stats=stats)
    watcher = Spectator(b.ws_url, track, encoding="json", stats=stats)
    try:
        await bot.open()
        player = (await bot.hello())["player_id"]
        await bot.sit()
        assert bot.url == directory(a).url and bot.player_id == player
        await settled(b)  # b's copy of the directory has the table: a spectator stays on b
        await watcher.open()
        await watcher.watch()  # (served there from the owner's stream, not `moved`)
        assert watcher.url == directory(b).url
        assert stats.moves == 1 and not stats.errors
        await bot.churn()  # comes back to where its table is
        assert bot.url == directory(a).url and stats.reconnects == 1
    finally:
        for client in (bot, watcher, admin):
            await client.close()
