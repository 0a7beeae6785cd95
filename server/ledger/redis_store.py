"""The shared ledger store: Redis (many server processes), through :mod:`server.redisio` only.

Rule of this module: every change is one Lua script run (:data:`APPLY`), so a
:class:`~server.ledger.store.Batch` is atomic on the Redis server: the idempotency check, the
overdraft check of every protected account, the balance changes, the journal rows and the
hand mark happen together or not at all, whatever other processes do at the same moment.
Durability is Redis's: run it with ``appendonly yes`` and ``appendfsync always`` (or
``everysec`` if losing the last second on a power cut is acceptable).

Keys (under ``prefix``, default ``ledger``; issue 26: every script's keys share one hash
slot, for a Redis Cluster). The money and the leases share the room's hash tag ``{room}``
(with the directory's and the jackpot's keys: a fenced write checks its node's token in the
slot it writes): ``:{room}:bal`` hash account → balance; ``:{room}:journal`` list of JSON rows
(a row's ``seq`` is its position from 1); ``:{room}:keys`` hash idempotency key → batch;
``:{room}:batch`` counter; ``:{room}:open`` hash hand → JSON mark; ``:{room}:outbox`` hash key
→ text; ``:{room}:lease:<node>`` hash ``holder``, ``token``: the node's lease (which run of a
server process it is; expires with the lease) and ``:{room}:token:<node>`` the node's fencing
token, a counter that never goes back (:mod:`server.ledger.lease`). The sessions share the
tag ``{sess}``: ``:{sess}:sess`` hash session id → ``"<player> <expires>"``,
``:{sess}:sess_exp`` sorted set of session ids by expiry, ``:{sess}:psess:<player>`` set of a
player's session ids. Single-key commands only, untagged: ``:users`` hash; ``:settings``
hash; ``:ids:<name>`` a counter that never goes back (table ids, hand numbers:
:mod:`server.ledger.ids`); ``:guests`` sorted set of guest ids by last activity; ``:audit``
list of the operator's audit records (JSON; a record's ``seq`` is its position from 1; only
ever ``RPUSH``ed).

Settling writes (issue 26): with ``wait_replicas`` > 0 (``Config.redis_wait_replicas``) every
batch that moves chips (a buy-in, a cash-out, a rebuy, a hand's result: the batch that closes
its hand mark, a jackpot payout's credit: idempotency key ``jackpot:...``; not a hand's start
mark, which moves none) goes through :meth:`~server.redisio.Redis.settle`: the script, then ``WAIT``
on one connection; :meth:`RedisStore.apply` returns only then, and the table publishes the
hand's end (``hand_ended``) only after its ledger write returned, so players see a settled
hand's end once a replica has it (or ``wait_timeout_ms`` ran out: counted in ``short`` and
logged, the write itself stands).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from server.ledger.lease import LeaseState
from server.ledger.store import NO_OVERDRAFT, Batch, Entry, HandMark, Outcome, UserRecord
from server.redisio import Redis

__all__ = ["RedisSessions", "RedisStore"]

log = logging.getLogger("server.ledger")

_CHECKED = " or ".join(f"string.sub(a, 1, {len(p)}) == '{p}'" for p in NO_OVERDRAFT)

APPLY = """
local bal, journal, keys, bseq, open, outbox = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5],
  KEYS[6]
