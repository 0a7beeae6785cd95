"""Issue 26: every script's keys in one hash slot (so a Redis Cluster can run every script).

Redis Cluster runs a script on the node owning its ``KEYS``' slot and refuses one whose keys
are in several slots (``CROSSSLOT``), or that touches a key of another slot. Here:

- CRC16-XMODEM and the hash-tag rule, implemented from the cluster specification and checked
  against its published values;
- the key builders: every key a money or ownership script names (the ledger's, the leases',
  the fencing tokens', the jackpot's, the directory's, the room limits') is in the slot of
  ``{room}``; the prefixes the directory's scripts build keys from (walking the room's index)
  carry the same tag; the sessions' keys share ``{sess}``, the hand history's ``{hist}``;
- the call sites, at run time: every script call and every multi-key command made through
  :class:`server.redisio.Redis` while the ledger, the leases, the jackpot, the room limits,
  the hand history and two in-process cluster nodes (a table created, moved by a drain)
  work on a redis-server of the test's own is recorded, and each one's keys are in one slot.
  The real Redis Cluster test (tests/cluster/test_redis_cluster.py) runs the failover's
  ``TAKE`` and the rest on three primaries.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import server.ledger.history as history_mod
import server.redisio as redisio
from server import roomlimits
from server.cluster import keys as dir_lua
from server.cluster.keys import Keys
from server.jackpot import lua as jp_lua
from server.jackpot.base import Claim
from server.jackpot.redis_coord import RedisCoordinator
from server.ledger import redis_store
from server.ledger.history import HandRecord, RedisHistory
from server.ledger.lease import Lease
from server.ledger.redis_store import RedisStore
from server.ledger.store import Batch, Transfer, UserRecord
from server.redisio import Redis
from server.roomlimits import EVENTS_CHANNEL, PREFIX, RoomLimits
from server.rules.caribbean_payout import CaribbeanSettings, Contribution


def crc16(data: bytes) -> int:
    """CRC16-XMODEM (polynomial 0x1021, initial 0), the cluster specification's CRC."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def key_slot(key: str) -> int:
    """The hash slot of ``key``: the CRC of its hash tag (the text between the first ``{``
    and the next ``}``, when not empty), else of the whole key, modulo 16384."""
    data = key.encode()
    start = data.find(b"{")
    if start >= 0:
        end = data.find(b"}", start + 1)
        if end > start + 1:
            data = data[start + 1:end]
    return crc16(data) % 16384


ROOM = key_slot("{room}")


def test_crc16_and_the_hash_tag_rule_match_the_specification() -> None:
    assert crc16(b"123456789") == 0x31C3  # the specification's check value
    assert key_slot("foo") == 12182 and key_slot("bar") == 5061  # CLUSTER KEYSLOT answers
    assert key_slot("{user1000}.following") == key_slot("{user1000}.followers")
    assert key_slot("foo{}{bar}") == crc16(b"foo{}{bar}") % 16384  # an empty tag: whole key
    assert key_slot("foo{{bar}}zap") == crc16(b"{bar") % 16384
    assert key_slot("foo{bar}{zap}") == key_slot("bar")


def test_every_fenced_key_and_key_prefix_is_in_the_rooms_slot() -> None:
    store = RedisStore("redis://127.0.0.1:1/0")
    k = Keys()
    lease_start, lease_end = store.lease_ends()
    keys = [k.nodes, k.tables, k.version, k.node("a"), k.table("t9"), k.node_prefix + "x",
            k.table_prefix + "t1", lease_start + "a" + lease_end, store.lease_key("a"),
            *store._lease_keys("node-b"),
            *(store._k(f"{{room}}:{n}") for n in ("bal", "journal", "keys", "batch", "open",
                                                  "outbox")),
            ]
    keys += [f"jp:{{room}}:{n}" for n in jp_lua.KEY_NAMES]
    keys += [f"{PREFIX}lock:acct:x", f"{PREFIX}tables:addr:1.2.3.4", f"{PREFIX}mutes",
             RoomLimits.tables_key("acct", "p1")]
    assert {key: key_slot(key) for key in keys} == {key: ROOM for key in keys}
    sessions = store.sessions
    assert {key_slot(x) for x in (*sessions._keys, sessions._k("{sess}:psess:p1"))} == {
        key_slot("{sess}")}
    hist = RedisHistory("redis://127.0.0.1:1/0").prefix
    assert {key_slot(hist + x) for x in ("seq", "rec:1", "hand:h", "player:p:table:t")} == {
        key_slot("{hist}")}
    assert EVENTS_CHANNEL.startswith(PREFIX)


# --------------------------------------------------------------------------------------------
# At run time: every call site
# --------------------------------------------------------------------------------------------

MULTI_KEY = {"MGET", "DEL", "EXISTS", "UNLINK", "SUNION", "ZUNIONSTORE", "RENAME"}


