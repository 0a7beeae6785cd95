"""One room, one set of limits: the per-account and per-address counts of a cluster, in Redis.

Rule of this module: in cluster mode (a Redis URL and a public URL: `server.cluster`) every
per-account and per-address limit is counted once for the whole room, in Redis, by one Lua
script per check (atomic, Redis's own clock, ``TIME``), with an expiry on every key, so that
spreading attempts over several processes gains an attacker nothing. A standalone process
keeps counting in its own memory (`server.net.loginguard`, `server.table.registry`) and never
builds a :class:`RoomLimits`.

Keys (every one tagged ``{room}``: one hash slot, like the directory's ``dir:{room}:…``):

* ``lim:{room}:lock:<kind>:<key>``: hash ``f`` (failures), ``l`` (last failure, ms), ``u``
  (locked until, ms): the login lockout of an account (``acct``) or an address (``addr``),
  the same arithmetic as `server.net.loginguard.Lockouts` (a quiet window forgives, each
  failure past the limit doubles the lockout up to its maximum); it expires a window after
  the later of its last failure and its lockout;
* ``lim:{room}:busy:acct:<key>``: the token of the one password check of that account running
  in the room (``SET NX``, expiring after :data:`CLAIM_TTL` seconds at most);
* ``lim:{room}:guests:<address>``: sorted set of the guest creations of the last
  60 seconds (a sliding log, as `GuestLimiter`); expires after the window;
* ``lim:{room}:mutes``: hash, a player's id -> the JSON list of the players they muted (the
  `mute` request; at most `Config.mute_limit` each), read by every process when it
  subscribes, kept without expiry (a mute outlives a restart);
* ``lim:{room}:tables:acct:<owner>`` / ``…:addr:<address>``: sorted set, table id (or a
  reservation's nonce while the table is being opened) -> when it was reserved (ms). A member
  counts while the table is in the directory's ``dir:{room}:tables`` or, just reserved, for
  :data:`PENDING_GRACE_MS` (it is written to the directory within that); the others are
  dropped when the set is next read, so a closed table (dropped from the directory) frees its
  place wherever it closed, and a process that died frees nothing it did not hold. A set
  expires a day after its owner last reserved (documented: docs/security.md).

The room's revocations and account flags travel on the pub/sub channel
:data:`EVENTS_CHANNEL` (`server.net.roomwide`).

A check that cannot reach Redis raises `server.redisio.RedisUnavailable`; the callers then
answer from their own memory (each process counts alone until Redis is back).
"""

from __future__ import annotations

import secrets

import orjson

from server.redisio import Redis, RedisUnavailable

__all__ = ["CLAIM_TTL", "EVENTS_CHANNEL", "PENDING_GRACE_MS", "RoomLimits", "TABLES_SET_TTL_MS"]

PREFIX = "lim:{room}:"
EVENTS_CHANNEL = "lim:{room}:events"
"""Pub/sub: revoked sessions and account flags, for every process (`server.net.roomwide`)."""

CLAIM_TTL = 30.0
"""Longest a password check holds its account's claim (seconds; it is released at once)."""

PENDING_GRACE_MS = 30_000
"""How long a table reservation counts before its table is in the directory (ms)."""

TABLES_SET_TTL_MS = 86_400_000
"""A creator's set of open tables expires this long after their last `create_table` (ms)."""

_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

LOCK_WAIT = _NOW + """
-- KEYS: lockout hashes; returns the longest wait among them (ms, 0: none)
local wait = 0
for _, key in ipairs(KEYS) do
  local u = tonumber(redis.call('HGET', key, 'u') or '0')
  if u - now > wait then wait = u - now end
end
return wait
"""

