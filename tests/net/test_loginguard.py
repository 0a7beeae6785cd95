"""The login guard's logic on an injected clock: lockouts and their backoff, the guest limit,
the hashing slots, address keys."""

from __future__ import annotations

import asyncio

import pytest

from protocol import ProtocolError
from server.config import Config
from server.net.loginguard import GuestLimiter, HashSlots, Lockouts, LoginGuard, address_key


def lockouts(now: list[float], **kw: float) -> Lockouts:
    args = dict(limit=3, window=100.0, lockout=10.0, lockout_max=50.0, tracked=4)
    args.update(kw)
    return Lockouts(clock=lambda: now[0], **args)  # type: ignore[arg-type]


def test_lockout_after_the_limit_then_exponential_backoff_up_to_the_cap() -> None:
    now = [0.0]
    lk = lockouts(now)
    assert [lk.failed("a") for _ in range(2)] == [0.0, 0.0] and lk.retry_after("a") == 0
    assert lk.failed("a") == 10.0 and lk.retry_after("a") == 10.0
    now[0] = 10.0
    assert lk.retry_after("a") == 0
    assert lk.failed("a") == 20.0  # each failure after a lockout doubles it
    now[0] = 30.0
    assert lk.failed("a") == 40.0
    now[0] = 70.0
    assert lk.failed("a") == 50.0  # the cap
    assert lk.retry_after("b") == 0  # keys are apart


def test_a_quiet_window_after_the_lockout_forgives_and_success_clears() -> None:
    now = [0.0]
    lk = lockouts(now)
    for _ in range(3):
        lk.failed("a")
    now[0] = 10.0 + 100.1  # the window counts from the end of the lockout
    assert lk.failed("a") == 0.0 and lk.failures("a") == 1
    lk.succeeded("a")
    assert lk.failures("a") == 0


def test_memory_is_bounded() -> None:
    lk = lockouts([0.0])
    for i in range(10):
        lk.failed(f"k{i}")
    assert lk.failures("k0") == 0 and lk.failures("k9") == 1


def test_guest_limiter_is_a_sliding_minute() -> None:
    now = [0.0]
    g = GuestLimiter(limit=2, tracked=10, clock=lambda: now[0])
    assert g.take("ip") == 0 and g.take("ip") == 0
    assert g.take("ip") == 60.0 and g.take("other") == 0
    now[0] = 59.0
    assert g.take("ip") == pytest.approx(1.0)
    now[0] = 60.0
    assert g.take("ip") == 0


async def test_guard_refuses_with_retry_after() -> None:
    now = [0.0]
    guard = LoginGuard(Config(login_fail_limit=2, login_ip_fail_limit=3),
                       clock=lambda: now[0])
    await guard.failed("acct", "1.2.3.4")
    await guard.failed("acct", "1.2.3.4")
    with pytest.raises(ProtocolError) as info:
        await guard.check("acct", "5.6.7.8")  # the account, from anywhere
    assert info.value.code == "login_locked" and info.value.retry_after == 30
    assert info.value.to_message()["retry_after"] == 30
    await guard.check("other", "5.6.7.8")
    await guard.failed("other", "1.2.3.4")
    with pytest.raises(ProtocolError):
        await guard.check("fresh", "1.2.3.4")  # the address, whatever the account


async def test_hash_slots_bound_running_waiting_and_per_address() -> None:
    slots = HashSlots(slots=1, queue=1, per_key=2)
    release = asyncio.Event()
    entered = asyncio.Event()

    async def hold(key: str) -> None:
        async with slots.slot(key):
            entered.set()
            await release.wait()

    first = asyncio.ensure_future(hold("a"))
    await entered.wait()
    second = asyncio.ensure_future(hold("b"))  # waits
    await asyncio.sleep(0)
    assert slots.running == 1 and slots.waiting == 1
    with pytest.raises(ProtocolError) as busy:
        async with slots.slot("c"):
            pass
    assert busy.value.code == "server_busy"
    release.set()
    await asyncio.gather(first, second)
    assert slots.running == slots.waiting == 0
    per = HashSlots(slots=4, queue=4, per_key=1)
    release.clear()
    entered.clear()
    held = asyncio.ensure_future(hold_in(per, "a", entered, release))
    await entered.wait()
    with pytest.raises(ProtocolError) as limited:
        async with per.slot("a"):
            pass
    assert limited.value.code == "rate_limited"
    release.set()
    await held


async def hold_in(slots: HashSlots, key: str, entered: asyncio.Event,
                  release: asyncio.Event) -> None:
    async with slots.slot(key):
        entered.set()
        await release.wait()


def test_address_keys() -> None:
    assert address_key("10.0.0.1") == "10.0.0.1"
    assert address_key("::ffff:10.0.0.1") == "10.0.0.1"
    assert address_key("2001:db8:1:2:3:4:5:6") == address_key("2001:db8:1:2::9")
    assert address_key(None) == "-"


def test_identity_config_is_validated() -> None:
    for bad in (dict(login_fail_limit=0), dict(max_password_hashes=0),
                dict(login_lockout=10.0, login_lockout_max=5.0),
                dict(guest_sweep_interval=10.0, guest_idle_expiry=5.0),
                dict(reserved_names=("",)), dict(password_hash_queue=-1)):
        with pytest.raises(ValueError):
            Config(**bad)
