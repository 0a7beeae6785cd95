"""Brute-force and flood defences of identity requests: lockouts, guest creation, hash slots.

Rule of this module: every password check (`login`, `register`, `change_password`) and every
guest creation asks a :class:`LoginGuard` first, and the guard answers from memory (in
cluster mode: one Redis script), before any scrypt or store read, so a refused attempt costs
the server next to nothing:

* :class:`Lockouts`: failures per key (an account's name key, a client address) within
  `Config.login_fail_window`; at `Config.login_fail_limit` (`login_ip_fail_limit` for an
  address) the key is locked for `Config.login_lockout` seconds, doubled by each further
  failure (exponential backoff) up to `Config.login_lockout_max`. A locked key is refused
  with `login_locked` and `retry_after`, whatever the password. A success clears the
  account's count (not the address's: an attacker's own account must not reset it).
* :class:`GuestLimiter`: `Config.guests_per_ip_per_minute` guest accounts per address in any
  60 seconds (`too_many_guests`, `retry_after`).
* :class:`HashSlots`: at most `Config.max_password_hashes` hashes run at once; at most
  `Config.password_hash_queue` wait for a slot (then `server_busy`), and one address holds at
  most `Config.password_hashes_per_ip` of the running and waiting ones (then
  `rate_limited`), so one attacker cannot fill the line everybody's login waits in.

Addresses are keyed by :func:`address_key` (an IPv6 address by its /64: one host gets a
whole /64). Memory is bounded: at most `Config.login_tracked` records per table, the oldest
forgotten first. A standalone process counts in its memory; in cluster mode (`room`, a
`server.roomlimits.RoomLimits`) the lockouts and the guest limit count once for the whole
room, in Redis (one script per check: a refused attempt still costs no scrypt and no store
read), and a check Redis does not answer falls back to this process's memory (logged). The
hashing slots are the process's own CPU, so they stay per process.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import math
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable

from protocol import ProtocolError
from server.config import Config
from server.ledger.accounts import AccountError
from server.ratelimit import Lockouts
from server.redisio import RedisUnavailable
from server.roomlimits import CLAIM_TTL, RoomLimits

__all__ = ["GuestLimiter", "HashSlots", "LoginGuard", "Lockouts", "address_key", "refusal"]

log = logging.getLogger("server.net.loginguard")

GUEST_WINDOW = 60.0
"""Seconds of the window `Config.guests_per_ip_per_minute` counts in."""


def address_key(address: str | None) -> str:
    """The key a client address is counted under: IPv4 as is, IPv6 by its /64 (an
    IPv4-mapped IPv6 address as its IPv4), anything else (None, a Unix socket) as ``-``."""
    if not address:
        return "-"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


def refusal(code: str, retry_after: float, message: str | None = None) -> ProtocolError:
    """A `ProtocolError` carrying `retry_after` (whole seconds, at least 1)."""
    exc = ProtocolError(code, message)
    exc.retry_after = max(1, math.ceil(retry_after))
    return exc


class GuestLimiter:
    """At most `limit` events per key in any `window` seconds (a sliding log per key)."""

    def __init__(self, *, limit: int, window: float = GUEST_WINDOW, tracked: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.tracked = tracked
        self._clock = clock
        self._log: OrderedDict[str, deque[float]] = OrderedDict()

    def take(self, key: str) -> float:
        """Count one event of `key` and return 0, or return the seconds until one is
        allowed (nothing counted)."""
        now = self._clock()
        times = self._log.pop(key, None) or deque(maxlen=self.limit)
        while times and now - times[0] >= self.window:
            times.popleft()
        if len(times) >= self.limit:
            self._log[key] = times
            return self.window - (now - times[0])
        times.append(now)
        self._log[key] = times
        while len(self._log) > self.tracked:
            self._log.popitem(last=False)
        return 0.0


class HashSlots:
    """Bounded password hashing: `slots` at once, `queue` waiting, `per_key` per address."""

    def __init__(self, *, slots: int, queue: int, per_key: int) -> None:
        self._sem = asyncio.Semaphore(slots)
        self.slots = slots
        self.queue = queue
        self.per_key = per_key
        self.waiting = 0
        self.running = 0
        self._held: dict[str, int] = {}

    @contextlib.asynccontextmanager
    async def slot(self, key: str) -> AsyncIterator[None]:
        """Hold one hashing slot for `key`'s request (`server_busy` / `rate_limited`)."""
        if self._held.get(key, 0) >= self.per_key:
            raise refusal("rate_limited", 1.0, "too many password checks from your address "
                          "at once; wait for the last one")
        if self.running >= self.slots and self.waiting >= self.queue:
            raise refusal("server_busy", 1.0)
        self._held[key] = self._held.get(key, 0) + 1
        self.waiting += 1
        try:
            try:
                await self._sem.acquire()
            finally:
                self.waiting -= 1
            self.running += 1
            try:
                yield
            finally:
                self.running -= 1
                self._sem.release()
        finally:
            left = self._held[key] - 1
            if left:
                self._held[key] = left
            else:
                del self._held[key]


