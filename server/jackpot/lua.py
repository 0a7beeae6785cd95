"""The Lua scripts of :class:`server.jackpot.redis_coord.RedisCoordinator`.

Every script gets the same ``KEYS`` (see ``KEY_NAMES``) and ``ARGV[1]`` = now in milliseconds
(``0``: the Redis server's ``TIME``), ``ARGV[2]`` = the lease in milliseconds, ``ARGV[3]`` =
the writer's fencing token (``''``: unfenced; :mod:`server.ledger.lease`), which the prelude
takes out of ``ARGV`` (so a script's own arguments still start at ``ARGV[3]``), with the key
of its node's current token as ``KEYS[14]``. Every script that writes bookings or payouts
first calls ``fenced()``: a stale token is refused with the error ``STALE_TOKEN`` and nothing
written.  Each script runs atomically on the Redis server.

``compute`` is the CSP-09 arithmetic of :mod:`server.rules.caribbean_payout` in Lua (the tests
compare both on random inputs).  Lua numbers are doubles: amounts are exact while
``pool * basis points`` stays below 2**53 (pools below 9 * 10**11 chips).
"""

from __future__ import annotations

KEY_NAMES = ("seq", "tickets", "pending", "lease", "reports", "done", "contrib", "pools",
             "totals", "history", "due", "credited", "meter")
assert len(KEY_NAMES) == 13  # the prelude's fence key is KEYS[14]

