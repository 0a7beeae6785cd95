r"""The directory's Redis keys and Lua scripts (docs/architecture.md, "The cluster: keys").

Rule of this module: every directory key is named here and every change to the directory is
one of these scripts, run through :mod:`server.redisio`; times are Redis's own (``TIME``), so
the processes' clocks never have to agree.

Keys (``<p>`` is the prefix, default ``dir``). Every key shares the room's hash tag ``{room}``
(one hash slot, with the ledger's leases and fencing tokens: issue 26, so that each script's
keys, and the lease and token keys a fenced script reads, are on one node of a Redis
Cluster):

* ``<p>:{room}:nodes``: sorted set, node name -> when it joined (Redis ms): the room's nodes;
  a node is live while it holds its lease (:mod:`server.ledger.lease`: the ledger's hash
  ``<ledger>:{room}:lease:<node>``, whose ``holder`` is the node's ``run``; the scripts
  that ask name it from ``ARGV``: the lease key's two ends around the node's name), the one
  lease a process keeps;
* ``<p>:{room}:node:<node>``: hash ``url`` (its public ``ws://…/ws``), ``run`` (which run of
  that node), ``draining`` (``1`` once it stopped taking new tables);
* ``<p>:{room}:tables``: sorted set, table id -> table number (the room's tables in the order
  they opened);
* ``<p>:{room}:version``: counter, bumped by every table write (a reader whose copy has this
  version skips reading the tables again);
* ``<p>:{room}:table:<table>``: hash ``node``, ``run``, ``url`` (the owner), ``number``,
  ``entry`` (its lobby entry as JSON; absent for a private table, which is never listed but
  still found by ``moved``), ``players`` (the seated players' ids, space-separated: their
  ``resume`` is sent to the owner, a spectator's is served anywhere), ``state`` (its seats
  and settings as JSON, :class:`server.table.handoff.TableState`: what a failover reopens it
  from and a live move hands over; written by :data:`STATE` alone, :mod:`server.cluster.states`:
  at the end of each hand and when the seats change between hands, so the seats, stacks and
  button a failover finds are those of the last hand's end), and while a live move is offered
  ``move_to`` (the node asked to take it; its state is ``state``, written just before);
* ``<p>:{room}:inbox:<node>``: pub/sub channel of one node for live moves (``offer <table>
  <from>`` to the taker, ``taken <table>`` back to the owner);
* ``<p>:{room}:changed``: pub/sub channel: a node's name after each of its writes (every
  process reads the directory again soon; without one, every quarter of a lease).

Fencing (issue 26): the scripts that change who owns a table or what it is reopened from
(:data:`PUT`, :data:`STATE`, :data:`TAKE`, :data:`OFFER`, :data:`ACCEPT`) take the writer's
fencing token as their last ``ARGV`` (``''``: unfenced) and, when it is given, the key of its
node's current token as their last ``KEYS``; a stale token is refused with the error
``STALE_TOKEN`` (:data:`FENCE`) before anything is written.

Failover (:data:`TAKE`): the survivor that took a lapsed node's lease (and so bumped its
token: exactly one process at a time, and every late write of the lapsed process is refused)
moves every table of that node to itself in one step and takes the node out of the room.
Live moves: the owner :data:`OFFER`\ s a table, the taker's :data:`ACCEPT` is the one atomic
change of owner, and an owner that got no answer in time :data:`CANCEL`\ s, which fails once
the table was taken: one of the two wins, never both.

Slots (issue 26): every ``KEYS`` list a script is called with hashes to the one slot of
``{room}`` (tests/storage/test_hash_slots.py checks each call site). The scripts that walk the
room's index (:data:`REGISTER`, :data:`LEAVE`, :data:`SNAPSHOT`, :data:`TAKE`,
:data:`LOCATE`) cannot name in advance the table, node and lease keys they find there: they
build them from prefixes passed in ``ARGV`` (the table prefix, the node prefix, the lease
key's two ends), each of which carries the ``{room}`` tag, so every key a script touches is
in the slot of its declared ``KEYS`` (Redis Cluster refuses a script's access to another
slot: the real-cluster test, tests/cluster/test_redis_cluster.py, runs them all).
"""

from __future__ import annotations

__all__ = ["ACCEPT", "CANCEL", "DROP", "FENCE", "LEAVE", "LOCATE", "OFFER", "PUT", "REGISTER",
           "SNAPSHOT", "STATE", "TAKE", "Keys"]


