"""Tournaments across the room's processes (issue 27): one owner each, found from anywhere,
listed everywhere, taken over with their process.

Rule of this module: a tournament (its director and its tables) lives on one process, its
owner, and its state and log live in Redis, written by that owner alone after every decision
(fenced by the owner's lease token, issue 26: a process cut off past its lease writes nothing
more). Every process answers for every tournament: the lobby's list is the room's (each
owner's summary, read at most once a ``cache`` seconds), and a request for a tournament owned
elsewhere is answered ``moved`` with its owner's URL (the client follows it, as for a table).
When a process is lost, the survivor that takes it over (:mod:`server.cluster.failover`, which
first voided its running hands and returned its tournament tables' chips to the tournaments'
own accounts) claims its tournaments in one script and restores each (TOUR-15: the hands
running are voided, the clock, the level, every stack and place survive); a process that
restarts before anyone took it over claims its own the same way. A draining process hands
each of its tournaments over between hands to another live process that is not draining, the
first by name (:meth:`RoomTournaments.taker`, :meth:`RoomTournaments.hand_over`).

Keys (prefix ``tour``, the room's hash tag ``{room}``, so one script reaches them all and the
lease token key with them):

* ``tour:{room}:index``: hash, tournament id -> owner node;
* ``tour:{room}:t:<tid>``: hash ``node``, ``run``, ``state`` (the director's snapshot,
  :func:`server.tournament.saved.snapshot`);
* ``tour:{room}:log:<tid>``: list, the tournament's log records (docs/rules.md 5.1), appended;
* ``tour:{room}:summaries``: hash, tournament id -> its lobby summary as JSON (with, for a
  private one, who may see it: ``_who`` and ``_invite``, never sent);
* ``tour:{room}:inbox:<node>``: pub/sub channel, a tournament id handed over to that node;
* ``tour:{room}:seq``: the room's last tournament number (``T<n>-...``, "Tournament <n>").
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from server.cluster import keys as lua
from server.cluster.ports import Me, NodeInfo
from server.redisio import Redis, RedisScriptError, RedisUnavailable

__all__ = ["CLAIM", "SAVE", "RoomTournaments", "TourKeys"]

log = logging.getLogger("server.cluster")


class TourKeys:
    """The key names (see the module docstring)."""

    def __init__(self, prefix: str = "tour") -> None:
        self.prefix = prefix
        self.index = f"{prefix}:{{room}}:index"
        self.summaries = f"{prefix}:{{room}}:summaries"
        self.state_prefix = f"{prefix}:{{room}}:t:"
        self.log_prefix = f"{prefix}:{{room}}:log:"
        self.seq = f"{prefix}:{{room}}:seq"

    def state(self, tid: str) -> str:
        return self.state_prefix + tid

    def log(self, tid: str) -> str:
        return self.log_prefix + tid

    def inbox(self, node: str) -> str:
        """Pub/sub: a tournament id handed over to ``node``."""
        return f"{self.prefix}:{{room}}:inbox:{node}"


SAVE = lua.FENCE + """
-- A tournament's owner saves it after a decision. KEYS: index, state hash, log, summaries
-- [, fence]; ARGV: tid, node, run, state, summary, records already logged before these,
-- record..., token -> 1, or 0 when another node owns it now (taken over)
local tid, node = ARGV[1], ARGV[2]
local owner = redis.call('HGET', KEYS[1], tid)
if owner and owner ~= node then return 0 end
redis.call('HSET', KEYS[1], tid, node)
redis.call('HSET', KEYS[2], 'node', node, 'run', ARGV[3], 'state', ARGV[4])
redis.call('HSET', KEYS[4], tid, ARGV[5])
local have, from = redis.call('LLEN', KEYS[3]), tonumber(ARGV[6])
for i = 7, #ARGV - 1 do
  if from + (i - 7) >= have then redis.call('RPUSH', KEYS[3], ARGV[i]) end