-- the fence (server.ledger.lease): KEYS[7] the writer's node token, ARGV[1] its token
if KEYS[7] and redis.call('GET', KEYS[7]) ~= ARGV[1] then return 'stale' end
local key, has_note, note = ARGV[2], ARGV[3], ARGV[4]
local open_hand, open_data, close_hand = ARGV[5], ARGV[6], ARGV[7]
local m = tonumber(ARGV[8])
local base = 9 + 2 * m
if key ~= '' and redis.call('HEXISTS', keys, key) == 1 then return 'duplicate' end
local net, order = {}, {}
local n = (#ARGV - base + 1) / 4
for i = 0, n - 1 do
  local src, dst = ARGV[base + 4 * i], ARGV[base + 1 + 4 * i]
  local amount = tonumber(ARGV[base + 2 + 4 * i])
  if net[src] == nil then net[src] = 0; table.insert(order, src) end
  if net[dst] == nil then net[dst] = 0; table.insert(order, dst) end
  net[src] = net[src] - amount
  net[dst] = net[dst] + amount
end
for _, a in ipairs(order) do
  if net[a] < 0 and (CHECKED) then
    local have = tonumber(redis.call('HGET', bal, a) or '0')
    if have + net[a] < 0 then return 'insufficient' end
  end
end
local batch = redis.call('INCR', bseq)
if key ~= '' then redis.call('HSET', keys, key, batch) end
for _, a in ipairs(order) do
  if net[a] ~= 0 then redis.call('HINCRBY', bal, a, string.format('%d', net[a])) end
end
for i = 0, n - 1 do
  redis.call('RPUSH', journal, cjson.encode({batch, ARGV[base + 4 * i],
    ARGV[base + 1 + 4 * i], tonumber(ARGV[base + 2 + 4 * i]), ARGV[base + 3 + 4 * i]}))
end
if has_note == '1' then redis.call('RPUSH', journal, cjson.encode({batch, '', '', 0, note})) end
if open_hand ~= '' then redis.call('HSET', open, open_hand, open_data) end
if close_hand ~= '' then redis.call('HDEL', open, close_hand) end
for i = 0, m - 1 do redis.call('HSET', outbox, ARGV[9 + 2 * i], ARGV[10 + 2 * i]) end
return 'applied'
""".replace("CHECKED", _CHECKED)

LEASE = """
-- KEYS: the node's lease hash, its token counter; ARGV: holder, ms, token ('' = take it)
-- -> {holder now ('' = nobody), the node's token}
local holder = redis.call('HGET', KEYS[1], 'holder')
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[3] ~= '' then
  if tonumber(ARGV[3]) ~= current or (holder and holder ~= ARGV[1]) then
    return {holder or '', current}
  end
elseif holder and holder ~= ARGV[1] then
  return {holder, current}
elseif not holder then
  current = redis.call('INCR', KEYS[2])
end
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'token', current)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {ARGV[1], current}
"""

RELEASE = """
if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""

SETTING = """
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGET', KEYS[1], ARGV[1])
"""


ADD_USER = """
for i = 1, #ARGV - 1 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then return 0 end
end
for i = 1, #ARGV - 1 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[#ARGV]) end
return 1
"""

UPDATE_USER = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old then return 0 end
local keys = cjson.decode(old)['keys'] or {ARGV[1]}
local new = cjson.decode(ARGV[2])
new['keys'] = keys
local data = cjson.encode(new)
for _, k in ipairs(keys) do redis.call('HSET', KEYS[1], k, data) end
return 1
"""

SESSION_PUT = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old and string.sub(old, 1, #ARGV[2] + 1) ~= ARGV[2] .. ' ' then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
return 1
"""

SESSION_DROP = """
local n = 0
local function drop(sid)
  local v = redis.call('HGET', KEYS[1], sid)
  if v then
    local pid = string.match(v, '^(%S+)')
    redis.call('HDEL', KEYS[1], sid)
    redis.call('SREM', ARGV[1] .. pid, sid)
    n = n + 1
  end
  redis.call('ZREM', KEYS[2], sid)
end
if ARGV[2] == 'sid' then
  drop(ARGV[3])
elseif ARGV[2] == 'player' then
  for _, sid in ipairs(redis.call('SMEMBERS', ARGV[1] .. ARGV[3])) do drop(sid) end
  redis.call('DEL', ARGV[1] .. ARGV[3])
else
  for _, sid in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3],
                                  'LIMIT', 0, tonumber(ARGV[4]))) do drop(sid) end
end
return n
"""


class RedisSessions:
    """The sessions role (:class:`~server.ledger.store.SessionStore`) on the store's
    connection: ``:sess``, ``:sess_exp``, ``:psess:<player>`` and ``:guests`` (module
    docstring).  :meth:`RedisStore.open` binds it to the connection."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._redis: Redis | None = None
        self._keys = [self._k("{sess}:sess"), self._k("{sess}:sess_exp")]

    @property
    def redis(self) -> Redis:
        assert self._redis is not None, "RedisStore.open() first"
        return self._redis

    def bind(self, redis: Redis | None) -> None:
        """Use ``redis`` (None: the store closed) and register the role's scripts there."""
        self._redis = redis
        if redis is not None:
            self._session_put = redis.script(SESSION_PUT)
            self._session_drop = redis.script(SESSION_DROP)

    def _k(self, name: str) -> str:
        return f"{self.prefix}:{name}"

    async def put(self, sid: str, player_id: str, expires: float) -> None:
        await self._session_put(keys=[*self._keys, self._k("{sess}:psess:") + player_id],
                                args=[sid, player_id, repr(float(expires))])

    async def get(self, sid: str) -> tuple[str, float] | None:
        value = await self.redis.call("HGET", self._k("{sess}:sess"), sid)
        if not value:
            return None
        player_id, _, expires = str(value).partition(" ")
        return player_id, float(expires)

    async def revoke(self, sid: str) -> None:
        await self._session_drop(keys=self._keys,
                                 args=[self._k("{sess}:psess:"), "sid", sid])

    async def revoke_all(self, player_id: str) -> int:
        return int(await self._session_drop(keys=self._keys,
                                            args=[self._k("{sess}:psess:"), "player", player_id]))

    async def purge(self, now: float, limit: int = 1000) -> int:
        return int(await self._session_drop(keys=self._keys,
                                            args=[self._k("{sess}:psess:"), "expired",
                                                  repr(float(now)), limit]))

    async def guest_seen(self, player_id: str, when: float) -> None:
        await self.redis.call("ZADD", self._k("guests"), "GT", repr(float(when)), player_id)

    async def idle_guests(self, before: float, limit: int) -> list[str]:
        rows = await self.redis.call("ZRANGEBYSCORE", self._k("guests"), "-inf",
                                     f"({float(before)!r}", "LIMIT", 0, limit)
        return [str(r) for r in rows or []]

    async def guest_forget(self, player_id: str) -> None:
        await self.redis.call("ZREM", self._k("guests"), player_id)


class RedisStore:
    """See the module docstring. ``RedisStore(redis)`` on a connected :class:`Redis` (the
    caller closes it), or ``RedisStore("redis://...")``: ``open`` connects, ``close``
    disconnects."""

    def __init__(self, redis: Redis | str, *, prefix: str = "ledger", wait_replicas: int = 0,
                 wait_timeout_ms: int = 500, wait_give_up_ms: int = 0) -> None:
        self.wait_replicas, self.wait_timeout_ms = wait_replicas, wait_timeout_ms
        self.wait_give_up_ms = wait_give_up_ms  # (0: a settling write waits for its replica)
        self.settled = self.short = 0  # settling writes, and those fewer replicas acknowledged
        self._url = redis if isinstance(redis, str) else None
        self._redis = None if isinstance(redis, str) else redis
        self.prefix = prefix
        self.sessions = RedisSessions(prefix)

    @property
    def redis(self) -> Redis:
        assert self._redis is not None, "RedisStore.open() first"
        return self._redis

    def _k(self, name: str) -> str:
        return f"{self.prefix}:{name}"

    async def open(self) -> None:
        if self._redis is None:
            assert self._url is not None
            self._redis = await Redis.connect(self._url, poolsize=8)
        self._apply = self.redis.script(APPLY)
        self._setting = self.redis.script(SETTING)
        self._lease = self.redis.script(LEASE)
        self._release = self.redis.script(RELEASE)
        self._add_user = self.redis.script(ADD_USER)
        self._update_user = self.redis.script(UPDATE_USER)
        self.sessions.bind(self.redis)
        await self.redis.call("PING")

    async def close(self) -> None:
        """Disconnect if this store opened the connection (else its owner closes it)."""
        if self._url is not None and self._redis is not None:
            await self._redis.close()
            self._redis = None
            self.sessions.bind(None)

    async def apply(self, batch: Batch) -> Outcome:
        batch.validate()
        fence = batch.fence
        args: list[Any] = ["" if fence is None else fence.token, batch.key or "",
                           "1" if batch.note is not None else "0", batch.note or ""]
        mark = batch.open_hand
        if mark is not None:
            args += [mark.hand, json.dumps({"table": mark.table, "stacks": mark.stacks})]
        else:
            args += ["", ""]
        args.append(batch.close_hand or "")
        args.append(len(batch.outbox))
        for k, v in batch.outbox:
            args += [k, v]
        for t in batch.transfers:
            args += [t.src, t.dst, t.amount, t.reason]
        keys = [self._k(f"{{room}}:{name}") for name in
                ("bal", "journal", "keys", "batch", "open", "outbox")]
        if fence is not None:
            keys.append(fence.key)
        if self.wait_replicas > 0 and (batch.transfers or batch.close_hand is not None
                                       or (batch.key or "").startswith("jackpot:")):
            reply, acked = await self.redis.settle(self._apply, keys, args,
                                                   replicas=self.wait_replicas,
                                                   timeout_ms=self.wait_timeout_ms,
                                                   give_up_ms=self.wait_give_up_ms)
            self.settled += 1
            if acked < self.wait_replicas:
                self.short += 1
                log.warning("event=settle_short batch=%s replicas=%d of=%d",
                            batch.key, acked, self.wait_replicas)
            return Outcome(reply)
        reply = await self._apply(keys=keys, args=args)
        return Outcome(reply)

    async def balance(self, account: str) -> int:
        value = await self.redis.call("HGET", self._k("{room}:bal"), account)
        return int(value) if value else 0

    async def balances(self, prefix: str = "") -> dict[str, int]:
        flat = await self.redis.call("HGETALL", self._k("{room}:bal"))
        pairs = zip(flat[::2], flat[1::2], strict=True)
        return {str(a): int(b) for a, b in pairs if str(a).startswith(prefix)}

    async def journal(self, since: int = 0, limit: int = 1000) -> list[Entry]:
        rows = await self.redis.call("LRANGE", self._k("{room}:journal"), since, since + limit - 1)
        out = []
        for i, row in enumerate(rows or []):
            batch, src, dst, amount, reason = json.loads(row)
            out.append(Entry(since + i + 1, int(batch), src, dst, int(amount), reason))
        return out

    async def open_hands(self) -> list[HandMark]:
        flat = await self.redis.call("HGETALL", self._k("{room}:open"))
        marks = []
        for hand, data in zip(flat[::2], flat[1::2], strict=True):
            d = json.loads(data)
            marks.append(HandMark(str(hand), d["table"], {k: int(v) for k, v in
                                                          d["stacks"].items()}))
        return sorted(marks, key=lambda m: m.hand)

    async def outbox_put(self, key: str, value: str) -> None:
        if not 0 < len(key) <= 200:
            raise ValueError("outbox key must be 1..200 characters")
        await self.redis.call("HSET", self._k("{room}:outbox"), key, value)

    async def outbox_list(self, prefix: str = "") -> list[tuple[str, str]]:
        flat = await self.redis.call("HGETALL", self._k("{room}:outbox"))
        pairs = zip(flat[::2], flat[1::2], strict=True)
        return sorted((str(k), str(v)) for k, v in pairs if str(k).startswith(prefix))

    async def outbox_delete(self, key: str) -> None:
        await self.redis.call("HDEL", self._k("{room}:outbox"), key)

    async def setting(self, name: str, default: str) -> str:
        return str(await self._setting(keys=[self._k("settings")], args=[name, default]))

    async def reserve_ids(self, name: str, count: int) -> int:
        """``INCRBY`` of ``:ids:<name>``: atomic for every process sharing the Redis."""
        if type(count) is not int or count < 1:
            raise ValueError(f"count must be a positive int, got {count!r}")
        return int(await self.redis.call("INCRBY", self._k(f"ids:{name}"), count))

    async def add_user(self, key: str, user: UserRecord, aliases: Sequence[str] = ()) -> bool:
        keys = list(dict.fromkeys([key, *aliases]))
        data = json.dumps({"player_id": user.player_id, "name": user.name,
                           "salt": user.salt.hex(), "digest": user.digest.hex(),
                           "params": user.params, "keys": keys})
        return int(await self._add_user(keys=[self._k("users")], args=[*keys, data])) == 1

    async def update_user(self, key: str, user: UserRecord) -> bool:
        data = json.dumps({"player_id": user.player_id, "name": user.name,
                           "salt": user.salt.hex(), "digest": user.digest.hex(),
                           "params": user.params})
        return int(await self._update_user(keys=[self._k("users")], args=[key, data])) == 1

    def _lease_keys(self, node: str) -> list[str]:
        return [self._k(f"{{room}}:lease:{node}"), self._k(f"{{room}}:token:{node}")]

    def lease_key(self, node: str) -> str:
        return self._lease_keys(node)[1]

    def lease_ends(self) -> tuple[str, str]:
        """A node's lease hash is ``ends[0] + node + ends[1]`` (the cluster's directory
        reads a node's liveness there)."""
        return self._k("{room}:lease:"), ""

    async def acquire_lease(self, node: str, holder: str, seconds: float,
                            token: int | None = None) -> LeaseState:
        millis = max(1, int(seconds * 1000))
        keys, args = self._lease_keys(node), [holder, millis, "" if token is None else token]
        if token is None and self.wait_replicas > 0:  # an acquisition INCRs the node's token:
            # settled, so a failover cannot hand the same token out twice (issue 26)
            (now, current), acked = await self.redis.settle(
                self._lease, keys, args, replicas=self.wait_replicas,
                timeout_ms=self.wait_timeout_ms, give_up_ms=self.wait_give_up_ms)
            self.settled += 1
            if acked < self.wait_replicas:
                self.short += 1
                log.warning("event=settle_short lease=%s replicas=%d of=%d", node, acked,
                            self.wait_replicas)
        else:
            now, current = await self._lease(keys=keys, args=args)
        return LeaseState(str(now), int(current))

    async def release_lease(self, node: str, holder: str) -> None:
        await self._release(keys=self._lease_keys(node)[:1], args=[holder])

    async def user(self, key: str) -> UserRecord | None:
        data = await self.redis.call("HGET", self._k("users"), key)
        if not data:
            return None
        d = json.loads(data)
        return UserRecord(d["player_id"], d["name"], bytes.fromhex(d["salt"]),
                          bytes.fromhex(d["digest"]), d["params"])

    # ------------------------------------------------------------------ the audit log
    async def audit_append(self, record: str) -> int:
        """``RPUSH``: the new length is the record's seq (atomic for every process)."""
        return int(await self.redis.call("RPUSH", self._k("audit"), record))

    async def audit_list(self, since: int = 0, limit: int = 100) -> list[tuple[int, str]]:
        if limit <= 0:
            return []
        rows = await self.redis.call("LRANGE", self._k("audit"), since, since + limit - 1)
        return [(since + i + 1, str(row)) for i, row in enumerate(rows or [])]

    async def audit_count(self) -> int:
        return int(await self.redis.call("LLEN", self._k("audit")))