class Keys:
    """The key names for one prefix (see the module docstring)."""

    def __init__(self, prefix: str = "dir") -> None:
        self.prefix = prefix
        self.nodes = f"{prefix}:{{room}}:nodes"
        self.tables = f"{prefix}:{{room}}:tables"
        self.version = f"{prefix}:{{room}}:version"
        self.node_prefix = f"{prefix}:{{room}}:node:"
        self.table_prefix = f"{prefix}:{{room}}:table:"
        self.changed = f"{prefix}:{{room}}:changed"  # pub/sub: a process changed the directory

    def node(self, name: str) -> str:
        return f"{self.node_prefix}{name}"

    def table(self, table_id: str) -> str:
        return f"{self.table_prefix}{table_id}"

    def inbox(self, node: str) -> str:
        """A node's channel for live moves (``offer``/``taken``, server.cluster.moves)."""
        return f"{self.prefix}:{{room}}:inbox:{node}"


_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

FENCE = """
-- the writer's fencing token (server.ledger.lease): the last ARGV ('' = unfenced), checked
-- against its node's current token, the last KEYS
if ARGV[#ARGV] ~= '' and redis.call('GET', KEYS[#KEYS]) ~= ARGV[#ARGV] then
  return redis.error_reply('STALE_TOKEN directory write refused: token ' .. ARGV[#ARGV] ..
    ' of ' .. KEYS[#KEYS] .. ' is stale')
end
"""

_LIVE = """
-- whether node n holds its lease (the ledger's hash; ARGV lprefix .. n .. lsuffix) as the
-- run its node hash names
local function is_live(n, lprefix, lsuffix, nprefix)
  local run = redis.call('HGET', nprefix .. n, 'run')
  return run and redis.call('HGET', lprefix .. n .. lsuffix, 'holder') == run
end
"""

REGISTER = _NOW + """
-- KEYS: nodes, node hash, tables, version; ARGV: node, run, url, table prefix
-- (this node's liveness is its lease in the ledger's store, taken before this)
local nodes, nodekey, tables, version = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local node, run, url, tprefix = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
-- tables a previous run of this node left (tables are not restored across restarts)
local dropped = 0
for _, id in ipairs(redis.call('ZRANGE', tables, 0, -1)) do
  local key = tprefix .. id
  local owner = redis.call('HMGET', key, 'node', 'run')
  if owner[1] == false or (owner[1] == node and owner[2] ~= run) then
    redis.call('DEL', key)
    redis.call('ZREM', tables, id)
    dropped = dropped + 1
  end
end
if dropped > 0 then redis.call('INCR', version) end
redis.call('DEL', nodekey)
redis.call('HSET', nodekey, 'url', url, 'run', run, 'draining', '0')
redis.call('ZADD', nodes, now, node)
return dropped
"""

DRAIN = """
-- KEYS: node hash; ARGV: run
if redis.call('HGET', KEYS[1], 'run') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'draining', '1')
  return 1
end
return 0
"""

LEAVE = """
-- KEYS: nodes, node hash, tables, version; ARGV: node, run, table prefix
local nodes, nodekey, tables, version = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local node, run, tprefix = ARGV[1], ARGV[2], ARGV[3]
local dropped = 0
for _, id in ipairs(redis.call('ZRANGE', tables, 0, -1)) do
  local key = tprefix .. id
  local owner = redis.call('HMGET', key, 'node', 'run')
  if owner[1] == node and owner[2] == run then
    redis.call('DEL', key)
    redis.call('ZREM', tables, id)
    dropped = dropped + 1
  end
end
if dropped > 0 then redis.call('INCR', version) end
if redis.call('HGET', nodekey, 'run') == run then
  redis.call('DEL', nodekey)
  redis.call('ZREM', nodes, node)
end
return dropped
"""

PUT = FENCE + """
-- KEYS: table hash, tables, version[, fence]; ARGV: table, node, run, url, number, entry
-- ('' = none), players (seated ids), token (the table's state is STATE's alone)
-- 0 when another node (or another run of this one) owns the table: never overwrite it
local key, tables, version = KEYS[1], KEYS[2], KEYS[3]
local id, node, run, url, number, entry = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local owner = redis.call('HMGET', key, 'node', 'run')
if owner[1] and (owner[1] ~= node or owner[2] ~= run) then return 0 end
redis.call('HSET', key, 'node', node, 'run', run, 'url', url, 'number', number,
           'players', ARGV[7])
if entry == '' then
  redis.call('HDEL', key, 'entry')
else
  redis.call('HSET', key, 'entry', entry)
end
redis.call('ZADD', tables, tonumber(number), id)
redis.call('INCR', version)
return 1
"""

STATE = FENCE + """
-- KEYS: table hash[, fence]; ARGV: node, run, state, token. The table's state at the end
-- of a hand (what a failover reopens it from), by its owner only; no version bump: no
-- reader of the room's listing needs it. 0 when another node (or run) owns the table.
local owner = redis.call('HMGET', KEYS[1], 'node', 'run')
if owner[1] ~= ARGV[1] or owner[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[3])
return 1
"""

DROP = """
-- KEYS: table hash, tables, version; ARGV: table, node, run
local key, tables, version = KEYS[1], KEYS[2], KEYS[3]
local owner = redis.call('HMGET', key, 'node', 'run')
if owner[1] == ARGV[2] and owner[2] == ARGV[3] then
  redis.call('DEL', key)
  redis.call('ZREM', tables, ARGV[1])
  redis.call('INCR', version)
  return 1
end
return 0
"""