LOCK_FAIL = _NOW + """
-- KEYS: one lockout hash; ARGV: limit, window ms, lockout ms, lockout max ms
-- counts one failure; returns the lockout it now has (ms, 0: none)
local key = KEYS[1]
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local lockout, most = tonumber(ARGV[3]), tonumber(ARGV[4])
local rec = redis.call('HMGET', key, 'f', 'l', 'u')
local f, last, locked = tonumber(rec[1] or '0'), tonumber(rec[2] or '0'), tonumber(rec[3] or '0')
if now - math.max(last, locked) > window then f = 0 end
f = f + 1
local lock = 0
if f - limit >= 0 then
  lock = math.min(most, lockout * 2 ^ math.min(f - limit, 60))
  locked = now + lock
end
redis.call('HSET', key, 'f', f, 'l', now, 'u', locked)
redis.call('PEXPIRE', key, math.floor(math.max(locked, now) - now + window + 1000))
return math.floor(lock)
"""

TAKE = _NOW + """
-- KEYS: one sliding log; ARGV: limit, window ms, nonce
-- counts one event and returns 0, or returns the ms until one is allowed (nothing counted)
local key, limit, window = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZCARD', key) >= limit then
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return math.max(1, window - (now - tonumber(first[2])))
end
redis.call('ZADD', key, now, now .. ':' .. ARGV[3])
redis.call('PEXPIRE', key, window)
return 0
"""

RESERVE = _NOW + """
-- KEYS: the directory's tables, then the creator sets to count in; ARGV: grace ms, ttl ms,
-- nonce, then one limit per set. Prunes each set (a member counts while its table is in the
-- directory, or for the grace after it was reserved); returns the 1-based index of the first
-- set at its limit (nothing reserved), else 0 with the nonce added to every set.
local tables, grace, ttl, nonce = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
for i = 2, #KEYS do
  local members = redis.call('ZRANGE', KEYS[i], 0, -1, 'WITHSCORES')
  for j = 1, #members, 2 do
    local m, at = members[j], tonumber(members[j + 1])
    if at < now - grace and not redis.call('ZSCORE', tables, m) then
      redis.call('ZREM', KEYS[i], m)
    end
  end
  if redis.call('ZCARD', KEYS[i]) >= tonumber(ARGV[i + 2]) then return i - 1 end
end
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], now, nonce)
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return 0
"""

RELEASE = """
-- KEYS: a claim; ARGV: its holder's token (only the holder's claim is deleted)
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

MUTE = """
-- KEYS: the mutes hash; ARGV: muter, target, '1' (mute) or '0' (unmute)
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local out = {}
for _, t in ipairs(raw and cjson.decode(raw) or {}) do
  if t ~= ARGV[2] then table.insert(out, t) end
end
if ARGV[3] == '1' then table.insert(out, ARGV[2]) end
if #out == 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(out))
end
return #out
"""

BIND = """
-- KEYS: creator sets; ARGV: nonce, table id ('' = the table did not open: just drop it)
for _, key in ipairs(KEYS) do
  local at = redis.call('ZSCORE', key, ARGV[1])
  if at then
    redis.call('ZREM', key, ARGV[1])
    if ARGV[2] ~= '' then redis.call('ZADD', key, at, ARGV[2]) end
  end
