"""A token bucket: the one rate limit of the server (the edge's per-connection limits, a
table's chat limit).

Rule of this module: no clock is read except the one injected (`clock`, default
`time.monotonic`), so every limit can be tested without sleeping. It imports only the
standard library, so every layer may use it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Clock", "TokenBucket"]

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
