"""Token buckets for per-connection rate limits, and the flood guard that cuts abusers.

Rule of this module: no clock is read except the one injected (`clock`, default
`time.monotonic`), so every limit can be tested without sleeping.

`TokenBucket(rate=r, burst=b)` allows `b` requests at once and `r` per second sustained;
`take()` answers whether one more is allowed now. `FloodGuard(limit=n, window=w)` counts
refusals; `strike()` answers True once more than `n` refusals fell within the last `w`
seconds, and the caller then closes the connection with code 1008 (policy violation).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

Clock = Callable[[], float]

class TokenBucket:
    """A bucket of `burst` tokens refilled at `rate` tokens per second.

    Call `take()` once per event: True means allowed (a token was spent), False means the
    caller must refuse the event (`rate_limited`) without doing it.
    """

    __slots__ = ("rate", "burst", "_clock", "_tokens", "_stamp")

    def __init__(self, *, rate: float, burst: int, clock: Clock = time.monotonic) -> None:
        if rate <= 0 or burst <= 0:
            raise ValueError("rate and burst must be positive")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._stamp = clock()

    def _refill(self) -> None:
        now = self._clock()
        elapsed = now - self._stamp
        if elapsed > 0:
            self._tokens = min(float(self.burst), self._tokens + elapsed * self.rate)
        self._stamp = now

    def take(self, cost: float = 1.0) -> bool:
        """Spend `cost` tokens if there are that many; True when the event is allowed."""
        self._refill()
        if self._tokens >= cost:
            self._tokens -= cost
            return True
        return False

    @property
    def tokens(self) -> float:
        """Tokens available now (for tests and metrics)."""
        self._refill()
        return self._tokens


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