class LoginGuard:
    """The process's :class:`Lockouts` (per account, per address), :class:`GuestLimiter`
    and :class:`HashSlots`, built from the `Config`; with `room` (cluster mode) the lockouts
    and the guest limit are the room's, in Redis (the memory ones answer while Redis does
    not)."""

    def __init__(self, config: Config, *, clock: Callable[[], float] = time.monotonic,
                 room: RoomLimits | None = None) -> None:
        common = dict(window=config.login_fail_window, lockout=config.login_lockout,
                      lockout_max=config.login_lockout_max, tracked=config.login_tracked,
                      clock=clock)
        self.config = config
        self.room = room
        self.accounts = Lockouts(limit=config.login_fail_limit, **common)  # type: ignore[arg-type]
        self.addresses = Lockouts(limit=config.login_ip_fail_limit, **common)  # type: ignore[arg-type]
        self.guests = GuestLimiter(limit=config.guests_per_ip_per_minute,
                                   tracked=config.login_tracked, clock=clock)
        self.hashes = HashSlots(slots=config.max_password_hashes,
                                queue=config.password_hash_queue,
                                per_key=config.password_hashes_per_ip)
        self._checking: set[str] = set()  # accounts with a password check running here

    @contextlib.asynccontextmanager
    async def attempt(self, account: str, address: str) -> AsyncIterator[None]:
        """One password check of `account` (run it inside its hashing slot): one at a time
        per account (in the whole room in cluster mode; another is `rate_limited`), only
        while the lockouts allow it (`login_locked`); a `bad_credentials` inside is counted
        before the next check of the account may begin, so concurrent guesses spread over
        processes and addresses never pass the limit."""
        token = None
        if account in self._checking:
            raise _busy()
        if self.room is not None:
            try:
                token = await self.room.claim("acct", account, CLAIM_TTL)
            except RedisUnavailable as exc:
                log.warning("event=room_limits_unavailable check=claim error=%r", str(exc))
            else:
                if token is None:
                    raise _busy()
            if account in self._checking:  # (claimed here meanwhile, Redis unreachable)
                raise _busy()
        self._checking.add(account)
        try:
            await self.check(account, address)
            try:
                yield
            except AccountError as exc:
                if exc.code == "bad_credentials":
                    await self.failed(account, address)
                raise
        finally:
            self._checking.discard(account)
            if token is not None and self.room is not None:
                with contextlib.suppress(RedisUnavailable):  # (it expires anyway)
                    await self.room.release("acct", account, token)

    async def check(self, account: str | None, address: str) -> None:
        """Raise `login_locked` (with `retry_after`) when the account or the address is
        locked now."""
        wait = -1.0
        if self.room is not None:
            keys = [("addr", address)] + ([("acct", account)] if account is not None else [])
            try:
                wait = await self.room.lock_wait(*keys)
            except RedisUnavailable as exc:
                log.warning("event=room_limits_unavailable check=lockout error=%r", str(exc))
        if wait < 0:
            wait = self.addresses.retry_after(address)
            if account is not None:
                wait = max(wait, self.accounts.retry_after(account))
        if wait > 0:
            raise refusal("login_locked", wait)

    async def failed(self, account: str | None, address: str) -> None:
        """Count one failed password check against the account and the address."""
        cfg = self.config
        if self.room is not None:
            try:
                common = dict(window=cfg.login_fail_window, lockout=cfg.login_lockout,
                              lockout_max=cfg.login_lockout_max)
                if account is not None:
                    await self.room.lock_fail("acct", account, limit=cfg.login_fail_limit,
                                              **common)
                await self.room.lock_fail("addr", address, limit=cfg.login_ip_fail_limit,
                                          **common)
                return
            except RedisUnavailable as exc:
                log.warning("event=room_limits_unavailable check=failure error=%r", str(exc))
        if account is not None:
            self.accounts.failed(account)
        self.addresses.failed(address)

    async def succeeded(self, account: str | None) -> None:
        if account is None:
            return
        self.accounts.succeeded(account)
        if self.room is not None:
            try:
                await self.room.lock_clear("acct", account)
            except RedisUnavailable as exc:
                log.warning("event=room_limits_unavailable check=success error=%r", str(exc))

    async def guest(self, address: str) -> None:
        """Count one guest creation from `address` or raise `too_many_guests`."""
        wait = -1.0
        if self.room is not None:
            try:
                wait = await self.room.take("guests", address,
                                            limit=self.config.guests_per_ip_per_minute,
                                            window=GUEST_WINDOW)
            except RedisUnavailable as exc:
                log.warning("event=room_limits_unavailable check=guests error=%r", str(exc))
        if wait < 0:
            wait = self.guests.take(address)
        if wait > 0:
            raise refusal("too_many_guests", wait)


def _busy() -> ProtocolError:
    return refusal("rate_limited", 1.0, "a password check of this account is running; "
                   "wait for its answer")
