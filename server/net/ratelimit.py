"""Token buckets for per-connection rate limits, and the flood guard that cuts abusers.

Rule of this module: no clock is read except the one injected (`clock`, default
`time.monotonic`), so every limit can be tested without sleeping.

`TokenBucket(rate=r, burst=b)` (:mod:`server.ratelimit`, re-exported here) allows `b`
requests at once and `r` per second sustained; `take()` answers whether one more is allowed
now. `FloodGuard(limit=n, window=w)` counts refusals; `strike()` answers True once more than
`n` refusals fell within the last `w` seconds, and the caller then closes the connection
with code 1008 (policy violation).
"""

from __future__ import annotations

import time
from collections import deque

from server.ratelimit import Clock, TokenBucket

__all__ = ["FloodGuard", "TokenBucket"]

class FloodGuard:
    """Counts refused (rate-limited) frames over a sliding window.

    `strike()` records one refusal and returns True when more than `limit` refusals fell in
    the last `window` seconds: the caller must then close the connection (1008).
    """

    __slots__ = ("limit", "window", "_clock", "_strikes")

    def __init__(
        self,
        *,
        limit: int,
        window: float,
        clock: Clock = time.monotonic,
    ) -> None:
        if limit <= 0 or window <= 0:
            raise ValueError("limit and window must be positive")
        self.limit = limit
        self.window = window
        self._clock = clock
        self._strikes: deque[float] = deque()

    def strike(self) -> bool:
        """Record one refusal; True when the connection is flooding and must be closed."""
        now = self._clock()
        strikes = self._strikes
        strikes.append(now)
        horizon = now - self.window
        while strikes and strikes[0] <= horizon:
            strikes.popleft()
        return len(strikes) > self.limit