end
return 1
"""

CLAIM = lua.FENCE + """
-- Take the tournaments of a lost node (or this node's own after a restart, or one handed
-- over). KEYS: index[, fence]; ARGV: lost node, node, run, state prefix, one tournament id
-- ('' = all), token -> {tid, state, ...}
local lost, node, run, sprefix, only = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local out = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if all[i + 1] == lost and (only == '' or only == all[i]) then
    local key = sprefix .. all[i]
    redis.call('HSET', KEYS[1], all[i], node)
    redis.call('HSET', key, 'node', node, 'run', run)
    table.insert(out, all[i])
    table.insert(out, redis.call('HGET', key, 'state') or '')
  end
end
return out
"""

HAND_OVER = lua.FENCE + """
-- A draining owner gives a tournament (saved between hands, no table open) to another node.
-- KEYS: index, state hash[, fence]; ARGV: tid, node, taker, token -> 1, or 0 if not the owner
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], 'node', ARGV[3])
return 1
"""


class RoomTournaments:
    """This process's side of the room's tournaments (see the module docstring).

    ``redis()``: the directory's adapter; ``fenced(code, keys, args)``: a fenced script run
    with this process's token; ``nodes()``: the live processes (the directory's copy);
    ``publish(node, message)``: a word to another process's inbox; ``wait``: how long a
    request for a tournament whose owner is gone waits for its new owner."""

    def __init__(self, me: Me, redis: Callable[[], Redis | None],
                 fenced: Callable[[str, list[str], list[Any]], Awaitable[Any]],
                 nodes: Callable[[], dict[str, NodeInfo]], *, wait: float,
                 cache: float = 1.0, poll: float = 0.25,
                 clock: Callable[[], float] | None = None) -> None:
        self.me = me
        self.keys = TourKeys()
        self._redis = redis
        self._fenced = fenced
        self._nodes = nodes
        self.wait = wait
        self.cache = cache
        self._poll = poll
        self._clock = clock
        self._logged: dict[str, int] = {}  # tournament -> records written to its log
        self._listing: tuple[float, list[dict[str, Any]]] | None = None
        self.saves = 0  # (tests: saves written)

    def _now(self) -> float:
        return self._clock() if self._clock is not None else \
            asyncio.get_running_loop().time()

    # ------------------------------------------------------------------ the owner's writes
    async def save(self, tid: str, state: dict[str, Any], summary: dict[str, Any],
                   records: list[dict[str, Any]]) -> bool:
        """After a decision: the state, the summary and the log's new records (those past
        what was written before). False: another process owns it now (taken over: this one
        must stop), or Redis did not take it (logged; the next save carries it all)."""
        k = self.keys
        done = self._logged.get(tid, 0)
        new = [json.dumps(r, separators=(",", ":")) for r in records[done:]]
        try:
            ok = await self._fenced(
                SAVE, [k.index, k.state(tid), k.log(tid), k.summaries],
                [tid, self.me.node, self.me.run, json.dumps(state, separators=(",", ":")),
                 json.dumps(summary, separators=(",", ":")), done, *new])
        except (RedisUnavailable, RedisScriptError) as exc:
            log.warning("event=tournament_save_failed tournament=%s error=%r", tid, exc)
            return True  # (not lost: written at the next decision)
        if not ok:
            log.error("event=tournament_not_owned tournament=%s node=%s", tid, self.me.node)
            return False
        self._logged[tid] = len(records)
        self.saves += 1
        return True

    async def claim(self, lost: str, only: str = ""
                    ) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Every tournament ``lost`` owned (``only``: that one), now this process's: its
        state and log."""
        k = self.keys
        rows = await self._fenced(CLAIM, [k.index],
                                  [lost, self.me.node, self.me.run, k.state_prefix, only])
        redis = self._redis()
        assert redis is not None
        out = []
        for i in range(0, len(rows or []) - 1, 2):
            tid, text = str(rows[i]), rows[i + 1]
            if not text:
                continue
            lines = await redis.call("LRANGE", k.log(tid), 0, -1)
            records = [json.loads(x) for x in lines or []]
            self._logged[tid] = len(records)
            out.append((json.loads(text), records))
        if out:
            log.warning("event=tournaments_claimed lost=%s by=%s count=%d", lost,
                        self.me.node, len(out))
        return out

    async def hand_over(self, tid: str, taker: str) -> bool:
        """A draining owner gives ``tid`` (saved, its tables closed) to ``taker``, and tells
        it (its inbox: :meth:`listen`)."""
        k = self.keys
        ok = await self._fenced(HAND_OVER, [k.index, k.state(tid)],
                                [tid, self.me.node, taker])
        if ok:
            self._logged.pop(tid, None)
            redis = self._redis()
            assert redis is not None
            await redis.call("PUBLISH", k.inbox(taker), tid)
            log.info("event=tournament_handed_over tournament=%s to=%s", tid, taker)
        return bool(ok)

    def listen(self, bus: Any, take: Callable[[str, str], Awaitable[int]]) -> None:
        """This process's inbox on ``bus`` (the process's one subscriptions task): a
        tournament handed over here is taken, ``take(this node, tid)``, in a task."""
        tasks: set[asyncio.Future[int]] = set()

        def got(_channel: str, tid: str) -> None:
            task = asyncio.ensure_future(take(self.me.node, tid))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        bus.on(self.keys.inbox(self.me.node), got)

    def taker(self) -> str | None:
        """The live process (not draining, not this one) a drain hands tournaments to."""
        names = sorted(n for n, info in self._nodes().items()
                       if n != self.me.node and not info.draining)
        return names[0] if names else None

    # ------------------------------------------------------------------ anyone's reads
    async def locate(self, tid: str, here: Callable[[str], bool] = lambda tid: True
                     ) -> str | None:
        """The URL of the live process other than this one that owns ``tid``; None when it
        is nobody's (unknown) or this one's. An owner that is not live (its takeover is
        under way), or this one while ``here(tid)`` says it is not restored yet (claimed a
        moment ago), is asked again every ``poll`` seconds for up to ``wait``."""
        redis = self._redis()
        if redis is None:
            return None
        deadline = self._now() + self.wait
        while True:
            try:
                node = await redis.call("HGET", self.keys.index, tid)
            except (RedisUnavailable, RedisScriptError):
                node = ""  # Redis failing over: ask again
            if node is None or (node == self.me.node and here(tid)):
                return None
            if node == self.me.node:  # (being restored here)
                node = ""
            info = self._nodes().get(str(node)) if node else None
            if info is not None:
                return info.url
            if self._now() >= deadline:
                return None
            await asyncio.sleep(self._poll)  # (bounded: wait)

    async def log_of(self, tid: str) -> list[dict[str, Any]] | None:
        """The log of ``tid`` as its owner saved it (None: the room has no such tournament)."""
        redis = self._redis()
        if redis is None or await redis.call("HGET", self.keys.index, tid) is None:
            return None
        return [json.loads(x) for x in await redis.call("LRANGE", self.keys.log(tid), 0, -1)
                or []]

    async def number(self) -> int | None:
        """The room's next tournament number (None when Redis is away: the process's own)."""
        redis = self._redis()
        try:
            return None if redis is None else int(await redis.call("INCR", self.keys.seq))
        except (RedisUnavailable, RedisScriptError):
            return None

    async def listing(self) -> list[dict[str, Any]]:
        """Every tournament's summary in the room (cached ``cache`` seconds)."""
        now = self._now()
        if self._listing is not None and now - self._listing[0] < self.cache:
            return self._listing[1]
        redis = self._redis()
        rows: list[dict[str, Any]] = []
        if redis is not None:
            try:
                flat = await redis.call("HGETALL", self.keys.summaries) or []
            except (RedisUnavailable, RedisScriptError):
                flat = []
            for i in range(0, len(flat) - 1, 2):
                try:
                    rows.append(json.loads(flat[i + 1]))
                except ValueError:
                    continue
        self._listing = (now, rows)
        return rows