PRELUDE = r"""
local K_SEQ, K_TICKETS, K_PENDING, K_LEASE, K_REPORTS, K_DONE, K_CONTRIB, K_POOLS,
      K_TOTALS, K_HISTORY, K_DUE, K_CREDITED, CHANNEL = unpack(KEYS)
local NOW = tonumber(ARGV[1])
if NOW == 0 then
  local t = redis.call('TIME')
  NOW = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local LEASE = tonumber(ARGV[2])
local FENCE_TOKEN = table.remove(ARGV, 3) or ''
-- '1': a settling write (issue 26): the meter's message is returned, not published; the
-- caller publishes it once WAIT has confirmed a replica (no pool shown that may be lost)
local HOLD = table.remove(ARGV, 3) or ''
local HELD = ''
local FENCE_KEY = KEYS[14]
local function fenced()
  if FENCE_TOKEN ~= '' and redis.call('GET', FENCE_KEY) ~= FENCE_TOKEN then
    error({err = 'STALE_TOKEN jackpot write refused: token ' .. FENCE_TOKEN .. ' of ' ..
      FENCE_KEY .. ' is stale'})
  end
end
local BP = 10000
local MINOR = {four_of_a_kind = true, full_house = true, flush = true}

local function fmt(x) return string.format('%.0f', x) end
local function pool_get(name) return tonumber(redis.call('HGET', K_POOLS, name) or '0') end
local function pool_set(name, v) redis.call('HSET', K_POOLS, name, fmt(v)) end
local function total_add(name, v)
  if v ~= 0 then redis.call('HINCRBY', K_TOTALS, name, fmt(v)) end
end
local function hist(kind, hand, key, pool, amount, after)
  redis.call('RPUSH', K_HISTORY,
             cjson.encode({kind, hand, key, pool, fmt(amount), fmt(after), fmt(NOW)}))
end
local function publish(tbl)
  local text = fmt(pool_get('minor')) .. ' ' .. fmt(pool_get('major')) .. ' ' ..
               (redis.call('HGET', K_POOLS, 'split') or '0') .. ' ' .. tbl
  if HOLD == '1' then HELD = text else redis.call('PUBLISH', CHANNEL, text) end
end
-- a paying script's reply: its payouts as JSON, and with HOLD the meter's message held
local function reply(out)
  local text = '[]'
  if #out > 0 then text = cjson.encode(out) end
  if HOLD == '1' then return {text, HELD} end
  return text
end

-- CSP-09 (server.rules.caribbean_payout._pay): s = {split, royal_bp, sf_bp, quads, full_house,
-- flush, reset, minor_reset, max_pool, royal_min}; claims = {{key, seat, player, kind,
-- eligible_at}, ...}.  royal_min is the royal flush minimum, its own term (never the reset
-- amount); a report stored before that term existed has 9 entries and gets its default,
-- $10,000 (1,000,000 chips), as an outbox record of then decodes to in Python.
local ROYAL_MIN_DEFAULT = 1000000
local function new_pool(amount) return {amount = amount, paid = 0, short = 0} end
local function pay(p, amt)
  local taken = math.min(amt, p.amount)
  p.amount = p.amount - taken
  p.short = p.short + amt - taken
  p.paid = p.paid + amt
  return amt
end
local function seed_of(p, reset)
  if p.paid > 0 and p.amount < reset then return reset - p.amount end
  return 0
end
local function compute(claims, s, lo, hi)
  table.sort(claims, function(a, b)
    if a[5] ~= b[5] then return a[5] < b[5] end
    return a[2] < b[2]
  end)
  local fixed = {four_of_a_kind = s[4], full_house = s[5], flush = s[6]}
  local amounts = {}
  for i, c in ipairs(claims) do
    if MINOR[c[4]] then amounts[i] = pay(lo, fixed[c[4]]) end
  end
  local base = hi.amount
  for i, c in ipairs(claims) do
    if c[4] == 'straight_flush' then amounts[i] = pay(hi, math.floor(base * s[3] / BP)) end
  end
  local royals = {}
  for i, c in ipairs(claims) do
    if c[4] == 'royal_flush' then royals[#royals + 1] = i end
  end
  if #royals > 0 then
    local share = math.floor(math.floor(hi.amount * s[2] / BP) / #royals)
    local royal_min = tonumber(s[10] or ROYAL_MIN_DEFAULT)
    for _, i in ipairs(royals) do amounts[i] = pay(hi, math.max(royal_min, share)) end
  end
  return amounts
end
local function pools_of(s, minor, major)
  local hi = new_pool(major)
  if s[1] == 1 then
    local lo = new_pool(minor)
    return lo, hi, {{'minor', lo, s[8]}, {'major', hi, s[7]}}
  end
  return hi, hi, {{'major', hi, s[7]}}
end

local function pay_hand(ticket, hand, r)
  local s = r.s
  local lo, hi, closing = pools_of(s, pool_get('minor'), pool_get('major'))
  local claims = r.c
  local amounts = compute(claims, s, lo, hi)
  local out = {}
  for i, c in ipairs(claims) do
    local name, p = 'major', hi
    if s[1] == 1 and MINOR[c[4]] then name, p = 'minor', lo end
    local rec = cjson.encode({c[1], hand, c[2], c[3], r.o, r.t, c[4], fmt(amounts[i]), ticket})
    redis.call('HSET', K_DUE, c[1], rec)
    total_add('paid', amounts[i])
    hist('payout', hand, c[1], name, amounts[i], p.amount)
    out[#out + 1] = rec
  end
  for _, e in ipairs(closing) do
    local name, p, reset = e[1], e[2], e[3]
    local seed = seed_of(p, reset)
    if p.short > 0 then hist('shortfall', hand, '', name, p.short, p.amount) end
    pool_set(name, p.amount + seed)
    if seed > 0 then hist('reseed', hand, '', name, seed, p.amount + seed) end
    total_add('seeded', p.short + seed)
    total_add('house', -(p.short + seed))
  end
  return out
end

local function advance()
  local out, tbl = {}, nil
  for _ = 1, 100000 do
    local head = redis.call('ZRANGE', K_PENDING, 0, 0, 'WITHSCORES')
    if #head == 0 then break end
    local hand, ticket = head[1], tonumber(head[2])
    local raw = redis.call('HGET', K_REPORTS, hand)
    if raw then
      redis.call('HDEL', K_REPORTS, hand)
      redis.call('HSET', K_DONE, hand, ticket)
      local r = cjson.decode(raw)
      if #r.c > 0 then
        for _, rec in ipairs(pay_hand(ticket, hand, r)) do out[#out + 1] = rec end
        tbl = r.t
      end
    else
      local d = redis.call('ZSCORE', K_LEASE, hand)
      if d and tonumber(d) > NOW then break end
      redis.call('ZREM', K_LEASE, hand)
      hist('expired', hand, '', '', 0, 0)
    end
    redis.call('ZREM', K_PENDING, hand)
  end
  return out, tbl
end
local function do_register(hand)
  local t = redis.call('HGET', K_TICKETS, hand)
  if t then return tonumber(t) end
  local ticket = redis.call('INCR', K_SEQ)
  redis.call('HSET', K_TICKETS, hand, ticket)
  redis.call('ZADD', K_PENDING, ticket, hand)
  redis.call('ZADD', K_LEASE, NOW + LEASE, hand)
  return ticket
end

-- book a settled hand; true when the pools changed
local function do_report(hand, owner, tbl, s_json, contribs_json, claims_json)
  local s = cjson.decode(s_json)
  local contribs = cjson.decode(contribs_json)
  local claims = cjson.decode(claims_json)
  local changed = false
  if s[1] == 1 then redis.call('HSET', K_POOLS, 'split', '1') end
  local cap = tonumber(s[9] or 0) or 0
  -- the operator's ceiling (GEN-10), checked here, atomically: what a contribution would add
  -- above it goes to the house (an 'overflow' entry); the pool never passes it
  local function within(pool, amount)
    if cap <= 0 or pool + amount <= cap then return amount, 0 end
    local added = math.max(0, cap - pool)
    return added, amount - added
  end
  for _, c in ipairs(contribs) do -- {key, round, to_minor, to_major, to_house}
    if redis.call('HSETNX', K_CONTRIB, c[1], '1') == 1 then
      local to_minor, over_minor = within(pool_get('minor'), c[3])
      local to_major, over_major = within(pool_get('major'), c[4])
      if c[3] > 0 then
        redis.call('HSET', K_POOLS, 'split', '1')
        pool_set('minor', pool_get('minor') + to_minor)
        hist('contribution', c[2], c[1], 'minor', to_minor, pool_get('minor'))
      end
      pool_set('major', pool_get('major') + to_major)
      hist('contribution', c[2], c[1], 'major', to_major, pool_get('major'))
      if over_minor > 0 then
        hist('overflow', c[2], c[1], 'minor', over_minor, pool_get('minor'))
      end
      if over_major > 0 then
        hist('overflow', c[2], c[1], 'major', over_major, pool_get('major'))
      end
      total_add('contributed', to_minor + to_major)
      total_add('house', c[5] + over_minor + over_major)
      changed = true
    end
  end
  if redis.call('HEXISTS', K_DONE, hand) == 0 and redis.call('HEXISTS', K_REPORTS, hand) == 0
  then
    local t = redis.call('HGET', K_TICKETS, hand)
    local queued = t and redis.call('ZSCORE', K_PENDING, hand)
    if not queued and #claims == 0 then
      redis.call('HSET', K_DONE, hand, '0') -- unregistered or expired, nothing to pay: done
    elseif not queued then
      t = redis.call('INCR', K_SEQ)
      redis.call('HSET', K_TICKETS, hand, t)
      redis.call('ZADD', K_PENDING, t, hand)
      hist('late', hand, '', '', 0, 0)
    end
    if queued or #claims > 0 then
      redis.call('ZREM', K_LEASE, hand)
      redis.call('HSET', K_REPORTS, hand, cjson.encode({o = owner, t = tbl, s = s, c = claims}))
    end
  end
  return changed
end
"""