class Recorder:
    """Every script call's keys (and every multi-key command's) made through Redis."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    def script(self, code: str, keys: Sequence[Any]) -> None:
        self.calls.append((code, [str(k) for k in keys]))

    def command(self, args: Sequence[Any]) -> None:
        if args and str(args[0]).upper() in MULTI_KEY and len(args) > 2:
            self.calls.append((str(args[0]).upper(), [str(a) for a in args[1:]]))

    def crossing(self) -> list[tuple[str, dict[str, int]]]:
        return [(what, {k: key_slot(k) for k in keys}) for what, keys in self.calls
                if len({key_slot(k) for k in keys}) > 1]


def test_the_recorder_flags_keys_of_several_slots() -> None:
    """The check below catches what the layout before issue 26 did: a ledger batch naming
    ``ledger:bal`` and its node's token ``ledger:{node:a}:token``."""
    rec = Recorder()
    rec.script("APPLY", ["ledger:bal", "ledger:{node:a}:token"])
    rec.script("APPLY", ["ledger:{room}:bal", "ledger:{room}:token:a"])
    rec.command(("MGET", "hist:{hist}:rec:1", "hist:{hist}:rec:2"))
    assert [what for what, _ in rec.crossing()] == ["APPLY"]


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    rec = Recorder()
    script_call, call, settle = redisio.Script.__call__, Redis.call, Redis.settle

    async def recorded_script(self: redisio.Script, keys: Sequence[str] = (),
                              args: Sequence[Any] = ()) -> Any:
        rec.script(self.code, keys)
        return await script_call(self, keys, args)

    async def recorded_call(self: Redis, *args: Any) -> Any:
        rec.command(args)
        return await call(self, *args)

    async def recorded_settle(self: Redis, script: redisio.Script, keys: Sequence[str] = (),
                              args: Sequence[Any] = (), **kw: Any) -> Any:
        rec.script(script.code, keys)
        return await settle(self, script, keys, args, **kw)

    monkeypatch.setattr(redisio.Script, "__call__", recorded_script)
    monkeypatch.setattr(Redis, "call", recorded_call)
    monkeypatch.setattr(Redis, "settle", recorded_settle)
    yield rec


S = CaribbeanSettings(reset_amount=10_000, royal_minimum=10_000)


def contribution(hand: str, seat: int, wager: int = 100) -> Contribution:
    minor, major, house = S.split_wager(wager)
    return Contribution(hand, seat, wager, minor + major, minor, major, house)


@pytest.mark.redis
async def test_the_stores_scripts_name_keys_of_one_slot(recorder: Recorder,
                                                       redis_server: Any) -> None:
    redis = await Redis.connect(redis_server.url, poolsize=4)
    store = RedisStore(redis)
    await store.open()
    lease = Lease(store, "a", "r1")
    await lease.claim(60.0)
    try:
        fence = lease.fence()
        assert fence is not None
        outcome = await store.apply(Batch([Transfer("house", "player:p1", 500, "buy")],
                                          key="k1", fence=fence))
        assert outcome.value == "applied"
        await store.setting("rake", "5")
        user = UserRecord("p1", "Ann", b"s", b"d", {"n": 1})
        assert await store.add_user("ann", user, ["ANN"])
        assert await store.update_user("ann", user)
        await store.sessions.put("sid1", "p1", 4e9)
        assert await store.sessions.get("sid1") is not None
        await store.sessions.revoke("sid1")
        await store.sessions.put("sid2", "p1", 10.0)
        await store.sessions.purge(100.0)
        await store.sessions.revoke_all("p1")
        await store.sessions.guest_seen("g1", 5.0)

        coord = RedisCoordinator(redis, lease=3.0)
        coord.node_lease = lease
        await coord.init(10_000, 1_000)
        await coord.register("t1.1", owner="a")
        await coord.renew(["t1.1"])
        paid = await coord.report("t1.1", owner="a", table="t1", settings=S,
                                  contributions=[contribution("t1.1", 0, 1000)],
                                  claims=[Claim("t1.1", 3, "ann", "flush", 3)])
        await coord.batch([("register", "t1.2", {"owner": "a"})])
        await coord.advance()
        for p in paid:
            await coord.credited(p.key)
        await coord.compute(S, [Claim("x", 1, "bo", "flush", 1)], 100, 1000)

        limits = RoomLimits(redis_server.url)
        limits.redis = redis
        await limits.lock_fail("acct", "ann", limit=3, window=60.0, lockout=5.0,
                               lockout_max=60.0)
        await limits.lock_wait(("acct", "ann"), ("addr", "1.2.3.4"))
        token = await limits.claim("acct", "ann", 5.0)
        assert token is not None
        await limits.release("acct", "ann", token)
        await limits.lock_clear("acct", "ann")
        await limits.take("guests", "1.2.3.4", limit=5, window=60.0)
        await limits.mute("p1", "p2", True)
        full, nonce = await limits.reserve_table([("acct", "p1", 3), ("addr", "1.2.3.4", 5)])
        assert full is None
        await limits.bind_table([("acct", "p1", 3), ("addr", "1.2.3.4", 5)], nonce, "t7")

        history = RedisHistory(redis_server.url)
        try:
            await history.save(_record())
            assert await history.get("h1") is not None
            assert (await history.hands_of("p1"))[0]
        finally:
            await history.close()
        await lease.release()
    finally:
        await redis.close()
    ran = {what for what, _ in recorder.calls}
    expected = {redis_store.APPLY, redis_store.LEASE, redis_store.RELEASE, redis_store.SETTING,
                redis_store.ADD_USER, redis_store.UPDATE_USER, redis_store.SESSION_PUT,
                redis_store.SESSION_DROP, jp_lua.INIT, jp_lua.REGISTER, jp_lua.RENEW,
                jp_lua.REPORT, jp_lua.BATCH, jp_lua.ADVANCE, jp_lua.CREDITED, jp_lua.COMPUTE,
                roomlimits.LOCK_WAIT, roomlimits.LOCK_FAIL, roomlimits.RELEASE, roomlimits.TAKE,
                roomlimits.MUTE, roomlimits.RESERVE, roomlimits.BIND, history_mod._SAVE_LUA}
    assert expected <= ran, "not run: " + " / ".join(c.strip()[:50] for c in expected - ran)
    assert recorder.crossing() == []


