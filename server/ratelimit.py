"""A token bucket: the one rate limit of the server (the edge's per-connection limits, a
table's chat limit); and :class:`Lockouts`, the one count of failed credentials with its
doubling lockouts (players' logins, `server.net.loginguard`; the operator listener,
`server.operator.auth.OperatorGuard`).

Rule of this module: no clock is read except the one injected (`clock`, default
`time.monotonic`), so every limit can be tested without sleeping. It imports only the
standard library, so every layer may use it.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Clock", "Lockouts", "TokenBucket"]

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


@dataclass(slots=True)
class _Record:
    failures: int = 0
    last: float = 0.0
    locked_until: float = 0.0


class Lockouts:
    """Failure counts and exponential lockouts per key (see the module docstring)."""

    def __init__(self, *, limit: int, window: float, lockout: float, lockout_max: float,
                 tracked: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.lockout = lockout
        self.lockout_max = lockout_max
        self.tracked = tracked
        self._clock = clock
        self._records: OrderedDict[str, _Record] = OrderedDict()

    def retry_after(self, key: str) -> float:
        """Seconds until `key` may try again (0: now)."""
        record = self._records.get(key)
        if record is None:
            return 0.0
        return max(0.0, record.locked_until - self._clock())

    def failed(self, key: str) -> float:
        """Count one failure of `key`; returns the lockout it now has (0: none)."""
        now = self._clock()
        record = self._records.pop(key, None) or _Record()
        if now - max(record.last, record.locked_until) > self.window:
            record.failures = 0  # quiet for a whole window (after any lockout): forgiven
        record.failures += 1
        record.last = now
        over = record.failures - self.limit
        lock = 0.0
        if over >= 0:
            lock = min(self.lockout_max, self.lockout * 2.0 ** min(over, 60))
            record.locked_until = now + lock
        self._records[key] = record  # (most recent last: the oldest is forgotten first)
        while len(self._records) > self.tracked:
            self._records.popitem(last=False)
        return lock

    def succeeded(self, key: str) -> None:
        """Forget `key`'s failures."""
        self._records.pop(key, None)

    def failures(self, key: str) -> int:
        record = self._records.get(key)
        return 0 if record is None else record.failures