INIT = PRELUDE + r"""
-- CSP-08: open the pools at their reset amounts (ARGV[3] major, ARGV[4] minor), paid by the
-- house, exactly once however many processes race here (HSETNX); 1 for the one that did
if redis.call('HSETNX', K_POOLS, 'init', '1') == 0 then return 0 end
local seeds = {{'major', tonumber(ARGV[3])}, {'minor', tonumber(ARGV[4])}}
if seeds[2][2] > 0 then redis.call('HSET', K_POOLS, 'split', '1') end
for _, e in ipairs(seeds) do
  pool_set(e[1], e[2])
  if e[2] > 0 then
    hist('seed', '', '', e[1], e[2], e[2])
    total_add('seeded', e[2])
    total_add('house', -e[2])
  end
end
publish('')
return 1
"""

REGISTER = PRELUDE + r"""
fenced()
return do_register(ARGV[3])
"""

RENEW = PRELUDE + r"""
fenced()
for i = 3, #ARGV do
  redis.call('ZADD', K_LEASE, 'XX', NOW + LEASE, ARGV[i])
end
return 1
"""

REPORT = PRELUDE + r"""
fenced()
local changed = do_report(ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
local out, paid_at = advance()
if changed or #out > 0 then publish(paid_at or '') end
return reply(out)
"""

BATCH = PRELUDE + r"""
fenced()
-- ARGV[3..]: ops in order: 'r', hand | 'p', hand, owner, table, settings, contribs, claims
local i, changed = 3, false
while i <= #ARGV do
  if ARGV[i] == 'r' then
    do_register(ARGV[i + 1])
    i = i + 2
  else
    if do_report(ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5],
                 ARGV[i + 6]) then changed = true end
    i = i + 7
  end
end
local out, paid_at = advance()
if changed or #out > 0 then publish(paid_at or '') end
return reply(out)
"""

ADVANCE = PRELUDE + r"""
fenced()
local out, paid_at = advance()
if #out > 0 then publish(paid_at) end
return reply(out)
"""

CREDITED = PRELUDE + r"""
fenced()
if redis.call('HDEL', K_DUE, ARGV[3]) == 1 then
  redis.call('HSET', K_CREDITED, ARGV[3], fmt(NOW))
  return 1
end
return 0
"""

COMPUTE = PRELUDE + r"""
local s = cjson.decode(ARGV[3])
local claims = cjson.decode(ARGV[4])
local lo, hi, closing = pools_of(s, tonumber(ARGV[5]), tonumber(ARGV[6]))
local amounts = compute(claims, s, lo, hi)
local res = {}
for i, c in ipairs(claims) do res[#res + 1] = {c[2], fmt(amounts[i])} end
local outs = {}
for _, e in ipairs(closing) do
  local p = e[2]
  local seed = seed_of(p, e[3])
  outs[#outs + 1] = {e[1], fmt(p.paid), fmt(p.short), fmt(seed), fmt(p.amount + seed)}
end
return cjson.encode({res, outs})
"""