def _record() -> HandRecord:
    return HandRecord(hand="h1", table="t1", variant="holdem", structure="no_limit",
                      stakes={"blinds": [5, 10]}, settings={}, num_seats=6, button=0,
                      started=1.0, commitment="c0", deck_size=52,
                      players={"0": {"player": "p1", "name": "Ann", "stack": 500},
                               "1": {"player": "p2", "name": "Bob", "stack": 500}})


@pytest.mark.redis
async def test_the_directorys_scripts_name_keys_of_one_slot(
        recorder: Recorder, tmp_path: Path, redis_server: Any) -> None:
    """Two in-process cluster nodes: a table opened on ``a``, listed by both, ``a`` stopped
    (the table moves to ``b`` at once: offer and accept), ``b`` stopped (it leaves); then the
    directory's other scripts with their call sites' key lists."""
    from tests.cluster.test_directory import HOLDEM, directory, guest, settled
    from tests.net.conftest import start_live, test_config
    from tests.redis_helpers import free_port

    lives = []
    for name in ("a", "b"):
        port = free_port()
        config = test_config(tmp_path / name, port=port, redis_url=redis_server.url,
                             node=name, public_url=f"ws://127.0.0.1:{port}/ws",
                             cluster_lobby_refresh_ms=50)
        lives.append(await start_live(config))
    a, b = lives
    try:
        alice = await guest(a, "Alice")
        table = (await alice.request("create_table", **HOLDEM))["table"]
        await alice.request("sit", table=table, seat=0, buy_in=500)
        await settled(a, b)
        assert directory(b).copy.owner == {table: "a"}
        await a.close()
        await settled(b)
        assert directory(b).copy.owner == {table: "b"}
    finally:
        for live in reversed(lives):
            await live.close()
    # the failover's TAKE, a withdrawn offer's CANCEL, LOCATE and a closed table's DROP (which
    # the run above reaches or not, as its timing goes), with their call sites' key lists
    # (server/cluster/failover.py, moves.py, where.py, directory.py)
    k, ends = Keys(), RedisStore(redis_server.url).lease_ends()
    redis = await Redis.connect(redis_server.url)
    try:
        assert await redis.script(dir_lua.LOCATE)(keys=[k.table(table)],
                                                  args=[k.node_prefix, *ends]) is None
        assert await redis.script(dir_lua.CANCEL)(keys=[k.table(table)], args=["a", "r"]) == 0
        assert await redis.script(dir_lua.DROP)(keys=[k.table(table), k.tables, k.version],
                                                args=[table, "a", "r"]) == 0
        assert await redis.script(dir_lua.TAKE)(
            keys=[k.nodes, k.tables, k.version],
            args=["gone", "b", "r2", "ws://b/ws", k.table_prefix, k.node_prefix, *ends, ""]) == []
    finally:
        await redis.close()
    ran = {what for what, _ in recorder.calls}
    expected = {dir_lua.REGISTER, dir_lua.PUT, dir_lua.SNAPSHOT, dir_lua.OFFER, dir_lua.ACCEPT,
                dir_lua.LEAVE, dir_lua.DRAIN, dir_lua.DROP, dir_lua.STATE, dir_lua.TAKE,
                dir_lua.CANCEL, dir_lua.LOCATE}
    assert expected <= ran, "not run: " + " / ".join(c.strip()[:50] for c in expected - ran)
    assert recorder.crossing() == []