SNAPSHOT = _LIVE + """
-- KEYS: nodes, tables, version; ARGV: the version the reader has, node prefix, table prefix,
-- the lease key's two ends -> {version, {node, url, draining, ...}, tables or false, lapsed
-- nodes}; tables: {id, node, url, entry, players}...
local nodes, tables, version = KEYS[1], KEYS[2], KEYS[3]
local have, nprefix, tprefix, lprefix, lsuffix = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local live, lapsed = {}, {}
for _, node in ipairs(redis.call('ZRANGE', nodes, 0, -1)) do
  local info = redis.call('HMGET', nprefix .. node, 'url', 'draining')
  if info[1] and is_live(node, lprefix, lsuffix, nprefix) then
    table.insert(live, node)
    table.insert(live, info[1])
    table.insert(live, info[2] or '0')
  else
    table.insert(lapsed, node)
  end
end
local v = redis.call('GET', version) or '0'
if v == have then return {v, live, false, lapsed} end
local out = {}
for _, id in ipairs(redis.call('ZRANGE', tables, 0, -1)) do
  local row = redis.call('HMGET', tprefix .. id, 'node', 'url', 'entry',
                        'players')
  if row[1] then
    table.insert(out, id)
    table.insert(out, row[1])
    table.insert(out, row[2] or '')
    table.insert(out, row[3] or '')
    table.insert(out, row[4] or '')
  end
end
return {v, live, out, lapsed}
"""

TAKE = _LIVE + FENCE + """
-- A failover (server.cluster.failover), by the survivor that took the lost node's lease.
-- KEYS: nodes, tables, version[, fence]; ARGV: lost node, node, run, url, table prefix,
-- node prefix, the lease key's two ends, token -> false if the lost node is live again,
-- else {id, its run, its state, ...}: every table it owned, now owned by the caller; the
-- lost node is out of the room.
local nodes, tables, version = KEYS[1], KEYS[2], KEYS[3]
local lost, node, run, url, tprefix = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local nprefix, lprefix, lsuffix = ARGV[6], ARGV[7], ARGV[8]
if is_live(lost, lprefix, lsuffix, nprefix) then return false end
local out = {}
for _, id in ipairs(redis.call('ZRANGE', tables, 0, -1)) do
  local key = tprefix .. id
  local row = redis.call('HMGET', key, 'node', 'run', 'state')
  if row[1] == lost then
    redis.call('HSET', key, 'node', node, 'run', run, 'url', url)
    redis.call('HDEL', key, 'move', 'move_to')
    table.insert(out, id)
    table.insert(out, row[2] or '')
    table.insert(out, row[3] or '')
  end
end
redis.call('ZREM', nodes, lost)
redis.call('DEL', nprefix .. lost)
if #out > 0 then redis.call('INCR', version) end
return out
"""

OFFER = FENCE + """
-- A live move, the owner's offer (server.cluster.moves), once its state is written (STATE).
-- KEYS: table hash[, fence]; ARGV: node, run, the taker's node, token -> 1, or 0 if not the
-- owner
local owner = redis.call('HMGET', KEYS[1], 'node', 'run')
if owner[1] ~= ARGV[1] or owner[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'move_to', ARGV[3])
return 1
"""

ACCEPT = FENCE + """
-- A live move, taken (the one atomic change of owner). KEYS: table hash, version[, fence];
-- ARGV: the owner's node, node, run, url, token -> {the owner's run, the saved state}, or
-- false when the offer is not (or no longer) for this node
local row = redis.call('HMGET', KEYS[1], 'node', 'run', 'state', 'move_to')
if row[1] ~= ARGV[1] or row[4] ~= ARGV[2] or not row[3] then return false end
redis.call('HSET', KEYS[1], 'node', ARGV[2], 'run', ARGV[3], 'url', ARGV[4])
redis.call('HDEL', KEYS[1], 'move', 'move_to')
redis.call('INCR', KEYS[2])
return {row[2], row[3]}
"""

CANCEL = """
-- A live move given up by its owner (no answer in time). KEYS: table hash; ARGV: node, run
-- -> 1: still the owner, the offer withdrawn; 0: the table was taken meanwhile
local owner = redis.call('HMGET', KEYS[1], 'node', 'run')
if owner[1] ~= ARGV[1] or owner[2] ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], 'move', 'move_to')
return 1
"""

LOCATE = _LIVE + """
-- KEYS: table hash; ARGV: node prefix, the lease key's two ends -> {node, url} of a live
-- owner, or false
local row = redis.call('HMGET', KEYS[1], 'node', 'url')
if not row[1] then return false end
if not is_live(row[1], ARGV[2], ARGV[3], ARGV[1]) then return false end
return {row[1], row[2]}
"""