end
return 1
"""


class RoomLimits:
    """The room's shared counters on one Redis (see the module docstring). `start` opens
    the connection; every method is one script (raises `RedisUnavailable`)."""

    def __init__(self, url: str, *, directory_tables: str = "dir:{room}:tables") -> None:
        self.url = url
        self.directory_tables = directory_tables
        self.redis: Redis | None = None

    async def start(self) -> None:
        if self.redis is None:
            self.redis = await Redis.connect(self.url)

    async def close(self) -> None:
        redis, self.redis = self.redis, None
        if redis is not None:
            await redis.close()

    def _r(self) -> Redis:
        if self.redis is None:
            raise RedisUnavailable("the room's limits are not connected")
        return self.redis

    # --- login lockouts ----------------------------------------------------------------
    @staticmethod
    def lock_key(kind: str, key: str) -> str:
        return f"{PREFIX}lock:{kind}:{key}"

    async def lock_wait(self, *keys: tuple[str, str]) -> float:
        """Seconds until every (kind, key) of `keys` may try again (0: now)."""
        ms = await self._r().script(LOCK_WAIT)(keys=[self.lock_key(k, v) for k, v in keys])
        return max(0, int(ms)) / 1000.0

    async def lock_fail(self, kind: str, key: str, *, limit: int, window: float,
                        lockout: float, lockout_max: float) -> float:
        """Count one failure of (kind, key); the lockout it now has (seconds, 0: none)."""
        ms = await self._r().script(LOCK_FAIL)(
            keys=[self.lock_key(kind, key)],
            args=[limit, int(window * 1000), int(lockout * 1000), int(lockout_max * 1000)])
        return int(ms) / 1000.0

    async def claim(self, kind: str, key: str, ttl: float) -> str | None:
        """Hold (kind, key) alone in the room for at most `ttl` seconds: the token to
        :meth:`release` it with, or None when another holds it."""
        token = secrets.token_hex(8)
        done = await self._r().call("SET", f"{PREFIX}busy:{kind}:{key}", token, "NX", "PX",
                                    int(ttl * 1000))
        return token if done else None

    async def release(self, kind: str, key: str, token: str) -> None:
        await self._r().script(RELEASE)(keys=[f"{PREFIX}busy:{kind}:{key}"], args=[token])

    async def lock_clear(self, kind: str, key: str) -> None:
        """Forget (kind, key)'s failures (a success)."""
        await self._r().call("DEL", self.lock_key(kind, key))

    # --- guests per address ------------------------------------------------------------
    async def take(self, name: str, key: str, *, limit: int, window: float) -> float:
        """Count one event of `key` in the sliding log `name` and return 0, or the seconds
        until one is allowed (nothing counted)."""
        ms = await self._r().script(TAKE)(keys=[f"{PREFIX}{name}:{key}"],
                                          args=[limit, int(window * 1000),
                                                secrets.token_hex(6)])
        return int(ms) / 1000.0

    # --- players' mutes ----------------------------------------------------------------
    async def mute(self, muter: str, target: str, on: bool) -> None:
        """Store that `muter` muted (`on`) or unmuted `target`."""
        await self._r().script(MUTE)(keys=[f"{PREFIX}mutes"],
                                     args=[muter, target, "1" if on else "0"])

    async def mutes(self) -> dict[str, list[str]]:
        """Every stored mute: muter -> the players they muted."""
        flat = await self._r().call("HGETALL", f"{PREFIX}mutes") or []
        out: dict[str, list[str]] = {}
        for muter, raw in zip(flat[::2], flat[1::2], strict=True):
            targets = orjson.loads(raw)
            if isinstance(targets, list):
                out[str(muter)] = [str(t) for t in targets]
        return out

    # --- open tables per account and per address ---------------------------------------
    @staticmethod
    def tables_key(kind: str, key: str) -> str:
        return f"{PREFIX}tables:{kind}:{key}"

    async def reserve_table(self, counts: list[tuple[str, str, int]]) -> tuple[str | None, str]:
        """Reserve one open table in each (kind, key, limit) of `counts`: (None, nonce) when
        every one had room (bind the nonce to the table's id with :meth:`bind_table`), else
        (the kind at its limit, '') with nothing reserved."""
        nonce = "r:" + secrets.token_hex(8)
        keys = [self.directory_tables, *(self.tables_key(k, v) for k, v, _ in counts)]
        full = int(await self._r().script(RESERVE)(
            keys=keys, args=[PENDING_GRACE_MS, TABLES_SET_TTL_MS, nonce,
                             *(limit for _, _, limit in counts)]))
        if full:
            return counts[full - 1][0], ""
        return None, nonce

    async def bind_table(self, counts: list[tuple[str, str, int]], nonce: str,
                         table_id: str | None) -> None:
        """The reservation `nonce` is now the table `table_id` (None: it did not open)."""
        await self._r().script(BIND)(keys=[self.tables_key(k, v) for k, v, _ in counts],
                                     args=[nonce, table_id or ""])
