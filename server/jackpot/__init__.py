"""The Caribbean Stud progressive jackpot shared by every table on every process (CSP-07..12).

- :mod:`server.jackpot.base`: the :class:`~server.jackpot.base.Coordinator` contract (register
  a hand when it becomes eligible, report it when it settles, payouts in the one global order,
  leases, durable payout records, the history).
- :mod:`server.jackpot.memory`: the in-process coordinator (the embedded default).
- :mod:`server.jackpot.redis_coord` (+ :mod:`server.jackpot.lua`): the Redis coordinator; every
  step is one atomic Lua script.
- :mod:`server.jackpot.meter`: pool changes to every connection (direct, or Redis pub/sub).
- :mod:`server.jackpot.service`: one process's client: registers and reports its tables' hands,
  renews leases, advances the queue, credits payouts through the wallet exactly once.
- ``python -m server.jackpot.history --redis URL``: the pool's history for operators (also
  ``GET /jackpot/history`` on a server).
"""
